#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q117/run-first.sh $OUT", carry=[".devbuild-xz-q114/leanattn.xz", ".devbuild-xz-q117/run-first.sh"], kind="nvidia-h100-x1"), after .devbuild-xz-q113/run.sh
# Paired blocks, the first version's CLI (q114) unpacked into .devbuild-b for the three-way comparison of .devbuild-xz-q117/run.sh.
set -uo pipefail
mkdir -p .devbuild-b && xz -dc .devbuild-xz-q114/leanattn.xz > .devbuild-b/leanattn && chmod +x .devbuild-b/leanattn && ls -la .devbuild-a .devbuild-b
