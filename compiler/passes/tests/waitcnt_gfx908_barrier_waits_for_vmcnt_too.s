// RUN: sed -n '/^ds_write:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx908 --run-pass=waitcnt | FileCheck %s --check-prefix=DSWRITE
// RUN: sed -n '/^store:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx908 --run-pass=waitcnt | FileCheck %s --check-prefix=STORE
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass9_Gfx908BarrierWaitsForVmcntToo).
// gfx908 has no back-off barrier: s_barrier also waits for outstanding VMEM
// ops (3, "gfx90a and later have back-off barriers", so gfx908 does not):
// vmcnt(0) lgkmcnt(0) after a store and a ds_write, vmcnt(0) after a store.
// Each RUN line cuts one function (from `NAME:` to the blank line after it) out
// of this file with sed and feeds it to kirc opt on standard input.
ds_write:
  buffer_store_dword v3, v90, s[0:3], 0 offen
  ds_write_b32 v91, v1
  s_barrier
  s_endpgm

store:
  buffer_store_dword v3, v90, s[0:3], 0 offen
  s_barrier
  s_endpgm

// DSWRITE-LABEL: ds_write:
// DSWRITE-NEXT: buffer_store_dword v3, v90, s[0:3], 0 offen
// DSWRITE-NEXT: ds_write_b32 v91, v1
// DSWRITE-NEXT: s_waitcnt vmcnt(0) lgkmcnt(0)
// DSWRITE-NEXT: s_barrier
// DSWRITE-NEXT: s_endpgm
// STORE-LABEL: store:
// STORE-NEXT: buffer_store_dword v3, v90, s[0:3], 0 offen
// STORE-NEXT: s_waitcnt vmcnt(0)
// STORE-NEXT: s_barrier
// STORE-NEXT: s_endpgm
