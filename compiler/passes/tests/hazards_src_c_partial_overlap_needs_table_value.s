// RUN: sed -n '/^vgpr:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=GFX942
// RUN: sed -n '/^vgpr:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=GFX90A
// RUN: sed -n '/^agpr:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx908 --run-pass=hazards | FileCheck %s --check-prefix=GFX908
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_SrcCPartialOverlapNeedsTableValue).
// Failure class 13 (overlapping accumulators) turns into this hazard: an MFMA
// whose srcC partially overlaps the previous MFMA's result. 2.1, "MFMA writes
// -> next MFMA srcC, partial overlap | gfx90a: 16x16: 8 | gfx942: XDL:
// NumPasses+1 (4p: 5)": gfx942 s_nop 4, gfx90a s_nop 7; 2.2 (gfx908), "MFMA
// writes -> MFMA srcC, same regs / overlapped | 0 / 2": s_nop 1.
// Each RUN line cuts one function (from `NAME:` to the blank line after it) out
// of this file with sed and feeds it to kirc opt on standard input.
vgpr:
  v_mfma_f32_16x16x16f16 v[16:19], v[0:1], v[2:3], v[16:19]
  v_mfma_f32_16x16x16f16 v[18:21], v[4:5], v[6:7], v[18:21]
  s_endpgm

agpr:
  v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]
  v_mfma_f32_16x16x16f16 a[2:5], v[4:5], v[6:7], a[2:5]
  s_endpgm

// GFX942-LABEL: vgpr:
// GFX942-NEXT: v_mfma_f32_16x16x16_f16 v[16:19], v[0:1], v[2:3], v[16:19]
// GFX942-NEXT: s_nop 4
// GFX942-NEXT: v_mfma_f32_16x16x16_f16 v[18:21], v[4:5], v[6:7], v[18:21]
// GFX942-NEXT: s_endpgm
// GFX90A-LABEL: vgpr:
// GFX90A-NEXT: v_mfma_f32_16x16x16f16 v[16:19], v[0:1], v[2:3], v[16:19]
// GFX90A-NEXT: s_nop 7
// GFX90A-NEXT: v_mfma_f32_16x16x16f16 v[18:21], v[4:5], v[6:7], v[18:21]
// GFX90A-NEXT: s_endpgm
// GFX908-LABEL: agpr:
// GFX908-NEXT: v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]
// GFX908-NEXT: s_nop 1
// GFX908-NEXT: v_mfma_f32_16x16x16f16 a[2:5], v[4:5], v[6:7], a[2:5]
// GFX908-NEXT: s_endpgm
