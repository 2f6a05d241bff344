"""examples/decode_loop.py runs end to end (a tiny CPU configuration): leanattn and SDPA decode the same tokens."""
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_decode_loop_agrees_with_sdpa_on_the_cpu():
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "decode_loop.py"), "--device", "cpu", "--tiny"],
                            capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "leanattn / sdpa" in result.stdout, result.stdout
    # The first decode step runs both attentions from one state: in fp32 they agree to rounding.
    gap = re.search(r"first step, all layers: hidden states of leanattn and sdpa differ by ([0-9.e+-]+)", result.stdout)
    assert gap is not None, result.stdout
    assert float(gap.group(1)) < 1e-4, result.stdout
