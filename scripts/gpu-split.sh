#!/usr/bin/env bash
# On the GPU machine, from a bundle of scripts/bundle-split.sh: the split
# schedule against the unfused one (bitwise, every scenario, EP1 and the
# one-GPU multi-rank mode at EP2 and EP4; back-to-back calls and graph
# replays), the layer tests of the split layers against the FP32 oracle, and
# the two schedules timed side by side (bench/compare_cubins.py, unfused as
# "old", split as "new"). Logs under $OUT; a summary last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/gpu-split}; mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH=$here/python${PYTHONPATH:+:$PYTHONPATH}
export MEGAMOE_RUNTIME_LIB=$here/python/megamoe/lib/libmegamoe_runtime.so
summary=()
for name in ${COMPARE:-s_ep1 s_ep1_bm128 s_r2 s_r4 flash pro}; do
  d=$here/layers/$name; [[ -d $d ]] || continue
  repeat=100; [[ $name == flash || $name == pro ]] && repeat=20
  timeout ${COMPARE_TIMEOUT:-240} python3 -m megamoe_testing.schedule_compare \
    "$d/unfused" "$d/split" --repeat $repeat > "$out/compare-$name.log" 2>&1
  rc=$?
  summary+=("compare $name: rc=$rc $(tail -1 "$out/compare-$name.log")")
done
# The layer tests (oracle, repeat, graph, EPLB) on the split layers at EP1.
mkdir -p "$out/split-layers"
for name in s_ep1 s_ep1_bm128 flash; do
  [[ -d $here/layers/$name/split ]] && ln -sfn "$here/layers/$name/split" "$out/split-layers/$name"
done
MEGAMOE_LAYER_DIR=$out/split-layers timeout ${LAYER_TIMEOUT:-300} \
  python3 -m pytest -q -x "$here/python/tests/test_layer.py" > "$out/layer-tests.log" 2>&1
summary+=("layer tests (split, EP1): rc=$? $(tail -1 "$out/layer-tests.log")")
rm -rf "$out/split-layers"
# Timing: unfused (old) and split (new) interleaved call by call; where the
# bundle has split_old (another compiler's split kernels), also split_old
# (old) against split (new).
bench_pair() { # label old-build new-build
  local label=$1 oldb=$2 newb=$3 any=0
  rm -rf "$out/bench-layers"; mkdir -p "$out/bench-layers"
  for name in ${BENCH_LAYERS:-flash pro}; do
    if [[ -d $here/layers/$name/$oldb && -d $here/layers/$name/$newb ]]; then
      mkdir -p "$out/bench-layers/$name"
      ln -sfn "$here/layers/$name/$oldb" "$out/bench-layers/$name/old"
      ln -sfn "$here/layers/$name/$newb" "$out/bench-layers/$name/new"
      any=1
    fi
  done
  [[ $any == 1 ]] || return 0
  timeout ${BENCH_TIMEOUT:-300} python3 "$here/bench/compare_cubins.py" --layers "$out/bench-layers" \
    --tokens ${BENCH_TOKENS:-1,8,128,512,2048,8192} --iters ${BENCH_ITERS:-10} > "$out/bench-$label.log" 2>&1
  summary+=("bench $label (old = $oldb, new = $newb): rc=$?")
  rm -rf "$out/bench-layers"
}
bench_pair unfused-split unfused split
bench_pair splitold-split split_old split
echo "== summary"
printf '%s\n' "${summary[@]}"
for f in "$out"/bench-*.log; do echo "== $(basename "$f")"; grep -E "^\|" "$f" | tail -30; done
