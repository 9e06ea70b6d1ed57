//! A stable-Rust fuzzer for the driver's front door: reading, verifying and finding requests in
//! inputs Umbra did not write (`cargo fuzz` needs a nightly toolchain).
//!
//! It mutates seed files (bitcode or textual IR) with a seeded PRNG, so a run is reproducible
//! from its `--seed`, and runs the real `umbra` binary on each mutant, as users do (the reader
//! can only be survived out of process). Every run must end in one of the documented ways:
//! success with an output; or exit 1 or 2 with exactly one `umbra: error: ` line on stderr, no
//! output file created and an existing one left as it was (warnings may precede the error); no stray temporary files. Anything
//! else (exit 70, a signal, a hang, a second line) is a finding: the input is saved to
//! `--findings` and counted.
//!
//! ```text
//! cargo run --release --example fuzz_front_door -- [--seconds N] [--seed S] SEED_FILE...
//! ```
//! `python3 test/corrupt/corpus.py --seeds DIR UMBRA` writes the standard seeds to DIR.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// splitmix64: tiny, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Values that often sit on a parser's edge cases.
const INTERESTING: [u8; 8] = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x3f, 0x40, 0x20];

/// Applies one to four random mutations to `seed` (`other` is a second seed to splice from).
fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..=rng.below(4) {
        if b.is_empty() {
            b.push(0);
        }
        let len = b.len();
        let at = rng.below(len);
        match rng.below(8) {
            0 => b[at] ^= 1 << rng.below(8),
            1 => b[at] = rng.next() as u8,
            2 => b[at] = INTERESTING[rng.below(INTERESTING.len())],
            3 => b.truncate(at.max(1)),
            4 => {
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                b.splice(at..at, bytes);
            }
            5 => {
                let end = (at + 1 + rng.below(64)).min(len);
                b.drain(at..end);
            }
            6 => {
                let end = (at + 1 + rng.below(64)).min(len);
                let copy = b[at..end].to_vec();
                let to = rng.below(b.len());
                b.splice(to..to, copy);
            }
            _ => {
                // Splice: keep a prefix of this seed, continue with the other's tail.
                if !other.is_empty() {
                    let from = rng.below(other.len());
                    b.truncate(at);
                    b.extend_from_slice(&other[from..]);
                }
            }
        }
    }
    b
}

struct Options {
    seconds: u64,
    seed: u64,
    umbra: PathBuf,
    findings: PathBuf,
    seeds: Vec<PathBuf>,
}

fn usage() -> ! {
    eprintln!(
        "usage: fuzz_front_door [--seconds N] [--seed S] [--umbra PATH] [--findings DIR] \
         SEED_FILE..."
    );
    std::process::exit(2)
}

fn parse_options() -> Options {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut o = Options {
        seconds: 60,
        seed: 1,
        umbra: std::env::var_os("UMBRA_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/release/umbra")),
        findings: PathBuf::from("fuzz-findings"),
        seeds: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--seconds" => o.seconds = value().parse().unwrap_or_else(|_| usage()),
            "--seed" => o.seed = value().parse().unwrap_or_else(|_| usage()),
            "--umbra" => o.umbra = PathBuf::from(value()),
            "--findings" => o.findings = PathBuf::from(value()),
            s if s.starts_with('-') => usage(),
            s => o.seeds.push(PathBuf::from(s)),
        }
    }
    if o.seeds.is_empty() {
        usage();
    }
    o
}

/// How one run ended; anything but the first four is a finding.
fn classify(
    status: Option<std::process::ExitStatus>,
    stderr: &str,
    out: &Path,
    sentinel: Option<&[u8]>,
    dir: &Path,
) -> &'static str {
    let Some(status) = status else {
        return "finding: hang";
    };
    let stray = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with(".umbra-"))
        })
        .unwrap_or(false);
    if stray {
        return "finding: temporary file left behind";
    }
    let lines: Vec<&str> = stderr.lines().collect();
    match status.code() {
        Some(0) => {
            if !lines.iter().all(|l| l.starts_with("umbra: warning: ")) {
                return "finding: success with unexpected stderr";
            }
            match std::fs::read(out) {
                Ok(bytes) if Some(bytes.as_slice()) != sentinel => "ok",
                _ => "finding: success without output",
            }
        }
        Some(code @ (1 | 2)) => {
            // Warnings may come first; the error is one line, the last.
            let (last, before) = lines.split_last().unwrap_or((&"", &[]));
            if !last.starts_with("umbra: error: ")
                || !before.iter().all(|l| l.starts_with("umbra: warning: "))
            {
                return "finding: error not on one line";
            }
            let untouched = match (std::fs::read(out), sentinel) {
                (Err(_), None) => true,
                (Ok(bytes), Some(s)) => bytes == s,
                _ => false,
            };
            if !untouched {
                return "finding: output created or clobbered on error";
            }
            if code == 1 {
                "error (exit 1)"
            } else if last.contains("memory limit") {
                "unreadable: memory limit (exit 2)"
            } else if last.contains("CPU time") {
                "unreadable: CPU time limit (exit 2)"
            } else {
                "unreadable: reader crashed (exit 2)"
            }
        }
        Some(70) => "finding: internal error (exit 70)",
        Some(_) => "finding: other exit status",
        None => "finding: killed by a signal",
    }
}

fn main() {
    let o = parse_options();
    let seeds: Vec<Vec<u8>> = o
        .seeds
        .iter()
        .map(|p| {
            std::fs::read(p).unwrap_or_else(|e| {
                eprintln!("cannot read seed {}: {e}", p.display());
                std::process::exit(2)
            })
        })
        .collect();
    let work = tempfile::tempdir().expect("a temporary directory");
    let out = work.path().join("out.o");
    let mut rng = Rng(o.seed);
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    let start = Instant::now();
    let mut last_report = Instant::now();
    let mut runs = 0u64;
    while start.elapsed() < Duration::from_secs(o.seconds) {
        let seed = &seeds[rng.below(seeds.len())];
        let other = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, seed, other);
        let input_path = work.path().join("input");
        std::fs::write(&input_path, &input).expect("writing the mutant");
        // Half the runs start with an existing output, which a failure must leave alone.
        let sentinel: Option<&[u8]> = if rng.below(2) == 0 {
            Some(b"sentinel")
        } else {
            None
        };
        let _ = std::fs::remove_file(&out);
        if let Some(s) = sentinel {
            std::fs::write(&out, s).expect("writing the sentinel");
        }
        let mut child = Command::new(&o.umbra)
            .arg(&input_path)
            .args(["-O0", "--max-memory=512", "--max-read-time=10", "-o"])
            .arg(&out)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("running umbra");
        let mut stderr = String::new();
        let reader = {
            let mut pipe = child.stderr.take().expect("piped stderr");
            std::thread::spawn(move || {
                use std::io::Read;
                let mut s = String::new();
                let _ = pipe.read_to_string(&mut s);
                s
            })
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
            }
        };
        if let Ok(s) = reader.join() {
            stderr = s;
        }
        let class = classify(status, &stderr, &out, sentinel, work.path());
        runs += 1;
        *counts.entry(class).or_default() += 1;
        if class.starts_with("finding") {
            std::fs::create_dir_all(&o.findings).expect("creating the findings directory");
            let name = o.findings.join(format!("{}-{runs}", o.seed));
            std::fs::write(&name, &input).expect("saving a finding");
            eprintln!("{class}: {} ({})", name.display(), stderr.trim());
        }
        if last_report.elapsed() > Duration::from_secs(60) {
            eprintln!(
                "{runs} runs in {:.0} s: {counts:?}",
                start.elapsed().as_secs_f64()
            );
            last_report = Instant::now();
        }
    }
    println!(
        "{runs} runs in {:.0} s (seed {}):",
        start.elapsed().as_secs_f64(),
        o.seed
    );
    for (class, n) in &counts {
        println!("  {n:>7}  {class}");
    }
    let findings: u64 = counts
        .iter()
        .filter(|(c, _)| c.starts_with("finding"))
        .map(|(_, n)| n)
        .sum();
    std::process::exit(i32::from(findings > 0));
}
