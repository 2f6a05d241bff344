#!/usr/bin/env bash
# Every model beside SDPA with the aligned rule weighing k CTAs on every output (6d75008), then auto's three
# switches to fixed-split (old choice stream-k at grid 132) timed A (old) B (new) A B, each validated first.
set -uo pipefail
out=$1; mkdir -p $out
bash .devbuild-xz8/unpack.sh
export LEANATTN_DATA=$PWD/data PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -3 $out/models.log
mkdir -p $out/switch
i=0
while IFS='|' read -r shape before after; do
  i=$((i+1))
  .devbuild/leanattn cuda validate $shape $after > $out/switch/$i-validate.txt 2>&1 || echo "VALIDATE FAILED $i: $shape $after"
  for round in 1 2; do
    for side in A B; do
      flags=$before; [ $side = B ] && flags=$after
      .devbuild/leanattn cuda bench $shape $flags --format json > $out/switch/$i-$side-$round.json 2>&1
    done
  done
  echo "$i $shape | $before | $after: $(python3 -c "
import json,sys
t=lambda s,r: json.load(open('$out/switch/$i-'+s+'-'+str(r)+'.json'))['results'][0]['median_us']
a=[t('A',1),t('A',2)]; b=[t('B',1),t('B',2)]; print('A', a, 'B', b, 'B/A %.3f' % (sum(b)/sum(a)))")"
done <<'PAIRS'
--batch 4 --heads 32 --kv-heads 8 --head-dim 64 --ctx 32768|--strategy stream-k --grid 132|--strategy auto
--batch 4 --heads 16 --kv-heads 8 --head-dim 128 --ctx 16384|--strategy stream-k --grid 132|--strategy auto
--batch 4 --heads 32 --kv-heads 8 --head-dim 128 --ctx 32768|--strategy stream-k --grid 132|--strategy auto
PAIRS
echo "done $SECONDS s"
