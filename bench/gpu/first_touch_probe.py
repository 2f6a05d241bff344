"""Does the first touch of K/V pages (address-translation misses after the flush) cost a decode? Times leanattn's
stream-k and SDPA's cuDNN backend after the suite's flush, with and without a read of one element per 64 KB of K
and V between the flush and the spin (a few KB into L2, every page translated), alternating, median of 200 each.
usage (on the GPU machine, from the repository root, LEANATTN_LIBRARY set): python3 bench/gpu/first_touch_probe.py"""
import sys, torch
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import timing, shapes
from inputs import Inputs
from peers import LeanattnPeer, SdpaPeer

class TouchTimer(timing.Timer):
    def __init__(self, tensors):
        super().__init__()
        self.views = [t.reshape(-1)[:: (64 * 1024) // t.element_size()] for t in tensors]
        self.sinks = [torch.empty((), dtype=t.dtype, device="cuda") for t in tensors]
    def _prelude(self, i):
        self.flush.fill_(i)
        torch.sum(self.clean, dim=1, out=self.sink)
        for v, s in zip(self.views, self.sinks):
            torch.sum(v, dim=0, out=s)
        torch.cuda._sleep(timing.SPIN_CYCLES)

cases = [shapes.uniform("b16-h8kv1-d128-8k", 16, 8, 1, 128, 8192, "probe"),
         shapes.uniform("b1-h32kv8-d128-32k", 1, 32, 8, 128, 32768, "probe"),
         shapes.uniform("b4-h32kv32-d64-1k", 4, 32, 32, 64, 1024, "probe"),
         shapes.uniform("b1-h32kv8-d128-2k", 1, 32, 8, 128, 2048, "probe")]
plain = timing.Timer()
for s in cases:
    inp = Inputs(s)
    touch = TouchTimer([inp.k, inp.v])
    for peer in (LeanattnPeer("stream-k"), SdpaPeer("cudnn")):
        run = peer.prepare(inp)
        graph, _, _ = plain.capture(run)
        row = []
        for name, t in (("flush", plain), ("flush+touch", touch), ("flush", plain), ("flush+touch", touch)):
            row.append(f"{name} {t.time(run, 200, graph)['median_us']:.1f}")
        print(f"{s.name:22s} {peer.name:18s} " + "  ".join(row), flush=True)
    del inp, touch
    torch.cuda.empty_cache()
