//! `locus repro ndp`: the evaluation of standardized NDP with unrestricted data placement
//! (Kim, Chatterjee, O'Connor, Hsieh, SC17; spec ndp.md §5-§6) on the presets `ndp-8hmc`
//! (64 SMs, 8 HMC stacks with one NSU each), `ndp-morecore` (72 SMs) and `ndp-128sm`:
//! Fig. 5 (target-NSU policy, the Monte-Carlo of `locus_sim::ndp::target`), Fig. 7
//! (Baseline_MoreCore and NaiveNDP), Fig. 8 (no-issue cycles), Fig. 9 (static offload
//! ratios, NDP(Dyn), NDP(Dyn)_Cache), Fig. 10 (energy), Fig. 11 (NSU occupancy), §6.10's
//! traffic numbers and the §7.6 studies (175 MHz NSU, 128 SMs). The paper's claims are
//! declared in [`claims`] before any run; [`run`] evaluates them and writes the report
//! ([`super::ndp_report`]).
//!
//! Run length: the paper gives no instruction cap (ndp.md §5), so every run goes to the
//! workload's end on its default input (already scaled by `locus_workload::scale`). The
//! named `--warp-insts` option caps every run (`run.max_warp_insts`) for tests and a
//! first look; the report then says how many runs the cap stopped. Speedup is baseline
//! cycles over cycles; the paper does not say which mean it uses (ndp.md §6.1), so the
//! claims use the arithmetic mean of per-workload speedups and the report also prints the
//! geometric mean.
//!
//! A workload whose kernels carry no offload marker offloads nothing: its NDP runs equal
//! its baseline. This is detected from the NaiveNDP run's statistics (no block instance
//! offloaded or kept on the GPU), never from a list, and the report names such workloads
//! "no offload block marked".

use super::experiment::{self, Claim, Mean, Quantity, Rule, Unit};
use super::{execute, RunResult, RunSpec};
use anyhow::Result;
use std::path::Path;

/// Spec ndp.md §5.4 Table 1: (paper abbreviation, Locus workload).
pub const TABLE1: &[(&str, &str)] = &[
    ("BPROP", "backprop"),
    ("BFS", "rodinia-bfs"),
    ("BICG", "bicg"),
    ("FWT", "fwt"),
    ("KMN", "km"),
    ("MiniFE", "minife"),
    ("SP", "scalarprod"),
    ("STN", "parboil-stencil"),
    ("STCL", "streamcluster"),
    ("VADD", "vectoradd"),
];

/// Spec ndp.md §5.4 Table 1's last column: the NSU instructions of each static offload
/// block (address arithmetic and the NSU `OFLD.BEG` / `OFLD.END` not counted), by paper
/// abbreviation. The report sets the Locus models' blocks beside these.
pub const TABLE1_BLOCKS: &[(&str, &[u64])] = &[
    ("BPROP", &[29, 23]),
    ("BFS", &[1, 1, 16]),
    ("BICG", &[4, 4]),
    ("FWT", &[16, 4]),
    ("KMN", &[3]),
    ("MiniFE", &[3]),
    ("SP", &[3]),
    ("STN", &[15]),
    ("STCL", &[3, 9, 1, 1]),
    ("VADD", &[4]),
];

/// One static offload block as a kernel model's markers declare it (spec ndp.md §3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelBlock {
    pub kernel: String,
    pub block: u8,
    pub nsu_insts: u8,
    pub iters: u16,
    pub live_ins: u8,
    pub live_outs: u8,
    /// Global and texture loads, global stores in one instance (what the NSU performs).
    pub loads: u32,
    pub stores: u32,
}

/// Launches [`model_blocks`] generates and thread blocks per launch (FWT's
/// `modulateKernel` is its 15th launch on Table 1's input).
pub const MODEL_LAUNCHES: usize = 64;
pub const MODEL_TBS: u64 = 4;

/// The static offload blocks of workload `b` (Table 1 parameters, seed 1), read from its
/// kernel model's markers: the first [`MODEL_LAUNCHES`] launches, the first [`MODEL_TBS`]
/// thread blocks of each, generated functionally (no timing simulation), every
/// marked span's operands and memory instructions, once per (kernel, block) in order of
/// first sight. A block only divergent lanes of later launches reach is not seen.
pub fn model_blocks(b: &str) -> Result<Vec<ModelBlock>> {
    use locus_workload::program::{BlockProgram, InstClass, Space};
    use locus_workload::Workload;
    let params: std::collections::BTreeMap<String, String> = table1_params(b).into_iter().collect();
    let mut w = locus_workload::registry::build(b, &params, 1)
        .map_err(|e| anyhow::anyhow!("workload {b}: {e}"))?;
    let mut out: Vec<ModelBlock> = Vec::new();
    for _ in 0..MODEL_LAUNCHES {
        let Some(k) = w
            .begin_launch()
            .map_err(|e| anyhow::anyhow!("workload {b}: {e}"))?
        else {
            break;
        };
        let nb = k.grid.x as u64 * k.grid.y as u64 * k.grid.z as u64;
        for tb in 0..nb.min(MODEL_TBS) {
            let mut bp = BlockProgram {
                offload_markers: true,
                ..Default::default()
            };
            w.gen_block(tb, false, 128, &mut bp)
                .map_err(|e| anyhow::anyhow!("workload {b}: {e}"))?;
            for wp in &bp.warps {
                for m in &wp.offload {
                    if out.iter().any(|o| o.kernel == k.name && o.block == m.block) {
                        continue;
                    }
                    let span = &wp.insts[m.begin as usize..(m.end as usize).min(wp.insts.len())];
                    let loads = span
                        .iter()
                        .filter(|i| {
                            i.class == InstClass::Load
                                && matches!(i.space, Space::Global | Space::Texture)
                                && i.nlines > 0
                        })
                        .count() as u32;
                    let stores = span
                        .iter()
                        .filter(|i| {
                            i.class == InstClass::Store && i.space == Space::Global && i.nlines > 0
                        })
                        .count() as u32;
                    out.push(ModelBlock {
                        kernel: k.name.clone(),
                        block: m.block,
                        nsu_insts: m.nsu_insts,
                        iters: m.iters,
                        live_ins: m.live_ins,
                        live_outs: m.live_outs,
                        loads,
                        stores,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// Path of field `f` of static block `i` in a run's statistics
/// (`locus_sim::ndp::StaticBlock`).
pub fn block_path(i: usize, f: &str) -> String {
    format!("sim.ndp.blocks.{i}.{f}")
}

/// Workload parameters Table 1 needs beyond the defaults: Parboil stencil's default kernel
/// (`block2D_hybrid_coarsen_x`) has no offload block; the paper's STN (ndp.md §5.4: a
/// 15-instruction block) is `cuda_base`'s `naive_kernel`, the workload's `kernel=naive`.
/// KMN's and SP's offload blocks are one iteration of a loop nvcc unrolls (spec Table 1:
/// 3 NSU instructions each): their models run that loop one iteration at a time whenever
/// offload markers are recorded, and `loops=rolled` makes the Baseline (no markers) run
/// the same code.
pub const TABLE1_PARAMS: &[(&str, &str, &str)] = &[
    ("parboil-stencil", "kernel", "naive"),
    ("km", "loops", "rolled"),
    ("scalarprod", "loops", "rolled"),
];

/// The Table 1 parameters of workload `b` ([`TABLE1_PARAMS`]).
pub fn table1_params(b: &str) -> Vec<(String, String)> {
    TABLE1_PARAMS
        .iter()
        .filter(|t| t.0 == b)
        .map(|t| (t.1.to_string(), t.2.to_string()))
        .collect()
}

/// Workloads of `--quick`: two streaming kernels and KMN (the paper's best case).
pub const QUICK: &[&str] = &["vectoradd", "scalarprod", "km"];

/// Key of NaiveNDP under `ndp.nsu_marker_insts = "end-only"` (NSU `OFLD.BEG` folded into
/// the spawn; the literal reading, the default, issues it).
pub const NAIVE_END_ONLY: &str = "naive-endonly";

/// Keys of NDP(Dyn) and NDP(Dyn)_Cache under `ndp.hill_ipc = "issue"` (Algorithm 1's IPC
/// counted as block instructions issue; the default, spec §7.3, counts them at `OFLD.END`
/// retirement).
pub const DYN_ISSUE_IPC: &str = "dyn-issueipc";
pub const DYNCACHE_ISSUE_IPC: &str = "dyncache-issueipc";
/// Keys of NDP(Dyn) and NDP(Dyn)_Cache with `ndp.hill_hold_idle = true` (a reading of
/// ours: Algorithm 1 skips epochs at IPC 0).
pub const DYN_HOLD: &str = "dyn-hold";
pub const DYNCACHE_HOLD: &str = "dyncache-hold";
/// Key of NDP(Dyn) with `ndp.literal_algorithm1 = true` (Algorithm 1 as printed: the ratio
/// moves by `Step_unit` inside the printed guard and the step grows at its minimum; the
/// default is the prose's reading, spec §4.3 / §7 decision 1).
pub const DYN_PRINTED_ALG1: &str = "dyn-printedalg1";
/// Key of NDP(Dyn)_Cache with `ndp.paper_literal_benefit = false` (the spec's per-warp unit
/// fix of the §4.4 benefit; the default is the printed formula).
pub const DYNCACHE_PER_WARP: &str = "dyncache-perwarp";

/// Where an offloaded instance's time goes (`locus_sim::ndp::InstanceTime`): the eight
/// consecutive phases (label, statistic) from `OFLD.BEG` to the warp's release.
pub const PHASES: [(&str, &str); 8] = [
    ("to grant", "sim.ndp.instance_time.to_grant_ns"),
    (
        "command transit",
        "sim.ndp.instance_time.command_transit_ns",
    ),
    (
        "NSU command queue",
        "sim.ndp.instance_time.command_queue_ns",
    ),
    ("data wait", "sim.ndp.instance_time.data_wait_ns"),
    ("NSU issue", "sim.ndp.instance_time.nsu_issue_ns"),
    ("write acks", "sim.ndp.instance_time.write_ack_ns"),
    ("ack transit", "sim.ndp.instance_time.ack_transit_ns"),
    (
        "invalidations",
        "sim.ndp.instance_time.invalidation_wait_ns",
    ),
];
/// Mean offloaded instance's total, its wait at `OFLD.END`, NSU instructions per instance
/// and the NSUs' issue-port use (instructions over cycles).
pub const INST_TOTAL: &str = "sim.ndp.instance_time.total_ns";
pub const INST_BLOCKED: &str = "sim.ndp.instance_time.blocked_ns";
pub const NSU_INSTS: &str = "sim.ndp.instance_time.nsu_insts_per_instance";
pub const NSU_ISSUE_USE: &str = "sim.ndp.instance_time.nsu_issue_utilisation";

/// The baseline machine (64 SMs, 8 stacks).
pub const BASE: &str = "ndp-8hmc";

/// Static offload ratios of a full run: Fig. 9's grid (ndp.md §6.4: NDP(0.2), NDP(0.4),
/// NDP(0.6), NDP(0.8) and NDP(1.0), the last being NaiveNDP) plus §7.1's BICG optimum
/// 0.15. Every static claim is on these points ("best static ratio" is the best of the
/// paper's grid; BFS's 0.4 and BICG's 0.15 are on it); the odd tenths an earlier grid
/// added are not in the paper and took a third of a full run's time (issue 11).
pub const STATIC_FULL: &[f64] = &[0.15, 0.2, 0.4, 0.6, 0.8];

/// Static offload ratios of `--quick`.
pub const STATIC_QUICK: &[f64] = &[0.2, 0.6];

/// One compared configuration: run key suffix, machine preset and `--set` overrides.
#[derive(Clone, Debug)]
pub struct Variant {
    pub key: String,
    pub preset: &'static str,
    pub sets: Vec<String>,
}

fn var(key: &str, preset: &'static str, sets: &[&str]) -> Variant {
    Variant {
        key: key.to_string(),
        preset,
        sets: sets.iter().map(|s| s.to_string()).collect(),
    }
}

/// Run key suffix of static ratio `r` (`s0.15`).
pub fn static_key(r: f64) -> String {
    format!("s{r}")
}

/// The static ratios of a run.
pub fn ratios(quick: bool) -> &'static [f64] {
    if quick {
        STATIC_QUICK
    } else {
        STATIC_FULL
    }
}

/// Configurations every workload runs: Baseline, NaiveNDP (= NDP(1.0)), NDP(r) for each
/// static ratio, NDP(Dyn), NDP(Dyn)_Cache and Baseline_MoreCore (ndp.md §6.3-§6.6).
pub fn main_variants(quick: bool) -> Vec<Variant> {
    let mut v = vec![
        var("base", BASE, &["ndp.offload=none"]),
        var("naive", BASE, &["ndp.offload=naive"]),
        // the other reading of which NSU markers issue (`ndp.nsu_marker_insts`, Fig. 3(b))
        var(
            NAIVE_END_ONLY,
            BASE,
            &["ndp.offload=naive", "ndp.nsu_marker_insts=end-only"],
        ),
        // Fig. 8's Baseline split: with `ndp.offload = none` the offload station is off and
        // no-issue cycles are not classified, so the split comes from this run, which keeps
        // every block instance on the GPU (static ratio 0); the report shows whether its
        // cycles equal the Baseline's.
        var(
            "split0",
            BASE,
            &["ndp.offload=static", "ndp.static_ratio=0"],
        ),
    ];
    for &r in ratios(quick) {
        v.push(Variant {
            key: static_key(r),
            preset: BASE,
            sets: vec!["ndp.offload=static".into(), format!("ndp.static_ratio={r}")],
        });
    }
    v.push(var("dyn", BASE, &["ndp.offload=dyn"]));
    v.push(var("dyncache", BASE, &["ndp.offload=dyn-cache"]));
    // the other reading of when Algorithm 1's IPC counts an instance (`ndp.hill_ipc`)
    v.push(var(
        DYN_ISSUE_IPC,
        BASE,
        &["ndp.offload=dyn", "ndp.hill_ipc=issue"],
    ));
    v.push(var(
        DYNCACHE_ISSUE_IPC,
        BASE,
        &["ndp.offload=dyn-cache", "ndp.hill_ipc=issue"],
    ));
    // a reading of ours: Algorithm 1 holds in epochs without offload-block instructions
    v.push(var(
        DYN_HOLD,
        BASE,
        &["ndp.offload=dyn", "ndp.hill_hold_idle=true"],
    ));
    v.push(var(
        DYNCACHE_HOLD,
        BASE,
        &["ndp.offload=dyn-cache", "ndp.hill_hold_idle=true"],
    ));
    // the printed Algorithm 1 (the default is the prose's reading)
    v.push(var(
        DYN_PRINTED_ALG1,
        BASE,
        &["ndp.offload=dyn", "ndp.literal_algorithm1=true"],
    ));
    // the spec's unit fix of the §4.4 benefit (the default is the printed formula)
    v.push(var(
        DYNCACHE_PER_WARP,
        BASE,
        &["ndp.offload=dyn-cache", "ndp.paper_literal_benefit=false"],
    ));
    v.push(var("morecore", "ndp-morecore", &["ndp.offload=none"]));
    v
}

/// The §7.6 studies (ndp.md §6.6, §6.9): NDP(Dyn)_Cache with the NSU at 175 MHz, and the
/// 128-SM GPU's baseline and NDP(Dyn)_Cache.
pub fn study_variants() -> Vec<Variant> {
    vec![
        var(
            "nsu175",
            BASE,
            &["ndp.offload=dyn-cache", "ndp.nsu_clock_ghz=0.175"],
        ),
        var("base128", "ndp-128sm", &["ndp.offload=none"]),
        var("dyncache128", "ndp-128sm", &["ndp.offload=dyn-cache"]),
    ]
}

/// The study workloads: every workload, or with `--quick` the first one only.
pub fn study_benches(benches: &[String], quick: bool) -> Vec<String> {
    if quick {
        benches.iter().take(1).cloned().collect()
    } else {
        benches.to_vec()
    }
}

/// Statistic paths the claims and the report read.
pub const ENERGY: &str = "sim.energy.total_j";
pub const OFFLOADED: &str = "sim.ndp.instances_offloaded";
pub const ON_GPU: &str = "sim.ndp.instances_on_gpu";
pub const SUPPRESSED: &str = "sim.ndp.suppressed_by_cache_check";
pub const INVAL_SHARE: &str = "sim.ndp.invalidation_share_of_off_chip";
/// Invalidations the vaults sent (one per line an NSU store wrote, §3.9).
pub const INVALS: &str = "sim.ndp.invalidations";
/// [`Ctx::variant`] of the largest-invalidation-share claim (its reason names the
/// workload and its invalidations per offloaded instance, under NDP(Dyn)_Cache).
pub const INVAL_CTX: &str = "inval-dyncache";
pub const OCCUPANCY: &str = "sim.ndp.nsu_occupancy";
/// Fig. 11's I-cache use: NSU code of the blocks run over the 4 KB I-cache, mean over NSUs.
pub const ICACHE: &str = "sim.ndp.nsu_icache_use";
pub const LIVE_INS: &str = "sim.ndp.live_ins_per_thread";
pub const LIVE_OUTS: &str = "sim.ndp.live_outs_per_thread";
pub const GPU_LINK_BYTES: &str = "sim.ndp.gpu_link_bytes";
/// Fig. 8's no-issue cycles (summed over SMs), when the simulator records them.
pub const NO_ISSUE: [(&str, &str); 3] = [
    ("ExecUnitBusy", "sim.ndp.no_issue.exec_busy"),
    ("Dependency", "sim.ndp.no_issue.dependency"),
    ("Warp idle", "sim.ndp.no_issue.idle"),
];
/// Fig. 8's split under each reading of a cycle in which a full pending or ready buffer
/// held a warp (`ndp.pending_stall_as`, `locus_sim::ndp::PendingStallAs`; the paper's
/// literal reading first): the value of `ndp.pending_stall_as` and the statistic holding
/// that reading's split (its fields are [`NO_ISSUE`]'s last path parts). Both come from
/// every run, whatever the run's own setting.
pub const NO_ISSUE_READINGS: [(&str, &str); 2] = [
    (
        "exec-unit-busy",
        "sim.ndp.no_issue.by_reading.exec_unit_busy",
    ),
    ("warp-idle", "sim.ndp.no_issue.by_reading.warp_idle"),
];
/// Issue attempts held by a full pending buffer and by a full ready buffer (§3.8).
pub const HELD: [&str; 2] = ["sim.ndp.pending_full_stalls", "sim.ndp.ready_full_stalls"];

/// Key of the Fig. 5 Monte-Carlo record (not a simulation; computed by [`fig5_record`]).
pub const FIG5_KEY: &str = "fig5-montecarlo";
/// Accesses per block of the Fig. 5 Monte-Carlo (ndp.md §6.2).
pub const FIG5_N: &[usize] = &[1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64];
/// Draws per point of the Fig. 5 Monte-Carlo.
pub const FIG5_TRIALS: u32 = 200_000;

/// The Fig. 5 Monte-Carlo as a run record: `sim.fig5.ratio.<i>` is the first-access over
/// optimal remote-access ratio for [`FIG5_N`]`[i]` accesses on 8 stacks.
pub fn fig5_record() -> RunResult {
    let r: Vec<f64> = FIG5_N
        .iter()
        .map(|&n| locus_sim::ndp::target::fig5_ratio(n, 8, FIG5_TRIALS, 5))
        .collect();
    RunResult {
        key: FIG5_KEY.into(),
        bench: "fig5".into(),
        sim: Some(serde_json::json!({ "fig5": { "ratio": r } })),
        ..Default::default()
    }
}

/// Paper abbreviation of workload `w` (the name itself when not in Table 1).
pub fn abbr(w: &str) -> String {
    TABLE1
        .iter()
        .find(|t| t.1 == w)
        .map(|t| t.0.to_string())
        .unwrap_or_else(|| w.to_string())
}

/// Locus workload of paper abbreviation `a`.
pub fn workload_of(a: &str) -> &'static str {
    TABLE1.iter().find(|t| t.0 == a).map(|t| t.1).unwrap_or("")
}

/// The runs: every (workload, [`main_variants`]) and (study workload, [`study_variants`]),
/// each stopped at `cap` warp instructions when a cap is given.
pub fn plan(benches: &[String], study: &[String], cap: Option<u64>, quick: bool) -> Vec<RunSpec> {
    let mut v = Vec::new();
    let mut add = |b: &String, x: &Variant| {
        let mut sets = x.sets.clone();
        if let Some(c) = cap {
            sets.push(format!("run.max_warp_insts={c}"));
        }
        v.push(RunSpec {
            key: format!("{b}-{}", x.key),
            bench: b.clone(),
            params: table1_params(b),
            preset: x.preset.to_string(),
            sets,
            sharing: false,
            apps: Vec::new(),
            trace: None,
        });
    };
    for b in benches {
        for x in &main_variants(quick) {
            add(b, x);
        }
    }
    for b in study {
        for x in &study_variants() {
            add(b, x);
        }
    }
    v
}

/// Speedup of `{b}-{v}` over `{b}-{base}`: base cycles / cycles.
pub fn speedup(b: &str, base: &str, v: &str) -> Quantity {
    Quantity::speedup(format!("{b}-{base}"), format!("{b}-{v}"))
}

/// Arithmetic mean over `bs` of [`speedup`].
pub fn mean_speedup(bs: &[String], base: &str, v: &str) -> Quantity {
    Quantity::Mean(
        Mean::Arithmetic,
        bs.iter().map(|b| speedup(b, base, v)).collect(),
    )
}

/// Energy reduction of `{b}-{v}` against `{b}-base`: `1 - E(v) / E(base)`.
pub fn energy_cut(b: &str, v: &str) -> Quantity {
    Quantity::Reduction(
        Box::new(Quantity::run(format!("{b}-{v}"), ENERGY)),
        Box::new(Quantity::run(format!("{b}-base"), ENERGY)),
    )
}

/// What a claim is about, for the report's disagreement reasons: the configuration key
/// it measures and the workloads it covers.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub variant: String,
    pub benches: Vec<String>,
}

/// The paper's claims (ndp.md §6), declared before the runs, each with its [`Ctx`]. A
/// claim about one workload is declared only when that workload (and the configuration
/// it needs) runs. Speedups and energy averages must land within 10 percentage points of
/// the paper; "slower", "< 3%" and "at most" claims are bounds.
pub fn claims(benches: &[String], study: &[String], quick: bool) -> Vec<(Claim, Ctx)> {
    let has = |a: &str| benches.iter().any(|b| b == workload_of(a));
    let ctx = |v: &str, bs: &[String]| Ctx {
        variant: v.to_string(),
        benches: bs.to_vec(),
    };
    let one = |a: &str| vec![workload_of(a).to_string()];
    let within = |name: &str, text: &str, paper: f64, q: Quantity, unit: Unit| Claim {
        name: name.into(),
        paper_text: text.into(),
        paper: Some(paper),
        quantity: q,
        unit,
        rule: Rule::WithinAbs(0.10),
    };
    let bound = |name: &str, text: &str, paper: f64, q: Quantity, unit: Unit, rule: Rule| Claim {
        name: name.into(),
        paper_text: text.into(),
        paper: Some(paper),
        quantity: q,
        unit,
        rule,
    };
    let mean_cut = |bs: &[String], v: &str| {
        Quantity::Mean(
            Mean::Arithmetic,
            bs.iter().map(|b| energy_cut(b, v)).collect(),
        )
    };
    let mut v = vec![
        (
            within(
                "§6.6: NDP(Dyn)_Cache vs Baseline, mean speedup",
                "+17.9%",
                1.179,
                mean_speedup(benches, "base", "dyncache"),
                Unit::Gain,
            ),
            ctx("dyncache", benches),
        ),
        (
            within(
                "§6.5: NDP(Dyn) vs Baseline, mean speedup",
                "+14.9%",
                1.149,
                mean_speedup(benches, "base", "dyn"),
                Unit::Gain,
            ),
            ctx("dyn", benches),
        ),
        (
            within(
                "§6.7: NDP(Dyn)_Cache energy vs Baseline, mean",
                "-8.6%",
                0.086,
                mean_cut(benches, "dyncache"),
                Unit::Fall,
            ),
            ctx("dyncache", benches),
        ),
        (
            within(
                "§6.7: NDP(Dyn) energy vs Baseline, mean",
                "-7.5%",
                0.075,
                mean_cut(benches, "dyn"),
                Unit::Fall,
            ),
            ctx("dyn", benches),
        ),
        (
            within(
                "§6.7: Baseline_MoreCore energy vs Baseline, mean",
                "about the same",
                0.0,
                mean_cut(benches, "morecore"),
                Unit::Fall,
            ),
            ctx("morecore", benches),
        ),
        (
            within(
                "Fig. 7: NaiveNDP vs Baseline, mean normalized performance",
                "-52% (0.48)",
                0.48,
                mean_speedup(benches, "base", "naive"),
                Unit::Gain,
            ),
            ctx("naive", benches),
        ),
        (
            bound(
                "Fig. 7: NaiveNDP slower on every workload (largest speedup)",
                "slower on all",
                1.0,
                Quantity::Max(
                    benches
                        .iter()
                        .map(|b| speedup(b, "base", "naive"))
                        .collect(),
                ),
                Unit::Gain,
                Rule::Below(1.0),
            ),
            ctx("naive", benches),
        ),
    ];
    let not_kmn: Vec<String> = benches
        .iter()
        .filter(|b| b.as_str() != workload_of("KMN"))
        .cloned()
        .collect();
    if !not_kmn.is_empty() {
        v.push((
            bound(
                "Fig. 7: Baseline_MoreCore gains < 3% except KMN (largest speedup)",
                "< +3%",
                1.03,
                Quantity::Max(
                    not_kmn
                        .iter()
                        .map(|b| speedup(b, "base", "morecore"))
                        .collect(),
                ),
                Unit::Gain,
                Rule::Below(1.03),
            ),
            ctx("morecore", &not_kmn),
        ));
    }
    if has("KMN") {
        let k = workload_of("KMN");
        v.push((
            within(
                "Fig. 7: Baseline_MoreCore on KMN",
                "+25.7%",
                1.257,
                speedup(k, "base", "morecore"),
                Unit::Gain,
            ),
            ctx("morecore", &one("KMN")),
        ));
        v.push((
            within(
                "§6.6: NDP(Dyn)_Cache on KMN",
                "+66.8%",
                1.668,
                speedup(k, "base", "dyncache"),
                Unit::Gain,
            ),
            ctx("dyncache", &one("KMN")),
        ));
        v.push((
            within(
                "§6.5: NDP(Dyn) on KMN",
                "+66.8%",
                1.668,
                speedup(k, "base", "dyn"),
                Unit::Gain,
            ),
            ctx("dyn", &one("KMN")),
        ));
        let mut best: Vec<Quantity> = ratios(quick)
            .iter()
            .map(|&r| speedup(k, "base", &static_key(r)))
            .collect();
        best.push(speedup(k, "base", "naive"));
        v.push((
            within(
                "§6.4: best static ratio on KMN",
                "+63.6%",
                1.636,
                Quantity::Max(best),
                Unit::Gain,
            ),
            ctx("static", &one("KMN")),
        ));
        v.push((
            within(
                "§6.7: NDP(Dyn) energy on KMN",
                "-37.6%",
                0.376,
                energy_cut(k, "dyn"),
                Unit::Fall,
            ),
            ctx("dyn", &one("KMN")),
        ));
    }
    if has("STN") {
        let s = workload_of("STN");
        v.push((
            within(
                "Fig. 7: NaiveNDP on STN, normalized performance",
                "-86% (0.14)",
                0.14,
                speedup(s, "base", "naive"),
                Unit::Gain,
            ),
            ctx("naive", &one("STN")),
        ));
        v.push((
            within(
                "§6.5: NDP(Dyn) on STN",
                "-17%",
                0.83,
                speedup(s, "base", "dyn"),
                Unit::Gain,
            ),
            ctx("dyn", &one("STN")),
        ));
        v.push((
            within(
                "§6.6: NDP(Dyn)_Cache on STN (suppressed, about the baseline)",
                "about 1.00x",
                1.0,
                speedup(s, "base", "dyncache"),
                Unit::Gain,
            ),
            ctx("dyncache", &one("STN")),
        ));
    }
    if has("VADD") {
        v.push((
            within(
                "§6.5: NDP(Dyn) on VADD",
                "+24.9%",
                1.249,
                speedup(workload_of("VADD"), "base", "dyn"),
                Unit::Gain,
            ),
            ctx("dyn", &one("VADD")),
        ));
    }
    if has("BFS") && ratios(quick).contains(&0.4) {
        v.push((
            within(
                "§6.4: BFS at static ratio 0.4",
                "+31%",
                1.31,
                speedup(workload_of("BFS"), "base", &static_key(0.4)),
                Unit::Gain,
            ),
            ctx(&static_key(0.4), &one("BFS")),
        ));
    }
    if has("BICG") && ratios(quick).contains(&0.15) {
        v.push((
            within(
                "§6.4: BICG at static ratio 0.15",
                "+11.5%",
                1.115,
                speedup(workload_of("BICG"), "base", &static_key(0.15)),
                Unit::Gain,
            ),
            ctx(&static_key(0.15), &one("BICG")),
        ));
    }
    // Fig. 9's grid (0.2..1.0): BPROP, BICG, STN and STCL only degrade
    for a in ["BPROP", "BICG", "STN", "STCL"] {
        if !has(a) {
            continue;
        }
        let w = workload_of(a);
        let mut q: Vec<Quantity> = ratios(quick)
            .iter()
            .filter(|&&r| r >= 0.2 - 1e-9)
            .map(|&r| speedup(w, "base", &static_key(r)))
            .collect();
        q.push(speedup(w, "base", "naive"));
        v.push((
            bound(
                &format!("§6.4: {a} degrades at every static ratio 0.2-1.0 (best)"),
                "< 1.00x",
                1.0,
                Quantity::Max(q),
                Unit::Gain,
                Rule::Below(1.0),
            ),
            ctx("static", &one(a)),
        ));
    }
    if has("BPROP") {
        let w = workload_of("BPROP");
        let r = ratios(quick);
        let (lo, hi) = (r.iter().copied().find(|&x| x >= 0.2 - 1e-9), r.last());
        if let (Some(lo), Some(&hi)) = (lo, hi) {
            if hi > lo {
                v.push((
                    bound(
                        "§6.4: BPROP gets worse as the ratio rises (highest over lowest ratio >= 0.2)",
                        "falls",
                        1.0,
                        Quantity::Ratio(
                            Box::new(speedup(w, "base", &static_key(hi))),
                            Box::new(speedup(w, "base", &static_key(lo))),
                        ),
                        Unit::Times,
                        Rule::Below(1.0),
                    ),
                    ctx("static", &one("BPROP")),
                ));
            }
        }
    }
    // Fig. 5: the Monte-Carlo of the first-access target policy
    let fig5 = |i: usize| Quantity::run(FIG5_KEY, &format!("sim.fig5.ratio.{i}"));
    v.push((
        bound(
            "Fig. 5: first-stack policy traffic over optimal (peak over block sizes)",
            "<= +15%",
            1.15,
            Quantity::Max((0..FIG5_N.len()).map(fig5).collect()),
            Unit::Gain,
            Rule::Below(1.15),
        ),
        ctx("fig5", &[]),
    ));
    v.push((
        bound(
            "Fig. 5: the gap shrinks with the access count (64 accesses over 6)",
            "diminishing",
            1.0,
            Quantity::Ratio(
                Box::new(fig5(FIG5_N.len() - 1)),
                Box::new(fig5(FIG5_N.iter().position(|&n| n == 6).unwrap_or(0))),
            ),
            Unit::Times,
            Rule::Below(1.0),
        ),
        ctx("fig5", &[]),
    ));
    // Fig. 8: NaiveNDP's warp idle rises
    let idle = NO_ISSUE[2].1;
    v.push((
        bound(
            "Fig. 8: warp-idle cycles, NaiveNDP over Baseline (mean)",
            "rises sharply",
            1.0,
            Quantity::Mean(
                Mean::Arithmetic,
                benches
                    .iter()
                    .map(|b| {
                        Quantity::Ratio(
                            Box::new(Quantity::run(format!("{b}-naive"), idle)),
                            Box::new(Quantity::run(format!("{b}-split0"), idle)),
                        )
                    })
                    .collect(),
            ),
            Unit::Times,
            Rule::Above(1.0),
        ),
        ctx("naive", benches),
    ));
    // §6.10: traffic and register numbers of the proposed mechanism
    let over = |p: &str| -> Vec<Quantity> {
        benches
            .iter()
            .map(|b| Quantity::run(format!("{b}-dyncache"), p))
            .collect()
    };
    v.push((
        bound(
            "§6.10: invalidation traffic share of off-chip traffic, NDP(Dyn)_Cache (largest)",
            "<= 1.42%",
            0.0142,
            Quantity::Max(over(INVAL_SHARE)),
            Unit::Percent,
            Rule::Below(0.0143),
        ),
        ctx(INVAL_CTX, benches),
    ));
    v.push((
        bound(
            "§6.10: invalidation traffic share, NDP(Dyn)_Cache (mean)",
            "0.38%",
            0.0038,
            Quantity::Mean(Mean::Arithmetic, over(INVAL_SHARE)),
            Unit::Percent,
            Rule::WithinAbs(0.01),
        ),
        ctx("dyncache", benches),
    ));
    v.push((
        bound(
            "§6.10: live-in registers per offloaded thread, NDP(Dyn)_Cache (mean)",
            "0.41",
            0.41,
            Quantity::Mean(Mean::Arithmetic, over(LIVE_INS)),
            Unit::Count,
            Rule::WithinAbs(0.2),
        ),
        ctx("dyncache", benches),
    ));
    v.push((
        bound(
            "§6.10: live-out registers per offloaded thread, NDP(Dyn)_Cache (mean)",
            "0.47",
            0.47,
            Quantity::Mean(Mean::Arithmetic, over(LIVE_OUTS)),
            Unit::Count,
            Rule::WithinAbs(0.2),
        ),
        ctx("dyncache", benches),
    ));
    v.push((
        within(
            "Fig. 11: NSU warp-slot occupancy, NDP(Dyn)_Cache (mean)",
            "22.1%",
            0.221,
            Quantity::Mean(Mean::Arithmetic, over(OCCUPANCY)),
            Unit::Percent,
        ),
        ctx("dyncache", benches),
    ));
    // §7.6 studies
    if !study.is_empty() {
        v.push((
            within(
                "§7.6: NDP(Dyn)_Cache with a 175 MHz NSU, mean speedup",
                "+14.1%",
                1.141,
                mean_speedup(study, "base", "nsu175"),
                Unit::Gain,
            ),
            ctx("nsu175", study),
        ));
        v.push((
            within(
                "§6.6: 128 SMs, NDP(Dyn)_Cache vs the 128-SM Baseline, mean speedup",
                "+11.6%",
                1.116,
                mean_speedup(study, "base128", "dyncache128"),
                Unit::Gain,
            ),
            ctx("dyncache128", study),
        ));
        if study.iter().any(|b| b == workload_of("KMN")) {
            v.push((
                within(
                    "§7.6: NDP(Dyn)_Cache with a 175 MHz NSU on KMN",
                    "+67.7%",
                    1.677,
                    speedup(workload_of("KMN"), "base", "nsu175"),
                    Unit::Gain,
                ),
                ctx("nsu175", &one("KMN")),
            ));
        }
    }
    v
}

/// The workloads to run: `--workloads` or Table 1's (the quick subset with `--quick`);
/// names the registry does not know are an error naming them.
pub fn benches(list: Option<&str>, quick: bool) -> Result<Vec<String>> {
    let defaults = if quick {
        QUICK.iter().map(|s| s.to_string()).collect()
    } else {
        TABLE1.iter().map(|t| t.1.to_string()).collect()
    };
    experiment::workload_list(list, defaults, "vectoradd,km")
}

/// Run the reproduction into `out`: the runs (resumable), `verdicts.csv`, `runs.csv`, the
/// report with its ledger, the figure CSVs and `figures/`. `cap` stops every run at that
/// many warp instructions (none: every run to its end, as the paper's).
pub fn run(
    out: &Path,
    benches: &[String],
    quick: bool,
    cap: Option<u64>,
    jobs: usize,
    quiet: bool,
    base: &[String],
) -> Result<()> {
    let study = study_benches(benches, quick);
    // the claims exist before the first run
    let claims = claims(benches, &study, quick);
    let mut specs = plan(benches, &study, cap, quick);
    super::apply_base_sets(&mut specs, base, out)?;
    let reused = specs
        .iter()
        .filter(|s| out.join("runs").join(format!("{}.json", s.key)).exists())
        .count();
    let t0 = std::time::Instant::now();
    let mut res = execute(&specs, out, jobs, quiet)?;
    let seconds = t0.elapsed().as_secs_f64();
    let host: f64 = res.values().map(|r| r.host_seconds).sum();
    let capped = res
        .values()
        .filter(|r| {
            r.sim
                .as_ref()
                .and_then(|s| s.get("stopped_by_limit"))
                .and_then(|v| v.as_bool())
                .unwrap_or(false)
        })
        .count();
    res.insert(FIG5_KEY.into(), fig5_record());
    let runs = experiment::Runs::new(&res);
    let verdicts: Vec<_> = claims.iter().map(|c| c.0.evaluate(&runs)).collect();
    std::fs::write(out.join("verdicts.csv"), experiment::verdict_csv(&verdicts))?;
    let cols = [
        "cycles",
        "warp_insts",
        "host_seconds",
        "l2_hit_rate",
        ENERGY,
        OFFLOADED,
        ON_GPU,
        SUPPRESSED,
        OCCUPANCY,
        GPU_LINK_BYTES,
        INVAL_SHARE,
        LIVE_INS,
        LIVE_OUTS,
        NO_ISSUE[0].1,
        NO_ISSUE[1].1,
        NO_ISSUE[2].1,
    ];
    super::experiment::write_runs_csv(out, &specs, &runs, &cols)?;
    let ctxs: Vec<Ctx> = claims.into_iter().map(|c| c.1).collect();
    let meta = super::ndp_report::Meta {
        benches,
        study: &study,
        cap,
        capped,
        quick,
        runs: specs.len(),
        reused,
        seconds,
        jobs,
        host_seconds: host,
    };
    let head = super::ndp_report::write(out, &meta, &runs, &verdicts, &ctxs)?;
    super::experiment::print_closing(out, &head, quiet);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_covers_every_configuration_and_every_variant_loads() {
        let b = vec!["vectoradd".to_string(), "km".to_string()];
        let study = study_benches(&b, true);
        assert_eq!(study, vec!["vectoradd"]);
        let p = plan(&b, &study, Some(1000), true);
        assert_eq!(
            p.len(),
            2 * main_variants(true).len() + study_variants().len()
        );
        assert!(p
            .iter()
            .all(|s| s.sets.iter().any(|x| x == "run.max_warp_insts=1000")));
        // no cap: every run to its end (the paper has none)
        assert!(plan(&b, &study, None, false)
            .iter()
            .all(|s| !s.sets.iter().any(|x| x.starts_with("run.max_warp_insts"))));
        let mut keys: Vec<&str> = p.iter().map(|s| s.key.as_str()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), p.len());
        for x in main_variants(false).iter().chain(&study_variants()) {
            let c = locus_sim::preset::load(Some(x.preset), None, &x.sets)
                .unwrap_or_else(|e| panic!("{}: {e}", x.key));
            // the baselines offload nothing; the static runs carry their ratio
            assert_eq!(
                c.ndp.offload == locus_sim::ndp::OffloadMode::None,
                x.key.starts_with("base") || x.key == "morecore",
                "{}",
                x.key
            );
            if let Some(r) = x.key.strip_prefix('s').and_then(|r| r.parse::<f64>().ok()) {
                assert_eq!(c.ndp.static_ratio, r);
            }
        }
        let sms = |k: &str| {
            let x = main_variants(false)
                .into_iter()
                .chain(study_variants())
                .find(|x| x.key == k)
                .unwrap();
            let c = locus_sim::preset::load(Some(x.preset), None, &x.sets).unwrap();
            c.system.sms_per_node
        };
        assert_eq!(
            (sms("base"), sms("morecore"), sms("base128")),
            (64, 72, 128)
        );
    }

    /// STN runs Parboil's `naive_kernel`, the one with the paper's offload block (the
    /// default kernel has none, and its NDP runs would equal its Baseline); the parameters
    /// build; KMN and SP run their loops rolled in every variant (the offload blocks' code),
    /// and every other workload keeps its defaults.
    #[test]
    fn stn_runs_the_papers_kernel() {
        let b: Vec<String> = TABLE1.iter().map(|t| t.1.to_string()).collect();
        for s in plan(&b, &[], None, true) {
            if s.bench == "parboil-stencil" {
                assert_eq!(
                    s.params,
                    vec![("kernel".into(), "naive".into())],
                    "{}",
                    s.key
                );
            } else if s.bench == "km" || s.bench == "scalarprod" {
                assert_eq!(
                    s.params,
                    vec![("loops".into(), "rolled".into())],
                    "{}",
                    s.key
                );
            } else {
                assert!(s.params.is_empty(), "{}", s.key);
            }
        }
        for w in ["parboil-stencil", "km", "scalarprod"] {
            let o = table1_params(w).into_iter().collect();
            locus_workload::registry::build(w, &o, 1).unwrap();
        }
    }

    #[test]
    fn claims_exist_before_runs_and_judge_nothing_without_data() {
        let b: Vec<String> = TABLE1.iter().map(|t| t.1.to_string()).collect();
        let c = claims(&b, &b, false);
        assert!(c.iter().any(|c| c.0.paper_text == "+17.9%"));
        assert!(c
            .iter()
            .any(|c| c.0.name.contains("BICG at static ratio 0.15")));
        let q = claims(&["vectoradd".to_string()], &[], true);
        assert!(!q.iter().any(|c| c.0.name.contains("on KMN")));
        assert!(!q.iter().any(|c| c.0.name.contains("§7.6")));
        let none = experiment::Runs::new(&Default::default());
        assert!(c.iter().all(|c| c.0.evaluate(&none).held.is_none()));
        let e = benches(Some("km,nosuch"), false).unwrap_err().to_string();
        assert!(e.contains("nosuch"), "{e}");
        for (a, w) in TABLE1 {
            assert!(locus_workload::registry::find(w).is_some(), "{w}");
            // the paper's abbreviation runs its workload (`-w kmn`), except BFS: `bfs`
            // is GraphBIG's, Table 1's is `rodinia-bfs`
            let by_abbr = locus_workload::registry::find(a).map(|b| b.name);
            assert!(by_abbr == Some(*w) || *a == "BFS", "{a}: {by_abbr:?}");
        }
    }

    /// The committed report (docs/repro-ndp-report.md, from `--quick`) prints no number
    /// absent from its ledger and no comparison its data contradict.
    #[test]
    fn committed_report_passes_its_audit() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
        let p = super::super::audit::audit(
            &read("docs/repro-ndp-report.md"),
            &read("docs/figures/ndp-numbers.txt"),
            &read("docs/figures/ndp-checks.txt"),
        );
        assert!(p.is_empty(), "{}", p.join("\n"));
    }

    #[test]
    fn fig5_montecarlo_matches_the_closed_form_ends() {
        // one or two accesses: the first access's stack is always an optimal target
        let r = fig5_record();
        let runs = experiment::Runs::new(&[(FIG5_KEY.to_string(), r)].into_iter().collect());
        assert_eq!(runs.value(FIG5_KEY, "sim.fig5.ratio.0"), 1.0);
        assert_eq!(runs.value(FIG5_KEY, "sim.fig5.ratio.1"), 1.0);
        // the spec's Monte-Carlo: 1.145 at 6 accesses, 1.065 at 64
        let six = runs.value(FIG5_KEY, "sim.fig5.ratio.5");
        assert!((six - 1.145).abs() < 0.01, "{six}");
        let last = runs.value(FIG5_KEY, &format!("sim.fig5.ratio.{}", FIG5_N.len() - 1));
        assert!((last - 1.065).abs() < 0.01, "{last}");
    }
}
