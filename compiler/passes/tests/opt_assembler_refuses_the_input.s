// RUN: printf 'k:\n  v_mov_b32 v1\n  s_endpgm\n' | not kirc opt - --mcpu=gfx942 --run-pass=hazards 2>&1 | FileCheck %s --check-prefix=FEW
// RUN: printf 'k:\n  v_mov_b32 v1, v2, v3\n  s_endpgm\n' | not kirc opt - --mcpu=gfx942 --run-pass=hazards 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: printf 'k:\n  s_cbranch_scc1 .L1\n.L1:\n.L1:\n  s_endpgm\n' | not kirc opt - --mcpu=gfx942 --run-pass=hazards 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: printf 'k:\n  v_mfma_f32_16x16x16f16 v[16:19], v[0:1], v[2:3], v[16:19]\n  s_endpgm\n' | not kirc opt - --mcpu=gfx908 --run-pass=hazards 2>&1 | FileCheck %s --check-prefix=GFX908-VGPR-MFMA
// RUN: printf 'k:\n  v_accvgpr_read_b32 v1, v2\n  s_endpgm\n' | not kirc opt - --mcpu=gfx90a --run-pass=hazards 2>&1 | FileCheck %s --check-prefix=CLASS
// RUN: printf 'k:\n  v_mov_b32 v1, 0x1ffffffff\n  s_endpgm\n' | not kirc opt - --mcpu=gfx942 --run-pass=hazards 2>&1 | FileCheck %s --check-prefix=WIDE-LITERAL
// RUN: printf 'k:\n  buffer_load_dword v2, v0, s[4:7], 0 offen offset:4096\n  s_endpgm\n' | not kirc opt - --mcpu=gfx942 --run-pass=waitcnt 2>&1 | FileCheck %s --check-prefix=MUBUF-OFFSET
// Assembly kirc opt must refuse, found by a review that fed it hand-edited
// text: the emulator's reader alone accepted each of these and the passes
// printed them back (the literal silently became -1). Now LLVM 22's assembler
// (in process) checks assembly input first and its diagnostic names line and
// column; a MUBUF offset past 12 bits, which llvm-mc 22 accepts and encodes as
// 0, is the MIR verifier's (encoding.h's kMubufMaxOffset).
k:
  s_endpgm
// FEW: <stdin>:2:3: error: too few operands for instruction
// EXTRA: <stdin>:2:21: error: invalid operand for instruction
// TWICE: <stdin>:4:1: error: symbol '.L1' is already defined
// GFX908-VGPR-MFMA: <stdin>:2:3: error: operands are not valid for this GPU or mode
// CLASS: <stdin>:2:26: error: invalid operand for instruction
// WIDE-LITERAL: <stdin>:2:17: error: invalid operand for instruction
// MUBUF-OFFSET: kirc: <stdin>: the MIR read from the input is malformed: 1 problem(s) in the MIR: instruction 0 `buffer_load_dword v2, v0, s[4:7], 0 offen offset:4096`: MUBUF offset 4096 is outside 0..4095 (12 bits): add the rest to soffset or vaddr
