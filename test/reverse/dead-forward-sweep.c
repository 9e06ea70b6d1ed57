// RUN: %clang -O3 -ffast-math -DSMALL -I%repo/bench/apps -I%runtime-include -c -emit-llvm %repo/bench/apps/docking.c -o %t.bc
// RUN: %umbra -O3 %t.bc -o - | FileCheck %s
// RUN: %clang -O3 -ffast-math -DSMALL -I%repo/bench/apps -I%runtime-include -fpass-plugin=%plugin -S -emit-llvm %repo/bench/apps/docking.c -o - | FileCheck %s
// A gradient's forward sweep that keeps nothing for the adjoint (the docking kernel of
// `make bench`: every per-pair value is rebuilt, the request ignores the energy) computes
// nothing. Its loops die only once the pipeline has unrolled the pose loops and SROA has
// removed their stack arrays, after the pipeline's last loop deletion: the re-optimisation
// deletes them afterwards (they cost a quarter of the gradient's time: 3.1x the primal before,
// 1.9x after). Only the trip count of the pose loop remains on the tape.
// CHECK-LABEL: define internal {{.*}}void @augfwd.docking_energy
// CHECK-NOT: sqrt
// CHECK-NOT: llvm.sin
// CHECK: ret void
// CHECK-NEXT: }
// CHECK-LABEL: define internal {{.*}}void @adjoint.docking_energy
// CHECK: sqrt
