//! `locus repro`: reproduce a paper's evaluation (runs in parallel, resumable).

use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum ReproCmd {
    /// CODA (Kim et al., TACO 2018): Figs. 5, 9, 10, 11, 12, 14, 15 and migration.
    Coda(ReproArgs),
    /// REC (Ko et al., JSA 2025): Figs. 1, 4-7, 11-24 and Table 1 on rec-4gpu
    /// (baseline, 2x, HMG, REC, ideal, caching schemes, sensitivity sweeps, DNN stand-ins),
    /// claims declared before the runs, Markdown report and figures.
    Rec(RecArgs),
    /// NUBA (Zhao et al., ASPLOS '23): Figs. 3, 7-12 and the Fig. 14 sensitivity points on
    /// nuba-mem-uba, nuba-sm-uba and nuba (LAB, MDR), claims declared before the runs,
    /// Markdown report and figures.
    Nuba(NubaArgs),
    /// HMS placement model (Huang & Li): every Table IV placement simulated on `k80`,
    /// Eq. 11 trained on the training set, Table I, Figs. 4-9 and the §6.4 ablations,
    /// claims declared before the runs, Markdown report, CSV and figures.
    Hms(HmsArgs),
    /// NDP (Kim et al., SC17): Figs. 5, 7-11 and the §7.6 studies on ndp-8hmc,
    /// ndp-morecore and ndp-128sm (Baseline, NaiveNDP, static ratios, NDP(Dyn),
    /// NDP(Dyn)_Cache), claims declared before the runs, Markdown report and figures.
    Ndp(NdpArgs),
    /// Compare two output folders of one reproduction (e.g. without and with `--set
    /// l2.set_index=xor`): each claim's value and verdict on both sides, the verdicts that
    /// changed, and the simulated cycles of the runs both hold (geometric mean B / A, the
    /// runs that moved most), as Markdown.
    Compare(CompareArgs),
}

#[derive(Args)]
pub struct CompareArgs {
    /// The first output folder (A).
    pub a: PathBuf,
    /// The second output folder (B).
    pub b: PathBuf,
    /// Write the Markdown here (its ledger beside it, `.numbers.txt`) instead of printing.
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Names for A and B in the report instead of their paths (e.g. `linear,partition`).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub labels: Option<Vec<String>>,
}

#[derive(Args)]
pub struct NdpArgs {
    /// Output folder: report.md (with numbers.txt and checks.txt), runs.csv, verdicts.csv,
    /// figure CSVs, figures/, runs/ (one JSON per finished run; rerunning skips them).
    #[arg(long, short = 'o', default_value = "out/repro-ndp")]
    pub out: PathBuf,
    /// Three workloads (vectoradd, scalarprod, km), two static ratios, the §7.6 studies
    /// on the first workload only.
    #[arg(long)]
    pub quick: bool,
    /// Comma-separated workloads instead of Table 1's ten (e.g. --workloads km,vectoradd).
    #[arg(long)]
    pub workloads: Option<String>,
    /// Stop every run at this many warp instructions (`run.max_warp_insts`). Default: none,
    /// every run to its end, as the paper's (it states no cap).
    #[arg(long)]
    pub warp_insts: Option<u64>,
    /// Simulations run at once (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// No progress bar and no summary.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Apply this override to every run (repeatable; e.g. `--set l2.set_index=xor`), in
    /// front of each run's own overrides: the whole reproduction on a changed machine. The
    /// output folder remembers it (overrides.txt) and refuses runs made without it; compare
    /// two folders with `locus repro compare`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(Args)]
pub struct NubaArgs {
    /// Output folder: report.md (with numbers.txt and checks.txt), runs.csv, verdicts.csv,
    /// figure CSVs, figures/, runs/ (one JSON per finished run; rerunning skips them).
    #[arg(long, short = 'o', default_value = "out/repro-nuba")]
    pub out: PathBuf,
    /// Two benchmarks (2mm, atax), the sweeps on the first, and runs of 1/128 of the
    /// paper's instruction count.
    #[arg(long)]
    pub quick: bool,
    /// Comma-separated workloads instead of Table 2's (e.g. --workloads 2mm,atax).
    #[arg(long)]
    pub workloads: Option<String>,
    /// Stop every run at this many warp instructions (default: the paper's 1B thread
    /// instructions / 32 threads / 32 = 976562, or 244140 with --quick).
    #[arg(long)]
    pub warp_insts: Option<u64>,
    /// Simulations run at once (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// No progress bar and no summary.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Apply this override to every run (repeatable; e.g. `--set l2.set_index=xor`), in
    /// front of each run's own overrides: the whole reproduction on a changed machine. The
    /// output folder remembers it (overrides.txt) and refuses runs made without it; compare
    /// two folders with `locus repro compare`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(Args)]
pub struct HmsArgs {
    /// Output folder: report.md, cases.csv, block-range.csv (the shared moves the spec's
    /// rule refuses, under the named reading `block-range`), table1.csv, fig4.csv,
    /// ablations.csv, verdicts.csv, coefs.json, figures/.
    #[arg(long, short = 'o', default_value = "out/repro-hms")]
    pub out: PathBuf,
    /// Leave out Fig. 4's fft trace (the Table IV set is the same).
    #[arg(long)]
    pub quick: bool,
    /// Only the Table IV cases of these workloads (comma-separated Locus names, e.g.
    /// `shoc-neuralnet,matmul`); the regression then trains on the training cases among them.
    #[arg(long, value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// No progress lines.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Args)]
pub struct RecArgs {
    /// Output folder: report.md (with numbers.txt and checks.txt), runs.csv, verdicts.csv,
    /// figures/, runs/ (one JSON per finished run; rerunning skips them).
    #[arg(long, short = 'o', default_value = "out/repro-rec")]
    pub out: PathBuf,
    /// A benchmark subset, the sweeps on its first benchmark only, and the first 1M warp
    /// instructions of each run.
    #[arg(long)]
    pub quick: bool,
    /// Comma-separated workloads instead of REC's 12 (e.g. --workloads mm,spmv).
    #[arg(long)]
    pub workloads: Option<String>,
    /// Stop every run at this many warp instructions (`run.max_warp_insts`; the first
    /// benchmark's baseline and REC also run to the end, so the report shows the cap's
    /// effect). Default: 1000000 with --quick; none without (every run to its end, as
    /// the paper's: hours on 2 cores; e.g. 1500000 fits about half an hour).
    #[arg(long)]
    pub warp_insts: Option<u64>,
    /// Simulations run at once (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// No progress bar and no summary.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Apply this override to every run (repeatable; e.g. `--set l2.set_index=xor`), in
    /// front of each run's own overrides: the whole reproduction on a changed machine. The
    /// output folder remembers it (overrides.txt) and refuses runs made without it; compare
    /// two folders with `locus repro compare`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(Args)]
pub struct ReproArgs {
    /// Output folder: report.md, CSV files, PNG and SVG figures, runs/ (one JSON per
    /// finished run; rerunning skips them, so an interrupted reproduction resumes).
    #[arg(long, short = 'o', default_value = "out/repro-coda")]
    pub out: PathBuf,
    /// Reduced inputs and a benchmark subset: under a minute, for tests and a first look.
    #[arg(long)]
    pub quick: bool,
    /// Simulations run at once (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// No progress bar and no summary.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Apply this override to every run (repeatable; e.g. `--set l2.set_index=xor`), in
    /// front of each run's own overrides: the whole reproduction on a changed machine. The
    /// output folder remembers it (overrides.txt) and refuses runs made without it; compare
    /// two folders with `locus repro compare`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// Create the output folder and resolve `--jobs`, before any simulation runs.
fn prepare(out: &std::path::Path, jobs: Option<usize>) -> Result<usize> {
    // an unusable output folder is reported before any simulation runs
    std::fs::create_dir_all(out).map_err(|e| {
        anyhow::anyhow!("-o {}: cannot create the output folder: {e}", out.display())
    })?;
    if jobs == Some(0) {
        anyhow::bail!("--jobs 0: give at least 1 (default: all cores)");
    }
    Ok(jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    }))
}

/// The options shared by the reproductions that cap their runs (REC, NUBA, NDP).
struct Capped<'a> {
    out: &'a std::path::Path,
    workloads: Option<&'a str>,
    quick: bool,
    warp_insts: Option<u64>,
    jobs: Option<usize>,
    quiet: bool,
    set: &'a [String],
}

/// A reproduction's benchmark list from `--workloads` / `--quick`.
type BenchesFn = fn(Option<&str>, bool) -> Result<Vec<String>>;
/// A reproduction's run: out, benchmarks, quick, cap, jobs, quiet, `--set`.
type RunFn =
    fn(&std::path::Path, &[String], bool, Option<u64>, usize, bool, &[String]) -> Result<()>;

/// Check `c` (workloads, output folder, jobs, cap) before any run, run the reproduction,
/// and mark its report with `--set`.
fn capped(c: Capped, benches: BenchesFn, run: RunFn) -> Result<()> {
    let benches = benches(c.workloads, c.quick)?;
    let jobs = prepare(c.out, c.jobs)?;
    if c.warp_insts == Some(0) {
        anyhow::bail!("--warp-insts 0: give at least 1 (or leave it out)");
    }
    run(c.out, &benches, c.quick, c.warp_insts, jobs, c.quiet, c.set)?;
    crate::repro::mark_report(c.out, c.set)
}

/// [`capped`] with the options of args `a` and the functions of reproduction module `m`.
macro_rules! capped {
    ($a:ident, $m:ident) => {
        capped(
            Capped {
                out: &$a.out,
                workloads: $a.workloads.as_deref(),
                quick: $a.quick,
                warp_insts: $a.warp_insts,
                jobs: $a.jobs,
                quiet: $a.quiet,
                set: &$a.set,
            },
            crate::repro::$m::benches,
            crate::repro::$m::run,
        )
    };
}

pub fn run(c: ReproCmd) -> Result<()> {
    match c {
        ReproCmd::Coda(a) => {
            let jobs = prepare(&a.out, a.jobs)?;
            crate::repro::coda::run(&a.out, a.quick, jobs, a.quiet, &a.set)?;
            crate::repro::mark_report(&a.out, &a.set)
        }
        ReproCmd::Rec(a) => capped!(a, rec),
        ReproCmd::Nuba(a) => capped!(a, nuba),
        ReproCmd::Ndp(a) => capped!(a, ndp),
        ReproCmd::Compare(a) => {
            if a.labels.as_ref().is_some_and(|l| l.len() != 2) {
                anyhow::bail!("--labels: give two names, A's and B's, comma-separated (e.g. --labels linear,partition)");
            }
            crate::repro::compare::run(&a.a, &a.b, a.out.as_deref(), a.labels.as_deref())
        }
        ReproCmd::Hms(a) => {
            prepare(&a.out, None)?;
            let only = (!a.workloads.is_empty()).then_some(a.workloads.as_slice());
            crate::repro::hms::run(&a.out, a.quick, only, a.quiet)
        }
    }
}
