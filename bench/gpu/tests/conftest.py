"""The suite's modules from bench/gpu, importable by the tests (standard library only: no GPU, no torch)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
