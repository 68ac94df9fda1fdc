#!/bin/bash
# usage: scripts/rec-sharing-study.sh LOCUS OUT_DIR [CAP] [JOBS]
# REC's sharing study (issue 9, docs/rec-sharing-study.md): every REC benchmark on rec-4gpu
# with the ideal directory (the organisation that counts remote lines touched), capped at CAP
# warp instructions (default 1500000, the committed report's cap), under four
# placement x dispatch pairs: the spec's default (rec.md §6.16: chunked + chunk), MGPUSim's
# unified multi-GPU mode (mgpusim-unified for both), and each half alone. Prints the
# Markdown table of docs/rec-sharing-study.md; the stats JSONs stay in OUT_DIR.
set -e
L=$1; OUT=$2; CAP=${3:-1500000}; JOBS=${4:-2}
[ -x "$L" ] && [ -n "$OUT" ] || { echo "usage: $0 LOCUS OUT_DIR [CAP] [JOBS]" >&2; exit 2; }
mkdir -p "$OUT"
BENCHES="atax 2dconv fir gemm gemver jacobi2d lu 2mm 3mm hm-pagerank simpleconv shoc-stencil2d"
VARIANTS="spec:chunked:chunk mgpusim:mgpusim-unified:mgpusim-unified mgpusim-place:mgpusim-unified:chunk mgpusim-dispatch:chunked:mgpusim-unified"
jobs=()
for b in $BENCHES; do for v in $VARIANTS; do jobs+=("$b:$v"); done; done
printf '%s\n' "${jobs[@]}" | xargs -P "$JOBS" -I{} bash -c '
  IFS=: read b name p s <<< "{}"
  f="'"$OUT"'/$b-$name.json"
  [ -s "$f" ] || "'"$L"'" run -p rec-4gpu -w "$b" -q --no-host \
    --set directory.kind=ideal --set run.max_warp_insts='"$CAP"' \
    --set placement.policy=$p --set scheduling.policy=$s --stats-json "$f" >/dev/null'
python3 - "$OUT" "$CAP" $BENCHES <<'PY'
import json, sys
out, cap, benches = sys.argv[1], sys.argv[2], sys.argv[3:]
names = [("spec", "spec default: chunked + chunk"), ("mgpusim", "MGPUSim unified: placement + dispatch"),
         ("mgpusim-place", "MGPUSim placement, chunk dispatch"), ("mgpusim-dispatch", "chunked placement, MGPUSim dispatch")]
def get(b, v):
    d = json.load(open(f"{out}/{b}-{v}.json"))
    s, c = d["sim"], d["sim"]["total"]["counters"]
    nodes = d["config"]["system"]["nodes"]
    reach = d["config"]["directory"]["entries"]  # the baseline's reach: 1 line per entry
    l1m = c["l1_miss_local"] + c["l1_miss_remote"]
    t = s["coherence"]["directory"]
    return dict(l2r=c["l1_miss_remote"] / l1m if l1m else 0.0, memr=s["total"]["remote_fraction"],
                touched=t["remote_lines_touched"] / nodes, busiest=t["remote_lines_touched_max_home"],
                reach=reach, cycles=s["total"]["cycles"], capped=s.get("stopped_by_limit", False))
print(f"Ideal directory, rec-4gpu, first {cap} warp instructions (cap). Remote share of L2 requests = "
      "L1 misses whose home is another GPU / all L1 misses (`l1_miss_remote`); remote share past the L2 = "
      "`sim.total.remote_fraction`; touched = `sim.coherence.directory.remote_lines_touched` / 4 homes "
      "(busiest: `..._max_home`); reach = the 8K baseline's 8192 lines per home.\n")
for v, title in names:
    print(f"### {v}: {title}\n")
    print("| benchmark | remote share of L2 requests | remote share past the L2 | touched per home | busiest home | / baseline reach | cycles |")
    print("|---|---|---|---|---|---|---|")
    for b in benches:
        r = get(b, v)
        print(f"| {b} | {r['l2r']:.3f} | {r['memr']:.3f} | {r['touched']:.0f} | {r['busiest']} | "
              f"{r['touched'] / r['reach']:.2f}x | {r['cycles']} |")
    over = sum(get(b, v)["touched"] > get(b, v)["reach"] for b in benches)
    print(f"\n{over} of {len(benches)} benchmarks touch more remote lines per home than the baseline's reach.\n")
print("### spec default versus MGPUSim unified\n")
print("| benchmark | remote share of L2 requests (spec / MGPUSim) | touched per home (spec / MGPUSim) | ratio |")
print("|---|---|---|---|")
for b in benches:
    a, m = get(b, "spec"), get(b, "mgpusim")
    ratio = f"{m['touched'] / a['touched']:.1f}x" if a["touched"] else "n/a"
    print(f"| {b} | {a['l2r']:.3f} / {m['l2r']:.3f} | {a['touched']:.0f} / {m['touched']:.0f} | {ratio} |")
PY
