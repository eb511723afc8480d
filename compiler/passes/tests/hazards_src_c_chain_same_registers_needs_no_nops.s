// RUN: sed -n '/^vgpr:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=GFX90A
// RUN: sed -n '/^vgpr:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=GFX942
// RUN: sed -n '/^agpr:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx908 --run-pass=hazards | FileCheck %s --check-prefix=GFX908
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_SrcCChainSameRegistersNeedsNoNops).
// MFMAs chained through srcC = vdst on exactly the same registers need no wait
// states (2.1, "MFMA writes -> next MFMA srcC, exactly the same registers |
// gfx90a: 0 | gfx942: 0 (2-pass producers need 2)"; 2.2 gfx908, "MFMA writes
// -> MFMA srcC, same regs / overlapped | 0 / 2"): four 16x16x16 f16 MFMAs on
// v[16:19] (gfx90a, gfx942), three on a[0:3] (gfx908).
// Each RUN line cuts one function (from `NAME:` to the blank line after it) out
// of this file with sed and feeds it to kirc opt on standard input.
vgpr:
  v_mfma_f32_16x16x16f16 v[16:19], v[0:1], v[2:3], v[16:19]
  v_mfma_f32_16x16x16f16 v[16:19], v[4:5], v[6:7], v[16:19]
  v_mfma_f32_16x16x16f16 v[16:19], v[8:9], v[10:11], v[16:19]
  v_mfma_f32_16x16x16f16 v[16:19], v[12:13], v[14:15], v[16:19]
  s_endpgm

agpr:
  v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]
  v_mfma_f32_16x16x16f16 a[0:3], v[4:5], v[6:7], a[0:3]
  v_mfma_f32_16x16x16f16 a[0:3], v[8:9], v[10:11], a[0:3]
  s_endpgm

// GFX90A-LABEL: vgpr:
// GFX90A-NEXT: v_mfma_f32_16x16x16f16 v[16:19], v[0:1], v[2:3], v[16:19]
// GFX90A-NEXT: v_mfma_f32_16x16x16f16 v[16:19], v[4:5], v[6:7], v[16:19]
// GFX90A-NEXT: v_mfma_f32_16x16x16f16 v[16:19], v[8:9], v[10:11], v[16:19]
// GFX90A-NEXT: v_mfma_f32_16x16x16f16 v[16:19], v[12:13], v[14:15], v[16:19]
// GFX90A-NEXT: s_endpgm
// GFX942-LABEL: vgpr:
// GFX942-NEXT: v_mfma_f32_16x16x16_f16 v[16:19], v[0:1], v[2:3], v[16:19]
// GFX942-NEXT: v_mfma_f32_16x16x16_f16 v[16:19], v[4:5], v[6:7], v[16:19]
// GFX942-NEXT: v_mfma_f32_16x16x16_f16 v[16:19], v[8:9], v[10:11], v[16:19]
// GFX942-NEXT: v_mfma_f32_16x16x16_f16 v[16:19], v[12:13], v[14:15], v[16:19]
// GFX942-NEXT: s_endpgm
// GFX908-LABEL: agpr:
// GFX908-NEXT: v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]
// GFX908-NEXT: v_mfma_f32_16x16x16f16 a[0:3], v[4:5], v[6:7], a[0:3]
// GFX908-NEXT: v_mfma_f32_16x16x16f16 a[0:3], v[8:9], v[10:11], a[0:3]
// GFX908-NEXT: s_endpgm
