//! The HMS placement model against the simulator (issue 12; spec
//! `hms-placement-model.md` §5-§6): the model's machine parameters read from a preset
//! ([`hw_for`]), the sample profiled and simulated, each Table IV placement simulated as
//! the truth ([`simulate`] through `--place` / the workloads' `*_space` parameters), the
//! T_overlap regression trained on the training set and the 22 test placements evaluated
//! for every variant of §6.4 ([`evaluate`]).
//!
//! Scale rule (one for every benchmark, [`BENCHES`]): each benchmark keeps its suite's
//! kernel and access pattern, with the input shrunk until the profiled kernel's launches
//! (capped at [`BENCHES`]`.launches` program launches) simulate in about a second on
//! `k80`: data sets of at most a few MB, iterations / repetitions at 1, grids of at least
//! one wave of blocks over the 13 SMs where the benchmark has that many blocks.

use anyhow::{anyhow, bail, Result};
use locus_model::dram::SimDram;
use locus_model::memsim::{GlobalReplay, MemCfg};
use locus_model::model::{Flags, Hw, Model, OverlapModel};
use locus_model::profile::{collect, CollectOpts, Measured};
use locus_model::search;
use locus_model::train::{self, Case, Coefs};
use locus_model::Place;
use locus_sim::Config;
use std::collections::BTreeMap;

/// The model's machine parameters (spec §2.4) read from a simulator configuration, so the
/// model predicts for the machine it is checked against: clock, SMs, occupancy limits,
/// issue width, latencies, cache geometries, the memory spaces' capacities, peak DRAM
/// bandwidth, and the DRAM address mapping and row hit / miss / conflict latencies
/// measured by Algorithm 1 (§3.3.3) on the preset's DRAM, plus the crossbar's round trip
/// and the L2 path a load pays before it misses (`hit_lat`): Algorithm 1 times a thread's
/// uncached load, so the paper's 352 / 742 / 1008 ns are whole load latencies from the SM
/// (spec §2.3, §3.3.4 "end-to-end load latencies"; the reading of the DRAM side alone is
/// [`Flags::dram_side_lat`]); the banks' occupancy per row outcome from the DRAM timing
/// serves as the queues' service time.
pub fn hw_for(cfg: &Config) -> Hw {
    let mut d = SimDram {
        cfg: cfg.dram.clone(),
        channels: cfg.memory.channels_per_node,
        interleave_bytes: cfg.memory.channel_interleave_bytes,
        line_bytes: cfg.system.line_bytes,
    };
    let det = d.detect();
    // Algorithm 1 (§III-C2) times a thread's uncached load from the SM: the SM-to-L2 path
    // and the L2 lookup (`hit_lat`, paid by a miss before it leaves for DRAM:
    // `locus-sim`'s `send_to_memory` after `l2.hit_latency`), the crossbar round trip and
    // the DRAM's own latency (probed on the preset's DRAM)
    let hit_lat = f64::from(cfg.l2.hit_latency + 2 * cfg.noc.sm_l2_latency);
    let path_ns = (2.0 * f64::from(cfg.noc.xbar_latency) + hit_lat) / cfg.system.sm_clock_ghz;
    let ns = |ps: u64| ps as f64 / 1e3 + path_ns;
    let sp = &cfg.spaces;
    let chan_gbs = locus_dram::peak_bandwidth_gbs(&cfg.dram);
    Hw {
        sms: cfg.system.sms_per_node * cfg.system.nodes,
        warp_size: 32,
        simd_width: 32 * cfg.sm.issue_width.max(1),
        avg_inst_lat: f64::from(cfg.sm.fp_latency),
        max_warps_per_sm: cfg.sm.max_warps,
        max_blocks_per_sm: cfg.sm.max_blocks,
        max_threads_per_sm: cfg.sm.max_threads,
        registers_per_sm: cfg.sm.registers,
        smem_per_sm: cfg.sm.smem_bytes,
        clock_ghz: cfg.system.sm_clock_ghz,
        hit_lat,
        shmem_lat: f64::from(cfg.sm.smem_latency),
        row_lat_ns: [ns(det.hit_ps), ns(det.miss_ps), ns(det.conflict_ps)],
        row_occ_ns: {
            // a bank's occupancy per outcome: the line's bursts, plus tRCD on a miss, plus
            // tRP on a conflict (the preset's DRAM timing)
            let dc = &cfg.dram;
            let burst = f64::from(cfg.system.line_bytes) / f64::from(dc.burst_bytes().max(1))
                * f64::from(dc.burst_length / 2)
                * dc.tck_ps as f64
                / 1e3;
            [burst, burst + dc.trcd_ns, burst + dc.trcd_ns + dc.trp_ns]
        },
        mem_peak_gbs: chan_gbs * f64::from(cfg.memory.channels_per_node),
        banks: cfg.memory.channels_per_node * cfg.dram.banks,
        mapping: det.mapping,
        smem_per_block: sp.shared_bytes_per_block,
        const_bytes: sp.const_bytes,
        tex1d_max_elems: sp.tex1d_max_elems,
        tex2d_max_dim: sp.tex2d_max_side,
        mem: MemCfg {
            l2_bytes: cfg.l2.bytes_per_node,
            l2_ways: cfg.l2.ways as usize,
            l2_line: cfg.system.line_bytes,
            tex_bytes: u64::from(sp.tex_bytes),
            tex_ways: sp.tex_ways as usize,
            tex_line: sp.tex_line_bytes,
            const_bytes: u64::from(sp.const_cache_bytes),
            const_ways: sp.const_ways as usize,
            const_line: sp.const_line_bytes,
            banks: sp.shared_banks,
            bank_bytes: sp.shared_bank_bytes,
            transaction: sp.global_transaction_bytes,
            global_replay: match sp.global_replay {
                locus_sim::spaces::GlobalReplay::Literal => GlobalReplay::Literal,
                locus_sim::spaces::GlobalReplay::Segments => GlobalReplay::Segments,
            },
            // the simulator maps a page to the next free frame at its first touch (one
            // node: frames in first-touch order)
            first_touch_page: if cfg.system.nodes == 1 {
                cfg.system.page_bytes
            } else {
                0
            },
            shared_block_range: sp.shared_stage == locus_sim::spaces::SharedStage::BlockRange,
        },
        ..Hw::default()
    }
}

/// One benchmark of Table IV at the scale rule's input (module doc).
#[derive(Clone, Copy, Debug)]
pub struct Bench {
    /// Locus workload (as in [`train::Case::workload`]).
    pub workload: &'static str,
    /// The kernel's name in the workload (the paper's may differ: matrixMul, vector_kernel).
    pub kernel: &'static str,
    /// Workload parameters of the sample.
    pub params: &'static [(&'static str, &'static str)],
    /// Program launches simulated and profiled at most (the kernel's first launches).
    pub launches: u32,
}

/// The scale rule's inputs, one per benchmark of Table IV.
pub const BENCHES: &[Bench] = &[
    Bench {
        workload: "convsep",
        kernel: "convolutionRowsKernel",
        params: &[("width", "512"), ("height", "512"), ("iterations", "0")],
        launches: 1,
    },
    Bench {
        workload: "shoc-md",
        kernel: "compute_lj_force",
        params: &[("atoms", "4096"), ("neighbors", "32")],
        launches: 1,
    },
    Bench {
        workload: "matmul",
        kernel: "matrixMulCUDA",
        params: &[("m", "256"), ("k", "256"), ("n", "256")],
        launches: 1,
    },
    Bench {
        workload: "shoc-spmv",
        kernel: "spmv_csr_vector_kernel",
        params: &[("dim", "1024"), ("iterations", "1")],
        launches: 1,
    },
    Bench {
        workload: "transpose",
        kernel: "transposeNaive",
        params: &[("n", "512"), ("variant", "naive"), ("reps", "0")],
        launches: 1,
    },
    Bench {
        workload: "cfd",
        kernel: "cuda_compute_flux",
        params: &[("elements", "16384")],
        launches: 2,
    },
    Bench {
        workload: "shoc-triad",
        kernel: "triad",
        params: &[("chunk", "262144")],
        launches: 1,
    },
    Bench {
        workload: "shoc-qtc",
        kernel: "QTC_device",
        params: &[("points", "256")],
        launches: 2,
    },
    Bench {
        workload: "shoc-bfs",
        kernel: "BFS_kernel_warp",
        params: &[],
        launches: 10,
    },
    Bench {
        workload: "shoc-fft",
        kernel: "FFT512_device",
        params: &[],
        launches: 1,
    },
    Bench {
        workload: "shoc-neuralnet",
        kernel: "kernelFeedForward1",
        params: &[("inputs", "256"), ("images", "2")],
        launches: 8,
    },
    Bench {
        workload: "shoc-reduction",
        kernel: "reduce",
        params: &[("iterations", "1")],
        launches: 1,
    },
    Bench {
        workload: "shoc-scan",
        kernel: "reduce",
        params: &[("iterations", "1")],
        launches: 1,
    },
    Bench {
        workload: "shoc-sort",
        kernel: "reorderData",
        params: &[("n", "65536")],
        launches: 8,
    },
    Bench {
        workload: "shoc-stencil2d",
        kernel: "StencilKernel",
        params: &[("rows", "256"), ("cols", "512"), ("iterations", "1")],
        launches: 1,
    },
    Bench {
        workload: "shoc-md5hash",
        kernel: "FindKeyWithDigest_Kernel",
        params: &[("keyspace", "200000")],
        launches: 1,
    },
    Bench {
        workload: "shoc-s3d",
        kernel: "gr_base",
        params: &[],
        launches: 1,
    },
];

/// The benchmark entry of `workload`.
pub fn bench(workload: &str) -> Option<&'static Bench> {
    BENCHES.iter().find(|b| b.workload == workload)
}

/// How one move of a Table IV case is made on the simulator (the truth) and in the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Realised {
    /// The model's object (index into the profile's objects).
    pub obj: usize,
    /// The target component.
    pub to: Place,
    /// `--place obj=space` (off-chip objects) ...
    pub place: Option<(String, String)>,
    /// ... or a workload parameter (`*_space`) for a block's shared scratch array, which is
    /// no data object of the simulator.
    pub param: Option<(&'static str, &'static str)>,
}

/// The workload's name for the paper's object (Table IV names, §5.3).
fn object_alias(workload: &str, paper: &str) -> &'static str {
    match (workload, paper) {
        ("convsep", "d_Src") => "d_Input",
        ("convsep", "c_Kernel") => "c_Kernel",
        ("shoc-md", "d_position") => "d_position",
        ("shoc-md", "neighList") => "d_neighborList",
        ("matmul", "A") => "A",
        ("matmul", "B") => "B",
        ("shoc-spmv", "rowDelimiters") => "d_rowDelimiters",
        ("shoc-spmv", "d_vec") => "d_vec",
        ("shoc-spmv", "val") => "d_val",
        ("shoc-spmv", "cols") => "d_cols",
        ("transpose", "idata") => "idata",
        ("cfd", "variables") => "variables",
        ("shoc-triad", "B") => "d_memB0",
        ("shoc-qtc", "distance_matrix_txt") => "distance_matrix",
        ("shoc-bfs", "edgeArray") => "d_edgeArray",
        ("shoc-neuralnet", "weights") => "D__WEIGHTS",
        ("shoc-scan", "g_idata") => "d_idata",
        ("shoc-stencil2d", "data") => "data_a",
        ("shoc-md5hash", "foundKey") => "d_foundKey",
        ("shoc-s3d", "gpu_p") => "gpu_p",
        ("shoc-s3d", "gpu_y") => "gpu_y",
        // shared arrays, named by their kernels (`Kernel::shared_arrays`)
        ("shoc-fft", "smem") => "smem",
        ("shoc-reduction", "sdata") => "sdata",
        ("shoc-sort", "sBlockOffsets") => "sBlockOffsets",
        _ => "",
    }
}

/// Realises the moves of `case` for the profile `p`, or says why the case cannot be
/// expressed (then it is listed, not faked).
pub fn realise(case: &Case, p: &locus_model::Profile) -> Result<Vec<Realised>, String> {
    let mut out = Vec::new();
    for &(paper, from, to) in case.moves {
        let name = object_alias(case.workload, paper);
        if name.is_empty() {
            return Err(format!(
                "no object of {} stands for `{paper}`",
                case.workload
            ));
        }
        let obj = p
            .object(name)
            .or_else(|| search::find_object(p, name))
            .ok_or_else(|| format!("`{name}` is not accessed by kernel {}", p.kernel))?;
        let o = &p.objects[obj];
        if o.place != from {
            return Err(format!(
                "`{}` is in {} in the sample, the paper moves it from {}",
                o.name,
                o.place.short(),
                from.short()
            ));
        }
        let (place, param) = if o.place == Place::Shared {
            // a shared array is no data object of the simulator: the workload's parameter
            // moves it
            let param = shared_move_param(case.workload, &o.name, to).ok_or_else(|| {
                format!(
                    "`{}` is a shared array of {}; no workload parameter moves it to {}",
                    o.name,
                    p.kernel,
                    to.name()
                )
            })?;
            (None, Some((param, "global")))
        } else {
            (Some((o.name.clone(), to.name().to_string())), None)
        };
        out.push(Realised {
            obj,
            to,
            place,
            param,
        });
    }
    Ok(out)
}

/// What one simulation of a placement measured (the kernel's launches only).
#[derive(Clone, Debug, Default)]
pub struct SimOut {
    /// Kernel cycles (sum over its launches).
    pub cycles: f64,
    /// Warp instructions executed.
    pub warp_insts: u64,
    /// Issued (executed + replays; `spaces.issued_insts`).
    pub issued: u64,
    /// Integer (ALU) warp instructions.
    pub int_insts: u64,
    /// Load / store warp instructions (all spaces).
    pub ldst: u64,
    /// L2 accesses (transactions).
    pub l2_trans: u64,
    /// Post-L2 DRAM requests: (arrival ps, channel, channel-local address) when recorded.
    pub dram: Vec<(u64, u32, u64)>,
    /// Replays by cause (1)-(4) (`spaces.replays_*`).
    pub replays: [u64; 4],
    /// Texture line lookups and hits.
    pub tex: [u64; 2],
    /// Constant line lookups and hits.
    pub cst: [u64; 2],
    /// L2 hits.
    pub l2_hits: u64,
    /// L2 misses merged onto a pending miss of the same line (MSHR merges): the simulator
    /// counts them as misses; they go to DRAM no second time.
    pub l2_merges: u64,
    /// DRAM reads and writes issued by the kernel's L2 misses and write-backs.
    pub dram_rw: [u64; 2],
    /// Loads completed and their summed latency (ps): the measured mean load latency.
    pub loads: (u64, u64),
    /// Row hits, misses and conflicts of the whole run's DRAM, and its mean read latency
    /// (ns, controller arrival to data); `None` when the run has other kernels than the
    /// profiled one (then the node counters are not the kernel's).
    pub rows: Option<([u64; 3], f64)>,
    /// Per launch of the kernel: L2 accesses, L2 hits, DRAM reads, DRAM writes (the
    /// simulator's per-kernel counters; issue 12's caches across launches).
    pub per_launch: Vec<[u64; 4]>,
    /// Bytes the kernel's blocks copied into shared memory and back for `--place
    /// X=shared` (`spaces.staged_bytes`), and the copy loops' warp instructions
    /// (`spaces.staged_insts`): what the model's `T_init` stands for.
    pub staged: [u64; 2],
}

/// Simulates `bench` on `cfg` with the extra workload parameters and `--place` overrides.
pub fn simulate(
    cfg: &Config,
    b: &Bench,
    params: &[(&str, &str)],
    place: &[(String, String)],
    record_dram: bool,
) -> Result<SimOut> {
    let mut cfg = cfg.clone();
    cfg.run.max_kernels = b.launches;
    for (o, s) in place {
        cfg.place.insert(o.clone(), s.clone());
    }
    cfg.validate().map_err(|e| anyhow!("{}: {e}", b.workload))?;
    let mut w = build(b, params)?;
    let mut sys = locus_sim::System::new(&cfg);
    sys.record_dram_trace(record_dram);
    let r = sys.run(&mut *w, &mut |_| {})?;
    let mut o = SimOut::default();
    for k in r.sim.kernels.iter().filter(|k| k.name == b.kernel) {
        let c = &k.summary.counters;
        o.cycles += k.summary.cycles as f64;
        o.warp_insts += c.warp_insts;
        o.issued += k.spaces.as_ref().map_or(c.warp_insts, |s| s.issued_insts);
        o.int_insts += c.warp_insts_by_class[locus_workload::InstClass::Int as usize];
        o.ldst += c.mem_insts;
        o.l2_trans += c.l2_accesses;
        o.l2_hits += c.l2_hits;
        o.l2_merges += c.l2_mshr_merges;
        o.dram_rw[0] += c.dram_reads;
        o.dram_rw[1] += c.dram_writes;
        o.per_launch
            .push([c.l2_accesses, c.l2_hits, c.dram_reads, c.dram_writes]);
        o.loads.0 += c.loads_completed;
        o.loads.1 += c.load_latency_ps;
        if let Some(sp) = &k.spaces {
            o.replays[0] += sp.replays_global_divergence;
            o.replays[1] += sp.replays_const_miss;
            o.replays[2] += sp.replays_const_divergence;
            o.replays[3] += sp.replays_shared_bank_conflict;
            o.tex[0] += sp.tex_requests;
            o.tex[1] += sp.tex_hits;
            o.cst[0] += sp.const_requests;
            o.cst[1] += sp.const_hits;
            o.staged[0] += sp.staged_bytes;
            o.staged[1] += sp.staged_insts;
        }
    }
    if r.sim.kernels.iter().all(|k| k.name == b.kernel) {
        let mut rows = [0u64; 3];
        let (mut lat, mut n) = (0.0, 0u64);
        for nd in &r.sim.nodes {
            let d = &nd.dram;
            rows[0] += d.row_hits;
            rows[1] += d.row_misses;
            rows[2] += d.row_conflicts;
            lat += d.mean_read_latency_ns * d.reads as f64;
            n += d.reads;
        }
        o.rows = Some((rows, lat / n.max(1) as f64));
    }
    if o.cycles == 0.0 {
        bail!(
            "{}: kernel {} did not run in {} launches",
            b.workload,
            b.kernel,
            b.launches
        );
    }
    if record_dram {
        o.dram = sys
            .take_dram_trace()
            .iter()
            .map(|d| (d.ps, d.chan, d.chan_addr))
            .collect();
    }
    Ok(o)
}

fn build(b: &Bench, extra: &[(&str, &str)]) -> Result<Box<dyn locus_workload::Workload>> {
    let mut m: BTreeMap<String, String> = b
        .params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    for (k, v) in extra {
        m.insert(k.to_string(), v.to_string());
    }
    Ok(Box::new(locus_workload::registry::build(
        b.workload, &m, 1,
    )?))
}

/// Profiles the sample of `b` (spec §3.7), simulates it on `cfg` for its measured time and
/// issued instructions, and returns the model with the sample's simulation.
pub fn sample_model(cfg: &Config, b: &Bench, hw: &Hw) -> Result<(Model, SimOut)> {
    let opts = CollectOpts {
        kernel: Some(b.kernel.to_string()),
        max_launches: b.launches as usize,
        sms: hw.sms,
        max_warps_per_sm: hw.max_warps_per_sm,
        max_blocks_per_sm: hw.max_blocks_per_sm,
        max_threads_per_sm: hw.max_threads_per_sm,
        registers_per_sm: hw.registers_per_sm,
        smem_per_sm: hw.smem_per_sm,
        line_bytes: cfg.system.line_bytes,
        ..CollectOpts::default()
    };
    let mut w = build(b, &[])?;
    let mut p = collect(&mut *w, &opts).map_err(|e| anyhow!("{}: {e}", b.workload))?;
    let s = simulate(cfg, b, &[], &[], false)?;
    p.measured = Some(Measured {
        cycles: s.cycles,
        inst_issued: s.issued,
        inst_executed: s.warp_insts,
    });
    Ok((Model::new(p, hw.clone()), s))
}

/// The variant name of `ours` calibrated to the sample's simulated time (last column).
pub const CALIBRATED: &str = "ours-calibrated";

/// One Table IV case, evaluated.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// The case.
    pub case: &'static Case,
    /// In the test set (else training).
    pub test: bool,
    /// The moves as the paper writes them, e.g. `weights(G→C)`; `sample` for none.
    pub label: String,
    /// Why the case could not be expressed (then nothing else is filled).
    pub skipped: Option<String>,
    /// Simulated kernel cycles (the truth).
    pub truth: f64,
    /// The simulation's counters (Table I events).
    pub sim: SimOut,
    /// Integer warp instructions of the sample's simulation (the addressing delta's base).
    pub sample_int: u64,
    /// Per variant of [`Flags::ablations`]: (the regression's features and target) for
    /// training, and the prediction once trained.
    pub rows: Vec<([f64; 11], f64)>,
    /// Predicted cycles per variant (after training).
    pub pred: Vec<f64>,
}

impl CaseResult {
    /// |predicted - simulated| / simulated of variant `v`.
    pub fn error(&self, v: usize) -> f64 {
        (self.pred[v] - self.truth).abs() / self.truth
    }
}

/// The evaluation of spec §6.3-§6.4: every case, the coefficients per variant, mean errors.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// Variant names ([`Flags::ablations`] order).
    pub variants: Vec<&'static str>,
    /// Every case of Table IV, training then test.
    pub cases: Vec<CaseResult>,
    /// Eq. 11 coefficients per variant (None: no training row, or a \[7\] variant).
    pub coefs: Vec<Option<Coefs>>,
    /// The model per benchmark (the profiled samples).
    pub models: BTreeMap<&'static str, Model>,
    /// The cases the spec's whole-array shared rule refuses, run under the named reading
    /// `block-range` ([`block_range_cases`]); outside the fit and the mean errors.
    pub block_range: Vec<CaseResult>,
}

impl Evaluation {
    /// Mean error of variant `v` over the expressible test cases (and their count).
    pub fn mean_error(&self, v: usize) -> (f64, usize) {
        let e: Vec<f64> = self
            .cases
            .iter()
            .filter(|c| c.test && c.skipped.is_none())
            .map(|c| c.error(v))
            .collect();
        (e.iter().sum::<f64>() / e.len().max(1) as f64, e.len())
    }
    /// Index of variant `name`.
    pub fn variant(&self, name: &str) -> usize {
        self.variants.iter().position(|v| *v == name).unwrap_or(0)
    }
}

/// Paper-style label of a case's moves.
pub fn label(c: &Case) -> String {
    if c.moves.is_empty() {
        return "sample".into();
    }
    c.moves
        .iter()
        .map(|(o, f, t)| format!("{o}({}→{})", f.short(), t.short()))
        .collect::<Vec<_>>()
        .join("+")
}

/// Runs spec §6.3-§6.4 on `cfg`: simulates every Table IV case (sample and target
/// placements), trains Eq. 11 per variant on the training set only, predicts every case.
/// `progress` is called with each finished case's label.
pub fn evaluate(
    cfg: &Config,
    only: Option<&[String]>,
    progress: &mut dyn FnMut(&str),
) -> Result<Evaluation> {
    let hw = hw_for(cfg);
    let variants = Flags::ablations();
    let mut models: BTreeMap<&'static str, Model> = BTreeMap::new();
    let mut samples: BTreeMap<&'static str, SimOut> = BTreeMap::new();
    let mut cases = Vec::new();
    let all = train::TRAINING
        .iter()
        .map(|c| (c, false))
        .chain(train::TEST.iter().map(|c| (c, true)))
        .filter(|(c, _)| only.is_none_or(|o| o.iter().any(|w| w == c.workload)));
    for (case, test) in all {
        let mut r = CaseResult {
            case,
            test,
            label: label(case),
            skipped: None,
            truth: 0.0,
            sim: SimOut::default(),
            sample_int: 0,
            rows: Vec::new(),
            pred: Vec::new(),
        };
        let Some(b) = bench(case.workload) else {
            r.skipped = Some(format!("no benchmark entry for {}", case.workload));
            cases.push(r);
            continue;
        };
        if !models.contains_key(case.workload) {
            match sample_model(cfg, b, &hw) {
                Ok((m, s)) => {
                    models.insert(case.workload, m);
                    samples.insert(case.workload, s);
                }
                Err(e) => {
                    r.skipped = Some(format!("{e:#}"));
                    cases.push(r);
                    continue;
                }
            }
        }
        let m = &models[case.workload];
        let p = &m.profile;
        let moves = match realise(case, p) {
            Ok(v) => v,
            Err(e) => {
                r.skipped = Some(e);
                cases.push(r);
                continue;
            }
        };
        let mut target = p.sample_placement();
        for mv in &moves {
            target[mv.obj] = mv.to;
        }
        if let Err(e) = search::legal(p, &target, &m.hw) {
            r.skipped = Some(format!("the model refuses the placement: {e}"));
            cases.push(r);
            continue;
        }
        let sim = if moves.is_empty() {
            samples[case.workload].clone()
        } else {
            let params: Vec<(&str, &str)> = moves.iter().filter_map(|m| m.param).collect();
            let place: Vec<(String, String)> =
                moves.iter().filter_map(|m| m.place.clone()).collect();
            match simulate(cfg, b, &params, &place, false) {
                Ok(s) => s,
                Err(e) => {
                    r.skipped = Some(format!("the simulator refuses the placement: {e:#}"));
                    cases.push(r);
                    continue;
                }
            }
        };
        r.truth = sim.cycles;
        r.sim = sim;
        r.sample_int = samples[case.workload].int_insts;
        for (_, f) in &variants {
            let row = m
                .training_row(&target, r.truth, *f)
                .map_err(|e| anyhow!("{}: {e}", r.label))?;
            r.rows.push(row);
        }
        progress(&format!("{} {}", case.bench, r.label));
        cases.push(r);
    }
    // train each variant's Eq. 11 on the training set only
    let coefs: Vec<Option<Coefs>> = (0..variants.len())
        .map(|v| {
            if variants[v].1.overlap != OverlapModel::Regression {
                return None;
            }
            let rows: Vec<([f64; 11], f64)> = cases
                .iter()
                .filter(|c| !c.test && c.skipped.is_none())
                .map(|c| c.rows[v])
                .collect();
            train::fit_eq11_form(&rows, variants[v].1.eq11)
        })
        .collect();
    for r in cases.iter_mut().filter(|c| c.skipped.is_none()) {
        let m = &models[r.case.workload];
        let p = &m.profile;
        let moves = realise(r.case, p).map_err(|e| anyhow!(e))?;
        let mut target = p.sample_placement();
        for mv in &moves {
            target[mv.obj] = mv.to;
        }
        r.pred = variants
            .iter()
            .zip(&coefs)
            .map(|((_, f), c)| {
                m.predict(&target, *f, c.as_ref())
                    .map(|p| p.total)
                    .unwrap_or(f64::NAN)
            })
            .collect();
        // `ours` calibrated to the sample (spec §7 #16 [D]): the sample's simulated time
        // times the model's target / sample ratio
        let ours = variants
            .iter()
            .position(|v| v.0 == "ours")
            .expect("`ours` among the variants");
        let s = m
            .predict(
                &p.sample_placement(),
                variants[ours].1,
                coefs[ours].as_ref(),
            )
            .map(|p| p.total)
            .unwrap_or(f64::NAN);
        let meas = p.measured.as_ref().map_or(f64::NAN, |me| me.cycles);
        r.pred.push(r.pred[ours] * meas / s);
    }
    let mut names: Vec<&'static str> = variants.iter().map(|v| v.0).collect();
    names.push(CALIBRATED);
    let block_range = block_range_cases(cfg, &cases, &models, &coefs, progress)?;
    Ok(Evaluation {
        variants: names,
        cases,
        coefs,
        models,
        block_range,
    })
}

/// The cases whose move into shared memory the spec's rule refuses (every block copies
/// the whole array, §4; Table IV's triad B(G→S): B is 1 MB, a block holds 48 KB), run
/// under the named reading `block-range`: the simulator with `spaces.shared_stage =
/// "block-range"`, the model with [`MemCfg::shared_block_range`], each block copying only
/// the range of the array it reads. Predicted by every variant with the coefficients
/// trained on the literal training set (the case joins neither the fit nor the means);
/// no `ours-calibrated` entry.
fn block_range_cases(
    cfg: &Config,
    cases: &[CaseResult],
    models: &BTreeMap<&'static str, Model>,
    coefs: &[Option<Coefs>],
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<CaseResult>> {
    let mut cfg = cfg.clone();
    cfg.spaces.shared_stage = locus_sim::spaces::SharedStage::BlockRange;
    let hw = hw_for(&cfg);
    let variants = Flags::ablations();
    let mut out = Vec::new();
    for c in cases {
        let refused = c
            .skipped
            .as_deref()
            .is_some_and(|s| s.starts_with("the model refuses the placement"));
        let (Some(m), Some(b)) = (models.get(c.case.workload), bench(c.case.workload)) else {
            continue;
        };
        let Ok(moves) = realise(c.case, &m.profile) else {
            continue;
        };
        if !refused || !moves.iter().any(|mv| mv.to == Place::Shared) {
            continue;
        }
        let mut r = CaseResult {
            skipped: None,
            rows: Vec::new(),
            pred: Vec::new(),
            ..c.clone()
        };
        let mut target = m.profile.sample_placement();
        for mv in &moves {
            target[mv.obj] = mv.to;
        }
        let m2 = Model::new(m.profile.clone(), hw.clone());
        if let Err(e) = search::legal(&m2.profile, &target, &m2.hw) {
            r.skipped = Some(format!("the model refuses the placement: {e}"));
            out.push(r);
            continue;
        }
        let params: Vec<(&str, &str)> = moves.iter().filter_map(|m| m.param).collect();
        let place: Vec<(String, String)> = moves.iter().filter_map(|m| m.place.clone()).collect();
        match simulate(&cfg, b, &params, &place, false) {
            Ok(s) => {
                r.truth = s.cycles;
                r.sim = s;
            }
            Err(e) => {
                r.skipped = Some(format!("the simulator refuses the placement: {e:#}"));
                out.push(r);
                continue;
            }
        }
        r.pred = variants
            .iter()
            .zip(coefs)
            .map(|((_, f), k)| {
                m2.predict(&target, *f, k.as_ref())
                    .map(|p| p.total)
                    .unwrap_or(f64::NAN)
            })
            .collect();
        progress(&format!("{} {} (block-range)", c.case.bench, r.label));
        out.push(r);
    }
    Ok(out)
}

/// T_comp, T_mem and T_overlap of variant `v`'s prediction of `case` (for the report's
/// explanations).
pub fn predict_terms(m: &Model, case: &Case, v: usize, ev: &Evaluation) -> (f64, f64, f64) {
    let p = &m.profile;
    let Ok(moves) = realise(case, p) else {
        return (f64::NAN, f64::NAN, f64::NAN);
    };
    let mut target = p.sample_placement();
    for mv in &moves {
        target[mv.obj] = mv.to;
    }
    let Some(&(_, f)) = Flags::ablations().get(v) else {
        return (f64::NAN, f64::NAN, f64::NAN);
    };
    match m.predict(&target, f, ev.coefs.get(v).and_then(|c| c.as_ref())) {
        Ok(pr) => (pr.t_comp, pr.t_mem, pr.t_overlap),
        Err(_) => (f64::NAN, f64::NAN, f64::NAN),
    }
}

/// The placement of `case` in the model's terms (the sample with the case's moves).
fn target_of(m: &Model, case: &Case) -> Option<Vec<Place>> {
    let p = &m.profile;
    let moves = realise(case, p).ok()?;
    let mut target = p.sample_placement();
    for mv in &moves {
        target[mv.obj] = mv.to;
    }
    Some(target)
}

/// The model's terms beside the simulator's own counterparts on the same placement.
pub const TERMS: &[(&str, &str)] = &[
    ("cycles", "T (Eq. 1) vs the kernel's simulated cycles"),
    ("issued_insts", "issued warp instructions (§3.2) vs `spaces.issued_insts`"),
    ("mem_insts", "warp memory requests vs the simulator's memory instructions"),
    ("replays_global", "replay cause (1) vs the simulator's global divergence replays"),
    ("replays_const_miss", "replay cause (2) vs constant-miss replays"),
    ("replays_const_div", "replay cause (3) vs constant divergence replays"),
    ("replays_bank", "replay cause (4) vs shared bank-conflict replays"),
    ("d_addr_insts", "addressing instructions target - sample (§3.2.3) vs the simulated integer instructions target - sample"),
    ("tex_hit_rate", "texture cache hit rate (line lookups)"),
    ("const_hit_rate", "constant cache hit rate (line lookups)"),
    ("l2_hit_rate", "L2 hit rate: hits over L2 accesses, read and write misses (write-validate) counted as misses; the model's cache has no MSHR, so a line's second access before its fill is a hit, and the simulator's MSHR merges are counted as hits (a merge reads DRAM no second time)"),
    ("l2_accesses", "L2 accesses (lines)"),
    ("dram_reads", "DRAM reads"),
    ("dram_writes", "DRAM writes (L2 write-backs)"),
    ("row_hit_share", "row-buffer hits / DRAM accesses (run-wide when the run is this kernel only)"),
    ("row_miss_share", "row misses (closed bank) / DRAM accesses"),
    ("row_conflict_share", "row conflicts / DRAM accesses"),
    ("dram_latency", "DRAM latency with queuing (Eqs. 6-10, cycles; Algorithm 1's whole load latency) vs the controller's mean read latency plus the crossbar round trip and hit_lat (the L2 path of a miss)"),
    ("amat", "AMAT (Eq. 5, cycles) vs the simulator's mean load latency (every space)"),
    ("t_comp_vs_issue", "T_comp (Eq. 2) vs the issue cycles: issued / (active SMs x issue width)"),
];

/// Every term of [`TERMS`] for one case under `ours` (with the trained coefficients):
/// (model, simulator) per term, NaN where the simulator has no counterpart.
pub fn term_pairs(
    m: &Model,
    r: &CaseResult,
    coefs: Option<&Coefs>,
    cfg: &Config,
) -> Option<Vec<(f64, f64)>> {
    if r.skipped.is_some() {
        return None;
    }
    let target = target_of(m, r.case)?;
    let pr = m.predict(&target, Flags::ours(), coefs).ok()?;
    let k = m.profile.scale();
    let s = &r.sim;
    let e = &pr.events;
    let clock = cfg.system.sm_clock_ghz;
    let rate = |h: f64, n: f64| if n > 0.0 { h / n } else { f64::NAN };
    let rows_m: u64 = pr.dram.rows.iter().sum();
    let (rows_s, lat_s) = match s.rows {
        Some((rw, lat)) => {
            let n = rw.iter().sum::<u64>() as f64;
            let xbar = 2.0 * f64::from(cfg.noc.xbar_latency) + m.hw.hit_lat;
            (
                [0, 1, 2].map(|i| rate(rw[i] as f64, n)),
                if lat > 0.0 {
                    lat * clock + xbar
                } else {
                    f64::NAN
                },
            )
        }
        None => ([f64::NAN; 3], f64::NAN),
    };
    let issue_w = f64::from(cfg.sm.issue_width.max(1));
    let sms = f64::from(m.profile.active_sms.max(1));
    let dram_reads = e.dram_reads as f64;
    Some(vec![
        (pr.total, r.truth),
        (e.issued, s.issued as f64),
        (e.req.iter().sum::<u64>() as f64 * k, s.ldst as f64),
        (pr.replays[0] as f64 * k, s.replays[0] as f64),
        (pr.replays[1] as f64 * k, s.replays[1] as f64),
        (pr.replays[2] as f64 * k, s.replays[2] as f64),
        (pr.replays[3] as f64 * k, s.replays[3] as f64),
        (
            pr.d_addr as f64 * k,
            s.int_insts as f64 - r.sample_int as f64,
        ),
        (
            rate((e.lookups[0] - e.misses[0]) as f64, e.lookups[0] as f64),
            rate(s.tex[1] as f64, s.tex[0] as f64),
        ),
        (
            rate((e.lookups[1] - e.misses[1]) as f64, e.lookups[1] as f64),
            rate(s.cst[1] as f64, s.cst[0] as f64),
        ),
        (
            rate(
                (e.l2_access - e.dram_reads - e.l2_write_misses) as f64,
                e.l2_access as f64,
            ),
            rate((s.l2_hits + s.l2_merges) as f64, s.l2_trans as f64),
        ),
        (e.l2_access as f64 * k, s.l2_trans as f64),
        (dram_reads * k, s.dram_rw[0] as f64),
        (
            (e.dram_requests - e.dram_reads) as f64 * k,
            s.dram_rw[1] as f64,
        ),
        (rate(pr.dram.rows[0] as f64, rows_m as f64), rows_s[0]),
        (rate(pr.dram.rows[1] as f64, rows_m as f64), rows_s[1]),
        (rate(pr.dram.rows[2] as f64, rows_m as f64), rows_s[2]),
        (pr.dram.lat, lat_s),
        (
            pr.amat,
            rate(s.loads.1 as f64 / 1e3 * clock, s.loads.0 as f64),
        ),
        (pr.t_comp, s.issued as f64 / (sms * issue_w)),
    ])
}

/// One case's error decomposed into the terms of Eq. 1 against the simulator (issue 12).
///
/// With Eq. 12 as printed (`T_overlap = ratio x T_mem`), the prediction over the
/// simulated time is exactly `T/T_sim = T_comp/T_sim + (T_mem/T_sim)(1 - ratio)` (plus
/// `T_init/T_sim`), and the memory term factors as
/// `T_mem/T_sim = (AMAT / AMAT_sim) x (ITMLP_implied / ITMLP)`, where `T_mem =
/// requests x AMAT / (#active_SMs x ITMLP)` (Eq. 4 with Eqs. 17-19) and `ITMLP_implied =
/// requests x AMAT_sim / (#active_SMs x T_sim)` is the concurrency at which the memory
/// term alone, at the simulator's measured AMAT, fills the simulated time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decomp {
    /// Simulated cycles.
    pub truth: f64,
    /// Predicted cycles (`ours`, trained Eq. 11, Eq. 12 as printed).
    pub total: f64,
    /// T_comp, T_mem, T_overlap, T_init (cycles).
    pub t: [f64; 4],
    /// The simulator's issue-bound time: issued / (active SMs x issue width).
    pub issue_bound: f64,
    /// AMAT (Eq. 5 literal: hit_lat for every request), and the simulator's mean load latency.
    pub amat: [f64; 2],
    /// AMAT with hit_lat charged to non-shared requests only (`Flags::hit_lat_all` off).
    pub amat_nonshared: f64,
    /// Eq. 5's parts: hit_lat, DRAM_lat x miss_ratio, shmem_lat x shmem_ratio.
    pub amat_parts: [f64; 3],
    /// DRAM latency: the model's (Eqs. 6-10), its queuing part, the simulator's.
    pub dram_lat: [f64; 3],
    /// ITMLP of the model and the one the simulator's time implies.
    pub itmlp: [f64; 2],
    /// Warp-level requests (whole kernel).
    pub requests: f64,
    /// Launches merged into the profile, `#active_SMs`, `N` (warps per SM).
    pub shape: [u64; 3],
    /// ITMLP's inputs (Eqs. 18-19, spec §3.3.1; T_mem-weighted means over the launches of
    /// a kernel launched several times): MLP, CWP, MWP_without_BW, MWP_peak_bw, MWP,
    /// MWP_cp.
    pub itmlp_inputs: [f64; 6],
    /// ITMLP under the named readings `ours+dram-side-lat` and `ours+mwp-bw-dram`.
    pub itmlp_readings: [f64; 2],
    /// The simulator's time-averaged outstanding warp loads per active SM (Little's law on
    /// its own counters: the loads' summed latency over `#active_SMs x T_sim`).
    pub outstanding_sim: f64,
    /// The simulator's DRAM traffic (reads and writes, lines) over the simulated time, as a
    /// share of the peak bandwidth.
    pub dram_util_sim: f64,
}

impl Decomp {
    /// `T/T_sim` rebuilt from the factors: `T_comp/T_sim + (AMAT/AMAT_sim) x
    /// (ITMLP_implied/ITMLP) x (1 - T_overlap/T_mem) + T_init/T_sim`.
    pub fn rebuilt_ratio(&self) -> f64 {
        let [tc, tm, to, ti] = self.t;
        let a = self.amat[0] / self.amat[1];
        let q = self.itmlp[1] / self.itmlp[0];
        (tc + ti) / self.truth + a * q * (1.0 - to / tm)
    }
    /// The factor departing most from 1 (|log2|) and its value: `comp` (T_comp over the
    /// simulator's issue-bound time), `amat`, `concurrency` (ITMLP_implied / ITMLP).
    pub fn main_departure(&self) -> (&'static str, f64) {
        let f = [
            ("comp", self.t[0] / self.issue_bound),
            ("amat", self.amat[0] / self.amat[1]),
            ("concurrency", self.itmlp[1] / self.itmlp[0]),
        ];
        f.into_iter()
            .filter(|x| x.1.is_finite() && x.1 > 0.0)
            .max_by(|x, y| x.1.log2().abs().total_cmp(&y.1.log2().abs()))
            .unwrap_or(("none", f64::NAN))
    }
    /// Which term of Eqs. 18-19 sets ITMLP: `MWP_peak_bw` (the bandwidth bound of Eq. 18),
    /// else `MLP x` the one of `CWP - 1`, `MWP_without_BW`, `MWP_peak_bw` or `N` that sets
    /// MWP_cp (Eq. 19), or `1` (the floor).
    pub fn itmlp_binding(&self) -> &'static str {
        let [mlp, cwp, nobw, peak, mwp, mwp_cp] = self.itmlp_inputs;
        if mlp * mwp_cp < 1.0 && peak >= 1.0 {
            "1"
        } else if mlp * mwp_cp >= peak {
            "MWP_peak_bw"
        } else if (cwp - 1.0).max(1.0) <= mwp {
            "MLP x (CWP - 1)"
        } else if nobw <= peak && nobw <= self.shape[2] as f64 {
            "MLP x MWP_without_BW"
        } else if peak <= self.shape[2] as f64 {
            "MLP x MWP_peak_bw"
        } else {
            "MLP x N"
        }
    }
}

/// [`Decomp`] of one case under `ours` (trained coefficients); `None` for a skipped case
/// or one whose simulator measured no load latency.
pub fn decompose(m: &Model, r: &CaseResult, coefs: Option<&Coefs>, cfg: &Config) -> Option<Decomp> {
    if r.skipped.is_some() || r.sim.loads.0 == 0 || r.truth <= 0.0 {
        return None;
    }
    let target = target_of(m, r.case)?;
    let pr = m.predict(&target, Flags::ours(), coefs).ok()?;
    let ns = m
        .predict(
            &target,
            Flags {
                hit_lat_all: false,
                ..Flags::ours()
            },
            coefs,
        )
        .ok()?;
    let p = &m.profile;
    let k = p.scale();
    let clock = cfg.system.sm_clock_ghz;
    let sms = f64::from(p.active_sms.max(1));
    let requests = pr.events.req.iter().sum::<u64>() as f64 * k;
    let amat_sim = r.sim.loads.1 as f64 / 1e3 * clock / r.sim.loads.0 as f64;
    let lat_sim = match r.sim.rows {
        Some((_, lat)) if lat > 0.0 => {
            lat * clock + 2.0 * f64::from(cfg.noc.xbar_latency) + m.hw.hit_lat
        }
        _ => f64::NAN,
    };
    let dram_part = pr.dram.lat * pr.miss_ratio;
    let shmem_part = m.hw.shmem_lat * pr.shmem_ratio;
    let itmlp_of = |f: Flags| m.predict(&target, f, coefs).map(|q| q.itmlp).ok();
    let side = itmlp_of(Flags {
        dram_side_lat: true,
        ..Flags::ours()
    })?;
    let bw_dram = itmlp_of(Flags {
        mwp_bw_dram: true,
        ..Flags::ours()
    })?;
    let dram_bytes =
        (r.sim.dram_rw[0] + r.sim.dram_rw[1]) as f64 * f64::from(cfg.system.line_bytes);
    Some(Decomp {
        truth: r.truth,
        total: pr.total,
        t: [pr.t_comp, pr.t_mem, pr.t_overlap, pr.t_init],
        issue_bound: r.sim.issued as f64 / (sms * f64::from(cfg.sm.issue_width.max(1))),
        amat: [pr.amat, amat_sim],
        amat_nonshared: ns.amat,
        amat_parts: [pr.amat - dram_part - shmem_part, dram_part, shmem_part],
        dram_lat: [pr.dram.lat, pr.dram.queuing, lat_sim],
        itmlp: [pr.itmlp, requests * amat_sim / (sms * r.truth)],
        requests,
        shape: [
            p.launches,
            u64::from(p.active_sms),
            u64::from(p.warps_per_sm),
        ],
        itmlp_inputs: [p.mlp, pr.cwp, pr.mwp_nobw, pr.mwp_peak, pr.mwp, pr.mwp_cp],
        itmlp_readings: [side, bw_dram],
        outstanding_sim: r.sim.loads.1 as f64 / 1e3 * clock / (sms * r.truth),
        // bytes per cycle over the peak's bytes per cycle
        dram_util_sim: dram_bytes / r.truth / (m.hw.mem_peak_gbs / clock),
    })
}

/// Row hits, misses and conflicts of a simulator DRAM trace (arrival ps, channel,
/// channel-local address) in its arrival order, through the model's open-page FSM with the
/// bank and row bits of `map` applied to the channel-local address (as
/// [`locus_model::dram::BitMapping::bank`] does after its modulo channel step).
pub fn rows_of_trace(trace: &[(u64, u32, u64)], map: &locus_model::dram::BitMapping) -> [u64; 3] {
    let mut open: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    let mut n = [0u64; 3];
    for &(_, ch, local) in trace {
        let k = match open.insert((ch, local & map.bank_mask()), local & map.row_mask) {
            None => 1,
            Some(r) if r == local & map.row_mask => 0,
            Some(_) => 2,
        };
        n[k] += 1;
    }
    n
}

/// Row hits, misses and conflicts of the model's own sample DRAM stream (its merged order),
/// with the machine's first-touch frames or (`virtual_addrs`) on the profile's addresses.
pub fn rows_of_model_order(m: &Model, virtual_addrs: bool) -> [u64; 3] {
    use locus_model::dram::{row_events, BankDist, RowEvent};
    let mut ev = Vec::new();
    let virt;
    let stream = if virtual_addrs {
        let mem = MemCfg {
            first_touch_page: 0,
            ..m.hw.mem.clone()
        };
        virt = locus_model::memsim::run(&m.profile, &m.profile.sample_placement(), &mem);
        &virt.dram
    } else {
        &m.sample_events().dram
    };
    row_events(stream, &m.hw.mapping, BankDist::Mapped, &mut ev);
    let mut n = [0u64; 3];
    for (_, e) in ev {
        n[match e {
            RowEvent::Hit => 0,
            RowEvent::Miss => 1,
            RowEvent::Conflict => 2,
        }] += 1;
    }
    n
}

/// Spearman's rank correlation of two equally long series (ties get their mean rank).
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    fn ranks(v: &[f64]) -> Vec<f64> {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
                j += 1;
            }
            let mean = (i + j) as f64 / 2.0 + 1.0;
            for &k in &idx[i..=j] {
                r[k] = mean;
            }
            i = j + 1;
        }
        r
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let ma = ra.iter().sum::<f64>() / n;
    let mb = rb.iter().sum::<f64>() / n;
    let (mut num, mut da, mut db) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        num += (x - ma) * (y - mb);
        da += (x - ma) * (x - ma);
        db += (y - mb) * (y - mb);
    }
    if da == 0.0 || db == 0.0 {
        return f64::NAN;
    }
    num / (da * db).sqrt()
}

/// Cosine similarity of two non-negative vectors (spec §5.2, Table I).
pub fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        f64::NAN
    } else {
        dot / (na * nb)
    }
}

/// The workload parameter that moves shared array `array` of `workload` to `to`: a kernel
/// model's `<array>_space` parameter (the array's name in lower case; its value `global`),
/// which only moves shared arrays to global memory (SHOC fft's `smem_space`, reduction's
/// `sdata_space`, sort's `sblockoffsets_space`).
pub fn shared_move_param(workload: &str, array: &str, to: Place) -> Option<&'static str> {
    if to != Place::Global {
        return None;
    }
    let spec = locus_workload::registry::find(workload)?;
    let name = format!("{}_space", array.to_ascii_lowercase());
    spec.params.iter().find(|p| p.name == name).map(|p| p.name)
}

/// A placement as the simulator runs it: `--place` pairs (object, space) and workload
/// parameters (`name=value`).
pub type SimPlacement = (Vec<(String, String)>, Vec<String>);

/// How the simulator realises `target` (a model placement) from the sample: `--place`
/// pairs for the moved off-chip objects and `<param>=global` workload parameters for the
/// shared arrays moved to global memory ([`shared_move_param`]); any other move of a
/// shared array cannot be simulated (error).
pub fn place_pairs(
    workload: &str,
    p: &locus_model::Profile,
    target: &[Place],
) -> Result<SimPlacement> {
    let (mut place, mut params) = (Vec::new(), Vec::new());
    for (o, &t) in p.objects.iter().zip(target) {
        if o.place == t {
            continue;
        }
        if o.place == Place::Shared {
            let Some(param) = shared_move_param(workload, &o.name, t) else {
                bail!(
                    "`{}` is in the block's shared memory, no data object of the simulator, and no workload parameter moves it to {}",
                    o.name,
                    t.name()
                );
            };
            params.push(format!("{param}=global"));
            continue;
        }
        place.push((o.name.clone(), t.name().to_string()));
    }
    Ok((place, params))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spearman: identical order 1, reversed -1; cosine of parallel vectors 1.
    #[test]
    fn rank_and_cosine_closed_forms() {
        let a = [1.0, 2.0, 3.0, 4.0];
        assert!((spearman(&a, &[10.0, 20.0, 30.0, 40.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&a, &[4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        // one swap of four: 1 - 6*2/(4*15) = 0.8
        assert!((spearman(&a, &[1.0, 3.0, 2.0, 4.0]) - 0.8).abs() < 1e-12);
        assert!((cosine(&a, &[2.0, 4.0, 6.0, 8.0]) - 1.0).abs() < 1e-12);
        assert!(cosine(&[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-12);
    }

    /// The model on `k80` follows the preset, not the K80 constants: SMs, clock, the six
    /// modulo channels in its mapping, Algorithm 1's row latencies ordered hit < miss <
    /// conflict; and a changed preset key changes the model.
    #[test]
    fn hw_follows_the_preset() {
        let cfg = locus_sim::preset::load(Some("k80"), None, &[]).unwrap();
        let hw = hw_for(&cfg);
        assert_eq!(hw.sms, cfg.system.sms_per_node);
        assert_eq!(hw.mapping.chan_mod, 6);
        assert_eq!(hw.banks, 6 * cfg.dram.banks);
        let [h, m, c] = hw.row_lat_ns;
        assert!(h < m && m < c, "{h} {m} {c}");
        assert_eq!(hw.mem.l2_bytes, cfg.l2.bytes_per_node);
        let cfg2 = locus_sim::preset::load(
            Some("k80"),
            None,
            &[
                "system.sm_clock_ghz=0.562".into(),
                "dram.trcd_ns=30.0".into(),
            ],
        )
        .unwrap();
        let hw2 = hw_for(&cfg2);
        assert_eq!(hw2.clock_ghz, 0.562);
        assert!(
            hw2.row_lat_ns[1] > m,
            "a slower tRCD lengthens the row miss"
        );
    }

    /// Every Table IV case's objects name a workload object (or are listed as not
    /// expressible by `realise`): the alias table has no hole.
    #[test]
    fn every_case_object_has_an_alias() {
        for c in train::TRAINING.iter().chain(train::TEST) {
            assert!(bench(c.workload).is_some() || c.workload == "shoc-qtc");
            for (o, _, _) in c.moves {
                assert!(
                    !object_alias(c.workload, o).is_empty(),
                    "{} {o}",
                    c.workload
                );
            }
        }
    }
}
