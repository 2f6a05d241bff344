#!/usr/bin/env bash
# cuda bench (mirrored blocks): fixed-split steps with the reduce launched through programmatic dependent launch (the
# default) and plainly (LEANATTN_PDL=0; host-lengths steps launch nothing else through it), alternating, both kinds of step.
set -uo pipefail
out=$1; q=.devbuild-xz-q42; mkdir -p .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
for lengths in host device; do
  for round in 1 2; do
    for pdl in 1 0; do
      LEANATTN_PDL=$pdl .devbuild/leanattn cuda bench --shapes $q/shapes.txt --repeat 50 --lengths $lengths -o $out/pdl$pdl-$lengths-$round.jsonl 2> $out/pdl$pdl-$lengths-$round.log; echo "pdl $pdl $lengths $round rc $?"
    done
  done
done
echo "done in $SECONDS s"
bash bench/gpu/pack_out.sh $out
