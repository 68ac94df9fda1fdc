#!/usr/bin/env bash
# Run on a machine with an NVIDIA GPU, CUDA's nvcc and Nsight Compute (ncu). Writes into $1
# (default ./out-gpu): manifest.tsv, ncu.csv (one row per launch and metric), time.tsv
# (cudaEvent medians), latency.tsv (in-kernel clock64 latencies), dispatch.tsv (empty grids:
# the block scheduler's rate, dispatch.cu), sass.txt (the compiled SASS), build.log,
# device.txt (with the profiler's own messages). Compare with
# `locus validate gpu --measured DIR` on any machine.
set -uo pipefail
cd "$(dirname "$0")"
out=${1:-out-gpu}
mkdir -p "$out"
arch=${ARCH:-sm_90}
# Build with every batch that compiles: each batch is tried on top of those kept so far
# (build.log says which were left out and why).
: >"$out/build.log"
flags=""
for batch in LOCUS_BATCH_DENSE LOCUS_BATCH_SUITES LOCUS_BATCH_PARBOIL LOCUS_BATCH_REC; do
  echo "== try -D$batch" >>"$out/build.log"
  if nvcc -O3 -arch="$arch" $flags -D$batch -c -o /tmp/locus-try.o kernels.cu >>"$out/build.log" 2>&1; then
    flags="$flags -D$batch"
  else
    echo "left out: $batch" >>"$out/build.log"
  fi
done
built=""
if nvcc -O3 -arch="$arch" $flags -o /tmp/locus-kernels kernels.cu >>"$out/build.log" 2>&1; then
  built=yes
  echo "built with:${flags:- no extra batch}" >>"$out/build.log"
fi
[ -n "$built" ] || { cat "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv >"$out/device.txt" 2>&1
nvcc --version | tail -2 >>"$out/device.txt"
/tmp/locus-kernels manifest >"$out/manifest.tsv"
cuobjdump --dump-sass /tmp/locus-kernels >"$out/sass.txt" 2>&1
want="smsp__inst_executed.sum smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_global_st.sum \
smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum smsp__thread_inst_executed.sum \
gpu__time_duration.sum gpc__cycles_elapsed.max sm__cycles_elapsed.avg.per_second \
dram__bytes_read.sum dram__bytes_write.sum lts__t_requests_srcunit_tex.sum"
ncu --query-metrics >/tmp/qm.txt 2>&1
metrics=""
for m in $want; do
  base=${m%.*}
  case $m in *.avg.per_second) base=${m%.avg.per_second};; esac
  if grep -q "^$base " /tmp/qm.txt; then metrics="$metrics,$m"; else echo "metric not offered: $m" >>"$out/device.txt"; fi
done
metrics=${metrics#,}
[ -z "$metrics" ] && metrics=$(echo $want | tr " " ",")
echo "metrics: $metrics" >>"$out/device.txt"
ncu --clock-control none --cache-control all --csv --metrics "$metrics" /tmp/locus-kernels once >"$out/ncu.csv" 2>>"$out/device.txt"
echo "ncu rc=$?" >>"$out/device.txt"
/tmp/locus-kernels time >"$out/time.tsv" 2>>"$out/device.txt"
/tmp/locus-kernels latency >"$out/latency.tsv" 2>>"$out/device.txt"
nvcc -O3 -arch="$arch" -o /tmp/locus-dispatch dispatch.cu >>"$out/build.log" 2>&1 && /tmp/locus-dispatch >"$out/dispatch.tsv" 2>>"$out/device.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >>"$out/device.txt" 2>&1
echo done
