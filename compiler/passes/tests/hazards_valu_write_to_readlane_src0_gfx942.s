// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=GFX942
// RUN: kirc opt %s --mcpu=gfx90a --run-pass=hazards | FileCheck %s --check-prefix=NONE
// A VALU writes v1 and v_readlane reads it as src0: 1 wait state on gfx942
// (LLVM checkVALUHazards, hasVDecCoExecHazard: VALUWriteVGPRReadlaneRead = 1,
// for V_READLANE_B32 and V_READFIRSTLANE_B32 alike), none on gfx90a. Found by a
// review: v_readfirstlane got its s_nop 0, v_readlane did not.
k:
  v_mov_b32 v1, v9
  v_readlane_b32 s2, v1, 3
  s_endpgm

// GFX942: v_mov_b32 v1, v9
// GFX942-NEXT: s_nop 0
// GFX942-NEXT: v_readlane_b32 s2, v1, 3
// NONE: v_mov_b32 v1, v9
// NONE-NEXT: v_readlane_b32 s2, v1, 3
