"""megamoe: PyTorch bindings of the megamoe runtime (libmegamoe_runtime).

    import megamoe
    symm = megamoe.SymmetricBuffer(nbytes, group)       # NCCL, collective
    layer = megamoe.Layer("layer.manifest.json", symm, hidden=7168,
                          intermediate=2048, experts=256, topk=8,
                          max_tokens=8192)
    layer.view("x")[:T].copy_(x)                          # zero-copy inputs
    w1, s1 = layer.transform_l1(w1_user, s1_user)
    layer.forward(T, w1, s1, w2, s2, y)                   # runs the manifest's schedule
    assert layer.check_errors() == 0                      # syncs; bad expert ids seen

Every failure raises MegaMoEError with the runtime's message.
"""
from ._capi import MegaMoEError, NotAvailableError
from .runtime import Layer, Module, SymmetricBuffer, unique_id


def version():
    """The runtime library's version string."""
    from ._capi import lib
    return lib().megamoe_version().decode()


__all__ = ["Layer", "MegaMoEError", "Module", "NotAvailableError",
           "SymmetricBuffer", "unique_id", "version"]
