//! `locus repro`: reproduce a paper's evaluation (runs in parallel, resumable).

use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum ReproCmd {
    /// CODA (Kim et al., TACO 2018): Figs. 5, 9, 10, 11, 12, 14, 15 and migration.
    Coda(ReproArgs),
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
}

pub fn run(c: ReproCmd) -> Result<()> {
    match c {
        ReproCmd::Coda(a) => {
            // an unusable output folder is reported before any simulation runs
            std::fs::create_dir_all(&a.out).map_err(|e| {
                anyhow::anyhow!(
                    "-o {}: cannot create the output folder: {e}",
                    a.out.display()
                )
            })?;
            if a.jobs == Some(0) {
                anyhow::bail!("--jobs 0: give at least 1 (default: all cores)");
            }
            let jobs = a.jobs.unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            });
            crate::repro::coda::run(&a.out, a.quick, jobs, a.quiet)
        }
    }
}
