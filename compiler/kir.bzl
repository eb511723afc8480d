"""Bazel rules for KIR kernels: compile with kirc, verify addresses, run on the emulator.

    load("//compiler:kir.bzl", "kir_kernel", "kir_verify_test", "kir_emu_test")

    kir_kernel(name = "copy_gfx942", src = "copy_f32.kir", mcpu = "gfx942")
    kir_verify_test(name = "copy_gfx942_verify_test", kernel = ":copy_gfx942")
    kir_emu_test(name = "copy_gfx942_emu_test", kernel = ":copy_gfx942")

kirc is `//:kirc` (an alias of `//compiler/tools:kirc`), taken in the target
configuration: the binary `bazel run //:kirc` runs and the tests link, built
once (the library's code is -O2 in every mode: .bazelrc). It used to be an
exec-configuration kirc and then a -c opt transition, each a further compile
of the whole library; the build actions run on the machine the tests run on
(exec platform == target platform: x86_64 Linux, the only platform this
project builds for), so one binary serves both. A cross-compiling setup would
need cfg = "exec" back.

LLVM 22 (`llvm-mc`, `ld.lld`, `llvm-readelf`, `llvm-objdump`) is a system
tool, like the C++ compiler: it is called by absolute path from
/usr/lib/llvm-22/bin (Debian's llvm-22 and lld-22, which
third_party/install_deps.sh installs), or from the directory given with
`--define=KIRC_LLVM_BIN=DIR`. It is not a declared input: the directory is part
of every action's command line (hence of its cache key), but upgrading LLVM in
place does not invalidate cached outputs. Machines that share a cache or run
actions remotely must have the same LLVM (the same Debian packages).

Hermeticity: the actions read only their declared inputs (the .kir file and
kirc) besides the LLVM tools, run kirc without a shell and with an empty
environment, and the outputs contain no paths (kirc writes the kernel name and
target, never the file name), so an action's result is the same in any
checkout, output base or machine and can be served from a disk or remote
cache.
"""

KIR_MCPUS = ["gfx908", "gfx90a", "gfx942", "gfx950"]

_DEFAULT_LLVM_BIN = "/usr/lib/llvm-22/bin"

KirKernelInfo = provider(
    doc = "A KIR kernel compiled by kir_kernel for one target.",
    fields = {
        "src": "File: the .kir source",
        "mcpu": "string: the target processor (gfx908, gfx90a, gfx942 or gfx950)",
        "asm": "File: NAME.s, the AMDGCN assembly kirc emitted",
        "hsaco": "File: NAME.hsaco, the code object (kirc --emit=obj: llvm-mc + ld.lld of the same assembly)",
        "llvm_bin": "string: the LLVM tool directory the code object was made with",
    },
)

def _llvm_bin(ctx):
    return ctx.var.get("KIRC_LLVM_BIN", _DEFAULT_LLVM_BIN)

_KIRC_ATTR = attr.label(
    default = Label("//:kirc"),
    executable = True,
    # The target configuration: the same binary as `bazel run //:kirc`'s and
    # the tests'; it runs on this host because the target platform is the
    # exec platform.
    cfg = "target",
    doc = "The kirc binary (//:kirc, the build `bazel run //:kirc` runs).",
)

def _kir_kernel_impl(ctx):
    src = ctx.file.src
    mcpu = ctx.attr.mcpu
    llvm_bin = _llvm_bin(ctx)
    asm = ctx.actions.declare_file(ctx.label.name + ".s")
    hsaco = ctx.actions.declare_file(ctx.label.name + ".hsaco")
    common = ["compile", src.path, "--mcpu=" + mcpu]

    # files_to_run, not the bare executable: the binary with its runfiles.
    kirc = ctx.attr._kirc[DefaultInfo].files_to_run
    ctx.actions.run(
        executable = kirc,
        arguments = common + ["-o", asm.path],
        inputs = [src],
        outputs = [asm],
        mnemonic = "KircAsm",
        progress_message = "kirc %s for %s -> %s" % (src.short_path, mcpu, asm.short_path),
    )
    ctx.actions.run(
        executable = kirc,
        arguments = common + ["--emit=obj", "--llvm-bin=" + llvm_bin, "-o", hsaco.path],
        inputs = [src],
        outputs = [hsaco],
        mnemonic = "KircObj",
        progress_message = "kirc %s for %s -> %s" % (src.short_path, mcpu, hsaco.short_path),
    )
    return [
        DefaultInfo(files = depset([asm, hsaco])),
        OutputGroupInfo(asm = depset([asm]), hsaco = depset([hsaco])),
        KirKernelInfo(src = src, mcpu = mcpu, asm = asm, hsaco = hsaco, llvm_bin = llvm_bin),
    ]

kir_kernel = rule(
    implementation = _kir_kernel_impl,
    doc = """Compiles one .kir file for one target with kirc.

Outputs (both default outputs; also output groups `asm` and `hsaco`):
  NAME.s      the assembly, as `kirc compile SRC --mcpu=MCPU` prints it
  NAME.hsaco  the code object, as `kirc compile SRC --mcpu=MCPU --emit=obj` makes it

Two actions (mnemonics KircAsm and KircObj), each cacheable on its own.
Provides KirKernelInfo(src, mcpu, asm, hsaco, llvm_bin) for kir_verify_test
and kir_emu_test. A kernel the target cannot run (e.g. a bf16 16x16x16 MFMA
on gfx908) fails the build with kirc's message.
""",
    attrs = {
        "src": attr.label(
            mandatory = True,
            allow_single_file = [".kir"],
            doc = "The .kir file (a source file or a generated one).",
        ),
        "mcpu": attr.string(
            mandatory = True,
            doc = "Target processor: gfx908, gfx90a, gfx942 or gfx950 (overrides the kernel's `target` line).",
        ),
        "_kirc": _KIRC_ATTR,
    },
)

def _shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"

def _test_runfiles(ctx, files):
    rf = ctx.runfiles(files = files + [ctx.executable._kirc])
    return rf.merge(ctx.attr._kirc[DefaultInfo].default_runfiles)

_SCRIPT_HEAD = """#!/usr/bin/env bash
# Generated by //compiler:kir.bzl for {label}.
set -uo pipefail
kirc={kirc}
src={src}
mcpu={mcpu}
llvm_bin={llvm_bin}
tmp="${{TEST_TMPDIR:-$(mktemp -d)}}"
fail() {{ echo "FAIL: {label}: $*"; exit 1; }}
"""

_VERIFY_SCRIPT = """
built_asm={asm}
built_hsaco={hsaco}
# Recompile with the verifier on (kirc cannot verify an existing .s: the
# verifier needs the access map of the compile), then require the verified
# assembly, and the code object made from it, to be byte-identical to what
# kir_kernel built, so the verified code is the built code.
"$kirc" compile "$src" --mcpu="$mcpu" --verify -o "$tmp/verified.s" > "$tmp/report.txt"
status=$?
cat "$tmp/report.txt"
[ "$status" -eq 0 ] || fail "kirc compile --verify exited $status: not every address is proved"
grep -q "^verify: every address proved$" "$tmp/report.txt" || fail "the report does not say every address is proved"
cmp "$built_asm" "$tmp/verified.s" || fail "$built_asm differs from the verified assembly"
"$kirc" compile "$src" --mcpu="$mcpu" --emit=obj --llvm-bin="$llvm_bin" -o "$tmp/verified.hsaco" \\
  || fail "kirc compile --emit=obj exited $?"
cmp "$built_hsaco" "$tmp/verified.hsaco" || fail "$built_hsaco differs from the verified code object"
"""

_VERIFY_OBJECT_SCRIPT = """
# And the built code object's own bytes, read as the emulator reads them,
# each memory instruction matched to its KIR access without the access map.
"$kirc" verify "$src" --mcpu="$mcpu" --llvm-bin="$llvm_bin" --code-object="$built_hsaco" > "$tmp/object.txt"
status=$?
cat "$tmp/object.txt"
[ "$status" -eq 0 ] || fail "kirc verify --code-object=$built_hsaco exited $status: not every address of the built code object is proved"
grep -q "^verify: every address proved$" "$tmp/object.txt" || fail "the code object's report does not say every address is proved"
echo "PASS: {label}: every address proved, in the compile and in the bytes of $built_hsaco; $built_asm and $built_hsaco are the verified code"
"""

_VERIFY_NO_OBJECT_SCRIPT = """
echo "PASS: {label}: every address proved; $built_asm and $built_hsaco are the verified code (the bytes of $built_hsaco are proved by {object_proof})"
"""

_EMU_SCRIPT = """
hsaco={hsaco}
for seed in {seeds}; do
  # The built code object, not a recompile (--code-object); kirc checks that
  # its metadata names this kernel, its arguments and the target.
  "$kirc" run "$src" --mcpu="$mcpu" --device=emu --seed="$seed" --llvm-bin="$llvm_bin" \\
    --code-object="$hsaco" > "$tmp/run.txt" 2>&1
  status=$?
  cat "$tmp/run.txt"
  [ "$status" -eq 0 ] || fail "kirc run --seed=$seed exited $status"
  grep -q "^code object .* (not recompiled)$" "$tmp/run.txt" || fail "kirc run did not run the built code object"
  grep -q "^PASS: the output matches the KIR reference$" "$tmp/run.txt" || fail "no PASS line for seed $seed"
done
echo "PASS: {label}: $hsaco matches the KIR reference in the emulator (seeds {seeds})"
"""

def _script(ctx, body, **kw):
    info = ctx.attr.kernel[KirKernelInfo]
    text = (_SCRIPT_HEAD + body).format(
        label = str(ctx.label),
        kirc = _shell_quote(ctx.executable._kirc.short_path),
        src = _shell_quote(info.src.short_path),
        mcpu = _shell_quote(info.mcpu),
        llvm_bin = _shell_quote(info.llvm_bin),
        asm = _shell_quote(info.asm.short_path),
        hsaco = _shell_quote(info.hsaco.short_path),
        **kw
    )
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.write(out, text, is_executable = True)
    return out

def _kir_verify_test_impl(ctx):
    info = ctx.attr.kernel[KirKernelInfo]
    if ctx.attr.object_proved_by:
        body = _VERIFY_SCRIPT + _VERIFY_NO_OBJECT_SCRIPT
    else:
        body = _VERIFY_SCRIPT + _VERIFY_OBJECT_SCRIPT
    script = _script(ctx, body, object_proof = ctx.attr.object_proved_by)
    return [DefaultInfo(
        executable = script,
        runfiles = _test_runfiles(ctx, [info.src, info.asm, info.hsaco]),
    )]

kir_verify_test = rule(
    implementation = _kir_verify_test_impl,
    test = True,
    doc = """Proves every memory access of a kir_kernel's code with the address verifier.

Runs `kirc compile SRC --mcpu=MCPU --verify` (the Z3 verifier of `kirc verify`,
with the compile's access map) and requires the recompiled assembly and code
object to be byte-identical to the kernel's NAME.s and NAME.hsaco; then runs
`kirc verify SRC --code-object=NAME.hsaco`, which proves the built code
object's bytes (read with llvm-objdump as the emulator reads them), each memory
instruction matched to its KIR access without the access map (unless
`object_proved_by` names another test that proves them). Passes only if
both prove every access. The recompile runs the same kirc binary (//:kirc)
as the build.
Output: the verifier's report (one line per memory instruction) in the test log.
""",
    attrs = {
        "kernel": attr.label(
            mandatory = True,
            providers = [KirKernelInfo],
            doc = "A kir_kernel target.",
        ),
        "object_proved_by": attr.string(
            default = "",
            doc = "Empty (default): the test also proves the built NAME.hsaco (`kirc verify " +
                  "--code-object`). Else the label of another test that proves NAME.hsaco as " +
                  "`kirc verify --code-object` does (testdata's kernels: " +
                  "//verify/object:kernel_objects_test, which also checks each match against the " +
                  "access map), named in the PASS line; this test then skips that proof.",
        ),
        "_kirc": _KIRC_ATTR,
    },
)

def _kir_emu_test_impl(ctx):
    info = ctx.attr.kernel[KirKernelInfo]
    if not ctx.attr.seeds:
        fail("seeds must not be empty")
    script = _script(ctx, _EMU_SCRIPT, seeds = " ".join([str(s) for s in ctx.attr.seeds]))
    return [DefaultInfo(
        executable = script,
        runfiles = _test_runfiles(ctx, [info.src, info.hsaco]),
    )]

kir_emu_test = rule(
    implementation = _kir_emu_test_impl,
    test = True,
    doc = """Runs a kir_kernel's code object in the strict emulator against the KIR reference.

For each seed: `kirc run SRC --mcpu=MCPU --device=emu --seed=N
--code-object=NAME.hsaco`, i.e. the built code object (not a recompile) on
seeded inputs, compared element by element with the reference interpreter
(tolerances as in `kirc run`). kirc refuses a code object whose metadata does
not name the kernel, its arguments and the target. Passes only if every seed
passes. Output: kirc run's report per seed in the test log.
""",
    attrs = {
        "kernel": attr.label(
            mandatory = True,
            providers = [KirKernelInfo],
            doc = "A kir_kernel target.",
        ),
        "seeds": attr.int_list(
            default = [1],
            doc = "Input seeds, one emulator run each (default [1]).",
        ),
        "_kirc": _KIRC_ATTR,
    },
)

_REFUSED_SCRIPT = """
# kirc must refuse this kernel on this target, with a message naming why.
"$kirc" compile "$src" --mcpu="$mcpu" -o "$tmp/out.s" 2> "$tmp/err.txt"
status=$?
cat "$tmp/err.txt"
[ "$status" -eq 2 ] || fail "kirc compile --mcpu=$mcpu exited $status, expected a refusal (exit 2)"
grep -qF -- {expect} "$tmp/err.txt" || fail "the error does not say "{expect}
echo "PASS: {label}: kirc refuses $src on $mcpu"
"""

def _kir_refused_test_impl(ctx):
    text = (_SCRIPT_HEAD + _REFUSED_SCRIPT).format(
        label = str(ctx.label),
        kirc = _shell_quote(ctx.executable._kirc.short_path),
        src = _shell_quote(ctx.file.src.short_path),
        mcpu = _shell_quote(ctx.attr.mcpu),
        llvm_bin = _shell_quote(_llvm_bin(ctx)),
        expect = _shell_quote(ctx.attr.expect),
    )
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.write(out, text, is_executable = True)
    return [DefaultInfo(executable = out, runfiles = _test_runfiles(ctx, [ctx.file.src]))]

kir_refused_test = rule(
    implementation = _kir_refused_test_impl,
    test = True,
    doc = """Checks that kirc refuses a kernel on a target (exit 2, `expect` in the message).

Used by kir_kernel_tests for the (kernel, target) pairs it leaves out, so that
list cannot go stale: if kirc starts accepting a pair, this test fails.
""",
    attrs = {
        "src": attr.label(mandatory = True, allow_single_file = [".kir"], doc = "The .kir file."),
        "mcpu": attr.string(mandatory = True, doc = "The target kirc must refuse it for."),
        "expect": attr.string(
            default = "does not exist on",
            doc = "A substring of kirc's error message (default: the MFMA-not-on-this-target one).",
        ),
        "_kirc": _KIRC_ATTR,
    },
)

def kir_kernel_tests(
        name,
        srcs,
        mcpus = KIR_MCPUS,
        unsupported = {},
        refusals = {},
        emu_tags = {},
        emu_sizes = {},
        verify_sizes = {},
        seeds = [1],
        verify_size = "small",
        emu_size = "small",
        object_proved_by = "",
        visibility = None):
    """kir_kernel, kir_verify_test and kir_emu_test for every kernel and target.

    For each SRC in srcs (KERNEL = its file name without .kir) and each MCPU in
    mcpus (in names, ':' of a target ID becomes '_'), except the pairs in
    `unsupported`:
      KERNEL_MCPU              kir_kernel (KERNEL_MCPU.s, KERNEL_MCPU.hsaco)
      KERNEL_MCPU_verify_test  kir_verify_test
      KERNEL_MCPU_emu_test     kir_emu_test
    For each unsupported pair: KERNEL_MCPU_refused_test (kir_refused_test),
    which fails if kirc stops refusing it. A test_suite `name` holds every
    generated test except those tagged manual. A filegroup `name`_hsaco holds
    every KERNEL_MCPU.hsaco.

    Args:
      name: name of the test_suite.
      srcs: .kir files (package-relative paths, e.g. glob(["kernels/*.kir"])).
      mcpus: targets (default KIR_MCPUS: gfx908, gfx90a, gfx942, gfx950).
      unsupported: {KERNEL: [MCPU, ...]}, pairs kirc refuses (e.g. an MFMA the
        target lacks).
      refusals: {KERNEL: text}, a substring of the error for KERNEL's
        unsupported pairs (default "does not exist on", the missing-MFMA one).
      emu_tags: {KERNEL: [tag, ...]}, extra tags of KERNEL's emulator tests
        (e.g. ["manual"] for a kernel too slow for the ordinary suite).
      emu_sizes: {KERNEL: size}, the size of KERNEL's emulator tests where it
        is not emu_size (e.g. "medium" for a big GEMM).
      verify_sizes: {KERNEL: size}, the size of KERNEL's verify tests where it
        is not verify_size (e.g. "medium" for a GEMM whose proof takes 25 s).
      seeds: input seeds of every kir_emu_test.
      verify_size, emu_size: test sizes.
      object_proved_by: kir_verify_test's: a test that proves every
        KERNEL_MCPU.hsaco of `name`_hsaco as `kirc verify --code-object` does
        (the verify tests then leave that proof to it), or "" (default: each
        verify test proves its own).
      visibility: of the kir_kernel targets.
    """
    tests = []
    kernels = []
    for src in srcs:
        kernel = src.split("/")[-1]
        if not kernel.endswith(".kir"):
            fail("kir_kernel_tests: %s is not a .kir file" % src)
        kernel = kernel[:-len(".kir")]
        for mcpu in mcpus:
            base = "%s_%s" % (kernel, mcpu.replace(":", "_"))  # target IDs: gfx90a:xnack- -> gfx90a_xnack-
            if mcpu in unsupported.get(kernel, []):
                kir_refused_test(
                    name = base + "_refused_test",
                    src = src,
                    mcpu = mcpu,
                    expect = refusals.get(kernel, "does not exist on"),
                    size = "small",
                )
                tests.append(base + "_refused_test")
                continue
            kir_kernel(name = base, src = src, mcpu = mcpu, visibility = visibility)
            kernels.append(":" + base)
            kir_verify_test(
                name = base + "_verify_test",
                kernel = ":" + base,
                size = verify_sizes.get(kernel, verify_size),
                object_proved_by = object_proved_by,
            )
            tests.append(base + "_verify_test")
            tags = emu_tags.get(kernel, [])
            kir_emu_test(
                name = base + "_emu_test",
                kernel = ":" + base,
                seeds = seeds,
                size = emu_sizes.get(kernel, emu_size),
                tags = tags,
            )
            if "manual" not in tags:
                tests.append(base + "_emu_test")
    for what, d in [("unsupported", unsupported), ("emu_tags", emu_tags), ("emu_sizes", emu_sizes), ("verify_sizes", verify_sizes)]:
        for kernel in d:
            if not [s for s in srcs if s.split("/")[-1] == kernel + ".kir"]:
                fail("kir_kernel_tests: %s names %s, which is not in srcs" % (what, kernel))
    native.test_suite(name = name, tests = [":" + t for t in tests])

    # Every KERNEL_MCPU.hsaco (e.g. for the test object_proved_by names).
    native.filegroup(name = name + "_hsaco", srcs = kernels, output_group = "hsaco", visibility = visibility)
