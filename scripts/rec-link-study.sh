#!/bin/bash
# usage: scripts/rec-link-study.sh FULL_RUN_DIR [LOCUS OUT_DIR [JOBS]]
# REC (issue 9, docs/rec-limits-study.md, section "Where the ideal directory's time comes
# from"): the gains of the ideal directory that the miss counts do not explain. The ideal
# directory (directory.kind=ideal) differs from the 8K line-FIFO baseline only in sending no
# evict-initiated invalidation; that saves the misses those invalidations cause and the
# invalidation packets themselves. This script compares, per benchmark, the baseline's and
# the ideal's inter-GPU link statistics (sim.links: bytes by message kind, utilisation,
# queueing) beside their misses, and applies the rule `Mechanism::of`
# (crates/cli/src/repro/rec_report.rs, unit-tested; the same rule is `mechanism` below).
#  1. FULL_RUN_DIR: the out directory of a full `locus repro rec` (its runs/*.json): every
#     benchmark, literal (`{b}-base`, `{b}-ideal`) and mgpusim-unified (`{b}@mu-base`,
#     `{b}@mu-ideal`) readings at that run's cap. Also its runs.csv: host seconds per
#     configuration (issue 9's 30-minute question).
#  2. with LOCUS and OUT_DIR: the rows docs/rec-limits-study.md's miss counts leave
#     unexplained (2dconv, fir, simpleconv under mgpusim-unified at 3 M warp instructions;
#     jacobi2d since session 19's inputs: gain with under 1% removed misses) rerun with
#     LOCUS, baseline and ideal (8 runs, resumable: a stats JSON already in OUT_DIR is kept).
# Prints Markdown; nothing in it is typed.
set -e
FULL=$1; L=$2; OUT=$3; JOBS=${4:-2}
[ -d "$FULL/runs" ] || { echo "usage: $0 FULL_RUN_DIR [LOCUS OUT_DIR [JOBS]]" >&2; exit 2; }
RERUN="2dconv fir simpleconv jacobi2d"
CAP=3000000
if [ -n "$L" ]; then
  [ -x "$L" ] && [ -n "$OUT" ] || { echo "usage: $0 FULL_RUN_DIR [LOCUS OUT_DIR [JOBS]]" >&2; exit 2; }
  mkdir -p "$OUT"
  for b in $RERUN; do for k in line-fifo ideal; do echo "$b:$k"; done; done |
    xargs -P "$JOBS" -I{} bash -c '
      IFS=: read b k <<< "{}"
      f="'"$OUT"'/$b-mgpusim-$k-'"$CAP"'.json"
      [ -s "$f" ] || "'"$L"'" run -p rec-4gpu -w "$b" -q --set directory.kind=$k \
        --set run.max_warp_insts='"$CAP"' --set placement.policy=mgpusim-unified \
        --set scheduling.policy=mgpusim-unified --stats-json "$f" >/dev/null'
fi
python3 - "$FULL" "$OUT" "$CAP" $RERUN <<'PY'
import json, sys, os, glob, csv, collections
full, out, cap, rerun = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
pct = lambda x: f"{100 * x:+.1f}%"
share = lambda a, b: f"{100 * a / b:.1f}%" if b else "n/a"

def side(s):
    """Inter-GPU links of one run's `sim` section."""
    ls = [l for l in s["links"] if l["kind"] == "inter-node"]
    by = collections.Counter()
    for l in ls:
        for k, v in l["by_kind"].items():
            by[k] += v["bytes"]
    top = max(ls, key=lambda l: l["bytes_sent"] / l["gbps"])
    npk = sum(l["packets"] for l in ls)
    return dict(util=max(l["utilization"] for l in ls), bytes=sum(l["bytes_sent"] for l in ls),
                by=by, top_ns=top["bytes_sent"] / top["gbps"],
                queue=sum(l["mean_queue_ns"] * l["packets"] for l in ls) / npk if npk else 0.0)

def row(sb, si):
    """Baseline `sim` and ideal `sim` -> the table's quantities."""
    B, I = side(sb), side(si)
    cb, ci = sb["coherence"], si["coherence"]
    return dict(
        gain=sb["total"]["cycles"] / si["total"]["cycles"] - 1,
        misses=cb["l2_misses"], removable=cb["l2_misses_non_cold"] - ci["l2_misses_non_cold"],
        util_b=B["util"], util_i=I["util"], lb=B["bytes"], li=I["bytes"],
        inv=B["by"]["invalidation"], resp_removed=B["by"]["response"] - I["by"]["response"],
        q_b=B["queue"], q_i=I["queue"],
        top_gain=B["top_ns"] / I["top_ns"] - 1 if I["top_ns"] else float("nan"),
        busy_b=B["top_ns"] / sb["total"]["ns"], busy_i=I["top_ns"] / si["total"]["ns"],
        lat_b=sb["total"]["mean_load_latency_ns"], lat_i=si["total"]["mean_load_latency_ns"],
        lookup_b=cb["l2_lookup_latency_ns"], lookup_i=ci["l2_lookup_latency_ns"])

# Mechanism::of (crates/cli/src/repro/rec_report.rs): declared after the first look at
# 2dconv, fir and simpleconv under mgpusim-unified, applied unchanged to every row.
def mechanism(x):
    rem = x["removable"] / x["misses"] if x["misses"] else 0.0
    inv_share = x["inv"] / x["lb"] if x["lb"] else 0.0
    bound = x["util_b"] >= 0.9 and x["util_i"] >= 0.9 and inv_share >= 0.01
    if x["gain"] < 0.01:
        return "no gain (under 1%)"
    if bound and rem < 0.01:
        return "invalidation packets on saturated links"
    if bound:
        return "invalidation packets on saturated links, and evict-caused misses"
    if rem >= 0.01:
        return "evict-caused misses"
    return "unexplained"

def table(rows):
    print("| benchmark | ideal gain | removed misses / L2 misses | busiest link util. base / ideal | busiest link's bytes / bandwidth over run time, base / ideal | inter-GPU bytes base / ideal | removed by the ideal | of them invalidation packets | response bytes removed | invalidation packets / inter-GPU bytes (base) | mean link queueing ns base / ideal | mean load latency ns base / ideal | gain if time followed all link bytes / the busiest link's | where the time comes from |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for b, x in rows.items():
        rm = x["lb"] - x["li"]
        print(f"| {b} | {pct(x['gain'])} | {share(x['removable'], x['misses'])} | "
              f"{x['util_b']:.3f} / {x['util_i']:.3f} | {x['busy_b']:.3f} / {x['busy_i']:.3f} | "
              f"{x['lb']} / {x['li']} | {share(rm, x['lb'])} | "
              f"{share(x['inv'], rm) if rm > 0 else 'n/a'} | {x['resp_removed']} | "
              f"{share(x['inv'], x['lb'])} | {x['q_b']:.0f} / {x['q_i']:.0f} | "
              f"{x['lat_b']:.0f} / {x['lat_i']:.0f} | "
              f"{pct(x['lb'] / x['li'] - 1) if x['li'] else 'n/a'} / {pct(x['top_gain'])} | {mechanism(x)} |")
    cnt = collections.Counter(mechanism(x) for x in rows.values())
    print("\nWhere the time comes from: " + "; ".join(f"{v} x {k}" for k, v in sorted(cnt.items())) + ".\n")
    return cnt

def run_sim(key):
    return json.load(open(f"{full}/runs/{key}.json"))["sim"]

benches = []
for f in sorted(glob.glob(f"{full}/runs/*@mu-ideal.json")):
    benches.append(os.path.basename(f)[: -len("@mu-ideal.json")])
if os.path.exists(f"{full}/runs.csv"):
    order = []
    for x in csv.DictReader(open(f"{full}/runs.csv")):
        if x["bench"] in benches and x["bench"] not in order:
            order.append(x["bench"])
    benches = order
capped = json.load(open(f"{full}/runs/{benches[0]}-base.json"))["warp_insts"]
print(f"Generated by `scripts/rec-link-study.sh {full}"
      + (f" target/release/locus {out}`" if out else "`") + ".\n")
res = {}
for suffix, name in [("", "literal"), ("@mu", "mgpusim-unified")]:
    rows = {b: row(run_sim(f"{b}{suffix}-base"), run_sim(f"{b}{suffix}-ideal"))
            for b in benches if os.path.exists(f"{full}/runs/{b}{suffix}-ideal.json")}
    print(f"#### {name} reading, the full reproduction's runs (`{full}/runs/{{benchmark}}{suffix}-{{base,ideal}}.json`; their first run stopped at {capped:,} warp instructions)\n")
    res[name] = table(rows)
if out:
    rows = {}
    for b in rerun:
        fb, fi = f"{out}/{b}-mgpusim-line-fifo-{cap}.json", f"{out}/{b}-mgpusim-ideal-{cap}.json"
        if os.path.exists(fb) and os.path.exists(fi):
            rows[b] = row(json.load(open(fb))["sim"], json.load(open(fi))["sim"])
    print(f"#### mgpusim-unified reading, cap {cap:,}: the rows left unexplained above, rerun (`{out}`)\n")
    res["rerun"] = table(rows)
    for b, x in rows.items():
        inv_share = x["inv"] / x["lb"]
        print(f"- {b}: the ideal removes {share(x['lb'] - x['li'], x['lb'])} of the inter-GPU bytes, "
              f"{share(x['inv'], x['lb'] - x['li'])} of that being the baseline's invalidation packets "
              f"({share(x['inv'], x['lb'])} of its link bytes); the busiest link is busy "
              f"{100 * x['busy_b']:.1f}% / {100 * x['busy_i']:.1f}% of the run (base / ideal), so the run "
              f"time follows its bytes: {pct(x['top_gain'])} predicted from them, {pct(x['gain'])} measured. "
              f"Removed misses: {share(x['removable'], x['misses'])} of the L2 misses.")
    print()
# where the full reproduction's host time goes, per configuration
if os.path.exists(f"{full}/runs.csv"):
    rows = list(csv.DictReader(open(f"{full}/runs.csv")))
    tot = sum(float(x["host_seconds"]) for x in rows)
    byc = collections.defaultdict(lambda: [0, 0.0, 0.0, ""])
    for x in rows:
        cfg = x["run"][len(x["bench"]):].lstrip("-") or "(none)"
        e = byc[cfg]; hs = float(x["host_seconds"])
        e[0] += 1; e[1] += hs
        if hs > e[2]:
            e[2], e[3] = hs, x["bench"]
    top = sorted(byc.items(), key=lambda kv: -kv[1][1])
    print(f"#### Host seconds per configuration (`{full}/runs.csv`: {len(rows)} runs, {len(byc)} configurations, {tot:.0f} host seconds; the twelve largest, then the rest together)\n")
    print("| configuration | runs | host seconds | share | seconds per run | longest run's benchmark (s) |")
    print("|---|---|---|---|---|---|")
    for k, (n, hs, mx, mb) in top[:12]:
        print(f"| {k} | {n} | {hs:.0f} | {100 * hs / tot:.1f}% | {hs / n:.1f} | {mb} ({mx:.1f}) |")
    rest = top[12:]
    if rest:
        rn = sum(v[0] for _, v in rest); rs = sum(v[1] for _, v in rest)
        print(f"| the other {len(rest)} | {rn} | {rs:.0f} | {100 * rs / tot:.1f}% | {rs / rn:.1f} | |")
    gm = [x for x in rows if x["bench"] in ("gemm", "2mm", "3mm")]
    gs = sum(float(x["host_seconds"]) for x in gm)
    spread = sorted(v[1] / v[0] for v in byc.values())
    print(f"\nGEMM, 2MM and 3MM: {len(gm)} of {len(rows)} runs, {gs:.0f} of {tot:.0f} host seconds "
          f"({100 * gs / tot:.1f}%). Seconds per run by configuration: median {spread[len(spread) // 2]:.1f}, "
          f"range {spread[0]:.1f}-{spread[-1]:.1f}.\n")
PY
