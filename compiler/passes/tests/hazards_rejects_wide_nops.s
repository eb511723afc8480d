// RUN: not kirc opt %s --mcpu=gfx942 --run-pass=hazards 2>&1 | FileCheck %s
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.RejectsVirtualRegistersAndWideNops).
// An s_nop whose immediate does not fit its 4 bits (s_nop 16: the hardware
// would read 0, one wait state) is refused. The C++ test calls the pass
// directly and expects InvalidArgument from it ("hazard pass: instruction 0
// is an s_nop without an immediate in 0..15 ..."); through kirc opt the
// input's MIR verifier refuses it first, so the diagnostic checked here is the
// verifier's. Not ported: the virtual-register half of the test (assembly
// has no virtual registers).
k:
  s_nop 16
  s_endpgm

// CHECK: kirc: {{.*}}hazards_rejects_wide_nops.s: the MIR read from the input is malformed: 1 problem(s) in the MIR: instruction 0 `s_nop 16`: s_nop needs one immediate in 0..15
