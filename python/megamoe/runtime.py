"""Modules (manifest + cubin), symmetric memory and the layer context."""
import ctypes

from . import _capi
from ._capi import MegaMoEError, check, lib
from . import _torch


class Module:
    """A manifest and its cubin loaded onto one GPU.

    >>> m = Module("out/gemm.manifest.json", device=0)
    >>> m.launch("store_tid", out=buf)            # torch tensor or int address
    """

    def __init__(self, manifest_path, device=0):
        self._h = ctypes.c_void_p()
        check(lib().megamoe_module_load(manifest_path.encode(), device,
                                        ctypes.byref(self._h)))
        self.device = device

    @property
    def num_sms(self):
        n = ctypes.c_int()
        check(lib().megamoe_module_num_sms(self._h, ctypes.byref(n)))
        return n.value

    def launch(self, kernel, stream=None, symbols=None, **args):
        """Launches `kernel` on `stream` (default: torch's current stream).

        Each keyword names a kernel parameter: a torch tensor or int address
        for pointer and TMA-descriptor parameters (a tensor also gives its
        size, checked against the descriptor), an int for integer kinds, a
        float for f32. `symbols` gives the manifest's runtime symbols.
        """
        keep = []
        arr = (_capi.Arg * len(args))()
        for i, (name, value) in enumerate(args.items()):
            a = arr[i]
            key = name.encode()
            keep.append(key)
            a.name = key
            if _torch.torch is not None and isinstance(value, _torch.torch.Tensor):
                a.pointer = value.data_ptr()
                a.bytes = value.numel() * value.element_size()
            elif isinstance(value, float):
                a.real = value
            else:
                a.integer = int(value)
                a.pointer = int(value) if int(value) > 0 else None
        syms = symbols or {}
        sarr = (_capi.Symbol * len(syms))()
        for i, (name, value) in enumerate(syms.items()):
            key = name.encode()
            keep.append(key)
            sarr[i].name = key
            sarr[i].value = int(value)
        check(lib().megamoe_launch(self._h, kernel.encode(), arr, len(args),
                                   sarr, len(syms), _torch.stream_handle(stream)))

    def close(self):
        if self._h:
            check(lib().megamoe_module_destroy(self._h))
            self._h = ctypes.c_void_p()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def unique_id():
    """A new NCCL unique id (bytes) for SymmetricBuffer(unique_id=...)."""
    buf = ctypes.create_string_buffer(lib().megamoe_unique_id_size())
    check(lib().megamoe_get_unique_id(buf))
    return buf.raw


class SymmetricBuffer:
    """A buffer of the same size on every rank, reachable from kernels on each
    peer through `offsets` (peer address of local q on rank p = q + offsets[p]).

    Built (collectively) through NCCL: from a torch.distributed process group
    (the unique id is broadcast through it), or from explicit
    (unique_id, rank, world_size). Or from peer pointers the caller already
    mapped (torch symmetric memory): SymmetricBuffer.from_peers(...).
    NVLink multicast is never used.
    """

    def __init__(self, nbytes, group=None, *, unique_id=None, rank=None,
                 world_size=None, device=None):
        import torch
        import torch.distributed as dist
        if unique_id is None:
            if not dist.is_initialized():
                raise RuntimeError("SymmetricBuffer: initialize torch.distributed "
                                   "or pass unique_id, rank and world_size")
            rank = dist.get_rank(group)
            world_size = dist.get_world_size(group)
            obj = [globals()["unique_id"]() if rank == 0 else None]
            src = dist.get_global_rank(group, 0) if group is not None else 0
            dist.broadcast_object_list(obj, src=src, group=group)
            unique_id = obj[0]
        if device is None:
            device = torch.cuda.current_device()
        self.device = device
        self._h = ctypes.c_void_p()
        check(lib().megamoe_symm_create(unique_id, world_size, rank, device,
                                        nbytes, ctypes.byref(self._h)))
        self._read_info()

    @classmethod
    def from_peers(cls, local_ptr, peer_ptrs, total_bytes, rank, device=None):
        """Over caller-mapped buffers: `peer_ptrs[p]` is rank p's buffer as
        seen here; the last 4096 bytes of each are the barrier's. Every rank
        must return from this before any rank calls barrier()."""
        import torch
        self = cls.__new__(cls)
        self.device = torch.cuda.current_device() if device is None else device
        self._h = ctypes.c_void_p()
        n = len(peer_ptrs)
        arr = (ctypes.c_void_p * n)(*peer_ptrs)
        check(lib().megamoe_symm_create_from_peers(
            n, rank, self.device, ctypes.c_void_p(local_ptr), arr, total_bytes,
            ctypes.byref(self._h)))
        self._read_info()
        return self

    def _read_info(self):
        local = ctypes.c_void_p()
        usable = ctypes.c_size_t()
        rank = ctypes.c_int()
        n = ctypes.c_int()
        check(lib().megamoe_symm_info(self._h, ctypes.byref(local), ctypes.byref(usable),
                                      ctypes.byref(rank), ctypes.byref(n)))
        self.local_ptr, self.nbytes = local.value, usable.value
        self.rank, self.world_size = rank.value, n.value
        host = (ctypes.c_int64 * n.value)()
        dev = ctypes.c_void_p()
        check(lib().megamoe_symm_offsets(self._h, ctypes.byref(dev), host))
        self.offsets = list(host)
        self.device_offsets_ptr = dev.value

    def tensor(self, dtype=None, offset=0, numel=None):
        """A torch tensor viewing this rank's buffer (zero-copy)."""
        import torch
        dtype = dtype or torch.uint8
        size = torch.empty((), dtype=dtype).element_size()
        if numel is None:
            numel = (self.nbytes - offset) // size
        if offset < 0 or offset + numel * size > self.nbytes:
            raise ValueError("SymmetricBuffer.tensor: [%d, %d) is outside the %d usable bytes"
                             % (offset, offset + numel * size, self.nbytes))
        c = _capi.Tensor()
        c.data = self.local_ptr + offset
        c.dtype = _torch._dtype_map()[dtype]
        c.ndim = 1
        c.shape[0] = numel
        return _torch.from_c(c, self.device)

    def barrier(self, stream=None, timeout_ms=10000):
        """A cross-rank barrier kernel on `stream` (CUDA-graph capturable)."""
        check(lib().megamoe_symm_barrier(self._h, _torch.stream_handle(stream), timeout_ms))

    def barrier_timed_out(self, stream=None):
        """Waits for `stream` (the barriers' stream; None = the current torch stream);
        True if a barrier on this rank ever timed out."""
        flag = ctypes.c_int()
        check(lib().megamoe_symm_barrier_timed_out(self._h, _torch.stream_handle(stream),
                                                   ctypes.byref(flag)))
        return bool(flag.value)

    def close(self):
        """Frees the buffer (collective for the NCCL constructors)."""
        if self._h:
            check(lib().megamoe_symm_destroy(self._h))
            self._h = ctypes.c_void_p()


_CONFIG_FIELDS = ("hidden", "intermediate", "experts", "topk", "ranks", "max_tokens")


def layer_info(manifest_path):
    """(config, symm_bytes) of a compiled layer from its manifest alone (no GPU):
    config is a dict of hidden, intermediate, experts, topk, ranks, max_tokens;
    symm_bytes the symmetric-buffer bytes per rank its buffer layout needs."""
    c = _capi.LayerConfig()
    n = ctypes.c_uint64()
    check(lib().megamoe_manifest_layer_info(manifest_path.encode(), ctypes.byref(c),
                                            ctypes.byref(n)))
    return {f: getattr(c, f) for f in _CONFIG_FIELDS}, n.value


class Layer:
    """The MoE layer of one rank over a compiled layer's manifest (the C API's
    megamoe_layer; megamoe.MegaMoE is the DeepGEMM-shaped API over it).

    The config comes from the manifest; keyword arguments (hidden,
    intermediate, experts, topk, max_tokens, ranks) are optional and, when
    given, must equal the manifest's (MegaMoEError naming the first field that
    differs). Creation is collective when the manifest has a schedule: every
    rank creates its layer. view(name) gives the input regions (x, x_sf,
    topk_idx, topk_weights); forward() runs the manifest's schedule (the
    variant holding num_tokens) stream-ordered, without host sync (CUDA-graph
    capturable); check_errors() syncs. A manifest without a schedule raises
    NotAvailableError (HALF-BUILT: the fused kernel's contract is not defined
    yet).
    """

    def __init__(self, manifest_path, symm, **config):
        unknown = set(config) - set(_CONFIG_FIELDS)
        if unknown:
            raise TypeError("Layer: unknown config field(s) %s (known: %s)"
                            % (", ".join(sorted(unknown)), ", ".join(_CONFIG_FIELDS)))
        given = None
        if config:
            # Fields not given are the manifest's (a manifest without a config,
            # not a compiled layer, needs them all).
            try:
                compiled, _ = layer_info(manifest_path)
            except MegaMoEError:
                compiled = {"ranks": symm.world_size}
            compiled.update({k: v for k, v in config.items() if v is not None})
            missing = [f for f in _CONFIG_FIELDS if f not in compiled]
            if missing:
                raise TypeError("Layer: %s has no config; give %s"
                                % (manifest_path, ", ".join(missing)))
            given = _capi.LayerConfig(*[compiled[f] for f in _CONFIG_FIELDS])
        self.symm = symm  # the buffer must outlive the layer
        self._h = ctypes.c_void_p()
        check(lib().megamoe_layer_create(manifest_path.encode(),
                                         ctypes.byref(given) if given is not None else None,
                                         symm._h, ctypes.byref(self._h)))
        self.config = _capi.LayerConfig()
        check(lib().megamoe_layer_config_get(self._h, ctypes.byref(self.config)))

    def view(self, name):
        """The input region `name` (x | x_sf | topk_idx | topk_weights) as a
        torch tensor of max_tokens rows over the symmetric buffer."""
        c = _capi.Tensor()
        check(lib().megamoe_layer_view(self._h, name.encode(), ctypes.byref(c)))
        return _torch.from_c(c, self.symm.device)

    def transform_l1(self, weight, scale, stream=None):
        """User-layout L1 weight e4m3 [E_local, 2I, H] and scales f32
        [E_local, 2I/128, H/128] -> new kernel-layout tensors (gate/up rows
        interleaved by 8; scales [E_local, 2I/128, H/128, 2])."""
        import torch
        w_out = torch.empty_like(weight)
        s_out = torch.empty(*scale.shape, 2, dtype=scale.dtype, device=scale.device)
        ts = [_torch.to_c(t, n) for t, n in ((weight, "l1_weight"), (scale, "l1_scale"),
                                             (w_out, "l1_weight_out"), (s_out, "l1_scale_out"))]
        check(lib().megamoe_layer_transform_l1(self._h, *[ctypes.byref(t) for t in ts],
                                               _torch.stream_handle(stream)))
        return w_out, s_out

    def forward(self, num_tokens, l1_weight, l1_scale, l2_weight, l2_scale, y, stream=None,
                recv_stats=None):
        """Runs the layer over the first num_tokens rows of the views and
        writes y (bf16 [num_tokens, H]); returns nothing.

        l1_weight/l1_scale are in the kernel layout (transform_l1's output:
        e4m3 [E_local, 2I, H], f32 [E_local, 2I/128, H/128, 2]); l2_weight
        e4m3 [E_local, H, I], l2_scale f32 [E_local, H/128, I/128].
        recv_stats (optional int32 [E_local]): cumulative tokens received per
        local expert; this call adds its counts. Runs on `stream` (default:
        torch's current stream) without synchronizing; the views must not be
        rewritten before the work is done. One thread at a time per layer.
        Raises MegaMoEError naming a bad tensor, NotAvailableError for a
        manifest without a schedule.
        """
        ts = [_torch.to_c(t, n) for t, n in ((l1_weight, "l1_weight"), (l1_scale, "l1_scale"),
                                             (l2_weight, "l2_weight"), (l2_scale, "l2_scale"),
                                             (y, "y"))]
        stats = None if recv_stats is None else ctypes.byref(_torch.to_c(recv_stats, "recv_stats"))
        check(lib().megamoe_layer_forward(self._h, num_tokens, *[ctypes.byref(t) for t in ts],
                                          stats, _torch.stream_handle(stream)))

    def variant_for(self, num_tokens):
        """(index, block_m) of the schedule variant forward(num_tokens) runs:
        index 0 for a manifest with a single schedule, else the position in
        its "variants"; block_m 0 when the manifest gives none. Host only.
        Raises MegaMoEError for num_tokens outside [0, max_tokens]."""
        index, block_m = ctypes.c_int(), ctypes.c_int()
        check(lib().megamoe_layer_variant(self._h, num_tokens, ctypes.byref(index),
                                          ctypes.byref(block_m)))
        return index.value, block_m.value

    def check_errors(self):
        """SYNCHRONIZES the device, then returns and clears the number of
        routing slots since the last check whose expert id was outside
        [-1, experts) (the kernels skipped them as masked)."""
        n = ctypes.c_uint32()
        check(lib().megamoe_layer_check_errors(self._h, ctypes.byref(n)))
        return n.value

    def profile_bytes(self):
        """Size of the phase-profile buffer; 0 for a layer compiled without
        the profile (docs/Profile.md)."""
        n = ctypes.c_uint64()
        check(lib().megamoe_layer_profile_bytes(self._h, ctypes.byref(n)))
        return n.value

    def read_profile(self):
        """SYNCHRONIZES, then returns the phase-profile buffer of the last
        forward as bytes (decode with megamoe.profile)."""
        n = self.profile_bytes()
        out = ctypes.create_string_buffer(n)
        check(lib().megamoe_layer_read_profile(self._h, out, n))
        return out.raw

    def close(self):
        if self._h:
            check(lib().megamoe_layer_destroy(self._h))
            self._h = ctypes.c_void_p()
