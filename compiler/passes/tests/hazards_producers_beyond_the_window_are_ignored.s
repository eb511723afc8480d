// RUN: sed -n '/^fill19:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=FILL19
// RUN: sed -n '/^fill18:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=FILL18
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_ProducersBeyondTheWindowAreIgnored).
// gfx90a: a 32x32x8 f16 MFMA's result read by a VALU needs 19 wait states (2.1,
// "XDL MFMA writes -> VALU reads ... | 32x32: 19"). After 19 independent
// v_add_u32 the MFMA is out of the window: no s_nop at all; after 18, one
// s_nop 0 (19 - 18 = 1) right before the reader.
// Each RUN line cuts one function (from `NAME:` to the blank line after it) out
// of this file with sed and feeds it to kirc opt on standard input.
fill19:
  v_mfma_f32_32x32x8f16 v[16:31], v[0:1], v[2:3], v[16:31]
  v_add_u32 v100, v200, v201
  v_add_u32 v101, v200, v201
  v_add_u32 v102, v200, v201
  v_add_u32 v103, v200, v201
  v_add_u32 v104, v200, v201
  v_add_u32 v105, v200, v201
  v_add_u32 v106, v200, v201
  v_add_u32 v107, v200, v201
  v_add_u32 v108, v200, v201
  v_add_u32 v109, v200, v201
  v_add_u32 v110, v200, v201
  v_add_u32 v111, v200, v201
  v_add_u32 v112, v200, v201
  v_add_u32 v113, v200, v201
  v_add_u32 v114, v200, v201
  v_add_u32 v115, v200, v201
  v_add_u32 v116, v200, v201
  v_add_u32 v117, v200, v201
  v_add_u32 v118, v200, v201
  v_add_u32 v50, v17, v51
  s_endpgm

fill18:
  v_mfma_f32_32x32x8f16 v[16:31], v[0:1], v[2:3], v[16:31]
  v_add_u32 v100, v200, v201
  v_add_u32 v101, v200, v201
  v_add_u32 v102, v200, v201
  v_add_u32 v103, v200, v201
  v_add_u32 v104, v200, v201
  v_add_u32 v105, v200, v201
  v_add_u32 v106, v200, v201
  v_add_u32 v107, v200, v201
  v_add_u32 v108, v200, v201
  v_add_u32 v109, v200, v201
  v_add_u32 v110, v200, v201
  v_add_u32 v111, v200, v201
  v_add_u32 v112, v200, v201
  v_add_u32 v113, v200, v201
  v_add_u32 v114, v200, v201
  v_add_u32 v115, v200, v201
  v_add_u32 v116, v200, v201
  v_add_u32 v117, v200, v201
  v_add_u32 v50, v17, v51
  s_endpgm

// FILL19-LABEL: fill19:
// FILL19-NEXT: v_mfma_f32_32x32x8f16 v[16:31], v[0:1], v[2:3], v[16:31]
// FILL19-NEXT: v_add_u32 v100, v200, v201
// FILL19-NEXT: v_add_u32 v101, v200, v201
// FILL19-NEXT: v_add_u32 v102, v200, v201
// FILL19-NEXT: v_add_u32 v103, v200, v201
// FILL19-NEXT: v_add_u32 v104, v200, v201
// FILL19-NEXT: v_add_u32 v105, v200, v201
// FILL19-NEXT: v_add_u32 v106, v200, v201
// FILL19-NEXT: v_add_u32 v107, v200, v201
// FILL19-NEXT: v_add_u32 v108, v200, v201
// FILL19-NEXT: v_add_u32 v109, v200, v201
// FILL19-NEXT: v_add_u32 v110, v200, v201
// FILL19-NEXT: v_add_u32 v111, v200, v201
// FILL19-NEXT: v_add_u32 v112, v200, v201
// FILL19-NEXT: v_add_u32 v113, v200, v201
// FILL19-NEXT: v_add_u32 v114, v200, v201
// FILL19-NEXT: v_add_u32 v115, v200, v201
// FILL19-NEXT: v_add_u32 v116, v200, v201
// FILL19-NEXT: v_add_u32 v117, v200, v201
// FILL19-NEXT: v_add_u32 v118, v200, v201
// FILL19-NEXT: v_add_u32 v50, v17, v51
// FILL19-NEXT: s_endpgm
// FILL18-LABEL: fill18:
// FILL18-NEXT: v_mfma_f32_32x32x8f16 v[16:31], v[0:1], v[2:3], v[16:31]
// FILL18-NEXT: v_add_u32 v100, v200, v201
// FILL18-NEXT: v_add_u32 v101, v200, v201
// FILL18-NEXT: v_add_u32 v102, v200, v201
// FILL18-NEXT: v_add_u32 v103, v200, v201
// FILL18-NEXT: v_add_u32 v104, v200, v201
// FILL18-NEXT: v_add_u32 v105, v200, v201
// FILL18-NEXT: v_add_u32 v106, v200, v201
// FILL18-NEXT: v_add_u32 v107, v200, v201
// FILL18-NEXT: v_add_u32 v108, v200, v201
// FILL18-NEXT: v_add_u32 v109, v200, v201
// FILL18-NEXT: v_add_u32 v110, v200, v201
// FILL18-NEXT: v_add_u32 v111, v200, v201
// FILL18-NEXT: v_add_u32 v112, v200, v201
// FILL18-NEXT: v_add_u32 v113, v200, v201
// FILL18-NEXT: v_add_u32 v114, v200, v201
// FILL18-NEXT: v_add_u32 v115, v200, v201
// FILL18-NEXT: v_add_u32 v116, v200, v201
// FILL18-NEXT: v_add_u32 v117, v200, v201
// FILL18-NEXT: s_nop 0
// FILL18-NEXT: v_add_u32 v50, v17, v51
// FILL18-NEXT: s_endpgm
