#!/usr/bin/env bash
# Compiles a KIR kernel with kirc for each listed target and checks the
# assembly with LLVM's FileCheck against a check file whose prefixes are the
# upper-cased targets (GFX908, GFX90A, GFX942, GFX950) plus CHECK for all of them.
# Usage: run_filecheck.sh KIRC KERNEL.kir CHECKFILE TARGET...
set -euo pipefail
kirc=$1; kernel=$2; checks=$3; shift 3
llvm_bin=${KIRC_LLVM_BIN:-/usr/lib/llvm-22/bin}
filecheck=$llvm_bin/FileCheck
[ -x "$filecheck" ] || { echo "FileCheck not found at $filecheck (Debian package llvm-22-tools)"; exit 1; }
for t in "$@"; do
  prefix=$(echo "$t" | tr '[:lower:]' '[:upper:]')
  echo "== $kernel on $t"
  "$kirc" compile "$kernel" --mcpu="$t" -o "$TEST_TMPDIR/$t.s"
  "$filecheck" --allow-unused-prefixes --check-prefixes=CHECK,"$prefix" "$checks" --input-file="$TEST_TMPDIR/$t.s"
done
echo "all FileCheck checks passed"
