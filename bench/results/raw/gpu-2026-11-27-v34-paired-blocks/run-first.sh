#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q113/run.sh $OUT", carry=[".devbuild-xz-q113"], kind="nvidia-h100-x1")
# Paired blocks (kernel v34 trial), first call: HEAD c3856db's CLI unpacked into .devbuild-a, an ignored folder the warm
# machine keeps for the next call (.devbuild-xz-q114/run.sh), since two CLIs do not travel in one call.
set -uo pipefail
mkdir -p .devbuild-a && xz -dc .devbuild-xz-q113/leanattn.xz > .devbuild-a/leanattn && chmod +x .devbuild-a/leanattn && ls -la .devbuild-a
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
