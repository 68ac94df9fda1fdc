//! `locus model`: the HMS analytical placement model (`locus-model`, hms spec §3-§4).
//! `predict` prints one target placement's predicted time with its terms, `rank` predicts
//! and ranks every legal placement of the kernel's arrays, `detect` runs Algorithm 1
//! against the configured DRAM. The sample is profiled functionally (every block run, in
//! the spec's §3.7 global order) and, with `--measure`, simulated on the machine to
//! measure its time (otherwise the model's own estimate of the sample sets the clock of
//! the arrival times).

use super::common::{MachineArgs, WorkloadArgs};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use locus_model::dram::{detect_mapping, Kingman, SimDram};
use locus_model::model::{Flags, Hw, Model, Prediction};
use locus_model::profile::{collect, CollectOpts, Measured, Profile};
use locus_model::search;
use locus_model::train::Coefs;
use std::path::PathBuf;

/// `locus model ...`
#[derive(Subcommand)]
pub enum ModelCmd {
    /// Predict the time of one target placement and print the model's terms.
    Predict(PredictArgs),
    /// Predict every legal placement of the kernel's arrays and rank them, fastest first.
    Rank(RankArgs),
    /// Run Algorithm 1 (address-mapping detection) against the machine's DRAM model.
    Detect(DetectArgs),
}

/// Options shared by `predict` and `rank`.
#[derive(Args)]
pub struct ModelArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Kernel to model (default: the first one launched).
    #[arg(long)]
    pub kernel: Option<String>,
    /// Launches of the program profiled at most (the kernel's launches among them are
    /// merged into one profile).
    #[arg(long, default_value_t = 64)]
    pub max_launches: usize,
    /// Record at most this many warp-level accesses (whole waves; the rest of the kernel
    /// runs unrecorded and the prediction scales by the blocks recorded).
    #[arg(long, default_value_t = 1 << 18)]
    pub max_accesses: usize,
    /// Simulate the sample placement on the machine (`--preset`, `--set`) and use its
    /// measured time and instruction counts; the model's clock and SM count follow the
    /// machine.
    #[arg(long)]
    pub measure: bool,
    /// Model variant: ours, sim-et-al, baseline, baseline+instr, baseline+instr+queue-even,
    /// baseline+queue-mapped (hms spec §6.4).
    #[arg(long, default_value = "ours")]
    pub variant: String,
    /// Kingman's formula: standard (textbook) or printed (Eq. 9 as printed).
    #[arg(long, default_value = "standard")]
    pub kingman: String,
    /// Eq. 11 coefficients (JSON `{"w": [11 numbers], "c": number}`); without them
    /// T_overlap follows Sim et al.'s CWP/MWP rule.
    #[arg(long)]
    pub coefs: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `locus model predict`
#[derive(Args)]
pub struct PredictArgs {
    #[command(flatten)]
    pub m: ModelArgs,
    /// The sample placement: `default` (the workload's own; change it with the workload's
    /// `--param *_space=...`).
    #[arg(long, default_value = "default")]
    pub sample: String,
    /// The target as moves from the sample, e.g. `weights=const` or `a=tex1d,b=shared`
    /// (components: global, tex1d, tex2d, const, shared); empty: the sample itself.
    #[arg(long, default_value = "")]
    pub target: String,
}

/// `locus model rank`
#[derive(Args)]
pub struct RankArgs {
    #[command(flatten)]
    pub m: ModelArgs,
    /// Enumerate exhaustively up to this many candidates (otherwise single moves).
    #[arg(long, default_value_t = 4096)]
    pub limit: usize,
    /// Move only these arrays (comma-separated names; a unique part of a name is enough,
    /// e.g. `weights`); default: every array the kernel accesses.
    #[arg(long, value_delimiter = ',')]
    pub objects: Vec<String>,
    /// Print the best this many placements (0: all).
    #[arg(long, default_value_t = 20)]
    pub top: usize,
}

/// `locus model detect`
#[derive(Args)]
pub struct DetectArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
}

/// Entry point.
pub fn run(c: ModelCmd) -> Result<()> {
    match c {
        ModelCmd::Predict(a) => predict(a),
        ModelCmd::Rank(a) => rank(a),
        ModelCmd::Detect(a) => detect(a),
    }
}

fn flags(a: &ModelArgs) -> Result<Flags> {
    let mut f = Flags::ablations()
        .into_iter()
        .find(|(n, _)| *n == a.variant)
        .map(|(_, f)| f)
        .ok_or_else(|| {
            let names: Vec<&str> = Flags::ablations().iter().map(|(n, _)| *n).collect();
            anyhow!(
                "--variant {}: unknown; use one of {}",
                a.variant,
                names.join(", ")
            )
        })?;
    f.kingman = match a.kingman.as_str() {
        "standard" => Kingman::Standard,
        "printed" => Kingman::AsPrinted,
        k => bail!("--kingman {k}: use standard or printed"),
    };
    Ok(f)
}

fn coefs(a: &ModelArgs) -> Result<Option<Coefs>> {
    let Some(p) = &a.coefs else { return Ok(None) };
    let text = std::fs::read_to_string(p).with_context(|| format!("--coefs {}", p.display()))?;
    let c: Coefs = serde_json::from_str(&text).with_context(|| {
        format!(
            "--coefs {}: expected {{\"w\": [11 numbers], \"c\": number}}",
            p.display()
        )
    })?;
    if c.w.len() != 11 {
        bail!(
            "--coefs {}: `w` has {} numbers, Eq. 11 has 11 features",
            p.display(),
            c.w.len()
        );
    }
    Ok(Some(c))
}

/// Profiles the sample (and simulates it with `--measure`), returning the model.
fn model(a: &ModelArgs) -> Result<Model> {
    let mut wa = a.workload.clone();
    if let Some(n) = &wa.workload {
        if locus_workload::registry::find(n).is_none()
            && locus_workload::registry::find(&format!("shoc-{n}")).is_some()
        {
            wa.workload = Some(format!("shoc-{n}"));
        }
    }
    let mut hw = Hw::default();
    let cfg = if a.measure {
        let cfg = a.machine.config()?;
        hw.clock_ghz = cfg.system.sm_clock_ghz;
        hw.sms = cfg.system.sms_per_node * cfg.system.nodes;
        Some(cfg)
    } else {
        None
    };
    let opts = CollectOpts {
        kernel: a.kernel.clone(),
        max_launches: a.max_launches,
        sms: hw.sms,
        max_warps_per_sm: hw.max_warps_per_sm,
        max_blocks_per_sm: hw.max_blocks_per_sm,
        max_accesses: a.max_accesses,
        ..CollectOpts::default()
    };
    let mut w = wa.build()?;
    let mut p: Profile = collect(&mut *w, &opts).map_err(|e| anyhow!(e))?;
    if let Some(cfg) = cfg {
        let mut cfg = cfg;
        cfg.run.max_kernels = a.max_launches.min(u32::MAX as usize) as u32;
        let mut w = wa.build()?;
        let mut sys = locus_sim::System::new(&cfg);
        let r = sys.run(&mut *w, &mut |_| {})?;
        let mut me = Measured::default();
        for k in r.sim.kernels.iter().filter(|k| k.name == p.kernel) {
            me.cycles += k.summary.cycles as f64;
            me.inst_executed += k.summary.counters.warp_insts;
        }
        me.inst_issued = me.inst_executed;
        p.measured = Some(me);
    }
    Ok(Model::new(p, hw))
}

fn print_terms(label: &str, pr: &Prediction) {
    println!(
        "{label:<40} T {:>12.0}  = T_comp {:>11.0} + T_mem {:>11.0} - T_overlap {:>11.0} + T_init {:>9.0}",
        pr.total, pr.t_comp, pr.t_mem, pr.t_overlap, pr.t_init
    );
}

fn predict(a: PredictArgs) -> Result<()> {
    if a.sample != "default" {
        bail!(
            "--sample {}: only `default` (the workload's placement) is supported; set the sample with the workload's --param *_space=...",
            a.sample
        );
    }
    let f = flags(&a.m)?;
    let co = coefs(&a.m)?;
    let m = model(&a.m)?;
    let p = &m.profile;
    let target = search::parse_target(p, &a.target).map_err(|e| anyhow!("--target: {e}"))?;
    let s = m
        .predict(&p.sample_placement(), f, co.as_ref())
        .map_err(|e| anyhow!(e))?;
    let t = m
        .predict(&target, f, co.as_ref())
        .map_err(|e| anyhow!("--target: {e}"))?;
    if a.m.json {
        let v = serde_json::json!({
            "workload": p.workload, "kernel": p.kernel,
            "measured": p.measured, "sample": s, "target": t,
            "target_moves": search::describe(p, &target),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!(
        "{} {}: {} launches, {} blocks, {} warps, N = {} warps/SM, {} accesses profiled",
        p.workload,
        p.kernel,
        p.launches,
        p.blocks,
        p.total_warps,
        p.warps_per_sm,
        p.accesses.len()
    );
    if let Some(me) = &p.measured {
        println!(
            "measured sample: {:.0} cycles, {} warp instructions",
            me.cycles, me.inst_executed
        );
    }
    print_terms("sample", &s);
    print_terms(&search::describe(p, &target), &t);
    println!("terms of the target (cycles unless said):");
    println!("  #inst per warp {:.1} (sample {:.1}); Δaddr {}; replays (1) global {} (2) const miss {} (3) const divergence {} (4) bank conflict {}",
        t.inst_per_warp, s.inst_per_warp, t.d_addr, t.replays[0], t.replays[1], t.replays[2], t.replays[3]);
    println!(
        "  AMAT {:.1} = DRAM_lat {:.1} x miss_ratio {:.3} + hit_lat + shmem_lat x {:.3}",
        t.amat, t.dram.lat, t.miss_ratio, t.shmem_ratio
    );
    println!(
        "  DRAM: service {:.1} + queuing {:.1}; rows hit/miss/conflict {:?}; {} banks ({} saturated); c_a {:.2}",
        t.dram.service, t.dram.queuing, t.dram.rows, t.dram.banks, t.dram.saturated, t.dram.c_a
    );
    println!(
        "  CWP {:.2} MWP {:.2} ITMLP {:.2}; overlap ratio {:.3}; requests G/T/2T/C/S {:?}; misses tex/const/L2 {:?}",
        t.cwp, t.mwp, t.itmlp, t.overlap_ratio, t.events.req, t.events.misses
    );
    Ok(())
}

fn rank(a: RankArgs) -> Result<()> {
    let f = flags(&a.m)?;
    let co = coefs(&a.m)?;
    let m = model(&a.m)?;
    let p = &m.profile;
    let cands = if a.objects.is_empty() {
        search::enumerate(p, &m.hw, a.limit)
    } else {
        let idx = a
            .objects
            .iter()
            .map(|n| {
                search::find_object(p, n).ok_or_else(|| {
                    anyhow!(
                        "--objects: no array `{n}` accessed by kernel `{}`",
                        p.kernel
                    )
                })
            })
            .collect::<Result<Vec<usize>>>()?;
        search::enumerate_objects(p, &m.hw, a.limit, &idx)
    };
    let r = search::rank(&m, &cands, f, co.as_ref());
    if a.m.json {
        let rows: Vec<serde_json::Value> = r
            .iter()
            .map(|(c, pr)| serde_json::json!({"placement": search::describe(p, c), "prediction": pr}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    println!(
        "{} {}: {} legal placements of {} accessed arrays (variant {})",
        p.workload,
        p.kernel,
        r.len(),
        p.objects.iter().filter(|o| o.accesses > 0).count(),
        a.m.variant
    );
    let top = if a.top == 0 { r.len() } else { a.top };
    for (i, (c, pr)) in r.iter().enumerate().take(top) {
        print_terms(&format!("{:>3}. {}", i + 1, search::describe(p, c)), pr);
    }
    Ok(())
}

fn detect(a: DetectArgs) -> Result<()> {
    let cfg = a.machine.config()?;
    let mut d = SimDram {
        cfg: cfg.dram.clone(),
        channels: cfg.memory.channels_per_node,
        interleave_bytes: cfg.memory.channel_interleave_bytes,
        line_bytes: cfg.system.line_bytes,
    };
    let got = detect_mapping(&mut d, cfg.system.line_bytes);
    let want = d.configured_mapping();
    let bits = |m: u64| {
        (0..64)
            .filter(|b| m >> b & 1 == 1)
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    println!(
        "Algorithm 1 on one node's DRAM ({} channels, interleave {} B):",
        d.channels, d.interleave_bytes
    );
    println!("  column bits  {}", bits(got.mapping.col_mask));
    println!("  row bits     {}", bits(got.mapping.row_mask));
    println!("  bank-ID bits {}", bits(got.mapping.bank_mask()));
    println!(
        "  latencies: row hit {:.1} ns, miss {:.1} ns, conflict {:.1} ns",
        got.hit_ps as f64 / 1e3,
        got.miss_ps as f64 / 1e3,
        got.conflict_ps as f64 / 1e3
    );
    println!(
        "  configured mapping recovered exactly: {}",
        if got.mapping == want { "yes" } else { "NO" }
    );
    Ok(())
}
