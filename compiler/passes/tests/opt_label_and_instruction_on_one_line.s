// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s
// A label and an instruction on one line (llvm-mc accepts `.L1: v_mov_b32
// v1, 2`): the instruction is kept after the label. Found by a review: the
// reader took the line for a label alone and dropped the instruction.
k:
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc1 .L1
  v_mov_b32 v1, 1
.L1: v_mov_b32 v1, 2
  s_endpgm

// CHECK: s_cbranch_scc1 .L1
// CHECK-NEXT: v_mov_b32 v1, 1
// CHECK-NEXT: .L1:
// CHECK-NEXT: v_mov_b32 v1, 2
// CHECK-NEXT: s_endpgm
