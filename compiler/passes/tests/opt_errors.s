// RUN: not kirc opt %s --mcpu=gfx942 --run-pass=lower 2>&1 | FileCheck %s --check-prefix=KIR-PASS
// RUN: not kirc opt %s --mcpu=gfx942 --run-pass=nosuchpass 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kirc opt %s --run-pass=hazards 2>&1 | FileCheck %s --check-prefix=NO-MCPU
// RUN: not kirc opt %s --mcpu=gfx942 --run-pass=hazards,waitcnt -o %s.nonexistent-dir/out.s 2>&1 | FileCheck %s --check-prefix=NO-OUT
// kirc opt's refusals, each with its exact diagnostic.
k:
  s_endpgm
// KIR-PASS: kirc: pass 'lower' works on KIR or on the whole kernel; kirc opt reads MIR or assembly and runs schedule, ds-pairing, regalloc, waitcnt, hazards, xnack-clauses (use kirc compile --print-after=lower to see it)
// UNKNOWN: kirc: unknown pass 'nosuchpass': kirc opt runs schedule, ds-pairing, regalloc, waitcnt, hazards, xnack-clauses
// NO-MCPU: kirc: opt needs --mcpu=TARGET: the passes' rules depend on the target
// NO-OUT: kirc: cannot write
