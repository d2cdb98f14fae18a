#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/gpu-sanitize-bundle.sh:
#  1. compute-sanitizer memcheck, racecheck, synccheck and initcheck on a
#     forward of the unfused schedule (every kernel: route, layout, pull, L1
#     GEMM, activation, L2 GEMM, combine barrier, combine reduce) at EP1
#     (san_ep1) and with 2 ranks on one GPU (san_r2, one-GPU multi-rank mode,
#     one host thread per rank: see megamoe_testing/multirank.py);
#  2. fault paths: pool overflow, expert ids out of range, num_tokens above
#     T, a rank that never arrives at the cross-rank barrier;
#  3. the multi-rank forward with 1, 2 and 4 ranks on one GPU.
# The sanitizer runs go in the background, SANITIZE_JOBS at a time (default
# 5: on an H200, 9 runs 5 at a time took 54 s in all; eleven at once were
# each slower than 150 s and one was killed), each its own process and log
# with its own timeout (SANITIZE_TIMEOUT seconds, default 150), while parts 2
# and 3 run; the script then waits for them and prints each tool's summary
# line and a table (tool x config: errors / hazards / forward / timed out /
# y bitwise equal to the plain run's). A sanitized forward skips the FP32
# oracle (its PyTorch kernels made the runs take minutes; part 3 checks the
# same forward against it without a sanitizer and saves its y) and ends with
# os._exit once every kernel has been checked (the interpreter's teardown
# took another minute under a sanitizer).
#
# $OUT (or ./gpu-out) receives three files only (a device run returns a
# limited number of files): progress.txt (one row per run, appended as it
# finishes, so a run cut short keeps what it did), logs.tgz (every log,
# rewritten after each row) and summary.txt (the tables, printed last).
# PARTS picks the parts (default "sanitize faults forward"); SANITIZE_RUNS
# the sanitizer runs, each TOOL:LAYER[:VARIANT] (default: the four tools on
# each of SANITIZE_LAYERS, default "san_ep1 san_r2"), VARIANT one of
#   serial   every rank launched from one host thread (the old harness,
#            for comparison: under memcheck it got past the barriers too)
#   empty    uninitialized symmetric buffers (initcheck: a kernel reading a
#            buffer byte nothing wrote is reported); reports without
#            backtraces, up to 2000, so that the addresses can be mapped to
#            regions (the log has each rank's buffer base). Not in the
#            default runs: on san_ep1 it reports moe_activation's gate loads
#            of l1_out (rows the L1 GEMM stores with TMA) as uninitialized;
#            whether initcheck counts TMA tensor stores as writes is open.
#            The run ends with two probe copies to the host (multirank
#            probe_initialization: l1_out, TMA-stored; l2_pool, stored with
#            st.global): an initcheck "cudaMemcpy source" report at the
#            l1_out address and none at l2_pool's would settle it
#
# Tool options:
#   memcheck   every kernel; --report-api-errors no (PyTorch's own probes
#              of the driver API are not this project's errors)
#   racecheck  the project's kernels (--kernel-name kns=moe_), shared-memory
#              hazards, --racecheck-report all
#   synccheck  the project's kernels (--kernel-name kns=moe_)
#   initcheck  every kernel, deliberately: initcheck counts a byte as
#              initialized only when an instrumented kernel or a CUDA API
#              call writes it, so with a kernel filter every tensor PyTorch
#              wrote (weights, tokens) reads as uninitialized (the "cudaMemcpy
#              source" reports of the first run, on a torch-written weight)
# PYTORCH_NO_CUDA_MEMORY_CACHING=1 gives every tensor its own allocation, so
# that memcheck sees accesses past one.
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
sanitize_timeout=${SANITIZE_TIMEOUT:-150}
sanitize_jobs=${SANITIZE_JOBS:-5}
if [[ -z ${SANITIZE_RUNS:-} ]]; then # every tool on SANITIZE_LAYERS
  SANITIZE_RUNS=
  for layer in ${SANITIZE_LAYERS:-san_ep1 san_r2}; do
    for tool in memcheck racecheck synccheck initcheck; do SANITIZE_RUNS+=" $tool:$layer"; done
  done
fi
runs=$SANITIZE_RUNS

rows=()
: > "$out/progress.txt"
row() { # also appended to progress.txt as it comes (a run cut short keeps it)
  rows+=("$(printf '%-34s %-8s %s' "$1" "$2" "$3")")
  echo "${rows[-1]}" >> "$out/progress.txt"
  tar czf "$out/logs.tgz" --exclude='*.pt' -C "$logs" .
}

# 1. Sanitizers, in the background. One run: its log, then rc and seconds.
sanitize_one() { # TOOL LAYER VARIANT LOG
  local tool=$1 layer=$2 variant=$3 log=$4 opts args start limit=50
  [[ $variant == empty ]] && limit=2000
  opts=(--tool "$tool" --error-exitcode 97 --print-limit "$limit")
  case $tool in
    memcheck) opts+=(--report-api-errors no) ;;
    racecheck) opts+=(--kernel-name kns=moe_ --racecheck-report all) ;;
    synccheck) opts+=(--kernel-name kns=moe_) ;;
    initcheck) ;;
  esac
  args=(--no-oracle --fast-exit --save-y "$logs/y_${tool}_${layer}${variant:+_$variant}.pt")
  case $variant in
    serial) args+=(--serial-launch) ;;
    empty) args+=(--buffers empty); opts+=(--show-backtrace no) ;;
  esac
  echo "+ $cs ${opts[*]} python3 -m megamoe_testing.multirank layers/$layer forward ${args[*]}" > "$log"
  start=$SECONDS
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout -k 15 "$sanitize_timeout" \
    "$cs" "${opts[@]}" python3 -m megamoe_testing.multirank "$here/layers/$layer" forward \
    "${args[@]}" >> "$log" 2>&1
  echo "rc=$? seconds=$((SECONDS - start))" > "$log.rc"
}
sanitize_start() { # a pool of $sanitize_jobs runs, itself in the background
  (
    for run in $runs; do
      while (($(jobs -rp | wc -l) >= sanitize_jobs)); do wait -n; done
      IFS=: read -r tool layer variant <<<"$run"
      sanitize_one "$tool" "$layer" "${variant:-}" "$logs/sanitize_${tool}_${layer}${variant:+_$variant}.txt" &
    done
    wait
  ) &
  pool=$!
}
# Prints "RUN yes|NO|-" for every sanitizer run: its y against the plain
# forward's (part 3), bitwise; "-" when either is missing. One process for
# all (importing torch takes seconds).
compare_y() {
  python3 - "$logs" $runs <<'PY' 2>/dev/null
import os, sys, torch
logs = sys.argv[1]
for run in sys.argv[2:]:
    tool, layer, *variant = run.split(":")
    mine = os.path.join(logs, "y_%s_%s%s.pt" % (tool, layer, "_" + variant[0] if variant else ""))
    plain = os.path.join(logs, "y_plain_%s.pt" % layer)
    try:
        a, b = torch.load(mine), torch.load(plain)
        same = "yes" if len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b)) else "NO"
    except Exception:
        same = "-"
    print(run, same)
PY
}
sanitize_wait() {
  wait "$pool"
  declare -A same
  while read -r run verdict; do same[$run]=$verdict; done < <(compare_y)
  table=("| tool | config | summary | forward | status | s | y = plain run's |" "|---|---|---|---|---|---:|---|")
  for run in $runs; do
    IFS=: read -r tool layer variant <<<"$run"
    local log=$logs/sanitize_${tool}_${layer}${variant:+_$variant}.txt rc s summary result status
    read -r rc s < <(sed 's/rc=\([0-9]*\) seconds=\([0-9]*\)/\1 \2/' "$log.rc")
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/^========= //')
    result=$(grep -E "^multirank:" "$log" | tail -1 | cut -c1-110)
    case $rc in
      0) status="ok" ;;
      97) status="errors (rc 97)" ;;
      124|137) status="TIMED OUT after ${sanitize_timeout} s ($(grep -E '^multirank-progress:' "$log" | tail -1 | cut -c21-80))" ;;
      *) status="rc $rc" ;;
    esac
    row "$tool $layer${variant:+ $variant}" "rc=$rc" "${summary:-no summary} | ${result:-no result line}"
    table+=("| $tool | $layer${variant:+ ($variant)} | ${summary:-no summary} | $( [[ $result == *" OK:"* ]] && echo OK || echo "${result:-none}") | $status | $s | ${same[$run]:--} |")
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

# 3. Multi-rank forward without a sanitizer: 1, 2 and 4 ranks on one GPU.
forward() {
for layer in san_ep1 san_r2 san_r4; do
  log=$logs/forward_$layer.txt
  timeout 120 python3 -m megamoe_testing.multirank "$here/layers/$layer" forward \
    --save-y "$logs/y_plain_$layer.pt" > "$log" 2>&1
  row "forward $layer" "rc=$?" "$(grep -E '^multirank:' "$log" | tail -1 | cut -c1-160)"
done
}

table=()
parts=${PARTS:-sanitize faults forward}
total=$SECONDS
[[ " $parts " == *" sanitize "* ]] && sanitize_start
for part in $parts; do
  [[ $part == sanitize ]] && continue
  start=$SECONDS
  "$part"
  row "($part: $((SECONDS - start)) s)" "" ""
done
if [[ " $parts " == *" sanitize "* ]]; then
  start=$SECONDS
  sanitize_wait
  row "(sanitize: waited $((SECONDS - start)) s more)" "" ""
fi
row "(all: $((SECONDS - total)) s)" "" ""

{
  echo "=== gpu-sanitize: every run (logs in $out/logs.tgz)"
  printf '%s\n' "${rows[@]}"
  if ((${#table[@]})); then
    echo
    echo "=== sanitizer table (SANITIZE_TIMEOUT=${sanitize_timeout} s per run, ${sanitize_jobs} at a time)"
    printf '%s\n' "${table[@]}"
  fi
} | tee "$out/summary.txt"
tar czf "$out/logs.tgz" --exclude='*.pt' -C "$logs" .
