#!/bin/bash
# usage: scripts/rec-limits-study.sh LOCUS OUT_DIR [JOBS] [FULL_RUN_DIR] [QUICK_RUN_DIR]
# REC's limits study (issue 9, docs/rec-limits-study.md): what caps the ideal directory's gain
# over the 8K line-FIFO baseline. Every REC benchmark on rec-4gpu, the baseline
# (directory.kind=line-fifo) and the ideal directory (directory.kind=ideal), under the literal
# reading (rec.md §6.16's default: chunked placement, chunk dispatch) and the mgpusim-unified
# reading (placement.policy and scheduling.policy = mgpusim-unified), each capped at 1.5 M and
# at 3 M warp instructions (the committed report's cap and twice it). 96 runs, resumable: a
# stats JSON already in OUT_DIR is kept. FULL_RUN_DIR (optional): the out directory of a full
# `locus repro rec` run, whose runs.csv and runs/*.json give the "where the hour goes" section;
# QUICK_RUN_DIR (optional): the out directory of a fresh `locus repro rec --quick` (its
# numbers.txt gives the runs planned and the seconds they took).
# Prints the Markdown of docs/rec-limits-study.md's measured part; nothing in it is typed.
set -e
L=$1; OUT=$2; JOBS=${3:-2}; FULL=$4; QUICK=$5
[ -x "$L" ] && [ -n "$OUT" ] || { echo "usage: $0 LOCUS OUT_DIR [JOBS] [FULL_RUN_DIR]" >&2; exit 2; }
mkdir -p "$OUT"
BENCHES="atax 2dconv fir gemm gemver jacobi2d lu 2mm 3mm hm-pagerank simpleconv shoc-stencil2d"
CAPS="1500000 3000000"
jobs=()
# the 3 M runs first: they are the longest (longest first keeps both workers busy to the end)
for cap in 3000000 1500000; do for b in $BENCHES; do for r in literal mgpusim; do for k in line-fifo ideal; do
  jobs+=("$b:$r:$k:$cap"); done; done; done; done
printf '%s\n' "${jobs[@]}" | xargs -P "$JOBS" -I{} bash -c '
  IFS=: read b r k cap <<< "{}"
  f="'"$OUT"'/$b-$r-$k-$cap.json"
  extra=""
  [ "$r" = mgpusim ] && extra="--set placement.policy=mgpusim-unified --set scheduling.policy=mgpusim-unified"
  [ -s "$f" ] || "'"$L"'" run -p rec-4gpu -w "$b" -q --set directory.kind=$k \
    --set run.max_warp_insts=$cap $extra --stats-json "$f" >/dev/null'
python3 - "$OUT" "$CAPS" "$FULL" "$QUICK" $BENCHES <<'PY'
import json, sys, math, os, glob, csv, collections
out, caps, full, quick, benches = sys.argv[1], [int(c) for c in sys.argv[2].split()], sys.argv[3], sys.argv[4], sys.argv[5:]
READ = [("literal", "literal (rec.md §6.16 default: chunked placement, chunk dispatch)"),
        ("mgpusim", "mgpusim-unified (MGPUSim's page interleaving and workgroup dispatch)")]
def load(b, r, k, cap):
    return json.load(open(f"{out}/{b}-{r}-{k}-{cap}.json"))
def get(b, r, cap):
    B, I = load(b, r, "line-fifo", cap), load(b, r, "ideal", cap)
    sb, si = B["sim"], I["sim"]
    cb, ci = sb["coherence"], si["coherence"]
    c = sb["total"]["counters"]
    l1m = c["l1_miss_local"] + c["l1_miss_remote"]
    links = [l for l in sb["links"] if l["kind"] == "inter-node"]
    ev = cb["invalidations_by_cause"]["eviction"]
    wr = cb["invalidations_by_cause"]["write"]
    d = cb["directory"]
    removable = cb["l2_misses_non_cold"] - ci["l2_misses_non_cold"]
    saved = sb["total"]["cycles"] - si["total"]["cycles"]
    return dict(
        cycles=sb["total"]["cycles"], icycles=si["total"]["cycles"],
        gain=sb["total"]["cycles"] / si["total"]["cycles"] - 1.0,
        misses=cb["l2_misses"], cold=cb["l2_cold_misses"], nc=cb["l2_misses_non_cold"],
        inc=ci["l2_misses_non_cold"], removable=removable,
        ev_sent=ev["sent"], ev_hits=ev["hits"], wr_hits=wr["hits"],
        occ=d["occupancy"], evictions=d["evictions"],
        l2r=c["l1_miss_remote"] / l1m if l1m else 0.0, memr=sb["total"]["remote_fraction"],
        link_max=max((l["utilization"] for l in links), default=0.0),
        link_mean=sum(l["utilization"] for l in links) / len(links) if links else 0.0,
        kernels=len(sb["kernels"]), boundary=B["config"]["l2"]["kernel_boundary"],
        capped=sb.get("stopped_by_limit", False), icapped=si.get("stopped_by_limit", False),
        saved=saved, per_miss=saved / removable if removable > 0 else float("nan"),
        lat_b=sb["total"]["mean_load_latency_ns"], lat_i=si["total"]["mean_load_latency_ns"])
pct = lambda x: f"{100 * x:+.1f}%"
share = lambda a, b: f"{100 * a / b:.1f}%" if b else "n/a"
def gmean(xs):
    return math.exp(sum(math.log(1 + x) for x in xs) / len(xs)) - 1
# the rule that names each benchmark's limit, declared here before any number is read
# (thresholds are round numbers, not fitted): in order,
#  1. the baseline never evicts: "no directory pressure" (nothing for any directory to remove)
#  2. removable misses (baseline non-cold - ideal non-cold) under 1% of the baseline's L2
#     misses: "few evict-caused misses" (the evictions forget lines that are not read again)
#  3. otherwise, the ideal gain under a tenth of the removable share: "misses removed, time not"
#     (the removed misses cost little: their latency is hidden behind other remote accesses)
#  4. otherwise: "evict-caused misses, and time"
# and, beside it, "grows with the cap" where the ideal gain at 3 M exceeds that at 1.5 M by
# more than 1 percentage point and the 1.5 M run stopped at the cap.
def limit(r, r2):
    if r["evictions"] == 0:
        why = "no directory pressure (baseline never evicts)"
    elif r["removable"] < 0.01 * r["misses"]:
        why = "few evict-caused misses (<1% of L2 misses)"
    elif r["gain"] < 0.1 * r["removable"] / r["misses"]:
        why = "misses removed, time not (latency hidden)"
    else:
        why = "evict-caused misses, and time"
    if r2 is not None and r["capped"] and r2["gain"] - r["gain"] > 0.01:
        why += "; grows with the cap"
    return why
c1, c2 = caps
print("Generated by `scripts/rec-limits-study.sh` (see the top of this file for the command). "
      f"Baseline = `directory.kind=line-fifo` (8K entries, 8-way, FIFO); ideal = `directory.kind=ideal`; "
      f"rec-4gpu, caps {c1:,} and {c2:,} warp instructions.\n")
summary = {}
for r, title in READ:
    for cap in caps:
        rows = {b: get(b, r, cap) for b in benches}
        nxt = {b: get(b, r, c2) for b in benches} if cap == c1 else {b: None for b in benches}
        summary[(r, cap)] = rows
        print(f"### {r} reading, cap {cap:,}: {title}\n")
        print("| benchmark | ideal gain | baseline L2 misses | cold | removable (base - ideal non-cold) | evict-inv. hits | write-inv. hits | baseline dir. occupancy / evictions | remote share of L2 requests | remote share past L2 | inter-GPU link util. max / mean | cycles saved per removed miss | what limits the gain |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for b in benches:
            x = rows[b]
            pm = "n/a" if math.isnan(x["per_miss"]) else f"{x['per_miss']:.2f}"
            print(f"| {b} | {pct(x['gain'])} | {x['misses']} | {share(x['cold'], x['misses'])} | "
                  f"{x['removable']} ({share(x['removable'], x['misses'])}) | "
                  f"{x['ev_hits']} ({share(x['ev_hits'], x['misses'])}) | {x['wr_hits']} | "
                  f"{100 * x['occ']:.0f}% / {x['evictions']} | {x['l2r']:.3f} | {x['memr']:.3f} | "
                  f"{x['link_max']:.3f} / {x['link_mean']:.3f} | {pm} | {limit(x, nxt[b])} |")
        tm = sum(x["misses"] for x in rows.values())
        tr = sum(x["removable"] for x in rows.values())
        tc = sum(x["cold"] for x in rows.values())
        g = gmean([x["gain"] for x in rows.values()])
        cnt = collections.Counter(limit(rows[b], nxt[b]).split(";")[0] for b in benches)
        capped = sum(x["capped"] for x in rows.values())
        print(f"\nMean ideal gain (geometric): {pct(g)}. Over all benchmarks, removable misses are "
              f"{share(tr, tm)} of the baseline's L2 misses, cold misses {share(tc, tm)}. "
              f"{capped} of {len(benches)} baseline runs stopped at the cap. Limits: "
              + "; ".join(f"{v} x {k}" for k, v in sorted(cnt.items())) + ".\n")
# kernel boundaries: what the release does to remote lines
bounds = sorted({x["boundary"] for rows in summary.values() for x in rows.values()})
kern = {b: summary[("literal", c1)][b]["kernels"] for b in benches}
print("### Kernel boundaries\n")
print(f"`l2.kernel_boundary` in every run above: {', '.join('`' + v + '`' for v in bounds)} "
      "(crates/sim/src/config.rs `KernelBoundary::CleanAll`: the release writes dirty lines back and "
      "keeps every line valid, the acquire invalidates only the L1s; rec.md §6.14). Remote lines "
      "survive the boundary, so no kernel-boundary flush discards them before reuse; only capacity, "
      "writes and directory evictions remove them. Kernels reached within the 1.5 M cap (literal): "
      + ", ".join(f"{b} {kern[b]}" for b in benches) + ".\n")
# the cap
print("### The cap: ideal gain at 1.5 M and at 3 M warp instructions\n")
print("| benchmark | literal 1.5 M | literal 3 M | mgpusim 1.5 M | mgpusim 3 M | baseline stopped at 1.5 M (literal / mgpusim) |")
print("|---|---|---|---|---|---|")
for b in benches:
    a1, a2 = summary[("literal", c1)][b], summary[("literal", c2)][b]
    m1, m2 = summary[("mgpusim", c1)][b], summary[("mgpusim", c2)][b]
    print(f"| {b} | {pct(a1['gain'])} | {pct(a2['gain'])} | {pct(m1['gain'])} | {pct(m2['gain'])} | "
          f"{'yes' if a1['capped'] else 'no'} / {'yes' if m1['capped'] else 'no'} |")
for r, _ in READ:
    g1 = gmean([x["gain"] for x in summary[(r, c1)].values()])
    g2 = gmean([x["gain"] for x in summary[(r, c2)].values()])
    print(f"\n{r}: mean ideal gain {pct(g1)} at {c1:,}, {pct(g2)} at {c2:,}.", end="")
print("\n")
# where the full reproduction's hour goes
if full and os.path.exists(f"{full}/runs.csv"):
    rows = list(csv.DictReader(open(f"{full}/runs.csv")))
    print(f"### Where the full reproduction's time goes (`{full}`)\n")
    def grp(k):
        return "capacity-scaled" if "@cs" in k else "mgpusim-unified" if "@mu" in k else \
            "cap check (to the end)" if k.endswith("-full") else "literal"
    g = collections.defaultdict(lambda: [0, 0.0])
    for x in rows:
        g[grp(x["run"])][0] += 1; g[grp(x["run"])][1] += float(x["host_seconds"])
    tot = sum(v[1] for v in g.values())
    print("| runs of | count | host seconds | share | seconds per run |")
    print("|---|---|---|---|---|")
    for k, (n, s) in sorted(g.items(), key=lambda kv: -kv[1][1]):
        print(f"| {k} | {n} | {s:.0f} | {100 * s / tot:.1f}% | {s / n:.1f} |")
    print(f"| all | {len(rows)} | {tot:.0f} | 100% | {tot / len(rows):.1f} |")
    byb = collections.defaultdict(float)
    for x in rows:
        byb[x["bench"]] += float(x["host_seconds"])
    print("\nHost seconds by benchmark: " + ", ".join(f"{b} {s:.0f}" for b, s in sorted(byb.items(), key=lambda kv: -kv[1])) + ".")
    dup = collections.Counter((x["bench"], x["preset"], x["sets"]) for x in rows)
    print(f"Identical (benchmark, preset, overrides) among them: {sum(v - 1 for v in dup.values())}.")
    top = max(rows, key=lambda x: float(x["host_seconds"]))
    print(f"Longest run: `{top['run']}`, {float(top['host_seconds']):.1f} host seconds (the most a "
          "longest-first order can save at the end of the run list is about one such run).")
    # concurrency from the run files' times: finish = mtime, start = finish - host seconds
    ev, tt = [], []
    for f in glob.glob(f"{full}/runs/*.json"):
        j = json.load(open(f)); m = os.path.getmtime(f)
        ev += [(m - j["host_seconds"], 1), (m, -1)]; tt.append(m)
    if ev:
        ev.sort(); busy = collections.Counter(); c = 0; last = ev[0][0]
        for t, d in ev:
            busy[c] += t - last; c += d; last = t
        wall = max(tt) - ev[0][0]
        print(f"Wall time from the first run's start to the last run's end (file times): {wall / 60:.1f} min; "
              f"host seconds / 2 workers: {tot / 120:.1f} min; minutes with 1 run going: {busy[1] / 60:.1f}, "
              f"with 2: {busy[2] / 60:.1f}, with none: {busy[0] / 60:.1f}.\n")
    # the simulator's speed on rec-4gpu, from this study's own runs
    rates = []
    for f in glob.glob(f"{out}/*-1500000.json"):
        j = json.load(open(f))
        if j.get("host"):
            rates.append((j["host"]["l1_requests_per_sec"], j["host"]["seconds"]))
    if rates:
        rs = sorted(r for r, _ in rates)
        print(f"Simulated L1 requests per host second on rec-4gpu (this study's {len(rates)} runs at 1.5 M, "
              f"two runs at a time on 2 cores): median {rs[len(rs) // 2]:.0f}, range {rs[0]:.0f}-{rs[-1]:.0f}.\n")
if quick and os.path.exists(f"{quick}/numbers.txt"):
    led = {}
    for line in open(f"{quick}/numbers.txt"):
        v, _, k = line.rstrip("\n").partition("\t")
        led.setdefault(k, v)
    print(f"### `locus repro rec --quick` (`{quick}`, two runs at a time on 2 cores)\n")
    print(f"{led.get('runs planned')} runs planned, {led.get('runs reused')} reused, "
          f"{led.get('host seconds')} s wall for the runs with `--jobs` {led.get('--jobs')}.\n")
PY
