#!/bin/bash
# usage: scripts/stats-identity.sh OLD_LOCUS NEW_LOCUS
# Speed changes must leave every statistic bit-identical: this runs ten configurations with
# both binaries and compares stats JSON (minus host section) on several runs
OLD=$1; NEW=$2; fail=0
T=$(mktemp -d)  # own folder: parallel invocations must not share files
run() { # name args...
  n=$1; shift
  $OLD run "$@" -q --stats-json $T/old-$n.json >/dev/null 2>&1 || echo "old failed $n"
  $NEW run "$@" -q --stats-json $T/new-$n.json >/dev/null 2>&1 || echo "new failed $n"
  python3 - "$n" "$T" <<'PY'
import json,sys
n,t=sys.argv[1],sys.argv[2]
a=json.load(open(f'{t}/old-{n}.json')); b=json.load(open(f'{t}/new-{n}.json'))
for d in (a,b): d.pop('host',None)
if a==b: v='IDENTICAL'
else:
    ca,cb=a.pop('config',None),b.pop('config',None)
    # a new config key with its default echoes in the stats: say so apart from a real change
    v='IDENTICAL STATISTICS (config echo differs)' if a==b else 'DIFFERENT'
print(n, v, a.get('cycles', a.get('sim',{}).get('cycles')) )
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
