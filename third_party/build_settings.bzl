"""A boolean build setting (Bazel 4 has no built-in one without skylib)."""

def _bool_setting_impl(ctx):
    return []

bool_setting = rule(
    implementation = _bool_setting_impl,
    build_setting = config.bool(flag = True),
    doc = "A boolean flag, read by config_setting(flag_values = ...).",
)
