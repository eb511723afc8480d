// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.SpecialRegistersAreNotMemoryDestinations).
// VCC and SGPRs written by ALU instructions are not a pending load's
// destination: no wait.
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  v_cmp_gt_u32_e64 vcc, v2, v3
  s_add_u32 s4, s5, 1
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX942-NEXT: v_cmp_gt_u32_e64 vcc, v2, v3
// GFX942-NEXT: s_add_u32 s4, s5, 1
// GFX942-NEXT: s_endpgm
