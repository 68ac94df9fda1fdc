#!/bin/bash
# usage: scripts/reconv-flagged.sh LOCUS [WORKLOAD...]
# Issue 8: `locus analyze lanes` of each workload (default: those flagged in
# docs/reconvergence.md's table under the positional merge) under the reconverging merge
# (the default); one Markdown row per workload: kernels, kernels still flagged (never-
# reconverging warps > 0), positional-alignment warp insts, issued warp insts, the min-PC
# estimate.
LOCUS=$1; shift
cd "$(dirname "$0")/.." || exit 2
if [ $# -eq 0 ]; then
  set -- $(sed -n '/^| workload | kernel/,$p' docs/reconvergence.md |
           awk -F'|' 'NR>2 && $9+0>0 {gsub(/ /,"",$2); print $2}' | sort -u)
fi
echo "| workload | kernels | still flagged | warp insts (positional) | issued (reconverging) | reconverged estimate |"
echo "|---|---:|---:|---:|---:|---:|"
for w in "$@"; do
  $LOCUS analyze lanes -w "$w" --json 2>/dev/null | python3 -c "
import json, sys
r = json.load(sys.stdin)[0]
ks = r['kernels']; t = r['total']
fl = [k['name'] for k in ks if k['split']['shifted_warps'] > 0]
print(f\"| $w | {len(ks)} | {len(fl)}{' (' + ', '.join(fl) + ')' if fl else ''} | {t['insts']} | {t['issued']} | {t['converged']} |\")
" || echo "| $w | failed |"
done
