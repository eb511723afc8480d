#!/usr/bin/env bash
# Installs every Debian package this project needs to build, test and produce
# AMDGPU code objects. Idempotent and quick when everything is present: each
# package is checked with dpkg-query first, and apt-get runs only for missing ones.
#
# Usage: third_party/install_deps.sh           install what is missing
#        third_party/install_deps.sh --check   only report; exit 1 if something is missing
#
# What each package is for:
#   bazel-bootstrap           Bazel 4.2.3 (works offline; see WORKSPACE)
#   libabsl-dev               Abseil 20220623 (@system//:absl)
#   libgtest-dev              GoogleTest 1.12.1 (@system//:gtest_main)
#   libz3-dev z3              Z3 4.8.12 for the verifier (loaded on first use: verify/z3_lazy.h)
#   llvm-22                   llvm-mc, llvm-objdump, llvm-readelf (/usr/lib/llvm-22/bin)
#   lld-22                    ld.lld: relocatable object -> code object (.hsaco)
#   llvm-22-dev               LLVM 22's headers and static MC libraries: kirc
#                             assembles, disassembles and reads code objects in
#                             process (compiler/object/llvm_in_process.h,
#                             @system//:llvm, third_party/llvm_libs.bzl)
#   llvm-22-tools             FileCheck
#   clang-22                  clang (HIP host code, sanitizer builds)
#   clang-tools-22            clang-offload-bundler
#   libclang-rt-22-dev        sanitizer and libFuzzer runtimes for clang-22
#   libamdhip64-dev           HIP runtime 5.2.3 headers and -lamdhip64 (@system//:hip)
#   pkgconf make cmake        building the installed library's example consumer
#                             outside Bazel (//packaging:install_test)
set -euo pipefail

PACKAGES=(
  bazel-bootstrap
  libabsl-dev
  libzstd-dev
  libgtest-dev
  libz3-dev
  z3
  llvm-22
  lld-22
  llvm-22-dev
  llvm-22-tools
  clang-22
  clang-tools-22
  libclang-rt-22-dev
  libamdhip64-dev
  pkgconf
  make
  cmake
)

# Tools the build calls by path; checked after installing.
LLVM_BIN=/usr/lib/llvm-22/bin
TOOLS=(llvm-mc ld.lld llvm-objdump llvm-readelf FileCheck clang clang-offload-bundler)

check_only=0
case "${1:-}" in
  "") ;;
  --check) check_only=1 ;;
  -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
  *) echo "install_deps.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

is_installed() {
  local status
  status="$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)"
  [[ "$status" == "install ok installed" ]]
}

missing=()
for p in "${PACKAGES[@]}"; do
  if ! is_installed "$p"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install_deps.sh: all ${#PACKAGES[@]} packages already installed: ${PACKAGES[*]}"
elif ((check_only)); then
  echo "install_deps.sh: missing packages: ${missing[*]}" >&2
  echo "install_deps.sh: run third_party/install_deps.sh (without --check) to install them" >&2
  exit 1
else
  SUDO=()
  if [[ "$(id -u)" -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "install_deps.sh: not root and sudo is not available; as root run:" >&2
      echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
      exit 1
    fi
    SUDO=(sudo)
  fi
  echo "install_deps.sh: installing missing packages: ${missing[*]}"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
  still_missing=()
  for p in "${missing[@]}"; do
    is_installed "$p" || still_missing+=("$p")
  done
  if ((${#still_missing[@]} > 0)); then
    echo "install_deps.sh: still not installed after apt-get: ${still_missing[*]}" >&2
    exit 1
  fi
  echo "install_deps.sh: installed ${#missing[@]} package(s): ${missing[*]}"
fi

bad_tools=()
for t in "${TOOLS[@]}"; do
  [[ -x "$LLVM_BIN/$t" ]] || bad_tools+=("$LLVM_BIN/$t")
done
if ((${#bad_tools[@]} > 0)); then
  echo "install_deps.sh: these tools are missing although their packages are installed: ${bad_tools[*]}" >&2
  exit 1
fi
echo "install_deps.sh: LLVM tools present in $LLVM_BIN: ${TOOLS[*]}"
