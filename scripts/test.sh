#!/usr/bin/env bash
# Sets everything up, builds, and runs every test: lit (FileCheck, ptxas) and
# GoogleTest. GPU tests run where a Hopper GPU is visible and are listed as
# UNSUPPORTED elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cmake --build --preset release --target check-megamoe-unit
cmake --build --preset release --target check-megamoe-lit
