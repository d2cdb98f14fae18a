"""Test oracle, input generators and the PyTorch baseline of the megamoe layer.

Independent of the `megamoe` runtime package: it judges it.

- shapes:        the model shapes of ANCHORS.md (MoeShape, SHAPES)
- fp8:           saturating round-to-nearest-even e4m3, block (de)quantization
- generators:    seeded inputs in the user layout of DESIGN.md section 3
- oracle:        the numerics contract step by step in FP32 on the GPU
- baseline_torch: NCCL all_to_all_single + per-expert torch._scaled_mm
- caseio:        case files for the C++ reference CLI (megamoe-reference)
"""

from .shapes import SHAPES, MoeShape  # noqa: F401
