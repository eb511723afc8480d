#!/usr/bin/env bash
# Checks every #include of kirc's non-test sources against layering.txt (the
# folder DAG): an upward include fails the test, naming file, line and the
# folders it may use. Usage: layering_test.sh layering.txt FILE...
set -uo pipefail
set -f  # no globbing: "*" in layering.txt means any folder
rules=$1; shift
declare -A allowed
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  folder=${line%%:*}; rest=$(echo ${line#*:}); allowed[$folder]=" $rest "
done < "$rules"
bad=0; checked=0
for f in "$@"; do
  base=$(basename "$f")
  case "$base" in *_test.cc|*_test.h|test_util.*|*_test_base.h|bench.cc|*_main.cc) continue ;; esac
  [ "$f" = hw/regression.cc ] && continue
  dir=$(dirname "$f")
  if [ -z "${allowed[$dir]+x}" ]; then
    echo "FAIL: $f: folder $dir is not in layering.txt; place it in the DAG"; bad=1; continue
  fi
  checked=$((checked + 1))
  [ "${allowed[$dir]}" = " * " ] && continue
  while IFS=: read -r n inc; do
    inc=${inc#*\"}; inc=${inc%%\"*}
    idir=$(dirname "$inc")
    [ "$idir" = "$dir" ] && continue
    case "${allowed[$dir]}" in *" $idir "*) continue ;; esac
    echo "FAIL: $f:$n includes $inc: $dir may use only${allowed[$dir]}(layering.txt)"; bad=1
  done < <(grep -nE '^#include "(compiler|hw|verify|difftest|testdata)/' "$f")
done
[ "$checked" -gt 100 ] || { echo "FAIL: only $checked files checked (the data list is incomplete?)"; exit 1; }
[ $bad -eq 0 ] || exit 1
echo "layering: $checked files, every include within the DAG of layering.txt"
