#!/usr/bin/env bash
# Installs libkirc for builds outside Bazel (docs/install.md "Installing the library"):
#
#   bazel run //:install -- --prefix=/opt/kirc
#
#   PREFIX/lib/libkirc.so.VERSION, libkirc.so.MAJOR.MINOR (the SONAME), libkirc.so
#   PREFIX/lib/pkgconfig/kirc.pc
#   PREFIX/include/kirc/compiler/..., PREFIX/include/kirc/verify/verify.h
#   PREFIX/bin/kirc
#   PREFIX/share/kirc/examples/consumer/{main.cc,Makefile,CMakeLists.txt}
#
# A relative --prefix is taken from the directory `bazel run` was started in.
# Files already there are replaced; nothing else under PREFIX is touched.
set -euo pipefail

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
}

prefix=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix=*) prefix="${1#--prefix=}" ;;
    --prefix)
      [[ $# -ge 2 ]] || { echo "install: --prefix needs a directory" >&2; exit 2; }
      prefix="$2"
      shift
      ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z "$prefix" ]]; then
  echo "install: --prefix=DIR is required, e.g. bazel run //:install -- --prefix=/tmp/kirc" >&2
  exit 2
fi
if [[ "$prefix" != /* ]]; then
  prefix="${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix"
fi
prefix="${prefix%/}"
[[ -n "$prefix" ]] || prefix=/

# The files come from this script's runfiles: next to it under `bazel run`,
# or the runfiles tree of a test that has this installer as data.
runfiles=""
for d in "${RUNFILES_DIR:-}" "$0.runfiles" "${TEST_SRCDIR:-}"; do
  if [[ -n "$d" && -f "$d/kirc/packaging/install_manifest.txt" ]]; then
    runfiles="$d/kirc"
    break
  fi
done
if [[ -z "$runfiles" && -f packaging/install_manifest.txt ]]; then
  runfiles="$PWD"  # `bazel run` starts in the workspace's runfiles directory
fi
if [[ -z "$runfiles" ]]; then
  echo "install: cannot find the files to install; run it as: bazel run //:install -- --prefix=DIR" >&2
  exit 1
fi

version="" soname="" lib="" pc="" bin=""
headers=() examples=()
while read -r kind path; do
  case "$kind" in
    version) version="$path" ;;
    soname) soname="$path" ;;
    lib) lib="$path" ;;
    pc) pc="$path" ;;
    bin) bin="$path" ;;
    header) headers+=("$path") ;;
    example) examples+=("$path") ;;
    *) echo "install: unknown manifest entry '$kind'" >&2; exit 1 ;;
  esac
done < "$runfiles/packaging/install_manifest.txt"

libdir="$prefix/lib"
includedir="$prefix/include/kirc"
mkdir -p "$libdir/pkgconfig" "$includedir" "$prefix/bin" "$prefix/share/kirc/examples/consumer"

# The library under its full version, the SONAME link the dynamic loader
# looks for, and the unversioned link -lkirc finds.
install -m 0755 "$runfiles/$lib" "$libdir/libkirc.so.$version"
ln -sfn "libkirc.so.$version" "$libdir/$soname"
ln -sfn "$soname" "$libdir/libkirc.so"

for h in "${headers[@]}"; do
  install -D -m 0644 "$runfiles/$h" "$includedir/$h"
done

install -m 0755 "$runfiles/$bin" "$prefix/bin/kirc"

for e in "${examples[@]}"; do
  install -m 0644 "$runfiles/$e" "$prefix/share/kirc/examples/consumer/$(basename "$e")"
done

# kirc.pc with this prefix ('|' as the sed delimiter: the prefix has slashes).
if [[ "$prefix" == *"|"* ]]; then
  echo "install: a prefix with '|' is not supported" >&2
  exit 1
fi
sed "s|@PREFIX@|$prefix|" "$runfiles/$pc" > "$libdir/pkgconfig/kirc.pc"
chmod 0644 "$libdir/pkgconfig/kirc.pc"

echo "installed kirc $version into $prefix:"
echo "  $libdir/libkirc.so.$version ($soname, libkirc.so)"
echo "  $libdir/pkgconfig/kirc.pc"
echo "  $includedir/ (${#headers[@]} headers)"
echo "  $prefix/bin/kirc"
echo "  $prefix/share/kirc/examples/consumer/"
echo "use: PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs kirc"
