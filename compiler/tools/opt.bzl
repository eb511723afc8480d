"""opt_binary: a binary built with -c opt whatever the command line says.

It also links Abseil statically (//third_party:static_absl): with LLVM's
static libraries that keeps a process start near 10 ms.

`bazel run //:kirc` is the README's main command; it runs an optimised kirc
(4-9x faster than fastbuild on `kirc run`) while `bazel test //...` keeps
building the tests in the command line's mode.
"""

def _opt_transition_impl(settings, attr):
    return {
        "//command_line_option:compilation_mode": "opt",
        "//third_party:static_absl": True,
    }

_opt_transition = transition(
    implementation = _opt_transition_impl,
    inputs = [],
    outputs = [
        "//command_line_option:compilation_mode",
        "//third_party:static_absl",
    ],
)

def _opt_binary_impl(ctx):
    binary = ctx.attr.binary[0]
    src = binary[DefaultInfo].files_to_run.executable
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = src, is_executable = True)
    runfiles = ctx.runfiles(files = [src]).merge(binary[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = runfiles)]

opt_binary = rule(
    implementation = _opt_binary_impl,
    attrs = {
        "binary": attr.label(cfg = _opt_transition, executable = True, mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    executable = True,
    doc = "Runs `binary` built with compilation_mode=opt.",
)
