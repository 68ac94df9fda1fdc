//! `locus model`: the HMS analytical placement model (`locus-model`, hms spec §3-§4).
//! `predict` prints one target placement's predicted time with its terms, `rank` predicts
//! and ranks every legal placement of the kernel's arrays, `detect` runs Algorithm 1
//! against the configured DRAM. The sample is profiled functionally (every block run, in
//! the spec's §3.7 global order) and, with `--measure`, simulated on the machine to
//! measure its time (otherwise the model's own estimate of the sample sets the clock of
//! the arrival times).

use super::common::{MachineArgs, WorkloadArgs};
use crate::hms;
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use locus_model::dram::{Kingman, SimDram};
use locus_model::model::{Flags, Model, Prediction};
use locus_model::profile::{collect, CollectOpts, Measured, Profile};
use locus_model::search;
use locus_model::train::Coefs;
use locus_model::Place;
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

/// The machine the model predicts for: its parameters (clock, SMs, caches, DRAM mapping
/// and row latencies by Algorithm 1) are read from this configuration ([`hms::hw_for`]);
/// the same keys as `locus run`, with preset `k80` (the paper's machine) by default.
#[derive(Args, Clone)]
pub struct ModelMachine {
    /// Built-in preset (see `locus presets`).
    #[arg(long, short = 'p', default_value = "k80")]
    pub preset: String,
    /// A TOML file whose keys override the preset.
    #[arg(long, short = 'c')]
    pub config: Option<PathBuf>,
    /// Override one configuration key (repeatable), e.g. `--set system.sm_clock_ghz=0.562`.
    #[arg(long = "set", short = 's', value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
}

impl ModelMachine {
    fn config(&self) -> Result<locus_sim::Config> {
        MachineArgs {
            preset: self.preset.clone(),
            config: self.config.clone(),
            sets: self.sets.clone(),
            place: Vec::new(),
        }
        .config()
    }
}

/// Options shared by `predict` and `rank`.
#[derive(Args)]
pub struct ModelArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    #[command(flatten)]
    pub machine: ModelMachine,
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
    /// baseline+queue-mapped (hms spec §6.4); ours+overlap-clamp (Eq. 12's T_overlap
    /// clamped to [0, T_mem] instead of as printed), ours+replay-issue, ours+mwp-uncoalesced,
    /// ours+shmem-no-hit (Eq. 5 without hit_lat on shared requests, spec §7 #9),
    /// ours+merged-launches (a kernel's launches merged into one profile instead of
    /// predicted launch by launch, spec §3.7), ours+launch-tex-flush (the texture and
    /// constant caches invalidated at each launch, the L2 carried, as the simulator does)
    /// and ours+launch-cold (every launch's memory pass from cold caches; the default
    /// carries every cache, spec §3.8), ours+eq11-no-intercept and ours+eq11-no-S_req
    /// (Eq. 11 without the intercept or the shared-request share; spec §3.4).
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
    /// Simulate every printed placement on the machine (`--place` for each moved array; a
    /// shared array moved to global by its workload's `<array>_space=global` parameter)
    /// and print the simulated time beside the prediction, the simulated rank and the
    /// rank correlation (Spearman) of predicted and simulated times (spec §6.3, Fig. 6).
    /// Implies `--measure` for the sample.
    #[arg(long)]
    pub check: bool,
}

/// `locus model detect`
#[derive(Args)]
pub struct DetectArgs {
    #[command(flatten)]
    pub machine: ModelMachine,
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

/// The workload arguments with a SHOC short name resolved (`neuralnet` → `shoc-neuralnet`).
fn resolved(a: &ModelArgs) -> WorkloadArgs {
    let mut wa = a.workload.clone();
    if let Some(n) = &wa.workload {
        if locus_workload::registry::find(n).is_none()
            && locus_workload::registry::find(&format!("shoc-{n}")).is_some()
        {
            wa.workload = Some(format!("shoc-{n}"));
        }
    }
    wa
}

/// Simulates the workload on `cfg` with `place` overrides; the kernel's cycles and
/// executed / issued warp instructions over its launches among the first `launches`.
/// The profiled arrays with their sample component and accesses; an array read in several
/// components (`ObjInfo::place`: the one most of its accesses use) lists the others.
fn arrays_line(p: &Profile) -> String {
    p.objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.accesses > 0)
        .map(|(i, o)| {
            let mut by = [0u64; 5];
            for a in p.accesses.iter().filter(|a| a.obj as usize == i) {
                by[a.place.index()] += 1;
            }
            let others: Vec<String> = Place::ALL
                .iter()
                .filter(|&&pl| pl != o.place && by[pl.index()] > 0)
                .map(|&pl| format!("{} of them in {}", by[pl.index()], pl.short()))
                .collect();
            if others.is_empty() {
                format!("{} {} ({})", o.name, o.place.short(), o.accesses)
            } else {
                format!(
                    "{} {} ({}, {})",
                    o.name,
                    o.place.short(),
                    o.accesses,
                    others.join(", ")
                )
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn simulate(
    cfg: &locus_sim::Config,
    wa: &WorkloadArgs,
    kernel: &str,
    launches: usize,
    place: &[(String, String)],
) -> Result<Measured> {
    let mut cfg = cfg.clone();
    cfg.run.max_kernels = launches.min(u32::MAX as usize) as u32;
    for (o, s) in place {
        cfg.place.insert(o.clone(), s.clone());
    }
    cfg.validate().map_err(|e| anyhow!(e))?;
    let mut w = wa.build()?;
    let mut sys = locus_sim::System::new(&cfg);
    let r = sys.run(&mut *w, &mut |_| {})?;
    let mut me = Measured::default();
    for k in r.sim.kernels.iter().filter(|k| k.name == kernel) {
        me.cycles += k.summary.cycles as f64;
        me.inst_executed += k.summary.counters.warp_insts;
        me.inst_issued += k
            .spaces
            .as_ref()
            .map_or(k.summary.counters.warp_insts, |s| s.issued_insts);
    }
    Ok(me)
}

/// Profiles the sample (and simulates it with `--measure`), returning the model for the
/// machine of `--preset` (default `k80`).
fn model(a: &ModelArgs, measure: bool) -> Result<(Model, locus_sim::Config, WorkloadArgs)> {
    let wa = resolved(a);
    let cfg = a.machine.config()?;
    let hw = hms::hw_for(&cfg);
    let opts = CollectOpts {
        kernel: a.kernel.clone(),
        max_launches: a.max_launches,
        sms: hw.sms,
        max_warps_per_sm: hw.max_warps_per_sm,
        max_blocks_per_sm: hw.max_blocks_per_sm,
        max_threads_per_sm: hw.max_threads_per_sm,
        registers_per_sm: hw.registers_per_sm,
        smem_per_sm: hw.smem_per_sm,
        max_accesses: a.max_accesses,
        line_bytes: cfg.system.line_bytes,
        ..CollectOpts::default()
    };
    let mut w = wa.build()?;
    let mut p: Profile = collect(&mut *w, &opts).map_err(|e| anyhow!(e))?;
    if measure {
        p.measured = Some(simulate(&cfg, &wa, &p.kernel, a.max_launches, &[])?);
    }
    Ok((Model::new(p, hw), cfg, wa))
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
    let t_build = std::time::Instant::now();
    let (m, _, _) = model(&a.m, a.m.measure)?;
    let build_s = t_build.elapsed().as_secs_f64();
    let p = &m.profile;
    let target = search::parse_target(p, &a.target).map_err(|e| anyhow!("--target: {e}"))?;
    let s = m
        .predict(&p.sample_placement(), f, co.as_ref())
        .map_err(|e| anyhow!(e))?;
    let t_pred = std::time::Instant::now();
    let t = m
        .predict(&target, f, co.as_ref())
        .map_err(|e| anyhow!("--target: {e}"))?;
    let pred_s = t_pred.elapsed().as_secs_f64();
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
    println!(
        "arrays (sample component, warp-level accesses): {}",
        arrays_line(p)
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
    println!(
        "host: model built in {build_s:.3} s (inputs, the sample's profile{}, the one-time passes); the target predicted in {:.3} ms",
        if a.m.measure { " and measurement" } else { "" },
        1e3 * pred_s
    );
    Ok(())
}

fn rank(a: RankArgs) -> Result<()> {
    let f = flags(&a.m)?;
    let co = coefs(&a.m)?;
    let t_build = std::time::Instant::now();
    let (m, cfg, wa) = model(&a.m, a.m.measure || a.check)?;
    let build_s = t_build.elapsed().as_secs_f64();
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
    let t_rank = std::time::Instant::now();
    // a bar on stderr once the search has run a second (indicatif draws nothing when
    // stderr is not a terminal)
    let mut bar: Option<indicatif::ProgressBar> = None;
    let r = search::rank_with_progress(&m, &cands, f, co.as_ref(), |n| {
        if bar.is_none() && t_rank.elapsed().as_secs_f64() < 1.0 {
            return;
        }
        let b = bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new(cands.len() as u64);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] [{bar:30}] {pos}/{len} placements predicted, {eta} left",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b
        });
        b.set_position(n as u64);
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let rank_s = t_rank.elapsed().as_secs_f64();
    let top = if a.top == 0 {
        r.len()
    } else {
        a.top.min(r.len())
    };
    // --check: simulate each printed placement (the sample is the profile's measurement)
    let mut truth: Vec<Option<f64>> = vec![None; top];
    let mut why: Vec<String> = vec![String::new(); top];
    if a.check {
        let sample = p.sample_placement();
        for (i, (c, _)) in r.iter().enumerate().take(top) {
            if *c == sample {
                truth[i] = p.measured.as_ref().map(|me| me.cycles);
                continue;
            }
            match hms::place_pairs(&p.workload, p, c).and_then(|(pl, params)| {
                let mut wa = wa.clone();
                wa.params.extend(params);
                simulate(&cfg, &wa, &p.kernel, a.m.max_launches, &pl)
            }) {
                Ok(me) => truth[i] = Some(me.cycles),
                Err(e) => why[i] = format!("{e:#}"),
            }
        }
    }
    let checked: Vec<(f64, f64)> = r
        .iter()
        .zip(&truth)
        .filter_map(|((_, pr), t)| t.map(|t| (pr.total, t)))
        .collect();
    let rho = hms::spearman(
        &checked.iter().map(|x| x.0).collect::<Vec<_>>(),
        &checked.iter().map(|x| x.1).collect::<Vec<_>>(),
    );
    let sim_rank = |t: f64| 1 + checked.iter().filter(|x| x.1 < t).count();
    if a.m.json {
        let rows: Vec<serde_json::Value> = r
            .iter()
            .enumerate()
            .map(|(i, (c, pr))| {
                let t = truth.get(i).copied().flatten();
                serde_json::json!({"placement": search::describe(p, c), "prediction": pr,
                    "simulated_cycles": t, "simulated_rank": t.map(sim_rank)})
            })
            .collect();
        let v = if a.check {
            serde_json::json!({"placements": rows, "spearman": rho})
        } else {
            serde_json::Value::Array(rows)
        };
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!(
        "{} {}: {} legal placements of {} accessed arrays (variant {}, machine {})",
        p.workload,
        p.kernel,
        r.len(),
        p.objects.iter().filter(|o| o.accesses > 0).count(),
        a.m.variant,
        a.m.machine.preset
    );
    for (i, (c, pr)) in r.iter().enumerate().take(top) {
        print_terms(&format!("{:>3}. {}", i + 1, search::describe(p, c)), pr);
        if a.check {
            match truth[i] {
                Some(t) => println!(
                    "       simulated {:>12.0} cycles (rank {}), predicted / simulated {:.3}",
                    t,
                    sim_rank(t),
                    pr.total / t
                ),
                None => println!("       not simulated: {}", why[i]),
            }
        }
    }
    if a.check && checked.len() < 2 {
        println!(
            "rank correlation (Spearman): none, {} placement(s) simulated (it needs two; `--top` prints more)",
            checked.len()
        );
    } else if a.check {
        println!(
            "rank correlation (Spearman) of predicted and simulated times over {} placements: {:.3}",
            checked.len(),
            rho
        );
    }
    // the model's speed (issue 12: a prediction at least 100x cheaper than a simulation)
    println!(
        "host: model built in {build_s:.3} s (inputs, the sample's profile{}, the one-time passes); {} placements predicted in {rank_s:.4} s, {:.3} ms each",
        if a.check { " and measurement" } else { "" },
        cands.len(),
        1e3 * rank_s / cands.len().max(1) as f64
    );
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
    let got = d.detect();
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
    if got.mapping.chan_mod > 1 {
        println!(
            "  (bits of the channel-local address: {} channels interleaved by modulo every {} B, probed inside one channel; the channel is part of the bank ID)",
            got.mapping.chan_mod, got.mapping.chan_unit
        );
    }
    println!("  bank-ID bits {}", bits(got.mapping.bank_mask()));
    println!(
        "  latencies: row hit {:.1} ns, miss {:.1} ns, conflict {:.1} ns (the DRAM side; the model's are a thread's whole load: these plus the crossbar round trip and hit_lat, `hms::hw_for`)",
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
