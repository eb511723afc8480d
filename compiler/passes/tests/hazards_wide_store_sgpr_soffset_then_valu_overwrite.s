// RUN: sed -n '/^straight:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=STRAIGHT942
// RUN: sed -n '/^straight:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=STRAIGHT
// RUN: sed -n '/^straight:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx908 --run-pass=hazards | FileCheck %s --check-prefix=STRAIGHT
// RUN: sed -n '/^loop:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=LOOP
// RUN: sed -n '/^join:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=JOIN
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_WideStoreSgprSoffsetThenValuOverwrite).
// Issue 13, defect 5: buffer_store_dwordx4 with an SGPR soffset directly
// followed by a VALU that overwrites its data needs 1 wait state on gfx942
// (LLVM PR #197267), none on gfx908/gfx90a; and the same when the VALU is
// the first instruction of a successor block, here the loop header reached
// through the back edge and the fall-through block after the loop (LLVM
// #202333, fixed by #203770). (2.3, "buffer_store_dwordx3/x4 ... -> VALU
// overwrites the store-data VGPRs", and its erratum.)
// loop: the branch itself issues one wait state, which covers the rule on
// both edges: no s_nop. join: the store ends its block without a branch and
// falls through to .L2, whose v_mov_b32 overwrites v8: s_nop 0 there.
// Each RUN line cuts one function (from `NAME:` to the blank line after it) out
// of this file with sed and feeds it to kirc opt on standard input.
straight:
  buffer_store_dwordx4 v[6:9], v0, s[4:7], s1 offen
  v_add_f32 v6, v10, v11
  s_endpgm

loop:
.L0:
  v_add_f32 v7, v10, v11
  s_cmp_lt_u32 s10, 4
  buffer_store_dwordx4 v[6:9], v0, s[4:7], s1 offen
  s_cbranch_scc1 .L0
  v_mov_b32 v8, 0
  s_endpgm

join:
.L0:
  v_add_f32 v7, v10, v11
  s_cmp_lt_u32 s10, 4
  s_cbranch_scc1 .L2
  buffer_store_dwordx4 v[6:9], v0, s[4:7], s1 offen
.L2:
  v_mov_b32 v8, 0
  s_cmp_lt_u32 s11, 4
  s_cbranch_scc1 .L0
  s_endpgm

// STRAIGHT942-LABEL: straight:
// STRAIGHT942-NEXT: buffer_store_dwordx4 v[6:9], v0, s[4:7], s1 offen
// STRAIGHT942-NEXT: s_nop 0
// STRAIGHT942-NEXT: v_add_f32 v6, v10, v11
// STRAIGHT942-NEXT: s_endpgm
// STRAIGHT-LABEL: straight:
// STRAIGHT-NEXT: buffer_store_dwordx4 v[6:9], v0, s[4:7], s1 offen
// STRAIGHT-NEXT: v_add_f32 v6, v10, v11
// STRAIGHT-NEXT: s_endpgm
// LOOP-LABEL: loop:
// LOOP-NEXT: .L0:
// LOOP-NEXT: v_add_f32 v7, v10, v11
// LOOP-NEXT: s_cmp_lt_u32 s10, 4
// LOOP-NEXT: buffer_store_dwordx4 v[6:9], v0, s[4:7], s1 offen
// LOOP-NEXT: s_cbranch_scc1 .L0
// LOOP-NEXT: v_mov_b32 v8, 0
// LOOP-NEXT: s_endpgm
// JOIN-LABEL: join:
// JOIN-NEXT: .L0:
// JOIN-NEXT: v_add_f32 v7, v10, v11
// JOIN-NEXT: s_cmp_lt_u32 s10, 4
// JOIN-NEXT: s_cbranch_scc1 .L2
// JOIN-NEXT: buffer_store_dwordx4 v[6:9], v0, s[4:7], s1 offen
// JOIN-NEXT: .L2:
// JOIN-NEXT: s_nop 0
// JOIN-NEXT: v_mov_b32 v8, 0
// JOIN-NEXT: s_cmp_lt_u32 s11, 4
// JOIN-NEXT: s_cbranch_scc1 .L0
// JOIN-NEXT: s_endpgm
