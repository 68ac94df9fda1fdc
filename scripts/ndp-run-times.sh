#!/bin/bash
# usage: scripts/ndp-run-times.sh LOCUS OUTDIR [WORKLOAD...]
# Issue 11: user CPU of each Table 1 workload's Baseline and NaiveNDP run at full size (no
# instruction cap: every run to its end, as `locus repro ndp` runs them), with the plan's
# parameters (crates/cli/src/repro/ndp.rs `table1_params`). Writes OUTDIR/times.log in the
# format scripts/ndp-timing.py reads (`<workload> <none|naive> user=<s> wall=<s> rc=<code>`,
# plus peak RSS) and each run's `--no-host` stats JSON. JOBS=N runs N at once (default 2).
set -u
BIN=$1; OUT=$2; shift 2
WL=("$@")
[ ${#WL[@]} -eq 0 ] && WL=(backprop rodinia-bfs bicg fwt km minife scalarprod parboil-stencil streamcluster vectoradd)
JOBS=${JOBS:-2}
mkdir -p "$OUT"
one() {
  local w=$1 c=$2 p=""
  [ "$w" = parboil-stencil ] && p="--param kernel=naive"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %U %M" -o "$OUT/$w-$c.time" "$BIN" run -q -p ndp-8hmc -w "$w" $p \
    --set ndp.offload="$c" --no-host --stats-json "$OUT/$w-$c.json" >/dev/null 2>"$OUT/$w-$c.err"
  local rc=$?
  read -r wall user rss < <(tail -1 "$OUT/$w-$c.time")
  echo "$w $c user=$user wall=$wall rc=$rc rss_kb=$rss load=$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/times.log"
}
export -f one; export BIN OUT
for w in "${WL[@]}"; do for c in naive none; do echo "$w $c"; done; done \
  | xargs -P "$JOBS" -n 2 bash -c 'one "$@"' _
cat "$OUT/times.log"
