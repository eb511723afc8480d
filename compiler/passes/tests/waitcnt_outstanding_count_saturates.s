// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_OutstandingCountSaturates).
// Saturation itself: 100 stores issued in a row keep at most vmcnt_max (63)
// outstanding in the model, and a load older than all of them waits for
// vmcnt(62), the largest count that still completes it (the field's 63 means
// "do not wait"). The C++ test drives WaitcntState directly; here the same
// instructions go through the pass. Not ported: its check of the model's
// internal bounds (vm_ub - vm_lb == 63).
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  v_add_u32 v3, v1, v1
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: s_waitcnt vmcnt(62)
// GFX942-NEXT: v_add_u32 v3, v1, v1
// GFX942-NEXT: s_endpgm
