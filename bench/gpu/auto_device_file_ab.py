"""auto's picks on one GPU weighed with its own device file and with h100-sxm's, timed in one run.

Reads the folder a run of `leanattn cuda bench --shapes S` wrote three times (defaults.jsonl: the three default plans;
auto-own.jsonl: --strategy auto without --device, which on a GPU reads the file that describes it; auto-h100-sxm.jsonl:
--strategy auto --device h100-sxm) and compares the two picks shape by shape, and each against the best plan timed.

    python3 bench/gpu/auto_device_file_ab.py bench/results/raw/gpu-2026-11-27-h200-own-device-file
"""
import json, sys, statistics

from records import open_text  # raw results may be kept as FILE.xz
def load(p):
    out = {}
    for l in open_text(p):
        j = json.loads(l)
        if 'results' not in j: continue
        out[j['flags']] = j['results']
    return out
d = sys.argv[1]
defaults, own, h100 = load(d + '/defaults.jsonl'), load(d + '/auto-own.jsonl'), load(d + '/auto-h100-sxm.jsonl')
rows = []
for f in defaults:
    if f not in own or f not in h100: continue
    best = min([r['median_us'] for r in defaults[f]] + [own[f][0]['median_us'], h100[f][0]['median_us']])
    rows.append((own[f][0], h100[f][0], best, f))
n = len(rows)
same = sum(1 for a, b, _, _ in rows if (a['strategy'], a['grid'], a['splits']) == (b['strategy'], b['grid'], b['splits']))
geo = statistics.geometric_mean([a['median_us'] / b['median_us'] for a, b, _, _ in rows])
w_own = sum(1 for a, _, best, _ in rows if a['median_us'] <= 1.03 * best)
w_h = sum(1 for _, b, best, _ in rows if b['median_us'] <= 1.03 * best)
print(f"{n} shapes; the two device files pick the same plan on {same}")
print(f"auto with this GPU's device file / with h100-sxm's: geometric mean {geo:.4f} over all; sums {sum(a['median_us'] for a,_,_,_ in rows):.1f} / {sum(b['median_us'] for _,b,_,_ in rows):.1f} us")
diff = [(a['median_us'] / b['median_us'], a, b, f) for a, b, _, f in rows if (a['strategy'], a['grid'], a['splits']) != (b['strategy'], b['grid'], b['splits'])]
if diff: print(f"  where the picks differ ({len(diff)}): geometric mean {statistics.geometric_mean([x[0] for x in diff]):.4f}, best {min(x[0] for x in diff):.3f}, worst {max(x[0] for x in diff):.3f}")
print(f"within 3% of the best of every plan timed (the three defaults and both picks): this GPU's file {w_own}/{n}, h100-sxm's {w_h}/{n}")
for r, a, b, f in sorted(diff)[:40]:
    print(f"  {r:.3f}  own {a['strategy']}/{a['grid']}/{a['splits']} {a['median_us']:.1f}  h100-sxm {b['strategy']}/{b['grid']}/{b['splits']} {b['median_us']:.1f}  {f[:90]}")
