//! Reads the benchmark suite's measurements (`results.csv`, `failures.csv` in the directory
//! given as the only argument), prints the markdown table with the targets' verdicts, and draws
//! `ratios.png` there: one group of bars per benchmark, one bar per tool, ratio to the primal
//! on a log scale.

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::collections::BTreeMap;
use std::error::Error;
use std::fs;
use std::path::Path;

/// Debian's fonts-dejavu-core (scripts/setup.sh installs it): plotters draws text with
/// ab_glyph from this file, so no system font library is needed.
const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// The timed columns, as (tool, mode) in results.csv, with their table heading.
const COLUMNS: [(&str, &str, &str); 7] = [
    ("umbra", "grad", "umbra grad"),
    ("umbra", "tangent", "umbra tangent"),
    ("hand", "grad", "hand grad"),
    ("adolc", "grad", "ADOL-C grad"),
    ("adolc", "tape+grad", "ADOL-C tape+grad"),
    ("adolc", "tangent", "ADOL-C tangent"),
    ("fd", "grad", "FD grad"),
];

/// One benchmark's rows: (tool, mode) -> (seconds per call, ratio to primal), and the
/// failures' reasons by (tool, mode).
#[derive(Default)]
struct Bench {
    times: BTreeMap<(String, String), (f64, f64)>,
    failures: Vec<(String, String, String)>,
}

impl Bench {
    fn ratio(&self, tool: &str, mode: &str) -> Option<f64> {
        self.times.get(&(tool.into(), mode.into())).map(|t| t.1)
    }
    fn seconds(&self, tool: &str, mode: &str) -> Option<f64> {
        self.times.get(&(tool.into(), mode.into())).map(|t| t.0)
    }
    fn failure(&self, tool: &str, mode: &str) -> Option<&str> {
        self.failures
            .iter()
            .find(|(t, m, _)| t == tool && (m == mode || m == "all"))
            .map(|f| f.2.as_str())
    }
}

/// Splits one CSV line, honouring double quotes ("" inside quotes is a quote).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// Reads the CSV files, keeping the benchmarks in the order they first appear.
fn read(dir: &Path) -> Result<Vec<(String, Bench)>, Box<dyn Error>> {
    let mut benches: Vec<(String, Bench)> = Vec::new();
    fn entry(benches: &mut Vec<(String, Bench)>, name: &str) -> usize {
        benches
            .iter()
            .position(|(n, _)| n == name)
            .unwrap_or_else(|| {
                benches.push((name.to_string(), Bench::default()));
                benches.len() - 1
            })
    }
    let results = fs::read_to_string(dir.join("results.csv"))?;
    for line in results.lines().skip(1) {
        let f = csv_fields(line);
        if f.len() != 5 {
            return Err(format!("results.csv: malformed line: {line}").into());
        }
        let i = entry(&mut benches, &f[0]);
        let time = (f[3].parse()?, f[4].parse()?);
        benches[i]
            .1
            .times
            .insert((f[1].clone(), f[2].clone()), time);
    }
    if let Ok(failures) = fs::read_to_string(dir.join("failures.csv")) {
        for line in failures.lines().skip(1) {
            let f = csv_fields(line);
            if f.len() != 4 {
                return Err(format!("failures.csv: malformed line: {line}").into());
            }
            let i = entry(&mut benches, &f[0]);
            benches[i]
                .1
                .failures
                .push((f[1].clone(), f[2].clone(), f[3].clone()));
        }
    }
    Ok(benches)
}

fn geomean(values: &[f64]) -> f64 {
    (values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp()
}

/// The markdown table, its footnotes (failure reasons) and the targets' verdicts.
fn table(benches: &[(String, Bench)]) -> String {
    let mut out = String::from("| benchmark | primal | ");
    for (_, _, heading) in COLUMNS {
        out += &format!("{heading} | ");
    }
    out += "umbra grad / hand grad | compile: umbra / clang -O2 | memory: umbra tape / umbra heap / hand heap |\n|---|---:|";
    out += &"---:|".repeat(COLUMNS.len() + 3);
    out.push('\n');
    let mut notes: Vec<String> = Vec::new();
    let mut footnote = |reason: &str| -> String {
        let n = match notes.iter().position(|r| r == reason) {
            Some(i) => i + 1,
            None => {
                notes.push(reason.to_string());
                notes.len()
            }
        };
        format!("failed [{n}]")
    };
    for (name, b) in benches {
        let primal = b.seconds("primal", "primal").map_or("–".into(), seconds);
        out += &format!("| {name} | {primal} | ");
        for (tool, mode, _) in COLUMNS {
            out += &match (b.ratio(tool, mode), b.failure(tool, mode)) {
                (Some(r), _) => format!("{r:.2}"),
                (None, Some(reason)) => footnote(reason),
                (None, None) => "–".into(),
            };
            out += " | ";
        }
        out += &match (b.seconds("umbra", "grad"), b.seconds("hand", "grad")) {
            (Some(u), Some(h)) => format!("{:.2}", u / h),
            _ => "–".into(),
        };
        out += " | ";
        out += &match (
            b.seconds("umbra", "compile"),
            b.seconds("primal", "compile"),
        ) {
            (Some(u), Some(c)) => format!("{} / {}", seconds(u), seconds(c)),
            (None, Some(c)) => format!("failed / {}", seconds(c)),
            _ => "–".into(),
        };
        out += " | ";
        let mem = |tool: &str, mode: &str| b.seconds(tool, mode).map_or("–".into(), bytes);
        out += &format!(
            "{} / {} / {}",
            mem("umbra", "tape_bytes"),
            mem("umbra", "heap_bytes"),
            mem("hand", "heap_bytes")
        );
        out += " |\n";
    }
    out += "\nTimes are seconds per call (the primal, the compile column); every other cell is a \
            ratio to the primal's time in the same run (lower is better; – where the column does \
            not apply). Memory: the peak bytes of umbra's tape in one gradient, and the peak heap \
            bytes one gradient call allocates (umbra: tape, shadows, blocks kept for the adjoint; \
            hand: its scratch buffers).\n";
    for (i, reason) in notes.iter().enumerate() {
        out += &format!("\n[{}] {}\n", i + 1, reason.replace('|', "\\|"));
    }
    out + &targets(benches)
}

/// Bytes with a binary unit.
fn bytes(b: f64) -> String {
    match b {
        b if b >= 1024.0 * 1024.0 => format!("{:.1} MiB", b / (1024.0 * 1024.0)),
        b if b >= 1024.0 => format!("{:.1} KiB", b / 1024.0),
        b => format!("{b:.0} B"),
    }
}

/// Seconds with a unit that keeps three significant digits readable.
fn seconds(s: f64) -> String {
    match s {
        s if s >= 1.0 => format!("{s:.2} s"),
        s if s >= 1e-3 => format!("{:.2} ms", s * 1e3),
        s if s >= 1e-6 => format!("{:.2} µs", s * 1e6),
        s => format!("{:.1} ns", s * 1e9),
    }
}

/// The targets, over the benchmarks where both sides were measured.
fn targets(benches: &[(String, Bench)]) -> String {
    let ratios = |f: &dyn Fn(&Bench) -> Option<f64>| -> Vec<(&str, f64)> {
        benches
            .iter()
            .filter_map(|(n, b)| f(b).map(|r| (n.as_str(), r)))
            .collect()
    };
    let per_hand = ratios(&|b| Some(b.seconds("umbra", "grad")? / b.seconds("hand", "grad")?));
    let grad = ratios(&|b| b.ratio("umbra", "grad"));
    let tangent = ratios(&|b| b.ratio("umbra", "tangent"));
    let adolc = ratios(&|b| Some(b.seconds("adolc", "grad")? / b.seconds("umbra", "grad")?));
    let values = |v: &[(&str, f64)]| v.iter().map(|x| x.1).collect::<Vec<_>>();
    let misses = |v: &[(&str, f64)], ok: &dyn Fn(f64) -> bool| -> String {
        let missed: Vec<String> = v
            .iter()
            .filter(|x| !ok(x.1))
            .map(|x| format!("{} {:.2}", x.0, x.1))
            .collect();
        if missed.is_empty() {
            "met".into()
        } else {
            format!("missed by {}", missed.join(", "))
        }
    };
    let verdict = |ok: bool| if ok { "met" } else { "missed" };
    let mut out = String::from("\nTargets (over the benchmarks where both sides ran):\n\n");
    out += &format!(
        "- umbra grad / hand grad <= 1.2 each: {}\n",
        misses(&per_hand, &|r| r <= 1.2)
    );
    let g = geomean(&values(&grad));
    out += &format!(
        "- umbra grad / primal <= 3 geomean: {g:.2}, {}; <= 4 each: {}\n",
        verdict(g <= 3.0),
        misses(&grad, &|r| r <= 4.0)
    );
    let t = geomean(&values(&tangent));
    out += &format!(
        "- umbra tangent / primal <= 2 geomean: {t:.2}, {}\n",
        verdict(t <= 2.0)
    );
    out += &format!(
        "- ADOL-C grad / umbra grad >= 10: geomean {:.1}; each: {}\n",
        geomean(&values(&adolc)),
        misses(&adolc, &|r| r >= 10.0)
    );
    out
}

fn plot(benches: &[(String, Bench)], path: &Path) -> Result<(), Box<dyn Error>> {
    let font: &'static [u8] = Box::leak(fs::read(FONT)?.into_boxed_slice());
    register_font("sans-serif", FontStyle::Normal, font).map_err(|_| "unreadable font")?;
    let all: Vec<f64> = benches
        .iter()
        .flat_map(|(_, b)| COLUMNS.iter().filter_map(|c| b.ratio(c.0, c.1)))
        .collect();
    // Headroom above the tallest bar for the legend.
    let top = all.iter().cloned().fold(10.0, f64::max) * 30.0;
    let bottom = all.iter().cloned().fold(0.5, f64::min) / 2.0;
    // x counts bar slots: each benchmark's group is one slot per column plus a gap of two.
    let slots = COLUMNS.len() as i32 + 2;
    let n = benches.len() as i32 * slots;
    let centres: Vec<i32> = (0..benches.len() as i32)
        .map(|i| i * slots + slots / 2)
        .collect();
    let root = BitMapBackend::new(path, (1800, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Time relative to the primal (log scale; lower is better)",
            ("sans-serif", 24),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((0..n).with_key_points(centres), (bottom..top).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|x| {
            benches
                .get((x / slots) as usize)
                .map_or(String::new(), |b| b.0.clone())
        })
        .x_label_style(("sans-serif", 13))
        .y_desc("time / primal time")
        .y_label_formatter(&|y| format!("{y}"))
        .label_style(("sans-serif", 15))
        .draw()?;
    for (s, (tool, mode, heading)) in COLUMNS.iter().enumerate() {
        let colour = Palette99::pick(s).to_rgba();
        let bars = benches.iter().enumerate().filter_map(|(i, (_, b))| {
            let x0 = i as i32 * slots + 1 + s as i32;
            b.ratio(tool, mode)
                .map(|r| Rectangle::new([(x0, bottom), (x0 + 1, r)], colour.filled()))
        });
        // A failed column gets an "x" where its bar would stand.
        let failed = benches.iter().enumerate().filter_map(|(i, (_, b))| {
            let x0 = i as i32 * slots + 1 + s as i32;
            b.failure(tool, mode)
                .map(|_| Text::new("x", (x0, bottom * 1.5), ("sans-serif", 15).into_font()))
        });
        chart.draw_series(failed)?;
        chart
            .draw_series(bars)?
            .label(*heading)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
    }
    chart.draw_series(LineSeries::new([(0, 1.0), (n, 1.0)], BLACK.stroke_width(1)))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperMiddle)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    root.present()?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: umbra-bench-report RESULTS_DIR")?;
    let dir = Path::new(&dir);
    let benches = read(dir)?;
    print!("{}", table(&benches));
    plot(&benches, &dir.join("ratios.png"))?;
    Ok(())
}
