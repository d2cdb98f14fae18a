#!/usr/bin/env bash
# Gathers what a GPU run of the runtime tests needs into one folder (no LLVM):
# the runtime library, its test binaries and tools, the Python package and
# tests, and test cubins compiled here by megamoe-opt. Then, on the GPU
# machine: bash <folder>/run-gpu-tests.sh
#
#   scripts/bundle-gpu.sh [DEST]     (default: bundle/, ignored by git)
#
# Needs: the runtime built standalone (cmake -S runtime -B build/runtime) and
# megamoe-opt ($MEGAMOE_OPT, default build/release/bin/megamoe-opt).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEST=${1:-bundle}
OPT=${MEGAMOE_OPT:-$ROOT/build/release/bin/megamoe-opt}
BUILD=${MEGAMOE_RUNTIME_BUILD:-$ROOT/build/runtime}

[[ -f $BUILD/build.ninja ]] || cmake -S runtime -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
ninja -C "$BUILD" megamoe_runtime megamoe-launch megamoe-run-cubin megamoe-gpu-tests megamoe-runtime-unittests
[[ -x $OPT ]] || { echo "bundle-gpu: megamoe-opt not found at $OPT (build it or set MEGAMOE_OPT)" >&2; exit 1; }

rm -rf "$DEST"
mkdir -p "$DEST"/{bin,lib,data,python/megamoe/lib,python/tests}
cp "$BUILD"/lib/libmegamoe_runtime.so "$DEST"/lib/
cp "$BUILD"/lib/libmegamoe_runtime.so "$DEST"/python/megamoe/lib/
cp "$BUILD"/bin/{megamoe-launch,megamoe-run-cubin,megamoe-gpu-tests} "$DEST"/bin/
cp "$BUILD"/megamoe-runtime-unittests "$DEST"/bin/
cp python/megamoe/*.py "$DEST"/python/megamoe/
cp python/tests/*.py "$DEST"/python/tests/
mkdir -p "$DEST"/python/tests/data && cp python/tests/data/*.json "$DEST"/python/tests/data/
cp scripts/run-gpu-tests.sh "$DEST"/

# The test cubin: compiled by the project's compiler, extracted from the
# gpu.binary, with its (hand-written) manifest.
"$OPT" test/GPU/run-cubin.mlir --pass-pipeline='builtin.module(gpu.module(convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=bin})' > "$DEST"/data/hello.mlir
python3 runtime/tools/extract_gpu_binary.py "$DEST"/data/hello.mlir "$DEST"/data
rm "$DEST"/data/hello.mlir
cp runtime/tests/data/hello.manifest.json "$DEST"/data/
# A kernel whose counter never arrives: its timed wait must print and trap.
"$OPT" test/GPU/counter-timeout.mlir --megamoe-to-cubin="chip=sm_90a emit-dir=$DEST/data" -o /dev/null

size=$(du -sm "$DEST" | cut -f1)
echo "bundle-gpu: $DEST holds ${size} MiB"
if (( size >= 64 )); then echo "bundle-gpu: larger than 64 MiB" >&2; exit 1; fi
