// RUN: kirc opt %s --mcpu=gfx908 --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx90a --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx942 --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// The soft-clause rule of LLVM's GCNHazardRecognizer::checkSoftClauseHazards,
// applied by hand to small instruction runs: which ones need an `s_nop 0`
// (ported from compiler/passes/xnack_clauses_test.cc, XnackClauses.VmemAndSmemAreSeparateRuns).
// An s_load between two buffer loads ends the VMEM run: the second load's
// write of v3 (the first load's address) needs no s_nop.
// The pass does not depend on the target (the C++ test gives none): it runs
// for each.
k:
  buffer_load_dwordx2 v[10:11], v3, s[4:7], 0 offen
  s_load_dword s6, s[0:1], 0x8
  buffer_load_dwordx2 v[2:3], v4, s[4:7], 0 offen
  s_endpgm

// CHECK-LABEL: k:
// CHECK-NEXT: buffer_load_dwordx2 v[10:11], v3, s[4:7], 0 offen
// CHECK-NEXT: s_load_dword s6, s[0:1], 0x8
// CHECK-NEXT: buffer_load_dwordx2 v[2:3], v4, s[4:7], 0 offen
// CHECK-NEXT: s_endpgm
