#!/usr/bin/env bash
# Installs what megamoe needs to build and test on Debian 12 (idempotent) and
# checks the CUDA toolkit. Prints exactly what is missing when something is.
set -euo pipefail

PACKAGES=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
          ninja-build cmake g++ python3 libgtest-dev nlohmann-json3-dev)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: error: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
  fi
else
  echo "setup: Debian packages present"
fi

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
problems=()
[[ -x $CUDA_HOME/bin/nvcc ]] || problems+=("nvcc ($CUDA_HOME/bin/nvcc): the CUDA 13 toolkit")
[[ -x $CUDA_HOME/bin/ptxas ]] || problems+=("ptxas ($CUDA_HOME/bin/ptxas): the CUDA 13 toolkit")
[[ -f $CUDA_HOME/include/nccl.h || -f /usr/include/nccl.h ]] || problems+=("nccl.h (NCCL 2.28 headers in $CUDA_HOME/include or /usr/include)")
[[ -x /usr/lib/llvm-22/bin/mlir-tblgen ]] || problems+=("/usr/lib/llvm-22/bin/mlir-tblgen (package mlir-22-tools)")
[[ -x /usr/lib/llvm-22/bin/FileCheck ]] || problems+=("/usr/lib/llvm-22/bin/FileCheck (package llvm-22-tools)")
if ((${#problems[@]})); then
  echo "setup: error: missing:" >&2
  printf '  - %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "setup: ok (CUDA at $CUDA_HOME, LLVM/MLIR 22 at /usr/lib/llvm-22)"
