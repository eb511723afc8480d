// RUN: sed -n '/^text:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=TEXT
// RUN: sed -n '/^lgkm16:/,/^$/p' %s | not kirc opt /dev/stdin --mcpu=gfx942 --run-pass=waitcnt 2>&1 | FileCheck %s --check-prefix=LGKM16
// RUN: sed -n '/^vm64:/,/^$/p' %s | not kirc opt /dev/stdin --mcpu=gfx942 --run-pass=waitcnt 2>&1 | FileCheck %s --check-prefix=VM64
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_EncodingAndText).
// s_waitcnt text and encoding (3, "Encoding [mc19]: s_waitcnt vmcnt(0) =
// ... (simm16 0x0F70). A counter that is not named is encoded at its maximum,
// which means don't wait"; "Values out of range are errors ("too large value
// for lgkmcnt")"). What assembly can express of the C++ test:
// - text: vmcnt(0) lgkmcnt(0), vmcnt(3), lgkmcnt(2) print as such (a counter
//   that does not wait is not named);
// - encoding, read back: simm16 0x0F70 is vmcnt(0); 0x4071 is vmcnt(17)
//   lgkmcnt(0) (17 = 0b01'0001: low 1, high 1); vmcnt(63) lgkmcnt(15) is
//   valid;
// - lgkmcnt(16) and vmcnt(64) are refused. The C++ test expects
//   InvalidArgument from the pass; here the assembly reader refuses them
//   first, and its diagnostic is the one checked.
// Not ported: WaitcntSimm16 (the encoder itself), MakeWaitcnt's id, and the
// virtual-register input (assembly has no virtual registers).
// Each RUN line cuts one function (from `NAME:` to the blank line after it) out
// of this file with sed and feeds it to kirc opt on standard input.
text:
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_waitcnt vmcnt(3)
  s_waitcnt lgkmcnt(2)
  s_waitcnt 0xf70
  s_waitcnt 0x4071
  s_waitcnt vmcnt(63) lgkmcnt(15)
  s_endpgm

lgkm16:
  s_waitcnt vmcnt(0) lgkmcnt(16)
  s_endpgm

vm64:
  s_waitcnt vmcnt(64) lgkmcnt(0)
  s_endpgm

// TEXT-LABEL: text:
// TEXT-NEXT: s_waitcnt vmcnt(0) lgkmcnt(0)
// TEXT-NEXT: s_waitcnt vmcnt(3)
// TEXT-NEXT: s_waitcnt lgkmcnt(2)
// TEXT-NEXT: s_waitcnt vmcnt(0)
// TEXT-NEXT: s_waitcnt vmcnt(17) lgkmcnt(0)
// TEXT-NEXT: s_waitcnt vmcnt(63){{.*}} lgkmcnt(15)
// TEXT-NEXT: s_endpgm
// LGKM16: /dev/stdin:2:30: error: too large value for lgkmcnt
// VM64: /dev/stdin:2:19: error: too large value for vmcnt
