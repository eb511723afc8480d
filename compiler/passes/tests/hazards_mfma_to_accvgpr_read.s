// RUN: kirc opt %s --mcpu=gfx908 --run-pass=hazards | FileCheck %s --check-prefix=GFX908
// RUN: kirc opt %s --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=GFX90A
// A v_accvgpr_read of a 32x32x8 MFMA's (16 passes) result. gfx908: 18 wait
// states (amdgcn-isa-notes.md 2.2, "MFMA writes a[..] -> v_accvgpr_read |
// 4x4: 4, 16x16: 10, 32x32: 18"); gfx90a: 19 (2.1, "XDL MFMA writes -> VALU
// reads or writes | 4x4: 5, 16x16: 11, 32x32: 19"). s_nop N gives N + 1.
k:
  v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
  v_accvgpr_read_b32 v4, a0
  s_endpgm
// GFX908:      v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
// GFX908-NEXT: s_nop 7
// GFX908-NEXT: s_nop 7
// GFX908-NEXT: s_nop 1
// GFX908-NEXT: v_accvgpr_read_b32 v4, a0
// GFX90A:      v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
// GFX90A-NEXT: s_nop 7
// GFX90A-NEXT: s_nop 7
// GFX90A-NEXT: s_nop 2
// GFX90A-NEXT: v_accvgpr_read_b32 v4, a0
