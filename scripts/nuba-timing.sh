#!/usr/bin/env bash
# NUBA reproduction run time (issue 10): host seconds of single runs, one line per
# (workload, variant), as the full `locus repro nuba` plans them (preset plus overrides,
# stopped at the full run's warp-instruction cap). Prints a Markdown table with the host
# seconds, split into workload setup (`host.input_seconds`: building the input), block
# generation (`host.functional_seconds`: the kernel models running a dispatched block's
# threads) and simulation (`host.timing_seconds`), the simulated cycles, the memory
# requests the core created and those requests per host second. Single `locus run`s pay
# every block themselves; inside `locus repro nuba` a benchmark's runs share generated
# blocks (crates/cli/src/repro/replay.rs). Usage:
#   scripts/nuba-timing.sh [locus binary] [cap] -- WORKLOAD:PRESET[:SET,SET...] ... > table.md
set -euo pipefail
LOCUS=${1:-target/release/locus}
CAP=${2:-976562}
shift 2 || true
[ "${1:-}" = "--" ] && shift
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| workload | preset | overrides | host s | input s | block generation s | simulation s | cycles | requests | requests per host s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in "$@"; do
  IFS=':' read -r w preset sets <<<"$c"
  sa=()
  IFS=',' read -ra ss <<<"${sets:-}"
  for x in "${ss[@]}"; do [ -n "$x" ] && sa+=(--set "$x"); done
  out="$TMP/run.json"
  "$LOCUS" run -q -p "$preset" -w "$w" "${sa[@]}" --set run.max_warp_insts="$CAP" \
    --stats-json "$out"
  python3 - "$out" "$w" "$preset" "${sets:--}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["sim"]["total"]
c = t["counters"]
h = d["host"]["seconds"]
hh = d["host"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {h:.2f} | {hh['input_seconds']:.2f} | "
      f"{hh['functional_seconds']:.2f} | {hh['timing_seconds']:.2f} | {t['cycles']} | "
      f"{c['reqs_created']} | {c['reqs_created'] / h:.0f} |")
PY
done
