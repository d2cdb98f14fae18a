#!/usr/bin/env bash
# Runs where cuobjdump is (the GPU machine) from a bundle made by
# scripts/bundle-sm100.sh; runs no kernel (the sm_100a kernels are compiled
# and assembled, not run: no Blackwell GPU is available). For every sm_100a
# cubin: cuobjdump -sass, the count of tcgen05 MMA instructions (UTC*MMA,
# e.g. UTCQMMA for kind::f8f6f4) per kernel, and that no Hopper wgmma
# (QGMMA/HGMMA) is left. Logs go to $OUT (or ./gpu-out); a table is printed
# last. Exits non-zero when a GEMM kernel has no UTC*MMA, a cubin does not
# disassemble, or no UTC*MMA is found at all.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out/sass"
export PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
command -v cuobjdump >/dev/null || { echo "gpu-sm100-sass: cuobjdump not found" >&2; exit 2; }
cuobjdump --version > "$out/cuobjdump-version.txt" 2>&1
fail=0
total=0
table=$out/sm100-sass-table.txt
printf '%-24s %-22s %8s %8s %6s %s\n' module kernel "UTC*MMA" "GMMA" "arch" status > "$table"
for d in "$here"/cubins/*/; do
  name=$(basename "$d")
  cubin=$(ls "$d"*.cubin)
  sass=$out/sass/$name.sass
  if ! cuobjdump -sass "$cubin" > "$sass" 2>&1; then
    printf '%-24s %-22s %8s %8s %6s %s\n' "$name" - - - - "FAIL (cuobjdump)" >> "$table"
    fail=1
    continue
  fi
  # A fatbin prints "arch = sm_100a", a plain cubin "code for sm_100a".
  arch=$(grep -m1 -oE '(arch = |code for )sm_[0-9]+[af]?' "$sass" | awk '{print $NF}')
  # One row per kernel: cuobjdump starts each with "Function : NAME".
  awk -v name="$name" -v arch="${arch:-?}" '
    /Function : / { if (k != "") print k, u, g; k = $NF; u = 0; g = 0 }
    /UTC[A-Z0-9]*MMA/ { u++ }
    /[QH]GMMA/ { g++ }
    END { if (k != "") print k, u, g }' "$sass" > "$sass.counts"
  while read -r kernel utc gmma; do
    status=ok
    if [[ $kernel == *gemm* ]] && (( utc == 0 )); then status="FAIL (no UTC*MMA)"; fail=1; fi
    if (( gmma > 0 )); then status="FAIL (Hopper GMMA in an sm_100a cubin)"; fail=1; fi
    [[ ${arch:-} == sm_100a ]] || { status="FAIL (arch ${arch:-?})"; fail=1; }
    total=$((total + utc))
    printf '%-24s %-22s %8s %8s %6s %s\n' "$name" "$kernel" "$utc" "$gmma" "${arch:-?}" "$status" >> "$table"
  done < "$sass.counts"
done
cat "$table"
echo "gpu-sm100-sass: $total UTC*MMA instructions in $(ls -d "$here"/cubins/*/ | wc -l) sm_100a modules; logs in $out"
(( total > 0 )) || { echo "gpu-sm100-sass: no UTC*MMA found" >&2; fail=1; }
exit $fail
