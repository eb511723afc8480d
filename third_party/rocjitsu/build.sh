#!/usr/bin/env bash
# Builds AMD's functional GPU emulator rocjitsu (ROCm/rocm-systems,
# emulation/rocjitsu, MIT licence) from a rocm-systems checkout, together with
# kirc's runner hw/rocjitsu/runner/kirc_rocjitsu_run.cc, and installs:
#   DIR/bin/kirc-rocjitsu-run         the runner (one dispatch per request file)
#   DIR/share/configs/<gfxN>.json     one rocjitsu config per processor it runs
#   DIR/ROCJITSU_COMMIT               the rocm-systems commit it was built from
# rocjitsu's sources are only read: everything is written under DIR (the
# CMake build tree is DIR/build). Nothing of rocjitsu is kept in this repository.
#
# Usage: third_party/rocjitsu/build.sh --source=ROCM_SYSTEMS_CHECKOUT [--out=DIR]
#            [--jobs=N] [--build-type=Release|Debug] [--any-commit] [--check]
#   --source=PATH   a rocm-systems checkout (its root or its emulation/rocjitsu)
#   --out=DIR       install directory (default $HOME/.cache/kirc/rocjitsu)
#   --jobs=N        parallel compile jobs (default: the number of cores)
#   --build-type=T  Release (default, -O2) or Debug (-O0 -g)
#   --any-commit    accept a checkout whose HEAD is not the pinned commit
#   --check         only check packages, tools and the checkout; build nothing
#                   (exit 1 if something is missing or wrong)
#   -h, --help      this text
#
# Pinned commit: the one below (PIN). See third_party/rocjitsu/README.md.
set -euo pipefail

PIN=96b8d0f254623442c4ffcb0eca6d6b6af2d313fb

# Debian packages (installed like third_party/install_deps.sh: dpkg-query
# first, apt-get only for the missing ones). What each is for:
#   clang-22            the C++20 compiler (rocjitsu needs C++20; GCC 12 is too old)
#   cmake ninja-build   rocjitsu's build
#   libstdc++-12-dev    the C++ standard library clang-22 compiles against
#   libfmt-dev          {fmt} 9, behind our <format> shim (libstdc++ 12 has no <format>)
#   libdrm-dev          <libdrm/drm.h>, included by rocjitsu's vendored kfd_ioctl.h
#   libflatbuffers-dev  FlatBuffers 2.0.8 (config JSON parsing) instead of the
#   flatbuffers-compiler  v24.3.25 that rocjitsu fetches from GitHub; flatc for its schemas
#   git                 reading the checkout's commit
PACKAGES=(
  clang-22
  cmake
  ninja-build
  libstdc++-12-dev
  libfmt-dev
  libdrm-dev
  libflatbuffers-dev
  flatbuffers-compiler
  git
)
CLANG_BIN=/usr/lib/llvm-22/bin

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
RUNNER_SRC="$REPO/hw/rocjitsu/runner/kirc_rocjitsu_run.cc"

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "build.sh: error: $*" >&2; exit 1; }
bad_arg() { echo "build.sh: $* (try --help)" >&2; exit 2; }

source_arg=""
out="${HOME:-/root}/.cache/kirc/rocjitsu"
jobs="$(nproc 2>/dev/null || echo 2)"
build_type=Release
any_commit=0
check_only=0
for arg in "$@"; do
  case "$arg" in
    --source=*) source_arg="${arg#--source=}" ;;
    --out=*) out="${arg#--out=}" ;;
    --jobs=*) jobs="${arg#--jobs=}" ;;
    --build-type=*) build_type="${arg#--build-type=}" ;;
    --any-commit) any_commit=1 ;;
    --check) check_only=1 ;;
    -h|--help) usage; exit 0 ;;
    *) bad_arg "unknown argument '$arg'" ;;
  esac
done
[[ -n "$source_arg" ]] || bad_arg "--source=ROCM_SYSTEMS_CHECKOUT is required"
[[ -n "$out" ]] || bad_arg "--out= needs a directory"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || bad_arg "--jobs= needs a positive number, not '$jobs'"
case "$build_type" in
  Release|Debug) ;;
  *) bad_arg "--build-type= is Release or Debug, not '$build_type'" ;;
esac

start_s=$(date +%s)

# --- Packages -----------------------------------------------------------------
is_installed() {
  local status
  status="$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)"
  [[ "$status" == "install ok installed" ]]
}
missing=()
for p in "${PACKAGES[@]}"; do
  is_installed "$p" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "build.sh: all ${#PACKAGES[@]} packages installed: ${PACKAGES[*]}"
elif ((check_only)); then
  echo "build.sh: missing packages: ${missing[*]}" >&2
  echo "build.sh: run this script without --check to install them" >&2
  exit 1
else
  SUDO=()
  if [[ "$(id -u)" -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "build.sh: not root and sudo is not available; as root run:" >&2
      echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
      exit 1
    fi
    SUDO=(sudo)
  fi
  echo "build.sh: installing missing packages: ${missing[*]}"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
  still_missing=()
  for p in "${missing[@]}"; do
    is_installed "$p" || still_missing+=("$p")
  done
  if ((${#still_missing[@]} > 0)); then
    die "still not installed after apt-get: ${still_missing[*]}"
  fi
fi
for t in "$CLANG_BIN/clang" "$CLANG_BIN/clang++"; do
  [[ -x "$t" ]] || die "$t is missing although clang-22 is installed"
done
command -v cmake >/dev/null || die "cmake not on PATH"
command -v ninja >/dev/null || die "ninja not on PATH"
command -v flatc >/dev/null || die "flatc not on PATH"

# --- The checkout -------------------------------------------------------------
[[ -d "$source_arg" ]] || die "--source: '$source_arg' is not a directory"
src="$(cd "$source_arg" && pwd)"
if [[ -f "$src/emulation/rocjitsu/CMakeLists.txt" ]]; then
  rj="$src/emulation/rocjitsu"
elif [[ -f "$src/CMakeLists.txt" ]] && grep -q 'project(rocm_jit_suite' "$src/CMakeLists.txt"; then
  rj="$src"
else
  die "--source: '$src' is neither a rocm-systems checkout (no emulation/rocjitsu/CMakeLists.txt) nor its emulation/rocjitsu directory"
fi
for f in configs/gfx942_cdna3.json lib/rocjitsu/src/rocjitsu/config/config_loader.h \
         schemas/simulation_config.fbs; do
  [[ -f "$rj/$f" ]] || die "$rj has no $f: not the rocjitsu this script knows"
done

commit=unknown
if git -C "$rj" rev-parse --git-dir >/dev/null 2>&1; then
  commit="$(git -C "$rj" rev-parse HEAD)"
  if [[ "$commit" != "$PIN" ]]; then
    if ((any_commit)); then
      echo "build.sh: warning: checkout is at $commit, not the pinned $PIN (--any-commit)" >&2
    else
      die "checkout $src is at $commit, not the pinned $PIN; check out the pin (git -C $src checkout $PIN) or pass --any-commit"
    fi
  fi
  if [[ -n "$(git -C "$rj" status --porcelain -- . 2>/dev/null)" ]]; then
    echo "build.sh: warning: $rj has uncommitted changes; building them" >&2
    commit="$commit-dirty"
  fi
else
  echo "build.sh: warning: $rj is not a git checkout; its commit cannot be checked (ROCJITSU_COMMIT will say 'unknown')" >&2
  ((any_commit)) || die "not a git checkout: pass --any-commit to build it anyway"
fi
echo "build.sh: rocjitsu source $rj (commit $commit)"
[[ -f "$RUNNER_SRC" ]] || die "runner source $RUNNER_SRC is missing"

if ((check_only)); then
  echo "build.sh: --check: packages, tools and checkout are fine; would install into $out"
  exit 0
fi

# --- Configure and build ------------------------------------------------------
mkdir -p "$out"
out="$(cd "$out" && pwd)"
case "$out/" in
  "$rj/"*) die "--out=$out is inside the rocjitsu source tree; choose a directory outside it" ;;
esac
build="$out/build"
mkdir -p "$build"

# A build tree configured from another source directory cannot be reused.
if [[ -f "$build/CMakeCache.txt" ]] &&
   ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$rj" "$build/CMakeCache.txt"; then
  echo "build.sh: $build was configured for another source; starting it afresh"
  rm -rf "$build"
  mkdir -p "$build"
fi

echo "build.sh: configuring ($build_type) in $build"
# - CMAKE_PROJECT_rocm_jit_suite_INCLUDE: our file, run right after rocjitsu's
#   project(): adds the <format> shim and defines the runner target.
# - FETCHCONTENT_*: no network; FlatBuffers from Debian, no GoogleTest.
# - FETCHCONTENT_BASE_DIR: FetchContent's work dirs in the build tree, not in
#   the source tree (rocjitsu's default is <source>/third_party).
# - CMAKE_CXX_EXTENSIONS=OFF: libstdc++ 12's <experimental/simd> needs -std=c++20.
# - ROCM_PATH: an empty directory, so nothing of a ROCm install is picked up.
mkdir -p "$build/no-rocm"
cmake -S "$rj" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE="$build_type" \
  -DCMAKE_C_COMPILER="$CLANG_BIN/clang" \
  -DCMAKE_CXX_COMPILER="$CLANG_BIN/clang++" \
  -DCMAKE_CXX_EXTENSIONS=OFF \
  -DCMAKE_INSTALL_PREFIX="$out" \
  -DROCM_PATH="$build/no-rocm" \
  -DBUILD_TESTING=OFF \
  -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
  -DFETCHCONTENT_BASE_DIR="$build/_deps" \
  -DFETCHCONTENT_SOURCE_DIR_FLATBUFFERS="$HERE/cmake/flatbuffers_debian" \
  -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST="$HERE/cmake/googletest_stub" \
  -DCMAKE_PROJECT_rocm_jit_suite_INCLUDE="$HERE/cmake/kirc_runner.cmake" \
  -DKIRC_RUNNER_SOURCE="$RUNNER_SRC" \
  -DKIRC_ROCJITSU_COMMIT="$commit" \
  -DKIRC_SHIM_DIR="$HERE/shim" \
  >"$build/configure.log" 2>&1 || { tail -40 "$build/configure.log" >&2; die "cmake configure failed (log: $build/configure.log)"; }

echo "build.sh: building rocjitsu's libraries and kirc-rocjitsu-run with $jobs job(s)"
cmake --build "$build" --target kirc-rocjitsu-run -- -j "$jobs"

# --- Install ------------------------------------------------------------------
mkdir -p "$out/bin" "$out/share/configs"
install -m 0755 "$build/kirc-rocjitsu-run" "$out/bin/kirc-rocjitsu-run.new"
mv -f "$out/bin/kirc-rocjitsu-run.new" "$out/bin/kirc-rocjitsu-run"

# Configs, generated from rocjitsu's configs/ (see README.md):
#   share/configs/<gfxN>.json        what the runner loads for `target gfxN`
#   share/configs/full/<gfxN>.json   the same with rocjitsu's whole topology
# gfx942 and gfx950 come from rocjitsu's gfx942_cdna3.json and
# gfx950_cdna4.json. gfx90a and gfx908 are derived by this script from
# gfx942_cdna3.json (rocjitsu ships no config for them): the ISA family
# ("arch"), gfx_target_version and name change; topology, LDS (64 KiB), SGPR
# and VGPR budgets stay. In every config "max_ticks" (100000 ticks, which a
# long kernel exceeds) becomes 0, no limit: the runner detects an unfinished
# dispatch and enforces max_seconds itself. The configs the runner loads by
# default keep one XCD and one IOD (the runner dispatches to XCD 0 only; the
# other seven XCDs and three IODs cost ~1.5 GB and ~1 s per run).
cfgdir="$out/share/configs"
mkdir -p "$cfgdir/full"
rm -f "$cfgdir"/*.json "$cfgdir"/full/*.json
derive() { # derive SRC NAME sed-expressions...: writes full/NAME.json and NAME.json
  local from="$1" name="$2"; shift 2
  local full="$cfgdir/full/$name.json" one="$cfgdir/$name.json"
  sed "$@" -e 's/"max_ticks": *[0-9][0-9]*/"max_ticks": 0/' "$from" >"$full.tmp"
  grep -q '"max_ticks": 0' "$full.tmp" || die "could not clear max_ticks for $name"
  mv -f "$full.tmp" "$full"
  # One XCD (xcd[0:8] and the link loops over i < 8) and one IOD (iod[0:N]
  # and the IOD peer loops over i, j < N).
  sed -e 's/"xcd\[0:[0-9]*\]"/"xcd[0:1]"/' \
      -e 's/{ "var_name": "i", "start": 0, "end": 8 }/{ "var_name": "i", "start": 0, "end": 1 }/' \
      -e 's/"iod\[0:[0-9]*\]"/"iod[0:1]"/' \
      -e 's/{ "var_name": "i", "start": 0, "end": [0-9]* },$/{ "var_name": "i", "start": 0, "end": 1 },/' \
      -e 's/{ "var_name": "j", "start": 0, "end": [0-9]* }$/{ "var_name": "j", "start": 0, "end": 1 }/' \
      "$full" >"$one.tmp"
  grep -q '"xcd\[0:1\]"' "$one.tmp" && grep -q '"iod\[0:1\]"' "$one.tmp" ||
    die "could not reduce $name.json to one XCD and one IOD (rocjitsu's config format changed?)"
  mv -f "$one.tmp" "$one"
}
derive "$rj/configs/gfx942_cdna3.json" gfx942
if [[ -f "$rj/configs/gfx950_cdna4.json" ]]; then
  derive "$rj/configs/gfx950_cdna4.json" gfx950
fi
derive "$rj/configs/gfx942_cdna3.json" gfx90a \
  -e 's/"arch": *"cdna3"/"arch": "cdna2"/' \
  -e 's/"gfx_target_version": *[0-9]*/"gfx_target_version": 90010/' \
  -e 's/"marketing_name": *"[^"]*"/"marketing_name": "gfx90a (kirc: derived from gfx942_cdna3.json)"/'
derive "$rj/configs/gfx942_cdna3.json" gfx908 \
  -e 's/"arch": *"cdna3"/"arch": "cdna1"/' \
  -e 's/"gfx_target_version": *[0-9]*/"gfx_target_version": 90008/' \
  -e 's/"marketing_name": *"[^"]*"/"marketing_name": "gfx908 (kirc: derived from gfx942_cdna3.json)"/'
grep -q '"arch": "cdna2"' "$cfgdir/gfx90a.json" || die "deriving gfx90a.json failed"
grep -q '"arch": "cdna1"' "$cfgdir/gfx908.json" || die "deriving gfx908.json failed"

echo "$commit" >"$out/ROCJITSU_COMMIT"

# The runner lists the processors whose config exists and answers --version.
"$out/bin/kirc-rocjitsu-run" --version
targets="$("$out/bin/kirc-rocjitsu-run" --targets | tr '\n' ' ')"
[[ -n "$targets" ]] || die "the runner lists no processor"

# Smoke test: one dispatch per processor of a kernel of ours (assembled with
# clang-22) that stores 1000 + work-item id to a buffer above 4 GiB.
smoke="$build/smoke"
rm -rf "$smoke"
mkdir -p "$smoke"
printf '\0%.0s' {1..16} >"$smoke/kernarg.bin"
printf '\x00\x00\x00\x00\x10\x00\x00\x00' | dd of="$smoke/kernarg.bin" conv=notrunc status=none
head -c 256 /dev/zero >"$smoke/zeros.bin"
want="$(seq 1000 1063 | tr '\n' ' ')"
for t in $targets; do
  accum=""
  [[ "$t" == gfx908 ]] || accum=".amdhsa_accum_offset 4"
  cat >"$smoke/smoke-$t.s" <<EOS
.amdgcn_target "amdgcn-amd-amdhsa--$t"
.text
.globl smoke
.p2align 8
.type smoke,@function
smoke:
  s_load_dwordx2 s[2:3], s[0:1], 0
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v2, 1000, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[2:3]
  s_waitcnt vmcnt(0)
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel smoke
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 3
  .amdhsa_next_free_sgpr 4
  $accum
.end_amdhsa_kernel
EOS
  "$CLANG_BIN/clang" -x assembler --target=amdgcn-amd-amdhsa -mcpu="$t" \
    "$smoke/smoke-$t.s" -o "$smoke/smoke-$t.hsaco" || die "smoke test: cannot assemble for $t"
  cat >"$smoke/request-$t.txt" <<EOR
kirc-rocjitsu-request 1
target $t
code_object $smoke/smoke-$t.hsaco
kernel smoke
workgroup 64 1 1
grid 1 1 1
kernarg 0x7f0000000000 $smoke/kernarg.bin
load 0x1000000000 $smoke/zeros.bin
save 0x1000000000 256 $smoke/out-$t.bin
max_seconds 60
EOR
  result="$("$out/bin/kirc-rocjitsu-run" "$smoke/request-$t.txt")" || die "smoke test on $t failed (request $smoke/request-$t.txt)"
  got="$(od -An -tu4 -v "$smoke/out-$t.bin" | tr -s ' \n' '  ' | sed 's/^ //')"
  [[ "$got" == "$want" ]] || die "smoke test on $t: wrong output: $got"
  echo "build.sh: smoke test $t: $result"
done
echo "build.sh: processors: $targets"

end_s=$(date +%s)
secs=$((end_s - start_s))
printf 'build.sh: done in %dm%02ds: %s\n' $((secs / 60)) $((secs % 60)) "$out/bin/kirc-rocjitsu-run"
