"""The numerics contract of DESIGN.md section 3, step by step, in FP32.

For each (token t, slot k) with e = topk_idx[t, k] >= 0:
  1. h = dequant(x[t]) @ dequant(W1[e])^T                      (FP32)
  2. g, u = h[:I], h[I:]; g = min(g, c); u = clamp(u, -c, c)
     a = silu(g) * u * topk_weights[t, k]                       (FP32)
  3. sf = amax / 448 per `requant_block` (128 or 64) channels; q = e4m3(a / sf)
     (round to nearest even, saturating; an all-zero block gives sf = q = 0)
  4. o = bf16(dequant(q) @ dequant(W2[e])^T)
  5. y[t] = bf16(sum over k in slot order of fp32(o_k)), masked slots skipped

The result for a rank's tokens does not depend on the EP size: experts come
from an `expert_source` callable (global expert id -> ExpertWeights), which at
EP > 1 regenerates remote experts from the seed (generators.ExpertSource).
Matrix products run in true FP32 (TF32 off).
"""

from typing import Callable, List, Optional

import torch
import torch.nn.functional as F

from .fp8 import dequantize_blocks, dequantize_weight, quantize_blocks
from .generators import ExpertWeights, TokenInputs
from .shapes import MoeShape


class _Fp32Matmul:
    def __enter__(self):
        self.saved = (torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision())
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")

    def __exit__(self, *exc):
        torch.backends.cuda.matmul.allow_tf32, prec = self.saved
        torch.set_float32_matmul_precision(prec)


def activation(h: torch.Tensor, weights: torch.Tensor, intermediate: int, clamp: Optional[float]) -> torch.Tensor:
    """Step 2 on rows of h [M, 2I] with router weights [M]."""
    g, u = h[:, :intermediate], h[:, intermediate:]
    if clamp is not None:
        g = g.clamp(max=clamp)
        u = u.clamp(-clamp, clamp)
    return F.silu(g) * u * weights.unsqueeze(1)


def expert_slots(
    shape: MoeShape,
    tokens: TokenInputs,
    expert_source: Callable[[int], ExpertWeights],
    clamp: Optional[float] = None,
    requant_block: int = 128,
) -> torch.Tensor:
    """Steps 1-4: bf16 [T, K, H]; masked slots hold 0."""
    if requant_block not in (64, 128):
        raise ValueError("requant_block must be 128 or 64")
    h_dim, i_dim, k_dim = shape.hidden, shape.intermediate, shape.topk
    t_dim = tokens.tokens
    idx = tokens.topk_idx
    if idx.numel() and (idx.min() < -1 or idx.max() >= shape.experts):
        raise ValueError(f"expert ids must lie in [-1, {shape.experts})")
    out = torch.zeros(t_dim, k_dim, h_dim, dtype=torch.bfloat16, device=tokens.x.device)
    if t_dim == 0:
        return out
    xd = dequantize_blocks(tokens.x, tokens.x_sf, 128)  # [T, H] fp32
    flat_idx = idx.flatten()
    with _Fp32Matmul():
        for e in torch.unique(flat_idx[flat_idx >= 0]).tolist():
            slots = (flat_idx == e).nonzero().squeeze(1)
            rows = slots // k_dim
            w = expert_source(e)
            w1 = dequantize_weight(w.w1, w.w1_sf)
            h = xd[rows] @ w1.t()  # step 1
            del w1
            a = activation(h, tokens.topk_weights.flatten()[slots], i_dim, clamp)  # step 2
            q, sf = quantize_blocks(a, requant_block)  # step 3
            w2 = dequantize_weight(w.w2, w.w2_sf)
            o = dequantize_blocks(q, sf, requant_block) @ w2.t()  # step 4
            out.view(t_dim * k_dim, h_dim)[slots] = o.to(torch.bfloat16)
    return out


def combine(slots: torch.Tensor, topk_idx: torch.Tensor) -> torch.Tensor:
    """Step 5: FP32 sum in slot order, masked slots skipped, cast to bf16."""
    acc = torch.zeros(slots.shape[0], slots.shape[2], dtype=torch.float32, device=slots.device)
    for k in range(slots.shape[1]):
        keep = (topk_idx[:, k] >= 0).unsqueeze(1)
        acc = torch.where(keep, acc + slots[:, k].float(), acc)
    return acc.to(torch.bfloat16)


def moe_oracle(
    shape: MoeShape,
    tokens: TokenInputs,
    expert_source: Callable[[int], ExpertWeights],
    clamp: Optional[float] = None,
    requant_block: int = 128,
) -> torch.Tensor:
    """y (bf16 [T, H]) of one rank's tokens."""
    return combine(expert_slots(shape, tokens, expert_source, clamp, requant_block), tokens.topk_idx)


def moe_oracle_ranks(
    shape: MoeShape,
    rank_tokens: List[TokenInputs],
    expert_source: Callable[[int], ExpertWeights],
    clamp: Optional[float] = None,
    requant_block: int = 128,
) -> List[torch.Tensor]:
    """The global view: y of every rank, judged per rank."""
    return [moe_oracle(shape, t, expert_source, clamp, requant_block) for t in rank_tokens]


def relative_l2(out: torch.Tensor, ref: torch.Tensor) -> float:
    """||out - ref|| / ||ref|| in float64; NaN or Inf anywhere gives inf."""
    o, r = out.double(), ref.double()
    if not torch.isfinite(o).all():
        return float("inf")
    den = r.norm().item()
    num = (o - r).norm().item()
    return num / den if den > 0 else (0.0 if num == 0 else float("inf"))
