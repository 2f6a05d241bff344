#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q125/run.sh $OUT", carry=[".devbuild-xz-q125"], kind="nvidia-h200")
# HEAD 4a86689's CLI (kernel v34, as q123's). On an H200: the held-out sweep both ways of reading the lengths, two rounds
# each, against the predictions committed first (f64e449). On an H100 (another machine than q123's, 06:31 UTC): the
# held-out sweep both ways, two rounds each, so that the two machines' rounds give the run-to-run noise a user meets.
set -uo pipefail
out=$1; q=.devbuild-xz-q125; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
cat $r/machine.txt
case "$(head -1 $r/machine.txt)" in *H200*) device=h200;; *) device=h100-sxm;; esac
for round in 1 2; do
  .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device $device -o $r/heldout-$round.jsonl 2> $r/heldout-$round.log; echo "device $round rc $? at $SECONDS s"
  .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device $device --lengths host -o $r/heldout-host-$round.jsonl 2> $r/heldout-host-$round.log; echo "host $round rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out
