#!/usr/bin/env bash
# Peak host memory of `kirc run` on a huge buffer that one workgroup touches
# (issue 18's measured goal): prints the max RSS (KiB, /usr/bin/time -v) and
# the wall time of each case. Not a test: a benchmark to run by hand.
#
# Usage: hw/run/bench/last_wg.sh [KIRC]   (default: bazel-out/k8-opt/bin/kirc,
#                                         built by bazel build //:kirc)
# Measured 2026-12-03 (opt, 2 cores): 15.7 MB / 0.06 s (2 GiB - 64 B),
# 15.9 MB / 0.08 s (6 GiB), 15.7 MB (--workgroups), 16.6 MB / 78 s (dumps).
set -euo pipefail
kirc="${1:-bazel-out/k8-opt/bin/kirc}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
# Elements N of an f32 buffer; the last workgroup of 256 threads writes its
# last 256 elements (one workgroup, grid 1: the index is offset to the end),
# and reads the 256 before them.
kernel() {  # NAME N
  local n="$2" last=$(( $2 - 256 )) prev=$(( $2 - 512 ))
  printf 'kernel %s\ntarget gfx942\nworkgroup 256 1 1\ngrid 1 1 1\narg X : f32[%d] strides [1] readwrite\n  %%v = load X[%d + tid.x] : f32\n  %%w = add %%v, %%v\n  store X[%d + tid.x], %%w\nend\n' \
    "$1" "$n" "$prev" "$last" > "$dir/$1.kir"
}
# The same over a whole grid of N / 256 workgroups, of which --workgroups
# runs the last.
grid_kernel() {  # NAME N
  local n="$2" wgs=$(( $2 / 256 ))
  printf 'kernel %s\ntarget gfx942\nworkgroup 256 1 1\ngrid %d 1 1\narg X : f32[%d] strides [1] readwrite\n  %%v = load X[wg.x * 256 + tid.x] : f32\n  %%w = add %%v, %%v\n  store X[wg.x * 256 + tid.x], %%w\nend\n' \
    "$1" "$wgs" "$n" > "$dir/$1.kir"
}
measure() {  # LABEL ARGS...
  local label="$1"; shift
  if ! /usr/bin/time -v "$kirc" run "$@" > "$dir/out.txt" 2> "$dir/time.txt"; then
    printf '%-58s refused: %s\n' "$label" "$(head -1 "$dir/time.txt")"
    return 0
  fi
  local rss wall
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.txt")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.txt")
  printf '%-58s max RSS %8d KiB (%.2f GiB), wall %s, %s\n' "$label" "$rss" "$(echo "$rss / 1048576" | bc -l)" "$wall" \
    "$(grep -E '^(PASS|FAIL)' "$dir/out.txt")"
}
kernel last2g 536870896            # 2 GiB - 64 bytes
kernel last6g 1610612736           # 6 GiB
grid_kernel grid2g 536870656       # 2 GiB - 1 KiB, 2097151 workgroups
measure "f32[536870896] (2 GiB - 64 B), last workgroup" "$dir/last2g.kir" --device=emu
measure "f32[1610612736] (6 GiB), last workgroup" "$dir/last6g.kir" --device=emu
measure "f32[536870656], grid 2097151, --workgroups=2097150" "$dir/grid2g.kir" --device=emu --workgroups=2097150
measure "  ... --dump-buffers=X (3 x 2 GiB .npy files)" "$dir/grid2g.kir" --device=emu --workgroups=2097150 \
  --inputs=exact --dump="$dir/dump" --dump-buffers=X
