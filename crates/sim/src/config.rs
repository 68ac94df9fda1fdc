//! The system configuration: every parameter of the simulated machine, as TOML.
//!
//! Configuration is data: presets (`presets/*.toml`) reproduce each paper's table, a user
//! file or `--set key=value` overrides any field, and unknown keys are errors that name the
//! key (see [`crate::preset::load`]). Latencies are in SM cycles unless the name says `ns`;
//! bandwidths are in GB/s (1 GB/s = 1 byte per ns).

use locus_dram::DramConfig;
use serde::{Deserialize, Serialize};

/// The whole machine.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub system: SystemCfg,
    pub sm: SmCfg,
    pub l1: L1Cfg,
    pub l2: L2Cfg,
    pub noc: NocCfg,
    pub interconnect: InterconnectCfg,
    pub memory: MemoryCfg,
    pub dram: DramConfig,
    pub tlb: TlbCfg,
    pub mapping: MappingCfg,
    pub placement: PlacementCfg,
    pub scheduling: SchedulingCfg,
    pub run: RunCfg,
    pub coherence: CoherenceCfg,
}

/// Nodes and clocks. A node is a GPU, a partition of a GPU, or a memory stack.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SystemCfg {
    /// Preset name (informational).
    pub name: String,
    /// Number of nodes (GPUs); a power of two for the CODA address map.
    pub nodes: u32,
    /// SMs per node.
    pub sms_per_node: u32,
    /// SM clock in GHz (CODA Table 1: 2 GHz).
    pub sm_clock_ghz: f64,
    /// OS page size in bytes (4 KB; 2 MB option).
    pub page_bytes: u64,
    /// Cache line size in bytes (CODA spec A21: 128 B).
    pub line_bytes: u32,
}

impl Default for SystemCfg {
    fn default() -> Self {
        SystemCfg {
            name: "custom".into(),
            nodes: 4,
            sms_per_node: 4,
            sm_clock_ghz: 2.0,
            page_bytes: 4096,
            line_bytes: 128,
        }
    }
}

/// Warp scheduler of an SM.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WarpSched {
    /// Greedy-then-oldest: keep issuing from the last warp while it can, else the oldest.
    Gto,
    /// Loose round-robin: the next ready warp after the last one issued.
    Lrr,
}

/// Streaming multiprocessor (Fermi-like defaults, CODA spec A22).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SmCfg {
    pub max_blocks: u32,
    pub max_threads: u32,
    pub max_warps: u32,
    pub registers: u32,
    pub smem_bytes: u32,
    pub warp_scheduler: WarpSched,
    /// Warp instructions issued per cycle.
    pub issue_width: u32,
    /// Latencies of non-memory instruction classes (cycles until a dependent may issue).
    pub int_latency: u32,
    pub fp_latency: u32,
    pub sfu_latency: u32,
    pub branch_latency: u32,
    /// Shared-memory access latency.
    pub smem_latency: u32,
    /// Outstanding load instructions per warp (scoreboard entries).
    pub max_pending_loads: u32,
    /// Line requests the load/store unit sends to L1 per cycle.
    pub lsu_lines_per_cycle: u32,
    /// Stores and atomics (line requests) an SM may have in flight before the issuing warp
    /// waits: the write buffer that back-pressures fire-and-forget traffic.
    pub max_outstanding_writes: u32,
}

impl Default for SmCfg {
    fn default() -> Self {
        SmCfg {
            max_blocks: 8,
            max_threads: 1536,
            max_warps: 48,
            registers: 32768,
            smem_bytes: 49152,
            warp_scheduler: WarpSched::Gto,
            issue_width: 2,
            int_latency: 4,
            fp_latency: 4,
            sfu_latency: 16,
            branch_latency: 4,
            smem_latency: 24,
            max_pending_loads: 16,
            lsu_lines_per_cycle: 1,
            max_outstanding_writes: 64,
        }
    }
}

/// Per-SM L1 data cache: GPU-style write-through, no write-allocate.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct L1Cfg {
    pub enabled: bool,
    pub bytes: u32,
    pub ways: u32,
    pub hit_latency: u32,
    pub mshrs: u32,
    /// Cache lines whose home is another node (off: remote data bypasses the L1, which
    /// then needs no invalidation; issue 7 §2).
    pub cache_remote: bool,
}

impl Default for L1Cfg {
    fn default() -> Self {
        L1Cfg {
            enabled: true,
            bytes: 32 * 1024,
            ways: 8,
            hit_latency: 4,
            mshrs: 64,
            cache_remote: true,
        }
    }
}

/// Where remote data is cached (issue 7 §2).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum L2Organisation {
    /// The requesting node's L2 caches lines of any home; a miss goes to the home's memory
    /// directly (CODA spec A7; REC §2.2).
    RequesterSide,
    /// A node's L2 caches only its own memory: remote requests cross to the home node and
    /// are served by the home slice (memory-side / home-side LLC).
    HomeSide,
    /// Both levels: the requester's L2 caches remote lines and its misses are served by the
    /// home slice, which misses to the home's memory.
    Both,
}

/// Write policy of one class of lines in an L2.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// Absorb the write (write-validate allocation, the line becomes dirty); memory sees it
    /// at eviction or at the kernel boundary.
    WriteBack,
    /// Update a present copy (it stays clean, no allocation) and forward the write to the
    /// next level (REC §2.2: remote writes update the requester's L2 and write through).
    WriteThrough,
}

/// What the L2s do with remote lines at a kernel boundary (the L1s are always invalidated:
/// acquire, REC §2.4).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum KernelBoundary {
    /// Write back dirty remote lines and drop every remote line (software coherence, CODA
    /// spec A7).
    FlushRemote,
    /// Write back dirty remote lines and keep them, clean (release of a hardware-coherent
    /// L2, REC §2.4).
    KeepCleanRemote,
    /// Nothing.
    None,
}

/// The L2 / last-level cache of a node, made of slices. Requester-side: it caches lines of
/// any home node (CODA spec A7); write-back, write-allocate.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct L2Cfg {
    pub bytes_per_node: u64,
    pub ways: u32,
    pub slices_per_node: u32,
    pub hit_latency: u32,
    pub mshrs_per_slice: u32,
    /// Data port bandwidth of one slice towards the SMs, GB/s.
    pub slice_gbps: f64,
    /// Cache lines whose home is another node (off: remote data bypasses the L2).
    pub cache_remote: bool,
    /// Where remote data is cached: requester-side, home-side or both levels.
    pub organisation: L2Organisation,
    /// Write policy of lines homed at this node.
    pub write_policy_local: WritePolicy,
    /// Write policy of lines homed at another node.
    pub write_policy_remote: WritePolicy,
    /// Action on remote lines at each kernel boundary (replaces the former
    /// `flush_remote_at_kernel_end`: true = "flush-remote", false = "none").
    pub kernel_boundary: KernelBoundary,
    /// Slices sit beside the memory stacks: a local line is cached in a slice of its own
    /// stack's group (the centralized GPU of CODA Fig. 14, spec A19), so the stack
    /// interleave decides which slices and slice ports carry the traffic.
    pub memory_side: bool,
}

impl Default for L2Cfg {
    fn default() -> Self {
        L2Cfg {
            bytes_per_node: 1 << 20,
            ways: 16,
            slices_per_node: 8,
            hit_latency: 10,
            mshrs_per_slice: 64,
            slice_gbps: 128.0,
            cache_remote: true,
            organisation: L2Organisation::RequesterSide,
            write_policy_local: WritePolicy::WriteBack,
            write_policy_remote: WritePolicy::WriteBack,
            kernel_boundary: KernelBoundary::FlushRemote,
            memory_side: false,
        }
    }
}

/// On-chip network of a node: SM to L2 slices, L2 to memory channels (the "Local" network
/// of CODA §2.2: a crossbar of 32 GB/s per channel port, 256 GB/s per GPU).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NocCfg {
    /// One-way latency SM ↔ L2 slice.
    pub sm_l2_latency: u32,
    /// One-way latency L2 (or remote ingress) ↔ memory channel.
    pub xbar_latency: u32,
    /// Bandwidth of each memory-channel crossbar port, per direction, GB/s.
    pub channel_port_gbps: f64,
}

impl Default for NocCfg {
    fn default() -> Self {
        NocCfg {
            sm_l2_latency: 4,
            xbar_latency: 20,
            channel_port_gbps: 32.0,
        }
    }
}

/// How nodes are connected.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Topology {
    /// Processor-centric: one full-duplex port per node into a non-blocking hub (the CPU),
    /// CODA spec §2.2 / A5. A remote packet crosses the sender's egress and the receiver's
    /// ingress port.
    Hub,
    /// A dedicated link for every ordered pair of nodes.
    AllToAll,
}

/// The "Remote" network between nodes (CODA Table 1: 16 GB/s).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InterconnectCfg {
    pub topology: Topology,
    /// Bandwidth per port (hub) or per link (all-to-all), per direction, GB/s.
    pub link_gbps: f64,
    /// One-way latency of a traversal, SM cycles (spec A5: 100).
    pub latency: u32,
    /// Packet header bytes (read request; added to data for responses and writes).
    pub header_bytes: u32,
}

impl Default for InterconnectCfg {
    fn default() -> Self {
        InterconnectCfg {
            topology: Topology::Hub,
            link_gbps: 16.0,
            latency: 100,
            header_bytes: 16,
        }
    }
}

/// Memory of a node.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryCfg {
    pub channels_per_node: u32,
    /// Bytes per node (8 GB per GPU in CODA).
    pub bytes_per_node: u64,
    /// Channel interleave granularity inside a node, bytes (spec §2.3: 128 B).
    pub channel_interleave_bytes: u64,
    /// Memory stacks per node; channels are split evenly among them (a centralized GPU
    /// with several HBM stacks, CODA Fig. 14).
    pub stacks_per_node: u32,
    /// Interleave granularity across the stacks of a node, bytes (Fig. 14: 128 B FGP
    /// versus 4 KB CGP).
    pub stack_interleave_bytes: u64,
}

impl Default for MemoryCfg {
    fn default() -> Self {
        MemoryCfg {
            channels_per_node: 8,
            bytes_per_node: 8 << 30,
            channel_interleave_bytes: 128,
            stacks_per_node: 1,
            stack_interleave_bytes: 128,
        }
    }
}

/// Virtual memory: per-SM L1 TLB, per-node shared L2 TLB, page walk.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TlbCfg {
    /// Off = ideal translation (CODA spec A6 default).
    pub enabled: bool,
    pub l1_entries: u32,
    pub l1_latency: u32,
    pub l2_entries: u32,
    pub l2_latency: u32,
    pub walk_latency: u32,
}

impl Default for TlbCfg {
    fn default() -> Self {
        TlbCfg {
            enabled: false,
            l1_entries: 64,
            l1_latency: 1,
            l2_entries: 1024,
            l2_latency: 10,
            walk_latency: 100,
        }
    }
}

/// Physical address → node map (CODA §3.1 dual mode).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MappingCfg {
    /// FGP stripe across nodes in bytes (CODA: 128 B; the paper's bit example: 1 KB).
    pub fgp_stripe_bytes: u64,
}

impl Default for MappingCfg {
    fn default() -> Self {
        MappingCfg {
            fgp_stripe_bytes: 128,
        }
    }
}

/// Page placement policy (which node's memory holds each virtual page).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PlacementPolicy {
    /// Every page fine-grain interleaved across nodes (CODA FGP-Only baseline).
    Fgp,
    /// Whole pages round-robin over nodes by virtual page number (CODA CGP-Only).
    Cgp,
    /// Whole pages on the node of the first SM that touches them (CGP-Only + FTA, ideal).
    FirstTouch,
    /// CODA: per-object FGP/CGP from the runtime-constant stride (Eqs. 2-3).
    Coda,
    /// Every page on node `placement.node` (pinned; e.g. one application per GPU).
    Node,
    /// Pages start fine-grained and migrate, as whole pages, to the first GPU that touches
    /// them, paying a fault/shootdown overhead plus the copy over the remote network while
    /// accesses to the page wait (CODA §6.1 migration-based first touch, spec A16).
    Migrate,
}

/// How CODA rounds the per-GPU span to pages (spec §3.4, A2).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CodaRounding {
    /// Each page goes to the GPU owning its middle byte under the exact span (default).
    PerPageMajority,
    /// The paper's text: chunk = min(4 KB, B·N_bpg) rounded up to whole pages.
    PaperRoundup,
}

/// Placement parameters.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlacementCfg {
    pub policy: PlacementPolicy,
    /// CODA span rounding.
    pub rounding: CodaRounding,
    /// CODA profiler path: CGP only when the coefficient of variation is at most this.
    pub cv_max: f64,
    /// Sampled consecutive block pairs for the runtime stride analysis.
    pub samples: u32,
    /// Target node of the `node` policy.
    pub node: u32,
    /// Fixed cost of one page migration (fault, TLB shootdown), SM cycles (spec A16: 5000).
    pub migration_cycles: u32,
}

impl Default for PlacementCfg {
    fn default() -> Self {
        PlacementCfg {
            policy: PlacementPolicy::Fgp,
            rounding: CodaRounding::PerPageMajority,
            cv_max: 0.5,
            samples: 4,
            node: 0,
            migration_cycles: 5000,
        }
    }
}

/// Thread-block scheduling policy.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SchedPolicy {
    /// Fair round-robin over all SMs of all nodes, blocks in order (CODA §2.5 baseline).
    Frr,
    /// Contiguous equal chunks of blocks per node.
    Chunk,
    /// CODA Eq. 1: batches of N_blocks_per_GPU consecutive blocks per node, round-robin.
    Affinity,
}

/// Scheduling parameters.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulingCfg {
    pub policy: SchedPolicy,
    /// Idle nodes take blocks from the longest other queue (off in the paper).
    pub work_stealing: bool,
}

impl Default for SchedulingCfg {
    fn default() -> Self {
        SchedulingCfg {
            policy: SchedPolicy::Frr,
            work_stealing: false,
        }
    }
}

/// Run limits.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RunCfg {
    /// Stop after this many kernel launches (0 = all).
    pub max_kernels: u32,
}

/// Hardware coherence protocol of the L2s (issue 7 §2).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// Software coherence only: the kernel-boundary action (`l2.kernel_boundary`).
    None,
    /// A home-side sharer directory (REC §2.3-§2.4): a remote read records the requester as
    /// a sharer at the home; a write reaching the home invalidates every other sharer's L2
    /// and L1 copies.
    Directory,
}

/// Organisation of the home-side directory (`crate::coherence`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DirectoryKind {
    /// Exact, unbounded per-line sharer sets: the ideal directory (REC §2.8), no
    /// evict-initiated invalidations.
    FullMap,
}

/// Coherence of cached remote data.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CoherenceCfg {
    pub protocol: Protocol,
    /// Directory organisation when `protocol = "directory"`.
    pub directory: DirectoryKind,
    /// Size of an invalidation packet, bytes (a header: the line address).
    pub inv_bytes: u32,
    /// Run the coherence checker (shadow versions; costs time and memory, for tests).
    pub check: bool,
}

impl Default for CoherenceCfg {
    fn default() -> Self {
        CoherenceCfg {
            protocol: Protocol::None,
            directory: DirectoryKind::FullMap,
            inv_bytes: 16,
            check: false,
        }
    }
}

impl Config {
    /// Check every value for consistency; the message names the key and the fix.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.system;
        let p2 = |v: u64| v.is_power_of_two();
        if s.nodes == 0 || !p2(s.nodes as u64) || s.nodes > 64 {
            return Err(format!(
                "system.nodes = {}: must be a power of two from 1 to 64",
                s.nodes
            ));
        }
        if s.sms_per_node == 0 || s.sms_per_node > 1024 {
            return Err(format!(
                "system.sms_per_node = {}: must be 1..=1024",
                s.sms_per_node
            ));
        }
        if !(s.sm_clock_ghz > 0.0 && s.sm_clock_ghz <= 100.0) {
            return Err(format!(
                "system.sm_clock_ghz = {}: must be in (0, 100]",
                s.sm_clock_ghz
            ));
        }
        if !p2(s.page_bytes) || s.page_bytes < 4096 {
            return Err(format!(
                "system.page_bytes = {}: must be a power of two >= 4096",
                s.page_bytes
            ));
        }
        if !p2(s.line_bytes as u64) || !(32..=1024).contains(&s.line_bytes) {
            return Err(format!(
                "system.line_bytes = {}: must be a power of two in 32..=1024",
                s.line_bytes
            ));
        }
        let f = self.mapping.fgp_stripe_bytes;
        if !p2(f) || f < s.line_bytes as u64 || f * s.nodes as u64 > s.page_bytes {
            return Err(format!(
                "mapping.fgp_stripe_bytes = {f}: must be a power of two, >= system.line_bytes ({}) and with stripe x nodes <= page_bytes ({}) (CODA spec A1)",
                s.line_bytes, s.page_bytes
            ));
        }
        let m = &self.memory;
        if m.channels_per_node == 0 || !p2(m.channels_per_node as u64) {
            return Err(format!(
                "memory.channels_per_node = {}: must be a power of two",
                m.channels_per_node
            ));
        }
        if !p2(m.channel_interleave_bytes) || m.channel_interleave_bytes < s.line_bytes as u64 {
            return Err(format!(
                "memory.channel_interleave_bytes = {}: must be a power of two >= line_bytes",
                m.channel_interleave_bytes
            ));
        }
        if m.stacks_per_node == 0
            || !p2(m.stacks_per_node as u64)
            || m.stacks_per_node > m.channels_per_node
            || !p2(m.stack_interleave_bytes)
            || m.stack_interleave_bytes < s.line_bytes as u64
        {
            return Err(format!(
                "memory.stacks_per_node = {} / memory.stack_interleave_bytes = {}: stacks must be a power of two dividing channels_per_node ({}), interleave a power of two >= line_bytes",
                m.stacks_per_node, m.stack_interleave_bytes, m.channels_per_node
            ));
        }
        if self.l2.memory_side && !self.l2.slices_per_node.is_multiple_of(m.stacks_per_node) {
            return Err(format!(
                "l2.memory_side needs l2.slices_per_node ({}) to be a multiple of memory.stacks_per_node ({})",
                self.l2.slices_per_node, m.stacks_per_node
            ));
        }
        if m.bytes_per_node < s.page_bytes * 64 || !p2(m.bytes_per_node) {
            return Err(format!(
                "memory.bytes_per_node = {}: must be a power of two of at least 64 pages",
                m.bytes_per_node
            ));
        }
        let sm = &self.sm;
        for (k, v) in [
            ("sm.max_blocks", sm.max_blocks),
            ("sm.max_threads", sm.max_threads),
            ("sm.max_warps", sm.max_warps),
            ("sm.registers", sm.registers),
            ("sm.issue_width", sm.issue_width),
            ("sm.max_pending_loads", sm.max_pending_loads),
            ("sm.lsu_lines_per_cycle", sm.lsu_lines_per_cycle),
            ("sm.max_outstanding_writes", sm.max_outstanding_writes),
        ] {
            if v == 0 {
                return Err(format!("{k} = 0: must be at least 1"));
            }
        }
        if sm.max_pending_loads > 64 {
            return Err("sm.max_pending_loads: at most 64".into());
        }
        if sm.max_warps > 64 || sm.max_blocks > 64 {
            return Err("sm.max_warps and sm.max_blocks: at most 64 each".into());
        }
        // sizes beyond any real machine would only exhaust host memory or time
        for (k, v, max) in [
            ("l1.bytes", self.l1.bytes as u64, 64 << 20),
            ("l1.ways", self.l1.ways as u64, 1024),
            ("l1.mshrs", self.l1.mshrs as u64, 4096),
            ("l2.bytes_per_node", self.l2.bytes_per_node, 1 << 30),
            ("l2.ways", self.l2.ways as u64, 1024),
            ("l2.slices_per_node", self.l2.slices_per_node as u64, 1024),
            ("l2.mshrs_per_slice", self.l2.mshrs_per_slice as u64, 4096),
            ("memory.channels_per_node", m.channels_per_node as u64, 1024),
            ("tlb.l1_entries", self.tlb.l1_entries as u64, 1 << 16),
            ("tlb.l2_entries", self.tlb.l2_entries as u64, 1 << 20),
            ("dram.tck_ps", self.dram.tck_ps, 100_000),
        ] {
            if v > max {
                return Err(format!("{k} = {v}: at most {max}"));
            }
        }
        if self.l1.ways == 0 {
            return Err("l1.ways = 0: must be at least 1".into());
        }
        let l1 = &self.l1;
        if l1.enabled {
            check_cache("l1", l1.bytes as u64, l1.ways, s.line_bytes, 1)?;
            if l1.mshrs == 0 {
                return Err("l1.mshrs = 0: must be at least 1".into());
            }
        }
        let l2 = &self.l2;
        if l2.slices_per_node == 0 || l2.mshrs_per_slice == 0 {
            return Err("l2.slices_per_node and l2.mshrs_per_slice must be at least 1".into());
        }
        check_cache(
            "l2",
            l2.bytes_per_node,
            l2.ways,
            s.line_bytes,
            l2.slices_per_node,
        )?;
        for (k, v) in [
            ("l2.slice_gbps", l2.slice_gbps),
            ("noc.channel_port_gbps", self.noc.channel_port_gbps),
            ("interconnect.link_gbps", self.interconnect.link_gbps),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(format!("{k} = {v}: must be a positive bandwidth in GB/s"));
            }
        }
        if self.tlb.enabled && (self.tlb.l1_entries == 0 || self.tlb.l2_entries == 0) {
            return Err(
                "tlb.l1_entries and tlb.l2_entries must be at least 1 when tlb.enabled".into(),
            );
        }
        if self.placement.cv_max.is_nan() || self.placement.cv_max < 0.0 {
            return Err("placement.cv_max must be >= 0".into());
        }
        if self.placement.node >= s.nodes {
            return Err(format!(
                "placement.node = {}: must be below system.nodes ({})",
                self.placement.node, s.nodes
            ));
        }
        if self.placement.samples == 0 {
            return Err("placement.samples must be at least 1".into());
        }
        if self.coherence.protocol == Protocol::Directory
            && self.l2.write_policy_remote == WritePolicy::WriteBack
            && self.l2.cache_remote
            && self.l2.organisation != L2Organisation::HomeSide
        {
            return Err(
                "coherence.protocol = \"directory\" needs l2.write_policy_remote = \"write-through\" (REC §2.2): the directory has no owner state, so a dirty remote copy would hide its writes from the other nodes; or use l2.organisation = \"home-side\"".into(),
            );
        }
        let inv = self.coherence.inv_bytes;
        if inv == 0 || inv > 4096 {
            return Err(format!(
                "coherence.inv_bytes = {inv}: must be 1..=4096 (an invalidation is a header-sized packet, 16 B by default)"
            ));
        }
        self.dram.validate().map_err(|e| format!("dram: {e}"))?;
        Ok(())
    }
}

fn check_cache(name: &str, bytes: u64, ways: u32, line: u32, slices: u32) -> Result<(), String> {
    if ways == 0 {
        return Err(format!("{name}.ways = 0: must be at least 1"));
    }
    let lines = bytes / line as u64 / slices as u64;
    if lines == 0 || !lines.is_multiple_of(ways as u64) || !(lines / ways as u64).is_power_of_two()
    {
        return Err(format!(
            "{name}: {bytes} bytes / {slices} slice(s) / {line} B lines / {ways} ways does not give a power-of-two number of sets; adjust {name}.bytes or {name}.ways"
        ));
    }
    Ok(())
}
