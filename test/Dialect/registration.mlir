// RUN: megamoe-opt --show-dialects | FileCheck %s
// The driver knows the project's dialects and the upstream ones it lowers to.
// CHECK-DAG: arith
// CHECK-DAG: gpu
// CHECK-DAG: llvm
// CHECK-DAG: megamoe
// CHECK-DAG: nvvm
// CHECK-DAG: scf
// CHECK-DAG: warpspec
