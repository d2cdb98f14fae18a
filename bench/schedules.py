"""Rows of the benchmark: each schedule is one implementation of the layer.

A schedule is a class constructed with a Case and exposing
  name: str
  note: str            (filled after prepare, e.g. "graph capture failed: ...")
  prepare() -> None    (untimed: planning, graph capture, warm-up)
  __call__() -> y      (timed: one forward, bf16 [T_r, H])
Register new ones (the fused and split megamoe schedules) in SCHEDULES, or
from outside with `--plugin module:function`, where function(SCHEDULES)
adds entries.
"""

from dataclasses import dataclass
from typing import Optional

import torch

from megamoe_testing.baseline_torch import ScaledMMSupport, TorchBaseline
from megamoe_testing.generators import LocalWeights, TokenInputs
from megamoe_testing.shapes import MoeShape


@dataclass
class Case:
    shape: MoeShape
    rank: int
    ranks: int
    group: object
    weights: LocalWeights
    tokens: TokenInputs
    clamp: Optional[float]
    support: ScaledMMSupport


class TorchEager:
    """plan + run every call: host syncs for the split sizes, one launch per op."""

    name = "torch-eager"

    def __init__(self, case: Case):
        self.c = case
        self.note = ""
        self.model = TorchBaseline(case.shape, case.weights, case.rank, case.ranks, case.group, case.clamp,
                                   case.support)

    def prepare(self):
        pass

    def __call__(self):
        t = self.c.tokens
        return self.model.forward(t.x, t.x_sf, t.topk_idx, t.topk_weights)


class TorchGraph(TorchEager):
    """The routing plan made once (untimed), the data path replayed as a CUDA
    graph: launch overhead out of the picture, for this fixed routing."""

    name = "torch-graph"

    def prepare(self):
        t = self.c.tokens
        self.plan = self.model.plan(t.topk_idx)
        self.graph = None
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):
                self.y = self.model.run(self.plan, t.x, t.x_sf, t.topk_idx, t.topk_weights)
        torch.cuda.current_stream().wait_stream(stream)
        try:
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                self.y = self.model.run(self.plan, t.x, t.x_sf, t.topk_idx, t.topk_weights)
            self.graph = graph
        except Exception as exc:  # noqa: BLE001 - fall back to eager replay of the plan
            self.note = "graph capture failed, eager run(plan): " + str(exc).splitlines()[0][:120]
            torch.cuda.synchronize()

    def __call__(self):
        if self.graph is None:
            t = self.c.tokens
            return self.model.run(self.plan, t.x, t.x_sf, t.topk_idx, t.topk_weights)
        self.graph.replay()
        return self.y


SCHEDULES = {s.name: s for s in (TorchEager, TorchGraph)}
