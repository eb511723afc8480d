// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=GFX942
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_MfmaToStoreGfx942).
// MFMA 16x16x16 f16 into v[12:15], then buffer_store_dwordx4 of v[12:15].
// gfx942: 7 wait states (2.1, "XDL MFMA writes -> ... buffer/global/flat/ds
// instr reads it (address or data) | gfx942: NumPasses+3: 4-pass (16x16x16
// f16/bf16) 7"), one s_nop 6. Not ported: the C++ test also checks the pass's
// stats (1 nop, 7 wait states: implied by the lines below) and the nop's
// comment "XDL MFMA (4 passes) writes v[12:15] read by VMEM: 7 wait states
// (gfx942)", which kirc opt does not print.
k:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

// GFX942: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// GFX942-NEXT: s_nop 6
// GFX942-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// GFX942-NEXT: s_endpgm
