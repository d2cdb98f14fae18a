"""Inputs and references for the FP8 block-scaled grouped GEMM (tests and bench share them).

Numerics (DESIGN.md section 3): activations are FP8 e4m3 with one FP32 scale per token per
128 K; weights are FP8 e4m3 with one FP32 scale per 128x128 block.
"""

from __future__ import annotations

import copy
import os

import torch

from megamoe.grouped_gemm import ContiguousLayout, contiguous_layout

FP8_MAX = 448.0


def variant_suffix(block_n=128, out_type="bf16", interleave=0, device_m_blocks=False,
                   static_m=0, cluster_m=1, scale_prefetch=False, unroll=True,
                   unroll_wide=True, mma_turns=False, release_lag=1, release_fence=True,
                   stages=0, out_tile_columns=0, swap_ab=False, tma_warps=4) -> str:
    """The directory-name suffix scripts/compile-grouped-gemm.sh adds for the non-default
    options (BLOCK_N, the layer options, _c2 for a cluster of 2, _pf for scale-prefetch, _nu
    for the K loop not unrolled over the stages, _rw for the BLOCK_N 256 loop left rolled, unroll-wide=false,
    _mt for the math warpgroups issuing their MMAs in turns, _l0 for release lag 0 and nf after
    it for its release without the async-proxy fence, _st<S> for a given stage count, _o<C> for
    the epilogue tile's columns, _sw for swap-AB, _tw<W> for W TMA warps)."""
    return ((f"_bn{block_n}" if block_n != 128 else "") + (f"_{out_type}" if out_type != "bf16" else "")
            + (f"_il{interleave}" if interleave else "")
            + ("_dev" if device_m_blocks else "") + (f"_s{static_m}" if static_m else "")
            + (f"_c{cluster_m}" if cluster_m != 1 else "") + ("_pf" if scale_prefetch else "")
            + ("" if unroll else "_nu") + ("" if unroll_wide else "_rw")
            + ("_mt" if mma_turns else "") + (f"_l{release_lag}" if release_lag != 1 else "")
            + ("" if release_fence else "nf") + (f"_st{stages}" if stages else "")
            + (f"_o{out_tile_columns}" if out_tile_columns else "") + ("_sw" if swap_ab else "")
            + (f"_tw{tma_warps}" if tma_warps != 4 else ""))


def variant_dir(n: int, k: int, block_m: int, experts: int = 8, max_m: int = 32768, **options) -> str:
    """Where scripts/compile-grouped-gemm.sh put the cubin + manifest of one variant."""
    root = os.environ.get("MEGAMOE_GEMM_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                            "build", "grouped_gemm"))
    return os.path.join(root, f"gg_e{experts}_n{n}_k{k}_m{max_m}_bm{block_m}" + variant_suffix(**options))


def manifest_path(n, k, block_m, experts=8, max_m=32768, **options) -> str:
    return os.path.join(variant_dir(n, k, block_m, experts, max_m, **options), "grouped_gemm.json")


def quant_rows(x: torch.Tensor):
    """[M, K] float -> fp8 [M, K], scales [M, K/128] (amax / 448 per token per 128 K)."""
    m, k = x.shape
    xb = x.float().view(m, k // 128, 128)
    s = xb.abs().amax(dim=2).clamp(min=1e-4) / FP8_MAX
    q = (xb / s.unsqueeze(2)).to(torch.float8_e4m3fn).view(m, k)
    return q, s


def quant_blocks_interleaved(w: torch.Tensor, g: int = 8):
    """[E, N, K] float -> fp8 [E, N, K], scales [E, N/128, K/128, 2]: row r of a 128-row block
    belongs to half (r // g) % 2 (gate/up rows interleaved by g), each half of each 128-row
    block and 128-K block has its own scale (amax / 448)."""
    e, n, k = w.shape
    wb = w.float().view(e, n // 128, 128 // (2 * g), 2, g, k // 128, 128)
    s = wb.abs().amax(dim=(2, 4, 6)).clamp(min=1e-4) / FP8_MAX      # [e, n/128, 2, k/128]
    q = (wb / s[:, :, None, :, None, :, None]).to(torch.float8_e4m3fn).view(e, n, k)
    return q, s.permute(0, 1, 3, 2).contiguous()


def quant_blocks(w: torch.Tensor):
    """[E, N, K] float -> fp8 [E, N, K], scales [E, N/128, K/128] (amax / 448 per 128x128 block)."""
    e, n, k = w.shape
    wb = w.float().view(e, n // 128, 128, k // 128, 128)
    s = wb.abs().amax(dim=(2, 4)).clamp(min=1e-4) / FP8_MAX
    q = (wb / s[:, :, None, :, None]).to(torch.float8_e4m3fn).view(e, n, k)
    return q, s


class Problem:
    """A random grouped problem in the kernel's layouts."""

    def __init__(self, group_sizes, n, k, block_m, device="cuda", seed=0, interleave=0,
                 capacity_rows=None):
        """interleave 8: weight scales per interleaved half ([E, N/128, K/128, 2]);
        capacity_rows: a static-M kernel's row count (rows beyond the layout's are zero)."""
        g = torch.Generator(device=device).manual_seed(seed)
        e = len(group_sizes)
        self.n, self.k, self.block_m, self.interleave = n, k, block_m, interleave
        self.layout: ContiguousLayout = contiguous_layout(group_sizes, block_m, device, capacity_rows)
        m = self.layout.rows
        x = torch.randn(max(m, 1), k, device=device, generator=g)[:m]
        # Varying magnitudes per token make the per-token scales matter.
        x = x * torch.exp(torch.randn(m, 1, device=device, generator=g))
        # Padding rows: zeros (what a dispatcher would leave); their output is not checked.
        valid = torch.zeros(m, dtype=torch.bool, device=device)
        for off, rows in zip(self.layout.offsets, group_sizes):
            valid[off:off + rows] = True
        self.valid = valid
        x[~valid] = 0
        self.a, sa = quant_rows(x)
        self.a_scales = sa.t().contiguous()                # [K/128, M] MN-major
        w = torch.randn(e, n, k, device=device, generator=g)
        w = w * torch.exp(0.5 * torch.randn(e, n // 128, 1, k // 128, 1, device=device,
                                            generator=g)).expand(e, n // 128, 128, k // 128, 128).reshape(e, n, k)
        if interleave:
            # Gate and up rows of different magnitudes, so a swapped scale shows.
            half = torch.tensor([1.0, 4.0], device=device).repeat_interleave(interleave)
            w = w * half.repeat(n // (2 * interleave)).view(1, n, 1)
            self.b, self.b_scales = quant_blocks_interleaved(w, interleave)
        else:
            self.b, self.b_scales = quant_blocks(w)

    def dequant_a(self, rows: slice) -> torch.Tensor:
        a = self.a[rows].double().view(-1, self.k // 128, 128)
        return (a * self.a_scales[:, rows].t().double().unsqueeze(2)).view(-1, self.k)

    def dequant_b(self, e: int) -> torch.Tensor:
        if self.interleave:
            g = self.interleave
            b = self.b[e].double().view(self.n // 128, 128 // (2 * g), 2, g, self.k // 128, 128)
            s = self.b_scales[e].double().permute(0, 2, 1)             # [n/128, 2, k/128]
            return (b * s[:, None, :, None, :, None]).view(self.n, self.k)
        b = self.b[e].double().view(self.n // 128, 128, self.k // 128, 128)
        return (b * self.b_scales[e].double()[:, None, :, None]).view(self.n, self.k)

    def expert_rows(self):
        for e, (off, rows) in enumerate(zip(self.layout.offsets, self.layout.group_sizes)):
            yield e, slice(off, off + rows)

    def reference_fp64(self) -> torch.Tensor:
        """D on the valid rows, FP64 over the dequantized inputs ([rows, N], padding rows 0)."""
        ref = torch.zeros(self.layout.rows, self.n, dtype=torch.float64, device=self.a.device)
        for e, rows in self.expert_rows():
            if rows.stop > rows.start:
                ref[rows] = self.dequant_a(rows) @ self.dequant_b(e).t()
        return ref


def relaid(p: Problem, block_m: int):
    """The same problem laid out for another BLOCK_M: each expert's rows (and their scales) at
    that layout's offsets, padding rows zero; weights shared. Its outputs' valid rows are the
    same rows of D as p's."""
    q = copy.copy(p)
    q.block_m = block_m
    q.layout = contiguous_layout(p.layout.group_sizes, block_m, p.a.device)
    m = q.layout.rows
    q.a = torch.zeros(m, p.k, dtype=p.a.dtype, device=p.a.device)
    q.a_scales = torch.ones(p.k // 128, m, dtype=p.a_scales.dtype, device=p.a.device)
    q.valid = torch.zeros(m, dtype=torch.bool, device=p.a.device)
    for (src, dst, rows) in zip(p.layout.offsets, q.layout.offsets, p.layout.group_sizes):
        q.a[dst:dst + rows] = p.a[src:src + rows]
        q.a_scales[:, dst:dst + rows] = p.a_scales[:, src:src + rows]
        q.valid[dst:dst + rows] = True
    return q


def scaled_mm_blockwise(a_fp8, a_scales_mn, b_fp8, b_scales):
    """torch._scaled_mm with 1x128 activation and 128x128 weight block scales.

    a_fp8 [m, K], a_scales_mn [K/128, m] (MN-major), b_fp8 [N, K], b_scales [N/128, K/128]."""
    scale_a = a_scales_mn.contiguous().t()                 # [m, K/128], stride (1, m)
    # [K/128, N/128] for b^T [K, N], K-major like b^T (torch 2.11: "near-inner-dim-major")
    scale_b = b_scales.t()
    return torch._scaled_mm(a_fp8, b_fp8.t(), scale_a=scale_a, scale_b=scale_b,
                            out_dtype=torch.bfloat16)


def torch_grouped(p: Problem, pad_to: int = 16) -> torch.Tensor:
    """Per-expert torch._scaled_mm loop (rows padded to `pad_to` for cuBLAS); padding rows 0."""
    out = torch.zeros(p.layout.m_total, p.n, dtype=torch.bfloat16, device=p.a.device)
    for e, rows in p.expert_rows():
        m = rows.stop - rows.start
        if m == 0:
            continue
        mp = -(-m // pad_to) * pad_to
        a = torch.zeros(mp, p.k, dtype=torch.float8_e4m3fn, device=p.a.device)
        a[:m] = p.a[rows]
        sa = torch.ones(p.k // 128, mp, dtype=torch.float32, device=p.a.device)
        sa[:, :m] = p.a_scales[:, rows]
        out[rows] = scaled_mm_blockwise(a, sa, p.b[e], p.b_scales[e])[:m]
    return out


def rel_err(x: torch.Tensor, ref: torch.Tensor) -> float:
    """||x - ref|| / ||ref|| in FP64 (NaN anywhere gives NaN)."""
    x, ref = x.double(), ref.double()
    return float((x - ref).norm() / ref.norm().clamp(min=1e-300))
