#!/bin/bash
# usage: scripts/stats-identity.sh OLD_LOCUS NEW_LOCUS
# Speed changes must leave every statistic bit-identical: this runs ten configurations with
# both binaries and compares stats JSON (minus host section) on several runs
OLD=$1; NEW=$2; fail=0
run() { # name args...
  n=$1; shift
  $OLD run "$@" -q --stats-json /tmp/cmp-old-$n.json >/dev/null 2>&1 || echo "old failed $n"
  $NEW run "$@" -q --stats-json /tmp/cmp-new-$n.json >/dev/null 2>&1 || echo "new failed $n"
  python3 - "$n" <<'PY'
import json,sys
n=sys.argv[1]
a=json.load(open(f'/tmp/cmp-old-{n}.json')); b=json.load(open(f'/tmp/cmp-new-{n}.json'))
for d in (a,b): d.pop('host',None)
print(n, 'IDENTICAL' if a==b else 'DIFFERENT', a.get('cycles', a.get('sim',{}).get('cycles')) )
PY
}
run bfs13 -p coda-4gpu -w bfs --param scale=13
run hs -p coda-4gpu -w hs
run nw -p coda-4gpu -w nw
run km -p coda-4gpu -w km
run sad -p single-gpu -w sad
run mm -p h100 -w mm
run lrr -p coda-4gpu -w spmv --set sm.warp_scheduler=lrr
run dir -p coda-4gpu -w bfs --param scale=12 --set coherence.protocol=directory --set l2.write_policy_remote=write-through
run trace -p coda-4gpu --trace ../shared/traces/vectoradd
run matmul -p coda-4gpu-coda -w matmul
