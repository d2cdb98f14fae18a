# The environment of the GPU-machine scripts that run from a bundle (the
# layer ones: gpu-split.sh, gpu-profile.sh, gpu-layer-pairs.sh; the grouped
# GEMM ones: gpu-grouped-gemm{,-bn,-cluster,-ncu}.sh), sourced with `here`
# set to the bundle folder (stage_runtime_and_python and
# bundle-grouped-gemm.sh copy this file there): NVLink multicast off (NCCL,
# torch symmetric memory, NVSHMEM), GPU 0 unless told otherwise, the CUDA
# tools on PATH, the bundle's Python packages and its runtime library.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
export PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
export PYTHONPATH=$here/python${PYTHONPATH:+:$PYTHONPATH}
export MEGAMOE_RUNTIME_LIB=$here/python/megamoe/lib/libmegamoe_runtime.so
