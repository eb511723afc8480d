// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass8_WawOnPendingLoadDestination).
// Failure class 8: a load into a register a pending load also writes (d16 and
// d16_hi halves of v1) waits for it (WAW): vmcnt(0); then vmcnt(0) again
// before the use. (The C++ test's soffset of the d16_hi load is the constant
// 2.)
k:
  buffer_load_short_d16 v1, v90, s[0:3], 0 offen
  buffer_load_short_d16_hi v1, v90, s[0:3], 2 offen
  v_add_u32 v80, v1, v81
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_short_d16 v1, v90, s[0:3], 0 offen
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: buffer_load_short_d16_hi v1, v90, s[0:3], 2 offen
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: v_add_u32 v80, v1, v81
// GFX942-NEXT: s_endpgm
