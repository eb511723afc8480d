#!/usr/bin/env bash
# Installs libkirc into $TEST_TMPDIR with //:install, then checks it the way a
# front end outside Bazel sees it: the layout, the SONAME and version, that
# only the public kir:: API is exported, that the installed headers are
# complete, and that the example consumer builds with plain g++ (clang++ with
# the same -fsanitize when libkirc.so is sanitized) through
# pkg-config (Makefile) and through CMake, runs, and prints the expected code.
#
# Usage (from Bazel): install_test.sh INSTALLER VERSION_SCRIPT KERNEL.kir
set -euo pipefail

installer=$1
version_script=$2
kernel_kir=$3

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export HOME="$tmp"  # cmake and make want one; Bazel's test environment may have none
prefix="$tmp/prefix"
start_ns=$(date +%s%N)
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# grep that reads all of its input: `grep -q` exits at the first match, and
# under pipefail the writer then dies of SIGPIPE and the pipeline fails.
has() { grep "$@" >/dev/null; }
step() {
  local ms=$((($(date +%s%N) - start_ns) / 1000000))
  printf '[%3d.%01d s] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*"
}
# contains TEXT PATTERN WHAT: grep -E PATTERN in TEXT, else a failure naming WHAT.
contains() {
  grep -Eq -- "$2" <<<"$1" || fail "$3: no match for /$2/"
}

for tool in g++ make cmake pkg-config nm readelf c++filt; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (third_party/install_deps.sh)" >&2; exit 1; }
done

# ---- install
step "install into $prefix"
"$installer" --prefix="$prefix"

version=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion kirc)
major_minor=${version%.*}
soname="libkirc.so.$major_minor"
for f in "lib/libkirc.so.$version" "lib/$soname" lib/libkirc.so lib/pkgconfig/kirc.pc bin/kirc \
         include/kirc/compiler/api/compile.h include/kirc/verify/verify.h \
         include/kirc/compiler/ir/builder.h include/kirc/compiler/isa/opcodes.def \
         share/kirc/examples/consumer/main.cc share/kirc/examples/consumer/Makefile \
         share/kirc/examples/consumer/CMakeLists.txt; do
  [[ -e "$prefix/$f" ]] || fail "missing $prefix/$f"
done
[[ "$(readlink "$prefix/lib/libkirc.so")" == "$soname" ]] || fail "libkirc.so does not link to $soname"
[[ "$(readlink "$prefix/lib/$soname")" == "libkirc.so.$version" ]] || fail "$soname does not link to libkirc.so.$version"
grep -q "^prefix=$prefix\$" "$prefix/lib/pkgconfig/kirc.pc" || fail "kirc.pc does not name prefix=$prefix"

# ---- version and SONAME
step "SONAME and version"
lib="$prefix/lib/libkirc.so.$version"
got_soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$got_soname" == "$soname" ]] || fail "SONAME is '$got_soname', expected '$soname'"
kirc_version=$("$prefix/bin/kirc" --version)
[[ "$kirc_version" == "kirc $version "* ]] ||
  fail "kirc --version says '$kirc_version' but kirc.pc says $version (KIRC_VERSION in packaging/BUILD)"
# LLVM's MC layer is linked in statically; Z3 is dlopen'd when the verifier
# first runs (verify/z3_lazy.h; the consumer below verifies a kernel).
! readelf -d "$lib" | has 'NEEDED.*libz3\.so' || fail "libkirc.so links libz3 (it should load it on first use)"
! readelf -d "$lib" | has 'NEEDED.*libLLVM' || fail "libkirc.so links libLLVM (it should link LLVM's static libraries)"

# ---- exported symbols
step "exported symbols"
# Exported: defined .dynsym entries of GLOBAL, WEAK or UNIQUE binding. The
# linker may keep a few LOCAL entries (templates the version script makes
# local): the dynamic linker never binds to those.
dynsym=$(readelf -W --dyn-syms "$lib" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK" || $5 == "UNIQUE") {sub(/@.*/, "", $8); print $8}')
n_local=$(readelf -W --dyn-syms "$lib" | awk '$7 != "UND" && $5 == "LOCAL" && $8 != ""' | wc -l)
(( n_local < 50 )) || fail "$n_local LOCAL entries in .dynsym: the version script no longer hides what it should"
symtab=$(nm -C --defined-only "$lib" 2>/dev/null | cut -c20- || true)  # empty if stripped
n_exported=$(wc -l <<<"$dynsym")
# Everything exported is a kir:: symbol (mangled _ZN3kir / _ZNK3kir, or
# typeinfo/vtable of a kir type): no std::, absl:: or Z3 code leaks out.
leaks=$(grep -Ev '^(_ZNK?3kir|_ZT[ISV]N3kir)' <<<"$dynsym" || true)
[[ -z "$leaks" ]] || fail "non-kir symbols exported: $(head -5 <<<"$leaks" | c++filt | tr '\n' ';')"
demangled=$(c++filt <<<"$dynsym")
for api in 'kir::Compile\(kir::Kernel const&, kir::CompileOptions const&\)' \
           'kir::CompileText\(' 'kir::CodeObjectFor\(' 'kir::DefaultKernelText\(' \
           'kir::VerifyAddresses\(' 'kir::VerifyResult::Report' 'kir::ParseKernel\(' \
           'kir::KernelBuilder::Build\(\) const' 'kir::LookupTarget\(' 'kir::PrintKernel'; do
  contains "$demangled" "^$api" "exported API"
done
# Internals of the lowering, the passes, promotion and the verifier are in the
# library (its symbol table) but not exported.
for internal in 'kir::ValidateKernel\(' 'kir::PromoteGemm\(' 'kir::ScheduleBlocks\(' \
                'kir::LowerCtx::' 'kir::vfy::' 'kir::HazardState::'; do
  if grep -Eq -- "^$internal" <<<"$demangled"; then
    fail "internal symbol exported: $internal"
  fi
  if [[ -n "$symtab" ]] && ! grep -Eq -- "^$internal" <<<"$symtab"; then
    fail "internal symbol $internal is not in libkirc.so at all: update this test"
  fi
done
# Every function a public header declares is defined and exported (the
# version script is generated from the headers: packaging/gen_version_script.sh).
n_functions=0
while read -r pat; do
  stem=${pat%E\*;}
  n_functions=$((n_functions + 1))
  grep -Eq "^${stem}[EB]" <<<"$dynsym" ||
    fail "declared in a public header but not exported: $(c++filt <<<"${stem}Ev" | sed 's/()$//')"
done < <(sed -n 's/^ *\(_ZN3kir[0-9][0-9]*[A-Za-z_][A-Za-z0-9_]*E\*;\)$/\1/p' "$version_script")
echo "  $n_exported symbols exported; all $n_functions functions of the public headers among them"
[[ $n_functions -gt 40 ]] || fail "only $n_functions functions found in $version_script"

# ---- headers: complete and self-sufficient with kirc.pc's flags only
step "public headers compile together"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
(cd "$prefix/include/kirc" && find . -name '*.h' | sort | sed 's|^\./\(.*\)|#include "\1"|') > "$tmp/all_headers.cc"
# shellcheck disable=SC2046
g++ -std=c++20 -fsyntax-only $(pkg-config --cflags kirc) "$tmp/all_headers.cc" ||
  fail "the installed headers do not compile on their own (a header missing from PUBLIC_HEADERS in packaging/BUILD?)"

# ---- the Makefile consumer, plain g++ outside Bazel's toolchain
# Unless libkirc.so itself is sanitized (bazel test --config=asan|ubsan builds
# it with clang-22 and -fsanitize=...): it then leaves the sanitizer runtime's
# symbols undefined, and only an executable linked by the same clang with the
# same -fsanitize provides them (GCC's libasan is a different runtime). The
# consumer is then built that way, so the sanitized run still checks the
# installed library end to end.
consumer_cxx=g++
consumer_flags=()
sanitizers=()
undefined=$(nm -D --undefined-only "$lib" | awk '{print $2}')
has '^__asan_' <<<"$undefined" && sanitizers+=(address)
has '^__ubsan_' <<<"$undefined" && sanitizers+=(undefined)
if [[ ${#sanitizers[@]} -gt 0 ]]; then
  consumer_cxx=${KIRC_SANITIZER_CXX:-/usr/lib/llvm-22/bin/clang++}
  command -v "$consumer_cxx" >/dev/null ||
    { echo "FAIL: libkirc.so is sanitized (${sanitizers[*]}) but $consumer_cxx is missing; set KIRC_SANITIZER_CXX" >&2; exit 1; }
  consumer_flags=("-fsanitize=$(IFS=,; echo "${sanitizers[*]}")")
  echo "  libkirc.so is built with -fsanitize=$(IFS=,; echo "${sanitizers[*]}"): the consumer is built by $consumer_cxx with the same"
fi
step "make ($consumer_cxx $("$consumer_cxx" -dumpversion) ${consumer_flags[*]}) the example consumer"
cp -r "$prefix/share/kirc/examples/consumer" "$tmp/make"
make -C "$tmp/make" CXX="$consumer_cxx" CXXFLAGS="-O2 -Wall ${consumer_flags[*]}" >"$tmp/make.log" 2>&1 ||
  { cat "$tmp/make.log"; fail "make failed"; }
step "run it"
readelf -d "$tmp/make/consumer" | has -E "(RUNPATH|RPATH).*\[$prefix/lib\]" || fail "consumer has no rpath to $prefix/lib"
out=$("$tmp/make/consumer")
echo "$out" | sed -n '1,4p;/v_mfma/p;/^resources/,$p'
contains "$out" '^kernel consumer_mma_16x16x16_f16 for gfx942: [0-9]+ bytes of assembly$' "consumer"
contains "$out" '^  v_mfma_f32_16x16x16_f16 v\[[0-9]+:[0-9]+\], v\[[0-9]+:[0-9]+\], v\[[0-9]+:[0-9]+\], 0$' "consumer (gfx942 MFMA, inline-0 srcC)"
contains "$out" '^  ds_read2_b64 ' "consumer (LDS fragment reads, paired)"
# Two 16x16 f16 LDS tiles with rows padded by 4 halves: 2 * 16 * 20 * 2 bytes.
contains "$out" '^resources: [0-9]+ VGPRs, 0 AGPRs, [0-9]+ SGPRs, 1280 LDS bytes, occupancy 8 waves/SIMD$' "consumer resources"
contains "$out" ', mfma 1,' "consumer instruction counts"
if [[ "$out" =~ verify:\ ([0-9]+)\ memory\ instructions,\ ([0-9]+)\ proved ]]; then
  [[ "${BASH_REMATCH[1]}" == "${BASH_REMATCH[2]}" && "${BASH_REMATCH[1]}" -ge 10 ]] ||
    fail "consumer: verifier proved ${BASH_REMATCH[2]} of ${BASH_REMATCH[1]} accesses"
else
  fail "consumer: no verify line"
fi

# gfx908 keeps the accumulator in AGPRs.
out908=$("$tmp/make/consumer" --mcpu=gfx908)
contains "$out908" '^  v_mfma_f32_16x16x16f16 a\[[0-9]+:[0-9]+\]' "consumer --mcpu=gfx908"
contains "$out908" '^  v_accvgpr_read_b32 ' "consumer --mcpu=gfx908"
contains "$out908" '^resources: [0-9]+ VGPRs, [1-9][0-9]* AGPRs' "consumer --mcpu=gfx908"

# The same kernel file through the shared library and through the kirc
# binary (statically linked by Bazel): the same instructions.
step "libkirc.so and bin/kirc agree on $(basename "$kernel_kir")"
lib_code=$("$tmp/make/consumer" --mcpu=gfx90a --lines=100000 "$kernel_kir" |
  sed -n '2,/s_endpgm/p')
bin_code=$("$prefix/bin/kirc" compile "$kernel_kir" --mcpu=gfx90a |
  awk '/^[ \t]+[a-z]/ && !/^[ \t]*[.;]/ { print; if ($0 ~ /s_endpgm/) exit }')
[[ -n "$lib_code" && "$lib_code" == "$bin_code" ]] ||
  fail "consumer and kirc compile differ: $(diff <(echo "$lib_code") <(echo "$bin_code") | head -10)"

# A compile error comes back as a status, not a crash.
printf 'kernel broken\nworkgroup 64 1 1\n  %%x = load Nope[tid.x] : f32\nend\n' > "$tmp/broken.kir"
if err=$("$tmp/make/consumer" "$tmp/broken.kir" 2>&1); then
  fail "consumer accepted a broken kernel"
fi
contains "$err" '^consumer: .*broken\.kir:[0-9]+:[0-9]+' "consumer error position"

# ---- the CMake consumer (pkg_check_modules), found through CMAKE_PREFIX_PATH
step "cmake $(cmake --version | sed -n 's/cmake version //p') the example consumer"
cp -r "$prefix/share/kirc/examples/consumer" "$tmp/cmake"
if (unset PKG_CONFIG_PATH
    cmake -S "$tmp/cmake" -B "$tmp/cmake/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="$consumer_cxx" -DCMAKE_CXX_FLAGS="${consumer_flags[*]}" &&
    cmake --build "$tmp/cmake/build") >"$tmp/cmake.log" 2>&1; then
  out_cmake=$("$tmp/cmake/build/consumer")
  [[ "$out_cmake" == "$out" ]] || fail "the CMake-built consumer prints something else than the make-built one"
else
  cat "$tmp/cmake.log"
  fail "the CMake build failed"
fi

step "done"
if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "PASS"
