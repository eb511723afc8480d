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

# Configs: gfx942 and gfx950 are rocjitsu's own (configs/). gfx90a and gfx908
# are derived by this script from gfx942_cdna3.json (rocjitsu ships none for
# them): the ISA family ("arch"), the KFD identity and the per-CU SGPR budget
# change; the topology (8 XCDs x 32 CUs), LDS (64 KiB) and the 512-entry VGPR
# file stay. In every config "max_ticks" (100000 ticks, which a long kernel
# exceeds) is set to 0, no limit: the runner detects an unfinished dispatch
# and enforces max_seconds itself.
cfgdir="$out/share/configs"
rm -f "$cfgdir"/*.json
derive() { # derive SRC DEST sed-expressions...
  local from="$1" to="$2"; shift 2
  sed "$@" -e 's/"max_ticks": *[0-9][0-9]*/"max_ticks": 0/' "$from" >"$to.tmp"
  grep -q '"max_ticks": 0' "$to.tmp" || die "could not clear max_ticks in $to"
  mv -f "$to.tmp" "$to"
}
derive "$rj/configs/gfx942_cdna3.json" "$cfgdir/gfx942.json"
if [[ -f "$rj/configs/gfx950_cdna4.json" ]]; then
  derive "$rj/configs/gfx950_cdna4.json" "$cfgdir/gfx950.json"
fi
derive "$rj/configs/gfx942_cdna3.json" "$cfgdir/gfx90a.json" \
  -e 's/"arch": *"cdna3"/"arch": "cdna2"/' \
  -e 's/"gfx_target_version": *[0-9]*/"gfx_target_version": 90010/' \
  -e 's/"marketing_name": *"[^"]*"/"marketing_name": "kirc-derived gfx90a (from gfx942_cdna3.json)"/' \
  -e 's/"family_id": *[0-9]*/"family_id": 141/'
derive "$rj/configs/gfx942_cdna3.json" "$cfgdir/gfx908.json" \
  -e 's/"arch": *"cdna3"/"arch": "cdna1"/' \
  -e 's/"gfx_target_version": *[0-9]*/"gfx_target_version": 90008/' \
  -e 's/"marketing_name": *"[^"]*"/"marketing_name": "kirc-derived gfx908 (from gfx942_cdna3.json)"/' \
  -e 's/"family_id": *[0-9]*/"family_id": 141/'
for t in gfx90a gfx908; do
  grep -q '"arch": "cdna' "$cfgdir/$t.json" || die "deriving $t.json failed"
done

echo "$commit" >"$out/ROCJITSU_COMMIT"

# The runner lists the processors whose config exists and answers --version.
"$out/bin/kirc-rocjitsu-run" --version
echo "build.sh: processors: $("$out/bin/kirc-rocjitsu-run" --targets | tr '\n' ' ')"

end_s=$(date +%s)
secs=$((end_s - start_s))
printf 'build.sh: done in %dm%02ds: %s\n' $((secs / 60)) $((secs % 60)) "$out/bin/kirc-rocjitsu-run"
