#!/usr/bin/env python3
"""Estimate the full `locus repro ndp` run's cost (issue 11: under 45 minutes on 2 cores).

Usage: scripts/ndp-timing.py QUICK_OUT TIMES_LOG

QUICK_OUT: the output folder of `locus repro ndp --quick` (its runs/*.json give each run's
host seconds). TIMES_LOG: lines `<workload> <naive|none> user=<s> wall=<s> rc=<code>` from
`/usr/bin/time` around `locus run -p ndp-8hmc -w <workload> --set ndp.offload=<c>` (the
full cap: every run to its workload's end, as the full plan runs them).

The full plan (crates/cli/src/repro/ndp.rs `plan`): every Table 1 workload runs the 12
`main_variants(false)` and the 3 `study_variants`. A variant's cost relative to the mean of
its workload's Baseline and NaiveNDP runs is taken from the quick run (mean of that ratio
over the quick workloads that ran the variant; the full plan's static ratios the quick run
lacks take the mean of the quick run's static ratios); each workload's cost is then that
mean, from the user CPU seconds measured, times the sum of the factors. Printed: per
workload the measured seconds and estimate, the total CPU seconds and the wall time on 2
workers (the total over 2, or the longest single run if larger). Runs that hit the
a time or CPU limit (rc not 0) are lower bounds and are flagged.
"""
import glob
import json
import os
import sys

MAIN = ["base", "naive", "naive-endonly", "split0", "s0.15", "s0.2", "s0.4", "s0.6", "s0.8",
        "dyn", "dyncache", "morecore"]
STUDY = ["nsu175", "base128", "dyncache128"]
QUICK_STATIC = ["s0.2", "s0.6"]


def main():
    quick, log = sys.argv[1], sys.argv[2]
    host = {}
    for f in glob.glob(os.path.join(quick, "runs", "*.json")):
        d = json.load(open(f))
        if d.get("host_seconds"):
            host[d["key"]] = d["host_seconds"]
    benches = sorted({k.rsplit("-", 1)[0] for k in host if k.endswith("-naive")})
    factors = {}
    for v in MAIN + STUDY:
        rs = []
        for b in benches:
            ref = (host.get(f"{b}-base", 0) + host.get(f"{b}-naive", 0)) / 2
            if ref > 0 and f"{b}-{v}" in host:
                rs.append(host[f"{b}-{v}"] / ref)
        if rs:
            factors[v] = sum(rs) / len(rs)
    stat = [factors[s] for s in QUICK_STATIC if s in factors]
    for v in MAIN + STUDY:
        if v not in factors and v.startswith("s0") and stat:
            factors[v] = sum(stat) / len(stat)
    missing = [v for v in MAIN + STUDY if v not in factors]
    print("quick workloads:", ", ".join(benches))
    print("variant cost / mean(Baseline, NaiveNDP), from the quick run's host seconds:")
    for v in MAIN + STUDY:
        print(f"  {v:14s} {factors.get(v, float('nan')):.2f}")
    if missing:
        print("no factor for:", ", ".join(missing), "(taken as 1.00)")
    fsum = sum(factors.get(v, 1.0) for v in MAIN + STUDY)
    cpu = {}
    lower = set()
    for line in open(log):
        p = line.split()
        if len(p) < 5 or not p[2].startswith("user="):
            continue
        w, c = p[0], p[1]
        cpu[(w, c)] = float(p[2][5:])
        if p[4] != "rc=0":
            lower.add(w)
    total, longest = 0.0, 0.0
    print(f"\n{'workload':18s} {'base s':>8s} {'naive s':>8s} {'est. all 15 runs, s':>20s}")
    for w in sorted({w for w, _ in cpu}):
        b, n = cpu.get((w, "none")), cpu.get((w, "naive"))
        if b is None or n is None:
            print(f"{w:18s} incomplete")
            continue
        est = (b + n) / 2 * fsum
        longest = max(longest, b, n, max((b + n) / 2 * f for f in factors.values()))
        total += est
        flag = " (stopped by a limit: lower bound)" if w in lower else ""
        print(f"{w:18s} {b:8.1f} {n:8.1f} {est:20.0f}{flag}")
    wall = max(total / 2, longest)
    print(f"\ntotal CPU {total:.0f} s over {len({w for w, _ in cpu})} workloads; "
          f"on 2 workers about {wall / 60:.1f} min (longest single run about {longest:.0f} s)")


if __name__ == "__main__":
    main()
