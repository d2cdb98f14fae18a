#!/usr/bin/env bash
# Configures and builds the release preset (after setup.sh). Extra arguments
# are ninja targets.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[[ -f build/release/build.ninja ]] || cmake --preset release
cmake --build --preset release -- "$@"
