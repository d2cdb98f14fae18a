#!/usr/bin/env bash
# Compiles one variant of the FP8 block-scaled grouped GEMM to cubin + PTX +
# manifest JSON + C header:
#   scripts/compile-grouped-gemm.sh --experts 8 --n 4096 --k 7168 --max-m 32768 \
#       --block-m 128 [--block-n 128] [--stages 0] [--release-lag 1] [--out DIR] [--opt PATH]
#       [--out-type bf16|f32] [--b-scale-interleave 0|8] [--device-m-blocks] [--static-m M]
#       [--cluster-m 1|2] [--scale-prefetch] [--no-unroll] [--rolled-wide] [--mma-turns]
#       [--no-release-fence] [--out-tile-columns C] [--swap-ab] [--tma-warps 1|4]
# The files land in DIR (default build/grouped_gemm/gg_e<E>_n<N>_k<K>_m<M>_bm<BM><SUFFIX>,
# SUFFIX naming the non-default options: _bn<BN>, _f32, _il8, _dev, _s<M>, _c2, _pf, _nu, _rw, _mt,
# _l0 (release lag 0), nf after it (no release fence), _st<S> (stages), _o<C> (out-tile-columns),
# _sw (swap-AB: block-m 16 or 32), _tw1 (one TMA warp), as
# python/tests/grouped_gemm_ref.py variant_suffix) as grouped_gemm.{cubin,ptx,json,h};
# python/megamoe/grouped_gemm.py loads the JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
experts=8 n=4096 k=7168 maxm=32768 bm=128 bn=128 stages=0 lag=1 out="" opt=build/release/bin/megamoe-opt
otype=bf16 il=0 dev=false sm=0 cm=1 pf=0 ur=true uw=true mt=false rf=true otc=0 sw=false tw=4
while [[ $# -gt 0 ]]; do
  case "$1" in
    --experts) experts=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --k) k=$2; shift 2 ;;
    --max-m) maxm=$2; shift 2 ;;
    --block-m) bm=$2; shift 2 ;;
    --block-n) bn=$2; shift 2 ;;
    --stages) stages=$2; shift 2 ;;
    --release-lag) lag=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --opt) opt=$2; shift 2 ;;
    --out-type) otype=$2; shift 2 ;;
    --b-scale-interleave) il=$2; shift 2 ;;
    --device-m-blocks) dev=true; shift ;;
    --static-m) sm=$2; shift 2 ;;
    --cluster-m) cm=$2; shift 2 ;;
    --scale-prefetch) pf=1; shift ;;
    --no-unroll) ur=false; shift ;;
    --rolled-wide) uw=false; shift ;;
    --mma-turns) mt=true; shift ;;
    --no-release-fence) rf=false; shift ;;
    --out-tile-columns) otc=$2; shift 2 ;;
    --swap-ab) sw=true; shift ;;
    --tma-warps) tw=$2; shift 2 ;;
    *) echo "unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ -x $opt ]] || { echo "megamoe-opt not found at $opt: build it (scripts/build.sh) or pass --opt" >&2; exit 1; }
suffix=""
[[ $bn != 128 ]] && suffix+="_bn$bn"
[[ $otype != bf16 ]] && suffix+="_$otype"
[[ $il != 0 ]] && suffix+="_il$il"
[[ $dev == true ]] && suffix+="_dev"
[[ $sm != 0 ]] && suffix+="_s$sm"
[[ $cm != 1 ]] && suffix+="_c$cm"
[[ $pf == 1 ]] && suffix+="_pf"
[[ $ur == false ]] && suffix+="_nu"
[[ $uw == false ]] && suffix+="_rw"
[[ $mt == true ]] && suffix+="_mt"
[[ $lag != 1 ]] && suffix+="_l$lag"
[[ $rf == false ]] && suffix+="nf"
[[ $stages != 0 ]] && suffix+="_st$stages"
[[ $otc != 0 ]] && suffix+="_o$otc"
[[ $sw == true ]] && suffix+="_sw"
[[ $tw != 4 ]] && suffix+="_tw$tw"
# Only when asked (a compiler from before the option does not know it).
extra=""
[[ $rf == false ]] && extra=" release-fence=false"
[[ $otc != 0 ]] && extra+=" out-tile-columns=$otc"
[[ $sw == true ]] && extra+=" swap-ab=true"
# tma-warps: always stated where the compiler knows it (its default is the
# plan's choice, which the folder name would not say).
if [[ $tw != 4 ]] || "$opt" --help 2>/dev/null | grep -c -- "tma-warps" >/dev/null; then
  extra+=" tma-warps=$tw"
fi
out=${out:-build/grouped_gemm/gg_e${experts}_n${n}_k${k}_m${maxm}_bm${bm}${suffix}}
mkdir -p "$out"
echo 'module {}' | "$opt" \
  --megamoe-grouped-gemm="experts=$experts n=$n k=$k max-m=$maxm block-m=$bm block-n=$bn stages=$stages release-lag=$lag out-type=$otype b-scale-interleave=$il device-m-blocks=$dev static-m=$sm cluster-m=$cm scale-prefetch=$pf unroll-stages=$ur unroll-wide=$uw mma-turns=$mt${extra}" \
  --megamoe-to-cubin="chip=sm_90a emit-dir=$out" -o "$out/module.mlir"
ls "$out/grouped_gemm.cubin" "$out/grouped_gemm.json" >/dev/null
echo "$out"
