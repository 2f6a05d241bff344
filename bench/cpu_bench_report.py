#!/usr/bin/env python3
"""Turns the JSON lines of bench/cpu_bench.sh into bench/results/cpu-<machine>.md and .json.

usage: cpu_bench_report.py RUNS_JSONL OUT_PREFIX CORES CPU_MODEL COMMAND
Each table row is the round with the median fraction of the read bandwidth; the range over all rounds
follows it, so a noisy machine shows as a wide range rather than as one lucky number.
"""
import datetime
import json
import statistics
import sys


def main():
    runs_file, out, cores, model, command = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    runs = [json.loads(line) for line in open(runs_file)]
    for r in runs:
        r["fraction_of_read"] = r["gbps"] / r["read_gbps"]
    date = datetime.date.today().isoformat()
    rounds = max(r["round"] for r in runs)
    with open(out + ".json", "w") as f:
        json.dump({"date": date, "cpu": model, "cores": cores, "command": command, "runs": runs}, f, indent=2)

    def group(dtype, threads):
        return sorted((r for r in runs if r["dtype"] == dtype and r["threads"] == threads), key=lambda r: r["fraction_of_read"])

    lines = [
        "# CPU executor speed", "",
        f"Measured {date} on {model} ({cores} cores), Release build. Command (`bench/cpu_bench.sh`):",
        f"`{command}`, D in fp16/bf16/fp32, T = {cores} and 1; {rounds} rounds of the whole sweep.", "",
        "B=1, H=32, d=128, ctx=65,536: 1,074 MB of K and V in fp16/bf16, 2,147 MB in fp32; the plan is h100-sxm's 264",
        "stream-k CTAs, played by T threads. ms: best of 10 runs. read GB/s: this machine's plain read bandwidth with T",
        "threads (a streaming sum of a buffer of at least 4x the last-level cache, plain and with an L2 prefetch ahead,",
        "best of 5 passes each), measured in the same process. Each row is the round with the median fraction of the",
        "read bandwidth, then the range over all rounds. Speedup: median ms with 1 thread / median ms with T threads.", "",
        "| dtype | threads | ms | K+V GB/s | read GB/s | of read (range) | speedup vs 1 thread | rel L2 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for dtype in ("fp16", "bf16", "fp32"):
        one_ms = statistics.median(r["ms"] for r in group(dtype, 1))
        for threads in sorted({cores, 1}, reverse=True):
            g = group(dtype, threads)
            r = g[len(g) // 2]
            speedup = one_ms / statistics.median(x["ms"] for x in g)
            lines.append(f"| {dtype} | {threads} | {r['ms']:.1f} | {r['gbps']:.1f} | {r['read_gbps']:.1f} | "
                         f"{r['fraction_of_read']:.2f} ({g[0]['fraction_of_read']:.2f}-{g[-1]['fraction_of_read']:.2f}) | "
                         f"{speedup:.2f} | {r['rel_l2_err']:.1e} |")
    with open(out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
