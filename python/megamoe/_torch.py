"""torch tensors <-> the C API's megamoe_tensor (zero-copy both ways)."""
import ctypes

from . import _capi

try:
    import torch
except ImportError:  # the package imports without torch; using it needs torch
    torch = None


def _dtype_map():
    return {
        torch.float8_e4m3fn: _capi.E4M3, torch.float8_e5m2: _capi.E5M2,
        torch.bfloat16: _capi.BF16, torch.float16: _capi.F16,
        torch.float32: _capi.F32, torch.uint8: _capi.U8,
        torch.int32: _capi.I32, torch.int64: _capi.I64,
    }


def _require_torch():
    if torch is None:
        raise ImportError("megamoe: this function needs PyTorch")


def to_c(t, name):
    """A megamoe_tensor describing CUDA tensor `t` (contiguous, ndim <= 4)."""
    _require_torch()
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s must be a torch.Tensor, got %s" % (name, type(t).__name__))
    if not t.is_cuda:
        raise ValueError("%s must be on a CUDA device, got %s" % (name, t.device))
    if not t.is_contiguous():
        raise ValueError("%s must be contiguous" % name)
    if t.dim() > 4:
        raise ValueError("%s has %d dimensions; at most 4" % (name, t.dim()))
    dtypes = _dtype_map()
    if t.dtype not in dtypes:
        raise TypeError("%s has dtype %s, which the runtime does not take" % (name, t.dtype))
    c = _capi.Tensor()
    c.data = t.data_ptr()
    c.dtype = dtypes[t.dtype]
    c.ndim = t.dim()
    for i, d in enumerate(t.shape):
        c.shape[i] = d
    return c


class _CudaArray:
    """Just enough __cuda_array_interface__ for torch.as_tensor (zero-copy)."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {
            "shape": (nbytes,), "typestr": "|u1", "data": (ptr, False),
            "version": 2, "strides": None,
        }


def from_c(c, device):
    """A torch tensor viewing the memory a megamoe_tensor describes."""
    _require_torch()
    inv = {v: k for k, v in _dtype_map().items()}
    dtype = inv[c.dtype]
    shape = tuple(c.shape[i] for i in range(c.ndim))
    n = 1
    for d in shape:
        n *= d
    nbytes = n * torch.empty((), dtype=dtype).element_size()
    with torch.cuda.device(device):
        raw = torch.as_tensor(_CudaArray(c.data, nbytes), device="cuda")
    return raw.view(dtype).view(shape)


def stream_handle(stream):
    """The cudaStream_t of `stream` (None = the current torch stream)."""
    _require_torch()
    if stream is None:
        stream = torch.cuda.current_stream()
    return ctypes.c_void_p(stream.cuda_stream)
