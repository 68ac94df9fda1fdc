//! The HMS performance model (spec §3): `T = T_comp + T_mem - T_overlap` (Eq. 1) for a
//! target placement from one profiled sample. T_comp from issued instructions (Eqs. 2-3,
//! 13-16), T_mem from AMAT with the queuing DRAM latency (Eqs. 4-10, 17-19), T_overlap by
//! the regression of Eq. 11-12 or Sim et al.'s CWP/MWP rule. Every technique of the
//! paper's ablations (§6.4) is a [`Flags`] switch.

use crate::dram::{dram_latency_occ, BankDist, BitMapping, DramLat, Kingman};
use crate::memsim::{self, Events, MemCfg};
use crate::profile::Profile;
use crate::space::Place;
use crate::train::{Coefs, Eq11Form};
use serde::{Deserialize, Serialize};

/// What the memory pass of one launch starts from when a kernel launched several times is
/// predicted launch by launch ([`Flags::per_launch`]; issue 12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LaunchCaches {
    /// The spec's reading (the default): one cache pass over the merged trace (§3.7 "the
    /// trace must be merged into one global order so that the L2 ... is meaningful";
    /// §3.8 runs `run_caches_and_banks` once per trace), so every cache, L2, texture and
    /// constant, and the first-touch frames carry from a launch to the next.
    #[default]
    Carry,
    /// The simulated k80's kernel boundary: the L2 and the frames carry, the texture and
    /// constant caches are invalidated at every launch (the simulator's
    /// `spaces_launch`). Shown as `ours+launch-tex-flush`.
    CarryL2,
    /// Every launch's pass starts cold, caches and frames (the reproduction before this
    /// change). Shown as `ours+launch-cold`.
    Cold,
}

/// Machine parameters (spec §2.4 K80 defaults \[D\]; every one configurable).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hw {
    /// SMs (`#active_SMs` upper bound).
    pub sms: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// `SIMD_width` of Eq. 15 (4 schedulers x 32 on Kepler).
    pub simd_width: u32,
    /// `avg_inst_lat` (cycles; FP latency as in \[7\]).
    pub avg_inst_lat: f64,
    /// Resident warps per SM at most (`N_max`).
    pub max_warps_per_sm: u32,
    /// Resident blocks per SM at most.
    pub max_blocks_per_sm: u32,
    /// Resident threads per SM at most, 32-bit registers and shared memory (bytes) per
    /// SM: with the blocks and warps above, the occupancy calculator that sets `N`
    /// (§7 #18 \[D\]: recomputed when a placement changes a block's shared memory).
    pub max_threads_per_sm: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// Shared memory per SM (bytes).
    pub smem_per_sm: u32,
    /// Core clock (GHz) converting ns to cycles.
    pub clock_ghz: f64,
    /// `hit_lat` (cycles), the L2 latency used for every cache (§3.3.1).
    pub hit_lat: f64,
    /// `shmem_lat` (cycles).
    pub shmem_lat: f64,
    /// Row-buffer hit, miss (closed bank) and conflict latencies (ns), §2.3.
    pub row_lat_ns: [f64; 3],
    /// Bank occupancy per row outcome (ns): the queues' service time when non-zero (read
    /// from the DRAM timing of a simulator preset); zero: the latencies serve (the paper).
    #[serde(default)]
    pub row_occ_ns: [f64; 3],
    /// Peak DRAM bandwidth (GB/s).
    pub mem_peak_gbs: f64,
    /// Banks of the machine (M x B) for the even-distribution ablation.
    pub banks: u32,
    /// Address mapping (row / column bits; the rest is the bank ID).
    pub mapping: BitMapping,
    /// Departure delay Δ between two memory requests of one SM (cycles, \[6\]).
    pub departure_delay: f64,
    /// Γ of \[7\]'s F_sync (`F_sync = Γ x DRAM_lat x #mem/#insts` per block barrier). The
    /// spec's Γ = 64 per warp barrier made barrier-heavy kernels (matmul) cost 1000x their
    /// time on the simulator; 1 per block barrier is the default \[D\].
    pub gamma_sync: f64,
    /// SFU lanes per SM (\[7\]'s O_SFU).
    pub sfu_width: u32,
    /// Utilisation clamp of the bank queues (§3.3.4).
    pub rho_max: f64,
    /// Shared memory per block at most (bytes).
    pub smem_per_block: u64,
    /// Constant memory (bytes).
    pub const_bytes: u64,
    /// Elements of a 1-D texture at most.
    pub tex1d_max_elems: u64,
    /// Width and height of a 2-D texture at most.
    pub tex2d_max_dim: u64,
    /// Cache and bank geometry.
    pub mem: MemCfg,
}

impl Default for Hw {
    /// Tesla K80, one GK210 (spec §2.4), at the 875 MHz boost clock.
    fn default() -> Self {
        Hw {
            sms: 13,
            warp_size: 32,
            simd_width: 128,
            avg_inst_lat: 9.0,
            max_warps_per_sm: 64,
            max_blocks_per_sm: 16,
            max_threads_per_sm: 2048,
            registers_per_sm: 131072,
            smem_per_sm: 114688,
            clock_ghz: 0.875,
            hit_lat: 215.0,
            shmem_lat: 47.0,
            row_lat_ns: [352.0, 742.0, 1008.0],
            row_occ_ns: [0.0; 3],
            mem_peak_gbs: 240.0,
            banks: 96,
            mapping: BitMapping::k80(),
            departure_delay: 4.0,
            gamma_sync: 1.0,
            sfu_width: 32,
            rho_max: 0.95,
            smem_per_block: 48 << 10,
            const_bytes: 64 << 10,
            tex1d_max_elems: 1 << 27,
            tex2d_max_dim: 65536,
            mem: MemCfg::default(),
        }
    }
}

/// How T_overlap is obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OverlapModel {
    /// Eq. 11-12 with trained coefficients (Sim et al.'s rule when none are given).
    Regression,
    /// Sim et al. \[7\]: `min(T_comp (N - ζ)/N, T_mem)`.
    SimCwpMwp,
}

/// The model's techniques as switches (spec §6.4 ablations, §7 variants).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flags {
    /// Issued-instruction counting: replays (1)-(4) and addressing deltas (§3.2.2-4). Off:
    /// the sample's executed instructions, as \[6\]\[7\].
    pub instr_counting: bool,
    /// Per-bank G/G/1 queues (§3.3.4). Off: a constant DRAM latency (the row-miss latency).
    pub queuing: bool,
    /// Banks from the detected address mapping. Off: requests spread round-robin.
    pub address_mapping: bool,
    /// T_overlap model.
    pub overlap: OverlapModel,
    /// Kingman variant.
    pub kingman: Kingman,
    /// Eq. 5 literal (`hit_lat` for every request); off: `(1 - shmem_ratio) hit_lat`.
    pub hit_lat_all: bool,
    /// A replay costs one issue slot (`warp_size / SIMD_width` cycles of its SM) instead of
    /// an instruction's `avg_inst_lat / ITILP` (Eq. 2 as printed charges every issued
    /// instruction, replays included, the dependent-instruction latency). Off by default
    /// (the paper's literal Eq. 2); the reproduction reports both. Measured reason:
    /// neuralnet's weights in constant memory add 30,786 replays; the simulator issues
    /// them back to back (time +4 %) while Eq. 2 with one warp per SM charges each 9 cycles.
    #[serde(default)]
    pub replay_issue_cost: bool,
    /// Clamp the regression's T_overlap to `[0, T_mem]` (a reading in the spirit of spec
    /// §3.4 \[D\], which clamps to `[0, min(T_comp, T_mem)]`). Off by default: the paper's
    /// literal Eq. 12, `T_overlap = T_overlap_ratio × T_mem` with nothing clamped (§III-D);
    /// the reproduction reports both (`ours` and `ours+overlap-clamp`). Sim et al.'s rule
    /// is bounded by its own form (`min(T_comp F_overlap, T_mem)`) either way.
    #[serde(default)]
    pub overlap_clamp: bool,
    /// \[6\]'s uncoalesced departure delay in MWP: `MWP_without_BW = DRAM_lat / (Δ x
    /// transactions per request)`. Off by default: spec §3.3.1's reconstruction of \[6\]/\[7\]
    /// for Eqs. 18-19, `MWP_without_BW = DRAM_lat / Δ` (the transactions already count in
    /// the requests of Eq. 17). Measured reason it is not the default (issue 12): with it,
    /// an uncoalesced kernel (transpose, 32 lines per request) gets ITMLP near 1, its T_mem
    /// several times the simulated time, and the regression must hide the excess.
    #[serde(default)]
    pub mwp_uncoalesced: bool,
    /// Clamp the regression's T_overlap to `[0, min(T_comp, T_mem)]`, spec §3.4 \[D\] and
    /// §3.8's pseudo-code (`clamp(ratio * T_mem, 0, min(T_comp, T_mem))`). Off by
    /// default: the paper's literal Eq. 12 (§III-D) clamps nothing; the reproduction shows
    /// it beside `ours` as `ours+spec-clamp` (issue 12). Takes precedence over
    /// [`Flags::overlap_clamp`].
    #[serde(default)]
    pub overlap_clamp_spec: bool,
    /// Which parameters Eq. 11 fits (spec §3.4, §7 #14): the minimum-norm OLS with the
    /// intercept by default (the request shares sum to 1, so that design is
    /// rank-deficient); the named variants drop the intercept or `S_req`.
    #[serde(default)]
    pub eq11: Eq11Form,
    /// Predict a kernel launched several times launch by launch, each with its own
    /// launch configuration (`#active_SMs`, `N`, `#total_warps`: spec §3.7 gives the
    /// model one launch configuration), and sum the times (issue 12). Off: the launches
    /// merged into one profile, `#active_SMs` and `N` the largest over the launches (the
    /// reproduction before issue 12, shown as `ours+merged-launches`).
    #[serde(default)]
    pub per_launch: bool,
    /// With [`Flags::per_launch`]: the cache state each launch's memory pass starts from.
    #[serde(default)]
    pub launch_caches: LaunchCaches,
    /// Take the row latencies as the DRAM side only: Algorithm 1's latencies minus
    /// `hit_lat` (the SM-to-L2 path and the L2 lookup every load pays, hit or miss). Off by
    /// default: §III-C2's Algorithm 1 times a thread's uncached load (`ld.global.cs`), so
    /// its latencies (the K80's 352 / 742 / 1008 ns) are whole load latencies from the SM,
    /// and Eq. 5, Eqs. 6-8 and MWP (Eqs. 18-19) take them as measured. Shown as
    /// `ours+dram-side-lat` (the reproduction before issue 12's ITMLP audit measured the
    /// DRAM side only).
    #[serde(default)]
    pub dram_side_lat: bool,
    /// `MWP_peak_bw` with the bytes a warp request takes from DRAM: `BW_per_warp = freq x
    /// miss_ratio x bytes_per_request / DRAM_lat` (requests served by the caches or shared
    /// memory use no DRAM bandwidth). Off by default: spec §3.3.1's reconstruction of
    /// \[6\]/\[7\], every request `bytes_per_request` of DRAM traffic. Shown as
    /// `ours+mwp-bw-dram`.
    #[serde(default)]
    pub mwp_bw_dram: bool,
    /// Eqs. 6-8 without Eq. 9's queuing delay (each bank's latency its row outcomes'
    /// service time only). Off by default (the paper's Kingman queues). Shown as
    /// `ours+no-queue-delay`.
    #[serde(default)]
    pub no_queue_delay: bool,
}

impl Flags {
    /// The paper's full model.
    pub fn ours() -> Flags {
        Flags {
            instr_counting: true,
            queuing: true,
            address_mapping: true,
            overlap: OverlapModel::Regression,
            kingman: Kingman::Standard,
            hit_lat_all: true,
            replay_issue_cost: false,
            overlap_clamp: false,
            mwp_uncoalesced: false,
            overlap_clamp_spec: false,
            eq11: Eq11Form::MinNorm,
            per_launch: true,
            launch_caches: LaunchCaches::Carry,
            dram_side_lat: false,
            mwp_bw_dram: false,
            no_queue_delay: false,
        }
    }
    /// `ours` with [`Flags::overlap_clamp_spec`] (the spec's \[D\] clamp, not the paper's
    /// Eq. 12).
    pub fn ours_spec_clamp() -> Flags {
        Flags {
            overlap_clamp_spec: true,
            ..Flags::ours()
        }
    }
    /// `ours` with [`Flags::mwp_uncoalesced`] (a named reading, not the spec's MWP).
    pub fn ours_mwp_uncoalesced() -> Flags {
        Flags {
            mwp_uncoalesced: true,
            ..Flags::ours()
        }
    }
    /// `ours` with [`Flags::overlap_clamp`] (a named reading, not the paper's Eq. 12).
    pub fn ours_overlap_clamp() -> Flags {
        Flags {
            overlap_clamp: true,
            ..Flags::ours()
        }
    }
    /// `ours` with [`Flags::hit_lat_all`] off: Eq. 5 charges `hit_lat` to the non-shared
    /// requests only, `(1 - shmem_ratio) hit_lat` (spec §3.3.1 and §7 #9: a named variant;
    /// the literal Eq. 5, `hit_lat` on every request, stays the default).
    pub fn ours_shmem_no_hit() -> Flags {
        Flags {
            hit_lat_all: false,
            ..Flags::ours()
        }
    }
    /// `ours` with [`Flags::replay_issue_cost`] (a named reading, not the paper's).
    pub fn ours_replay_issue() -> Flags {
        Flags {
            replay_issue_cost: true,
            ..Flags::ours()
        }
    }
    /// Sim et al. \[7\]: executed instructions, constant DRAM latency, CWP/MWP overlap.
    pub fn sim_et_al() -> Flags {
        Flags {
            instr_counting: false,
            queuing: false,
            address_mapping: false,
            overlap: OverlapModel::SimCwpMwp,
            ..Flags::ours()
        }
    }
    /// The ablations' Baseline: no instruction counting, no queuing, even banks, Eq. 11.
    pub fn baseline() -> Flags {
        Flags {
            instr_counting: false,
            queuing: false,
            address_mapping: false,
            ..Flags::ours()
        }
    }
    /// Every configuration of §6.4 by name, in the paper's order, then the named readings
    /// that are not the paper's (`ours+replay-issue`, `ours+overlap-clamp`, `ours+spec-clamp`, `ours+mwp-uncoalesced`,
    /// `ours+shmem-no-hit`, `ours+dram-side-lat`, `ours+mwp-bw-dram`, `ours+no-queue-delay`,
    /// `ours+merged-launches`, `ours+launch-tex-flush`, `ours+launch-cold`,
    /// `ours+eq11-no-intercept`,
    /// `ours+eq11-no-S_req`).
    pub fn ablations() -> Vec<(&'static str, Flags)> {
        let b = Flags::baseline();
        vec![
            ("baseline", b),
            ("sim-et-al", Flags::sim_et_al()),
            (
                "baseline+instr",
                Flags {
                    instr_counting: true,
                    ..b
                },
            ),
            (
                "baseline+instr+queue-even",
                Flags {
                    instr_counting: true,
                    queuing: true,
                    ..b
                },
            ),
            (
                "baseline+queue-mapped",
                Flags {
                    queuing: true,
                    address_mapping: true,
                    ..b
                },
            ),
            ("ours", Flags::ours()),
            ("ours+replay-issue", Flags::ours_replay_issue()),
            ("ours+overlap-clamp", Flags::ours_overlap_clamp()),
            ("ours+spec-clamp", Flags::ours_spec_clamp()),
            ("ours+mwp-uncoalesced", Flags::ours_mwp_uncoalesced()),
            ("ours+shmem-no-hit", Flags::ours_shmem_no_hit()),
            (
                "ours+dram-side-lat",
                Flags {
                    dram_side_lat: true,
                    ..Flags::ours()
                },
            ),
            (
                "ours+mwp-bw-dram",
                Flags {
                    mwp_bw_dram: true,
                    ..Flags::ours()
                },
            ),
            (
                "ours+no-queue-delay",
                Flags {
                    no_queue_delay: true,
                    ..Flags::ours()
                },
            ),
            (
                "ours+merged-launches",
                Flags {
                    per_launch: false,
                    ..Flags::ours()
                },
            ),
            (
                "ours+launch-tex-flush",
                Flags {
                    launch_caches: LaunchCaches::CarryL2,
                    ..Flags::ours()
                },
            ),
            (
                "ours+launch-cold",
                Flags {
                    launch_caches: LaunchCaches::Cold,
                    ..Flags::ours()
                },
            ),
            (
                "ours+eq11-no-intercept",
                Flags {
                    eq11: Eq11Form::NoIntercept,
                    ..Flags::ours()
                },
            ),
            (
                "ours+eq11-no-S_req",
                Flags {
                    eq11: Eq11Form::DropSharedShare,
                    ..Flags::ours()
                },
            ),
        ]
    }
}

/// The share of the peak DRAM bandwidth a copy into shared memory reaches (η of spec §7
/// #17: `T_init = #blocks × bytes / (Mem_peak_BW × η)`, η = 0.8; the paper says only
/// "copy time based on bandwidth and size", §III-E).
pub const INIT_BW_SHARE: f64 = 0.8;

/// One prediction with its terms (cycles).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Predicted kernel time (cycles).
    pub total: f64,
    /// T_comp (Eq. 2).
    pub t_comp: f64,
    /// T_mem (Eq. 4).
    pub t_mem: f64,
    /// T_overlap (Eq. 12: `ratio × T_mem` as printed with trained coefficients, clamped
    /// to [0, T_mem] under [`Flags::overlap_clamp`]; Sim et al.'s rule otherwise, within
    /// [0, min(T_comp, T_mem)]).
    pub t_overlap: f64,
    /// Shared-memory staging cost (§3.5 \[D\]).
    pub t_init: f64,
    /// `#inst`: issued instructions per warp.
    pub inst_per_warp: f64,
    /// Replays (1)-(4) of the target (whole kernel).
    pub replays: [u64; 4],
    /// Addressing instructions of the target minus the sample's.
    pub d_addr: i64,
    /// AMAT (Eq. 5).
    pub amat: f64,
    /// DRAM latency terms (Eqs. 6-10).
    pub dram: DramLat,
    /// `miss_ratio`, `shmem_ratio` of Eq. 5.
    pub miss_ratio: f64,
    /// Shared share of requests.
    pub shmem_ratio: f64,
    /// CWP, MWP, ITMLP of Eqs. 18-19.
    pub cwp: f64,
    /// MWP.
    pub mwp: f64,
    /// ITMLP.
    pub itmlp: f64,
    /// `MWP_without_BW = DRAM_lat / Δ` (spec §3.3.1).
    #[serde(default)]
    pub mwp_nobw: f64,
    /// `MWP_peak_bw = Mem_peak_BW / (BW_per_warp x #active_SMs)` (spec §3.3.1).
    #[serde(default)]
    pub mwp_peak: f64,
    /// `MWP_cp = min(max(1, CWP - 1), MWP)` (Eq. 19).
    #[serde(default)]
    pub mwp_cp: f64,
    /// Eq. 11 features (§3.4 \[D\]).
    pub features: [f64; 11],
    /// T_overlap ratio used (Eq. 11 or the \[7\] rule's equivalent).
    pub overlap_ratio: f64,
    /// The target's memory events.
    pub events: EventSummary,
}

/// Counts of the target's memory pass (without the DRAM stream).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EventSummary {
    /// Warp-level requests per component.
    pub req: [u64; 5],
    /// Texture, constant and L2 misses.
    pub misses: [u64; 3],
    /// DRAM requests.
    pub dram_requests: u64,
    /// DRAM reads (the rest are write-backs).
    pub dram_reads: u64,
    /// Texture and constant line lookups.
    pub lookups: [u64; 2],
    /// L2 accesses (lines).
    pub l2_access: u64,
    /// L2 write misses (allocated dirty without a DRAM read).
    #[serde(default)]
    pub l2_write_misses: u64,
    /// Issued warp instructions of the whole kernel (`#inst x #warps`, scaled like the
    /// times when the profile is capped).
    pub issued: f64,
}

/// A profiled sample with its own memory pass done once, ready to predict targets.
#[derive(Clone, Debug)]
pub struct Model {
    /// The sample profile.
    pub profile: Profile,
    /// Machine parameters.
    pub hw: Hw,
    sample_ev: Events,
    /// The sample's per-access analysis, done once for every target (issue 12's speed).
    /// Built on first use by a kernel launched several times: its launches' models carry
    /// their own, and this one serves only the merged reading (`ours+merged-launches`).
    digest: std::sync::OnceLock<memsim::Digest>,
    /// Sample time used for arrival times: measured, or the model's own (constant DRAM
    /// latency) estimate when there is no measurement.
    sample_cycles: f64,
    /// One model per launch ([`Profile::split_launches`]; empty with one launch).
    parts: Vec<Model>,
    /// The sample's events per launch with the caches carried
    /// ([`LaunchCaches::Carry`], [`LaunchCaches::CarryL2`]); empty with one launch.
    carried_sample: [Vec<Events>; 2],
}

impl Model {
    /// Prepares the model for `profile` (runs the sample's memory pass).
    pub fn new(profile: Profile, hw: Hw) -> Model {
        let sample = profile.sample_placement();
        let digest = std::sync::OnceLock::new();
        let sample_ev = if profile.launch_shapes.len() > 1 {
            // several launches: the plain pass (the same events; the digest waits for a
            // merged prediction)
            memsim::run(&profile, &sample, &hw.mem)
        } else {
            let d = digest.get_or_init(|| memsim::Digest::new(&profile, &hw.mem));
            memsim::run_digested(&profile, &sample, &hw.mem, d)
        };
        let mut m = Model {
            profile,
            hw,
            sample_ev,
            digest,
            sample_cycles: 0.0,
            parts: Vec::new(),
            carried_sample: [Vec::new(), Vec::new()],
        };
        m.sample_cycles = match &m.profile.measured {
            Some(me) if me.cycles > 0.0 => me.cycles,
            _ => {
                let ev = m.sample_ev.clone();
                let f = Flags {
                    queuing: false,
                    ..Flags::sim_et_al()
                };
                m.terms(&ev, &sample, f, None).total.max(1.0)
            }
        };
        m.parts = m
            .profile
            .split_launches()
            .into_iter()
            .map(|p| Model::new(p, m.hw.clone()))
            .collect();
        let sample = m.profile.sample_placement();
        for (i, mode) in [LaunchCaches::Carry, LaunchCaches::CarryL2]
            .into_iter()
            .enumerate()
        {
            if !m.parts.is_empty() {
                m.carried_sample[i] = m.launch_events(&sample, mode);
            }
        }
        m
    }

    /// The memory pass of every launch for `target` ([`Flags::per_launch`]'s parts), from
    /// the cache state `mode` says; empty with one launch.
    pub fn launch_events(&self, target: &[Place], mode: LaunchCaches) -> Vec<Events> {
        let mut state = memsim::CacheState::new(&self.hw.mem);
        self.parts
            .iter()
            .enumerate()
            .map(|(i, part)| match mode {
                LaunchCaches::Cold => {
                    memsim::run_digested(&part.profile, target, &part.hw.mem, part.digest())
                }
                LaunchCaches::Carry | LaunchCaches::CarryL2 => {
                    if i > 0 && mode == LaunchCaches::CarryL2 {
                        state.invalidate_tex_const();
                    }
                    memsim::run_carried(
                        &part.profile,
                        target,
                        &part.hw.mem,
                        part.digest(),
                        &mut state,
                    )
                }
            })
            .collect()
    }

    /// The per-launch models ([`Flags::per_launch`]); empty with one launch.
    pub fn launch_models(&self) -> &[Model] {
        &self.parts
    }

    /// The sample's per-access digest, built on first use.
    fn digest(&self) -> &memsim::Digest {
        self.digest
            .get_or_init(|| memsim::Digest::new(&self.profile, &self.hw.mem))
    }

    /// The sample's events.
    pub fn sample_events(&self) -> &Events {
        &self.sample_ev
    }

    /// Predicts `target` (a component per object of the profile). Checks legality first.
    pub fn predict(
        &self,
        target: &[Place],
        flags: Flags,
        coefs: Option<&Coefs>,
    ) -> Result<Prediction, String> {
        crate::search::legal(&self.profile, target, &self.hw)?;
        if flags.per_launch && !self.parts.is_empty() {
            return Ok(self.predict_launches(target, flags, coefs));
        }
        let ev = memsim::run_digested(&self.profile, target, &self.hw.mem, self.digest());
        Ok(self.terms(&ev, target, flags, coefs))
    }

    /// [`Flags::per_launch`]: each launch predicted on its own, the times summed
    /// (launches a capped profile did not record stand in proportion to their blocks).
    /// Counts are the launches' sums; rates and latencies their means weighted by the
    /// requests they apply to (AMAT by memory requests, DRAM latencies by DRAM requests),
    /// the concurrency terms and features by T_mem, so `overlap_ratio` is
    /// `sum T_overlap / sum T_mem`.
    fn predict_launches(
        &self,
        target: &[Place],
        flags: Flags,
        coefs: Option<&Coefs>,
    ) -> Prediction {
        let evs = self.launch_events(target, flags.launch_caches);
        let qs: Vec<Prediction> = self
            .parts
            .iter()
            .zip(&evs)
            .enumerate()
            .map(|(i, (part, ev))| {
                let se = match flags.launch_caches {
                    LaunchCaches::Cold => &part.sample_ev,
                    LaunchCaches::Carry => &self.carried_sample[0][i],
                    LaunchCaches::CarryL2 => &self.carried_sample[1][i],
                };
                part.terms_with(ev, se, flags, coefs)
            })
            .collect();
        let recorded: u64 = self.parts.iter().map(|p| p.profile.blocks_total).sum();
        let k = (self.profile.blocks_total as f64 / recorded.max(1) as f64).max(1.0);
        let mut pr = Prediction::default();
        let (mut wreq, mut wdram, mut wmem) = (0.0, 0.0, 0.0);
        for q in &qs {
            pr.t_comp += q.t_comp * k;
            pr.t_mem += q.t_mem * k;
            pr.t_overlap += q.t_overlap * k;
            pr.t_init += q.t_init * k;
            for i in 0..4 {
                pr.replays[i] += q.replays[i];
            }
            pr.d_addr += q.d_addr;
            let e = &mut pr.events;
            for i in 0..5 {
                e.req[i] += q.events.req[i];
            }
            for i in 0..3 {
                e.misses[i] += q.events.misses[i];
                pr.dram.rows[i] += q.dram.rows[i];
            }
            for i in 0..2 {
                e.lookups[i] += q.events.lookups[i];
            }
            e.dram_requests += q.events.dram_requests;
            e.dram_reads += q.events.dram_reads;
            e.l2_access += q.events.l2_access;
            e.l2_write_misses += q.events.l2_write_misses;
            e.issued += q.events.issued * k;
            let r = q.events.req.iter().sum::<u64>() as f64;
            let d = q.events.dram_requests as f64;
            let m = q.t_mem;
            wreq += r;
            wdram += d;
            wmem += m;
            pr.amat += q.amat * r;
            pr.dram.lat += q.dram.lat * d;
            pr.dram.service += q.dram.service * d;
            pr.dram.queuing += q.dram.queuing * d;
            pr.dram.c_a += q.dram.c_a * d;
            pr.dram.banks = pr.dram.banks.max(q.dram.banks);
            pr.dram.saturated += q.dram.saturated;
            pr.cwp += q.cwp * m;
            pr.mwp += q.mwp * m;
            pr.itmlp += q.itmlp * m;
            pr.mwp_nobw += q.mwp_nobw * m;
            pr.mwp_peak += q.mwp_peak * m;
            pr.mwp_cp += q.mwp_cp * m;
            for i in 0..11 {
                pr.features[i] += q.features[i] * m;
            }
        }
        let div = |x: &mut f64, w: f64| *x = if w > 0.0 { *x / w } else { 0.0 };
        div(&mut pr.amat, wreq);
        for x in [
            &mut pr.dram.lat,
            &mut pr.dram.service,
            &mut pr.dram.queuing,
            &mut pr.dram.c_a,
        ] {
            div(x, wdram);
        }
        for x in [
            &mut pr.cwp,
            &mut pr.mwp,
            &mut pr.itmlp,
            &mut pr.mwp_nobw,
            &mut pr.mwp_peak,
            &mut pr.mwp_cp,
        ] {
            div(x, wmem);
        }
        for x in &mut pr.features {
            div(x, wmem);
        }
        let total_req = wreq.max(1.0);
        pr.miss_ratio = wdram / total_req;
        pr.shmem_ratio = pr.events.req[Place::Shared as usize] as f64 / total_req;
        pr.overlap_ratio = if pr.t_mem > 0.0 {
            pr.t_overlap / pr.t_mem
        } else {
            0.0
        };
        pr.inst_per_warp = pr.events.issued / self.profile.total_warps.max(1) as f64 / k;
        pr.total = pr.t_comp + pr.t_mem - pr.t_overlap + pr.t_init;
        pr
    }

    fn terms(&self, ev: &Events, _target: &[Place], f: Flags, coefs: Option<&Coefs>) -> Prediction {
        self.terms_with(ev, &self.sample_ev, f, coefs)
    }

    /// Eqs. 1-19 for the target's events `ev` against the sample's events `se` (the
    /// sample's own pass, from the same cache state as the target's).
    fn terms_with(&self, ev: &Events, se: &Events, f: Flags, coefs: Option<&Coefs>) -> Prediction {
        let p = &self.profile;
        let hw = &self.hw;
        let w = p.total_warps.max(1) as f64;
        let s = f64::from(p.active_sms.max(1));
        // N under the target: a placement that changes a block's shared memory changes
        // the occupancy (§7 #18 [D])
        let n = f64::from(p.warps_per_sm_with(ev.smem_delta).max(1));
        let executed = p.inst_executed() as f64;
        // ---- T_comp (Eqs. 2-3, 13-16) ----
        let rep_model_s = se.replays_total() as f64;
        // Eq. 3's measured replays on the base of every other count here, the recorded
        // blocks: the simulator measured the whole kernel, and T_comp is scaled from the
        // recorded blocks to the whole kernel once, below (`k`). (Until session 34 a capped
        // profile took the whole kernel's replays and scaled them again.)
        let rep_meas_s = p.measured.as_ref().map_or(rep_model_s, |m| {
            m.inst_issued.saturating_sub(m.inst_executed) as f64 / p.scale()
        });
        let d_addr = ev.addr_insts as i64 - se.addr_insts as i64;
        // without instruction counting (the baseline, Sim et al.) `#inst` is the sample's
        // executed instructions, as in [6][7] (spec §3.2.1: issued instructions are this
        // paper's change); until session 34 the measured replays were added there too
        let replays = if f.instr_counting {
            (rep_meas_s - rep_model_s + ev.replays_total() as f64).max(0.0)
        } else {
            0.0
        };
        // floored at the target's own memory instructions, which no placement removes:
        // §3.2.3's addressing delta (G 2, T 0, C 1, S 1 per access) is literal, so in a
        // kernel with fewer than two integer instructions per global access it removes
        // more than the kernel has (Tango alexnet's executeFirstLayer, both inputs G→T:
        // 1,069,120 executed, Δaddr -1,208,064, 605,696 memory instructions), and the
        // negative count made T_comp negative (a panic in T_overlap's clamp). Found by
        // running `locus model rank` on every workload (session 21); no Table IV case
        // reaches the floor (`repro hms --quick` writes the same files).
        let inst_total = if f.instr_counting {
            executed + d_addr as f64 + replays
        } else {
            executed
        }
        .max(ev.total_req() as f64);
        let inst_per_warp = inst_total / w;
        let issue = f64::from(hw.warp_size) / f64::from(hw.simd_width);
        let itilp = (p.ilp * n).min(hw.avg_inst_lat / issue);
        let eff = hw.avg_inst_lat / itilp;
        let ns = |x: f64| x * hw.clock_ghz;
        // Algorithm 1's latencies are a thread's whole load latency (§III-C2); the named
        // reading `dram_side_lat` takes off the L2 path every load pays (`hit_lat`)
        let side = if f.dram_side_lat { hw.hit_lat } else { 0.0 };
        let row = |i: usize| (ns(hw.row_lat_ns[i]) - side).max(1.0);
        let const_dram = row(1);
        // W_serial from the sample ([7] reconstructed, §3.2.1 [D]), same for every target
        let mem_frac = se.total_req() as f64 / executed.max(1.0);
        // one serialisation per block barrier (all its warps wait together), not per warp [D]
        let barriers = p.count(locus_workload::InstClass::Barrier) as f64
            / f64::from(p.warps_per_block.max(1));
        let o_sync = barriers / s * hw.gamma_sync * const_dram * mem_frac;
        let sfu = p.count(locus_workload::InstClass::Sfu) as f64;
        let f_sfu = (sfu / executed.max(1.0) - f64::from(hw.sfu_width) / f64::from(hw.simd_width))
            .clamp(0.0, 1.0);
        let o_sfu = sfu / s * f64::from(hw.warp_size) / f64::from(hw.sfu_width) * f_sfu;
        // Eq. 16's third term, O_CFdiv (control-flow divergence: the cost of issuing both
        // sides of divergent branches, [7]), is left out: here `#inst` is counted from the
        // traced warps, which issued both sides already (adding it would count them twice)
        let w_serial = o_sync + o_sfu;
        let t_comp = if f.replay_issue_cost {
            (inst_total - replays) / s * eff + replays / s * issue + w_serial
        } else {
            inst_per_warp * w / s * eff + w_serial
        };
        // ---- DRAM latency (Eqs. 6-10) ----
        let ipc = executed * p.scale() / self.sample_cycles.max(1.0);
        let lat = [row(0), row(1), row(2)];
        // arrival times in cycles: each divided by the IPC inside the pass (no copy)
        let (reqs, t_div) = (&ev.dram, ipc.max(1e-9));
        let dist = if f.address_mapping {
            BankDist::Mapped
        } else {
            BankDist::Even { banks: hw.banks }
        };
        let occ = (hw.row_occ_ns.iter().all(|&x| x > 0.0)).then(|| {
            [
                ns(hw.row_occ_ns[0]),
                ns(hw.row_occ_ns[1]),
                ns(hw.row_occ_ns[2]),
            ]
        });
        let mut dram = dram_latency_occ(
            reqs,
            t_div,
            &hw.mapping,
            dist,
            lat,
            occ,
            f.kingman,
            hw.rho_max,
            f.queuing && !f.no_queue_delay,
        );
        let dram_lat = if f.queuing && !reqs.is_empty() {
            dram.lat
        } else {
            const_dram
        };
        if !f.queuing {
            dram.lat = const_dram;
        }
        // ---- T_mem (Eqs. 4-5, 17-19) ----
        let total_req = ev.total_req().max(1) as f64;
        // every DRAM request leaving the L2, read misses and write-backs (spec §3.3.1 [D],
        // §7 #8 and #10); until issue 12 only the reads were counted
        let miss_ratio = ev.dram.len() as f64 / total_req;
        let shmem_ratio = ev.req[Place::Shared as usize] as f64 / total_req;
        let hit = if f.hit_lat_all {
            hw.hit_lat
        } else {
            (1.0 - shmem_ratio) * hw.hit_lat
        };
        let amat = dram_lat * miss_ratio + hit + hw.shmem_lat * shmem_ratio;
        let mem_per_warp = ev.total_req() as f64 / w;
        // MWP_without_BW = DRAM_lat / Δ (spec §3.3.1); [6]'s uncoalesced reading divides
        // by the transactions per request as well (Flags::mwp_uncoalesced)
        let trans = if f.mwp_uncoalesced {
            (ev.l2_access as f64 / total_req).max(1.0)
        } else {
            1.0
        };
        let mwp_nobw = dram_lat / (hw.departure_delay * trans);
        // DRAM bytes per warp request: every request a line ([6]/[7]), or the target's
        // DRAM requests per warp request (`mwp_bw_dram`)
        let per_req = if f.mwp_bw_dram {
            (ev.dram.len() as f64 / total_req).max(1e-6)
        } else {
            1.0
        };
        let mwp_peak = mwp_peak_bw(hw, dram_lat, s, per_req);
        let mwp = mwp_nobw.min(mwp_peak).min(n).max(1.0);
        let comp_cycles = (inst_per_warp * issue).max(1e-9);
        let mem_cycles = mem_per_warp * amat;
        let cwp = ((mem_cycles + comp_cycles) / comp_cycles).min(n);
        let mwp_cp = (cwp - 1.0).max(1.0).min(mwp);
        let itmlp = (p.mlp * mwp_cp).min(mwp_peak).max(1.0);
        let t_mem = mem_per_warp * w / (s * itmlp) * amat;
        // ---- T_overlap (Eqs. 11-12) ----
        let features = overlap_features(ev, &dram, n / f64::from(hw.max_warps_per_sm));
        let sim_ratio = {
            let zeta = if cwp <= mwp { 1.0 } else { 0.0 };
            let fo = (n - zeta) / n;
            (t_comp * fo).min(t_mem) / t_mem.max(1e-9)
        };
        let ratio = match (f.overlap, coefs) {
            (OverlapModel::Regression, Some(c)) => c.ratio(&features),
            _ => sim_ratio,
        };
        // Eq. 12: with trained coefficients the paper's literal `ratio × T_mem` (the named
        // reading `overlap_clamp` bounds it to [0, T_mem]: a kernel whose memory time the
        // CWP/MWP terms overestimate, e.g. one wave of short blocks, may hide all of it);
        // Sim et al.'s rule overlaps at most min(T_comp, T_mem) by its own form
        let t_overlap = match (f.overlap, coefs) {
            (OverlapModel::Regression, Some(_)) if f.overlap_clamp_spec => {
                (ratio * t_mem).clamp(0.0, t_comp.min(t_mem))
            }
            (OverlapModel::Regression, Some(_)) if !f.overlap_clamp => ratio * t_mem,
            (OverlapModel::Regression, Some(_)) => (ratio * t_mem).clamp(0.0, t_mem),
            _ => (ratio * t_mem).clamp(0.0, t_comp.min(t_mem)),
        };
        // §III-E (spec §3.5, §7 #17): the copy into shared memory costs its bytes over
        // every block at `INIT_BW_SHARE` of the chip's peak bandwidth, `#blocks × bytes / (BW × 0.8)`:
        // a time for the whole chip already (not divided among the SMs again, as it was
        // until session 34: 13 times too small on `k80` whenever 13 SMs copied)
        let bytes_per_cycle = hw.mem_peak_gbs / hw.clock_ghz;
        let t_init = ev.staging_bytes as f64 / (bytes_per_cycle * INIT_BW_SHARE);
        // a capped profile: the recorded waves stand for the whole kernel
        let k = p.scale();
        let (t_comp, t_mem, t_overlap, t_init) = (t_comp * k, t_mem * k, t_overlap * k, t_init * k);
        Prediction {
            total: t_comp + t_mem - t_overlap + t_init,
            t_comp,
            t_mem,
            t_overlap,
            t_init,
            inst_per_warp,
            replays: ev.replays,
            d_addr,
            amat,
            dram,
            miss_ratio,
            shmem_ratio,
            cwp,
            mwp,
            itmlp,
            mwp_nobw,
            mwp_peak,
            mwp_cp,
            features,
            overlap_ratio: ratio,
            events: EventSummary {
                req: ev.req,
                misses: [ev.tex_miss, ev.const_miss, ev.l2_miss],
                dram_requests: ev.dram.len() as u64,
                dram_reads: ev.dram.iter().filter(|r| !r.write).count() as u64,
                lookups: [ev.tex_access, ev.const_access],
                l2_access: ev.l2_access,
                l2_write_misses: ev.l2_write_miss,
                issued: inst_total * k,
            },
        }
    }

    /// The regression's training target for this sample measured at `measured` cycles
    /// (§3.4 \[D\]): `y = (T_comp + T_mem - T_measured) / T_mem`, with the features.
    pub fn training_row(
        &self,
        target: &[Place],
        measured: f64,
        flags: Flags,
    ) -> Result<([f64; 11], f64), String> {
        let pr = self.predict(
            target,
            Flags {
                overlap: OverlapModel::SimCwpMwp,
                ..flags
            },
            None,
        )?;
        let y = (pr.t_comp + pr.t_mem + pr.t_init - measured) / pr.t_mem.max(1e-9);
        Ok((pr.features, y))
    }
}

/// `MWP_peak_bw = Mem_peak_BW / (BW_per_warp x #active_SMs)` with `BW_per_warp = freq x
/// bytes_per_request / DRAM_lat` (spec §3.3.1, reconstructed from \[6\]/\[7\] for Eq. 18):
/// the warps per SM whose requests, each `line_fraction` of an L2 line (`hw.mem.l2_line`
/// bytes) of DRAM traffic every `dram_lat` cycles, fill the peak bandwidth. `line_fraction`
/// is 1 in the spec's reading (every request a line); [`Flags::mwp_bw_dram`] passes the
/// DRAM requests per warp request (floored at 1e-6 there: no DRAM traffic, no bound).
pub fn mwp_peak_bw(hw: &Hw, dram_lat: f64, active_sms: f64, line_fraction: f64) -> f64 {
    let bw_per_warp = hw.clock_ghz * f64::from(hw.mem.l2_line) * line_fraction / dram_lat.max(1.0);
    hw.mem_peak_gbs / (bw_per_warp * active_sms.max(1.0))
}

/// Eq. 11 features (§3.4 \[D\]): L2 misses, global requests, constant misses and requests,
/// texture misses and requests, shared bank conflicts and requests, row misses and
/// conflicts, each over all warp-level requests; and `N / N_max`.
pub fn overlap_features(ev: &Events, dram: &DramLat, occupancy: f64) -> [f64; 11] {
    let t = ev.total_req().max(1) as f64;
    let r = |x: u64| x as f64 / t;
    [
        r(ev.l2_miss),
        r(ev.req[Place::Global as usize]),
        r(ev.const_miss),
        r(ev.req[Place::Const as usize]),
        r(ev.tex_miss),
        r(ev.req[Place::Tex1D as usize] + ev.req[Place::Tex2D as usize]),
        r(ev.replays[3]),
        r(ev.req[Place::Shared as usize]),
        r(dram.rows[1]),
        r(dram.rows[2]),
        occupancy,
    ]
}

/// Predicts `target` for `profile` on `hw` (convenience over [`Model`]).
pub fn predict(
    profile: &Profile,
    target: &[Place],
    hw: &Hw,
    flags: Flags,
    coefs: Option<&Coefs>,
) -> Result<Prediction, String> {
    Model::new(profile.clone(), hw.clone()).predict(target, flags, coefs)
}
