#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q109a/run.sh $OUT", carry=[".devbuild-xz-q109a", ".devbuild-xz-q103/leanattn.xz"], kind="nvidia-h100-x1")
# Staged steps, the A/B's first half: HEAD 3153e88's CLI unpacked into .devbuild-a, an ignored folder the warm machine
# keeps for the next call (.devbuild-xz-q109/run.sh), since both CLIs do not travel in one call.
set -uo pipefail
mkdir -p .devbuild-a && xz -dc .devbuild-xz-q103/leanattn.xz > .devbuild-a/leanattn && chmod +x .devbuild-a/leanattn && ls -la .devbuild-a
