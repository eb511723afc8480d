// RUN: kirc opt %s --mcpu=gfx908 --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx90a --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx942 --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// The soft-clause rule of LLVM's GCNHazardRecognizer::checkSoftClauseHazards,
// applied by hand to small instruction runs: which ones need an `s_nop 0`
// (ported from compiler/passes/xnack_clauses_test.cc, XnackClauses.LabelDoesNotEndTheRun).
// A label between two loads does not end the run: the second load writes v3,
// the first load's address: s_nop 0 after the label. kirc opt keeps only
// labels that a branch targets, so a forward s_cbranch_scc1 to the label is
// added before the loads (not in the C++ test).
// The pass does not depend on the target (the C++ test gives none): it runs
// for each.
k:
  s_cbranch_scc1 .L0
  buffer_load_dwordx2 v[10:11], v3, s[4:7], 0 offen
.L0:
  buffer_load_dwordx2 v[2:3], v4, s[4:7], 0 offen
  s_endpgm

// CHECK-LABEL: k:
// CHECK-NEXT: s_cbranch_scc1 .L0
// CHECK-NEXT: buffer_load_dwordx2 v[10:11], v3, s[4:7], 0 offen
// CHECK-NEXT: .L0:
// CHECK-NEXT: s_nop 0
// CHECK-NEXT: buffer_load_dwordx2 v[2:3], v4, s[4:7], 0 offen
// CHECK-NEXT: s_endpgm
