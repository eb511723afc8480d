"""LLVM baselines: OpenCL C twins of the testdata kernels, compiled by clang-22.

Each testdata/baselines/NAME.cl is compiled for each listed target into
testdata/baselines/NAME.TARGET.hsaco with

    clang <BASELINE_CLANG_FLAGS> -mcpu=TARGET -c NAME.cl -o NAME.TARGET.hsaco.o
    ld.lld -shared NAME.TARGET.hsaco.o -o NAME.TARGET.hsaco

A .cl may `#include "FILE"` files of its own directory (e.g. a kernel body
shared by several sizes); list them in `includes` so the genrule's sandbox
has them next to the .cl, where clang looks for quoted includes first.

(see testdata/baselines/README.md). The tools are called by absolute path;
third_party/install_deps.sh installs them (clang-22, lld-22).
"""

LLVM_BIN = "/usr/lib/llvm-22/bin"

# The one place the clang flags live. The first line is the command from
# shared/docs/llvm-baselines.md; -cl-kernel-arg-info only adds the argument
# names to the code object metadata (.args[].name), so runners and the test
# can match arguments to the .kir by name. It does not change the code.
BASELINE_CLANG_FLAGS = [
    "-x",
    "cl",
    "-cl-std=CL2.0",
    "-Xclang",
    "-finclude-default-header",
    "-target",
    "amdgcn-amd-amdhsa",
    "-nogpulib",
    "-O3",
    "-cl-kernel-arg-info",
]

def baseline_outputs(kernels, dir = "baselines"):
    """Output paths (relative to the package) for a {kernel: [targets]} dict."""
    return [
        "%s/%s.%s.hsaco" % (dir, kernel, target)
        for kernel, targets in kernels.items()
        for target in targets
    ]

def llvm_baseline(kernel, target, includes = [], visibility = None, dir = "baselines", assembly = False, arg_names = True):
    """One genrule: DIR/KERNEL.cl (+ includes) -> DIR/KERNEL.TARGET.hsaco.

    With `assembly`, a second one: -> DIR/KERNEL.TARGET.s (clang -S).
    With arg_names = False, the flags lack -cl-kernel-arg-info (what most
    OpenCL builds do: the metadata's .args have no .name) and the output is
    DIR/KERNEL.TARGET.unnamed.hsaco (no assembly).
    """
    clang = LLVM_BIN + "/clang"
    lld = LLVM_BIN + "/ld.lld"
    cl = "%s/%s.cl" % (dir, kernel)
    flags = BASELINE_CLANG_FLAGS if arg_names else [f for f in BASELINE_CLANG_FLAGS if f != "-cl-kernel-arg-info"]
    suffix = "" if arg_names else ".unnamed"
    native.genrule(
        name = "baseline_%s_%s%s" % (kernel, target, "" if arg_names else "_unnamed"),
        srcs = [cl] + includes,
        outs = ["%s/%s.%s%s.hsaco" % (dir, kernel, target, suffix)],
        cmd = " && ".join([
            "for t in %s %s; do [ -x $$t ] || { echo \"$$t not found: run third_party/install_deps.sh\" >&2; exit 1; }; done" % (clang, lld),
            "%s %s -mcpu=%s -c $(location %s) -o $@.o" % (clang, " ".join(flags), target, cl),
            "%s -shared $@.o -o $@" % lld,
            "rm -f $@.o",
        ]),
        message = "clang-22 baseline %s for %s" % (kernel, target),
        visibility = visibility,
    )
    if assembly and arg_names:
        # The same compile stopped at assembly text (`clang -S`): what
        # `kirc verify --asm` reads (verify/object).
        native.genrule(
            name = "baseline_%s_%s_asm" % (kernel, target),
            srcs = [cl] + includes,
            outs = ["%s/%s.%s.s" % (dir, kernel, target)],
            cmd = " && ".join([
                "[ -x %s ] || { echo \"%s not found: run third_party/install_deps.sh\" >&2; exit 1; }" % (clang, clang),
                "%s %s -mcpu=%s -S $(location %s) -o $@" % (clang, " ".join(BASELINE_CLANG_FLAGS), target, cl),
            ]),
            message = "clang-22 -S baseline %s for %s" % (kernel, target),
            visibility = visibility,
        )

def llvm_baselines(name, kernels, includes = {}, visibility = None, dir = "baselines", assembly = False):
    """A genrule per (kernel, target) and a filegroup `name` of all outputs.

    With `assembly`, also each one's `clang -S` text, DIR/KERNEL.TARGET.s,
    in a filegroup `name + "_asm"`.

    Args:
      name: name of the filegroup.
      kernels: {kernel name: [targets]}; baselines/KERNEL.cl must exist.
      includes: {kernel name: [files]}, the files KERNEL.cl includes
        (in baselines/, e.g. "baselines/gemm_f16_tile128.cl.inc").
      visibility: of the generated targets.
      dir: the directory of the .cl files and of the outputs.
      assembly: also the .s text of each.
    """
    for kernel, targets in kernels.items():
        for target in targets:
            llvm_baseline(kernel, target, includes = includes.get(kernel, []), visibility = visibility, dir = dir, assembly = assembly)
    native.filegroup(
        name = name,
        srcs = baseline_outputs(kernels, dir),
        visibility = visibility,
    )
    if assembly:
        native.filegroup(
            name = name + "_asm",
            srcs = [p[:-len(".hsaco")] + ".s" for p in baseline_outputs(kernels, dir)],
            visibility = visibility,
        )

def llvm_baselines_test(name, kernels, kirc = None, **kwargs):
    """sh_test running baselines/check_baselines.sh on every baseline.

    The arguments are pairs KERNEL.kir KERNEL.TARGET.hsaco; the script reads
    the kernel name, arguments, workgroup size and LDS from the .kir, or, for
    a tile-level gemm (`workgroup auto`), from the kernel `kirc` (a label of
    the kirc binary) promotes it to.
    """
    args = []
    data = ["baselines/check_baselines.sh"]
    if kirc:
        args.append("--kirc=$(location %s)" % kirc)
        data.append(kirc)
    for kernel, targets in kernels.items():
        kir = "kernels/%s.kir" % kernel
        data.append(kir)
        for target in targets:
            out = "baselines/%s.%s.hsaco" % (kernel, target)
            args += ["$(location %s)" % kir, "$(location %s)" % out]
            data.append(out)
    native.sh_test(
        name = name,
        srcs = ["baselines/check_baselines.sh"],
        args = args,
        data = data,
        **kwargs
    )
