#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q123/run.sh $OUT", carry=[".devbuild-xz-q123"], kind="nvidia-h200")
# HEAD 9ae5fed's build (kernel v34; Python's decode/DecodePlan default to strategy="auto"). On an H200: the held-out
# sweep both ways of reading the lengths, two rounds each, against the predictions committed first (f64e449,
# bench/results/calibration-h200-predicted-v32*.jsonl; simulator and fits unchanged since). On an H100: the calibration
# sweeps (training once, held-out twice) both ways on kernel v34. (Python's tests: q124/run.sh, the library not fitting
# beside this CLI in one call.)
set -uo pipefail
out=$1; q=.devbuild-xz-q123; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
cat $r/machine.txt
case "$(head -1 $r/machine.txt)" in
  *H200*)
    for round in 1 2; do
      .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 -o $r/heldout-$round.jsonl 2> $r/heldout-$round.log; echo "device $round rc $? at $SECONDS s"
      .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 --lengths host -o $r/heldout-host-$round.jsonl 2> $r/heldout-host-$round.log; echo "host $round rc $? at $SECONDS s"
    done;;
  *)
    timeout 200 bash bench/gpu/calibration.sh .devbuild $r/cal-device > $r/cal-device.log 2>&1; echo "cal device rc $? at $SECONDS s"
    CALIBRATION_FLAGS="--lengths host" timeout 200 bash bench/gpu/calibration.sh .devbuild $r/cal-host > $r/cal-host.log 2>&1; echo "cal host rc $? at $SECONDS s";;
esac
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out
