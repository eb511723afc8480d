// RUN: sed -n '/^fill0:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=FILL0
// RUN: sed -n '/^fill1:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=FILL1
// RUN: sed -n '/^fill2:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=FILL2
// RUN: sed -n '/^fill3:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=FILL3
// RUN: sed -n '/^fill4:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=FILL4
// RUN: sed -n '/^fill5:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=FILL5
// RUN: sed -n '/^fill6:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=FILL6
// RUN: sed -n '/^fill7:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=FILL7
// RUN: sed -n '/^fill8:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=FILL8
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_IndependentInstructionsFillTheWindow).
// Off-by-one guard: independent instructions count one wait state each.
// MFMA 16x16x16 f16 -> buffer_store_dwordx4 of its result needs 7 wait states
// on gfx942 (2.1, "NumPasses+3: 4-pass ... 7"); `fill` independent v_add_u32
// (v100.. = v200 + v201) in between leave 7 - fill, as one s_nop (6 - fill),
// and none from fill = 7 on. The C++ test loops fill = 0..8; here every case
// is a function fillN.
// Each RUN line cuts one function (from `NAME:` to the blank line after it) out
// of this file with sed and feeds it to kirc opt on standard input.
fill0:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

fill1:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  v_add_u32 v100, v200, v201
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

fill2:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  v_add_u32 v100, v200, v201
  v_add_u32 v101, v200, v201
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

fill3:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  v_add_u32 v100, v200, v201
  v_add_u32 v101, v200, v201
  v_add_u32 v102, v200, v201
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

fill4:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  v_add_u32 v100, v200, v201
  v_add_u32 v101, v200, v201
  v_add_u32 v102, v200, v201
  v_add_u32 v103, v200, v201
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

fill5:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  v_add_u32 v100, v200, v201
  v_add_u32 v101, v200, v201
  v_add_u32 v102, v200, v201
  v_add_u32 v103, v200, v201
  v_add_u32 v104, v200, v201
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

fill6:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  v_add_u32 v100, v200, v201
  v_add_u32 v101, v200, v201
  v_add_u32 v102, v200, v201
  v_add_u32 v103, v200, v201
  v_add_u32 v104, v200, v201
  v_add_u32 v105, v200, v201
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

fill7:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  v_add_u32 v100, v200, v201
  v_add_u32 v101, v200, v201
  v_add_u32 v102, v200, v201
  v_add_u32 v103, v200, v201
  v_add_u32 v104, v200, v201
  v_add_u32 v105, v200, v201
  v_add_u32 v106, v200, v201
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

fill8:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  v_add_u32 v100, v200, v201
  v_add_u32 v101, v200, v201
  v_add_u32 v102, v200, v201
  v_add_u32 v103, v200, v201
  v_add_u32 v104, v200, v201
  v_add_u32 v105, v200, v201
  v_add_u32 v106, v200, v201
  v_add_u32 v107, v200, v201
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

// FILL0-LABEL: fill0:
// FILL0-NEXT: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// FILL0-NEXT: s_nop 6
// FILL0-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// FILL0-NEXT: s_endpgm
// FILL1-LABEL: fill1:
// FILL1-NEXT: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// FILL1-NEXT: v_add_u32 v100, v200, v201
// FILL1-NEXT: s_nop 5
// FILL1-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// FILL1-NEXT: s_endpgm
// FILL2-LABEL: fill2:
// FILL2-NEXT: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// FILL2-NEXT: v_add_u32 v100, v200, v201
// FILL2-NEXT: v_add_u32 v101, v200, v201
// FILL2-NEXT: s_nop 4
// FILL2-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// FILL2-NEXT: s_endpgm
// FILL3-LABEL: fill3:
// FILL3-NEXT: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// FILL3-NEXT: v_add_u32 v100, v200, v201
// FILL3-NEXT: v_add_u32 v101, v200, v201
// FILL3-NEXT: v_add_u32 v102, v200, v201
// FILL3-NEXT: s_nop 3
// FILL3-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// FILL3-NEXT: s_endpgm
// FILL4-LABEL: fill4:
// FILL4-NEXT: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// FILL4-NEXT: v_add_u32 v100, v200, v201
// FILL4-NEXT: v_add_u32 v101, v200, v201
// FILL4-NEXT: v_add_u32 v102, v200, v201
// FILL4-NEXT: v_add_u32 v103, v200, v201
// FILL4-NEXT: s_nop 2
// FILL4-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// FILL4-NEXT: s_endpgm
// FILL5-LABEL: fill5:
// FILL5-NEXT: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// FILL5-NEXT: v_add_u32 v100, v200, v201
// FILL5-NEXT: v_add_u32 v101, v200, v201
// FILL5-NEXT: v_add_u32 v102, v200, v201
// FILL5-NEXT: v_add_u32 v103, v200, v201
// FILL5-NEXT: v_add_u32 v104, v200, v201
// FILL5-NEXT: s_nop 1
// FILL5-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// FILL5-NEXT: s_endpgm
// FILL6-LABEL: fill6:
// FILL6-NEXT: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// FILL6-NEXT: v_add_u32 v100, v200, v201
// FILL6-NEXT: v_add_u32 v101, v200, v201
// FILL6-NEXT: v_add_u32 v102, v200, v201
// FILL6-NEXT: v_add_u32 v103, v200, v201
// FILL6-NEXT: v_add_u32 v104, v200, v201
// FILL6-NEXT: v_add_u32 v105, v200, v201
// FILL6-NEXT: s_nop 0
// FILL6-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// FILL6-NEXT: s_endpgm
// FILL7-LABEL: fill7:
// FILL7-NEXT: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// FILL7-NEXT: v_add_u32 v100, v200, v201
// FILL7-NEXT: v_add_u32 v101, v200, v201
// FILL7-NEXT: v_add_u32 v102, v200, v201
// FILL7-NEXT: v_add_u32 v103, v200, v201
// FILL7-NEXT: v_add_u32 v104, v200, v201
// FILL7-NEXT: v_add_u32 v105, v200, v201
// FILL7-NEXT: v_add_u32 v106, v200, v201
// FILL7-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// FILL7-NEXT: s_endpgm
// FILL8-LABEL: fill8:
// FILL8-NEXT: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// FILL8-NEXT: v_add_u32 v100, v200, v201
// FILL8-NEXT: v_add_u32 v101, v200, v201
// FILL8-NEXT: v_add_u32 v102, v200, v201
// FILL8-NEXT: v_add_u32 v103, v200, v201
// FILL8-NEXT: v_add_u32 v104, v200, v201
// FILL8-NEXT: v_add_u32 v105, v200, v201
// FILL8-NEXT: v_add_u32 v106, v200, v201
// FILL8-NEXT: v_add_u32 v107, v200, v201
// FILL8-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// FILL8-NEXT: s_endpgm
