"""examples/decode_loop.py runs end to end (a tiny CPU configuration): leanattn and SDPA decode the same tokens."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_decode_loop_agrees_with_sdpa_on_the_cpu():
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "decode_loop.py"), "--device", "cpu", "--tiny"],
                            capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "leanattn / sdpa" in result.stdout and "100% of the last tokens agree" in result.stdout
