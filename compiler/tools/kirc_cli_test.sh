#!/usr/bin/env bash
# The kirc command as a user meets it: help, version, the main job, each
# --emit kind, relative paths under `bazel run`, and errors (message on
# stderr, non-zero exit, never a crash).
set -uo pipefail
kirc=$(realpath "$1"); kernels=$(realpath "$2"); foreign=$(realpath "$3")
cd "$TEST_TMPDIR"
fail() { echo "FAIL: $*"; exit 1; }
# grep that reads all of its input: `grep -q` exits at the first match, and
# under pipefail the writer then dies of SIGPIPE and the pipeline fails.
has() { grep "$@" >/dev/null; }

"$kirc" --help > help.txt || fail "--help exit $?"  # a file: grep -q in a pipe may SIGPIPE kirc
grep -q -- "--emit=KIND" help.txt || fail "--help lacks --emit"
"$kirc" --version | has "^kirc " || fail "--version"

# The main job: assembly of the built-in kernel plus a summary.
out=$("$kirc") || fail "main job exit $?"
echo "$out" | has "v_mfma_f32_16x16x16_f16" || fail "main job has no MFMA"
echo "$out" | has "// registers:" || fail "main job has no summary"

# Each --emit kind; relative paths resolve against BUILD_WORKING_DIRECTORY.
mkdir -p work && cp "$kernels"/copy_f32.kir work/
BUILD_WORKING_DIRECTORY="$TEST_TMPDIR/work" "$kirc" compile copy_f32.kir -o copy.s || fail "asm"
grep -q "buffer_load_dwordx4" work/copy.s || fail "copy.s lacks dwordx4"
BUILD_WORKING_DIRECTORY="$TEST_TMPDIR/work" "$kirc" compile copy_f32.kir --emit=obj || fail "obj"
head -c 4 work/copy_f32.hsaco | has "ELF" || fail "copy_f32.hsaco is not ELF"
"$kirc" compile work/copy_f32.kir --emit=mir | has "%v" || fail "mir has no virtual registers"
"$kirc" compile work/copy_f32.kir --emit=kir > canon.kir || fail "kir"
"$kirc" compile canon.kir --emit=kir | cmp -s - canon.kir || fail "canonical KIR is not a fixed point"
# The target line is the canonical target ID (features in alphabetical order).
"$kirc" compile work/copy_f32.kir --mcpu=gfx942:xnack-:sramecc+ --emit=kir > canon_id.kir || fail "kir with a target ID"
grep -qx "target gfx942:sramecc+:xnack-" canon_id.kir || fail "--emit=kir target line: $(grep '^target' canon_id.kir)"
"$kirc" compile work/copy_f32.kir --annotate | has "access op 0 load src elements 0,1,2,3" \
  || fail "--annotate lacks the access map"
# A tile-level gemm prints as its promoted thread-level KIR, which reads back as itself.
# (K = 1024: 32 K tiles of 32, the loop unrolled by two over the first 30.)
"$kirc" compile "$kernels"/gemm_f16_1024.kir --emit=kir > gemm.kir || fail "gemm kir"
grep -q "^workgroup 64 2 2$" gemm.kir && grep -q "for %k = 0 to 960 step 64" gemm.kir \
  && ! grep -q "gemm C" gemm.kir || fail "--emit=kir did not print the promoted gemm"
"$kirc" compile gemm.kir --emit=kir | cmp -s - gemm.kir || fail "promoted KIR is not a fixed point"

# Errors: stderr names the place, exit status 2 (1 is kept for a failed check:
# an address not proved, an output outside tolerance), nothing on stdout.
expect_error() {  # expected-substring, args...
  local want=$1; shift
  "$kirc" "$@" > stdout.txt 2> stderr.txt
  local st=$?
  [ $st -eq 2 ] || { cat stderr.txt; fail "exit $st (want 2) for: $*"; }
  grep -qF -- "$want" stderr.txt || { cat stderr.txt; fail "stderr lacks '$want' for: $*"; }
  [ ! -s stdout.txt ] || fail "stdout not empty for: $*"
}
grep -q "^  2  an error" help.txt || fail "--help lacks the exit statuses"
grep -q "KIRC_VERIFY_BACKSTOP_SECONDS" help.txt || fail "--help lacks the backstop variable"
# --version alone (issue 13: `kirc --version extra` printed the version and exited 0).
expect_error "--version takes no other arguments (found 'extra'): run \`kirc --version\` alone" --version extra
expect_error "--version takes no other arguments (found 'compile', 'work/copy_f32.kir')" compile work/copy_f32.kir --version
printf 'kernel k\nworkgroup 64 1 1\ngrid 1 1 1\n  %%v = lod A[0] : f32\nend\n' > bad.kir
expect_error "bad.kir:4:" compile bad.kir
expect_error "unknown target 'gfx1100'" compile work/copy_f32.kir --mcpu=gfx1100
expect_error "cannot read" compile missing.kir
expect_error "unknown option '--bogus'" compile work/copy_f32.kir --bogus
expect_error "--emit must be" compile work/copy_f32.kir --emit=exe
expect_error "does not exist on gfx908" compile "$kernels"/mma_16x16x16_bf16.kir --mcpu=gfx908
printf 'kernel k\nworkgroup auto\ngrid 1 1 1\n  barrier\nend\n' > auto.kir
expect_error "auto.kir:2:1: error: in 'workgroup': \`workgroup auto\` is only allowed" compile auto.kir --mcpu=gfx942
expect_error "/nonexistent (from the --llvm-bin flag) does not exist" compile work/copy_f32.kir --emit=obj --llvm-bin=/nonexistent
# The address verifier: `kirc verify` and `kirc compile --verify` (exit 0 only if
# every access is proved; with the assembly on stdout the report goes to stderr).
grep -q "kirc verify FILE.kir" help.txt || fail "--help lacks verify"
out=$("$kirc" verify work/copy_f32.kir --mcpu=gfx908) || fail "verify exit $?"
echo "$out" | has "verify: kernel copy_f32 on gfx908: 2 memory instructions, 2 proved" || fail "verify report: $out"
echo "$out" | has "verify: every address proved" || fail "verify summary"
"$kirc" compile work/copy_f32.kir --verify > verified.s 2> report.txt || fail "compile --verify exit $?"
grep -q "buffer_load_dwordx4" verified.s || fail "compile --verify: no assembly on stdout"
grep -q "every address proved" report.txt || fail "compile --verify: no report on stderr"
"$kirc" compile work/copy_f32.kir --verify -o verified2.s > report2.txt || fail "compile --verify -o exit $?"
grep -q "every address proved" report2.txt || fail "compile --verify -o: no report on stdout"
expect_error "verify needs a .kir file" verify
expect_error "does not exist on gfx908" verify "$kernels"/mma_16x16x16_bf16.kir --mcpu=gfx908
# The verifier's wall-clock backstop never decides a verdict (issue 13): with a
# 1 ms backstop (KIRC_VERIFY_BACKSTOP_SECONDS) the gemm's queries are stopped
# before their resource budget runs out, which is an error (exit 2) naming the
# query, never an `unknown` access.
export KIRC_VERIFY_BACKSTOP_SECONDS=0.001
expect_error "was stopped by the wall-clock backstop (0.001 s) before its resource budget ran out" \
  verify "$kernels"/gemm_f16_256.kir --mcpu=gfx90a
has "rerun on a less loaded machine" stderr.txt || fail "backstop: no advice: $(cat stderr.txt)"
has -i "unknown" stderr.txt && fail "backstop reported as unknown: $(cat stderr.txt)"
"$kirc" compile "$kernels"/gemm_f16_256.kir --mcpu=gfx90a --verify -o backstop.s > backstop_out.txt 2> backstop_err.txt
st=$?
[ $st -eq 2 ] || fail "compile --verify under a 1 ms backstop: exit $st (want 2): $(cat backstop_err.txt)"
has "stopped by the wall-clock backstop" backstop_err.txt || fail "compile --verify backstop: $(cat backstop_err.txt)"
has -i "unknown" backstop_out.txt backstop_err.txt && fail "compile --verify backstop reported unknown"
export KIRC_VERIFY_BACKSTOP_SECONDS=soon
expect_error "KIRC_VERIFY_BACKSTOP_SECONDS='soon' is not a number of seconds in (0, 1000000]" verify work/copy_f32.kir
unset KIRC_VERIFY_BACKSTOP_SECONDS

# kirc run --code-object: runs an existing code object (relative to
# BUILD_WORKING_DIRECTORY like every path) and refuses one of another kernel.
BUILD_WORKING_DIRECTORY="$TEST_TMPDIR/work" "$kirc" run copy_f32.kir --device=emu \
  --code-object=copy_f32.hsaco > run.txt || { cat run.txt; fail "run --code-object exit $?"; }
grep -q "code object $TEST_TMPDIR/work/copy_f32.hsaco (not recompiled)" run.txt || fail "run --code-object report"
grep -q "^PASS" run.txt || fail "run --code-object did not pass"
"$kirc" compile "$kernels"/add_f16.kir --emit=obj -o add.hsaco || fail "obj add_f16"
expect_error "it has no kernel 'copy_f32' (it has: add_f16)" run work/copy_f32.kir --device=emu --code-object=add.hsaco
# The HIP runtime is loaded only for a HIP device (hw/hip/hip_api.h): a missing
# one is named for --device=hip, and --device=auto falls back to the emulator.
KIRC_HIP_LIBRARY=/nonexistent/libamdhip64.so expect_error \
  "cannot load the HIP runtime /nonexistent/libamdhip64.so" run work/copy_f32.kir --device=hip
KIRC_HIP_LIBRARY=/nonexistent/libamdhip64.so "$kirc" run work/copy_f32.kir --device=auto > auto_run.txt 2>&1 ||
  { cat auto_run.txt; fail "--device=auto without a HIP runtime exit $?"; }
grep -q "^PASS" auto_run.txt || { cat auto_run.txt; fail "--device=auto without a HIP runtime did not pass"; }
expect_error "it is for gfx942, not gfx908" run work/copy_f32.kir --device=emu --mcpu=gfx908 --code-object=work/copy_f32.hsaco
expect_error "--code-object is an option of \`kirc run\`" compile work/copy_f32.kir --code-object=add.hsaco

# Issue 7: target IDs, several kernels in one code object, offload bundles.
llvm=/usr/lib/llvm-22/bin
# A code object whose descriptor allocates fewer SGPRs than its code uses
# (issue 13, defect 8): kirc's copy_f32 with .amdhsa_next_free_sgpr 1 gets 16
# SGPRs, 6 of them VCC, XNACK_MASK and FLAT_SCRATCH; its s[8:11] is refused.
"$kirc" compile work/copy_f32.kir -o sgpr1.s || fail "copy_f32 asm"
sed 's/^    \.amdhsa_next_free_sgpr .*/    .amdhsa_next_free_sgpr 1/' sgpr1.s > sgpr1_edit.s
has -x "    .amdhsa_next_free_sgpr 1" sgpr1_edit.s || fail "sgpr1: no next_free_sgpr to edit"
"$llvm"/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj sgpr1_edit.s -o sgpr1.o || fail "sgpr1 llvm-mc"
"$llvm"/ld.lld -shared sgpr1.o -o sgpr1.hsaco || fail "sgpr1 ld.lld"
# Code objects that are not: a device, a relocatable object, another
# machine's ELF (from a review: /dev/zero was read forever).
expect_error "code object /dev/zero: not a regular file" run work/copy_f32.kir --device=emu --code-object=/dev/zero
expect_error "/dev/zero: not a regular file" verify work/copy_f32.kir --mcpu=gfx942 --code-object=/dev/zero
expect_error "/dev/zero: not a regular file" verify work/copy_f32.kir --mcpu=gfx942 --asm=/dev/zero
expect_error "a relocatable object (ET_REL), not a linked code object: link it with ld.lld -shared" \
  run work/copy_f32.kir --device=emu --code-object=sgpr1.o
expect_error "not an AMDGPU code object (e_machine 62" run work/copy_f32.kir --device=emu --code-object="$kirc"
expect_error "is beyond the SGPRs the kernel descriptor allocates: compute_pgm_rsrc1 GRANULATED_WAVEFRONT_SGPR_COUNT 0 grants 16 SGPRs" \
  run work/copy_f32.kir --device=emu --code-object=sgpr1.hsaco
grep -qF "raise .amdhsa_next_free_sgpr to at least" stderr.txt || fail "sgpr1: no advice: $(cat stderr.txt)"
"$kirc" compile work/copy_f32.kir --mcpu=gfx90a:xnack- --emit=obj -o tid.hsaco || fail "target ID obj"
"$llvm"/llvm-readelf -h tid.hsaco | has "Flags: *0x63f, gfx90a, xnack-, sramecc$" || fail "target ID e_flags"
"$kirc" compile work/copy_f32.kir --mcpu=gfx942:xnack-:sramecc+ | has '^  .amdgcn_target "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"$' \
  || fail "target ID not canonical in .amdgcn_target"
expect_error "invalid target ID 'gfx90a:xnack'" compile work/copy_f32.kir --mcpu=gfx90a:xnack
# gfx950: EF_AMDGPU_MACH 0x04f | xnack off 0x200 | sramecc on 0xc00 (AMDGPUUsage).
"$kirc" compile work/copy_f32.kir --mcpu=gfx950:sramecc+:xnack- --emit=obj -o tid950.hsaco || fail "gfx950 obj"
"$llvm"/llvm-readelf -h tid950.hsaco | has "Flags: *0xe4f, gfx950, xnack-, sramecc[+]$" || fail "gfx950 e_flags"
# 160 KiB of LDS per workgroup on gfx950 (163840 bytes), 64 KiB elsewhere.
printf 'kernel big\ntarget gfx950\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[64] strides [1] readonly\narg y : f32[64] strides [1] writeonly\nlds T : f32[%s]\n  %%v = load x[tid.x] : f32\n  store T[tid.x * 640], %%v\n  barrier\n  %%t = load T[tid.x * 640] : f32\n  store y[tid.x], %%t\nend\n' 40960 > lds160k.kir
printf 'kernel big\ntarget gfx950\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[64] strides [1] readonly\narg y : f32[64] strides [1] writeonly\nlds T : f32[%s]\n  %%v = load x[tid.x] : f32\n  store T[tid.x * 640], %%v\n  barrier\n  %%t = load T[tid.x * 640] : f32\n  store y[tid.x], %%t\nend\n' 40964 > lds160k_over.kir
"$kirc" run lds160k.kir --device=emu > run_lds160k.txt 2>&1 || fail "160 KiB LDS on gfx950: exit $?: $(cat run_lds160k.txt)"
has -x "PASS: the output matches the KIR reference" run_lds160k.txt || fail "160 KiB LDS on gfx950: $(cat run_lds160k.txt)"
expect_error "more than the 65536 bytes a workgroup has on gfx942" compile lds160k.kir --mcpu=gfx942
expect_error "more than the 163840 bytes a workgroup has on gfx950" compile lds160k_over.kir --mcpu=gfx950
expect_error "feature 'xnack' appears more than once" compile work/copy_f32.kir --mcpu=gfx90a:xnack+:xnack-
"$kirc" compile work/copy_f32.kir "$kernels"/add_f16.kir --emit=obj -o mod.hsaco || fail "two-kernel obj"
[ "$("$llvm"/llvm-readelf --notes mod.hsaco | grep -cE '^    \.name: +(copy_f32|add_f16)$')" = 2 ] || fail "mod.hsaco lists both kernels"
expect_error "give -o PATH" compile work/copy_f32.kir "$kernels"/add_f16.kir --emit=obj
expect_error "kernel name 'copy_f32' is used by both" compile work/copy_f32.kir work/copy_f32.kir
sed 's/^target gfx942$/target gfx90a/' "$kernels"/add_f16.kir > add90.kir
expect_error "is for gfx942 and add90.kir for gfx90a" compile work/copy_f32.kir add90.kir
"$kirc" compile work/copy_f32.kir --mcpu=gfx90a:xnack-,gfx942:sramecc+:xnack- --emit=bundle -o copy.hipfb || fail "bundle"
head -c 24 copy.hipfb | has "__CLANG_OFFLOAD_BUNDLE__" || fail "bundle magic"
"$llvm"/clang-offload-bundler -list -type=o -input=copy.hipfb | has -x "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" || fail "bundle entries"
expect_error "several targets need --emit=bundle" compile work/copy_f32.kir --mcpu=gfx90a,gfx942 --emit=obj
expect_error "cannot share a bundle" compile work/copy_f32.kir --mcpu=gfx90a,gfx90a:xnack- --emit=bundle -o x.hipfb

# Loops of more than 2^24 iterations verify (the trip count is exact up to
# 2^32); kirc's own limit is 2^31 - 1 iterations, refused beyond with a reason.
loop_kir() {  # range -> a kernel summing x[tid.x] over `for %k = range`
  printf 'kernel e\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[64] strides [1] readonly\narg y : f32[64] strides [1] writeonly\n  %%z = zero f32\n  %%r = for %%k = %s iter(%%c = %%z) {\n    %%v = load x[tid.x] : f32\n    %%c2 = add %%c, %%v\n    yield %%c2\n  }\n  store y[tid.x], %%r\nend\n' "$1"
}
loop_kir "0 to 16777217 step 1" > loop_2p24.kir
out=$("$kirc" verify loop_2p24.kir) || fail "verify of a loop of 2^24 + 1 iterations exit $?: $out"
echo "$out" | has "): 16777217 iterations" || fail "verify: trip count 16777217 missing: $out"
echo "$out" | has "verify: every address proved" || fail "verify 2^24 + 1: $out"
loop_kir "0 to 2147483647 step 1" > loop_2p31m1.kir
out=$("$kirc" verify loop_2p31m1.kir) || fail "verify of a loop of 2^31 - 1 iterations exit $?: $out"
echo "$out" | has "): 2147483647 iterations" || fail "verify: trip count 2147483647 missing: $out"
loop_kir "0 to 2147483648 step 1" > loop_2p31.kir
expect_error "the loop runs 2147483648 times; kirc's loops run at most 2^31 - 1 = 2147483647 times" verify loop_2p31.kir
loop_kir "-2147483648 to 2147483648 step 1" > loop_2p32.kir
expect_error "the loop runs 4294967296 times" compile loop_2p32.kir
loop_kir "0 to 9000000000000000000 step 9000000000000000000" > loop_bigstep.kir  # one iteration
out=$("$kirc" verify loop_bigstep.kir) || fail "a step near 2^63 exit $?: $out"
echo "$out" | has "): 1 iterations" || fail "a step near 2^63: $out"

# File writes say why they fail and what to do; --dump creates its directory.
expect_error "cannot write '/nonexistent/dir/x.s': No such file or directory; the directory /nonexistent/dir does not exist: create it (mkdir -p /nonexistent/dir)" \
  compile work/copy_f32.kir -o /nonexistent/dir/x.s
expect_error "cannot write '/nonexistent/dir/x.hsaco': No such file or directory" \
  compile work/copy_f32.kir --emit=obj -o /nonexistent/dir/x.hsaco
expect_error "Is a directory; give a file name, not a directory" compile work/copy_f32.kir -o "$TEST_TMPDIR"
"$kirc" run work/copy_f32.kir --device=emu --dump=dumps/new/dir > dump_run.txt || fail "run --dump=new dir exit $?"
for f in src.in src.out src.ref dst.in dst.out dst.ref; do
  head -c 6 "dumps/new/dir/$f.npy" | has "NUMPY" || fail "--dump did not write dumps/new/dir/$f.npy"
done
expect_error "--dump: 'canon.kir' exists and is not a directory" run work/copy_f32.kir --device=emu --dump=canon.kir
# Exit 1 only for a failed check: here a numeric mismatch (the code object of
# copy_f32 run against a kernel of the same signature that doubles).
sed 's/^  store dst\[\(.*\)\], %v$/  %w = add %v, %v\n  store dst[\1], %w/' work/copy_f32.kir > double.kir
grep -q "%w = add %v, %v" double.kir || fail "double.kir was not made"
"$kirc" run double.kir --device=emu --code-object=work/copy_f32.hsaco > mismatch.txt 2>&1
st=$?
[ $st -eq 1 ] || { cat mismatch.txt; fail "a numeric mismatch exit $st (want 1)"; }
grep -q "FAIL" mismatch.txt || fail "mismatch report: $(cat mismatch.txt)"

# Values: a missing one is named with what it should be; a negative seed is refused.
seed_range="--seed needs an integer from 0 to 18446744073709551615 (2^64 - 1)"
expect_error "$seed_range, not '-5'" run work/copy_f32.kir --seed=-5
expect_error "$seed_range, not '-5'" run work/copy_f32.kir --seed -5
expect_error "$seed_range, not '1e3'" run work/copy_f32.kir --seed=1e3
# Past 2^64 - 1 (issue 13: it said "a non-negative integer", which this is).
expect_error "$seed_range, not '99999999999999999999'" run work/copy_f32.kir --seed 99999999999999999999
expect_error "$seed_range, not '18446744073709551616'" run work/copy_f32.kir --seed=18446744073709551616
expect_error "--seed needs a value (an integer from 0 to 18446744073709551615)" run work/copy_f32.kir --seed
expect_error "--seed needs a value (an integer from 0 to 18446744073709551615)" run work/copy_f32.kir --seed --device=emu
expect_error "--mcpu needs a value (a target ID" compile work/copy_f32.kir --mcpu
expect_error "--emit needs a value (asm, obj, bundle, mir or kir)" compile work/copy_f32.kir --emit
expect_error "--emit needs a value (asm, obj, bundle, mir or kir)" compile work/copy_f32.kir --emit= -o x.s
expect_error "--dump needs a value (a directory)" run work/copy_f32.kir --dump
expect_error "-o needs a value (a path)" compile work/copy_f32.kir -o

# Options of another command, unknown commands, directories.
expect_error "--emit is an option of \`kirc compile\`, not of \`kirc verify\`" verify work/copy_f32.kir --emit=obj --seed=3
expect_error "--seed is an option of \`kirc run\`, not of \`kirc verify\`" verify work/copy_f32.kir --seed=3
expect_error "--device is an option of \`kirc run\`, not of \`kirc compile\`" compile work/copy_f32.kir --device=emu
expect_error "--stats is an option of \`kirc compile\`, not of \`kirc run\`" run work/copy_f32.kir --stats
expect_error "--seed is an option of \`kirc run\`; kirc without a command" --seed=3
expect_error "unknown command 'frob' (commands: compile, run, verify" frob work/copy_f32.kir
expect_error "to compile it: kirc compile work/copy_f32.kir" work/copy_f32.kir
expect_error "unexpected argument 'b.kir': kirc verify takes one .kir file" verify work/copy_f32.kir b.kir
expect_error "work is a directory, not a .kir file" compile work
expect_error "/tmp is a directory" verify /tmp
expect_error "/tmp is a directory" run /tmp

# --stats: the resource summary of the user's kernel, on stderr when the
# output is stdout, else on stdout.
"$kirc" compile "$kernels"/mma_16x16x16_f16.kir --mcpu=gfx908 --stats > stats.s 2> stats.txt || fail "--stats exit $?"
grep -q "v_mfma_f32_16x16x16f16" stats.s || fail "--stats: no assembly on stdout"
! grep -q "summary" stats.s || fail "--stats: the summary went to stdout with the assembly"
grep -q "^// ---- summary: kernel mma_16x16x16_f16 " stats.txt || fail "--stats header: $(cat stats.txt)"
grep -q "^// kernel 3 kernarg slot(s), target gfx908$" stats.txt || fail "--stats target: $(cat stats.txt)"
grep -qE "^// instructions: [0-9]+ \\(.*mfma 1" stats.txt || fail "--stats instructions: $(cat stats.txt)"
grep -qE "^// registers: [0-9]+ VGPRs, 4 AGPRs, [0-9]+ SGPRs \\(\\+6 reserved\\) ; LDS 1280 bytes ; occupancy [0-9]+ waves/SIMD$" stats.txt \
  || fail "--stats registers: $(cat stats.txt)"
grep -qE "^// compile time [0-9.]+ ms$" stats.txt || fail "--stats compile time: $(cat stats.txt)"
"$kirc" compile work/copy_f32.kir --emit=obj --stats -o stats.hsaco > stats_obj.txt 2> stats_err.txt || fail "--stats obj exit $?"
[ ! -s stats_err.txt ] || fail "--stats -o: stderr not empty"
size=$(stat -c %s stats.hsaco)
grep -qE "^// compile time [0-9.]+ ms ; assemble\\+link [0-9.]+ ms ; code object $size bytes$" stats_obj.txt \
  || fail "--stats obj: $(cat stats_obj.txt) (file has $size bytes)"
"$kirc" compile work/copy_f32.kir "$kernels"/add_f16.kir --emit=obj -o stats_mod.hsaco --stats > stats_mod.txt || fail "--stats module"
[ "$(grep -c '^// ---- summary: kernel ' stats_mod.txt)" = 2 ] || fail "--stats module: $(cat stats_mod.txt)"
expect_error "--stats needs compiled code" compile work/copy_f32.kir --emit=kir --stats

# kirc run: what it checks and reports (docs/run.md).
# A reference inf must not widen the tolerance: the code object computes 3x,
# the reference 2x, both with y[63] = inf.
# Thread 63 skips the product (its index is -1, out of shape): one store per
# element, else the two stores of y[63] would race.
twice_kir() {  # factor, inf -> kernel t: y = x * factor, y[63] = inf
  printf 'kernel t\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[64] strides [1] readonly\narg y : f32[64] strides [1] writeonly\n  %%x = load x[tid.x] : f32\n  %%f = const f32 %s\n  %%v = mul %%x, %%f\n  store guarded y[tid.x - tid.x floordiv 63 * 64], %%v\n  %%i = const f32 %s\n  store guarded y[tid.x + 63], %%i\nend\n' "$1" "$2"
}
twice_kir 2 inf > twice.kir; twice_kir 3 inf > thrice.kir; twice_kir 2 -inf > twice_neg.kir
"$kirc" compile thrice.kir --emit=obj -o thrice.hsaco || fail "obj thrice"
"$kirc" compile twice_neg.kir --emit=obj -o twice_neg.hsaco || fail "obj twice_neg"
"$kirc" run twice.kir --device=emu > inf_ok.txt || { cat inf_ok.txt; fail "inf in the reference, matched: exit $?"; }
grep -q "y: 64 elements, max abs err 0, .*; 1 non-finite reference element (matched exactly); tolerance .*: OK" inf_ok.txt \
  || fail "non-finite count: $(cat inf_ok.txt)"
"$kirc" run twice.kir --device=emu --code-object=thrice.hsaco > inf_bad.txt; st=$?
[ $st -eq 1 ] || { cat inf_bad.txt; fail "an inf in the reference let a 3x-for-2x mismatch pass (exit $st)"; }
grep -q "FAIL (63 elements out of tolerance)" inf_bad.txt || fail "inf mismatch count: $(cat inf_bad.txt)"
"$kirc" run twice.kir --device=emu --code-object=twice_neg.hsaco > inf_sign.txt; st=$?
[ $st -eq 1 ] || { cat inf_sign.txt; fail "-inf for +inf passed (exit $st)"; }
grep -q "FAIL (1 element out of tolerance, 1 of them inf/NaN mismatches)" inf_sign.txt || fail "inf sign: $(cat inf_sign.txt)"
# Reads of LDS nobody wrote: an error in the emulator and in the reference.
printf 'kernel lds_uninit\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[64] strides [1] readonly\narg y : f32[64] strides [1] writeonly\nlds T : f32[64]\n  %%v = load x[tid.x] : f32\n  store guarded T[tid.x + 32], %%v\n  %%t = load T[tid.x] : f32\n  store y[tid.x], %%t\nend\n' > lds_uninit.kir
expect_error "lane 0 reads LDS bytes [0x0, 0x4), but no lane of the workgroup has written LDS byte 0x0" run lds_uninit.kir --device=emu
grep -qF "the KIR reference interpreter refuses the kernel too: 10:3: error: in '%t = load T[tid.x] : f32'" stderr.txt \
  || fail "lds_uninit: no KIR-level message: $(cat stderr.txt)"
# Races on global memory (every thread stores C[0]): an error in both too.
printf 'kernel race\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[64] strides [1] readonly\narg C : f32[64] strides [1] writeonly\n  %%v = load x[tid.x] : f32\n  store C[0], %%v\nend\n' > race.kir
expect_error "(lane 1 of wave 0 of workgroup (0,0,0)) stores to byte" run race.kir --device=emu
grep -qF "two work-items store to the same byte; the result depends on timing" stderr.txt \
  || fail "race: no emulator message: $(cat stderr.txt)"
grep -qF "the KIR reference interpreter refuses the kernel too: 8:3: error: in 'store C[0], %v': thread (1, 0, 0)" stderr.txt \
  || fail "race: no KIR-level message: $(cat stderr.txt)"
# LDS pairing (compiler/passes/ds_pairing) must keep the order in which a
# wave's lanes see each other's LDS accesses, and give gfx90a/942 even
# register pairs. Found by a fresh-user trial: lane t's T[t + 8] is lane
# t + 8's T[t], so a read moved above that write (xlane_rw), or two such
# writes merged into one ds_write2 (xlane_ww), changed the results; and
# ds_read2_b32 v[1:2] (read2_b32) did not assemble on gfx90a/942.
cat > xlane_rw.kir <<'KIR'
kernel xlane_rw
workgroup 64 1 1
grid 1 1 1
arg X : f32[3, 64] strides [64, 1] readonly
arg Y : f32[2, 64] strides [64, 1] writeonly
lds T : f32[96]
  %a = load X[0, tid.x] : f32
  %b = load X[1, tid.x] : f32
  %c = load X[2, tid.x] : f32
  store T[tid.x], %a
  store guarded T[tid.x + 64], %c
  barrier
  %r0 = load T[tid.x + 16] : f32
  barrier
  store T[tid.x + 8], %b
  barrier
  %r1 = load T[tid.x] : f32
  store Y[0, tid.x], %r0
  store Y[1, tid.x], %r1
end
KIR
cat > xlane_ww.kir <<'KIR'
kernel xlane_ww
workgroup 64 1 1
grid 1 1 1
arg X : f32[2, 64] strides [64, 1] readonly
arg Y : f32[72] strides [1] writeonly
lds T : f32[72]
  %a = load X[0, tid.x] : f32
  %b = load X[1, tid.x] : f32
  store T[tid.x], %a
  store T[tid.x + 8], %b
  %r = load T[tid.x] : f32
  store Y[tid.x], %r
  %s = load guarded T[tid.x + 64] : f32
  store guarded Y[tid.x + 64], %s
end
KIR
cat > read2_b32.kir <<'KIR'
kernel read2_b32
workgroup 64 1 1
grid 1 1 1
arg X : f32[2, 64] strides [64, 1] readonly
arg Y : f32[2, 64] strides [64, 1] writeonly
lds T : f32[2, 64]
  %a = load X[0, tid.x] : f32
  %b = load X[1, tid.x] : f32
  store T[0, tid.x], %a
  store T[1, tid.x], %b
  %ra = load T[0, tid.x] : f32
  %rb = load T[1, tid.x] : f32
  store Y[0, tid.x], %ra
  store Y[1, tid.x], %rb
end
KIR
# emu_pass KERNEL MCPU: `kirc run` on the emulator matches the KIR reference.
emu_pass() {
  "$kirc" run $1.kir --mcpu=$2 --device=emu > run_$1.txt 2>&1 || fail "$1 on $2: exit $?: $(cat run_$1.txt)"
  has -x "PASS: the output matches the KIR reference" run_$1.txt || fail "$1 on $2: $(cat run_$1.txt)"
}
for k in xlane_rw xlane_ww read2_b32; do
  for mcpu in gfx908 gfx90a gfx942 gfx950; do emu_pass $k $mcpu; done
done
# read2_b32 still pairs, into an even register pair.
"$kirc" compile read2_b32.kir --mcpu=gfx90a > read2_b32.s || fail "read2_b32 compile: exit $?"
has -E "ds_read2_b32 v\[[0-9]*[02468]:[0-9]+\], v[0-9]+ offset1:64" read2_b32.s ||
  fail "read2_b32: no even-aligned ds_read2_b32: $(grep ds_ read2_b32.s)"
# Guarded LDS accesses with a negative thread coefficient (issue 13, defect
# 3): the lowering leaves vaddr = -4 * tid.x (negative) and puts the constant
# in the DS offset field, as LLVM does on gfx7+; the LDS address is
# (vaddr + offset) mod 2^32 (DsAddress, compiler/isa/semantics.h). The
# emulator reported lane 7 at LDS byte 0x1000000fc and the verifier a
# counterexample (address 4294967324) before the address wrapped there.
cat > lds_neg_load.kir <<'KIR'
kernel lds_neg_load
workgroup 64 1 1
grid 1 1 1
arg X : f32[64] strides [1] readonly
arg Y : f32[64] strides [1] writeonly
lds T : f32[64]
  %a = load X[tid.x] : f32
  store T[tid.x], %a
  %r = load guarded T[70 - tid.x] : f32
  store Y[tid.x], %r
end
KIR
cat > lds_neg_store.kir <<'KIR'
kernel lds_neg_store
workgroup 64 1 1
grid 1 1 1
arg X : f32[2, 64] strides [64, 1] readonly
arg Y : f32[64] strides [1] writeonly
lds T : f32[64]
  %a = load X[0, tid.x] : f32
  %b = load X[1, tid.x] : f32
  store T[tid.x], %b
  store guarded T[70 - tid.x], %a
  %r = load T[tid.x] : f32
  store Y[tid.x], %r
end
KIR
cat > lds_neg_3d.kir <<'KIR'
kernel lds_neg_3d
workgroup 64 4 1
grid 2 1 1
arg X : f32[2, 4, 64] strides [256, 64, 1] readonly
arg Y : f32[2, 2, 4, 64] strides [512, 256, 64, 1] writeonly
lds T : f32[3, 64, 2] pad 2
lds U : f32[3, 64, 2] pad 2
  %a = load X[wg.x, tid.y, tid.x] : f32
  store guarded T[tid.y, tid.x, wg.x], %a
  store guarded U[2 - tid.y, 56 - tid.x, wg.x], %a
  barrier
  %r = load guarded T[2 - tid.y, 56 - tid.x, wg.x] : f32
  %s = load guarded U[2 - tid.y, 56 - tid.x, wg.x] : f32
  store Y[wg.x, 0, tid.y, tid.x], %r
  store Y[wg.x, 1, tid.y, tid.x], %s
end
KIR
for k in lds_neg_load lds_neg_store lds_neg_3d; do
  for mcpu in gfx908 gfx90a gfx942 gfx950; do
    "$kirc" verify $k.kir --mcpu=$mcpu > verify_$k.txt 2>&1 || fail "verify $k on $mcpu: exit $?: $(cat verify_$k.txt)"
    has -x "verify: every address proved" verify_$k.txt || fail "verify $k on $mcpu: $(cat verify_$k.txt)"
    emu_pass $k $mcpu
  done
done
# The lowering still folds the constant into the offset field (the form the
# fix keeps): 70 * 4 = 280 bytes.
"$kirc" compile lds_neg_load.kir --mcpu=gfx942 > lds_neg_load.s || fail "lds_neg_load compile: exit $?"
has -E "ds_read_b32 v[0-9]+, v[0-9]+ offset:280" lds_neg_load.s ||
  fail "lds_neg_load: no ds_read_b32 with offset:280: $(grep ds_ lds_neg_load.s)"
# Nothing to compare: an error, not a PASS.
printf 'kernel noout\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[64] strides [1] readonly\n  %%v = load x[tid.x] : f32\nend\n' > noout.kir
expect_error "kernel 'noout' has no writable buffer (writeonly or readwrite): there is nothing to check" run noout.kir --device=emu
# The instruction budget.
loop_kir "0 to 2000000000 step 1" > spin.kir
expect_error "instruction budget exhausted: the dispatch executed its budget of 1000 wave-instructions" run spin.kir --device=emu --max-instructions=1000
grep -qF "; raise it with --max-instructions=N" stderr.txt || fail "budget hint: $(cat stderr.txt)"
expect_error "--max-instructions needs an integer from 0 (no limit) to 9223372036854775807 (2^63 - 1), not 'lots'" run spin.kir --max-instructions=lots
expect_error "--max-instructions needs an integer from 0 (no limit) to 9223372036854775807 (2^63 - 1), not '9223372036854775808'" run spin.kir --max-instructions=9223372036854775808
grep -q -- "--max-instructions=N" help.txt || fail "--help lacks --max-instructions"
# Scalar arguments: stated in the report and dumped.
printf 'kernel scal\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[64] strides [1] readonly\narg y : f32[64] strides [1] writeonly\narg a : f32\n  %%x = load x[tid.x] : f32\n  %%v = mul %%x, a\n  store y[tid.x], %%v\nend\n' > scal.kir
"$kirc" run scal.kir --device=emu --seed=3 --dump=scal_dump > scal.txt || { cat scal.txt; fail "scalars run exit $?"; }
a=$(sed -n 's/^scalars: a = \([0-9.e+-]*\) (f32)$/\1/p' scal.txt)
[ -n "$a" ] || fail "no scalars line: $(cat scal.txt)"
grep -q "^  \"a\": {\"type\": \"f32\", \"value\": $a, \"bits\": \"0x[0-9a-f]\{8\}\"}$" scal_dump/scal.scalars.json \
  || fail "scalars.json: $(cat scal_dump/scal.scalars.json) (report: a = $a)"
# --scalar and --input (issue 17): the dump's input read back, a scalar set;
# one pass, bit for bit (no mfma), the report saying where the values came from.
"$kirc" run scal.kir --device=emu --scalar a=1.5 --input x=scal_dump/x.in.npy --dump=scal_dump2 > scal_in.txt \
  || { cat scal_in.txt; fail "run --scalar --input exit $?"; }
has -xF "inputs: from files: x from scal_dump/x.in.npy; scalars from --scalar: a = 1.5 (f32, 0x3fc00000); the rest random (seed 1); the kernel has no mfma or gemm, so both sides evaluate IEEE ops in program order whatever the values: the output must equal the reference bit for bit (any NaN for a NaN)" scal_in.txt \
  || fail "--input report: $(cat scal_in.txt)"
has -xF "scalars: a = 1.5 (f32, --scalar)" scal_in.txt || fail "--scalar report: $(cat scal_in.txt)"
has -x "PASS: the output matches the KIR reference" scal_in.txt || fail "--input run: $(cat scal_in.txt)"
cmp -s scal_dump/x.in.npy scal_dump2/x.in.npy || fail "--dump of an --input file differs from the file"
grep -q -- "--scalar NAME=VALUE" help.txt && grep -q -- "--input NAME=FILE.npy" help.txt || fail "--help lacks --scalar/--input"
grep -q "passes conversion-1, conversion-2, ... by level" help.txt || fail "--help lacks the dump names of a chain's conversion passes"
expect_error "--scalar needs NAME=VALUE (a scalar argument and its value, e.g. --scalar alpha=1.5 or --scalar lda=0x40), not 'a'" run scal.kir --scalar a
expect_error "--scalar b=1: kernel 'scal' has no scalar argument 'b' (its scalars: a)" run scal.kir --device=emu --scalar b=1
expect_error "--scalar a=zz: 'zz' is not a valid f32 value" run scal.kir --device=emu --scalar a=zz
expect_error "--scalar x=1: 'x' is a buffer argument of kernel 'scal': give its contents with --input x=FILE.npy" run scal.kir --device=emu --scalar x=1
expect_error "--scalar a is given twice" run scal.kir --device=emu --scalar a=1 --scalar a=2
expect_error "--input x=canon.kir: not a .npy file" run scal.kir --device=emu --input x=canon.kir
expect_error "--input x=none.npy: " run scal.kir --device=emu --input x=none.npy
expect_error "--input a=scal_dump/x.in.npy: 'a' is a scalar argument of kernel 'scal'" run scal.kir --device=emu --input a=scal_dump/x.in.npy
expect_error "--inputs=exact: exact inputs are values kirc chooses" run scal.kir --device=emu --inputs=exact --scalar a=2
expect_error "--scalar fixes by-value arguments of code given with --code-object or --asm that the .kir lacks" verify scal.kir --scalar a=1
# A foreign-looking code object: kirc's copy_f32 with num_records read from a
# by-value argument "n bytes" the .kir lacks, and no amdhsa.target.
"$kirc" compile work/copy_f32.kir --mcpu=gfx90a:xnack- -o foreign.s || fail "foreign asm"
sed -e 's/^  s_load_dwordx2 s\[8:9\], s\[0:1\], 0x8$/&\n  s_load_dword s6, s[0:1], 0x10/' -e '/^  s_mov_b32 s6, 0x8000$/d' \
    -e 's/^  s_mov_b32 s10, 0x8000$/  s_mov_b32 s10, s6/' -e 's/\.amdhsa_kernarg_size 16/.amdhsa_kernarg_size 24/' \
    -e 's/\.kernarg_segment_size: 16/.kernarg_segment_size: 24/' -e '/^amdhsa.target:/d' \
    -e 's/^    \.args:$/&\n      - .name: "n bytes"\n        .offset: 16\n        .size: 4\n        .value_kind: by_value\n        .type_name: '"'unsigned int'"'/' \
    foreign.s > foreign_edit.s
has -F '.name: "n bytes"' foreign_edit.s && has -F "s_mov_b32 s10, s6" foreign_edit.s || fail "foreign: the edit did not apply"
"$llvm"/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx90a -mattr=-xnack -filetype=obj foreign_edit.s -o foreign.o \
  || fail "foreign llvm-mc"
"$llvm"/ld.lld -shared foreign.o -o foreign.hsaco || fail "foreign ld.lld"
"$llvm"/llvm-readelf --notes foreign.hsaco | has "amdhsa.target" && fail "foreign.hsaco still has amdhsa.target"
"$kirc" run work/copy_f32.kir --device=emu --mcpu=gfx90a:xnack- --code-object=foreign.hsaco --scalar "n bytes=32768" \
  > foreign.txt || { cat foreign.txt; fail "foreign run exit $?"; }
has -xF "arguments of the code object the .kir lacks (--scalar): n bytes = 32768 (u32, 0x00008000)" foreign.txt \
  || fail "foreign report: $(cat foreign.txt)"
has -x "PASS: the output matches the KIR reference" foreign.txt || fail "foreign run: $(cat foreign.txt)"
# Half the bytes: half of dst is dropped, an output check failure (exit 1).
"$kirc" run work/copy_f32.kir --device=emu --mcpu=gfx90a:xnack- --code-object=foreign.hsaco --scalar "n bytes=0x4000" \
  > foreign_half.txt; st=$?
[ $st -eq 1 ] || fail "foreign run with half the bytes: exit $st (want 1)"
has -F "FAIL (4096 elements out of tolerance)" foreign_half.txt || fail "foreign half: $(cat foreign_half.txt)"
expect_error "takes a by-value argument the .kir kernel lacks: 'n bytes' (by_value, 4 bytes at offset 16, unsigned int); give each a value with --scalar NAME=VALUE" \
  run work/copy_f32.kir --device=emu --mcpu=gfx90a:xnack- --code-object=foreign.hsaco
expect_error "its metadata has no amdhsa.target, so its target comes from its ELF header: e_flags 0x63f (code object v5: EF_AMDGPU_MACH 0x03f = gfx90a, xnack-, sramecc any) is gfx90a:xnack-, not gfx90a (use --mcpu=gfx90a:xnack-" \
  run work/copy_f32.kir --device=emu --mcpu=gfx90a --code-object=foreign.hsaco --scalar "n bytes=32768"
expect_error "--scalar n bytes=-1: '-1' is not a valid u32 value: it is out of range for u32 [0, 4294967295]" \
  run work/copy_f32.kir --device=emu --mcpu=gfx90a:xnack- --code-object=foreign.hsaco --scalar "n bytes=-1"
# kirc verify --scalar: the same argument fixed for the verifier (a known
# kernarg value). The buffer's 32768 bytes: proved; without it num_records is
# a free input (not proved, exit 1); 0x10000 lets the SRD reach past dst and
# 0x4000 drops half of it: failed with a counterexample (exit 1).
"$kirc" verify work/copy_f32.kir --mcpu=gfx90a:xnack- --code-object=foreign.hsaco --scalar "n bytes=32768" \
  > vforeign.txt || { cat vforeign.txt; fail "verify --scalar exit $?"; }
has -x "verify: every address proved" vforeign.txt || fail "verify --scalar: $(cat vforeign.txt)"
"$kirc" verify work/copy_f32.kir --mcpu=gfx90a:xnack- --code-object=foreign.hsaco > vforeign_free.txt; st=$?
[ $st -eq 1 ] || { cat vforeign_free.txt; fail "verify without --scalar: exit $st (want 1)"; }
for bytes in 0x10000 0x4000; do
  "$kirc" verify work/copy_f32.kir --mcpu=gfx90a:xnack- --code-object=foreign.hsaco --scalar "n bytes=$bytes" \
    > vforeign_bad.txt; st=$?
  [ $st -eq 1 ] || { cat vforeign_bad.txt; fail "verify --scalar 'n bytes=$bytes': exit $st (want 1)"; }
  has "FAILED" vforeign_bad.txt && has "counterexample" vforeign_bad.txt \
    || fail "verify --scalar 'n bytes=$bytes': $(cat vforeign_bad.txt)"
done
expect_error "--scalar n bytes=-1: '-1' is not a valid u32 value" \
  verify work/copy_f32.kir --mcpu=gfx90a:xnack- --code-object=foreign.hsaco --scalar "n bytes=-1"
expect_error "--scalar m=1: neither kernel 'copy_f32' of the .kir (scalars: none) nor the code object's kernel (by-value arguments the .kir lacks: 'n bytes') has an argument 'm'" \
  verify work/copy_f32.kir --mcpu=gfx90a:xnack- --code-object=foreign.hsaco --scalar m=1
expect_error "--scalar n bytes is given twice" \
  verify work/copy_f32.kir --mcpu=gfx90a:xnack- --code-object=foreign.hsaco --scalar "n bytes=1" --scalar "n bytes=2"
# clang-22's stride_f32 (testdata/foreign): `uint n` and `uint stride` the
# twin lacks; its code object and its `clang -S` text (--asm, assembled by
# LLVM in process) prove with the twin's n = 1000, stride = 3 and fail with
# stride 4 (a counterexample).
printf 'kernel stride_f32\nworkgroup 64 1 1\ngrid 16 1 1\narg src : f32[3000] strides [1] readonly\narg dst : f32[1000] strides [1] writeonly\n  %%v = load guarded src[(wg.x * 64 + tid.x) * 3] : f32\n  store guarded dst[wg.x * 64 + tid.x], %%v\nend\n' > stride_f32.kir
for code in --code-object="$foreign"/stride_f32.gfx942.hsaco --asm="$foreign"/stride_f32.gfx942.s; do
  "$kirc" verify stride_f32.kir --mcpu=gfx942 "$code" --scalar n=1000 --scalar stride=3 > vstride.txt \
    || { cat vstride.txt; fail "verify stride_f32 $code exit $?"; }
  has "2 memory instructions, 2 proved" vstride.txt && has -x "verify: every address proved" vstride.txt \
    || fail "verify stride_f32 $code: $(cat vstride.txt)"
  "$kirc" verify stride_f32.kir --mcpu=gfx942 "$code" --scalar n=1000 --scalar stride=4 > vstride4.txt; st=$?
  [ $st -eq 1 ] && has "counterexample" vstride4.txt || { cat vstride4.txt; fail "verify stride_f32 $code stride 4: exit $st"; }
done
# The same kernel built without -cl-kernel-arg-info (review5 F1): its
# metadata names no argument, so n and stride are given by position ('#2',
# '#3'; the example of docs/verify.md "Arguments without names (#N)"); by
# name they are refused, the message listing them as (unnamed, #N) and
# suggesting the positional form.
unnamed="$foreign"/stride_f32.gfx942.unnamed.hsaco
"$kirc" verify stride_f32.kir --mcpu=gfx942 --code-object="$unnamed" --scalar '#2=1000' --scalar '#3=3' > vunnamed.txt \
  || { cat vunnamed.txt; fail "verify unnamed stride_f32 '#2=1000' '#3=3': exit $?"; }
has -x "verify: every address proved" vunnamed.txt || fail "verify unnamed stride_f32: $(cat vunnamed.txt)"
"$kirc" verify stride_f32.kir --mcpu=gfx942 --code-object="$unnamed" --scalar=#2=1000 --scalar=#3=4 > vunnamed4.txt; st=$?
[ $st -eq 1 ] && has "counterexample" vunnamed4.txt || { cat vunnamed4.txt; fail "verify unnamed stride_f32 stride 4: exit $st"; }
expect_error "--scalar n=1000: the code object's metadata names none of the by-value arguments the .kir lacks ((unnamed, #2) (by_value, 4 bytes at offset 16, uint), (unnamed, #3) (by_value, 4 bytes at offset 20, uint)): give an unnamed one by its position among the code's explicit arguments, --scalar '#2=VALUE', or rebuild the code object with argument names (clang -cl-kernel-arg-info for OpenCL; HIP names them)" \
  verify stride_f32.kir --mcpu=gfx942 --code-object="$unnamed" --scalar n=1000 --scalar stride=3
# Fresh-user review 7 F10: a '#' word that is not #N is no name (4 explicit
# arguments: #0 to #3); leading zeros are allowed ('#02' is #2).
for bad in '#-1' '#+2'; do
  expect_error "--scalar $bad=3: '$bad' is not a valid argument index (write #N with N from 0 to 3)" \
    verify stride_f32.kir --mcpu=gfx942 --code-object="$unnamed" --scalar "$bad=3"
  expect_error "--scalar $bad=3: '$bad' is not a valid argument index (write #N with N from 0 to 3)" \
    run stride_f32.kir --mcpu=gfx942 --device=emu --code-object="$unnamed" --scalar "$bad=3"
done
"$kirc" verify stride_f32.kir --mcpu=gfx942 --code-object="$unnamed" --scalar '#02=1000' --scalar '#3=3' > vzero.txt \
  || { cat vzero.txt; fail "verify unnamed stride_f32 '#02=1000' '#3=3': exit $?"; }
"$kirc" run stride_f32.kir --mcpu=gfx942 --device=emu --code-object="$unnamed" --scalar '#2=1000' --scalar '#3=3' > runnamed.txt \
  || { cat runnamed.txt; fail "run unnamed stride_f32: exit $?"; }
has -xF "arguments of the code object the .kir lacks (--scalar): #2 = 1000 (u32, 0x000003e8), #3 = 3 (u32, 0x00000003)" runnamed.txt \
  || fail "run unnamed stride_f32 report: $(cat runnamed.txt)"
# clang -S text of every foreign kernel is accepted (labels with comments,
# .p2align, .section, .amdhsa_kernel, metadata, __clang_ocl_kern_imp_*).
printf 'kernel guard_f32\nworkgroup 256 1 1\ngrid 4 1 1\narg src : f32[1000] strides [1] readonly\narg dst : f32[1000] strides [1] writeonly\n  %%v = load guarded src[wg.x * 256 + tid.x] : f32\n  store guarded dst[wg.x * 256 + tid.x], %%v\nend\n' > guard_f32.kir
has "__clang_ocl_kern_imp_guard_f32:" < "$foreign"/guard_f32.gfx90a.s || fail "guard_f32.gfx90a.s has no helper function"
"$kirc" verify guard_f32.kir --mcpu=gfx90a --asm="$foreign"/guard_f32.gfx90a.s > vguard.txt \
  || { cat vguard.txt; fail "verify --asm of clang -S output: exit $?"; }
has -x "verify: every address proved" vguard.txt || fail "verify --asm guard_f32: $(cat vguard.txt)"
sed 's/^\ts_endpgm$/\ts_endpgm_frob/' "$foreign"/guard_f32.gfx90a.s > guard_bad.s
line=$(grep -n 's_endpgm_frob' guard_bad.s | head -1 | cut -d: -f1)
expect_error "guard_bad.s:$line:" verify guard_f32.kir --mcpu=gfx90a --asm=guard_bad.s
# --inputs (issue 13): a gemm runs exact inputs by default and must match bit
# for bit; random inputs get the per-element worst-case rounding bound;
# adversarial inputs are refused for MFMA kernels.
printf 'kernel g100\ntarget gfx942\nworkgroup auto\ngrid auto\narg A : f16[32, 100] strides [100, 1] readonly\narg B : f16[32, 100] strides [100, 1] readonly\narg C : f32[32, 32] strides [32, 1] writeonly\narg alpha : f32\n  gemm C = alpha * A.mk * B.nk\nend\n' > g100.kir
# K = 100 is 4 K tiles of 32 (the last partial): the loop runs tiles 0 and 1
# and loads tile 3 (k = 96 .. 127, guarded) two tiles ahead.
"$kirc" compile g100.kir --emit=kir > g100p.kir || fail "g100 --emit=kir"
has "for %k = 0 to 64 step 64" < g100p.kir && has "load guarded A\[wg.x \* 32 + tid.x floordiv 8, %k + 96 + tid.x mod 8 \* 4\]" < g100p.kir \
  || fail "g100: the K loop does not cover the 4 K tiles of 32 (K padded to 128)"
"$kirc" run g100.kir --device=emu > g100.txt || { cat g100.txt; fail "g100 exit $?"; }
has -F "inputs: exact (seed 1): A +-m*2^e, m in [1, " g100.txt || fail "g100 inputs: $(cat g100.txt)"
has -F "tolerance bit-identical (exact inputs): OK" g100.txt || fail "g100 tolerance: $(cat g100.txt)"
"$kirc" run g100.kir --device=emu --inputs=random > g100r.txt || { cat g100r.txt; fail "g100 random exit $?"; }
has -x "inputs: random (seed 1)" g100r.txt || fail "g100 random inputs: $(cat g100r.txt)"
# The last rounding (alpha's f32 multiply, u = 2^-24) is charged against the
# value: 2u / (1 - u) = 1.19e-07 of |ref|.
has -E "tolerance \|out - ref\| <= [0-9.e-]+ \* sum\|terms\| \+ 1\.19e-07 \* \|ref\| \+ 2\^-148 for f32 \(worst-case rounding; the last rounding, to 2\^-24, relative to the value\): OK" g100r.txt \
  || fail "g100 random tolerance: $(cat g100r.txt)"
expect_error "--inputs must be auto, exact, random, adversarial or conversion, not 'fuzzy'" run g100.kir --inputs=fuzzy
expect_error "--inputs needs a value (auto, exact, random, adversarial or conversion)" run g100.kir --inputs
expect_error "--inputs is an option of \`kirc run\`, not of \`kirc compile\`" compile g100.kir --inputs=exact
expect_error "adversarial inputs need a kernel without mfma or gemm ops" run g100.kir --device=emu --inputs=adversarial
# A K loop whose code object skips its first MFMA step: the default mode fails it.
kloop_kir() {  # first k -> C = A * B^T over K = 256, one 32x32x8 MFMA per step
  printf 'kernel kl\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\narg A : f16[32, 256] strides [256, 1] readonly\narg B : f16[32, 256] strides [256, 1] readonly\narg C : f32[32, 32] strides [32, 1] writeonly\n  %%z = zero f32x16\n  %%acc = for %%k = %s to 256 step 8 iter(%%c = %%z) {\n    %%a = load A[tid.x mod 32, %%k + tid.x floordiv 32 * 4] : f16x4\n    %%b = load B[tid.x mod 32, %%k + tid.x floordiv 32 * 4] : f16x4\n    %%d = mfma f32_32x32x8_f16 %%a, %%b, %%c\n    yield %%d\n  }\n  %%c0 = slice %%acc, 0 : f32x4\n  %%c1 = slice %%acc, 4 : f32x4\n  %%c2 = slice %%acc, 8 : f32x4\n  %%c3 = slice %%acc, 12 : f32x4\n  store C[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %%c0\n  store C[tid.x floordiv 32 * 4 + 8, tid.x mod 32] along 0, %%c1\n  store C[tid.x floordiv 32 * 4 + 16, tid.x mod 32] along 0, %%c2\n  store C[tid.x floordiv 32 * 4 + 24, tid.x mod 32] along 0, %%c3\nend\n' "$1"
}
kloop_kir 0 > kl.kir; kloop_kir 8 > kl_skip.kir
"$kirc" compile kl_skip.kir --emit=obj -o kl_skip.hsaco || fail "obj kl_skip"
"$kirc" run kl.kir --device=emu --code-object=kl_skip.hsaco > kl.txt; st=$?
[ $st -eq 1 ] || { cat kl.txt; fail "a skipped MFMA step passed (exit $st)"; }
has -F "tolerance bit-identical (exact inputs): FAIL" kl.txt || fail "kl: $(cat kl.txt)"
# Exact mode on request, refused (naming the op) when impossible.
"$kirc" run kl.kir --device=emu --inputs=exact | has -x "PASS: the output matches the KIR reference" || fail "kl exact"
printf 'kernel sq\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[64] strides [1] readonly\narg y : f32[64] strides [1] writeonly\n  %%x = load x[tid.x] : f32\n  %%r = for %%i = 0 to 100 iter(%%p = %%x) {\n    %%q = mul %%p, %%x\n    yield %%q\n  }\n  store y[tid.x], %%r\nend\n' > sq.kir
expect_error "exact inputs are impossible for kernel 'sq': sq.kir:8:3: '%r = for %i = 0 to 100 iter(%p = %x)': each of its 100 iterations multiplies a loop-carried value by a non-integer" run sq.kir --device=emu --inputs=exact
"$kirc" run sq.kir --device=emu > sq.txt || { cat sq.txt; fail "sq exit $?"; }
has -F "inputs: random (seed 1); exact inputs impossible: sq.kir:8:3: " sq.txt || fail "sq: $(cat sq.txt)"
has -F "inputs: adversarial (seed 1): " sq.txt || fail "sq adversarial: $(cat sq.txt)"
grep -q -- "--inputs=MODE" help.txt || fail "--help lacks --inputs"
# The device line comes with the report, never before an error.
head -1 g100.txt | has "^kernel g100 on gfx942" || fail "--device=emu printed a device line: $(head -1 g100.txt)"
expect_error "does not exist on gfx908" run "$kernels"/mma_16x16x16_bf16.kir --mcpu=gfx908
"$kirc" run work/copy_f32.kir > auto.txt || fail "--device=auto exit $?"
head -1 auto.txt | has "^device: " || fail "--device=auto: no device line first: $(cat auto.txt)"
# Out of host memory is a clear error before the run (issue 13, defect 7: this
# ended in std::bad_alloc, exit 134): a 2 GiB buffer under a 6 GB address-space
# limit. The limit is set in a subshell so the rest of the test is unaffected.
printf 'kernel huge\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\narg X : f32[536870911] strides [1] readonly\narg Y : f32[64] strides [1] writeonly\n  %%v = load X[tid.x] : f32\n  store Y[tid.x], %%v\nend\n' > huge.kir
( ulimit -v 6000000; "$kirc" run huge.kir --device=emu > stdout.txt 2> stderr.txt; echo $? > huge_status.txt )
[ "$(cat huge_status.txt)" = 2 ] || { cat stderr.txt; fail "huge buffer: exit $(cat huge_status.txt) (want 2)"; }
has -F "kernel 'huge': this run maps about" stderr.txt || fail "huge buffer: $(cat stderr.txt)"
has -F "X 2.00 GiB" stderr.txt && has -F "the address-space limit (ulimit -v)" stderr.txt \
  || fail "huge buffer message: $(cat stderr.txt)"
[ ! -s stdout.txt ] || fail "huge buffer: stdout not empty"

# --workgroups and --dump-buffers (issue 18): the band runs and passes, only
# the named buffers are dumped, and bad values are usage errors.
"$kirc" run work/copy_f32.kir --device=emu --workgroups=6:8 --dump=wg_dump --dump-buffers=dst > wg.txt \
  || { cat wg.txt; fail "--workgroups=6:8 exit $?"; }
has -F "workgroups: 6:8,0:1,0:1 (2 of 8;" wg.txt || fail "--workgroups report: $(cat wg.txt)"
[ -f wg_dump/dst.out.npy ] && [ ! -e wg_dump/src.in.npy ] || fail "--dump-buffers=dst wrote: $(ls wg_dump)"
expect_error "--workgroups needs X0:X1[,Y0:Y1[,Z0:Z1]]" run work/copy_f32.kir --device=emu --workgroups=a:b
expect_error "the range 3:3 is empty" run work/copy_f32.kir --device=emu --workgroups=3:3
expect_error "--workgroups: X range 7:9 is not a non-empty half-open range inside kernel 'copy_f32''s grid 8 x 1 x 1" \
  run work/copy_f32.kir --device=emu --workgroups=7:9
expect_error "--dump-buffers limits what --dump writes" run work/copy_f32.kir --device=emu --dump-buffers=dst
expect_error "has no buffer 'C' (its buffers: src, dst)" run work/copy_f32.kir --device=emu --dump=wg_dump --dump-buffers=C
expect_error "is an option of \`kirc run\`" compile work/copy_f32.kir --workgroups=0:1

# --device lists and rocjitsu (issue 14): usage errors, and no build named.
expect_error "a cross-check names two different devices" run work/copy_f32.kir --device=emu,emu
expect_error "a cross-check names two different devices" run work/copy_f32.kir --device=auto,emu
expect_error "--device must be emu, hip, rocjitsu or auto" run work/copy_f32.kir --device=gpu
expect_error "no device here is rocjitsu" run work/copy_f32.kir --device=emu --rocjitsu=/nonexistent
(unset KIRC_ROCJITSU; expect_error "third_party/rocjitsu/build.sh" run work/copy_f32.kir --device=emu,rocjitsu) \
  || fail "emu,rocjitsu without a build"
expect_error "/nonexistent/bin/kirc-rocjitsu-run" run work/copy_f32.kir --device=rocjitsu --rocjitsu=/nonexistent
grep -q -- "--rocjitsu=DIR" help.txt || fail "--help lacks --rocjitsu"

# The pass pipeline's options (docs/compile.md "Flags of kirc compile").
"$kirc" compile work/copy_f32.kir --stop-after=regalloc > ra.mir || fail "--stop-after=regalloc"
has "buffer_load_dwordx4 v\[" ra.mir && ! has "s_waitcnt" ra.mir || fail "--stop-after=regalloc: $(cat ra.mir)"
"$kirc" compile work/copy_f32.kir --stop-after=waitcnt | has "s_waitcnt" || fail "--stop-after=waitcnt has no s_waitcnt"
# Printed MIR reads back: replaying the MIR passes with kirc opt from
# --stop-after=lower gives what the pipeline gives (copy_f32 has no LDS
# writes, the one thing text replay cannot pair: no access map).
for t in gfx908 gfx90a gfx942; do
  "$kirc" compile work/copy_f32.kir --mcpu=$t --stop-after=lower > lowered.mir || fail "--stop-after=lower on $t"
  "$kirc" opt lowered.mir --mcpu=$t --run-pass=schedule,ds-pairing,regalloc,waitcnt,hazards \
    | sed 's| *//.*||' | grep -v '^ *$' > replayed.s || fail "kirc opt on lowered MIR ($t): $(cat lowered.mir)"
  "$kirc" compile work/copy_f32.kir --mcpu=$t --stop-after=hazards | sed 's| *//.*||' | grep -v '^ *$' > piped.s
  cmp -s replayed.s piped.s || fail "kirc opt replay differs from the pipeline on $t: $(diff replayed.s piped.s)"
done
# gfx950's f8f6f4 MFMAs with bf8 operands carry their formats (cbsz/blgp)
# through the MIR text too (fresh-user review of issue 19, F3: refused).
"$kirc" compile "$kernels"/mma_fp8_ocp.kir --stop-after=lower > fp8.mir || fail "--stop-after=lower on mma_fp8_ocp"
"$kirc" opt fp8.mir --mcpu=gfx950 --run-pass=schedule,ds-pairing,regalloc,waitcnt,hazards \
  | sed 's| *//.*||' | grep -v '^ *$' > fp8_replayed.s || fail "kirc opt on mma_fp8_ocp's MIR: $(cat fp8.mir)"
"$kirc" compile "$kernels"/mma_fp8_ocp.kir --stop-after=hazards | sed 's| *//.*||' | grep -v '^ *$' > fp8_piped.s
cmp -s fp8_replayed.s fp8_piped.s || fail "kirc opt replay of mma_fp8_ocp differs: $(diff fp8_replayed.s fp8_piped.s)"
has "v_mfma_f32_16x16x128_f8f6f4 .* blgp:1" fp8_replayed.s || fail "the replay lost blgp:1: $(cat fp8_replayed.s)"
"$kirc" opt fp8_piped.s --mcpu=gfx950 --run-pass=hazards > /dev/null || fail "kirc opt on mma_fp8_ocp's assembly"
"$kirc" compile work/copy_f32.kir --print-after=lower,hazards -o pa.s 2> dumps.txt || fail "--print-after"
[ "$(grep -c '^# \*\*\* IR Dump After' dumps.txt)" = 2 ] && has "IR Dump After lower" dumps.txt \
  && has "IR Dump After hazards" dumps.txt || fail "--print-after dumps: $(grep 'IR Dump' dumps.txt)"
"$kirc" compile work/copy_f32.kir --time-passes --verify-machineinstrs -o tp.s 2> times.txt || fail "--time-passes"
for p in validate lower schedule ds-pairing regalloc waitcnt hazards resources asm-printer; do
  grep -qE " $p(:|$)" times.txt || fail "--time-passes lacks $p: $(cat times.txt)"
done
# --stop-after=promote is --emit=kir's text, target ID included (found by review).
"$kirc" compile work/copy_f32.kir --mcpu=gfx90a:xnack+ --stop-after=promote > sp.kir || fail "--stop-after=promote"
"$kirc" compile work/copy_f32.kir --mcpu=gfx90a:xnack+ --emit=kir | cmp -s - sp.kir || fail "--stop-after=promote differs from --emit=kir"
"$kirc" compile work/copy_f32.kir --stop-after=lower --time-passes 2>&1 >/dev/null | has "^kernel copy_f32 on gfx942" \
  || fail "--time-passes with --stop-after lacks the kernel name"
expect_error "--stop-after is given twice (lower and regalloc)" compile work/copy_f32.kir --stop-after=lower --stop-after=regalloc
expect_error "--stop-after takes one pass, not a list" compile work/copy_f32.kir --stop-after=lower,regalloc
expect_error "--time-passes takes no value (found '--time-passes=1')" compile work/copy_f32.kir --time-passes=1
expect_error "--stop-after leaves no finished code for --stats: drop it" compile work/copy_f32.kir --stop-after=lower --stats
expect_error "not --emit=mir: drop --emit" compile work/copy_f32.kir --stop-after=lower --emit=mir
expect_error "--stop-after: there is no pass 'regallocs'; the passes are validate, promote" compile work/copy_f32.kir --stop-after=regallocs
expect_error "--print-after: there is no pass 'x'" compile work/copy_f32.kir --print-after=lower,x
expect_error "--stop-after writes the kernel as the pass left it (KIR or MIR text), not --emit=obj" compile work/copy_f32.kir --stop-after=lower --emit=obj
expect_error "--stop-after is an option of \`kirc compile\`, not of \`kirc verify\`" verify work/copy_f32.kir --stop-after=lower
# Review of issue 19: a gemm out of VGPRs names its configuration in `kirc
# run` as in compile and verify (one message, compiler/passes/pipeline.cc),
# and exact mode's impossibility names the gemm op, not a promoted value.
# Out of VGPRs whatever the schedule: double buffering carries the next K
# tile around the K loop in registers, 2 x 64 x 256 f16 = 64 KiB over 64
# lanes = 256 VGPRs per lane, plus an address (gfx950: two such tiles fit
# its LDS). (A single-buffered 64x64x256 tile, here before, fits since the
# scheduler stores its copies as they arrive: fresh-user review 15 F2.)
printf 'kernel rp5\ntarget gfx950\nworkgroup auto\ngrid auto\narg A : f16[64, 1024] strides [1024, 1] readonly\narg B : f16[64, 1024] strides [1024, 1] readonly\narg C : f32[64, 64] strides [64, 1] readwrite\narg alpha : f32\narg beta : f32\n  gemm C = alpha * A.mk * B.nk + beta * C tile 64x64x256 waves 1x1 mfma f32_32x32x8_f16 double_buffer on lds_dma off\nend\n' > rp5.kir
rp5_cfg="out of VGPRs"
for cmd in compile verify run; do
  args=(rp5.kir); [ $cmd = run ] && args+=(--device=emu)
  expect_error "the gemm's configuration is \`tile 64x64x256 waves 1x1 mfma f32_32x32x8_f16 double_buffer on\`" $cmd "${args[@]}"
  grep -qF "$rp5_cfg" stderr.txt || fail "$cmd rp5: $(cat stderr.txt)"
done
# (A and B broadcast along K, stride 0: no K window makes most of a sum's
# terms zero, fresh-user review 13 F4, so exact inputs stay impossible.)
printf 'kernel ex6\ntarget gfx942\nworkgroup auto\ngrid auto\narg A : f16[64, 4096] strides [1, 0] readonly\narg B : f16[64, 4096] strides [1, 0] readonly\narg C : bf16[64, 64] strides [64, 1] writeonly\n  gemm C = A.mk * B.nk\nend\n' > ex6.kir
expect_error "exact inputs are impossible for kernel 'ex6': ex6.kir:8:3: 'gemm C = A.mk * B.nk': " run ex6.kir --device=emu --inputs=exact
grep -qF "%out" stderr.txt && fail "exact mode names a promoted value: $(cat stderr.txt)"

# `kirc hazards`: the hazard table's rules in words (compiler/isa/hazard_table.h
# HazardRules); gfx950's 16-pass XDL MFMA result read by a VALU needs 16 + 3 + 1
# = 20 wait states (amdgcn-isa-notes.md 2.1 with GCNHazardRecognizer's IsGFX950
# term), gfx942's 19; every target's listing when --mcpu is absent.
"$kirc" hazards --mcpu=gfx950 > hz.txt || fail "hazards exit $?"
grep -qF "XDL MFMA writes R -> VALU/VMEM/DS reads or writes R: 4 passes: 8, 8 passes: 12, 16 passes: 20" hz.txt || fail "hazards gfx950: $(cat hz.txt)"
"$kirc" hazards > hz_all.txt || fail "hazards (all) exit $?"
[ "$(grep -c '^# gfx' hz_all.txt)" = 4 ] || fail "hazards lists $(grep -c '^# gfx' hz_all.txt) targets, not 4"
grep -qF "16 passes: 19" hz_all.txt || fail "hazards gfx942: $(cat hz_all.txt)"
expect_error "kirc hazards takes no file" hazards work/copy_f32.kir
expect_error "--seed is an option of \`kirc run\`, not of \`kirc hazards\`" hazards --seed=2

echo "all kirc CLI checks passed"
