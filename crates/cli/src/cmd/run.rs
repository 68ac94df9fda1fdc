//! `locus run`: simulate one workload on one machine, print a summary, write statistics.

use super::common::{check_output_file, MachineArgs, WorkloadArgs};
use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Write every statistic as JSON (versioned schema) to this file.
    #[arg(long)]
    pub stats_json: Option<PathBuf>,
    /// Write per-kernel statistics as CSV to this file.
    #[arg(long)]
    pub stats_csv: Option<PathBuf>,
    /// Leave host-dependent figures (run time, requests per second) out of the JSON, so
    /// two runs give byte-identical files.
    #[arg(long)]
    pub no_host: bool,
    /// No progress bar and no summary.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `--place NAME=...` where NAME is no data object but a shared array that the workload
/// moves with a parameter (`<name>_space`, HMS's S→G moves): refused with that parameter
/// named, before the run (the simulator's own refusal only lists the data objects).
fn check_shared_places(
    cfg: &locus_sim::Config,
    wa: &super::common::WorkloadArgs,
    objs: &[locus_workload::DataObject],
) -> Result<()> {
    let Some(name) = wa.workload.as_deref() else {
        return Ok(());
    };
    for (key, space) in &cfg.place {
        if locus_sim::spaces::find_object(objs, key).is_ok() {
            continue;
        }
        if let Some(p) = crate::hms::shared_move_param(name, key, locus_model::Place::Global) {
            anyhow::bail!(
                "place.{key} = {space}: `{key}` is a shared array of {name}, no data object of the simulator; move it to global memory with `--param {p}=global` (shared arrays go nowhere else)"
            );
        }
    }
    Ok(())
}

pub fn run(a: RunArgs) -> Result<()> {
    if let Some(p) = &a.stats_json {
        check_output_file(p, "--stats-json")?;
    }
    if let Some(p) = &a.stats_csv {
        check_output_file(p, "--stats-csv")?;
    }
    let cfg = a.machine.config()?;
    let t_input = Instant::now();
    let mut apps = a.workload.build_apps()?;
    let mut w = if apps.is_empty() {
        Some(a.workload.build()?)
    } else {
        None
    };
    let input_seconds = t_input.elapsed().as_secs_f64();
    if let Some(w) = &w {
        check_shared_places(&cfg, &a.workload, w.objects())?;
    }
    let mut sys = locus_sim::System::new(&cfg);
    let start = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    let quiet = a.quiet;
    let mut progress = |p: &locus_sim::Progress| {
        if quiet || start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let b = bar.get_or_insert_with(|| {
            let b = ProgressBar::new(p.blocks_total);
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} kernel {prefix} [{bar:30}] {pos}/{len} blocks {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        b.set_length(p.blocks_total);
        b.set_prefix(format!("{} {}", p.kernel, p.kernel_name));
        b.set_position(p.blocks_done.min(p.blocks_total));
        b.set_message(format!(
            "{:.0} us simulated, {} L1 requests",
            p.sim_ns / 1000.0,
            p.l1_requests
        ));
    };
    let mut report = match w.as_mut() {
        Some(w) => match sys.run(&mut **w, &mut progress) {
            // a warp needed more than `run.gen_limit` generated instructions: the same
            // run again on a fresh workload without the limit (the statistics are equal)
            Err(locus_sim::SimError::GenLimit(k)) => {
                if !quiet {
                    eprintln!(
                        "note: a warp ran past run.gen_limit = {k}; running again without it"
                    );
                }
                let mut c = cfg.clone();
                c.run.gen_limit = 0;
                let mut again = a.workload.build()?;
                let mut r = locus_sim::System::new(&c).run(&mut *again, &mut progress)?;
                if let Some(h) = &mut r.host {
                    h.gen_reruns = 1;
                }
                r
            }
            r => r?,
        },
        None => {
            let mut refs: Vec<&mut dyn locus_workload::Workload> = apps
                .iter_mut()
                .map(|b| &mut **b as &mut dyn locus_workload::Workload)
                .collect();
            sys.run_multi(&mut refs, &mut progress)?
        }
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(h) = &mut report.host {
        h.input_seconds = input_seconds;
    }
    if !a.quiet {
        let mut overrides = a.machine.overrides();
        overrides.extend(
            a.workload
                .params
                .iter()
                .map(|p| format!("--param {}", p.trim())),
        );
        crate::report::print_summary(&report, &overrides, !a.workload.apps.is_empty());
    }
    if a.no_host {
        report.host = None;
    }
    if let Some(p) = &a.stats_json {
        let s = serde_json::to_string_pretty(&report)?;
        std::fs::write(p, s + "\n").with_context(|| format!("cannot write {}", p.display()))?;
    }
    if let Some(p) = &a.stats_csv {
        std::fs::write(p, crate::report::kernels_csv(&report))
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}
