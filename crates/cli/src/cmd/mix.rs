//! `locus analyze mix`: a workload's instruction mix without timing (warp instructions by
//! class, memory instructions by space and kind, warp instructions per memory instruction),
//! for one workload or every built-in one (`--all --markdown` writes the table of
//! docs/workloads.md).

use super::common::{MachineArgs, WorkloadArgs};
use anyhow::Result;
use clap::Args;
use locus_workload::mix::{instruction_mix, Mix, MixReport};
use locus_workload::{InstClass, Space};
use std::collections::BTreeMap;

#[derive(Args)]
pub struct MixArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Every built-in workload with its default parameters (ignores -w/--param).
    #[arg(long)]
    pub all: bool,
    /// Count at most this many kernel launches per workload.
    #[arg(long, default_value_t = 1000)]
    pub max_launches: usize,
    /// Print a Markdown table (one row per workload) instead of text.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: MixArgs) -> Result<()> {
    let cfg = a.machine.config()?;
    let line = cfg.system.line_bytes;
    let mut reports = Vec::new();
    if a.all {
        for b in locus_workload::registry::all() {
            if b.suite == "Locus micro" {
                continue;
            }
            let mut w = locus_workload::registry::build(b.name, &BTreeMap::new(), 1)?;
            let r = instruction_mix(&mut w, line, a.max_launches)?;
            eprintln!(
                "{:<18} {:>6.2} warp instructions per memory instruction",
                b.name,
                r.total.insts_per_mem()
            );
            reports.push(r);
        }
    } else {
        let mut w = a.workload.build()?;
        reports.push(instruction_mix(&mut *w, line, a.max_launches)?);
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else if a.markdown {
        print!("{}", markdown(&reports));
    } else {
        for r in &reports {
            text(r);
        }
    }
    Ok(())
}

/// One row per workload: kernels, warp and memory instructions, the ratio, spaces.
pub fn markdown(reports: &[MixReport]) -> String {
    let mut s = String::from(
        "| workload | suite | kernels | warp insts | memory insts | warp insts / memory inst | memory spaces |\n|---|---|---|---:|---:|---:|---|\n",
    );
    for r in reports {
        let suite = locus_workload::registry::find(&r.workload)
            .map(|b| b.suite)
            .unwrap_or("-");
        let kernels: Vec<&str> = r.kernels.iter().map(|k| k.name.as_str()).collect();
        s += &format!(
            "| {} | {} | {} | {} | {} | {:.2} | {} |\n",
            r.workload,
            suite,
            kernels.join(", "),
            r.total.warp_insts,
            r.total.mem_insts,
            r.total.insts_per_mem(),
            r.total.spaces()
        );
    }
    s
}

fn text(r: &MixReport) {
    println!("instruction mix of {}", r.workload);
    let row = |m: &Mix| {
        let classes: Vec<String> = InstClass::ALL
            .iter()
            .filter(|c| m.by_class[**c as usize] > 0)
            .map(|c| format!("{} {}", c.name(), m.by_class[*c as usize]))
            .collect();
        println!(
            "  {:<24} {:>4} launches {:>9} blocks {:>12} warp insts {:>11} memory  {:>6.2} per memory inst",
            m.name,
            m.launches,
            m.blocks,
            m.warp_insts,
            m.mem_insts,
            m.insts_per_mem()
        );
        println!("  {:<24} {}", "", classes.join(", "));
        for s in Space::ALL {
            let k = m.by_space[s as usize];
            if k.iter().sum::<u64>() > 0 {
                println!(
                    "  {:<24} {:<8} load {} store {} atomic {}",
                    "",
                    s.name(),
                    k[0],
                    k[1],
                    k[2]
                );
            }
        }
    };
    for k in &r.kernels {
        row(k);
    }
    if r.kernels.len() > 1 {
        row(&r.total);
    }
}
