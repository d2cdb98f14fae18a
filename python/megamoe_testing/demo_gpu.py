"""The GPU part of scripts/demo.sh: a compiled small layer through the
PyTorch API (docs/PythonAPI.md) against the FP32 oracle, and its time per
forward in a CUDA graph.

    python3 -m megamoe_testing.demo_gpu LAYER_JSON

Prints one line: the layer, the relative L2 error against the oracle, the time
and the bad expert ids counted. Exit status 1 when the error is above 1e-2.
"""
import sys
import torch
import megamoe
from megamoe_testing.generators import ExpertSource, local_weights, make_tokens
from megamoe_testing.oracle import moe_oracle, relative_l2
from megamoe_testing.shapes import MoeShape

buf = megamoe.get_symm_buffer(sys.argv[1], device=0)
c = buf.config
shape = MoeShape("small", c["hidden"], c["intermediate"], c["experts"], c["topk"])
dev = torch.device("cuda", 0)
w = local_weights(shape, 0, 1, 7, dev)
l1, l2 = megamoe.transform_weights((w.w1, w.w1_sf), (w.w2, w.w2_sf))
t = make_tokens(shape, c["max_tokens"], 0, 11, dev, "uniform")
n = t.tokens
buf.x[:n].copy_(t.x); buf.x_sf[:n].copy_(t.x_sf)
buf.topk_idx[:n].copy_(t.topk_idx); buf.topk_weights[:n].copy_(t.topk_weights)
y = torch.empty(n, c["hidden"], dtype=torch.bfloat16, device=dev)
megamoe.fp8_mega_moe(y, l1, l2, buf)
ref = moe_oracle(shape, t, ExpertSource(shape, 7, dev, w), 10.0, 128)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    megamoe.fp8_mega_moe(y, l1, l2, buf)
start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(20):
    g.replay()
stop.record()
torch.cuda.synchronize()
print("demo GPU: small layer (H=%d I=%d E=%d K=%d, %d tokens, EP1): rel L2 vs FP32 oracle "
      "%.3e, %.3f ms per forward (CUDA graph), bad expert ids %d"
      % (c["hidden"], c["intermediate"], c["experts"], c["topk"], n, relative_l2(y, ref),
         start.elapsed_time(stop) / 20, buf.check_errors()))
buf.close()
sys.exit(0 if relative_l2(y, ref) <= 1e-2 else 1)
