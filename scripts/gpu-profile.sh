#!/usr/bin/env bash
# On the GPU machine, from a bundle of scripts/bundle-profile.sh: the phase
# profile (docs/Profile.md). The small layer first (a short smoke test): its
# profiled split schedule against the plain one, bitwise, in every scenario
# of megamoe_testing.schedule_compare; then for the small layer (64 tokens)
# and V4-Flash (8192 tokens) one profiled call decoded and checked
# (megamoe_testing.profile_check: y bitwise equal to the plain layer's, every
# slice's stamps monotone and paired, intervals per role = tiles computed),
# the per-phase table printed and the timeline PNG written. Logs, PNGs under
# $OUT; a summary last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/gpu-profile}; mkdir -p "$out"
source "$here/gpu-env.sh"
summary=()
L=$here/layers
timeout 90 python3 -m megamoe_testing.schedule_compare "$L/s_ep1/split" "$L/s_ep1p/split" \
  --repeat 20 > "$out/compare-s_ep1.log" 2>&1
summary+=("compare s_ep1 plain vs profiled: rc=$? $(tail -1 "$out/compare-s_ep1.log")")
for spec in s_ep1:64 flash:8192; do
  name=${spec%:*} tokens=${spec#*:}
  [[ -d $L/${name}p/split ]] || continue
  timeout ${PROFILE_TIMEOUT:-150} python3 -m megamoe_testing.profile_check "$L/$name/split" \
    "$L/${name}p/split" --tokens "$tokens" --out "$out" --name "$name" \
    > "$out/profile-$name.log" 2>&1
  summary+=("profile $name ($tokens tokens): rc=$? $(tail -1 "$out/profile-$name.log")")
done
echo "== summary"
printf '%s\n' "${summary[@]}"
for f in "$out"/profile-*.log; do echo "== $(basename "$f")"; grep -v "multirank-progress" "$f" | tail -45; done
