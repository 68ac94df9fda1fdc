//! Near-data processing in the memory stacks (Kim et al., SC17; spec `ndp.md`): an NDP SIMD
//! unit (NSU) in the logic layer of every stack, fed by partitioned execution from the GPU.
//!
//! The pieces, one file each, every one usable and tested on its own:
//! - [`packets`]: the packet kinds of §3.7 and their sizes in 16 B FLITs.
//! - [`offload`]: the message flow of one offloaded block instance (§3.2 / Fig. 2, §3.5,
//!   §3.6): which packets the SM, the vaults and the NSU emit, in which order, how large.
//! - [`target`]: the target-NSU rule (the first memory instruction's stack, §3.5) and the
//!   Monte-Carlo of its traffic against the optimal choice (Fig. 5, §6.2).
//! - [`nsu`]: the NSU station (48 warp slots, command / read-data / write-address buffers)
//!   and the GPU's credit manager that reserves its buffers (§3.8: deadlock freedom).
//! - [`hill`]: the dynamic offload ratio, Algorithm 1 (§4.3), a hill climber per epoch.
//! - [`ready`]: the SM's ready packet buffer (64 entries, §3.8) as a bounded stage.
//! - [`select`]: the per-instance decision: static ratio, dynamic ratio and the
//!   cache-locality-aware check (§4.2, §4.4).
//!
//! Status: the machine (`preset ndp-8hmc`) and these stations exist and are tested, and
//! `crate::system`'s `ndp.rs` runs offloaded block instances with them (partitioned
//! execution, §3.5-§3.9; selection, §4): every `ndp.offload` mode works, statistics in
//! [`NdpStats`], Fig. 8's no-issue split in [`NoIssueStats`]. Credits return in packets
//! (on offload acks, or alone after 100 NSU cycles), a full SM pending buffer holds new
//! `OFLD.BEG`s and a full SM ready buffer ([`ready`]) holds the memory instructions of
//! granted instances (§3.8); which Fig. 8 class such a held cycle counts in is
//! `ndp.pending_stall_as` ([`PendingStallAs`]; both splits are in [`NoIssueStats`]). Marked kernel models (Table 1): vectoradd, PolyBench `acc_loop`,
//! km (one feature-loop iteration), scalarprod, fwt, streamcluster (all four blocks),
//! rodinia-bfs (the single indirect loads), backprop (adjust_weights), minife (matvec),
//! parboil-stencil `kernel=naive`; markers in divergent code form instances of the taken
//! lanes. NSU energy and I-cache use: [`NdpStats::gpu_alu_nops`], [`NsuStats::code_bytes`]
//! (`crate::energy` prices them). Open: BFS's "16" block.

pub mod hill;
pub mod nsu;
pub mod offload;
pub mod packets;
pub mod ready;
pub mod select;
pub mod target;
pub mod traffic;

use serde::{Deserialize, Serialize};

/// Which dynamic block instances are offloaded (spec §4.2-§4.4).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum OffloadMode {
    /// No offload: the offload markers have no effect (every preset's default).
    None,
    /// Every instance (NaiveNDP = NDP(1.0), §6.3).
    Naive,
    /// Each instance with probability `ndp.static_ratio` (§4.2, Fig. 9's NDP(r)).
    Static,
    /// Probability from the hill-climbing controller, Algorithm 1 (§4.3, NDP(Dyn)).
    Dyn,
    /// `dyn` plus the cache-locality-aware check per static block (§4.4, NDP(Dyn)_Cache).
    DynCache,
}

impl OffloadMode {
    /// Name as written in TOML.
    pub fn name(self) -> &'static str {
        match self {
            OffloadMode::None => "none",
            OffloadMode::Naive => "naive",
            OffloadMode::Static => "static",
            OffloadMode::Dyn => "dyn",
            OffloadMode::DynCache => "dyn-cache",
        }
    }
}

/// Which of Fig. 8's no-issue classes (spec ndp.md §6.3) a cycle counts in when a warp
/// could not issue only because its SM's pending (300) or ready (64) offload packet buffer
/// was full (§3.8 \[DEFAULT\]: "A full buffer stalls issue of further offload-block memory
/// instructions or `OFLD.BEG` on that SM").
///
/// The paper's literal reading is [`PendingStallAs::ExecUnitBusy`] (the default): its
/// §6.3 defines "ExecUnitBusy" as "when the execution unit was not available" and "Warp
/// idle" as "when a warp does not have a valid instruction to issue due to an empty
/// instruction buffer, no active thread, or synchronization", which under NDP "includes
/// the cycles when warps are blocked while waiting for an acknowledgment packet". A warp
/// held by a full buffer has a valid instruction with its operands ready; what refuses it
/// is the memory pipeline that would take its packets (the paper models the buffers in
/// GPGPU-sim 3.2.0, §5.1, whose `scheduler_unit::cycle` counts a valid instruction with
/// ready operands that does not issue as "pipeline stalled", `shader_cycle_distro[2]`). [`PendingStallAs::WarpIdle`] is the other reading: the held warp is
/// counted as having no issuable instruction, like a warp waiting for its offload ack.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PendingStallAs {
    /// A held warp makes the cycle ExecUnitBusy (literal; the default).
    #[default]
    ExecUnitBusy,
    /// A held warp is a warp without a valid instruction: the cycle is a dependency stall
    /// if another warp waits on an operand, else warp idle (unless a unit was busy).
    WarpIdle,
}

impl PendingStallAs {
    /// Name as written in TOML.
    pub fn name(self) -> &'static str {
        match self {
            PendingStallAs::ExecUnitBusy => "exec-unit-busy",
            PendingStallAs::WarpIdle => "warp-idle",
        }
    }
}

/// Which of the NSU code's offload markers take an NSU issue slot (spec ndp.md §3.4
/// Fig. 3(b), §3.6).
///
/// The paper's literal reading is [`NsuMarkerInsts::BeginAndEnd`] (the default): Fig. 3(b)
/// lists the NSU code as `OFLD.BEG F0; LD F1; MUL F2, F0, F1; ST F2; OFLD.END F2`, and §4.1.2
/// says the spawned warp "fetches from the start PC" whose "first instruction, NSU
/// `OFLD.BEG`, initializes the listed registers", and that `OFLD.END` sends the ack; so a
/// block of Table 1's size `k` (counted without the markers, §5.4) issues `k + 2` NSU
/// instructions. [`NsuMarkerInsts::EndOnly`] is the other reading (Locus before issue 11):
/// the register initialisation is part of the spawn and only `OFLD.END` issues (`k + 1`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NsuMarkerInsts {
    /// `OFLD.BEG` and `OFLD.END` each issue as an NSU instruction (literal; the default).
    #[default]
    BeginAndEnd,
    /// Only `OFLD.END` issues; `OFLD.BEG`'s work is folded into the warp's spawn.
    EndOnly,
}

impl NsuMarkerInsts {
    /// Name as written in TOML.
    pub fn name(self) -> &'static str {
        match self {
            NsuMarkerInsts::BeginAndEnd => "begin-and-end",
            NsuMarkerInsts::EndOnly => "end-only",
        }
    }
}

/// When Algorithm 1's offload-block IPC (spec ndp.md §4.3: "only instructions inside
/// offload blocks, whether offloaded or not", over the epoch's cycles) counts an instance's
/// instructions.
///
/// The paper does not say; spec §7 decision 3 does, and is the default
/// ([`HillIpc::Retire`]): at the instance's `OFLD.END` retirement on the GPU in either mode,
/// the block's GPU-side static instruction count x its active threads. An offloaded
/// instance retires when its warp is at `OFLD.END` and its ack (with every invalidation) is
/// in, so its instructions count when the NSU's work is done. [`HillIpc::Issue`] is the
/// other reading (Locus before session 16): each warp instruction of a block counts once
/// when the GPU issues it, so an offloaded instance's GPU-side instructions (address
/// generation, the `@NSU` NOPs) count as soon as they issue, whether or not its NSU has
/// run it. (Measured on the NDP reproduction: the two readings differ by under a point in
/// the mean speedups; BPROP's slow NDP(Dyn) comes from epochs at IPC 0,
/// `NdpCfg::hill_hold_idle`.)
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HillIpc {
    /// Thread instructions of an instance at its `OFLD.END` retirement (spec §7.3; the
    /// default).
    #[default]
    Retire,
    /// Warp instructions of blocks as the GPU issues them.
    Issue,
}

impl HillIpc {
    /// Name as written in TOML.
    pub fn name(self) -> &'static str {
        match self {
            HillIpc::Retire => "retire",
            HillIpc::Issue => "issue",
        }
    }
}

/// The `[ndp]` section. Values from the paper's Table 2 / §5.2 unless marked \[DEFAULT\]
/// (spec ndp.md's suggestion where the paper is silent).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NdpCfg {
    /// Offload selection (`none` = NDP off).
    pub offload: OffloadMode,
    /// Offload probability of `static` (Fig. 9 sweeps 0.2..1.0; BICG's best is 0.15).
    pub static_ratio: f64,
    /// The node whose SMs offload (the GPU). \[DEFAULT\] 0.
    pub gpu_node: u32,
    /// The nodes that are memory stacks with one NSU each (empty: every node but
    /// `gpu_node`).
    pub stack_nodes: Vec<u32>,
    /// NSU clock, GHz: 0.35 = half the 700 MHz SM clock (§3.11); 0.175 in §7.6.
    pub nsu_clock_ghz: f64,
    /// NSU ALU latency, NSU cycles: after an `@NSU` ALU instruction the warp's next
    /// instruction waits this long (in-order pipeline, [`nsu::Nsu::set_alu_latency`]).
    /// \[DEFAULT\] 0 = derived by spec §7.12's rule, the SM's SP latency (`sm.fp_latency`)
    /// scaled to the NSU clock, `ceil(sm.fp_latency x nsu_clock_ghz / system.sm_clock_ghz)`
    /// (the paper gives no value; [`NdpCfg::alu_latency`]). 1 is the reading without
    /// latency (back-to-back issue, Locus before issue 11's loose ends).
    pub nsu_alu_latency: u32,
    /// Warp slots per NSU (Table 2: 48).
    pub nsu_warps: u32,
    /// Read-data buffer entries per NSU, one warp-load of 128 B each (Table 2: 256).
    pub read_entries: u32,
    /// Write-address buffer entries per NSU (Table 2: 256).
    pub write_entries: u32,
    /// Offload command buffer entries per NSU (Table 2: 10).
    pub cmd_entries: u32,
    /// Pending packet buffer descriptors per SM (Table 2: 300 x 8 B).
    pub pending_entries: u32,
    /// Ready packet buffer descriptors per SM (Table 2: 64 x 8 B; a bounded stage,
    /// [`ready::ReadyBuffer`]).
    pub ready_entries: u32,
    /// NSU instruction cache, bytes (Table 2: 4 KB). Fig. 11's I-cache use is the code of
    /// the static blocks an NSU ran over this size ([`NsuStats::icache_use`]). Statistics
    /// only: fetch misses are not timed (the code is fetched by physical PC from a
    /// physically contiguous region, ndp.md §3.4, and a workload's blocks are a few hundred
    /// bytes).
    pub nsu_icache_bytes: u32,
    /// Bytes per NSU instruction. \[DEFAULT\] 8 (a 64-bit encoding, as Fermi/Kepler SASS:
    /// the paper's NSU ISA is its own and its encoding is not given, ndp.md §3.4).
    pub nsu_inst_bytes: u32,
    /// Fig. 8's class of a cycle in which a warp was held only by a full pending or ready
    /// buffer (§6.3; [`PendingStallAs`]). Statistics only: timing is the same either way,
    /// and both splits are reported.
    pub pending_stall_as: PendingStallAs,
    /// Which NSU offload markers issue as NSU instructions (§3.4 Fig. 3(b);
    /// [`NsuMarkerInsts`]; literal: both).
    pub nsu_marker_insts: NsuMarkerInsts,
    /// FLIT size of the memory network's packets, bytes. \[DEFAULT\] 16 (HMC).
    pub flit_bytes: u32,
    /// Algorithm 1 epoch, SM cycles (§4.3: 30 000).
    pub epoch_cycles: u64,
    /// Algorithm 1 initial offload ratio (0.1).
    pub init_ratio: f64,
    /// Algorithm 1 largest step, also the initial step (0.15; the paper prints the bounds
    /// swapped, spec §4.3).
    pub step_max: f64,
    /// Algorithm 1 smallest step (0.05).
    pub step_min: f64,
    /// Algorithm 1 granularity of step changes (0.05).
    pub step_unit: f64,
    /// Algorithm 1 history window, epochs (4).
    pub window: u32,
    /// When Algorithm 1's IPC counts an instance's instructions ([`HillIpc`]; spec §7.3:
    /// at retirement).
    pub hill_ipc: HillIpc,
    /// Algorithm 1 leaves the ratio, step and history alone in an epoch whose IPC is 0 (no
    /// offload-block instruction counted: a kernel without blocks ran). A reading of ours,
    /// not the paper's, whose Algorithm 1 moves the ratio every epoch and on two equal IPCs
    /// keeps its direction, so the ratio climbs to 0.95 before the first block of a kernel
    /// that follows a block-free one. \[DEFAULT\] false (the paper's).
    pub hill_hold_idle: bool,
    /// Algorithm 1 as printed (ratio moves by `step_unit` inside the printed guard; the
    /// step grows at the minimum) instead of the prose's reading. \[DEFAULT\] false.
    pub literal_algorithm1: bool,
    /// Cache-aware check: the §4.4 benefit exactly as printed, its load term lines x 128 B x
    /// SIMD width (true, the paper's rule and the default), or the spec's unit fix (false:
    /// per-warp bytes, lines x 128 B, ndp.md §4.4 \[DEFAULT\] "unit fix", which says the
    /// printed form overweights loads 32x against stores and makes suppression almost
    /// impossible). The NDP reproduction runs both.
    pub paper_literal_benefit: bool,
    /// Cache-aware check: instances of a block observed before its statistics are used.
    /// \[DEFAULT\] 1.
    pub min_samples: u32,
    /// Seed of the per-SM offload draws. \[DEFAULT\] 1.
    pub seed: u64,
}

impl NdpCfg {
    /// The NSU ALU latency in NSU cycles: `nsu_alu_latency` when not 0, else spec §7.12's
    /// rule, the SM's SP latency `sm_fp_latency` (SM cycles at `sm_clock_ghz`) scaled to
    /// the NSU clock and rounded up (same time in ns): 18 SM cycles at 0.7 GHz give 9 NSU
    /// cycles at 0.35 GHz and 5 at 0.175 GHz.
    pub fn alu_latency(&self, sm_fp_latency: u32, sm_clock_ghz: f64) -> u32 {
        if self.nsu_alu_latency > 0 {
            return self.nsu_alu_latency;
        }
        ((sm_fp_latency as f64 * self.nsu_clock_ghz / sm_clock_ghz - 1e-9).ceil() as u32).max(1)
    }
}

impl Default for NdpCfg {
    fn default() -> Self {
        NdpCfg {
            offload: OffloadMode::None,
            static_ratio: 0.4,
            gpu_node: 0,
            stack_nodes: Vec::new(),
            nsu_clock_ghz: 0.35,
            nsu_alu_latency: 0,
            nsu_warps: 48,
            read_entries: 256,
            write_entries: 256,
            cmd_entries: 10,
            pending_entries: 300,
            ready_entries: 64,
            nsu_icache_bytes: 4096,
            nsu_inst_bytes: 8,
            pending_stall_as: PendingStallAs::ExecUnitBusy,
            nsu_marker_insts: NsuMarkerInsts::BeginAndEnd,
            flit_bytes: 16,
            epoch_cycles: 30_000,
            init_ratio: 0.1,
            step_max: 0.15,
            step_min: 0.05,
            step_unit: 0.05,
            window: 4,
            hill_ipc: HillIpc::Retire,
            hill_hold_idle: false,
            literal_algorithm1: false,
            paper_literal_benefit: true,
            min_samples: 1,
            seed: 1,
        }
    }
}

impl NdpCfg {
    /// The controller parameters of Algorithm 1.
    pub fn hill_params(&self) -> hill::HillParams {
        hill::HillParams {
            init_ratio: self.init_ratio,
            step_max: self.step_max,
            step_min: self.step_min,
            step_unit: self.step_unit,
            window: self.window as usize,
            literal: self.literal_algorithm1,
            hold_idle: self.hill_hold_idle,
        }
    }

    /// Checks the section; every message names its key and the fix.
    pub fn validate(&self, nodes: u32) -> Result<(), String> {
        let unit = |k: &str, v: f64| -> Result<(), String> {
            if v.is_finite() && (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("ndp.{k} = {v}: must be a ratio in 0..=1"))
            }
        };
        unit("static_ratio", self.static_ratio)?;
        unit("init_ratio", self.init_ratio)?;
        unit("step_max", self.step_max)?;
        unit("step_min", self.step_min)?;
        unit("step_unit", self.step_unit)?;
        if self.step_unit <= 0.0 || self.step_min <= 0.0 || self.step_min > self.step_max {
            return Err(format!(
                "ndp.step_min = {}, ndp.step_max = {}, ndp.step_unit = {}: need 0 < step_min <= step_max and step_unit > 0 (paper: 0.05, 0.15, 0.05)",
                self.step_min, self.step_max, self.step_unit
            ));
        }
        if self.window == 0 {
            return Err(
                "ndp.window = 0: the history window needs at least 1 epoch (paper: 4)".into(),
            );
        }
        if self.epoch_cycles == 0 {
            return Err(
                "ndp.epoch_cycles = 0: an epoch needs at least 1 cycle (paper: 30000)".into(),
            );
        }
        // the SM clock's range (a 1e-9 GHz NSU ran 0.3 s of host time per 3,750-cycle
        // vectorAdd, a day on a large workload); at most 10 GHz as before
        crate::config::check_range(
            "ndp.nsu_clock_ghz",
            self.nsu_clock_ghz,
            (crate::config::CLOCK_GHZ.0, 10.0),
            "GHz",
            "e.g. 0.35 (NDP Table 2)",
        )?;
        for (k, v) in [
            ("nsu_warps", self.nsu_warps),
            ("read_entries", self.read_entries),
            ("write_entries", self.write_entries),
            ("cmd_entries", self.cmd_entries),
            ("pending_entries", self.pending_entries),
            ("ready_entries", self.ready_entries),
            ("nsu_icache_bytes", self.nsu_icache_bytes),
            ("nsu_inst_bytes", self.nsu_inst_bytes),
        ] {
            if v == 0 {
                return Err(format!("ndp.{k} = 0: must be at least 1"));
            }
        }
        if self.read_entries < packets::MAX_MEM_INSTS || self.write_entries < packets::MAX_MEM_INSTS
        {
            return Err(format!(
                "ndp.read_entries / ndp.write_entries must be at least {} (one block's loads or stores; paper: 256) or a block could never be granted its credits",
                packets::MAX_MEM_INSTS
            ));
        }
        if self.flit_bytes == 0 || !self.flit_bytes.is_power_of_two() {
            return Err(format!(
                "ndp.flit_bytes = {}: must be a power of two (HMC: 16)",
                self.flit_bytes
            ));
        }
        if self.gpu_node >= nodes {
            return Err(format!(
                "ndp.gpu_node = {}: must be below system.nodes ({nodes})",
                self.gpu_node
            ));
        }
        for (i, &s) in self.stack_nodes.iter().enumerate() {
            if s >= nodes || s == self.gpu_node {
                return Err(format!(
                    "ndp.stack_nodes[{i}] = {s}: must be a node below system.nodes ({nodes}) other than ndp.gpu_node"
                ));
            }
        }
        Ok(())
    }
}

/// Statistics of partitioned execution (ndp.md §3, §4, §6): the `sim.ndp` section of a
/// report, present only when `ndp.offload` is not `none`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct NdpStats {
    /// The selection mode (`ndp.offload`).
    pub offload: String,
    /// Dynamic block instances (warp x `OFLD.BEG`) offloaded to an NSU.
    pub instances_offloaded: u64,
    /// Instances run on the GPU (not chosen, suppressed, or not offloadable).
    pub instances_on_gpu: u64,
    /// Of those, suppressed by the cache-locality-aware check (§4.4).
    pub suppressed_by_cache_check: u64,
    /// Of those, not offloadable (no global load or store, more than 32 memory
    /// instructions, or more loads / stores than the NSU buffers hold).
    pub not_offloadable: u64,
    /// The static offload blocks the run met, as their markers declare them (spec ndp.md
    /// §3.4's `OFLD.BEG` / `OFLD.END` operands), in order of first instance: Table 1's block
    /// sizes (§5.4) set against the kernel models'.
    pub blocks: Vec<StaticBlock>,
    /// Every NDP packet kind: packets, bytes, and bytes on the GPU's off-chip links.
    pub packets: Vec<PacketStats>,
    /// NDP packet bytes on the GPU links (sum of `packets[*].gpu_link_bytes`).
    pub ndp_gpu_link_bytes: u64,
    /// All bytes sent on the GPU links (both directions, every message kind).
    pub gpu_link_bytes: u64,
    /// All bytes sent on every inter-node link (GPU links and the memory network).
    pub off_chip_bytes: u64,
    /// Cache invalidations sent by vaults after NSU writes (§3.9).
    pub invalidations: u64,
    /// Their bytes over `off_chip_bytes` (paper: at most 1.42%, 0.38% on average).
    pub invalidation_share_of_off_chip: f64,
    /// Live-in / live-out registers moved per offloaded thread (paper: 0.41 / 0.47).
    pub live_ins_per_thread: f64,
    pub live_outs_per_thread: f64,
    /// Reservation attempts refused for lack of NSU credits (§3.8; the instance waits
    /// in its stack's FIFO; every retry after a credit return that fails counts again).
    pub credit_denials: u64,
    /// Arrivals that found their NSU buffer full: must be 0 (credits make it impossible).
    pub credit_violations: u64,
    /// Most packets one SM held in its pending buffer (waiting for a reservation).
    pub peak_pending_packets: u32,
    /// `OFLD.BEG` issue attempts held back because the SM's pending buffer was full
    /// (`ndp.pending_entries`; one per warp and cycle).
    pub pending_full_stalls: u64,
    /// Most packets one SM held in its ready buffer at one time (`ndp.ready_entries`).
    pub peak_ready_packets: u32,
    /// Issue attempts of offloaded memory instructions held back because the SM's ready
    /// buffer had no room for their packets (one per warp and attempt).
    pub ready_full_stalls: u64,
    /// Mean NSU warp-slot occupancy over the run (Fig. 11).
    pub nsu_occupancy: f64,
    /// Mean NSU I-cache use over the NSUs (Fig. 11): [`NsuStats::icache_use`].
    pub nsu_icache_use: f64,
    /// `@NSU` ALU instructions of offloaded instances that the GPU issued as NOPs, by the
    /// energy model's class (int, fp, sfu, mem, other: `crate::energy::InstEnergyClass`):
    /// their compute runs on the NSU, so the energy model prices them on the GPU as
    /// issue-only instructions (`inst other`) and on the NSU as `inst nsu`.
    pub gpu_alu_nops: [u64; 5],
    /// Per NSU.
    pub nsus: Vec<NsuStats>,
    /// The offload ratio in force after each hill-climbing epoch (`dyn`, `dyn-cache`).
    pub ratio_per_epoch: Vec<f64>,
    /// Algorithm 1's offload-block IPC measured in each epoch (`ndp.hill_ipc`'s count over
    /// the epoch's SM cycles), the input of the ratio that follows it in
    /// `ratio_per_epoch`.
    pub ipc_per_epoch: Vec<f64>,
    /// Algorithm 1's count of offload-block instructions over the whole run, in
    /// `ndp.hill_ipc`'s unit (`retire`: thread instructions of retired instances; `issue`:
    /// warp instructions issued), counted in every offloading mode.
    pub hill_insts: u64,
    /// Fig. 8's breakdown of the GPU's no-issue cycles (§6.3).
    pub no_issue: NoIssueStats,
    /// Where an offloaded instance's time goes (§3.5-§3.9's message flow, timed).
    pub instance_time: InstanceTime,
}

/// One static offload block of a kernel (spec ndp.md §3.3, §3.4), read from the kernel
/// model's markers at its first instance; `instances` counts them all (warp x block).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct StaticBlock {
    /// The kernel's name.
    pub kernel: String,
    /// The kernel's number in the run (order of first launch, from 0).
    pub kernel_index: u32,
    /// The block's number in the kernel (`Thread::ofld_begin`'s `block`).
    pub block: u32,
    /// Global and texture loads in one instance (RDFs, §3.5).
    pub loads: u32,
    /// Global stores in one instance (WTAs, §3.5).
    pub stores: u32,
    /// Live-in registers per thread (`OFLD.BEG`).
    pub live_ins: u32,
    /// Live-out registers per thread (`OFLD.END`).
    pub live_outs: u32,
    /// NSU instructions of the block's body: Table 1's block size (§5.4), the NSU
    /// `OFLD.BEG` / `OFLD.END` not counted.
    pub nsu_insts: u32,
    /// Times the NSU runs the body per instance (1 unless the block spans a loop).
    pub iters: u32,
    /// Instances met (warp x block), offloaded or not.
    pub instances: u64,
}

/// The timeline of an offloaded block instance (spec ndp.md §3.2's message flow, §3.5,
/// §3.6), as means over the instances completed in the run, in ns: eight consecutive
/// phases from the warp's `OFLD.BEG` to its release after the offload ack and the last
/// invalidation (§3.9), which add up to `total_ns`, and, over the same span, the GPU's
/// own part (the warp issuing the block's address generation and memory instructions up
/// to `OFLD.END`) and the time the warp then waited blocked at `OFLD.END` (§3.5: "the warp
/// blocks until the target NSU's offload ack arrives"). A phase starts when the one
/// before it ends, so an event that came earlier (data in the NSU's buffer before its warp
/// spawned) counts as zero.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct InstanceTime {
    /// Offloaded instances completed (the means' count).
    pub instances: u64,
    /// `OFLD.BEG` to the reservation's grant (the target is known at the first memory
    /// instruction; then the instance may wait for the NSU's credits, §3.8).
    pub to_grant_ns: f64,
    /// Grant to the offload command at the NSU (GPU link and memory network).
    pub command_transit_ns: f64,
    /// The command waiting in the NSU's command buffer for a warp slot (NSU queueing).
    pub command_queue_ns: f64,
    /// Spawned warp to the last of its RDF responses and WTAs at the NSU (the vault reads
    /// and their forwarding, §3.5 Fig. 6(a)).
    pub data_wait_ns: f64,
    /// Then to its last NSU write sent: the NSU issuing the block (one warp instruction
    /// per NSU cycle shared by its warps, §7.12 of the spec).
    pub nsu_issue_ns: f64,
    /// Then to the offload ack sent: the NSU writes' round trip to their vaults (§3.6).
    pub write_ack_ns: f64,
    /// Then to the ack at the GPU.
    pub ack_transit_ns: f64,
    /// Then to the warp's release (the last invalidation of its writes, §3.9).
    pub invalidation_wait_ns: f64,
    /// `OFLD.BEG` to release: the sum of the eight phases.
    pub total_ns: f64,
    /// `OFLD.BEG` to the warp reaching `OFLD.END` (or release, if the ack came first).
    pub gpu_part_ns: f64,
    /// The warp blocked at `OFLD.END` until release (`total_ns - gpu_part_ns`).
    pub blocked_ns: f64,
    /// NSU warp instructions per completed instance.
    pub nsu_insts_per_instance: f64,
    /// NSU instructions over NSU cycles of the run, all NSUs (1 = every NSU issued in
    /// every cycle: the NSUs' issue rate is the limit).
    pub nsu_issue_utilisation: f64,
    /// One NSU cycle, ns.
    pub nsu_cycle_ns: f64,
}

impl InstanceTime {
    /// From `done` instances' phase sums `ps` (the eight phases, the GPU part, the blocked
    /// time; picoseconds), `insts` NSU instructions over `cycles` NSU cycles and the NSU
    /// clock period `period` (ps).
    pub fn from_sums(done: u64, ps: &[u64; 10], insts: u64, cycles: u64, period: u64) -> Self {
        let d = done.max(1) as f64;
        let m = |k: usize| ps[k] as f64 / d / 1000.0;
        InstanceTime {
            instances: done,
            to_grant_ns: m(0),
            command_transit_ns: m(1),
            command_queue_ns: m(2),
            data_wait_ns: m(3),
            nsu_issue_ns: m(4),
            write_ack_ns: m(5),
            ack_transit_ns: m(6),
            invalidation_wait_ns: m(7),
            total_ns: ps[..8].iter().sum::<u64>() as f64 / d / 1000.0,
            gpu_part_ns: m(8),
            blocked_ns: m(9),
            nsu_insts_per_instance: insts as f64 / d,
            nsu_issue_utilisation: insts as f64 / cycles.max(1) as f64,
            nsu_cycle_ns: period as f64 / 1000.0,
        }
    }
}

/// SM cycles in which no warp instruction issued, by cause (spec ndp.md §6.3, Fig. 8, as
/// GPGPU-sim classifies them: a busy unit before a dependency before an idle warp), summed
/// over every SM (the GPU node's in the NDP presets); `issue` counts the cycles that issued, so the four add
/// up to SMs x cycles. Fig. 8 normalises to the baseline's no-issue total: run the
/// baseline as `ndp.offload = "static"` with `ndp.static_ratio = 0` (markers recorded,
/// nothing offloaded) to get these keys for it. `exec_busy`, `dependency` and `idle` are
/// the reading `ndp.pending_stall_as` names; `by_reading` holds both readings of the same
/// run (they differ only in the cycles a full NDP buffer held a warp).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct NoIssueStats {
    /// The reading of `exec_busy` / `dependency` / `idle` (`ndp.pending_stall_as`).
    pub pending_stall_as: &'static str,
    /// ExecUnitBusy: a warp was ready but its unit busy (issue slot held by replays, L1
    /// MSHRs or the write buffer full).
    pub exec_busy: u64,
    /// Dependency stall: warps waiting on the scoreboard (ALU results, loads in flight).
    pub dependency: u64,
    /// Warp idle: no warp with a valid instruction (none resident, at a barrier, or waiting
    /// at `OFLD.END` for an offload ack).
    pub idle: u64,
    /// Cycles that issued at least one instruction.
    pub issue: u64,
    /// The split under each reading of a buffer-held cycle ([`PendingStallAs`]).
    pub by_reading: NoIssueReadings,
}

/// Fig. 8's split under both readings of [`PendingStallAs`] (the same run's cycles).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct NoIssueReadings {
    /// `ndp.pending_stall_as = "exec-unit-busy"` (the paper's literal reading).
    pub exec_unit_busy: NoIssueSplit,
    /// `ndp.pending_stall_as = "warp-idle"`.
    pub warp_idle: NoIssueSplit,
}

/// One reading's no-issue cycles, summed over SMs.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct NoIssueSplit {
    pub exec_busy: u64,
    pub dependency: u64,
    pub idle: u64,
}

impl NoIssueSplit {
    /// Every no-issue cycle of this reading.
    pub fn total(&self) -> u64 {
        self.exec_busy + self.dependency + self.idle
    }
}

/// Packets of one kind ([`packets::Packet`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PacketStats {
    pub kind: &'static str,
    pub packets: u64,
    pub bytes: u64,
    /// Bytes of these packets that crossed a GPU link (to or from the GPU).
    pub gpu_link_bytes: u64,
}

/// One NSU.
#[derive(Clone, Debug, Default, Serialize)]
pub struct NsuStats {
    pub stack: u32,
    pub node: u32,
    /// Warp instructions issued.
    pub insts: u64,
    /// Mean occupied warp slots over `nsu_warps`, over the run.
    pub occupancy: f64,
    /// Bytes of NSU code of the static blocks this NSU ran: per block, its body (Table 1's
    /// NSU instructions) plus the NSU `OFLD.BEG` and `OFLD.END`, times
    /// `ndp.nsu_inst_bytes`.
    pub code_bytes: u64,
    /// `code_bytes` over `ndp.nsu_icache_bytes` (Fig. 11's I-cache utilisation; above 1
    /// the code would not fit).
    pub icache_use: f64,
    /// Most entries ever held by the command, read-data and write-address buffers.
    pub peak_cmd: usize,
    pub peak_read: usize,
    pub peak_write: usize,
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::preset::load;

    fn ndp(sets: &[&str]) -> Result<Config, String> {
        let s: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        load(Some("ndp-8hmc"), None, &s).map_err(|e| e.to_string())
    }

    /// The machine of Table 2: one 64-SM GPU node, 8 memory-only stacks of 16 vaults.
    #[test]
    fn preset_is_table_2() {
        let c = ndp(&[]).unwrap();
        let spec = c.node_specs();
        assert_eq!(spec[0].sms, 64);
        assert_eq!(spec[0].l2_bytes, 2 << 20);
        assert!(spec[1..].iter().all(|n| n.sms == 0));
        assert_eq!(c.memory.channels_per_node, 16);
        assert_eq!(c.dram.banks, 16);
        // 64-bit vault bus, BL8 at 1.5 ns: 64 B per 6 ns = 10.67 GB/s per vault
        assert_eq!(c.dram.burst_bytes(), 64);
        assert_eq!(c.dram.burst_ps(), 6000);
        assert_eq!(c.system.sm_clock_ghz, 0.7);
        let more = load(Some("ndp-morecore"), None, &[]).unwrap();
        assert_eq!(more.node_specs()[0].sms, 72);
        assert_eq!(more.dram, c.dram, "only the SM count differs");
        let big = load(Some("ndp-128sm"), None, &[]).unwrap();
        assert_eq!(big.node_specs()[0].sms, 128);
        assert_eq!(
            big.node_specs()[0].l2_bytes,
            2 << 20,
            "L2 kept (spec §7.21)"
        );
        let slow = ndp(&["ndp.nsu_clock_ghz=0.175"]).unwrap();
        assert_eq!(slow.ndp.nsu_clock_ghz, 0.175);
        // §7.12: the SM's SP latency at the NSU clock, unless set
        assert_eq!(super::NdpCfg::default().alu_latency(18, 0.7), 9);
        assert_eq!(slow.ndp.alu_latency(18, 0.7), 5);
        assert_eq!(
            ndp(&["ndp.nsu_alu_latency=1"])
                .unwrap()
                .ndp
                .alu_latency(18, 0.7),
            1
        );
    }

    /// The GPU reaches every stack over its own link; stacks reach each other through the
    /// hypercube in popcount(i ^ j) <= 3 hops, never through the GPU or a padding node.
    #[test]
    fn hypercube_routes_at_most_three_hops() {
        let c = ndp(&[]).unwrap();
        let g = crate::topology::build(&c).unwrap();
        for s in 1..=8u32 {
            let r = g.route(0, s);
            assert_eq!(r.len(), 1, "GPU -> HMC{}", s - 1);
            assert_eq!(g.route(s, 0).len(), 1);
        }
        for i in 0..8u32 {
            for j in 0..8u32 {
                let r = g.route(1 + i, 1 + j);
                assert_eq!(r.len() as u32, (i ^ j).count_ones(), "HMC{i} -> HMC{j}");
                assert!(r.len() <= 3);
                for &l in r {
                    let k = g.links()[l as usize];
                    assert!((1..=8).contains(&k.from) && (1..=8).contains(&k.to));
                    assert_eq!(k.gbps, 20.0);
                }
            }
        }
        // without no_transit the shortest stack-to-stack path would cross the GPU
        let mut open = c.clone();
        open.interconnect.no_transit.clear();
        let g2 = crate::topology::build(&open).unwrap();
        assert_eq!(g2.route(1, 8).len(), 2, "HMC0 -> GPU -> HMC7");
    }

    /// Pages land on the stacks only, spread evenly, reproducibly.
    #[test]
    fn random_pages_on_the_stacks_only() {
        let c = ndp(&[]).unwrap();
        let mut p = crate::placement::Placement::new(&c);
        let map = crate::mapping::AddressMap::new(&c);
        let mut per = [0u32; 16];
        for page in 0..8000u64 {
            let (pa, mode) = p.translate(page << 12, locus_workload::program::NO_OBJ, 0);
            per[map.locate(pa, mode).node as usize] += 1;
        }
        assert_eq!(per[0], 0, "no page on the GPU node");
        assert!(per[9..].iter().all(|&n| n == 0), "none on padding nodes");
        for &n in &per[1..=8] {
            assert!((850..1150).contains(&n), "{per:?}");
        }
    }

    /// Every offload mode is accepted by name, an unknown one refused; bad NDP values
    /// name their key.
    #[test]
    fn offload_modes_and_bad_values_are_refused_by_key() {
        for m in ["naive", "static", "dyn", "dyn-cache"] {
            assert_eq!(
                ndp(&[&format!("ndp.offload={m}")])
                    .unwrap()
                    .ndp
                    .offload
                    .name(),
                m
            );
        }
        assert!(ndp(&["ndp.offload=sometimes"])
            .unwrap_err()
            .contains("offload"));
        for r in ["exec-unit-busy", "warp-idle"] {
            let c = ndp(&[&format!("ndp.pending_stall_as={r}")]).unwrap();
            assert_eq!(c.ndp.pending_stall_as.name(), r);
        }
        assert_eq!(
            ndp(&[]).unwrap().ndp.pending_stall_as,
            super::PendingStallAs::ExecUnitBusy,
            "the paper's literal reading is the default"
        );
        let e = ndp(&["ndp.pending_stall_as=stalled"]).unwrap_err();
        assert!(e.contains("pending_stall_as"), "{e}");
        for (set, key) in [
            ("ndp.static_ratio=1.5", "ndp.static_ratio"),
            ("ndp.window=0", "ndp.window"),
            ("ndp.read_entries=8", "ndp.read_entries"),
            ("ndp.nsu_clock_ghz=0", "ndp.nsu_clock_ghz"),
            ("ndp.gpu_node=16", "ndp.gpu_node"),
            (
                "placement.random_nodes=[3, 99]",
                "placement.random_nodes[1]",
            ),
        ] {
            let e = ndp(&[set]).unwrap_err();
            assert!(e.contains(key), "{set}: {e}");
        }
        assert!(ndp(&["interconnect.no_transit=[16]"])
            .unwrap_err()
            .contains("interconnect.no_transit"));
    }
}
