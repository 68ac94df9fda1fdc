#!/bin/bash
# usage: scripts/reconv-identity.sh OLD_LOCUS NEW_LOCUS [MAX_CYCLES]
# Issue 8: every built-in workload run briefly (single-gpu, default input, seed 1, at most
# MAX_CYCLES cycles, default 300000) by OLD and by NEW (its default warp merge); prints one
# line per workload (IDENTICAL or DIFFERENT, statistics JSON without host and config) and
# the counts.
OLD=$1; NEW=$2; CAP=${3:-300000}
T=$(mktemp -d)
same=0; diff=0; failed=0
for w in $($NEW workloads | awk 'NR>1 && NF>1 && $1 != "use:" {print $1}'); do
  args=(run -p single-gpu -w "$w" -q --no-host --set run.max_cycles=$CAP)
  if ! $OLD "${args[@]}" --stats-json "$T/o.json" >/dev/null 2>&1 ||
     ! $NEW "${args[@]}" --stats-json "$T/n.json" >/dev/null 2>&1; then
    echo "$w FAILED"; failed=$((failed+1)); continue
  fi
  v=$(python3 - "$T/o.json" "$T/n.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d.pop('host', None); d.pop('config', None)
print('IDENTICAL' if a == b else 'DIFFERENT')
PY
)
  echo "$w $v"
  if [ "$v" = IDENTICAL ]; then same=$((same+1)); else diff=$((diff+1)); fi
done
echo "identical $same different $diff failed $failed"
rm -rf "$T"
