//! Calls without a derivative: they run in the primal and their results carry no tangent or
//! adjoint. I/O, clocks and timers, random numbers, environment and process control, runtime
//! queries (Julia's world counter), integer rounding of floats, and LLVM bookkeeping intrinsics
//! that take pointers (intrinsics that touch neither floating point nor pointers are inactive
//! without a rule).
//!
//! Their effects matter even without a derivative: reverse mode replays a load in the adjoint
//! sweep only when nothing in the function can have written memory since, so calls that may
//! write through a pointer (`sprintf`, `time`, ...) are listed as writing.

use super::{Area, Effects, Rule, RuleKind};

macro_rules! inactive {
    ($effects:expr; $($name:literal),* $(,)?) => {
        &[$(Rule {
            name: $name,
            aliases: &[],
            libm_variants: false,
            area: Area::Inactive,
            kind: RuleKind::Inactive,
            effects: $effects,
        }),*]
    };
}

/// Calls that may write memory through their arguments (or hidden state the function cannot
/// see, which is the same for replaying loads).
pub static WRITING: &[Rule] = inactive![Effects::READS_WRITES;
    // I/O
    "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf", "vsnprintf",
    "puts", "fputs", "putchar", "fputc", "putc", "fwrite", "fflush", "perror", "write",
    "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vsnprintf_chk",
    // clocks and timers
    "time", "clock_gettime", "gettimeofday", "times", "getrusage", "nanosleep", "usleep",
    "sleep",
    // random numbers (they advance hidden state)
    "rand", "srand", "random", "srandom", "rand_r", "drand48", "erand48", "lrand48", "srand48",
    // process control
    "abort", "exit", "_exit", "__assert_fail", "__cxa_throw",
];

/// Calls that write nothing the function reads.
pub static PURE: &[Rule] = inactive![Effects::READS;
    "clock", "omp_get_wtime", "getenv", "getpid", "sysconf", "strlen", "strcmp", "strncmp",
    "lround", "lroundf", "llround", "llroundf", "lrint", "lrintf", "llrint", "llrintf",
    "ilogb", "ilogbf", "ilogbl", "llogb", "llogbf", "llogbl",
    // Julia runtime queries
    "jl_get_world_counter", "ijl_get_world_counter", "jl_get_current_task",
    // LLVM bookkeeping
    "llvm.lifetime.start", "llvm.lifetime.end", "llvm.prefetch", "llvm.invariant.start",
    "llvm.invariant.end", "llvm.assume", "llvm.lround", "llvm.llround", "llvm.lrint",
    "llvm.llrint", "llvm.is.fpclass", "llvm.fptosi.sat", "llvm.fptoui.sat",
];
