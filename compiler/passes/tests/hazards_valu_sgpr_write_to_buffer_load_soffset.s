// RUN: kirc opt %s --mcpu=gfx908 --run-pass=hazards | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=CHECK
// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=CHECK
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_ValuSgprWriteToBufferLoadSoffset).
// A VALU writes an SGPR that a VMEM instruction reads as soffset: 5 wait states
// on every target (2.3, "VALU writes SGPR (v_readfirstlane, v_cmp, v_add_co
// sdst) -> VMEM reads that SGPR (soffset, SRD, saddr) | 5 | 5 | 5 | 5",
// checkVMEMHazards): s_nop 4.
k:
  v_readfirstlane_b32 s5, v1
  buffer_load_dword v2, v3, s[0:3], s5 offen
  s_endpgm

// CHECK: v_readfirstlane_b32 s5, v1
// CHECK-NEXT: s_nop 4
// CHECK-NEXT: buffer_load_dword v2, v3, s[0:3], s5 offen
// CHECK-NEXT: s_endpgm
