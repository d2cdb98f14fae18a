#!/usr/bin/env bash
# Gathers a before/after comparison of two compilers (no GPU needed here) into
# DEST: for each layer, <name>/new/ (the new compiler's manifest and cubin)
# and <name>/old/ (the same manifest with the old compiler's cubin: the
# manifests must be the same, scripts/ptx-snapshot.sh shows it), and the
# grouped GEMM cubins of both compilers (gemm-old/, gemm-new/) at the four
# (N, K) of bench/RESULTS.md. bench/compare_cubins.py and
# bench/bench_grouped_gemm.py --dirs read them on the GPU machine.
#
#   OLD_OPT=/path/old/megamoe-opt scripts/bundle-compare.sh DEST
#
# COMPARE_LAYERS: "name:H:I:E:K:T:clamp ..." (EP1; default V4-Flash and V4-Pro
# compiled for 8192 tokens, whose variants serve 8 to 8192).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: OLD_OPT=... $0 DEST}
new=${MEGAMOE_OPT:-$PWD/build/release/bin/megamoe-opt}
old=${OLD_OPT:?set OLD_OPT to the old megamoe-opt}
rm -rf "$dest" && mkdir -p "$dest/layers"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for spec in ${COMPARE_LAYERS:-flash_t8192:4096:2048:256:6:8192:10 pro_t8192:7168:3072:384:6:8192:10}; do
  IFS=: read -r name h i e k t c <<<"$spec"
  layer="hidden=$h intermediate=$i experts=$e topk=$k ranks=1 max-tokens=$t chip=sm_90a clamp=$c"
  for which in new old; do
    opt=$new; [[ $which == old ]] && opt=$old
    echo 'module {}' | "$opt" --megamoe-layer="$layer" --megamoe-plan="schedule=unfused" \
      --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=$tmp/$name-$which" -o /dev/null
  done
  mkdir -p "$dest/layers/$name/new" "$dest/layers/$name/old"
  cp "$tmp/$name-new"/*.json "$tmp/$name-new"/*.cubin "$dest/layers/$name/new/"
  cp "$tmp/$name-new"/*.json "$dest/layers/$name/old/"
  cp "$tmp/$name-old"/*.cubin "$dest/layers/$name/old/"
  cmp -s "$tmp/$name-new/layer.cubin" "$tmp/$name-old/layer.cubin" \
    && echo "bundle-compare: $name: the two cubins are identical" \
    || echo "bundle-compare: $name: the cubins differ"
done
for which in new old; do
  opt=$new; [[ $which == old ]] && opt=$old
  for nk in 4096:7168 7168:2048 4096:4096 4096:2048; do
    IFS=: read -r n k <<<"$nk"
    for bm in 128 64; do
      bash scripts/compile-grouped-gemm.sh --opt "$opt" --experts 8 --n "$n" --k "$k" \
        --max-m 32768 --block-m "$bm" --out "$dest/gemm-$which/gg_e8_n${n}_k${k}_m32768_bm$bm" >/dev/null
    done
  done
  rm -f "$dest/gemm-$which"/*/*.h "$dest/gemm-$which"/*/*.ptx "$dest/gemm-$which"/*/module.mlir
done
echo "bundle-compare: $(du -sm "$dest" | cut -f1) MiB in $dest"
