"""The MoE layer in DeepGEMM's shape (docs/PythonAPI.md).

    import megamoe
    buf = megamoe.get_symm_buffer("out/layer.json", group)      # collective
    buf.x[:T].copy_(x); buf.x_sf[:T].copy_(x_sf)                  # zero-copy inputs
    buf.topk_idx[:T].copy_(topk_idx); buf.topk_weights[:T].copy_(topk_weights)
    l1, l2 = megamoe.transform_weights((w1, w1_sf), (w2, w2_sf))  # no layer needed
    megamoe.fp8_mega_moe(y, l1, l2, buf,                          # T = y.shape[0]
                         cumulative_local_expert_recv_stats=stats)

Everything goes through libmegamoe_runtime's C API. The config (hidden,
intermediate, experts, topk, ranks, max_tokens) comes from the manifest; the
symmetric buffer is sized from it. fp8_mega_moe is the torch.library custom op
``torch.ops.megamoe.fp8_mega_moe`` (a fake implementation for tracing): it runs
on the current stream without host synchronisation or allocation, so it can be
captured in a CUDA graph.
"""
import itertools
import weakref
from typing import Optional

from . import _torch
from .runtime import Layer, SymmetricBuffer, layer_info

__all__ = ["MegaMoEBuffer", "get_symm_buffer", "transform_weights", "fp8_mega_moe"]


class MegaMoEBuffer:
    """One rank's symmetric buffer and compiled layer.

    Attributes ``x`` (e4m3 [T, H]), ``x_sf`` (f32 [T, H/128]), ``topk_idx``
    (i64 [T, K]) and ``topk_weights`` (f32 [T, K]) are zero-copy views of the
    input regions, T = max_tokens rows; a call reads the first y.shape[0].
    ``config`` is the manifest's config (a dict), ``layer`` the underlying
    megamoe.Layer, ``symm`` the megamoe.SymmetricBuffer.
    """

    _ids = itertools.count(1)

    def __init__(self, manifest_path, symm, config=None):
        import json
        with open(manifest_path) as f:
            plan = json.load(f).get("plan") or {}
        if plan.get("l1_weight_tiles"):
            # transform_weights (no layer) writes the row-major L1 layout; a
            # layer planned with l1-weight-tiles would read it as tiles.
            raise ValueError(
                "MegaMoEBuffer: %s reads tiled L1 weights (megamoe-plan "
                "l1-weight-tiles=true), which transform_weights does not write; "
                "use megamoe.Layer and its transform_l1, or plan the layer without "
                "l1-weight-tiles" % manifest_path)
        self.manifest_path = manifest_path
        self.symm = symm
        self.layer = Layer(manifest_path, symm, **(config or {}))
        self.config = {f: getattr(self.layer.config, f)
                       for f in ("hidden", "intermediate", "experts", "topk", "ranks",
                                 "max_tokens")}
        self.x = self.layer.view("x")
        self.x_sf = self.layer.view("x_sf")
        self.topk_idx = self.layer.view("topk_idx")
        self.topk_weights = self.layer.view("topk_weights")
        # The custom op takes plain values: the buffer is found by this id.
        self.id = next(MegaMoEBuffer._ids)
        _BUFFERS[self.id] = self

    @property
    def local_experts(self):
        return self.config["experts"] // self.config["ranks"]

    def variant_for(self, num_tokens):
        return self.layer.variant_for(num_tokens)

    def check_errors(self):
        """SYNCHRONIZES; routing slots with an expert id outside [-1, E) since
        the last check (raises if a call overflowed the token pool)."""
        return self.layer.check_errors()

    def profile_buffer(self):
        """SYNCHRONIZES; the phase profile of the last call (bytes; decode
        with megamoe.profile.decode and this layer's manifest). Raises for a
        layer compiled without megamoe-expand profile=true."""
        return self.layer.read_profile()

    def close(self):
        """Destroys the layer, then the buffer (collective for NCCL buffers)."""
        _BUFFERS.pop(self.id, None)
        self.layer.close()
        self.symm.close()


_BUFFERS = weakref.WeakValueDictionary()


def get_symm_buffer(manifest_path, group=None, *, peers=None, symm=None, config=None,
                    device=None):
    """The symmetric buffer and layer of this rank for the compiled layer at
    `manifest_path`, sized from the manifest.

    The buffer comes from one of: `symm` (an existing megamoe.SymmetricBuffer,
    at least as large as the layout), `peers` = (local_ptr, peer_ptrs,
    total_bytes, rank) for buffers the caller mapped (e.g. torch symmetric
    memory; the last 4096 bytes of each are the barrier's), or else an NCCL
    window over the torch.distributed `group` (default: the world; a single
    process without torch.distributed gets a one-rank buffer). COLLECTIVE:
    every rank calls it. `config` (optional dict of hidden, intermediate,
    experts, topk, ranks, max_tokens) must equal the manifest's, else
    MegaMoEError names the first field that differs.
    """
    import torch
    import torch.distributed as dist
    _, nbytes = layer_info(manifest_path)
    owned = symm is None
    if symm is None and peers is not None:
        local_ptr, peer_ptrs, total_bytes, rank = peers
        symm = SymmetricBuffer.from_peers(local_ptr, peer_ptrs, total_bytes, rank, device)
    elif symm is None:
        if dist.is_available() and dist.is_initialized():
            symm = SymmetricBuffer(nbytes, group, device=device)
        else:
            from .runtime import unique_id
            symm = SymmetricBuffer(nbytes, unique_id=unique_id(), rank=0, world_size=1,
                                   device=torch.cuda.current_device() if device is None
                                   else device)
    try:
        return MegaMoEBuffer(manifest_path, symm, config)
    except Exception:
        if owned:
            symm.close()
        raise


def transform_weights(l1, l2, stream=None):
    """User layout -> kernel layout of both layers' weights, without a layer.

    l1 = (w1 e4m3 [L, 2I, H], w1_sf f32 [L, 2I/128, H/128]) with gate rows
    0..I-1 then up rows; l2 = (w2 e4m3 [L, H, I], w2_sf f32 [L, H/128, I/128]).
    Returns ((w1', w1_sf'), (w2, w2_sf)): w1' with gate/up rows interleaved by
    8 and w1_sf' f32 [L, 2I/128, H/128, 2]; L2 keeps its layout (returned as
    given). Runs on `stream` (default: the current one).
    """
    import ctypes
    import torch
    from ._capi import check, lib
    w1, s1 = l1
    if w1.dim() != 3 or s1.dim() != 3:
        raise ValueError("transform_weights: l1 must be (e4m3 [L, 2I, H], f32 [L, 2I/128, H/128]),"
                         " got shapes %s and %s" % (tuple(w1.shape), tuple(s1.shape)))
    e, two_i, h = w1.shape
    if w1.dtype != torch.float8_e4m3fn or s1.dtype != torch.float32:
        raise TypeError("transform_weights: l1 must be (float8_e4m3fn, float32), got (%s, %s)"
                        % (w1.dtype, s1.dtype))
    if tuple(s1.shape) != (e, two_i // 128, h // 128):
        raise ValueError("transform_weights: l1 scales must have shape %s, got %s"
                         % ((e, two_i // 128, h // 128), tuple(s1.shape)))
    for t, n in ((w1, "l1 weight"), (s1, "l1 scales")):
        _torch.to_c(t, n)  # CUDA, contiguous
    w_out = torch.empty_like(w1)
    s_out = torch.empty(*s1.shape, 2, dtype=s1.dtype, device=s1.device)
    check(lib().megamoe_transform_l1_weights(
        ctypes.c_void_p(w1.data_ptr()), ctypes.c_void_p(s1.data_ptr()),
        ctypes.c_void_p(w_out.data_ptr()), ctypes.c_void_p(s_out.data_ptr()),
        e, two_i // 2, h, _torch.stream_handle(stream)))
    return (w_out, s_out), tuple(l2)


def _forward(buffer_id, y, l1_weight, l1_scale, l2_weight, l2_scale, recv_stats):
    buf = _BUFFERS.get(buffer_id)
    if buf is None:
        raise ValueError("fp8_mega_moe: no live MegaMoEBuffer with id %d" % buffer_id)
    buf.layer.forward(y.shape[0], l1_weight, l1_scale, l2_weight, l2_scale, y,
                      recv_stats=recv_stats)


def _register_op():
    """torch.ops.megamoe.fp8_mega_moe: mutates y (and the statistics); its
    fake implementation does nothing (the outputs are the caller's)."""
    import torch
    if hasattr(torch.library, "custom_op"):
        @torch.library.custom_op("megamoe::fp8_mega_moe", mutates_args=("y", "recv_stats"),
                                 device_types="cuda")
        def op(buffer_id: int, y: torch.Tensor, l1_weight: torch.Tensor,
               l1_scale: torch.Tensor, l2_weight: torch.Tensor, l2_scale: torch.Tensor,
               recv_stats: Optional[torch.Tensor]) -> None:
            # No default for recv_stats: torch drops trailing arguments equal
            # to their default before the ADInplaceOrView kernel indexes the
            # mutated ones (an IndexError on torch 2.11); callers pass None.
            _forward(buffer_id, y, l1_weight, l1_scale, l2_weight, l2_scale, recv_stats)

        @op.register_fake
        def _(buffer_id, y, l1_weight, l1_scale, l2_weight, l2_scale, recv_stats):
            return None
        return op
    # torch < 2.4: the older registration API.
    lib = torch.library.Library("megamoe", "DEF")
    lib.define("fp8_mega_moe(int buffer_id, Tensor(a!) y, Tensor l1_weight, Tensor l1_scale, "
               "Tensor l2_weight, Tensor l2_scale, Tensor(b!)? recv_stats) -> ()")
    lib.impl("fp8_mega_moe", _forward, "CUDA")
    lib.impl("fp8_mega_moe", lambda *a, **k: None, "Meta")
    _register_op.lib = lib  # keep the registration alive
    return torch.ops.megamoe.fp8_mega_moe


_OP = None


def op():
    """The registered custom op (registered on first use)."""
    global _OP
    if _OP is None:
        _OP = _register_op()
    return _OP


def fp8_mega_moe(y, l1, l2, buf, cumulative_local_expert_recv_stats=None):
    """y (bf16 [T, H]) = the MoE layer over the first T = y.shape[0] rows of
    buf.x / x_sf / topk_idx / topk_weights, with l1 = (w1, w1_sf) and l2 =
    (w2, w2_sf) in the kernel layout (transform_weights). The optional int32
    [E/R] tensor cumulative_local_expert_recv_stats gets this call's tokens
    received per local expert added (EPLB statistics). Stream-ordered, no host
    sync: CUDA-graph capturable; raises MegaMoEError naming a bad tensor."""
    op()(buf.id, y, l1[0], l1[1], l2[0], l2[1], cumulative_local_expert_recv_stats)
