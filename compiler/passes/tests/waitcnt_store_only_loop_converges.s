// RUN: kirc opt %s --mcpu=gfx908 --run-pass=waitcnt | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx90a --run-pass=waitcnt | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=CHECK
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_StoreOnlyLoopConverges).
// Issue 13, defect 1: a loop whose body only stores never waits, so each trip
// adds to the outstanding count; the dataflow converged only once that count
// saturates ("s_waitcnt dataflow did not converge in 64 rounds" before). The
// waits after the loop are derived by hand: a load issued before the loop is
// followed by at least one store on every path, so vmcnt(1) covers it; a load
// after the loop is the newest operation: vmcnt(0).
k:
  buffer_load_dword v5, v90, s[0:3], 0 offen
.L0:
  buffer_store_dword v1, v90, s[0:3], 0 offen
  s_cmp_lt_u32 s10, 4
  s_cbranch_scc1 .L0
  v_add_u32 v80, v5, v81
  buffer_load_dword v6, v90, s[0:3], 0 offen
  v_add_u32 v80, v6, v81
  s_endpgm

// CHECK-LABEL: k:
// CHECK-NEXT: buffer_load_dword v5, v90, s[0:3], 0 offen
// CHECK-NEXT: .L0:
// CHECK-NEXT: buffer_store_dword v1, v90, s[0:3], 0 offen
// CHECK-NEXT: s_cmp_lt_u32 s10, 4
// CHECK-NEXT: s_cbranch_scc1 .L0
// CHECK-NEXT: s_waitcnt vmcnt(1)
// CHECK-NEXT: v_add_u32 v80, v5, v81
// CHECK-NEXT: buffer_load_dword v6, v90, s[0:3], 0 offen
// CHECK-NEXT: s_waitcnt vmcnt(0)
// CHECK-NEXT: v_add_u32 v80, v6, v81
// CHECK-NEXT: s_endpgm
