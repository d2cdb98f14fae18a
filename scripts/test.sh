#!/usr/bin/env bash
# Sets everything up, builds, and runs every test: lit (FileCheck, ptxas) and
# GoogleTest. GPU tests run where a Hopper GPU is visible and are listed as
# UNSUPPORTED elsewhere. Then the runtime and lib/Config, built standalone
# with AddressSanitizer + UndefinedBehaviorSanitizer (build/sanitize), run
# their CPU unit tests; any sanitizer report fails. SANITIZE=0 skips that.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cmake --build --preset release --target check-megamoe-unit
cmake --build --preset release --target check-megamoe-lit

if [[ ${SANITIZE:-1} != 0 ]]; then
  san=build/sanitize
  [[ -f $san/build.ninja ]] || cmake -S runtime -B "$san" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEGAMOE_SANITIZE=address,undefined \
    -DMEGAMOE_RUNTIME_CONFIG_TESTS=ON >/dev/null
  cmake --build "$san" --target megamoe-runtime-unittests megamoe-config-unittests
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  echo "== runtime and lib/Config CPU tests under ASan + UBSan"
  "$san"/megamoe-runtime-unittests --gtest_brief=1
  "$san"/megamoe-config-unittests --gtest_brief=1
fi
