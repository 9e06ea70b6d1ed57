# -*- Python -*-
# lit configuration for Umbra's test suite.
#
#   /usr/lib/llvm-22/bin/lit -sv test/          (or: cargo test --release)
#
# Needs the driver (cargo build --release) and the plugin (make plugin). Either missing is a
# configuration error, not a reason to skip tests.
#
# Substitutions:
#   %umbra            the driver (env UMBRA_BIN, default target/release/umbra)
#   %plugin           build/plugin/libUmbraPlugin.so (env UMBRA_PLUGIN)
#   %clang-plugin     build/plugin/libUmbraClang.so, the clang plugin (env UMBRA_CLANG_PLUGIN)
#   %opt-umbra        opt -load-pass-plugin=%plugin -S   (the test adds -passes=umbra...)
#   %clang            clang-22
#   %clangxx          clang++-22
#   %flang            flang-22 (LLVM 22's Fortran front end; scripts/setup.sh installs it, and
#                     test/integration/fortran and test/errors/fortran need it: feature `flang`)
#   %runtime-include  runtime/include (umbra.h)
#   %testinc          test/include (helpers shared by tests)
#   %exec-test        bash test/integration/exec-test.sh
#   %rustc            rustc (PATH, else ~/.cargo/bin); tests using it say `REQUIRES: rustc`
#   %run-page         python3 test/docs/run-page.py: runs a documentation page's ```sh blocks
#   %repo             the root of the repository
#   %enzyme-integration  ../shared/enzyme-integration next to the repository: Enzyme's
#                     integration tests, which must not be copied here (their README); tests
#                     that run them unchanged say `REQUIRES: enzyme-integration`
#   %enzyme-test      bash test/integration/enzyme-test.sh (builds and runs one of them)

import os
import shutil
import subprocess

import lit.formats

config.name = "Umbra"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".cpp", ".rs", ".f90", ".test"]
config.excludes = ["Inputs", "include"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(root, "build", "lit")

llvm_bin = "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join(
    [llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))]
)
# Pass through settings the tools read, and nothing that would change test results silently.
for var in ["HOME", "TMPDIR", "RUST_BACKTRACE"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# UMBRA_OPTIONS would alter every test's output.
config.environment.pop("UMBRA_OPTIONS", None)


def required(path, what, how):
    if not os.path.isfile(path):
        lit_config.fatal(f"{what} not found at {path}: {how}")
    return path


umbra_bin = required(
    os.environ.get("UMBRA_BIN") or os.path.join(root, "target", "release", "umbra"),
    "umbra driver",
    "run `cargo build --release` or set UMBRA_BIN",
)
plugin = required(
    os.environ.get("UMBRA_PLUGIN")
    or os.path.join(root, "build", "plugin", "libUmbraPlugin.so"),
    "umbra plugin",
    "run `make plugin` or set UMBRA_PLUGIN",
)
clang_plugin = required(
    os.environ.get("UMBRA_CLANG_PLUGIN")
    or os.path.join(root, "build", "plugin", "libUmbraClang.so"),
    "umbra clang plugin",
    "run `make plugin` or set UMBRA_CLANG_PLUGIN",
)
config.environment["UMBRA_BIN"] = umbra_bin
config.environment["UMBRA_PLUGIN"] = plugin
config.environment["UMBRA_CLANG_PLUGIN"] = clang_plugin

runtime_include = os.path.join(root, "runtime", "include")
test_include = os.path.join(config.test_source_root, "include")
exec_test = os.path.join(config.test_source_root, "integration", "exec-test.sh")

# lit applies substitutions in list order: keep any name before the shorter names it starts with.
config.substitutions.append(("%opt-umbra", f"opt -load-pass-plugin={plugin} -S"))
config.substitutions.append(("%runtime-include", runtime_include))
config.substitutions.append(
    ("%run-page", "python3 " + os.path.join(config.test_source_root, "docs", "run-page.py"))
)
config.substitutions.append(("%repo", root))
config.substitutions.append(("%exec-test", f"bash {exec_test}"))
config.substitutions.append(("%testinc", test_include))
config.substitutions.append(("%clang-plugin", clang_plugin))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%umbra", umbra_bin))
config.substitutions.append(("%clangxx", "clang++-22"))
config.substitutions.append(("%flang", "flang-22"))
config.substitutions.append(("%clang", "clang-22"))

config.available_features.add("umbra-plugin")

# Enzyme's integration tests, run from where they are when that directory exists.
enzyme_integration = os.path.join(os.path.dirname(root), "shared", "enzyme-integration")
if os.path.isdir(enzyme_integration):
    config.available_features.add("enzyme-integration")
    config.substitutions.insert(0, ("%enzyme-integration", enzyme_integration))
    config.substitutions.insert(
        0,
        (
            "%enzyme-test",
            "bash " + os.path.join(config.test_source_root, "integration", "enzyme-test.sh"),
        ),
    )

# Fortran tests need flang-22, which scripts/setup.sh installs: they are skipped only where it
# is genuinely missing (a machine set up by hand), never in `make test`, which runs setup first.
if shutil.which("flang-22", path=config.environment["PATH"]):
    config.available_features.add("flang")

# Tests that run AVX-512 code need a host that has it.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        if " avx512f" in cpuinfo.read():
            config.available_features.add("avx512f")
except OSError:
    pass

# Rust tests run when a rustc is available (whose LLVM must be one Umbra reads: rustc's bitcode
# goes straight to the driver), and are skipped otherwise.
rustc = shutil.which("rustc") or shutil.which(
    "rustc", path=os.path.join(os.path.expanduser("~"), ".cargo", "bin")
)
if rustc:
    config.available_features.add("rustc")
    config.substitutions.append(("%rustc", rustc))
    # Umbra finds the sysroot whose rlibs supply liballoc's bodies (below -C opt-level=2)
    # with `$RUSTC --print sysroot`: the same rustc, even when it is not on PATH.
    config.environment["RUSTC"] = rustc
    sysroot = subprocess.run(
        [rustc, "--print", "sysroot"], capture_output=True, text=True
    ).stdout.strip()
    config.substitutions.append(("%rust_sysroot", sysroot))
for var in ["RUSTUP_HOME", "CARGO_HOME", "RUSTUP_TOOLCHAIN"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
