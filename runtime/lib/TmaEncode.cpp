//===- TmaEncode.cpp - TmaParams -> CUtensorMap ---------------------------===//
#include "TmaEncode.h"
#include "CudaCheck.h"

namespace megamoe::rt {
namespace {

CUtensorMapDataType toCu(DType t) {
  switch (t) {
  case DType::E4M3:
  case DType::E5M2:
  case DType::U8:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::U32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case DType::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case DType::U64:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

CUtensorMapSwizzle toCu(Swizzle s) {
  switch (s) {
  case Swizzle::None:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  case Swizzle::B32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case Swizzle::B64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case Swizzle::B128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

CUtensorMapInterleave toCu(Interleave i) {
  switch (i) {
  case Interleave::None:
    return CU_TENSOR_MAP_INTERLEAVE_NONE;
  case Interleave::B16:
    return CU_TENSOR_MAP_INTERLEAVE_16B;
  case Interleave::B32:
    return CU_TENSOR_MAP_INTERLEAVE_32B;
  }
  return CU_TENSOR_MAP_INTERLEAVE_NONE;
}

CUtensorMapL2promotion toCu(L2Promotion l) {
  switch (l) {
  case L2Promotion::None:
    return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  case L2Promotion::B64:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  case L2Promotion::B128:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  case L2Promotion::B256:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
  return CU_TENSOR_MAP_L2_PROMOTION_NONE;
}

} // namespace

CUtensorMap encodeTma(const TmaParams &p, const std::string &name) {
  CUtensorMap map;
  checkCu(cuTensorMapEncodeTiled(
              &map, toCu(p.dtype), p.rank, (void *)p.globalAddress,
              p.globalDim.data(), p.globalStrides.data(), p.box.data(),
              p.elementStrides.data(), toCu(p.interleave), toCu(p.swizzle),
              toCu(p.l2Promotion),
              p.oobFill == OobFill::NaN
                  ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                  : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
          ("cuTensorMapEncodeTiled(" + name + ")").c_str());
  return map;
}

} // namespace megamoe::rt
