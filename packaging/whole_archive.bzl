"""cc_whole_archive: the transitive libraries of `deps`, all marked alwayslink.

A cc_binary(linkshared = 1) links its deps like archives (gold's --start-lib
groups), so a shared library made from them would keep only what something
inside it references: nothing. Depending on a cc_whole_archive instead makes
every object file part of the library; the version script then decides which
symbols are exported.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _cc_whole_archive_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    merged = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps])
    linker_inputs = []
    for li in merged.linking_context.linker_inputs.to_list():
        libraries = []
        for lib in li.libraries:
            if not lib.static_library and not lib.pic_static_library:
                continue
            libraries.append(cc_common.create_library_to_link(
                actions = ctx.actions,
                feature_configuration = feature_configuration,
                cc_toolchain = cc_toolchain,
                static_library = lib.static_library,
                pic_static_library = lib.pic_static_library,
                alwayslink = True,
            ))
        linker_inputs.append(cc_common.create_linker_input(
            owner = li.owner,
            libraries = depset(libraries),
            user_link_flags = depset(li.user_link_flags),
            additional_inputs = depset(li.additional_inputs),
        ))
    return [CcInfo(
        compilation_context = merged.compilation_context,
        linking_context = cc_common.create_linking_context(
            linker_inputs = depset(linker_inputs, order = "topological"),
        ),
    )]

cc_whole_archive = rule(
    implementation = _cc_whole_archive_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)
