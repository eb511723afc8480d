// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=GFX942
// RUN: kirc opt %s --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=NONE
// RUN: kirc opt %s --mcpu=gfx908 --run-pass=hazards | FileCheck %s --check-prefix=NONE
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_VccWriteToValuReadGfx942Only).
// A VALU writes VCC and the next VALU reads it as its mask: 2 wait states on
// gfx942 only (2.3, "VALU writes SGPR/VCC -> VALU reads it as an operand or
// mask | 908: 0 | 90a: 0 | 942: 2", hasVDecCoExecHazard): s_nop 1 on gfx942,
// nothing on gfx90a and gfx908.
k:
  v_cmp_gt_u32_e64 vcc, v0, v1
  v_cndmask_b32_e64 v2, v3, v4, vcc
  s_endpgm

// GFX942: v_cmp_gt_u32_e64 vcc, v0, v1
// GFX942-NEXT: s_nop 1
// GFX942-NEXT: v_cndmask_b32_e64 v2, v3, v4, vcc
// GFX942-NEXT: s_endpgm
// NONE: v_cmp_gt_u32_e64 vcc, v0, v1
// NONE-NEXT: v_cndmask_b32_e64 v2, v3, v4, vcc
// NONE-NEXT: s_endpgm
