#!/usr/bin/env bash
# Builds the libFuzzer targets with --config=fuzz (clang-22, ASan + UBSan) and
# runs each for SECONDS seconds, all at once, on a copy of the seed corpus
# (compiler/fuzz/corpus).
#
#   compiler/fuzz/run_fuzz.sh SECONDS [FUZZER...]     (default: every fuzzer)
#
# Exit status 0 when no fuzzer found anything; otherwise 1, with every crash,
# leak, timeout or out-of-memory input saved under $KIRC_FUZZ_OUT/artifacts
# (default /tmp/kirc-fuzz) and named on standard error. To keep one as a
# regression input, copy it into compiler/fuzz/corpus/ once it is fixed.
# Environment: KIRC_FUZZ_OUT (work directory), KIRC_FUZZ_JOBS (parallel
# fuzzing processes per fuzzer, default 1), BAZEL (default bazel),
# BAZEL_STARTUP (startup options, e.g. --output_base=DIR).
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 SECONDS [parser_fuzzer|pipeline_fuzzer ...]" >&2
  exit 2
fi
seconds=$1
shift
fuzzers=("$@")
[ ${#fuzzers[@]} -eq 0 ] && fuzzers=(parser_fuzzer pipeline_fuzzer)
repo=$(pwd)
out=${KIRC_FUZZ_OUT:-/tmp/kirc-fuzz}
mkdir -p "$out/artifacts" && out=$(cd "$out" && pwd)
jobs=${KIRC_FUZZ_JOBS:-1}
bazel=${BAZEL:-bazel}
read -r -a startup <<< "${BAZEL_STARTUP:-}"

targets=()
for f in "${fuzzers[@]}"; do targets+=("//compiler/fuzz:$f"); done
if ! "$bazel" "${startup[@]}" build --config=fuzz "${targets[@]}"; then
  echo "run_fuzz: the fuzz build failed" >&2
  exit 1
fi
bin=$("$bazel" "${startup[@]}" info --config=fuzz bazel-bin 2>/dev/null)

# The fuzzers run at once, each in the background for SECONDS (on the 2-core
# CI machine two 30 s fuzzers then take 30 s, not 60 s; each still fuzzes
# for its full time), and are judged one by one when all have ended.
count_artifacts() { ls -1 "$out/artifacts/$1-"* 2>/dev/null | wc -l; }
declare -A pids before
for f in "${fuzzers[@]}"; do
  corpus="$out/corpus/$f"
  mkdir -p "$corpus"
  cp -n compiler/fuzz/corpus/* "$corpus/" 2>/dev/null
  echo "run_fuzz: $f for ${seconds} s (corpus $corpus)" >&2
  before[$f]=$(count_artifacts "$f")
  # -timeout: one input taking longer than 10 s is a hang; -rss_limit_mb: a
  # runaway allocation is a failure, not a machine brought down.
  parallel=()
  # With -jobs, libFuzzer runs that many child processes, each logging to
  # fuzz-N.log in the working directory: one directory per fuzzer
  # ($KIRC_FUZZ_OUT/run/FUZZER), as they run at once.
  [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
  mkdir -p "$out/run/$f"
  (cd "$out/run/$f" && "$bin/compiler/fuzz/$f" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=4096 -dict="$repo/compiler/fuzz/kir.dict" \
      -print_final_stats=1 -artifact_prefix="$out/artifacts/$f-" "${parallel[@]}" \
      "$corpus") > "$out/$f.log" 2>&1 &
  pids[$f]=$!
done

status=0
for f in "${fuzzers[@]}"; do
  wait "${pids[$f]}"
  rc=$?
  after=$(count_artifacts "$f")
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)" "$out/$f.log" >&2
  if [ $rc -ne 0 ] || [ "$after" -ne "${before[$f]}" ]; then
    echo "run_fuzz: $f FAILED (exit $rc); log $out/$f.log; reproducers:" >&2
    ls -1 "$out/artifacts/$f-"* >&2 2>/dev/null
    grep -E "ERROR: |SUMMARY: |runtime error" "$out/$f.log" | head -5 >&2
    status=1
  else
    echo "run_fuzz: $f OK" >&2
  fi
done
exit $status
