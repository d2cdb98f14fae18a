// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: megamoe-opt %s | megamoe-opt | FileCheck %s --check-prefix=ROUND

// A ring shared by a cluster of 2 CTAs (docs/Collectives.md, "Cluster of
// 2"): empty[s] expects the consumers of both CTAs (2 x 4 arrivals), the
// initialisation ends with a cluster barrier, a release arrives on empty[s]
// of both CTAs (lane r on rank r, through mapa; a CTA-scope release),
// a multicast load puts box `rank` (rows + 64 x rank, slot offset
// 8192 x rank) into both CTAs (ctaMask 0b11) and its commit expects both
// boxes (2 x 8192 B), the tile loop walks m-block pairs per cluster, and
// the kernel ends with a cluster barrier.

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!half = !warpspec.tma_desc<64x128xf8E4M3FN, swizzle = 128>
!pipe = !warpspec.pipeline<2>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @pair
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: %[[C8:.*]] = arith.constant 8 : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %[[C4]]
// CHECK: nvvm.mbarrier.init %{{.*}}, %[[C8]]
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NOT: nvvm.barrier0
// The tile loop: groups of 2 m-blocks over the clusters.
// CHECK: %[[CID:.*]] = nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK: nvvm.read.ptx.sreg.nclusterid.x : i32
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctaid.x : i32
// CHECK: arith.divsi
// CHECK: scf.for
// CHECK: %[[G:.*]] = arith.divui
// CHECK: %[[G2:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK: arith.addi %[[G2]], %{{.*}} : index
// The multicast load: box `rank` of the two.
// CHECK: %[[R:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[OFF:.*]] = arith.muli %[[R]], %{{.*}} : i32
// CHECK: llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: %[[ROW:.*]] = arith.muli %[[R]], %{{.*}} : i32
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %[[MASK]]
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// The release: lanes 0 and 1 arrive on rank 0's and rank 1's empty[s].
// CHECK: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK: %[[ARR:.*]] = arith.cmpi ult, %[[LANE]], %{{.*}} : i32
// CHECK: scf.if %[[ARR]] {
// CHECK-NEXT: %[[REMOTE:.*]] = nvvm.mapa %{{.*}}, %[[LANE]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: llvm.return

// ROUND: warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 4 cluster 2 buffers
// ROUND: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 4 raster 2 cluster 2 {
// ROUND: warpspec.tma.load %{{.*}} -> %{{.*}}, %{{.*}} multicast 2 :
warpspec.kernel @pair(%db: !half, %mb: i32)
    attributes {chip = "sm_90a", cluster = array<i32: 2, 1, 1>, maxnreg = 168 : i32, smem_bytes = 65536 : i64, threads = 256 : i32} {
  %b = warpspec.smem.alloc "b" offset 0 : !tile
  %ring = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 4 cluster 2 buffers(%b : !tile) offset 32768 : !pipe
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 4) regs 168 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 4 raster 2 cluster 2 {
        %s = warpspec.producer.acquire %ring : !pipe
        %row = arith.index_cast %m : index to i32
        warpspec.tma.load %db[%c0i, %row] -> %b[%s], %ring multicast 2 : !half, !tile, !pipe
        warpspec.producer.commit %ring[%s] : !pipe
      }
    }
    warpspec.role "math" warps [4, 8) regs 168 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 4 raster 2 cluster 2 {
        %s = warpspec.consumer.wait %ring : !pipe
        warpspec.consumer.release %ring[%s] reads_retired : !pipe
      }
    }
  }
  warpspec.return
}
}
}
