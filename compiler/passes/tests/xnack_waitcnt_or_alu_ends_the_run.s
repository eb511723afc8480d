// RUN: kirc opt %s --mcpu=gfx908 --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// The soft-clause rule of LLVM's GCNHazardRecognizer::checkSoftClauseHazards,
// applied by hand to small instruction runs: which ones need an `s_nop 0`
// (ported from compiler/passes/xnack_clauses_test.cc, XnackClauses.WaitcntOrAluEndsTheRun).
// An s_waitcnt or an ALU instruction ends the run: the loads after them
// (writing v[2:3], address of none before in the run; then v[3:4]) need no
// s_nop. Runs on gfx908 only: v[3:4] (the C++ test's Load(3, 2)) is not an
// aligned 64-bit tuple on gfx90a and gfx942. The C++ test's s_waitcnt has
// the single operand 0; written here as vmcnt(0).
k:
  buffer_load_dwordx2 v[10:11], v3, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
  buffer_load_dwordx2 v[2:3], v4, s[4:7], 0 offen
  v_add_u32 v30, v31, v32
  buffer_load_dwordx2 v[3:4], v2, s[4:7], 0 offen
  s_endpgm

// CHECK-LABEL: k:
// CHECK-NEXT: buffer_load_dwordx2 v[10:11], v3, s[4:7], 0 offen
// CHECK-NEXT: s_waitcnt vmcnt(0)
// CHECK-NEXT: buffer_load_dwordx2 v[2:3], v4, s[4:7], 0 offen
// CHECK-NEXT: v_add_u32 v30, v31, v32
// CHECK-NEXT: buffer_load_dwordx2 v[3:4], v2, s[4:7], 0 offen
// CHECK-NEXT: s_endpgm
