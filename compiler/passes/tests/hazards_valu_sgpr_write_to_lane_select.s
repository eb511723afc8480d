// RUN: kirc opt %s --mcpu=gfx908 --run-pass=hazards | FileCheck %s
// RUN: kirc opt %s --mcpu=gfx90a --run-pass=hazards | FileCheck %s
// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s
// A VALU (v_readfirstlane) writes s3, then v_readlane and v_writelane take s3
// as their lane select: 4 wait states on every target (shared/docs/
// amdgcn-isa-notes.md 2.3, "VALU writes SGPR -> v_readlane/v_writelane lane
// select | 4 | 4 | 4", LLVM checkRWLaneHazards). Found by a review that wrote
// this sequence by hand: gfx908/gfx90a got no s_nop, gfx942 only s_nop 1 (from
// the VALU-SGPR-VALU rule). The v_writelane then comes 5 wait states after
// the v_readfirstlane (s_nop 3 and the v_readlane): nothing more.
k:
  v_readfirstlane_b32 s3, v1
  v_readlane_b32 s2, v4, s3
  v_writelane_b32 v5, 0, s3
  s_endpgm

// CHECK: v_readfirstlane_b32 s3, v1
// CHECK-NEXT: s_nop 3
// CHECK-NEXT: v_readlane_b32 s2, v4, s3
// CHECK-NEXT: v_writelane_b32 v5, 0, s3
// CHECK-NEXT: s_endpgm
