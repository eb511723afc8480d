#!/usr/bin/env bash
# The kirc command as a user meets it: help, version, the main job, each
# --emit kind, relative paths under `bazel run`, and errors (message on
# stderr, non-zero exit, never a crash).
set -uo pipefail
kirc=$(realpath "$1"); kernels=$(realpath "$2")
cd "$TEST_TMPDIR"
fail() { echo "FAIL: $*"; exit 1; }

"$kirc" --help | grep -q -- "--emit=KIND" || fail "--help lacks --emit"
"$kirc" --version | grep -q "^kirc " || fail "--version"

# The main job: assembly of the built-in kernel plus a summary.
out=$("$kirc") || fail "main job exit $?"
echo "$out" | grep -q "v_mfma_f32_16x16x16_f16" || fail "main job has no MFMA"
echo "$out" | grep -q "// registers:" || fail "main job has no summary"

# Each --emit kind; relative paths resolve against BUILD_WORKING_DIRECTORY.
mkdir -p work && cp "$kernels"/copy_f32.kir work/
BUILD_WORKING_DIRECTORY="$TEST_TMPDIR/work" "$kirc" compile copy_f32.kir -o copy.s || fail "asm"
grep -q "buffer_load_dwordx4" work/copy.s || fail "copy.s lacks dwordx4"
BUILD_WORKING_DIRECTORY="$TEST_TMPDIR/work" "$kirc" compile copy_f32.kir --emit=obj || fail "obj"
head -c 4 work/copy_f32.hsaco | grep -q "ELF" || fail "copy_f32.hsaco is not ELF"
"$kirc" compile work/copy_f32.kir --emit=mir | grep -q "%v" || fail "mir has no virtual registers"
"$kirc" compile work/copy_f32.kir --emit=kir > canon.kir || fail "kir"
"$kirc" compile canon.kir --emit=kir | cmp -s - canon.kir || fail "canonical KIR is not a fixed point"
"$kirc" compile work/copy_f32.kir --annotate | grep -q "access op 0 load src elements 0,1,2,3" \
  || fail "--annotate lacks the access map"
# A tile-level gemm prints as its promoted thread-level KIR, which reads back as itself.
"$kirc" compile "$kernels"/gemm_f16_256.kir --emit=kir > gemm.kir || fail "gemm kir"
grep -q "^workgroup 64 2 2$" gemm.kir && grep -q "for %k = 0 to 64 step 32" gemm.kir \
  && ! grep -q "gemm C" gemm.kir || fail "--emit=kir did not print the promoted gemm"
"$kirc" compile gemm.kir --emit=kir | cmp -s - gemm.kir || fail "promoted KIR is not a fixed point"

# Errors: stderr names the place, exit status 1, nothing on stdout.
expect_error() {  # expected-substring, args...
  local want=$1; shift
  "$kirc" "$@" > stdout.txt 2> stderr.txt
  local st=$?
  [ $st -eq 1 ] || fail "exit $st (want 1) for: $*"
  grep -qF -- "$want" stderr.txt || { cat stderr.txt; fail "stderr lacks '$want' for: $*"; }
  [ ! -s stdout.txt ] || fail "stdout not empty for: $*"
}
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
"$kirc" --help | grep -q "kirc verify FILE.kir" || fail "--help lacks verify"
out=$("$kirc" verify work/copy_f32.kir --mcpu=gfx908) || fail "verify exit $?"
echo "$out" | grep -q "verify: kernel copy_f32 on gfx908: 2 memory instructions, 2 proved" || fail "verify report: $out"
echo "$out" | grep -q "verify: every address proved" || fail "verify summary"
"$kirc" compile work/copy_f32.kir --verify > verified.s 2> report.txt || fail "compile --verify exit $?"
grep -q "buffer_load_dwordx4" verified.s || fail "compile --verify: no assembly on stdout"
grep -q "every address proved" report.txt || fail "compile --verify: no report on stderr"
"$kirc" compile work/copy_f32.kir --verify -o verified2.s > report2.txt || fail "compile --verify -o exit $?"
grep -q "every address proved" report2.txt || fail "compile --verify -o: no report on stdout"
expect_error "verify needs a .kir file" verify
expect_error "does not exist on gfx908" verify "$kernels"/mma_16x16x16_bf16.kir --mcpu=gfx908

# kirc run --code-object: runs an existing code object (relative to
# BUILD_WORKING_DIRECTORY like every path) and refuses one of another kernel.
BUILD_WORKING_DIRECTORY="$TEST_TMPDIR/work" "$kirc" run copy_f32.kir --device=emu \
  --code-object=copy_f32.hsaco > run.txt || { cat run.txt; fail "run --code-object exit $?"; }
grep -q "code object $TEST_TMPDIR/work/copy_f32.hsaco (not recompiled)" run.txt || fail "run --code-object report"
grep -q "^PASS" run.txt || fail "run --code-object did not pass"
"$kirc" compile "$kernels"/add_f16.kir --emit=obj -o add.hsaco || fail "obj add_f16"
expect_error "it has no kernel 'copy_f32' (it has: add_f16)" run work/copy_f32.kir --device=emu --code-object=add.hsaco
expect_error "it is for gfx942, not gfx908" run work/copy_f32.kir --device=emu --mcpu=gfx908 --code-object=work/copy_f32.hsaco
expect_error "--code-object is an option of \`kirc run\`" compile work/copy_f32.kir --code-object=add.hsaco

# Issue 7: target IDs, several kernels in one code object, offload bundles.
llvm=/usr/lib/llvm-22/bin
"$kirc" compile work/copy_f32.kir --mcpu=gfx90a:xnack- --emit=obj -o tid.hsaco || fail "target ID obj"
"$llvm"/llvm-readelf -h tid.hsaco | grep -q "Flags: *0x63f, gfx90a, xnack-, sramecc$" || fail "target ID e_flags"
"$kirc" compile work/copy_f32.kir --mcpu=gfx942:xnack-:sramecc+ | grep -q '^  .amdgcn_target "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"$' \
  || fail "target ID not canonical in .amdgcn_target"
expect_error "invalid target ID 'gfx90a:xnack'" compile work/copy_f32.kir --mcpu=gfx90a:xnack
expect_error "feature 'xnack' appears more than once" compile work/copy_f32.kir --mcpu=gfx90a:xnack+:xnack-
"$kirc" compile work/copy_f32.kir "$kernels"/add_f16.kir --emit=obj -o mod.hsaco || fail "two-kernel obj"
[ "$("$llvm"/llvm-readelf --notes mod.hsaco | grep -cE '^    \.name: +(copy_f32|add_f16)$')" = 2 ] || fail "mod.hsaco lists both kernels"
expect_error "give -o PATH" compile work/copy_f32.kir "$kernels"/add_f16.kir --emit=obj
expect_error "kernel name 'copy_f32' is used by both" compile work/copy_f32.kir work/copy_f32.kir
sed 's/^target gfx942$/target gfx90a/' "$kernels"/add_f16.kir > add90.kir
expect_error "is for gfx942 and add90.kir for gfx90a" compile work/copy_f32.kir add90.kir
"$kirc" compile work/copy_f32.kir --mcpu=gfx90a:xnack-,gfx942:sramecc+:xnack- --emit=bundle -o copy.hipfb || fail "bundle"
head -c 24 copy.hipfb | grep -q "__CLANG_OFFLOAD_BUNDLE__" || fail "bundle magic"
"$llvm"/clang-offload-bundler -list -type=o -input=copy.hipfb | grep -qx "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" || fail "bundle entries"
expect_error "several targets need --emit=bundle" compile work/copy_f32.kir --mcpu=gfx90a,gfx942 --emit=obj
expect_error "cannot share a bundle" compile work/copy_f32.kir --mcpu=gfx90a,gfx90a:xnack- --emit=bundle -o x.hipfb

echo "all kirc CLI checks passed"
