#!/usr/bin/env bash
# NUBA Fig. 9 locality study (docs/nuba-locality-study.md): where do NUBA-No-Rep's L1
# misses go under LAB, first touch and round-robin, and how many partitions run CTAs?
# Every run: preset `nuba`, replication off, the quick report's run length
# (run.max_warp_insts = 244140, the paper's 1B thread instructions / 128).
# Usage: scripts/nuba-locality-study.sh [locus binary] > table.md
set -euo pipefail
LOCUS=${1:-target/release/locus}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CAP=244140
# workload, parameters (space-separated --param values), label
CASES=(
  "atax||ATAX, default input (quick report's)"
  "atax|nx=8192|ATAX, nx=8192 (32 CTAs per kernel 1)"
  "2mm|n=320|2MM, n=320 (quick report's)"
  "2mm||2MM, default input (full report's)"
)
echo "| input | placement | CTAs' partitions | L1 misses local | LAB first-touch pages | LAB least-first pages | pages |"
echo "|---|---|---|---|---|---|---|"
for c in "${CASES[@]}"; do
  IFS='|' read -r w params label <<<"$c"
  pa=()
  for p in $params; do pa+=(--param "$p"); done
  for pol in lab first-touch round-robin; do
    out="$TMP/$w-$pol.json"
    "$LOCUS" run -q --no-host -p nuba -w "$w" "${pa[@]}" \
      --set replication.kind=none --set placement.policy="$pol" \
      --set run.max_warp_insts=$CAP --stats-json "$out"
    python3 - "$out" "$label" "$pol" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sim"]
t = s["total"]["counters"] if "counters" in s["total"] else s["total"]
loc, rem = t["l1_miss_local"], t["l1_miss_remote"]
busy = sum(1 for n in s["nodes"] if n.get("warp_insts", 0) > 0)
p = s["placement"]
lab = (p["lab_first_touch"], p["lab_least_first"]) if sys.argv[3] == "lab" else ("-", "-")
print(f"| {sys.argv[2]} | {sys.argv[3]} | {busy} of {len(s['nodes'])} | "
      f"{100 * loc / max(loc + rem, 1):.1f}% | {lab[0]} | {lab[1]} | {p['pages_mapped']} |")
PY
  done
done
