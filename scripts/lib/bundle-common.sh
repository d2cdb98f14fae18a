# Shared by the bundle scripts (sourced): compiling one layer for the GPU
# machine, and staging the runtime library and the Python packages.

# compile_layer OPT DIR LAYER PLAN EXPAND: megamoe-opt OPT with
# --megamoe-layer="LAYER chip=sm_90a" --megamoe-plan="PLAN"
# --megamoe-expand="EXPAND" into DIR (manifest + cubin; headers and PTX
# dropped: the GPU machine needs neither).
compile_layer() {
  local opt=$1 dir=$2 layer=$3 plan=$4 expand=$5
  mkdir -p "$dir"
  echo 'module {}' | "$opt" \
    --megamoe-layer="$layer chip=sm_90a" \
    --megamoe-plan="$plan" --megamoe-expand="$expand" \
    --megamoe-to-cubin="chip=sm_90a emit-dir=$dir" -o /dev/null
  rm -f "$dir"/*.h "$dir"/*.ptx
}

# stage_runtime_and_python RUNTIME_BUILD DEST: builds libmegamoe_runtime in
# RUNTIME_BUILD (configured if needed) and copies it with python/megamoe and
# python/megamoe_testing into DEST/python.
stage_runtime_and_python() {
  local rt=$1 dest=$2
  [[ -f $rt/build.ninja ]] || cmake -S runtime -B "$rt" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$rt" megamoe_runtime >/dev/null
  mkdir -p "$dest/python/megamoe/lib" "$dest/python/megamoe_testing"
  cp "$rt"/lib/libmegamoe_runtime.so "$dest/python/megamoe/lib/"
  cp python/megamoe/*.py "$dest/python/megamoe/"
  cp python/megamoe_testing/*.py "$dest/python/megamoe_testing/"
  cp scripts/lib/gpu-env.sh "$dest/"
}
