"""Model shapes of ANCHORS.md (routed experts only)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class MoeShape:
    name: str
    hidden: int  # H
    intermediate: int  # I
    experts: int  # E
    topk: int  # K

    def experts_per_rank(self, ranks: int) -> int:
        if self.experts % ranks:
            raise ValueError(f"{self.name}: {self.experts} experts do not split over {ranks} ranks")
        return self.experts // ranks

    def validate(self) -> None:
        if self.hidden % 128 or self.intermediate % 128:
            raise ValueError(f"{self.name}: H and I must be multiples of 128")
        if not 0 < self.topk <= self.experts:
            raise ValueError(f"{self.name}: top-k must be in [1, E]")


SHAPES = {
    s.name: s
    for s in [
        MoeShape("V4-Flash", 4096, 2048, 256, 6),
        MoeShape("V4-Pro", 7168, 3072, 384, 6),
        MoeShape("MiMo-V2.5", 4096, 2048, 256, 8),
        MoeShape("Decode", 7168, 2048, 48, 6),
        MoeShape("Prefill", 7168, 3072, 48, 6),
    ]
}

TOKENS_PER_RANK = (1, 8, 64, 512, 2048, 8192)
