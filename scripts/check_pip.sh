#!/usr/bin/env bash
# `pip install .` as a user runs it: builds the wheel (scikit-build-core, pyproject.toml) into a fresh virtual
# environment that sees the system's torch and pytest, then runs the package's tests against the installed copy,
# from outside the sources, with no LEANATTN_* variables set; then `pip install -e .` (editable) over it.
#   usage: check_pip.sh [PYTHON [PIP_INSTALL_OPTIONS…]]
#   e.g.   check_pip.sh /usr/bin/python3 --config-settings=cmake.define.LEANATTN_CUDA=OFF     (what CI runs)
# Exits 77 (ctest: skipped, with the reason) when the build backend cannot be fetched from the package index.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${1:-/usr/bin/python3}
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset LEANATTN_LIBRARY LEANATTN_DATA
"$python" -m venv --system-site-packages "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check --no-input)
if ! timeout 120 "${pip[@]}" download --no-deps -q -d "$work/probe" scikit-build-core >"$work/probe.log" 2>&1; then
  echo "check_pip: skipped: scikit-build-core (the wheel's build backend) cannot be fetched from the package index:"
  tail -n 3 "$work/probe.log"
  exit 77
fi
# --no-deps: the torch under test is the system's (Debian's CPU build in CI), whatever pip would make of its version.
# The build folder is this check's own (kept between runs): a user's `pip install .` in build-wheel/ keeps its settings.
if ! "${pip[@]}" install --no-deps --config-settings=build-dir="$root/build-wheel/check-pip" "$@" "$root" >"$work/install.log" 2>&1; then
  cat "$work/install.log" >&2
  echo "check_pip: pip install failed" >&2
  exit 1
fi
grep -E "^Successfully installed" "$work/install.log"
cd "$work"
LEANATTN_TEST_INSTALLED=1 "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
# The installed library reads the data inside its package, not the sources': a device file added there alone is found.
"$work/venv/bin/python" - <<'PY'
import json, pathlib, leanattn
devices = pathlib.Path(leanattn.__file__).parent / "data" / "devices"
probe = json.loads((devices / "paper-5sm.json").read_text())
probe["name"] = "wheel-only-probe"
(devices / "wheel-only-probe.json").write_text(json.dumps(probe))
assert leanattn.schedule(heads=2, head_dim=64, ctx=1280, device="wheel-only-probe")["grid"] > 0
print("the wheel's library: reads the data inside its package")
PY
# The command the wheel puts on the environment's PATH reads the data installed with it (`devices --help` names the
# folder), not the sources', and draws the paper's Figure 1 as the repository's golden file has it (tests/app compares
# the source build's the same way).
read_from=$("$work/venv/bin/leanattn" devices --help | sed -n 's|^Lists the devices in \(.*\)/devices\. .*|\1|p')
if [ "$(realpath "$read_from")" != "$(realpath "$work/venv/share/leanattn/data")" ]; then
  echo "check_pip: the wheel's leanattn reads its data from '$read_from', not from the environment's share/leanattn/data" >&2
  exit 1
fi
"$work/venv/bin/leanattn" schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --stream-k-rule paper --format json \
  -o "$work/figure1.json"
"$work/venv/bin/python" - "$work/figure1.json" "$root/data/figures/figure1-stream-k.json" <<'PY'
import json, sys
made, golden = (json.load(open(path)) for path in sys.argv[1:])
assert made == golden, f"leanattn schedule from the wheel differs from the golden Figure 1: {made} != {golden}"
print("the wheel's leanattn command: Figure 1 as the golden file has it")
PY
# Editable (`pip install -e .`, the same build folder: nothing recompiles): the modules are the sources', the library
# the one built for the environment, not a build tree's.
"${pip[@]}" install --no-deps --config-settings=build-dir="$root/build-wheel/check-pip" "$@" -e "$root" >"$work/editable.log" 2>&1 ||
  { cat "$work/editable.log" >&2; echo "check_pip: pip install -e failed" >&2; exit 1; }
"$work/venv/bin/python" - "$root" "$work/venv" <<'PY'
import pathlib, sys, torch, leanattn
root, venv = (pathlib.Path(p).resolve() for p in sys.argv[1:])
assert pathlib.Path(leanattn.__file__).resolve().is_relative_to(root / "python"), leanattn.__file__
assert leanattn.library_path.is_relative_to(venv), leanattn.library_path
q, k = torch.randn(1, 1, 4, 32), torch.randn(1, 50, 2, 32)
assert torch.isfinite(leanattn.decode(q, k, k, torch.tensor([50], dtype=torch.int32))).all()
print("pip install -e: the sources' modules, the environment's library")
PY
