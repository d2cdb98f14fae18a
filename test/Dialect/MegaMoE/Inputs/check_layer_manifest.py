"""Prints the facts of a layer manifest that megamoe-expand.mlir checks: the
schedule, the layer entry, the buffer layout, the config and plan, that every parameter of every
scheduled kernel is bound (to a region the layout has, or to an input, value
or the peer table), that ptxas reported no spills, and the L1 output
descriptor."""
import json
import sys

m = json.load(open(sys.argv[1]))
print("schedule", " ".join(m["schedule"]))
print("layer", dict(sorted(m["layer"].items())))
layout = m["buffer_layout"]
regions = {r["name"] for r in layout["regions"]}
print("regions", len(regions), "total_bytes", layout["total_bytes"], "workspace_bytes",
      layout["workspace_bytes"])
# The config and plan the runtime reads back (planToJson's members).
c, p = m["config"], m["plan"]
print("config", c["hidden"], c["intermediate"], c["experts"], c["topk"], c["ranks"],
      c["max_tokens_per_rank"], "clamp", c.get("clamp"))
print("plan", p["schedule"], "pool_tokens", p["pool_tokens"], "variants",
      [(v["min_tokens"], v["max_tokens"], v["block_m"]) for v in p["variants"]])
kernels = {k["name"]: k for k in m["kernels"]}
unbound, outside, spills = [], [], []
for name in m["schedule"]:
    k = kernels[name]
    for p in k["params"]:
        bind = p.get("bind")
        if not bind:
            unbound.append(f"{name}.{p['name']}")
        elif bind.startswith("region:") and bind[len("region:"):] not in regions:
            outside.append(f"{name}.{p['name']}={bind}")
    r = k["resources"]
    if r["spill_stores_bytes"] or r["spill_loads_bytes"]:
        spills.append(name)
print("unbound params:", ", ".join(unbound) or "none")
print("binds outside the layout:", ", ".join(outside) or "none")
print("spills:", ", ".join(spills) or "none")
l1 = kernels["moe_l1_gemm"]
d = next(p for p in l1["params"] if p["name"] == "d")
spec = next(t for t in l1["tma_descriptors"] if t["name"] == "d")
print("moe_l1_gemm d", d["bind"], spec["dtype"], spec["global_shape"], "box", spec["box"])
