"""The suite's time budget: it measures its own elapsed time and refuses work that would overrun.

Each piece of work comes with an estimate (estimate.py's model); the budget learns how far off the model runs
on this machine (actual over estimated seconds, over the work done so far) and scales later estimates by it, so a
slow machine skips earlier rather than being killed at the device's per-command limit. Standard library only.
"""
import time


class Budget:
    def __init__(self, total_s, reserve_s=20.0, clock=time.monotonic):
        self.total_s = total_s
        self.reserve_s = reserve_s
        self.clock = clock
        self.start = clock()
        self.estimated = 0.0
        self.actual = 0.0

    def elapsed(self):
        return self.clock() - self.start

    def remaining(self):
        return self.total_s - self.reserve_s - self.elapsed()

    def factor(self):
        """How much longer than estimated work has taken so far (1 until 10 s of work has been seen)."""
        if self.estimated < 10.0:
            return 1.0
        return max(0.5, self.actual / self.estimated)

    def allows(self, estimate_s):
        return estimate_s * self.factor() <= self.remaining()

    def record(self, estimate_s, actual_s):
        self.estimated += estimate_s
        self.actual += actual_s
