#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/gpu-sanitize-bundle.sh:
#  1. compute-sanitizer memcheck, racecheck, synccheck and initcheck on a
#     forward of the unfused schedule (every kernel: route, layout, pull, L1
#     GEMM, activation, L2 GEMM, combine barrier, combine reduce) at EP1
#     (san_ep1) and with 2 ranks on one GPU (san_r2, one-GPU multi-rank mode);
#  2. fault paths: pool overflow, expert ids out of range, num_tokens above
#     T, a rank that never arrives at the cross-rank barrier;
#  3. the multi-rank forward with 4 ranks on one GPU.
# $OUT (or ./gpu-out) receives three files only (a device run returns a
# limited number of files): progress.txt (one row per run, appended as it
# finishes, so a run cut short keeps what it did), logs.tgz (every log,
# rewritten after each row) and summary.txt (the table, printed last). PARTS picks
# the parts to run, in order (default "forward faults sanitize"), and
# SANITIZE_LAYERS the layers of the sanitizer part (default "san_ep1 san_r2").
# memcheck runs with --report-api-errors no (PyTorch's own probes of the
# driver API are not this project's errors); racecheck, synccheck and
# initcheck check the project's kernels (--kernel-name kns=moe_); memcheck
# checks every kernel. PYTORCH_NO_CUDA_MEMORY_CACHING=1 gives every tensor
# its own allocation, so that memcheck sees accesses past one.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
logs=$(mktemp -d)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH=$here/python CUDA_MODULE_LOADING=EAGER CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
nvidia-smi --query-gpu=index,name,driver_version --format=csv > "$logs/gpu.txt" 2>&1
"$cs" --version > "$logs/compute-sanitizer-version.txt" 2>&1

rows=()
: > "$out/progress.txt"
row() { # also appended to progress.txt as it comes (a run cut short keeps it)
  rows+=("$(printf '%-34s %-8s %s' "$1" "$2" "$3")")
  echo "${rows[-1]}" >> "$out/progress.txt"
  tar czf "$out/logs.tgz" -C "$logs" .
}

# 1. Sanitizers. Each tool's summary line is kept for the table.
sanitize() {
for layer in ${SANITIZE_LAYERS:-san_ep1 san_r2}; do
  for tool in memcheck racecheck synccheck initcheck; do
    log=$logs/sanitize_${tool}_$layer.txt
    opts=(--tool "$tool" --error-exitcode 97 --print-limit 50)
    case $tool in
      memcheck) opts+=(--report-api-errors no) ;;
      racecheck) opts+=(--kernel-name kns=moe_ --racecheck-report all) ;;
      *) opts+=(--kernel-name kns=moe_) ;;
    esac
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${SANITIZE_TIMEOUT:-150}" \
      "$cs" "${opts[@]}" python3 -m megamoe_testing.multirank "$here/layers/$layer" forward \
      > "$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/^========= //')
    result=$(grep -E "^multirank:" "$log" | tail -1 | cut -c1-90)
    row "$tool $layer" "rc=$rc" "${summary:-no summary} | ${result:-no result line}"
  done
done
}

# 2. Fault paths (each in its own process: never_arrives loses its context).
faults() {
for case in "overflow_r2 overflow" "san_r2 bad_ids" "san_ep1 bad_ids" "san_r2 too_many_tokens" \
            "san_ep1 too_many_tokens" "timeout_r2 never_arrives --timeout 30"; do
  set -- $case
  log=$logs/fault_$1_$2.txt
  timeout 120 python3 -m megamoe_testing.multirank "$here/layers/$1" "${@:2}" > "$log" 2>&1
  rc=$?
  row "$2 $1" "rc=$rc" "$(grep -E '^multirank:' "$log" | tail -1 | cut -c1-200)"
  if [[ $2 == never_arrives ]]; then
    row "  (device printf)" "" "$(grep -m1 'megamoe: timeout' "$log" | cut -c1-200)"
  fi
done
}

# 3. Multi-rank forward without a sanitizer: 2 and 4 ranks on one GPU.
forward() {
for layer in san_ep1 san_r2 san_r4; do
  log=$logs/forward_$layer.txt
  timeout 120 python3 -m megamoe_testing.multirank "$here/layers/$layer" forward > "$log" 2>&1
  row "forward $layer" "rc=$?" "$(grep -E '^multirank:' "$log" | tail -1 | cut -c1-160)"
done
}

for part in ${PARTS:-forward faults sanitize}; do
  start=$SECONDS
  "$part"
  row "($part: $((SECONDS - start)) s)" "" ""
done

echo "=== gpu-sanitize summary (logs in $out/logs.tgz)"
printf '%s\n' "${rows[@]}" | tee "$out/summary.txt"
