#!/usr/bin/env bash
# Issue 18's kernels over buffers of 2 GiB and more (testdata/wide).
# Usage: run_wide.sh KIRC MODE KERNEL.kir [RUN ARGS...]
#   MODE verify: compiles to a code object (llvm-mc 22 and kirc's linker)
#     and proves every address (kirc verify) on gfx908, gfx90a and gfx942,
#     or on the targets a `--targets=T1,T2` RUN ARG names (fp8 kernels: gfx942);
#   MODE run: kirc run on the kernel's target in the strict emulator against
#     the reference interpreter (RUN ARGS, e.g. --workgroups=..., added).
set -euo pipefail
kirc=$1; mode=$2; kernel=$3; shift 3
case "$mode" in
  verify)
    targets="gfx908 gfx90a gfx942"
    if [ $# -gt 0 ] && [ "${1#--targets=}" != "$1" ]; then targets=$(echo "${1#--targets=}" | tr , ' '); fi
    for t in $targets; do
      echo "== $kernel on $t"
      "$kirc" compile "$kernel" --mcpu="$t" --emit=obj -o "$TEST_TMPDIR/k.hsaco"
      "$kirc" verify "$kernel" --mcpu="$t" | tail -1
    done ;;
  run)
    "$kirc" run "$kernel" "$@" ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
