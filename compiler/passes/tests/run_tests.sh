#!/usr/bin/env bash
# Runs pass tests written as text (a small lit, as LLVM's llvm-lit runs
# test/CodeGen/AMDGPU/*.mir): every `// RUN: COMMAND` line of each test file
# runs in bash with `pipefail`, where
#   kirc       is the kirc binary under test (first argument),
#   FileCheck  is LLVM 22's FileCheck,
#   not CMD    succeeds when CMD fails (exit status != 0), as lit's `not`,
#   %s         is the test file.
# A test passes when all its RUN lines succeed.
# Usage: run_tests.sh KIRC TEST.s...
set -uo pipefail
KIRC_BIN=$(realpath "$1"); shift
FILECHECK_BIN=${KIRC_LLVM_BIN:-/usr/lib/llvm-22/bin}/FileCheck
[ -x "$FILECHECK_BIN" ] || { echo "FileCheck not found at $FILECHECK_BIN (Debian package llvm-22-tools)"; exit 1; }
export KIRC_BIN FILECHECK_BIN
kirc() { "$KIRC_BIN" "$@"; }
FileCheck() { "$FILECHECK_BIN" "$@"; }
not() { if "$@"; then return 1; else return 0; fi; }
export -f kirc FileCheck not
failed=0; ran=0
for f in "$@"; do
  runs=$(sed -n 's|^// RUN: *||p' "$f")
  if [ -z "$runs" ]; then echo "FAIL $f: no // RUN: line"; failed=$((failed + 1)); continue; fi
  ok=1
  while IFS= read -r cmd; do
    cmd=${cmd//%s/$f}
    if ! bash -c "set -o pipefail; $cmd"; then
      echo "FAIL $f: $cmd"
      ok=0
    fi
  done <<<"$runs"
  ran=$((ran + 1))
  [ "$ok" = 1 ] || failed=$((failed + 1))
done
echo "$ran test files, $failed failed"
[ "$failed" = 0 ]
