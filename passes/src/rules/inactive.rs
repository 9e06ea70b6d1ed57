//! Calls without a derivative: they run in the primal and their results carry no tangent. I/O,
//! clocks, random numbers, process control, and LLVM bookkeeping intrinsics that take pointers
//! (intrinsics that touch neither floating point nor pointers are inactive without a rule).

use super::{Area, Rule, RuleKind};

macro_rules! inactive {
    ($($name:literal),* $(,)?) => {
        &[$(Rule {
            name: $name,
            aliases: &[],
            libm_variants: false,
            area: Area::Inactive,
            kind: RuleKind::Inactive,
        }),*]
    };
}

/// Every zero-derivative rule.
pub static RULES: &[Rule] = inactive![
    "printf",
    "fprintf",
    "sprintf",
    "snprintf",
    "vprintf",
    "vfprintf",
    "puts",
    "fputs",
    "putchar",
    "fputc",
    "putc",
    "fwrite",
    "fflush",
    "perror",
    "__printf_chk",
    "__fprintf_chk",
    "__sprintf_chk",
    "__snprintf_chk",
    "time",
    "clock",
    "clock_gettime",
    "gettimeofday",
    "rand",
    "srand",
    "random",
    "srandom",
    "getenv",
    "abort",
    "exit",
    "_exit",
    "__assert_fail",
    "lround",
    "lroundf",
    "llround",
    "llroundf",
    "lrint",
    "lrintf",
    "llrint",
    "llrintf",
    "llvm.lifetime.start",
    "llvm.lifetime.end",
    "llvm.prefetch",
    "llvm.invariant.start",
    "llvm.invariant.end",
    "llvm.assume",
    "llvm.lround",
    "llvm.llround",
    "llvm.lrint",
    "llvm.llrint",
    "llvm.is.fpclass",
    "llvm.fptosi.sat",
    "llvm.fptoui.sat",
];
