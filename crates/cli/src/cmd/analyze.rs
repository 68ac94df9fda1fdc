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
    /// Directory storage (REC Table 1 and §5.5): bits per entry of the baseline line
    /// directory and of REC by coalescing range and GPU count, and directory kilobytes.
    RecStorage(RecStorageArgs),
    /// A paper's characterisation of its benchmarks measured on ours, beside the paper's:
    /// NUBA's low/high page sharing (Fig. 3, from timing runs on its 64-SM baseline) and
    /// footprints (Table 2), REC's footprints (Table 3).
    Classify(super::classify::ClassifyArgs),
    /// Kernel models whose warps never reconverge (issue 8): per kernel, warp instructions
    /// with a partial mask and shifted ones (the same code issued at different positions by
    /// different lanes), and warps with a long shifted run (`--all --markdown`:
    /// docs/reconvergence.md).
    Lanes(super::lanes::LanesArgs),
}

#[derive(Args)]
pub struct RecStorageArgs {
    /// L2 bytes per GPU the percentages refer to (REC Table 2: 2 MB).
    #[arg(long, default_value_t = 2 << 20)]
    pub l2_bytes: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
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
        AnalyzeCmd::RecStorage(a) => rec_storage(a),
        AnalyzeCmd::Classify(a) => super::classify::run(a),
        AnalyzeCmd::Lanes(a) => super::lanes::run(a),
    }
}

/// `locus analyze rec-storage`: the table of `locus_sim::coherence::storage::table`.
fn rec_storage(a: RecStorageArgs) -> Result<()> {
    if a.l2_bytes == 0 {
        anyhow::bail!("--l2-bytes must be at least 1 (REC Table 2: 2097152)");
    }
    let t = locus_sim::coherence::storage::table(a.l2_bytes);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&t)?);
        return Ok(());
    }
    println!(
        "directory storage (REC Table 1, §5.5): 48-bit tags, 64 B lines, % of a {} KB L2",
        a.l2_bytes / 1024
    );
    println!(
        "{:<22} {:>4} {:>8} {:>7} {:>5} {:>4} {:>6} {:>5} {:>6} {:>8} {:>7} {:>6}",
        "organisation",
        "GPUs",
        "range B",
        "entries",
        "base",
        "pos",
        "sharer",
        "valid",
        "bits",
        "kB",
        "x base",
        "% L2"
    );
    for r in &t {
        let e = &r.entry;
        println!(
            "{:<22} {:>4} {:>8} {:>7} {:>5} {:>4} {:>6} {:>5} {:>6} {:>8.1} {:>7.2} {:>6.2}",
            r.name,
            r.nodes,
            e.range_bytes,
            r.entries,
            e.base,
            e.position,
            e.sharer,
            e.valid,
            e.total,
            r.kb,
            r.vs_baseline,
            r.pct_of_l2
        );
    }
    Ok(())
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
