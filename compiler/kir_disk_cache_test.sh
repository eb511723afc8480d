#!/usr/bin/env bash
# A second build with --disk_cache is served from the cache: the kir_kernel
# actions and the kir_verify_test / kir_emu_test results of compiler/kir.bzl.
#
# Builds and tests one kernel with a nested Bazel in two fresh copies of a tiny
# workspace (at different paths, so with different output bases) that share a
# disk cache. The first run executes everything; the second must execute
# nothing: every kirc action and every test comes from the disk cache, and the
# outputs are byte-identical. Different workspace paths also show that no
# absolute path of the workspace reaches an action key.
#
# The tiny workspace uses the real compiler/kir.bzl, with //:kirc (the kirc
# kir.bzl's rules run) a prebuilt kirc (this test's data), so the nested Bazel
# compiles no C++.
#
# Usage: kir_disk_cache_test.sh KIRC KIR_BZL KERNEL.kir
# Needs `bazel` (4.2.3) on PATH or $BAZEL; runs offline.
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
[ $# -eq 3 ] || fail "usage: $0 KIRC KIR_BZL KERNEL.kir"
kirc=$(realpath "$1"); kir_bzl=$(realpath "$2"); kernel=$(realpath "$3")
bazel=${BAZEL:-$(command -v bazel)} || fail "bazel is not on PATH (set BAZEL)"
top=${TEST_TMPDIR:-$(mktemp -d)}/kir_disk_cache
rm -rf "$top" && mkdir -p "$top" || fail "cannot create $top"
cache="$top/disk_cache"

make_workspace() {  # DIR
  local ws=$1
  mkdir -p "$ws/compiler" "$ws/k" "$ws/stubs/rules_cc/cc" "$ws/stubs/rules_java/java" \
    "$ws/stubs/remote_coverage_tools"
  # Offline stand-ins for the repositories Bazel 4.2.3 would download (as in
  # the project's third_party/; see its README).
  cat > "$ws/WORKSPACE" <<'EOF'
workspace(name = "kirc")
local_repository(name = "rules_cc", path = "stubs/rules_cc")
local_repository(name = "rules_java", path = "stubs/rules_java")
local_repository(name = "remote_coverage_tools", path = "stubs/remote_coverage_tools")
EOF
  echo 'workspace(name = "rules_cc")' > "$ws/stubs/rules_cc/WORKSPACE"
  touch "$ws/stubs/rules_cc/BUILD" "$ws/stubs/rules_cc/cc/BUILD"
  printf '%s\n' "cc_library = native.cc_library" "cc_binary = native.cc_binary" \
    "cc_test = native.cc_test" "cc_import = native.cc_import" "cc_toolchain = native.cc_toolchain" \
    "cc_toolchain_suite = native.cc_toolchain_suite" "cc_proto_library = native.cc_proto_library" \
    "objc_library = native.objc_library" "fdo_profile = native.fdo_profile" > "$ws/stubs/rules_cc/cc/defs.bzl"
  echo 'workspace(name = "rules_java")' > "$ws/stubs/rules_java/WORKSPACE"
  touch "$ws/stubs/rules_java/BUILD" "$ws/stubs/rules_java/java/BUILD"
  printf '%s\n' "java_binary = native.java_binary" "java_import = native.java_import" \
    "java_library = native.java_library" "java_toolchain = native.java_toolchain" \
    "java_runtime = native.java_runtime" "java_proto_library = native.java_proto_library" \
    > "$ws/stubs/rules_java/java/defs.bzl"
  echo 'workspace(name = "remote_coverage_tools")' > "$ws/stubs/remote_coverage_tools/WORKSPACE"
  cat > "$ws/stubs/remote_coverage_tools/BUILD" <<'EOF'
package(default_visibility = ["//visibility:public"])
filegroup(name = "coverage_report_generator", srcs = [])
filegroup(name = "lcov_merger", srcs = [])
EOF
  printf 'build --spawn_strategy=processwrapper-sandbox\nbuild --show_timestamps=false\n' > "$ws/.bazelrc"
  cp "$kir_bzl" "$ws/compiler/kir.bzl"
  echo 'exports_files(["kir.bzl"])' > "$ws/compiler/BUILD"
  cp "$kirc" "$ws/kirc.bin" && chmod 755 "$ws/kirc.bin"
  cat > "$ws/BUILD" <<'EOF'
package(default_visibility = ["//visibility:public"])
sh_binary(name = "kirc", srcs = ["kirc.bin"])
EOF
  cp "$kernel" "$ws/k/kernel.kir"
  cat > "$ws/k/BUILD" <<'EOF'
load("//compiler:kir.bzl", "kir_emu_test", "kir_kernel", "kir_verify_test")
kir_kernel(name = "kernel_gfx90a", src = "kernel.kir", mcpu = "gfx90a")
kir_verify_test(name = "verify_test", size = "small", kernel = ":kernel_gfx90a")
kir_emu_test(name = "emu_test", size = "small", kernel = ":kernel_gfx90a")
EOF
}

run_bazel() {  # DIR LOG
  # A clean environment (none of the outer test's variables), a private
  # output root, no user rc file (the system one, Debian's /etc/bazel/bazelrc,
  # says where Bazel is installed); --batch leaves no server.
  (cd "$1" && env -i PATH=/usr/bin:/bin HOME="$top/home" TMPDIR="$top/tmp" \
    "$bazel" --batch --nohome_rc --output_user_root="$top/root" \
    test --disk_cache="$cache" --test_output=errors --execution_log_json_file="$2.exec.json" \
    --noexperimental_split_xml_generation //k:all) > "$2" 2>&1
}
# --noexperimental_split_xml_generation: by default Bazel writes each test.xml
# in a spawn of its own whose command line holds the test's duration in whole
# seconds, so it misses the cache whenever a test takes 1 s in one run and 0 s
# in the other (seen under --config=asan, where kirc verify is slower). With
# the flag the XML is written inside the test's own, cacheable spawn.

# On a miss: which actions of the second run were executed, and which of their
# inputs or arguments differ from the first run's (from Bazel's execution
# logs; a diagnostic only, skipped without python3).
explain_misses() {
  command -v python3 >/dev/null || return 0
  python3 - "$top/a.log.exec.json" "$top/b.log.exec.json" <<'PY'
import json, sys
def spawns(path):
    text = open(path).read()
    dec, i, out = json.JSONDecoder(), 0, []
    while i < len(text):
        while i < len(text) and text[i].isspace(): i += 1
        if i >= len(text): break
        obj, i = dec.raw_decode(text, i)
        out.append(obj)
    return out
def key(s): return tuple(o["path"] for o in s.get("actualOutputs", s.get("listedOutputs", [])) if isinstance(o, dict)) or tuple(s.get("listedOutputs", []))
a = {key(s): s for s in spawns(sys.argv[1])}
for s in spawns(sys.argv[2]):
    if s.get("remoteCacheHit"): continue
    print("executed again:", s.get("mnemonic"), s.get("progressMessage", ""), key(s))
    before = a.get(key(s))
    if not before: print("  (no action with these outputs in the first run)"); continue
    ins = lambda x: {i["path"]: i.get("digest", {}).get("hash") for i in x.get("inputs", [])}
    ia, ib = ins(before), ins(s)
    for path in sorted(set(ia) | set(ib)):
        if ia.get(path) != ib.get(path): print("  input differs:", path, ia.get(path), "->", ib.get(path))
    if before.get("environmentVariables") != s.get("environmentVariables"): print("  environment differs")
    ca, cb = before.get("commandArgs", []), s.get("commandArgs", [])
    for x, y in zip(ca, cb):
        if x != y: print("  argument differs:", x, "->", y)
    if len(ca) != len(cb): print("  command lines have", len(ca), "and", len(cb), "arguments")
PY
}

# "INFO: 6 processes: 2 internal, 4 processwrapper-sandbox." -> "4 processwrapper-sandbox"
processes() { grep -E '^INFO: [0-9]+ processes?:' "$1" | tail -1; }
count() {  # LOG KIND: how many processes of KIND the summary reports (0 if none)
  processes "$1" | grep -oE "[0-9]+ $2[,.]" | grep -oE '^[0-9]+' || echo 0
}

mkdir -p "$top/home" "$top/tmp"
make_workspace "$top/a" && make_workspace "$top/b" || fail "cannot create the workspaces"

start=$(date +%s)
run_bazel "$top/a" "$top/a.log" || { cat "$top/a.log"; fail "first build/test failed"; }
first=$(processes "$top/a.log")
executed=$(count "$top/a.log" "processwrapper-sandbox")
echo "first run:  $first"
# KircAsm, KircObj and the two test actions ran.
[ "$executed" -ge 4 ] || { cat "$top/a.log"; fail "the first run executed $executed processes, expected at least 4"; }
[ "$(( $(count "$top/a.log" "remote cache hit") + $(count "$top/a.log" "disk cache hit") ))" -eq 0 ] || fail "the first run already had cache hits: $first"

run_bazel "$top/b" "$top/b.log" || { cat "$top/b.log"; fail "second build/test failed"; }
second=$(processes "$top/b.log")
echo "second run: $second"
# Bazel 4.2.3 counts disk cache hits as "remote cache hit" (later versions
# say "disk cache hit").
hits=$(( $(count "$top/b.log" "remote cache hit") + $(count "$top/b.log" "disk cache hit") ))
[ "$hits" -eq "$executed" ] || { cat "$top/b.log"; explain_misses; fail "the second run had $hits disk cache hits, expected $executed"; }
for kind in processwrapper-sandbox linux-sandbox local standalone worker remote; do
  [ "$(count "$top/b.log" "$kind")" -eq 0 ] || { cat "$top/b.log"; fail "the second run executed processes: $second"; }
done
grep -qE '^//k:verify_test +\(cached\) PASSED' "$top/b.log" || { cat "$top/b.log"; fail "verify_test was not a cached pass"; }
grep -qE '^//k:emu_test +\(cached\) PASSED' "$top/b.log" || { cat "$top/b.log"; fail "emu_test was not a cached pass"; }

# The same bytes in both output trees.
for f in kernel_gfx90a.s kernel_gfx90a.hsaco; do
  cmp "$top/a/bazel-bin/k/$f" "$top/b/bazel-bin/k/$f" || fail "$f differs between the two builds"
done
grep -q "v_mfma\|buffer_load" "$top/b/bazel-bin/k/kernel_gfx90a.s" || fail "kernel_gfx90a.s has no code"
echo "PASS: the second build and test were served from the disk cache ($hits hits, $(( $(date +%s) - start )) s for both runs)"
