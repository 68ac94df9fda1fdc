//! `locus`: simulate where data lives and where work runs on NUMA GPU systems.
//!
//! Every subcommand is one file under `cmd/`; errors in user input (unknown preset,
//! workload, parameter or configuration key; malformed TOML or trace) print a message that
//! names the problem and exit with code 2.

mod cmd;
mod hms;
mod plot;
mod report;
mod repro;
mod trace_stat;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Locus: a simulator of data placement, thread-block scheduling, remote caching and
/// offload on NUMA multi-GPU systems.
///
/// Start with `locus run` (CODA's 4-GPU machine running BFS), then list what exists with
/// `locus presets` and `locus workloads`, and change anything with `--set key=value`.
#[derive(Parser)]
#[command(name = "locus", version, about, long_about = None, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one workload (built-in or Accel-Sim trace) on one configuration.
    Run(cmd::run::RunArgs),
    /// List the built-in machine presets.
    Presets(cmd::list::PresetsArgs),
    /// List the built-in workloads with their parameters.
    Workloads(cmd::list::WorkloadsArgs),
    /// Inspect Accel-Sim traces.
    #[command(subcommand)]
    Trace(cmd::trace::TraceCmd),
    /// Analyses that need no timing simulation.
    #[command(subcommand)]
    Analyze(cmd::analyze::AnalyzeCmd),
    /// Reproduce a paper's evaluation: parallel runs, CSV, figures, Markdown report.
    #[command(subcommand)]
    Repro(cmd::repro::ReproCmd),
    /// The HMS placement model: predict a kernel's time under a data placement, rank
    /// placements, detect the DRAM address mapping.
    #[command(subcommand)]
    Model(cmd::model::ModelCmd),
    /// Cross-check models against reference simulators (needs the `dramsim3` feature).
    #[command(subcommand)]
    Validate(cmd::validate::ValidateCmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    plot::register_fonts();
    let r = match cli.cmd {
        Command::Run(a) => cmd::run::run(a),
        Command::Presets(a) => cmd::list::presets(a),
        Command::Workloads(a) => cmd::list::workloads(a),
        Command::Trace(c) => cmd::trace::run(c),
        Command::Analyze(c) => cmd::analyze::run(c),
        Command::Validate(c) => cmd::validate::run(c),
        Command::Repro(c) => cmd::repro::run(c),
        Command::Model(c) => cmd::model::run(c),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
