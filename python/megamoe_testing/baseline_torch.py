"""The "torch" baseline: what a PyTorch user would write for the layer.

  dispatch  NCCL all_to_all_single of the FP8 rows and their scales/weights
  L1        per local expert torch._scaled_mm, 1x128 activation and 128x128
            weight block scales (the contract's numerics), FP32 output
  act       clamped SwiGLU x router weight, per-128 requant to e4m3, in torch
  L2        per local expert torch._scaled_mm, BF16 output
  combine   all_to_all_single back, FP32 index_add over slots, cast to BF16

`plan(topk_idx)` does the routing bookkeeping (it needs the split sizes on the
host, so it synchronizes); `run(plan, ...)` is the data path and does not
synchronize, so it can be captured in a CUDA graph for a fixed routing.
`forward` = plan + run (the eager path a user would call every step).
"""

from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch
import torch.distributed as dist

from .fp8 import E4M3, quantize_blocks
from .generators import LocalWeights
from .oracle import activation
from .shapes import MoeShape


@dataclass
class ScaledMMSupport:
    m_align: int  # rows per expert segment are padded to this
    fp32_out: bool  # _scaled_mm can write FP32 with block scales
    out_kw: bool  # _scaled_mm(out=...) accepted for a row slice
    note: str


def _block_scaled_mm(a, b, sa, sb, out_dtype, out=None):
    if out is None:
        return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=out_dtype)
    return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=out_dtype, out=out)


def probe_scaled_mm(device) -> ScaledMMSupport:
    """Finds what this torch/cuBLAS accepts for 1x128 x 128x128 block scales,
    checking each result against the dequantized product (random scales, so a
    scale-layout mistake shows)."""
    k, n = 512, 256  # K/128 = 4: 16-byte aligned scale rows, as at the real shapes
    g = torch.Generator(device=device)
    g.manual_seed(1)
    b = torch.randn(n, k, generator=g, device=device).to(E4M3)
    sb = torch.rand(n // 128, k // 128, generator=g, device=device) + 0.5
    bd = (b.float().view(n // 128, 128, k // 128, 128) * sb[:, None, :, None]).view(n, k)
    notes = []

    def attempt(m, dtype, use_out):
        a = torch.randn(m, k, generator=g, device=device).to(E4M3)
        sa = (torch.rand(k // 128, m, generator=g, device=device) + 0.5).t()
        ref = (a.float().view(m, k // 128, 128) * sa[:, :, None]).view(m, k) @ bd.t()
        if use_out:
            buf = torch.zeros(m + 8, n, dtype=dtype, device=device)
            _block_scaled_mm(a, b.t(), sa, sb.t(), dtype, out=buf[4 : 4 + m])
            got = buf[4 : 4 + m]
        else:
            got = _block_scaled_mm(a, b.t(), sa, sb.t(), dtype)
        torch.cuda.synchronize(device)
        err = ((got.float() - ref).norm() / ref.norm()).item()
        if not err < 1e-2:
            raise RuntimeError(f"wrong result (rel err {err:.3g})")

    m_align = None
    for align in (1, 4, 8, 16, 32, 64, 128):
        try:
            for m in sorted({align, 3 * align}):
                attempt(m, torch.bfloat16, False)
            m_align = align
            break
        except Exception as exc:  # noqa: BLE001 - report what torch said
            notes.append(f"M={align}: {str(exc).splitlines()[0][:160]}")
    if m_align is None:
        raise RuntimeError("torch._scaled_mm rejects 1x128/128x128 block scales: " + "; ".join(notes))
    fp32_out = True
    try:
        attempt(m_align, torch.float32, False)
    except Exception as exc:  # noqa: BLE001
        fp32_out = False
        notes.append(f"fp32 out: {str(exc).splitlines()[0][:160]}")
    out_kw = True
    try:
        attempt(m_align, torch.float32 if fp32_out else torch.bfloat16, True)
    except Exception as exc:  # noqa: BLE001
        out_kw = False
        notes.append(f"out=: {str(exc).splitlines()[0][:160]}")
    return ScaledMMSupport(m_align, fp32_out, out_kw, "; ".join(notes))


@dataclass
class Plan:
    send_slot: torch.Tensor  # [S] flat slot (t*K+k) of each sent row, by (rank, expert)
    send_tok: torch.Tensor  # [S] token of each sent row
    send_splits: List[int]
    recv_splits: List[int]
    recv_to_pool: torch.Tensor  # [R] pool row of each received row
    sf1_dst: torch.Tensor  # [R, H/128] index into the segment-transposed L1 scale buffer
    sf2_src: torch.Tensor  # [P * I/128] gather index building the L2 scale buffer
    segments: List[Tuple[int, int, int]]  # (local expert, pool offset, rows)
    pool_rows: int
    recv: int  # rows received (the layer's `recv`)
    recv_remote: int  # of which from other ranks
    sent_remote: int  # rows this rank sends to other ranks
    experts_touched: int
    # Buffers of the data path (pad rows stay zero).
    xp: torch.Tensor
    sf1: torch.Tensor
    wp: torch.Tensor


class TorchBaseline:
    def __init__(self, shape: MoeShape, weights: LocalWeights, rank: int = 0, ranks: int = 1,
                 group=None, clamp: Optional[float] = None, support: Optional[ScaledMMSupport] = None):
        self.shape, self.w, self.rank, self.ranks, self.group, self.clamp = shape, weights, rank, ranks, group, clamp
        self.el = shape.experts_per_rank(ranks)
        self.device = weights.w1.device
        self.support = support or probe_scaled_mm(self.device)
        self.h_dtype = torch.float32 if self.support.fp32_out else torch.bfloat16

    # ---- routing bookkeeping (host-synchronizing) -------------------------
    def _a2a(self, out, inp, out_splits, in_splits):
        dist.all_to_all_single(out, inp, out_splits, in_splits, group=self.group)

    def plan(self, topk_idx: torch.Tensor) -> Plan:
        s, dev = self.shape, self.device
        h, i, k = s.hidden, s.intermediate, s.topk
        flat = topk_idx.flatten()
        slot = (flat >= 0).nonzero().squeeze(1)
        e = flat[slot]
        order = torch.argsort(e, stable=True)  # by expert, hence by rank
        send_slot, send_e = slot[order], e[order]
        send_counts = torch.bincount(send_e // self.el, minlength=self.ranks)
        if self.ranks > 1:
            recv_counts = torch.empty_like(send_counts)
            dist.all_to_all_single(recv_counts, send_counts, group=self.group)
            send_splits, recv_splits = send_counts.tolist(), recv_counts.tolist()
            recv_e = torch.empty(sum(recv_splits), dtype=send_e.dtype, device=dev)
            self._a2a(recv_e, send_e, recv_splits, send_splits)
        else:
            send_splits = recv_splits = send_counts.tolist()
            recv_e = send_e
        n = recv_e.numel()
        local_e = recv_e - self.rank * self.el
        per_expert = torch.bincount(local_e, minlength=self.el)
        counts = per_expert.tolist()
        align = self.support.m_align
        padded = [(c + align - 1) // align * align for c in counts]
        offsets, off = [], 0
        for p in padded:
            offsets.append(off)
            off += p
        pool_rows = max(off, align)
        segments = [(j, offsets[j], padded[j]) for j in range(self.el) if counts[j] > 0]
        # Pool position of each received row: its expert's offset + its rank
        # among that expert's rows (arrival order kept).
        order2 = torch.argsort(local_e, stable=True)
        starts = torch.cumsum(per_expert, 0) - per_expert
        off_t = torch.tensor(offsets if offsets else [0], device=dev, dtype=torch.int64)
        pad_t = torch.tensor(padded if padded else [0], device=dev, dtype=torch.int64)
        sorted_e = local_e[order2]
        within = torch.arange(n, device=dev) - starts[sorted_e]
        recv_to_pool = torch.empty(n, dtype=torch.int64, device=dev)
        recv_to_pool[order2] = off_t[sorted_e] + within
        # _scaled_mm wants the 1x128 scales of a segment M-major: [K/128, M]
        # contiguous at segment offset * K/128.
        nb1, nb2 = h // 128, i // 128
        seg_e = local_e  # segment of each received row
        j1 = torch.arange(nb1, device=dev)
        sf1_dst = (off_t[seg_e] * nb1).unsqueeze(1) + j1 * pad_t[seg_e].unsqueeze(1) + (
            recv_to_pool - off_t[seg_e]).unsqueeze(1)
        # Same layout for the L2 input scales, gathered from [P, I/128].
        row_seg = torch.full((pool_rows,), -1, dtype=torch.int64, device=dev)
        row_seg[: sum(padded)] = torch.repeat_interleave(torch.arange(self.el, device=dev), pad_t)
        rows = torch.arange(pool_rows, device=dev)
        used = row_seg >= 0
        r_used, e_used = rows[used], row_seg[used]
        j2 = torch.arange(nb2, device=dev)
        dst = (off_t[e_used] * nb2).unsqueeze(1) + j2 * pad_t[e_used].unsqueeze(1) + (
            r_used - off_t[e_used]).unsqueeze(1)
        src = r_used.unsqueeze(1) * nb2 + j2
        sf2_src = torch.zeros(pool_rows * nb2, dtype=torch.int64, device=dev)
        sf2_src[dst.flatten()] = src.flatten()
        remote_recv = n - recv_splits[self.rank]
        remote_sent = int(sum(send_splits)) - send_splits[self.rank]
        return Plan(
            send_slot=send_slot, send_tok=send_slot // k, send_splits=send_splits, recv_splits=recv_splits,
            recv_to_pool=recv_to_pool, sf1_dst=sf1_dst, sf2_src=sf2_src, segments=segments,
            pool_rows=pool_rows, recv=n, recv_remote=remote_recv, sent_remote=remote_sent,
            experts_touched=len(segments),
            xp=torch.zeros(pool_rows, h, dtype=torch.uint8, device=dev),
            sf1=torch.zeros(pool_rows * nb1, device=dev),
            wp=torch.zeros(pool_rows, device=dev),
        )

    # ---- data path (no host synchronization) ------------------------------
    def run(self, p: Plan, x: torch.Tensor, x_sf: torch.Tensor, topk_idx: torch.Tensor,
            topk_weights: torch.Tensor) -> torch.Tensor:
        s, dev = self.shape, self.device
        h, i = s.hidden, s.intermediate
        nb1, nb2 = h // 128, i // 128
        t = x.shape[0]
        # Dispatch.
        xs = x.view(torch.uint8)[p.send_tok]
        meta = torch.cat([x_sf[p.send_tok], topk_weights.flatten()[p.send_slot].unsqueeze(1)], 1)
        if self.ranks > 1:
            xr = torch.empty(p.recv, h, dtype=torch.uint8, device=dev)
            mr = torch.empty(p.recv, nb1 + 1, device=dev)
            self._a2a(xr, xs, p.recv_splits, p.send_splits)
            self._a2a(mr, meta, p.recv_splits, p.send_splits)
        else:
            xr, mr = xs, meta
        p.xp[p.recv_to_pool] = xr
        p.sf1.view(-1)[p.sf1_dst.flatten()] = mr[:, :nb1].flatten()
        p.wp[p.recv_to_pool] = mr[:, nb1]
        xp = p.xp.view(E4M3)
        # L1 GEMMs.
        hbuf = torch.empty(p.pool_rows, 2 * i, dtype=self.h_dtype, device=dev)
        for j, off, m in p.segments:
            sa = p.sf1[off * nb1 : (off + m) * nb1].view(nb1, m).t()
            self._mm(xp[off : off + m], self.w.w1[j].t(), sa, self.w.w1_sf[j].t(), hbuf[off : off + m])
        # Activation + requant.
        a = activation(hbuf.float(), p.wp, i, self.clamp)
        q, sfq = quantize_blocks(a, 128)
        sf2 = sfq.flatten()[p.sf2_src]
        # L2 GEMMs.
        o = torch.empty(p.pool_rows, h, dtype=torch.bfloat16, device=dev)
        for j, off, m in p.segments:
            sa = sf2[off * nb2 : (off + m) * nb2].view(nb2, m).t()
            self._mm(q[off : off + m], self.w.w2[j].t(), sa, self.w.w2_sf[j].t(), o[off : off + m])
        # Combine.
        orecv = o[p.recv_to_pool]
        if self.ranks > 1:
            osend = torch.empty(p.send_slot.numel(), h, dtype=torch.bfloat16, device=dev)
            self._a2a(osend, orecv, p.send_splits, p.recv_splits)
        else:
            osend = orecv
        y = torch.zeros(t, h, dtype=torch.float32, device=dev)
        y.index_add_(0, p.send_tok, osend.float())
        return y.to(torch.bfloat16)

    def _mm(self, a, b, sa, sb, out):
        if self.support.out_kw:
            _block_scaled_mm(a, b, sa, sb, out.dtype, out=out)
        else:
            out.copy_(_block_scaled_mm(a, b, sa, sb, out.dtype))

    def forward(self, x, x_sf, topk_idx, topk_weights) -> torch.Tensor:
        return self.run(self.plan(topk_idx), x, x_sf, topk_idx, topk_weights)
