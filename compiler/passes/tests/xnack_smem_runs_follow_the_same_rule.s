// RUN: sed -n '/^ok:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx908 --run-pass=xnack-clauses | FileCheck %s --check-prefix=OK
// RUN: sed -n '/^ok:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx90a --run-pass=xnack-clauses | FileCheck %s --check-prefix=OK
// RUN: sed -n '/^ok:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=xnack-clauses | FileCheck %s --check-prefix=OK
// RUN: sed -n '/^bad:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx908 --run-pass=xnack-clauses | FileCheck %s --check-prefix=BAD
// RUN: sed -n '/^bad:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx90a --run-pass=xnack-clauses | FileCheck %s --check-prefix=BAD
// RUN: sed -n '/^bad:/,/^$/p' %s | kirc opt /dev/stdin --mcpu=gfx942 --run-pass=xnack-clauses | FileCheck %s --check-prefix=BAD
// The soft-clause rule of LLVM's GCNHazardRecognizer::checkSoftClauseHazards,
// applied by hand to small instruction runs: which ones need an `s_nop 0`
// (ported from compiler/passes/xnack_clauses_test.cc, XnackClauses.SmemRunsFollowTheSameRule).
// kirc's prologue shape (every load reads the kernarg pointer s[0:1]) is fine;
// overwriting s[0:1] inside the run is not: s_nop 0.
// The pass does not depend on the target (the C++ test gives none): it runs
// for each.
// Each RUN line cuts one function (from `NAME:` to the blank line after it) out
// of this file with sed and feeds it to kirc opt on standard input.
ok:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s6, s[0:1], 0x8
  s_endpgm

bad:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dwordx2 s[0:1], s[0:1], 0x8
  s_endpgm

// OK-LABEL: ok:
// OK-NEXT: s_load_dwordx2 s[4:5], s[0:1], 0x0
// OK-NEXT: s_load_dword s6, s[0:1], 0x8
// OK-NEXT: s_endpgm
// BAD-LABEL: bad:
// BAD-NEXT: s_load_dwordx2 s[4:5], s[0:1], 0x0
// BAD-NEXT: s_nop 0
// BAD-NEXT: s_load_dwordx2 s[0:1], s[0:1], 0x8
// BAD-NEXT: s_endpgm
