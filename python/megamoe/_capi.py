"""ctypes bindings of libmegamoe_runtime's C API (runtime/include/megamoe/runtime.h).

The library is found, in order, at $MEGAMOE_RUNTIME_LIB, next to this package
(megamoe/lib/libmegamoe_runtime.so, as the GPU bundle lays it out), or in the
build trees (build/release/lib, build/runtime/lib) of the repository this
package sits in or, once installed with `pip install ./python`, was built from.
Failing all, lib() raises OSError listing every path it tried.
"""
import ctypes
import os

_LIB_NAME = "libmegamoe_runtime.so"

OK = 0
STATUS_NAMES = {
    1: "invalid argument", 2: "manifest", 3: "CUDA", 4: "NCCL",
    5: "unsupported", 6: "not available", 7: "I/O", 8: "internal",
}

# megamoe_dtype codes.
E4M3, E5M2, BF16, F16, F32, U8, I32, I64 = range(8)


class MegaMoEError(RuntimeError):
    """A runtime failure: `status` is the megamoe_status code, the message
    names the problem (e.g. "forward: y must be bf16, got f32")."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class NotAvailableError(MegaMoEError):
    """The capability is not built yet (status MEGAMOE_ERR_NOT_AVAILABLE)."""


class Arg(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("integer", ctypes.c_int64),
                ("real", ctypes.c_double), ("pointer", ctypes.c_void_p),
                ("bytes", ctypes.c_uint64)]


class Symbol(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_int64)]


class LayerConfig(ctypes.Structure):
    _fields_ = [("hidden", ctypes.c_int64), ("intermediate", ctypes.c_int64),
                ("experts", ctypes.c_int64), ("topk", ctypes.c_int64),
                ("ranks", ctypes.c_int64), ("max_tokens", ctypes.c_int64)]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("shape", ctypes.c_int64 * 4)]


def _candidates():
    env = os.environ.get("MEGAMOE_RUNTIME_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "lib", _LIB_NAME)
    repos = [os.path.dirname(os.path.dirname(here))]  # a source checkout
    try:  # an installed package: the repository it was built from
        from ._build_paths import REPO
        repos.append(REPO)
    except ImportError:
        pass
    for repo in repos:
        for build in ("build/release/lib", "build/runtime/lib"):
            yield os.path.join(repo, build, _LIB_NAME)


def _load():
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            return ctypes.CDLL(path)
        tried.append(path)
    raise OSError("megamoe: cannot find %s (looked at: %s); set "
                  "MEGAMOE_RUNTIME_LIB" % (_LIB_NAME, ", ".join(tried)))


_lib = None


def lib():
    """The loaded library with argument types declared (loaded on first use)."""
    global _lib
    if _lib is not None:
        return _lib
    L = _load()
    P, I, I64, SZ = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_size_t
    PP = ctypes.POINTER(ctypes.c_void_p)
    sigs = {
        "megamoe_last_error": ([], ctypes.c_char_p),
        "megamoe_version": ([], ctypes.c_char_p),
        "megamoe_timeout_report": ([], ctypes.c_char_p),
        "megamoe_module_load": ([ctypes.c_char_p, I, PP], I),
        "megamoe_module_load_memory": ([ctypes.c_char_p, P, SZ, I, PP], I),
        "megamoe_module_destroy": ([P], I),
        "megamoe_module_num_sms": ([P, ctypes.POINTER(I)], I),
        "megamoe_launch": ([P, ctypes.c_char_p, ctypes.POINTER(Arg), I,
                            ctypes.POINTER(Symbol), I, P], I),
        "megamoe_unique_id_size": ([], SZ),
        "megamoe_get_unique_id": ([P], I),
        "megamoe_symm_create": ([P, I, I, I, SZ, PP], I),
        "megamoe_symm_create_with_comm": ([P, I, SZ, PP], I),
        "megamoe_symm_create_from_peers": ([I, I, I, P, PP, SZ, PP], I),
        "megamoe_symm_destroy": ([P], I),
        "megamoe_symm_info": ([P, PP, ctypes.POINTER(SZ), ctypes.POINTER(I),
                               ctypes.POINTER(I)], I),
        "megamoe_symm_offsets": ([P, PP, ctypes.POINTER(I64)], I),
        "megamoe_symm_barrier": ([P, P, ctypes.c_uint], I),
        "megamoe_symm_barrier_timed_out": ([P, P, ctypes.POINTER(I)], I),
        "megamoe_layer_create": ([ctypes.c_char_p, ctypes.POINTER(LayerConfig),
                                  P, PP], I),
        "megamoe_layer_destroy": ([P], I),
        "megamoe_layer_view": ([P, ctypes.c_char_p, ctypes.POINTER(Tensor)], I),
        "megamoe_layer_transform_l1": ([P] + [ctypes.POINTER(Tensor)] * 4 + [P], I),
        "megamoe_layer_forward": ([P, I64] + [ctypes.POINTER(Tensor)] * 6 + [P], I),
        "megamoe_layer_config_get": ([P, ctypes.POINTER(LayerConfig)], I),
        "megamoe_manifest_layer_info": ([ctypes.c_char_p, ctypes.POINTER(LayerConfig),
                                         ctypes.POINTER(ctypes.c_uint64)], I),
        "megamoe_layer_check_errors": ([P, ctypes.POINTER(ctypes.c_uint32)], I),
        "megamoe_layer_profile_bytes": ([P, ctypes.POINTER(ctypes.c_uint64)], I),
        "megamoe_layer_read_profile": ([P, ctypes.c_void_p, ctypes.c_uint64], I),
        "megamoe_layer_variant": ([P, I64, ctypes.POINTER(I), ctypes.POINTER(I)], I),
        "megamoe_transform_l1_weights": ([P, P, P, P, I64, I64, I64, P], I),
        "megamoe_compile": ([ctypes.c_char_p] * 4 + [ctypes.c_char_p, SZ], I),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(L, name)
        fn.argtypes = args
        fn.restype = res
    _lib = L
    return L


def check(status):
    """Raises MegaMoEError (NotAvailableError) for a failed status."""
    if status == OK:
        return
    msg = lib().megamoe_last_error().decode("utf-8", "replace")
    cls = NotAvailableError if status == 6 else MegaMoEError
    raise cls(status, "%s (%s error)" % (msg, STATUS_NAMES.get(status, status)))
