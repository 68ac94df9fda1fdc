#!/bin/bash
# usage: scripts/reconv-compare.sh LOCUS [WORKLOAD...]
# Issue 8: warp instructions, memory instructions and simulated cycles of each workload on
# `single-gpu` at its default input (seed 1), with the positional warp merge (before,
# `--param merge=positional`) and the reconverging one (after, the default), and the ratio
# after / before, as a Markdown table on stdout. Without workloads: those flagged in
# docs/reconvergence.md's table (never-reconverging warps > 0 under the positional merge).
LOCUS=$1; shift
cd "$(dirname "$0")/.." || exit 2
if [ $# -eq 0 ]; then
  set -- $(sed -n '/^| workload | kernel/,$p' docs/reconvergence.md |
           awk -F'|' 'NR>2 && $9+0>0 {gsub(/ /,"",$2); print $2}' | sort -u)
fi
T=$(mktemp -d)
echo "| workload | warp insts before | after | ratio | memory insts before | after | ratio | cycles before | after | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for w in "$@"; do
  $LOCUS run -p single-gpu -w "$w" --param merge=positional -q --no-host --stats-json "$T/b.json" >/dev/null 2>"$T/err" || { echo "| $w | failed: $(head -c 200 "$T/err") |"; continue; }
  $LOCUS run -p single-gpu -w "$w" -q --no-host --stats-json "$T/a.json" >/dev/null 2>"$T/err" || { echo "| $w | failed: $(head -c 200 "$T/err") |"; continue; }
  python3 - "$w" "$T/b.json" "$T/a.json" <<'PY'
import json, sys
w, b, a = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
def get(d):
    t = d['sim']['total']
    return t['counters']['warp_insts'], t['counters']['mem_insts'], t['cycles']
row = [w]
for x, y in zip(get(b), get(a)):
    row += [str(x), str(y), f"{y / x:.3f}" if x else "-"]
print("| " + " | ".join(row) + " |")
PY
done
rm -rf "$T"
