// RUN: kirc opt %s --mcpu=gfx908 --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx90a --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx942 --run-pass=xnack-clauses | FileCheck %s --check-prefix=CHECK
// The soft-clause rule of LLVM's GCNHazardRecognizer::checkSoftClauseHazards,
// applied by hand to small instruction runs: which ones need an `s_nop 0`
// (ported from compiler/passes/xnack_clauses_test.cc, XnackClauses.StoreAfterALoadStartsANewClause).
// A store after a load starts a new clause: s_nop 0 between them.
// The pass does not depend on the target (the C++ test gives none): it runs
// for each.
k:
  buffer_load_dwordx2 v[10:11], v3, s[4:7], 0 offen
  buffer_store_dword v20, v21, s[8:11], 0 offen
  s_endpgm

// CHECK-LABEL: k:
// CHECK-NEXT: buffer_load_dwordx2 v[10:11], v3, s[4:7], 0 offen
// CHECK-NEXT: s_nop 0
// CHECK-NEXT: buffer_store_dword v20, v21, s[8:11], 0 offen
// CHECK-NEXT: s_endpgm
