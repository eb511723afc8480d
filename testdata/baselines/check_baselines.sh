#!/usr/bin/env bash
# Checks the clang-22 baseline code objects against their .kir kernels and
# reports what LLVM emitted.
#
# Usage: check_baselines.sh [--markdown] [--kirc=PATH] KERNEL.kir NAME.TARGET.hsaco [KIR HSACO]...
#
# A tile-level gemm kernel (`workgroup auto`) is first promoted with
# `kirc compile KERNEL.kir --mcpu=TARGET --emit=kir` (--kirc names the kirc
# binary), and the promoted kernel's workgroup, LDS and MFMA are checked.
#
# For each pair it checks that
#   - the code object defines the kernel symbol NAME (FUNC) and NAME.kd (OBJECT);
#   - the metadata (llvm-readelf --notes) has exactly one kernel, named NAME,
#     whose explicit arguments match the .kir's `arg` lines in number, order,
#     name, kind (global_buffer, 8 bytes / by_value, 4 bytes), OpenCL type and
#     access; no hidden arguments; reqd_workgroup_size = the .kir's workgroup;
#     group_segment_fixed_size = the .kir's LDS bytes (rows padded by `pad`);
#     no scratch and no spills;
#   - the kernel symbol's disassembly (llvm-objdump -d --mcpu=TARGET) decodes,
#     ends in s_endpgm, and has the .kir's MFMA instruction if it uses one;
# and prints the kernarg layout, register counts, the kernel descriptor and the
# distinct instruction mnemonics of the kernel symbol (clang's extra callable
# copy __clang_ocl_kern_imp_NAME is not a kernel and is not looked at).
# With --markdown it prints only the tables of testdata/baselines/README.md.
set -euo pipefail

llvm_bin=${KIRC_LLVM_BIN:-/usr/lib/llvm-22/bin}
readelf=$llvm_bin/llvm-readelf
objdump=$llvm_bin/llvm-objdump
for t in "$readelf" "$objdump"; do
  [ -x "$t" ] || { echo "$t not found: run third_party/install_deps.sh (llvm-22)"; exit 1; }
done

markdown=0
kirc=""
while [ $# -gt 0 ]; do
  case "$1" in
    --markdown) markdown=1; shift ;;
    --kirc=*) kirc=${1#--kirc=}; shift ;;
    *) break ;;
  esac
done
if [ $# -eq 0 ] || [ $(($# % 2)) -ne 0 ]; then
  echo "usage: $0 [--markdown] [--kirc=PATH] KERNEL.kir NAME.TARGET.hsaco [KIR HSACO]..." >&2
  exit 2
fi

if [ -n "${TEST_TMPDIR:-}" ]; then
  tmp=$TEST_TMPDIR
else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fi
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
say() { if [ $markdown -eq 0 ]; then echo "$@"; fi; }

# Facts from a .kir file, one per line:
#   name NAME | workgroup X Y Z | lds BYTES | mfma OP
#   arg INDEX NAME KIND SIZE TYPE_NAME ACCESS
kir_facts() {
  awk '
    function esize(t) { return t == "f32" || t == "i32" ? 4 : t ~ /^f8/ ? 1 : 2 }
    # fp8 (f8e4m3fnuz, f8e5m2fnuz, f8e4m3fn, f8e5m2) travels as its byte: uchar.
    function ocltype(t) {
      return t == "f32" ? "float" : t == "f16" ? "half" : t == "bf16" ? "ushort" : t == "i32" ? "int" : t ~ /^f8/ ? "uchar" : "?"
    }
    { sub(/#.*/, "") }
    $1 == "kernel" { print "name", $2 }
    $1 == "workgroup" { print "workgroup", $2, $3, $4 }
    $1 == "arg" {
      line = $0; sub(/^[ \t]*arg[ \t]+/, "", line)
      split(line, parts, ":"); aname = parts[1]; gsub(/[ \t]/, "", aname)
      rest = parts[2]; sub(/^[ \t]+/, "", rest)
      if (index(rest, "[") > 0) {
        t = substr(rest, 1, index(rest, "[") - 1)
        access = "read_write"
        if (rest ~ /readonly/) access = "read_only"
        if (rest ~ /writeonly/) access = "write_only"
        print "arg", nargs++, aname, "global_buffer", 8, ocltype(t) "*", access
      } else {
        split(rest, w, /[ \t]+/); t = w[1]
        print "arg", nargs++, aname, "by_value", 4, ocltype(t), "-"
      }
    }
    $1 == "lds" {
      line = $0
      t = line; sub(/^.*:[ \t]*/, "", t); sub(/\[.*/, "", t)
      dims = line; sub(/^[^\[]*\[/, "", dims); sub(/\].*/, "", dims); gsub(/[ \t]/, "", dims)
      n = split(dims, d, ",")
      pad = 0; if (match(line, /pad[ \t]+[0-9]+/)) { p = substr(line, RSTART, RLENGTH); sub(/pad[ \t]+/, "", p); pad = p + 0 }
      elems = d[n] + pad; for (i = 1; i < n; i++) elems *= d[i]
      lds += elems * esize(t)
    }
    $2 == "=" && $3 == "mfma" { print "mfma", $4 }
    END { print "lds", lds + 0 }
  ' "$1"
}

# The metadata of the single kernel in `llvm-readelf --notes`, one per line:
#   kernels N | K KEY VALUE (kernel-level scalars) | wg X Y Z
#   A INDEX KEY VALUE (argument fields)
notes_facts() {
  awk '
    /^amdhsa\.kernels:/ { in_k = 1; next }
    /^amdhsa\./ { in_k = 0 }
    !in_k { next }
    /^  - \./ { nk++; sub(/^  - /, "    ") }
    /^    \.[a-z_]+:/ {
      key = $1; sub(/:$/, "", key); sub(/^\./, "", key)
      list = ""; in_args = (key == "args")
      if (NF >= 2) { v = $0; sub(/^[^:]*:[ \t]*/, "", v); gsub(/\047/, "", v); print "K", key, v }
      else list = key
      next
    }
    /^      - \./ && in_args { na++; sub(/^      - /, "        ") }
    /^        \.[a-z_]+:/ && in_args {
      key = $1; sub(/:$/, "", key); sub(/^\./, "", key)
      v = $0; sub(/^[^:]*:[ \t]*/, "", v); gsub(/\047/, "", v)
      print "A", na - 1, key, v
      next
    }
    /^      - [0-9]/ && list != "" { vals[list] = vals[list] " " $2 }
    END {
      print "kernels", nk + 0
      print "wg" vals["reqd_workgroup_size"]
    }
  ' "$1"
}

declare -a rows_res rows_mn
union_file=$tmp/union.txt
: >"$union_file"

while [ $# -gt 0 ]; do
  kir=$1; hsaco=$2; shift 2
  base=$(basename "$hsaco" .hsaco)
  target=${base##*.}
  stem=${base%.*}
  if grep -Eq '^[[:space:]]*workgroup[[:space:]]+auto' "$kir"; then
    # Tile-level gemm: the facts come from the promoted, thread-level kernel.
    if [ -z "$kirc" ] || [ ! -x "$kirc" ]; then
      fail "$kir has 'workgroup auto': pass --kirc=PATH to promote it"
      continue
    fi
    if ! "$kirc" compile "$kir" --mcpu="$target" --emit=kir -o "$tmp/promoted.kir" 2>"$tmp/kirc.err"; then
      fail "$kir: kirc could not promote it for $target: $(cat "$tmp/kirc.err")"
      continue
    fi
    kir_facts "$tmp/promoted.kir" >"$tmp/kir.txt"
    promoted=" (.kir promoted by kirc --emit=kir)"
  else
    kir_facts "$kir" >"$tmp/kir.txt"
    promoted=""
  fi
  name=$(awk '$1 == "name" { print $2 }' "$tmp/kir.txt")
  say "== $name on $target ($hsaco)$promoted"
  [ "$name" = "$stem" ] || fail "$hsaco: file name says kernel '$stem', $kir says '$name'"

  # 1. Symbols.
  "$readelf" --dyn-syms -W "$hsaco" >"$tmp/syms.txt"
  awk -v n="$name" '$4 == "FUNC" && $NF == n { f = 1 } END { exit !f }' "$tmp/syms.txt" \
    || fail "$hsaco: no FUNC symbol '$name'"
  awk -v n="$name.kd" '$4 == "OBJECT" && $NF == n { f = 1 } END { exit !f }' "$tmp/syms.txt" \
    || fail "$hsaco: no OBJECT symbol '$name.kd' (kernel descriptor)"
  say "symbols: $name (FUNC), $name.kd (OBJECT)"

  # 2. Metadata: arguments, kernarg layout, workgroup size, LDS, registers.
  "$readelf" --notes "$hsaco" >"$tmp/notes.txt"
  notes_facts "$tmp/notes.txt" >"$tmp/md.txt"
  k() { awk -v key="$1" '$1 == "K" && $2 == key { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }' "$tmp/md.txt"; }
  a() { awk -v i="$1" -v key="$2" '$1 == "A" && $2 == i && $3 == key { print $4; exit }' "$tmp/md.txt"; }
  nkernels=$(awk '$1 == "kernels" { print $2 }' "$tmp/md.txt")
  [ "$nkernels" = 1 ] || fail "$hsaco: metadata lists $nkernels kernels, expected 1"
  [ "$(k name)" = "$name" ] || fail "$hsaco: metadata kernel name '$(k name)', expected '$name'"
  [ "$(k symbol)" = "$name.kd" ] || fail "$hsaco: metadata .symbol '$(k symbol)', expected '$name.kd'"

  nmeta=$(awk '$1 == "A" { n = $2 + 1 > n ? $2 + 1 : n } END { print n + 0 }' "$tmp/md.txt")
  nexplicit=$(awk '$1 == "A" && $3 == "value_kind" && $4 !~ /^hidden_/ { n++ } END { print n + 0 }' "$tmp/md.txt")
  nkir=$(awk '$1 == "arg" { n++ } END { print n + 0 }' "$tmp/kir.txt")
  [ "$nexplicit" = "$nkir" ] || fail "$hsaco: $nexplicit explicit args in the metadata, $kir has $nkir"
  nhidden=$((nmeta - nexplicit))
  [ "$nhidden" = 0 ] || fail "$hsaco: $nhidden hidden args in the metadata (expected none)"
  say "kernarg layout ($nmeta args, .kernarg_segment_size $(k kernarg_segment_size), align $(k kernarg_segment_align)):"
  say "  idx  offset  size  name      value_kind     type_name   access"
  while read -r _ i aname kind size type access; do
    off=$(a "$i" offset); msize=$(a "$i" size); mkind=$(a "$i" value_kind)
    mname=$(a "$i" name); mtype=$(a "$i" type_name); macc=$(a "$i" actual_access)
    say "$(printf '  %-4s %-7s %-5s %-9s %-14s %-11s %s' "$i" "$off" "$msize" "$mname" "$mkind" "$mtype" "${macc:--}")"
    [ "$mname" = "$aname" ] || fail "$hsaco: arg $i is named '$mname', $kir has '$aname'"
    [ "$mkind" = "$kind" ] || fail "$hsaco: arg $i ($aname) is $mkind, expected $kind"
    [ "$msize" = "$size" ] || fail "$hsaco: arg $i ($aname) has size $msize, expected $size"
    [ "$mtype" = "$type" ] || fail "$hsaco: arg $i ($aname) has type '$mtype', expected '$type'"
    if [ "$access" != "-" ] && [ "$access" != "read_write" ]; then
      [ "$macc" = "$access" ] || fail "$hsaco: arg $i ($aname) access '$macc', expected '$access'"
    fi
  done < <(awk '$1 == "arg"' "$tmp/kir.txt")

  kwg=$(awk '$1 == "workgroup" { print $2, $3, $4 }' "$tmp/kir.txt")
  mwg=$(awk '$1 == "wg" { print $2, $3, $4 }' "$tmp/md.txt")
  [ "$mwg" = "$kwg" ] || fail "$hsaco: reqd_workgroup_size '$mwg', $kir has workgroup '$kwg'"
  klds=$(awk '$1 == "lds" { print $2 }' "$tmp/kir.txt")
  mlds=$(k group_segment_fixed_size)
  [ "$mlds" = "$klds" ] || fail "$hsaco: LDS $mlds bytes, $kir allocates $klds"
  for key in private_segment_fixed_size vgpr_spill_count sgpr_spill_count; do
    [ "$(k $key)" = 0 ] || fail "$hsaco: .$key is $(k $key), expected 0"
  done
  [ "$(k wavefront_size)" = 64 ] || fail "$hsaco: wavefront size $(k wavefront_size)"
  vgpr=$(k vgpr_count); agpr=$(k agpr_count); sgpr=$(k sgpr_count)
  say "reqd_workgroup_size $mwg, max_flat_workgroup_size $(k max_flat_workgroup_size), LDS $mlds bytes, VGPRs $vgpr, AGPRs $agpr, SGPRs $sgpr, scratch $(k private_segment_fixed_size)"

  # 3. Kernel descriptor, as llvm-objdump decodes it.
  if [ $markdown -eq 0 ]; then
    echo "kernel descriptor:"
    "$objdump" -D --mcpu="$target" --disassemble-symbols="$name.kd" "$hsaco" \
      | awk '/^\t\.amdhsa_/ { sub(/^\t/, ""); line = line sep $0; sep = ", " } END { print "  " line }'
  fi

  # 4. Disassembly of the kernel symbol only.
  "$objdump" -d --mcpu="$target" --disassemble-symbols="$name" "$hsaco" >"$tmp/dis.txt"
  awk -F'\t' '/^\t/ { split($2, w, " "); print w[1] }' "$tmp/dis.txt" >"$tmp/mn_all.txt"
  ninstr=$(wc -l <"$tmp/mn_all.txt")
  [ "$ninstr" -gt 0 ] || fail "$hsaco: no instructions in symbol $name"
  [ "$(tail -n 1 "$tmp/mn_all.txt")" = s_endpgm ] || fail "$hsaco: $name does not end in s_endpgm"
  if grep -qv '^[a-z][a-z0-9_]*$' "$tmp/mn_all.txt"; then
    fail "$hsaco: undecodable instructions: $(grep -v '^[a-z][a-z0-9_]*$' "$tmp/mn_all.txt" | sort -u | tr '\n' ' ')"
  fi
  sort -u "$tmp/mn_all.txt" >"$tmp/mn.txt"
  while read -r _ op; do   # f32_16x16x16_f16 -> v_mfma_f32_16x16x16f16, _f16, _bf16_1k, ...
    shape=${op#f32_}; shape=${shape%_*}; ty=${op##*_}
    re="^v_mfma_f32_${shape}_?${ty}(_1k)?\$"
    case "$op" in
      # fp8 MFMAs keep both formats in the name (f32_16x16x32_fp8_bf8 ->
      # v_mfma_f32_16x16x32_fp8_bf8); gfx950's K=128/64 shapes are the
      # f8f6f4 MFMA with the formats in cbsz/blgp (f32_16x16x128_fp8_bf8 ->
      # v_mfma_f32_16x16x128_f8f6f4).
      *_fp8_* | *_bf8_*) re="^v_mfma_(${op}|f32_${shape%%_*}_f8f6f4)\$" ;;
    esac
    grep -Eq "$re" "$tmp/mn.txt" || fail "$hsaco: kir uses mfma $op, no instruction matches $re"
  done < <(awk '$1 == "mfma"' "$tmp/kir.txt" | sort -u)
  cat "$tmp/mn.txt" >>"$union_file"
  mnemonics=$(paste -sd' ' "$tmp/mn.txt")
  say "$ninstr instructions, $(wc -l <"$tmp/mn.txt") distinct mnemonics: $mnemonics"
  say ""

  rows_res+=("| $name | $target | $(k kernarg_segment_size) | $nmeta | $vgpr | $agpr | $sgpr | $mlds | $ninstr |")
  rows_mn+=("| $name | $target | $(sed 's/.*/`&`/' "$tmp/mn.txt" | paste -sd' ' | sed 's/` `/`, `/g') |")
done

union=$(sort -u "$union_file")
if [ $markdown -eq 1 ]; then
  echo "| kernel | target | kernarg bytes | args | VGPRs | AGPRs | SGPRs | LDS bytes | instructions |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows_res[@]}"
  echo
  echo "| kernel | target | distinct mnemonics |"
  echo "|---|---|---|"
  printf '%s\n' "${rows_mn[@]}"
  echo
  echo "Union over all baselines ($(echo "$union" | wc -l) mnemonics):"
  echo
  echo "$union" | sed 's/.*/`&`/' | paste -sd' ' | sed 's/` `/`, `/g'
else
  echo "== union over all baselines: $(echo "$union" | wc -l) distinct mnemonics"
  echo "$union" | paste -sd' '
fi

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
say "all baseline checks passed"
