"""Seeded inputs in the user layout of DESIGN.md section 3.

Weights are generated per expert from (seed, expert id) alone, so any rank can
regenerate any expert: that is how the oracle takes the global view at EP > 1
without moving weights between ranks. Tokens of rank r come from (seed, r).

Routing kinds (make_tokens(routing=...)):
  uniform  each token picks K distinct experts uniformly at random
  hot      like uniform, but a fraction `hot_fraction` of the tokens route one
           slot to expert `hot_expert` (so hot_fraction / K of all slots)
  masked   like uniform, then each slot is -1 with probability `mask_fraction`
Uneven tokens per rank, 0 tokens on a rank and token counts that are not a
multiple of any BLOCK_M are just the `tokens_per_rank` list you pass.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional

import torch

from .fp8 import quantize_blocks, quantize_weight
from .shapes import MoeShape

_EXPERT_STREAM = 1_000_003
_TOKEN_STREAM = 7_000_003


def _generator(device, seed: int) -> torch.Generator:
    g = torch.Generator(device=device)
    g.manual_seed(seed % (2**63))
    return g


def _blocky(rows: int, cols: int, g: torch.Generator, device, block_rows: int) -> torch.Tensor:
    """Gaussian values times a random magnitude per (block_rows x 128) block,
    so that a kernel that applies the wrong block's scale is caught."""
    x = torch.randn(rows, cols, generator=g, device=device)
    mag = torch.exp(0.5 * torch.randn(-(-rows // block_rows), cols // 128, generator=g, device=device))
    mag = mag.repeat_interleave(block_rows, 0)[:rows].repeat_interleave(128, 1)
    return x * mag


@dataclass
class ExpertWeights:
    w1: torch.Tensor  # e4m3 [2I, H] (rows 0..I-1 gate, I..2I-1 up)
    w1_sf: torch.Tensor  # f32 [2I/128, H/128]
    w2: torch.Tensor  # e4m3 [H, I]
    w2_sf: torch.Tensor  # f32 [H/128, I/128]


def expert_weights(shape: MoeShape, expert: int, seed: int, device) -> ExpertWeights:
    """Weights of one global expert; identical on every device and rank."""
    h, i = shape.hidden, shape.intermediate
    g = _generator(device, seed * _EXPERT_STREAM + expert)
    w1, w1_sf = quantize_weight(_blocky(2 * i, h, g, device, 128) / h**0.5)
    w2, w2_sf = quantize_weight(_blocky(h, i, g, device, 128) / i**0.5)
    return ExpertWeights(w1, w1_sf, w2, w2_sf)


@dataclass
class LocalWeights:
    """The experts of one rank, stacked: the layout the layer receives."""

    first_expert: int
    w1: torch.Tensor  # e4m3 [E_local, 2I, H]
    w1_sf: torch.Tensor  # f32 [E_local, 2I/128, H/128]
    w2: torch.Tensor  # e4m3 [E_local, H, I]
    w2_sf: torch.Tensor  # f32 [E_local, H/128, I/128]

    def expert(self, local: int) -> ExpertWeights:
        return ExpertWeights(self.w1[local], self.w1_sf[local], self.w2[local], self.w2_sf[local])


def local_weights(shape: MoeShape, rank: int, ranks: int, seed: int, device) -> LocalWeights:
    el = shape.experts_per_rank(ranks)
    h, i = shape.hidden, shape.intermediate
    out = LocalWeights(
        rank * el,
        torch.empty(el, 2 * i, h, dtype=torch.float8_e4m3fn, device=device),
        torch.empty(el, 2 * i // 128, h // 128, device=device),
        torch.empty(el, h, i, dtype=torch.float8_e4m3fn, device=device),
        torch.empty(el, h // 128, i // 128, device=device),
    )
    for j in range(el):
        w = expert_weights(shape, rank * el + j, seed, device)
        out.w1[j].copy_(w.w1)
        out.w1_sf[j].copy_(w.w1_sf)
        out.w2[j].copy_(w.w2)
        out.w2_sf[j].copy_(w.w2_sf)
    return out


class ExpertSource:
    """expert id -> ExpertWeights: local experts from `local`, others
    regenerated from the seed (the oracle's global view)."""

    def __init__(self, shape: MoeShape, seed: int, device, local: Optional[LocalWeights] = None):
        self.shape, self.seed, self.device, self.local = shape, seed, device, local

    def __call__(self, e: int) -> ExpertWeights:
        loc = self.local
        if loc is not None and loc.first_expert <= e < loc.first_expert + loc.w1.shape[0]:
            return loc.expert(e - loc.first_expert)
        return expert_weights(self.shape, e, self.seed, self.device)


@dataclass
class TokenInputs:
    x: torch.Tensor  # e4m3 [T, H]
    x_sf: torch.Tensor  # f32 [T, H/128]
    topk_idx: torch.Tensor  # i64 [T, K], -1 = masked
    topk_weights: torch.Tensor  # f32 [T, K]

    @property
    def tokens(self) -> int:
        return self.x.shape[0]


def make_routing(
    shape: MoeShape,
    tokens: int,
    g: torch.Generator,
    device,
    routing: str = "uniform",
    hot_fraction: float = 0.5,
    hot_expert: int = 0,
    mask_fraction: float = 0.25,
):
    e, k = shape.experts, shape.topk
    scores = torch.rand(tokens, e, generator=g, device=device)
    if routing == "hot":
        hot = torch.rand(tokens, generator=g, device=device) < hot_fraction
        scores[:, hot_expert] = torch.where(hot, 2.0, -1.0)  # in the top-k or never
    elif routing not in ("uniform", "masked"):
        raise ValueError(f"unknown routing '{routing}' (uniform, hot, masked)")
    idx = scores.topk(k, dim=1).indices
    # Random slot order: the hot expert must not always sit in slot 0.
    perm = torch.rand(tokens, k, generator=g, device=device).argsort(1)
    idx = idx.gather(1, perm)
    if routing == "masked":
        masked = torch.rand(tokens, k, generator=g, device=device) < mask_fraction
        idx = torch.where(masked, torch.full_like(idx, -1), idx)
    weights = (0.5 + torch.rand(tokens, k, generator=g, device=device)) / k
    return idx.to(torch.int64), weights.float()


def make_tokens(shape: MoeShape, tokens: int, rank: int, seed: int, device, routing: str = "uniform",
                **routing_args) -> TokenInputs:
    """Tokens of one rank: x from Gaussian values with a random magnitude per
    (token, 128 channels), quantized per 1x128 with sf = amax / 448."""
    g = _generator(device, seed * _TOKEN_STREAM + rank)
    x, x_sf = quantize_blocks(_blocky(tokens, shape.hidden, g, device, 1), 128)
    idx, w = make_routing(shape, tokens, g, device, routing, **routing_args)
    return TokenInputs(x, x_sf, idx, w)


def make_rank_tokens(shape: MoeShape, tokens_per_rank: List[int], seed: int, device, routing="uniform",
                     **routing_args) -> List[TokenInputs]:
    """Every rank's tokens (the global view; for single-process tests)."""
    return [make_tokens(shape, t, r, seed, device, routing, **routing_args) for r, t in enumerate(tokens_per_rank)]


def routing_stats(topk_idx: torch.Tensor, experts: int, ranks: int) -> Dict[str, torch.Tensor]:
    """Slots per destination rank and per expert (masked slots excluded)."""
    flat = topk_idx.flatten()
    flat = flat[flat >= 0]
    per_expert = torch.bincount(flat, minlength=experts)
    return {"per_expert": per_expert, "per_rank": per_expert.view(ranks, -1).sum(1)}
