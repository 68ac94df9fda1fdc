//! `locus analyze sharing`: the page-sharing histogram of CODA §3 / Fig. 5 and the
//! benchmark's category by the paper's rules (Table 2), without timing simulation.

use super::common::{MachineArgs, WorkloadArgs};
use anyhow::Result;
use clap::{Args, Subcommand};
use locus_workload::sharing::{page_sharing, BUCKETS};

#[derive(Subcommand)]
pub enum AnalyzeCmd {
    /// Pages by number of thread blocks and of GPUs touching them (GPU = Eq. 1 affinity).
    Sharing(SharingArgs),
    /// Instruction mix without timing: warp instructions by class, memory instructions by
    /// space and kind, warp instructions per memory instruction (`--all --markdown` for
    /// every built-in workload).
    Mix(super::mix::MixArgs),
}

#[derive(Args)]
pub struct SharingArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Analyse at most this many kernel launches.
    #[arg(long, default_value_t = 1000)]
    pub max_launches: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(c: AnalyzeCmd) -> Result<()> {
    match c {
        AnalyzeCmd::Sharing(a) => sharing(a),
        AnalyzeCmd::Mix(a) => super::mix::run(a),
    }
}

fn sharing(a: SharingArgs) -> Result<()> {
    if !a.workload.apps.is_empty() {
        anyhow::bail!(
            "analyze sharing takes one workload (-w NAME or --trace PATH), not --apps; analyse each application in turn, e.g. -w {}",
            a.workload.apps[0].trim()
        );
    }
    let cfg = a.machine.config()?;
    let mut w = a.workload.build()?;
    let sys = locus_sim::System::new(&cfg);
    let spn = cfg.system.sms_per_node as u64;
    let r = page_sharing(
        &mut *w,
        cfg.system.nodes,
        cfg.system.page_bytes,
        cfg.system.line_bytes,
        |k| spn * sys.blocks_per_sm(k).max(1) as u64,
        a.max_launches,
    )?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    println!(
        "page sharing of {} ({} launch-page pairs)",
        w.name(),
        r.pages
    );
    println!("  pages by thread blocks touching them:");
    for (i, (name, _, _)) in BUCKETS.iter().enumerate() {
        let f = if r.pages == 0 {
            0.0
        } else {
            r.by_blocks[i] as f64 / r.pages as f64
        };
        println!(
            "    {:>6} TBs  {:>9}  {:>5.1}%  {}",
            name,
            r.by_blocks[i],
            100.0 * f,
            "#".repeat((40.0 * f) as usize)
        );
    }
    println!("  pages by GPUs touching them:");
    for (i, n) in r.by_gpus.iter().enumerate() {
        let f = if r.pages == 0 {
            0.0
        } else {
            *n as f64 / r.pages as f64
        };
        println!("    {:>6} GPUs {:>9}  {:>5.1}%", i + 1, n, 100.0 * f);
    }
    println!(
        "  one TB {:.1}%, one GPU {:.1}%, accesses to one-GPU pages {:.1}%",
        100.0 * r.frac_one_block,
        100.0 * r.frac_one_gpu,
        100.0 * r.access_frac_one_gpu
    );
    println!("  category: {}", r.category);
    Ok(())
}
