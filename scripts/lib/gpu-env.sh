# The environment of the GPU-machine scripts that run layers from a bundle
# (gpu-split.sh, gpu-profile.sh, gpu-layer-pairs.sh), sourced with `here` set
# to the bundle folder (stage_runtime_and_python copies this file there):
# NVLink multicast off (NCCL, torch symmetric memory, NVSHMEM), the bundle's
# Python packages and its runtime library.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH=$here/python${PYTHONPATH:+:$PYTHONPATH}
export MEGAMOE_RUNTIME_LIB=$here/python/megamoe/lib/libmegamoe_runtime.so
