"""megamoe's own schedules as rows of bench/moe_bench.py.

    python3 bench/moe_bench.py --plugin megamoe_schedules:register \
        --schedules torch-graph,megamoe-unfused ...

A row needs the layer compiled for its (shape, EP, tokens/rank):
$MEGAMOE_LAYERS/<shape>-ep<R>-t<T>/<name>.json, as scripts/bundle-layer.sh
writes them (megamoe-opt --megamoe-layer=... --megamoe-plan="schedule=unfused"
--megamoe-expand --megamoe-to-cubin=...). A missing one is reported in the
table, naming the command that compiles it.

Timing covers one forward as a user calls it: the inputs are staged into the
layer's symmetric views once (prepare), then every timed call runs the whole
schedule (routing, pull, both GEMMs, activation, combine) on the stream.
"""

import glob
import json
import os

import torch

import megamoe
from megamoe_testing.baseline_torch import TorchBaseline


def _manifest(shape, ranks, tokens):
    root = os.environ.get("MEGAMOE_LAYERS", "layers")
    folder = os.path.join(root, f"{shape.name}-ep{ranks}-t{tokens}")
    found = sorted(glob.glob(os.path.join(folder, "*.json")))
    if not found:
        raise FileNotFoundError(
            f"no compiled layer in {folder}: megamoe-opt --megamoe-layer=\"hidden={shape.hidden} "
            f"intermediate={shape.intermediate} experts={shape.experts} topk={shape.topk} ranks={ranks} "
            f"max-tokens={tokens} chip=sm_90a\" --megamoe-plan=\"schedule=unfused\" --megamoe-expand "
            f"--megamoe-to-cubin=\"chip=sm_90a emit-dir={folder}\"")
    return found[0]


def open_layer(shape, ranks, bound, group, weights, tokens):
    """The compiled layer for (shape, ranks, token bound) over a new symmetric
    buffer, with `tokens` (TokenInputs) staged into its views and the L1
    weights transformed: (symm, layer, w1, s1). Collective over `group`."""
    path = _manifest(shape, ranks, bound)
    with open(path) as f:
        total = json.load(f)["buffer_layout"]["total_bytes"]
    symm = megamoe.SymmetricBuffer(total, group)
    layer = megamoe.Layer(path, symm, hidden=shape.hidden, intermediate=shape.intermediate,
                          experts=shape.experts, topk=shape.topk, max_tokens=bound, ranks=ranks)
    for name, src in (("x", tokens.x), ("x_sf", tokens.x_sf), ("topk_idx", tokens.topk_idx),
                      ("topk_weights", tokens.topk_weights)):
        layer.view(name)[:tokens.tokens].copy_(src)
    w1, s1 = layer.transform_l1(weights.w1, weights.w1_sf)
    return symm, layer, w1, s1


class MegaMoEUnfused:
    """The generated unfused schedule (docs/UnfusedSchedule.md) through the
    runtime's layer forward."""

    name = "megamoe-unfused"

    def __init__(self, case):
        self.c = case
        self.note = ""

    # The layer's token bound: None = compiled for exactly this row's tokens.
    compiled_tokens = None

    def prepare(self):
        c, shape, t = self.c, self.c.shape, self.c.tokens
        tokens = t.tokens
        bound = self.compiled_tokens or tokens
        if tokens > bound:
            raise ValueError(f"{self.name}: {tokens} tokens/rank exceed the layer's bound {bound}")
        self.symm, self.layer, self.w1, self.s1 = open_layer(shape, c.ranks, bound, c.group, c.weights, t)
        self.w2, self.s2 = c.weights.w2, c.weights.w2_sf
        self.y = torch.empty(tokens, shape.hidden, dtype=torch.bfloat16, device=t.x.device)
        # The routing statistics of the table (recv, bytes) come from the
        # baseline's host-side plan of the same routing.
        self.plan = TorchBaseline(shape, c.weights, c.rank, c.ranks, c.group, c.clamp, c.support).plan(t.topk_idx)
        torch.cuda.synchronize()

    def __call__(self):
        self.layer.forward(self.c.tokens.tokens, self.w1, self.s1, self.w2, self.s2, self.y)
        return self.y


class MegaMoEUnfusedT8192(MegaMoEUnfused):
    """The same, from the one layer compiled for 8192 tokens/rank (as a serving
    engine compiles it once for its largest batch): a call picks the plan
    variant for its token count (BLOCK_M 64 for decode sizes)."""

    name = "megamoe-unfused-t8192"
    compiled_tokens = 8192


def register(schedules):
    schedules[MegaMoEUnfused.name] = MegaMoEUnfused
    schedules[MegaMoEUnfusedT8192.name] = MegaMoEUnfusedT8192
