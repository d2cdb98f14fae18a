//===- SmemModel.cpp - placing shared-memory regions ----------------------===//
#include "megamoe/Config/SmemModel.h"

namespace megamoe::config {

namespace {
int64_t alignUp(int64_t a, int64_t b) {
  return b <= 1 ? a : (a + b - 1) / b * b;
}
} // namespace

int64_t layoutSmem(std::vector<SmemRegionPlan> &regions,
                   int64_t totalAlignment) {
  int64_t end = 0;
  for (SmemRegionPlan &r : regions) {
    r.offset = alignUp(end, r.alignment);
    end = r.offset + r.bytes();
  }
  return alignUp(end, totalAlignment);
}

} // namespace megamoe::config
