#!/bin/bash
# usage: scripts/ndp-sleep-identity.sh OLD_LOCUS NEW_LOCUS OUTDIR [CAP]
# Issue 11: an SM held on its full NDP pending buffer sleeps instead of ticking every cycle
# (System::ndp_sleep). This runs backprop, fwt, streamcluster, vectoradd and km on ndp-8hmc
# with ndp.offload = naive, dyn, dyn-cache and static (0.4), each stopped at CAP warp
# instructions (default 2000000), with both binaries (`--no-host` stats JSON into OUTDIR),
# and prints a Markdown table: per run the statistics that differ (sim.events and
# sim.events_by_kind left out: they must differ), with the old and new values of the
# largest relative change, cycles and pending_full_stalls. Set JOBS=N to run N at once.
set -u
OLD=$1; NEW=$2; OUT=$3; CAP=${4:-2000000}
JOBS=${JOBS:-1}
mkdir -p "$OUT"
RUNS=()
for w in backprop fwt streamcluster vectoradd km; do
  for m in naive dyn dyn-cache static; do
    extra=""
    [ "$m" = static ] && extra="--set ndp.static_ratio=0.4"
    RUNS+=("$w-$m|-p ndp-8hmc -w $w --set ndp.offload=$m $extra --set run.max_warp_insts=$CAP")
  done
done
one() {
  local name=${1%%|*} args=${1#*|}
  for b in old new; do
    local bin=$OLD; [ $b = new ] && bin=$NEW
    # shellcheck disable=SC2086
    "$bin" run -q $args --no-host --stats-json "$OUT/$b-$name.json" >/dev/null 2>&1 \
      || echo "FAILED $b $name"
  done
}
export -f one; export OLD NEW OUT
printf '%s\n' "${RUNS[@]}" | xargs -P "$JOBS" -I{} bash -c 'one "$@"' _ {}
python3 - "$OUT" "${RUNS[@]}" <<'PY'
import json, sys
out, runs = sys.argv[1], [r.split('|')[0] for r in sys.argv[2:]]
def flat(d, p=''):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from flat(v, f'{p}.{k}' if p else k)
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from flat(v, f'{p}[{i}]')
    else:
        yield p, d
def get(d, path):
    for k in path.split('.'):
        d = d.get(k, {}) if isinstance(d, dict) else {}
    return d if d != {} else None
print('| run | statistics differing (of all) | largest relative change | cycles old -> new | pending_full_stalls old -> new | sm_tick events old -> new |')
print('|---|---|---|---|---|---|')
same = 0
for n in runs:
    try:
        a = json.load(open(f'{out}/old-{n}.json')); b = json.load(open(f'{out}/new-{n}.json'))
    except Exception as e:
        print(f'| {n} | missing ({e}) | | | | |'); continue
    ta = get(a, 'sim.events_by_kind.sm_tick'); tb = get(b, 'sim.events_by_kind.sm_tick')
    fa = {k: v for k, v in flat(a) if not k.startswith('sim.events')}
    fb = {k: v for k, v in flat(b) if not k.startswith('sim.events')}
    keys = sorted(set(fa) | set(fb))
    diff = [k for k in keys if fa.get(k) != fb.get(k)]
    big, bk = 0.0, ''
    for k in diff:
        x, y = fa.get(k), fb.get(k)
        if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
            r = abs(y - x) / max(abs(x), 1e-30)
            if r > big: big, bk = r, f'{k}: {x} -> {y}'
        elif bk == '':
            bk = f'{k} (non-numeric)'
    if not diff: same += 1
    cyc = lambda d: get(d, 'sim.total.cycles')
    pfs = lambda d: get(d, 'sim.ndp.pending_full_stalls')
    print(f'| {n} | {len(diff)} of {len(keys)} | {bk + (f" ({big*100:.3g}%)" if big else "") if diff else "-"} | {cyc(a)} -> {cyc(b)} | {pfs(a)} -> {pfs(b)} | {ta} -> {tb} |')
print(f'\n{same} of {len(runs)} runs identical but the event counts')
PY
