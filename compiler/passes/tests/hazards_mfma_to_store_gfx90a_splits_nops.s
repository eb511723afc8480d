// RUN: kirc opt %s --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=GFX90A
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_MfmaToStoreGfx90aSplitsNops).
// The same MFMA -> buffer_store_dwordx4 on gfx90a: 11 wait states (2.1, "XDL
// MFMA writes -> VALU reads or writes that reg; buffer/global/flat/ds instr
// reads it | gfx90a: 4x4: 5, 16x16: 11, 32x32: 19"). 11 = 8 + 3: s_nop 7,
// s_nop 2; no s_nop above 7 (the C++ test checks imm <= 7 for both).
k:
  v_mfma_f32_16x16x16f16 v[12:15], v[0:1], v[2:3], v[12:15]
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

// GFX90A: v_mfma_f32_16x16x16f16 v[12:15], v[0:1], v[2:3], v[12:15]
// GFX90A-NEXT: s_nop 7
// GFX90A-NEXT: s_nop 2
// GFX90A-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// GFX90A-NEXT: s_endpgm
