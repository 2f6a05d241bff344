"""A suite run's records, indexed for the report: shapes with each peer's time, the fixed-cost fits per kernel
path, the copy bandwidth. Standard library only."""
import collections

from fit import FitError, fit_line
from shapes import shape_from_dict

STREAM_K = "leanattn/stream-k"
SDPA = ("sdpa/flash", "sdpa/cudnn", "sdpa/efficient")
FLASHINFER = "flashinfer/decode"
# Datasheet peak HBM bandwidth (GB/s) of the GPUs the suite has run on: H100 SXM5 80 GB HBM3, H200 141 GB HBM3e.
PEAK_HBM_GBPS = {"NVIDIA H100 80GB HBM3": 3350.0, "NVIDIA H200": 4800.0}
PEER_ORDER = ("leanattn/stream-k", "leanattn/fixed-split", "leanattn/no-split", "leanattn/stream-k-paged16", "leanattn/stream-k-device",
              "sdpa/flash", "sdpa/cudnn", "sdpa/efficient", "flashinfer/decode")


class Row:
    """One shape (one dtype): its peers' result records."""

    def __init__(self, shape, kv_bytes, floor_us, copy_gbps):
        self.shape, self.kv_bytes, self.floor_us, self.copy_gbps = shape, kv_bytes, floor_us, copy_gbps
        self.peers = {}

    def us(self, peer):
        """Median us of a peer that passed its check and was timed, else None."""
        r = self.peers.get(peer)
        return r["median_us"] if r and r.get("ok") and "median_us" in r else None

    def best_sdpa(self):
        """(us, peer) of the fastest SDPA backend that ran, or None."""
        times = [(self.us(p), p) for p in SDPA if self.us(p) is not None]
        return min(times) if times else None

    def dims(self):
        """The shape without its dtype and name: what pairs an fp16 row with its bf16 twin."""
        s = self.shape
        return (s.batch, s.q_heads, s.kv_heads, s.head_dim, s.ctx)


class Run:
    def __init__(self, recs):
        self.records = recs
        kinds = collections.defaultdict(list)
        for r in recs:
            kinds[r.get("kind")].append(r)
        self.kinds = kinds
        self.machine = kinds["machine"][0] if kinds["machine"] else {}
        self.copies = {c["when"]: c for c in kinds["copy"]}
        self.rows = {}
        for r in kinds["result"]:
            key = (r["case"], r["shape"]["dtype"])
            if key not in self.rows:
                self.rows[key] = Row(shape_from_dict(r["shape"]), r["kv_bytes"], r["floor_us"], r["copy_gbps"])
            self.rows[key].peers[r["peer"]] = r
        self.done = kinds["done"][-1] if kinds["done"] else None

    def ideal_us(self, row):
        """What an ideal kernel would measure on `row`: the timing method's own floor (a graph of one 1-element
        kernel, timed alike) plus K and V read at the GPU's datasheet peak, with no cost of its own. None when the
        run has no calibration or the GPU no peak here. It bounds what any kernel can show against a peer."""
        peak = PEAK_HBM_GBPS.get(self.machine.get("gpu"))
        cal = self.kinds["calibration"]
        return cal[0]["median_us"] + row.kv_bytes / peak / 1e3 if peak and cal else None

    def copy_gbps(self):
        c = self.copies.get("start") or self.copies.get("end")
        return c["gbps"] if c else None

    def section(self, name):
        return [row for row in self.rows.values() if row.shape.section == name]

    def peers_present(self, rows):
        seen = {p for row in rows for p in row.peers}
        return [p for p in PEER_ORDER if p in seen]

    def fits(self):
        """{(peer, head_dim, group, dtype): fit} over the sweep's shapes (at least 3 timed points each)."""
        points = collections.defaultdict(list)
        for row in self.section("sweep"):
            s = row.shape
            for peer in row.peers:
                if row.us(peer) is not None:
                    points[(peer, s.head_dim, s.group, s.dtype)].append((row.kv_bytes, row.us(peer)))
        out = {}
        for key, pts in points.items():
            if len(pts) >= 3:
                try:
                    out[key] = fit_line(pts) | {"data": sorted(pts)}
                except FitError:
                    continue
        return out
