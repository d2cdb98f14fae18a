"""Case files for the C++ reference CLI (format: include/megamoe/Reference/CaseFile.h)."""

import struct
from typing import List, Optional

import numpy as np
import torch

from .generators import ExpertWeights, TokenInputs
from .shapes import MoeShape

MAGIC = b"MMOECAS1"


def _bytes(t: torch.Tensor) -> bytes:
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.float8_e4m3fn:
        t = t.view(torch.uint8)
    return t.numpy().tobytes()


def write_case(path: str, shape: MoeShape, tokens: TokenInputs, experts: List[ExpertWeights],
               clamp: Optional[float] = None, requant_block: int = 128) -> None:
    """Writes one rank's tokens and all E experts (global view)."""
    if len(experts) != shape.experts:
        raise ValueError(f"need all {shape.experts} experts, got {len(experts)}")
    header = struct.pack("<6qf", shape.hidden, shape.intermediate, shape.experts, shape.topk, tokens.tokens,
                         requant_block, float("inf") if clamp is None else float(clamp))
    with open(path, "wb") as f:
        f.write(MAGIC + header)
        f.write(_bytes(tokens.x))
        f.write(_bytes(tokens.x_sf.float()))
        f.write(_bytes(tokens.topk_idx.to(torch.int64)))
        f.write(_bytes(tokens.topk_weights.float()))
        for field in ("w1", "w1_sf", "w2", "w2_sf"):
            for w in experts:
                f.write(_bytes(getattr(w, field)))


def read_bf16(path: str, rows: int, cols: int) -> torch.Tensor:
    raw = np.fromfile(path, dtype=np.uint16)
    if raw.size != rows * cols:
        raise ValueError(f"{path}: {raw.size} values, expected {rows * cols}")
    return torch.from_numpy(raw.astype(np.int16)).view(torch.bfloat16).view(rows, cols)
