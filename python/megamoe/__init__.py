"""megamoe: PyTorch bindings of the megamoe runtime (libmegamoe_runtime).

The layer in DeepGEMM's shape (docs/PythonAPI.md):

    import megamoe
    buf = megamoe.get_symm_buffer("out/layer.json", group)       # collective
    buf.x[:T].copy_(x); buf.x_sf[:T].copy_(x_sf)                   # zero-copy inputs
    buf.topk_idx[:T].copy_(topk_idx); buf.topk_weights[:T].copy_(topk_weights)
    l1, l2 = megamoe.transform_weights((w1, w1_sf), (w2, w2_sf))   # once, no layer needed
    megamoe.fp8_mega_moe(y, l1, l2, buf)                           # T = y.shape[0]

megamoe.compile(config, cache_dir) returns a compiled layer's manifest from a
cache (compiling on a miss). megamoe.Layer / SymmetricBuffer / Module are the C API's objects underneath.
Every failure raises MegaMoEError with the runtime's message.
"""
from ._capi import MegaMoEError, NotAvailableError
from .compile import compile  # noqa: A004 (megamoe.compile, as the issue names it)
from .moe import MegaMoEBuffer, fp8_mega_moe, get_symm_buffer, transform_weights
from .runtime import Layer, Module, SymmetricBuffer, layer_info, unique_id


def version():
    """The runtime library's version string."""
    from ._capi import lib
    return lib().megamoe_version().decode()


def timeout_report():
    """The report of the first wait of a megamoe kernel of this process that timed out and
    trapped ("megamoe: timeout waiting for counter 'l2_arrival' (block 3, thread 0): value 6,
    expected >= 8 after ... cycles"), or "" if none has. Readable after the trap has ended the
    CUDA context, e.g. in the handler of torch's "unspecified launch failure"."""
    from ._capi import lib
    return lib().megamoe_timeout_report().decode("utf-8", "replace")


__all__ = ["Layer", "compile", "MegaMoEBuffer", "MegaMoEError", "Module", "NotAvailableError",
           "SymmetricBuffer", "fp8_mega_moe", "get_symm_buffer", "layer_info",
           "timeout_report", "transform_weights", "unique_id", "version"]
