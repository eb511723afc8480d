// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt,hazards | FileCheck %s
// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt,hazards | ${KIRC_LLVM_BIN:-/usr/lib/llvm-22/bin}/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -o /dev/null
// global_* instructions print their 64-bit VGPR address and `off` in
// llvm-mc's order (loads: vdst, vaddr, off; stores: vaddr, vdata, off). Found
// by a review: the printer treated vaddr as a MUBUF vaddr and printed `off`
// in its place, dropping the address (llvm-mc then refused the output). The
// store's data v[4:5] waits for the load, the older of two outstanding
// (vmcnt(1)).
k:
  global_load_dwordx2 v[4:5], v[0:1], off offset:16
  global_store_dword v[2:3], v6, off
  global_store_dwordx2 v[2:3], v[4:5], off offset:8
  s_endpgm

// CHECK: global_load_dwordx2 v[4:5], v[0:1], off offset:16
// CHECK-NEXT: global_store_dword v[2:3], v6, off
// CHECK-NEXT: s_waitcnt vmcnt(1)
// CHECK-NEXT: global_store_dwordx2 v[2:3], v[4:5], off offset:8
// CHECK-NEXT: s_endpgm
