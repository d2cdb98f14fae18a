"""FP8 e4m3 of the numerics contract (DESIGN.md section 3).

torch's float8_e4m3fn cast rounds to nearest even but does NOT saturate
(measured on torch 2.11: 464 -> 448, 500 -> NaN), so every cast here clamps to
+-448 first; the result is bit-identical to the C++ reference
(megamoe::ref::floatToE4M3) and to PTX cvt.rn.satfinite, on the CPU and on the
GPU. python/tests/test_fp8.py checks both claims exhaustively.

Division: on CUDA, torch computes `tensor / python_scalar` as a multiplication
by the rounded reciprocal, which is not `amax / 448` (it differs in the last
bit for some amax). The contract's sf = amax / 448 is a correctly rounded
division, so the scales here divide by a tensor (`_div448`).
"""

import torch

E4M3 = torch.float8_e4m3fn
E4M3_MAX = 448.0


def to_e4m3(x: torch.Tensor) -> torch.Tensor:
    """Saturating round-to-nearest-even cast (NaN stays NaN)."""
    return x.float().clamp(-E4M3_MAX, E4M3_MAX).to(E4M3)


def _div448(t: torch.Tensor) -> torch.Tensor:
    """t / 448 correctly rounded on every device (see the module doc)."""
    return t / torch.full_like(t, E4M3_MAX)


def quantize_blocks(a: torch.Tensor, block: int):
    """Per-row blocks of `block` channels along the last dim.

    sf = amax / 448 (FP32), q = e4m3(a / sf); an all-zero block gets sf = 0
    and q = +0. Returns (q [..., n] e4m3, sf [..., n / block] f32).
    """
    a = a.float()
    n = a.shape[-1]
    if n % block:
        raise ValueError(f"last dim {n} is not a multiple of the block {block}")
    ab = a.unflatten(-1, (n // block, block))
    sf = _div448(ab.abs().amax(-1))
    scaled = torch.where(sf.unsqueeze(-1) > 0, ab / sf.unsqueeze(-1), torch.zeros_like(ab))
    return to_e4m3(scaled).flatten(-2), sf


def dequantize_blocks(q: torch.Tensor, sf: torch.Tensor, block: int) -> torch.Tensor:
    n = q.shape[-1]
    return (q.float().unflatten(-1, (n // block, block)) * sf.unsqueeze(-1)).flatten(-2)


def quantize_weight(w: torch.Tensor):
    """[N, K] -> (e4m3 [N, K], f32 [N/128, K/128]) with 128x128 block scales."""
    n, k = w.shape
    wb = w.float().view(n // 128, 128, k // 128, 128)
    sf = _div448(wb.abs().amax(dim=(1, 3)))
    safe = torch.where(sf > 0, sf, torch.ones_like(sf))
    q = to_e4m3(wb / safe[:, None, :, None]).view(n, k)
    return q, sf


def dequantize_weight(q: torch.Tensor, sf: torch.Tensor) -> torch.Tensor:
    n, k = q.shape[-2:]
    lead = q.shape[:-2]
    wb = q.float().view(*lead, n // 128, 128, k // 128, 128)
    return (wb * sf.view(*lead, n // 128, 1, k // 128, 1)).view(*lead, n, k)
