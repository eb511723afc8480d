// RUN: not kirc opt %s --mcpu=gfx942 --run-pass=regalloc 2>&1 | FileCheck %s --check-prefix=PRE-RA
// RUN: not kirc opt %s --mcpu=gfx942 --run-pass=nosuchpass 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kirc opt %s --run-pass=hazards 2>&1 | FileCheck %s --check-prefix=NO-MCPU
// RUN: not kirc opt %s --mcpu=gfx942 --run-pass=hazards,waitcnt -o %s.nonexistent-dir/out.s 2>&1 | FileCheck %s --check-prefix=NO-OUT
// kirc opt's refusals, each with its exact diagnostic.
k:
  s_endpgm
// PRE-RA: kirc: pass 'regalloc' works on KIR or on virtual registers; kirc opt reads assembly on physical registers and runs waitcnt, hazards, xnack-clauses (use kirc compile --print-after=regalloc to see it)
// UNKNOWN: kirc: unknown pass 'nosuchpass': kirc opt runs waitcnt, hazards, xnack-clauses
// NO-MCPU: kirc: opt needs --mcpu=TARGET: the passes' rules depend on the target
// NO-OUT: kirc: cannot write
