#!/bin/bash
# The analyze tool's exit status (compiler/bench/analyze_main.cc,
# docs/tests.md "The main loop of any code object (analyze)"):
# 0 with the report on standard output; 2 for every error (usage, an
# unreadable or refused file, a kernel that is not there), the reason on
# standard error.
# Usage: analyze_cli_test.sh ANALYZE
set -u
analyze=$1
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/analyze_cli.XXXXXX")
fail=0

# expect STATUS TEXT ARGS...: runs analyze with ARGS; the exit status must be
# STATUS and TEXT must appear in its standard output or error.
expect() {
  local want=$1 text=$2
  shift 2
  local out status
  out=$("$analyze" "$@" 2>&1)
  status=$?
  if [[ $status -ne $want ]]; then
    echo "FAIL: analyze $*: exit status $status, want $want; output: $out"
    fail=1
  elif [[ $out != *"$text"* ]]; then
    echo "FAIL: analyze $*: no '$text' in: $out"
    fail=1
  fi
}

cat > "$dir/fn.s" <<'ASM'
  .text
  .globl k
  .p2align 8
  .type k,@function
k:
.L1:
  v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
  s_sub_u32 s0, s0, 1
  s_cbranch_scc1 .L1
  s_endpgm
.Lend:
  .size k, .Lend-k
ASM
printf '__CLANG_OFFLOAD_BUNDLE__' > "$dir/g.hipfb"
printf 'junk' > "$dir/junk.hsaco"
# An x86-64 ELF64 header: magic, class 2, little-endian, e_machine 62.
{ printf '\177ELF\002\001\001'; head -c 11 /dev/zero; printf '\076'; head -c 45 /dev/zero; } > "$dir/x86.elf"

expect 0 "MFMAs per trip: 1" "$dir/fn.s" --mcpu=gfx942 --kernel=k
expect 2 "usage: analyze"
expect 2 "usage: analyze" "$dir/fn.s"
expect 2 "usage: analyze" "$dir/fn.s" --mcpu=gfx942 --bogus
expect 2 "analyze: " "$dir/missing.s" --mcpu=gfx942
expect 2 "g.hipfb: a clang offload bundle" "$dir/g.hipfb" --mcpu=gfx942
expect 2 "junk.hsaco: not an ELF object" "$dir/junk.hsaco" --mcpu=gfx942
expect 2 "x86.elf: not an AMDGPU ELF64 object: e_machine 62" "$dir/x86.elf" --mcpu=gfx942
expect 2 "no kernel in the metadata notes: give --kernel=NAME" "$dir/fn.s" --mcpu=gfx942
expect 2 "nosuch" "$dir/fn.s" --mcpu=gfx942 --kernel=nosuch
expect 2 "fn.s: " "$dir/fn.s" --mcpu=gfx1100 --kernel=k

rm -rf "$dir"
if [[ $fail -ne 0 ]]; then exit 1; fi
echo PASS
