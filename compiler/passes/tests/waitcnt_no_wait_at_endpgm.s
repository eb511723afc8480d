// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_NoWaitAtEndpgm).
// Outstanding loads and stores (VMEM and LDS) at s_endpgm: no wait.
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  buffer_store_dword v2, v90, s[0:3], 0 offen
  ds_write_b32 v91, v3
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: ds_write_b32 v91, v3
// GFX942-NEXT: s_endpgm
