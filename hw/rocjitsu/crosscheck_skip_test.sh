#!/bin/bash
# Without a rocjitsu build the cross-check sweep must say it skipped, name
# how to build one, and pass; with a build named that is missing it must
# fail (exit 2) naming what it looked for.
set -u
tool="$1"
unset KIRC_ROCJITSU
out="$("$tool" 2>&1)"; rc=$?
if [[ $rc -ne 0 || "$out" != "skipped: no rocjitsu build named"*"third_party/rocjitsu/build.sh"* ]]; then
  echo "FAIL: without a build: exit $rc, output: $out"; exit 1
fi
out="$("$tool" --rocjitsu="$TEST_TMPDIR/none" 2>&1)"; rc=$?
if [[ $rc -ne 2 || "$out" != *"$TEST_TMPDIR/none/bin/kirc-rocjitsu-run"* ]]; then
  echo "FAIL: with a missing build: exit $rc, output: $out"; exit 1
fi
out="$("$tool" --only=nonsense 2>&1)"; rc=$?
if [[ $rc -ne 2 || "$out" != *"usage"* ]]; then
  echo "FAIL: a bad flag: exit $rc, output: $out"; exit 1
fi
echo "PASS"
