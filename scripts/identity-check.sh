#!/bin/bash
# usage: scripts/identity-check.sh LOCUS OUTDIR [REFDIR]
# Engine-speed work (issue 7) must leave every statistic bit-identical. This runs a fixed set of
# workload x preset configurations with LOCUS, writing `--no-host` stats JSON into OUTDIR (one file
# per run). With REFDIR (an OUTDIR written earlier, e.g. by the binary before a change) every file
# is compared byte for byte; the script exits 1 if any differs or any run failed.
# Set JOBS=N to run N at once (default 1: the machine is shared).
set -u
BIN=$1; OUT=$2; REF=${3:-}
JOBS=${JOBS:-1}
mkdir -p "$OUT"
# name | arguments
RUNS=(
  "bfs-coda|-p coda-4gpu -w bfs"
  "spmv-coda|-p coda-4gpu -w spmv"
  "hs-coda|-p coda-4gpu -w hs"
  "cfd-coda|-p coda-4gpu -w cfd"
  "nw-coda|-p coda-4gpu -w nw"
  "backprop-coda|-p coda-4gpu -w backprop"
  "mg-coda|-p coda-4gpu -w mg"
  "tc-coda|-p coda-4gpu -w tc"
  "stencil2d-coda|-p coda-4gpu -w stencil2d"
  "vectoradd-coda|-p coda-4gpu -w vectoradd"
  "dc-coda|-p coda-4gpu -w dc"
  "km-coda|-p coda-4gpu -w km"
  "bfs-codacoda|-p coda-4gpu-coda -w bfs"
  "bfs-positional|-p coda-4gpu -w bfs --param merge=positional"
  "spmv-lrr|-p coda-4gpu -w spmv --set sm.warp_scheduler=lrr"
  "bfs-dir|-p coda-4gpu -w bfs --param scale=12 --set coherence.protocol=directory --set l2.write_policy_remote=write-through"
  "bfs-single|-p single-gpu -w bfs"
  "spmv-single|-p single-gpu -w spmv"
  "hs-single|-p single-gpu -w hs"
  "nw-single|-p single-gpu -w nw"
  "stencil2d-single|-p single-gpu -w stencil2d"
  "km-single|-p single-gpu -w km"
  "bfs-rec|-p rec-4gpu -w bfs"
  "vectoradd-rec|-p rec-4gpu -w vectoradd"
  "backprop-rec|-p rec-4gpu -w backprop"
  "stencil2d-rec|-p rec-4gpu -w stencil2d --set directory.kind=rec"
  "bfs-nuba|-p nuba -w bfs"
  "backprop-nuba|-p nuba -w backprop"
  "km-nuba|-p nuba -w km"
  "vectoradd-ndp|-p ndp-8hmc -w vectoradd"
  "bfs-ndp|-p ndp-8hmc -w bfs"
  "mm-k80|-p k80 -w mm"
)
one() {
  local name=${1%%|*} args=${1#*|}
  # shellcheck disable=SC2086
  if ! "$BIN" run -q $args --no-host --stats-json "$OUT/$name.json" >"$OUT/$name.log" 2>&1; then
    echo "FAILED $name ($args)"; return 1
  fi
  rm -f "$OUT/$name.log"
}
export -f one; export BIN OUT
printf '%s\n' "${RUNS[@]}" | xargs -P "$JOBS" -I{} bash -c 'one "$@"' _ {}
fail=0
for r in "${RUNS[@]}"; do
  n=${r%%|*}
  [ -s "$OUT/$n.json" ] || { echo "MISSING $n"; fail=1; continue; }
  if [ -n "$REF" ]; then
    if cmp -s "$OUT/$n.json" "$REF/$n.json"; then echo "identical $n"; else echo "DIFFERENT $n"; fail=1; fi
  fi
done
[ -n "$REF" ] && { [ $fail = 0 ] && echo "ALL IDENTICAL (${#RUNS[@]} runs)" || echo "IDENTITY CHECK FAILED"; }
exit $fail
