// RUN: kirc opt %s --mcpu=gfx950 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX950
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 and the run rule of compiler/passes/waitcnt.h: a global-to-LDS
// copy, three loads then a ds_write of each, with an MFMA that waits for no
// load and a SALU instruction between the writes. Each write alone would
// wait for vmcnt(2), vmcnt(1), vmcnt(0); the run gets one vmcnt(0) before
// its first write (the loads complete in issue order). The VALU that reads
// the fifth load (v16) ends the second run, so that run waits for vmcnt(1)
// only; the VALU waits for its own load, vmcnt(0), and
// the write after it, of the third run, needs none.
k:
  buffer_load_dwordx4 v[0:3], v90, s[0:3], 0 offen
  buffer_load_dwordx4 v[4:7], v90, s[0:3], 0 offen
  buffer_load_dwordx4 v[8:11], v90, s[0:3], 0 offen
  ds_write_b128 v91, v[0:3]
  v_mfma_f32_32x32x16_f16 a[0:15], v[20:23], v[24:27], a[0:15]
  ds_write_b128 v91, v[4:7] offset:4096
  s_add_u32 s10, s10, 1
  ds_write_b128 v91, v[8:11] offset:8192
  buffer_load_dwordx4 v[12:15], v90, s[0:3], 0 offen
  buffer_load_dword v16, v90, s[0:3], 0 offen
  ds_write_b128 v91, v[12:15] offset:12288
  v_add_u32 v80, v16, v81
  ds_write_b128 v91, v[12:15] offset:16384
  s_endpgm

// GFX950-LABEL: k:
// GFX950-NEXT: buffer_load_dwordx4 v[0:3], v90, s[0:3], 0 offen
// GFX950-NEXT: buffer_load_dwordx4 v[4:7], v90, s[0:3], 0 offen
// GFX950-NEXT: buffer_load_dwordx4 v[8:11], v90, s[0:3], 0 offen
// GFX950-NEXT: s_waitcnt vmcnt(0)
// GFX950-NEXT: ds_write_b128 v91, v[0:3]
// GFX950-NEXT: v_mfma_f32_32x32x16_f16 a[0:15], v[20:23], v[24:27], a[0:15]
// GFX950-NEXT: ds_write_b128 v91, v[4:7] offset:4096
// GFX950-NEXT: s_add_u32 s10, s10, 1
// GFX950-NEXT: ds_write_b128 v91, v[8:11] offset:8192
// GFX950-NEXT: buffer_load_dwordx4 v[12:15], v90, s[0:3], 0 offen
// GFX950-NEXT: buffer_load_dword v16, v90, s[0:3], 0 offen
// GFX950-NEXT: s_waitcnt vmcnt(1)
// GFX950-NEXT: ds_write_b128 v91, v[12:15] offset:12288
// GFX950-NEXT: s_waitcnt vmcnt(0)
// GFX950-NEXT: v_add_u32 v80, v16, v81
// GFX950-NEXT: ds_write_b128 v91, v[12:15] offset:16384
// GFX950-NEXT: s_endpgm
