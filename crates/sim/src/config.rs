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
    pub energy: EnergyCfg,
    pub coherence: CoherenceCfg,
    /// Kinds of node of a heterogeneous machine (issue 7 §4), referenced by name from
    /// `system.node_kinds`; see [`NodeKindCfg`]. Empty: every node is the `system` node.
    pub node_kinds: Vec<NodeKindCfg>,
    pub directory: DirectoryCfg,
    /// Near-data processing in the memory stacks (NDP paper, spec ndp.md; `crate::ndp`).
    pub ndp: crate::ndp::NdpCfg,
    /// Memory spaces of the HMS placement model (`crate::spaces`; off by default).
    pub spaces: crate::spaces::SpacesCfg,
    /// Per-object placement override, object name -> `global | tex1d | tex2d[:width] |
    /// const | shared` (`--place obj=space`, spec hms §2; needs `spaces.enabled`).
    pub place: std::collections::BTreeMap<String, String>,
    /// Replication of read-only remote lines in the requester's LLC slice (NUBA §5).
    pub replication: ReplicationCfg,
}

/// Which replication policy the L2 slices follow (NUBA §5, nuba.md §5.3-§5.4).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ReplicationKind {
    /// No replicas (default; NUBA-No-Rep).
    None,
    /// Every read of a line read-only in the current kernel whose home is remote is cached
    /// in the requester's local slice (Full-Rep, Fig. 12).
    Full,
    /// Model-driven (§5.4): per epoch, the bandwidth model picks full or no replication
    /// from set-sampled hit rates and a shadow tag directory.
    Mdr,
}

/// NUBA §5 replication station ([`crate::replication`]). Needs `l2.organisation =
/// "home-side"` (replicas are the only remote lines a slice then holds).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReplicationCfg {
    pub kind: ReplicationKind,
    /// MDR epoch, SM cycles (§5.4: 20K).
    pub epoch_cycles: u64,
    /// Sets sampled by MDR in the profiled slice (§5.4: 8).
    pub sample_sets: u32,
    /// MDR decision delay after an epoch boundary, SM cycles (§5.4: 116).
    pub decision_cycles: u32,
    /// Kernel-boundary flush cost per replica line of a slice, SM cycles (A8: 1); slices
    /// flush in parallel, so the boundary waits for the slice with the most replicas.
    pub flush_cycles_per_line: u32,
}

impl Default for ReplicationCfg {
    fn default() -> Self {
        ReplicationCfg {
            kind: ReplicationKind::None,
            epoch_cycles: 20_000,
            sample_sets: 8,
            decision_cycles: 116,
            flush_cycles_per_line: 1,
        }
    }
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
    /// Sectored L1 and L2 caches: a line's tag covers `line_bytes`, but its data is valid
    /// in `sector_bytes` pieces, and a miss asks the next level for the missing sectors
    /// the warp touched only (NVIDIA since Maxwell: 128-byte lines of four 32-byte
    /// sectors; the profiler counts sectors). Responses, DRAM reads and writes and
    /// write-backs then carry sectors, not lines. 0 (the default): whole lines, as every
    /// paper's simulator (GPGPU-Sim 3's caches). A power of two from 32 to `line_bytes`.
    /// Needs the requester-side L2 without directory coherence, replication or NDP.
    pub sector_bytes: u32,
    /// The kind of each node, by name of a `[[node_kinds]]` table (issue 7 §4
    /// heterogeneous machines: GPUs beside memory-only stacks, NDP's memory network, or
    /// GPUs of different sizes and clocks). Empty (the default): every node has
    /// `sms_per_node` SMs at `sm_clock_ghz` with the `l1` and `l2` sizes.
    pub node_kinds: Vec<String>,
    /// Fixed cost of a kernel launch, ns: the first blocks dispatch this long after the
    /// launch begins (front end, grid setup, and the end-of-kernel drain a one-thread
    /// kernel still pays on a real GPU: `validation/gpu/h200`'s `single-load` takes
    /// 1,888 ns measured). Counted in the kernel's time. 0 (the default): none, as every
    /// paper's simulator.
    pub kernel_launch_ns: u32,
    /// Block dispatch interval, ps: a one-node machine's block scheduler hands out at most
    /// one block per interval (an empty grid's time per block on the measured H200:
    /// `validation/gpu/dispatch.cu`, 0.603 ns). 0 (the default): every free slot is filled at
    /// once, as every paper's simulator.
    pub block_dispatch_ps: u32,
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
            sector_bytes: 0,
            node_kinds: Vec::new(),
            kernel_launch_ns: 0,
            block_dispatch_ps: 0,
        }
    }
}

/// A kind of node (`[[node_kinds]]`, issue 7 §4): its own SM count (0 = a memory-only node
/// such as an NDP memory stack: it has memory, an L2 and network ports but runs no
/// blocks), SM clock and cache sizes. Every field left out takes the `system` / `l1` /
/// `l2` value, so a kind states only how it differs. The SMs of a kind tick at its clock:
/// issue, instruction latencies (`sm.*_latency`), the L1 hit latency, shared memory and
/// the load/store unit count its cycles. Everything outside the SM (L2, crossbar,
/// network, TLB, page faults) keeps counting cycles of `system.sm_clock_ghz`, the
/// machine's reference clock, in which the statistics' cycles are also given.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeKindCfg {
    /// The name `system.node_kinds` refers to.
    pub name: String,
    /// SMs per node of this kind; 0 = memory only. Default `system.sms_per_node`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sms: Option<u32>,
    /// SM clock of this kind, GHz. Default `system.sm_clock_ghz`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_ghz: Option<f64>,
    /// L1 bytes of each SM of this kind. Default `l1.bytes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1_bytes: Option<u32>,
    /// L2 bytes of a node of this kind (split over `l2.slices_per_node` slices). Default
    /// `l2.bytes_per_node`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_bytes: Option<u64>,
}

/// One node of the machine as built: its kind resolved against the defaults
/// ([`Config::node_specs`]).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    /// Kind name (`None`: the default node of `system`).
    pub kind: Option<String>,
    pub sms: u32,
    pub sm_clock_ghz: f64,
    pub l1_bytes: u32,
    pub l2_bytes: u64,
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
    /// Shared-memory accesses take the load/store unit's data path: each shared load or
    /// store holds it one cycle per wavefront (one, plus a bank-conflict replay each when
    /// `spaces` is on), in turn with the L1 line requests, and a load's latency counts from
    /// its slot. On Volta and later the L1 and shared memory are one array behind one
    /// 128-byte-per-cycle path (NVIDIA's Volta/Hopper tuning guides: "unified L1 / shared
    /// memory"). Off (default): a shared access costs its latency only and no throughput,
    /// the model every reproduction so far ran with.
    pub shared_uses_lsu: bool,
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
            shared_uses_lsu: false,
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
    /// Write back every dirty line, local and remote, and keep them all, clean: the release
    /// of REC §2.4 / §4.1 ("release operations flush the L2 caches"; rec.md §6.14: write
    /// back, keep valid); the acquire leaves the L2 alone.
    CleanAll,
    /// Drop every line of every L2, dirty ones without a DRAM write: the state a
    /// profiler's cache control leaves before each measured kernel (Nsight Compute
    /// `--cache-control all`, as `validation/gpu/run.sh` measures), whose flush happens
    /// outside the measured time. For `locus validate gpu`, not a machine's policy.
    ProfilerFlush,
    /// Nothing.
    None,
}

/// How an L2 slice picks the set of a line (`l2.set_index`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SetIndex {
    /// The low bits of the physical line number (the papers' machines do not say
    /// otherwise). A stride of a power of two lines, or a multiple of one, crowds a few
    /// sets: a column walk over a row-major matrix whose row is 48 lines (Rodinia
    /// Gaussian's 1536 floats) uses 4 of a slice's 64 sets.
    #[default]
    Linear,
    /// A hashed index, as NVIDIA's L2s and GPGPU-Sim's hashed set functions use: the line
    /// number without its slice-select bits, its low bits XOR a multiplicative hash of the
    /// bits above them (`SetAssoc::hashed`), so such strides spread over the sets and a
    /// contiguous range still fills them evenly. Beyond the papers' descriptions.
    Xor,
    /// Linear on the slice's own (bank-local) line number: the bits that select the slice
    /// are deleted first (`mapping::slice_select_fields`: the low log2(slices) bits under
    /// the hashed slice choice, on which it is a one-to-one map within every aligned group;
    /// the channel and stack bits plus the sub-partition bits with `slices_per_channel`),
    /// then the low bits index the set (`SetAssoc::bank_local`). The index of the papers'
    /// simulators: GPGPU-Sim 3.x (NUBA, NDP) indexes an L2 bank by the address "without
    /// memory partition bits to reduce set camping" (`l2_cache_config::set_index`, linear
    /// set function in its GTX480 configuration) and MGPUSim (REC) by the bank's internal
    /// address (the L2 directory's interleaving converter). Needs a power-of-two slice
    /// count of at most 128 (without `slices_per_channel`), power-of-two channels (with
    /// it) and `l2.memory_side = false`.
    Partition,
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
    /// Slices bound to each memory channel (0 = not bound: a line's slice is a hash of
    /// its address over all the node's slices). N > 0: channel c owns slices c*N..c*N+N
    /// and a line is cached in one of its channel's slices, picked by the hashed low line
    /// bit(s) (NUBA §2.1/§2.2 "each LLC slice caches only the addresses of its own memory
    /// channel", §3.3 "the least significant bank bit(s) select the LLC slice"). With the
    /// fixed-channel map a page then lives in N slices, so SMs camping on one page meet N
    /// slice ports, as in the paper, not all of them. Needs
    /// `l2.slices_per_node = memory.channels_per_node * N`.
    pub slices_per_channel: u32,
    /// With sectored caches (`system.sector_bytes`): the bytes an L2 miss reads from
    /// memory, aligned, around each missing sector (a DRAM access granularity larger than
    /// the sector; the fetched sectors all become valid). 0 (the default): the sector.
    pub dram_fetch_bytes: u32,
    /// How a slice picks a line's set: `linear` (the default: the low line bits),
    /// `partition` (linear on the slice's own line number, as GPGPU-Sim and MGPUSim; the
    /// NUBA and REC presets) or `xor` (hashed).
    pub set_index: SetIndex,
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
            slices_per_channel: 0,
            dram_fetch_bytes: 0,
            set_index: SetIndex::Linear,
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
    /// Bandwidth of the request port into each L2 slice (SM -> L2 direction), GB/s: reads
    /// carry a header, writes and atomics header + data (issue 7 §3: a NoC bandwidth sweep
    /// such as NUBA's 0.7-5.6 TB/s must limit requests too). Default: `l2.slice_gbps`'s.
    pub sm_l2_request_gbps: f64,
    /// Bandwidth of each SM's own ports, one per direction (requests and store data leave
    /// through the output port before the slice's request port; data arrives through the
    /// input port after the slice's data port or the inter-node network), GB/s; 0 = not
    /// modelled (default: an SM sends to and receives from any number of slices at once).
    /// NUBA §2.1 / §3.2: a UBA crossbar port is 16 B/cycle (22.4 GB/s at 1.4 GHz); a NUBA
    /// SM has one 16 B link per local slice.
    pub sm_port_gbps: f64,
}

impl Default for NocCfg {
    fn default() -> Self {
        NocCfg {
            sm_l2_latency: 4,
            xbar_latency: 20,
            channel_port_gbps: 32.0,
            sm_l2_request_gbps: 128.0,
            sm_port_gbps: 0.0,
        }
    }
}

/// How nodes are connected: the inter-node network as a graph of nodes, optional switch
/// vertices and directed links (built by [`crate::topology`], one file per topology).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Topology {
    /// Processor-centric: one full-duplex port per node into a non-blocking hub (the CPU),
    /// CODA spec §2.2 / A5. A remote packet crosses the sender's egress and the receiver's
    /// ingress port.
    Hub,
    /// A dedicated link for every ordered pair of nodes (REC's fully connected GPUs).
    AllToAll,
    /// A bidirectional ring, shortest direction (NUBA A21: MCM modules in a ring).
    Ring,
    /// A 2-D mesh of `interconnect.mesh_cols` columns, dimension-order (XY) routing.
    Mesh,
    /// A hypercube (NDP §2.1: 8 memory stacks in a 3-D cube, e-cube routing).
    Hypercube,
    /// Groups of `interconnect.group_size` nodes on a local crossbar switch, the group
    /// switches joined by a global switch or directly (`interconnect.global_switch`; NUBA
    /// §2.1's hierarchical partition crossbar).
    HierXbar,
    /// Chiplets in packages (MCM, NUBA §7.8): `interconnect.group_size` chiplets per package
    /// joined all-to-all by fast local links, packages joined all-to-all by slower links.
    TwoLevel,
    /// The explicit list `[[interconnect.links]]`: the network as data.
    Custom,
}

/// One directed link of a `custom` topology. Vertex ids below `system.nodes` are the
/// nodes; higher ids are switch vertices (named `sw<id>`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkCfg {
    pub from: u32,
    pub to: u32,
    /// Bandwidth, GB/s.
    pub gbps: f64,
    /// Latency, SM cycles.
    pub latency: u32,
    /// Also add the reverse link with the same bandwidth and latency.
    #[serde(default)]
    pub bidirectional: bool,
}

/// The "Remote" network between nodes (CODA Table 1: 16 GB/s).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InterconnectCfg {
    pub topology: Topology,
    /// Bandwidth per port (hub) or per link (all-to-all, ring, mesh, hypercube), of the
    /// global switch links (hier-xbar) or of the links between packages (two-level), per
    /// direction, GB/s.
    pub link_gbps: f64,
    /// One-way latency, SM cycles (spec A5: 100): of a hub traversal, of each link of a
    /// direct topology, of the global switch (hier-xbar) or of a link between packages.
    pub latency: u32,
    /// Packet header bytes (read request; added to data for responses and writes).
    pub header_bytes: u32,
    /// Columns of a `mesh` (0 = automatic: the smallest power of two >= sqrt(nodes)).
    pub mesh_cols: u32,
    /// Nodes per local switch (`hier-xbar`) or chiplets per package (`two-level`);
    /// 0 = automatic (the largest power of two <= sqrt(nodes)).
    pub group_size: u32,
    /// Bandwidth of the local links (node to local switch in `hier-xbar`, chiplet to
    /// chiplet or package switch in `two-level`), per direction, GB/s.
    pub local_gbps: f64,
    /// Latency of a local switch or local link, SM cycles.
    pub local_latency: u32,
    /// `hier-xbar`: join the group switches through one global switch (true), or directly,
    /// one link from each group switch to each other (false: NUBA §2.1's two-stage
    /// crossbar, a traversal of two switches).
    pub global_switch: bool,
    /// The links of a `custom` topology.
    pub links: Vec<LinkCfg>,
    /// Vertices a `custom` route may start or end at but never pass through (NDP: the GPU
    /// has no packet routing, only the stacks' logic layers route, ndp.md §3.1). Empty: any.
    pub no_transit: Vec<u32>,
    /// Separate request and reply networks of identical structure (nuba.md §2.1 \[S\], as
    /// GPGPU-sim builds its NoC): responses and write acknowledgements travel over a second
    /// copy of every inter-node link, so they never queue behind requests and store data.
    /// Off: one network carries both (the default of every non-NUBA preset).
    pub reply_network: bool,
    /// Inter-node links serialise a packet in the earliest idle gap at or after its arrival
    /// (`locus_engine::Port::filling_gaps`) instead of after the link's last reservation: a
    /// multi-hop route reserves its later links when the packet enters the network, and on
    /// a FIFO link such a reservation ahead would delay packets that reach the link
    /// earlier (NUBA's two-stage crossbar, nuba.md §2.1). Off: FIFO (every non-NUBA preset).
    pub fill_gaps: bool,
}

impl Default for InterconnectCfg {
    fn default() -> Self {
        InterconnectCfg {
            topology: Topology::Hub,
            link_gbps: 16.0,
            latency: 100,
            header_bytes: 16,
            mesh_cols: 0,
            group_size: 0,
            local_gbps: 64.0,
            local_latency: 20,
            global_switch: true,
            links: Vec::new(),
            no_transit: Vec::new(),
            reply_network: false,
            fill_gaps: false,
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
    /// PAE-style channel hashing (NUBA §2/§7.7, nuba.md §7.7 "UBA address mapping"; Liu et
    /// al., ISCA '18): the stack and channel bits are XORed with folded higher address
    /// bits, so power-of-two strides spread over the channels (still a bijection). Off
    /// (default): the fixed-channel map.
    pub channel_xor: bool,
}

impl Default for MemoryCfg {
    fn default() -> Self {
        MemoryCfg {
            channels_per_node: 8,
            bytes_per_node: 8 << 30,
            channel_interleave_bytes: 128,
            stacks_per_node: 1,
            stack_interleave_bytes: 128,
            channel_xor: false,
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
    /// Also accepted as `ft` (NUBA §4.1 FT; with `placement.first_touch_fault_cycles`).
    #[serde(alias = "ft")]
    FirstTouch,
    /// CODA: per-object FGP/CGP from the runtime-constant stride (Eqs. 2-3).
    Coda,
    /// Every page on node `placement.node` (pinned; e.g. one application per GPU).
    Node,
    /// Pages start fine-grained and migrate, as whole pages, to the first GPU that touches
    /// them, paying a fault/shootdown overhead plus the copy over the remote network while
    /// accesses to the page wait (CODA §6.1 migration-based first touch, spec A16).
    Migrate,
    /// Whole pages, round-robin over nodes in allocation (first-touch) order (NUBA "RR";
    /// also accepted as `rr`).
    #[serde(alias = "rr")]
    RoundRobin,
    /// Each data object in N equal contiguous chunks of pages, chunk i on node i.
    Chunked,
    /// Each page on a random node, from `placement.seed` (NDP's random page placement).
    Random,
    /// MGPUSim's unified multi-GPU allocation (REC's simulator; rec.md §6.16): whole 4 KB
    /// pages round-robin over the GPUs in allocation order, the first page on the last GPU
    /// ([`crate::placement::mgpusim`]).
    MgpusimUnified,
    /// NUBA's Local-And-Balanced placement (nuba.md §4): first touch while the Normalized
    /// Page Balance is above `placement.lab_threshold`, else a partition with the fewest
    /// pages ([`crate::placement::lab`]). Demand-paged: pays
    /// `placement.first_touch_fault_cycles`.
    Lab,
}

/// Run-time page migration on top of the placement policy (NUBA §7.9's first alternative
/// to LAB; `placement.migration`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum MigrationKind {
    /// Pages stay where the placement policy put them (default).
    #[default]
    None,
    /// Griffin-style migration (NUBA §7.9, nuba.md A23, [`crate::placement::griffin`]):
    /// every `placement.migration_interval_cycles`, a page whose accesses from other
    /// partitions are at least `placement.migration_ratio` times its local ones moves to
    /// the partition that accessed it most, through the core's migration path (fault and
    /// shootdown `placement.migration_cycles`, then the page copied over the network).
    Griffin,
    /// Carrefour-style page replication (NUBA §7.9, nuba.md A23,
    /// [`crate::placement::carrefour`]): every `placement.migration_interval_cycles`, a
    /// coarse page that has only been read gets a replica in each partition that read it
    /// remotely, while that partition's free memory fraction exceeds
    /// `placement.replication_min_free`; reads from a partition with a replica use it, and
    /// the first write to a replicated page collapses every replica (the writer pays
    /// `placement.migration_cycles` of fault and shootdown) and the page is never
    /// replicated again.
    Carrefour,
}

/// How CODA rounds the per-GPU span to pages (spec §3.4, A2).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CodaRounding {
    /// Not the paper's rule (spec A2's suggestion): each page goes to the GPU owning its
    /// middle byte under the exact span `B·N_bpg`, without Eq. 2's `min(4 KB, ·)`.
    PerPageMajority,
    /// The paper's text, Eqs. 2-3 literally (default): chunk = min(4 KB, B·N_bpg) rounded
    /// up to whole pages, page at offset `o` on GPU `floor(o / chunk) mod N`.
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
    /// Not the paper's rule (off by default; the paper's first kernel decides, spec §3.4):
    /// when one Eq. 2 chunk would hold a whole object, leave the object undecided so a
    /// later kernel with more blocks places it (GE's 3-block `Fan1` before `Fan2`).
    pub defer_whole_object: bool,
    /// Not the paper's rule (off by default; the first kernel that accesses an object
    /// decides it and CODA never re-places, spec A11): an object the first kernel touches
    /// only outside its sampled blocks (or with a grid too small to sample) stays undecided
    /// for a later kernel's analysis, so the pages mapped before keep the fine-grained
    /// default beside the later decision. Off, the object is fixed fine-grained at its
    /// first page's mapping (no stride was seen). `defer_whole_object` implies it (the
    /// objects it defers are undecided at their first touch as well).
    pub defer_unsampled: bool,
    /// Not the paper's rule (off by default; Algorithm 1 differentiates w.r.t. blockIdx.x,
    /// so a 2-D kernel whose index does not move with blockIdx.x has RCS 0 and stays FGP):
    /// place such an object by grid rows, `B = stride_y / gridDim.x` (spec §3.6 \[S\]).
    pub rows_2d: bool,
    /// Target node of the `node` policy.
    pub node: u32,
    /// Fixed cost of one page migration (fault, TLB shootdown), SM cycles (spec A16: 5000).
    pub migration_cycles: u32,
    /// Cost of the page fault that maps a page on its first touch under the demand-paged
    /// policies (`first-touch`, `round-robin`), SM cycles; accesses to the page wait for it.
    /// 0 = free (CODA's ideal first touch, spec A15).
    pub first_touch_fault_cycles: u32,
    /// Seed of the `random` policy.
    pub seed: u64,
    /// Nodes the `random` policy draws from (NDP: the memory stacks, not the GPU node,
    /// ndp.md §2.2); empty = every node.
    pub random_nodes: Vec<u32>,
    /// NPB threshold of the `lab` policy (NUBA §4.2: 0.9; first touch while NPB is
    /// strictly above it). Must be in [0, 1].
    pub lab_threshold: f64,
    /// Run-time page migration (NUBA §7.9; `none` by default).
    pub migration: MigrationKind,
    /// Griffin's and Carrefour's counting interval, SM cycles (nuba.md A23: 100K).
    pub migration_interval_cycles: u64,
    /// Griffin's trigger: remote accesses at least this many times the local ones in an
    /// interval (nuba.md A23: 2).
    pub migration_ratio: f64,
    /// Carrefour replicates into a partition only while its free memory fraction is above
    /// this (nuba.md A23: 10%). Must be in [0, 1).
    pub replication_min_free: f64,
}

impl Default for PlacementCfg {
    fn default() -> Self {
        PlacementCfg {
            policy: PlacementPolicy::Fgp,
            rounding: CodaRounding::PaperRoundup,
            cv_max: 0.5,
            samples: 4,
            defer_whole_object: false,
            defer_unsampled: false,
            rows_2d: false,
            node: 0,
            migration_cycles: 5000,
            first_touch_fault_cycles: 0,
            seed: 1,
            random_nodes: Vec::new(),
            lab_threshold: 0.9,
            migration: MigrationKind::None,
            migration_interval_cycles: 100_000,
            migration_ratio: 2.0,
            replication_min_free: 0.10,
        }
    }
}

/// Thread-block scheduling policy.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SchedPolicy {
    /// Fair round-robin over all SMs of all nodes, blocks in order (CODA §2.5 baseline).
    Frr,
    /// MGPUSim's unified multi-GPU dispatch (REC's simulator; rec.md §6.16): node `g` takes
    /// the contiguous flattened block ids `[c_g·w, (c_g + s_g)·w)` with `w =
    /// ceil(blocks / all SMs)`, `s_g` its SMs and `c_g` the SMs before it
    /// ([`crate::scheduling::mgpusim`]); the last nodes may get fewer blocks or none.
    MgpusimUnified,
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
    /// Beyond the paper (off by default): cap Eq. 1's N_blocks_per_GPU at
    /// `ceil(blocks / GPUs)`, so a kernel with fewer blocks than one GPU holds is still
    /// spread over every GPU (the paper's rule puts 8 blocks with N_bpg >= 8 on one GPU).
    /// CODA's placement uses the same capped N_bpg, so data stays aligned.
    pub affinity_balanced: bool,
}

impl Default for SchedulingCfg {
    fn default() -> Self {
        SchedulingCfg {
            policy: SchedPolicy::Frr,
            work_stealing: false,
            affinity_balanced: false,
        }
    }
}

/// Run limits. A run stopped by `max_warp_insts` or `max_cycles` stops issuing at the
/// limit (no new instruction, no new block), lets the memory requests in flight drain, and
/// reports the kernel it was in as a partial launch ending at the stop (how papers that
/// simulate "the first 1B instructions", e.g. NUBA §6.1, measure).
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RunCfg {
    /// Stop after this many kernel launches (0 = all).
    pub max_kernels: u32,
    /// Stop once this many warp instructions have issued (0 = no limit).
    pub max_warp_insts: u64,
    /// Stop at this SM cycle (0 = no limit).
    pub max_cycles: u64,
    /// Generate at most this many instructions of each warp when its block is dispatched
    /// (0: all). Kernel models generate a whole block at dispatch, and a run capped by
    /// `max_warp_insts` issues a small part of its first wave's programs (issue 9: REC's
    /// GEMM spends nine tenths of its host time generating them). The statistics do not
    /// change: the generated prefix is exactly the full program's, the workload's memory
    /// is exactly as without the limit, and a run in which a warp needs an instruction
    /// past its prefix fails with `SimError::GenLimit`, which
    /// [`crate::simulate_exact`] answers by running again without the limit. Ignored for
    /// runs that record lane addresses, NDP offload markers or HMS memory spaces.
    pub gen_limit: u32,
    /// Record a time-series sample (cumulative counters) every this many SM cycles into the
    /// stats' `timeline`, driven by an epoch timer (issue 7 §4); 0 = off.
    pub sample_cycles: u64,
    /// Record how many distinct SMs access each page (NUBA Fig. 3's sharing degree,
    /// [`crate::page_sharing`]) into the stats' `page_sharing`; off by default (one hash
    /// lookup per line request).
    pub page_sharing: bool,
}

/// Parameters of the energy model ([`crate::energy`], issue 7 §5): energy per counted event
/// plus static power. Each default names its source. The papers give few absolute numbers
/// (NDP spec §5.3: "only relative results can be compared"; NUBA spec §6.1 uses GPUWattch
/// and DSENT, which a Rust project cannot run), so figures marked *placeholder* are
/// GPUWattch-style orders of magnitude, meant for comparing configurations, not for
/// absolute watts.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EnergyCfg {
    /// Inter-node links (GPU-GPU, hub ports, memory network), pJ per bit sent, every bit
    /// including headers. NDP spec §5.3: off-chip link 2 pJ/bit [Poulton et al. 2007].
    pub inter_node_pj_per_bit: f64,
    /// Crossbar ports between the L2 / network ingress and the memory channels, pJ per bit.
    /// NDP spec §5.3: on-die wires ≈ 0.2 pJ/bit/mm [Keckler et al., IEEE Micro 2011] over an
    /// average crossbar distance of 12 mm = 2.4 pJ/bit.
    pub crossbar_pj_per_bit: f64,
    /// SM ↔ L2 slice ports, pJ per bit; the same on-die wire figure as the crossbar
    /// (NDP spec §5.3, Keckler et al. 2011: 0.2 pJ/bit/mm × 12 mm).
    pub sm_l2_pj_per_bit: f64,
    /// L1 data cache, pJ per line request that probes it (tag + one line of data).
    /// Keckler et al. 2011: a 256-bit access to an 8 KB SRAM ≈ 50 pJ (40 nm); a 128 B line
    /// is four such accesses = 200 pJ.
    pub l1_access_pj: f64,
    /// L2 slice, pJ per access (tag + data). *Placeholder*: twice the L1 figure for the
    /// larger, banked arrays (GPUWattch style, NDP spec §5.3 \[DEFAULT\]).
    pub l2_access_pj: f64,
    /// DRAM row activation plus its precharge, nJ per ACT. NDP spec §5.3: 11.8 nJ per 4 KB
    /// row [Son et al. SC'14]; scaled linearly to the 2 KB row of the default HBM2 channel
    /// (`dram.row_bytes`) = 5.9 nJ.
    pub dram_activate_nj: f64,
    /// DRAM read, pJ per bit transferred. NDP spec §5.3: row-buffer read 4 pJ/bit (Rambus
    /// model, [Vogelsang MICRO'10]); close to HBM2's ≈ 3.9 pJ/bit [O'Connor et al. MICRO'17].
    pub dram_read_pj_per_bit: f64,
    /// DRAM write, pJ per bit; NDP spec §5.3 \[DEFAULT\]: the read figure.
    pub dram_write_pj_per_bit: f64,
    /// pJ per warp instruction (32 lanes, including fetch, decode, register file) of each
    /// class. *Placeholders* in GPUWattch style (NDP spec §5.3 \[DEFAULT\]): Keckler et al.
    /// 2011 put an FMA near 20-50 pJ per lane at 40 nm, so ≈ 1 nJ per 32-lane warp
    /// instruction; integer ops half that, SFU ops twice.
    pub int_inst_pj: f64,
    pub fp_inst_pj: f64,
    pub sfu_inst_pj: f64,
    /// Loads, stores and atomics: address generation and the load/store unit (the cache
    /// and network energy is charged separately).
    pub mem_inst_pj: f64,
    /// Branches, barriers, exits: issue overhead only.
    pub other_inst_pj: f64,
    /// Static (leakage + clock) power per SM, W. *Placeholder*: an order of magnitude for
    /// a Fermi/Volta-class SM, from no paper of this project.
    pub sm_static_w: f64,
    /// Static power per node outside the SMs (L2, crossbar, memory controllers), W.
    /// *Placeholder* (GPUWattch style).
    pub node_static_w: f64,
    /// Static (background) power per DRAM channel, W. *Placeholder*: an order of magnitude
    /// for an HBM2 channel's background power, from no paper of this project.
    pub dram_channel_static_w: f64,
    /// pJ per NSU warp instruction (NDP's memory-stack SIMD units). NDP spec §5.3
    /// \[DEFAULT\]: "the NSU at the SM's per-instruction energy"; the NSU runs its blocks'
    /// floating-point arithmetic and buffer reads and writes, so the SM's FP figure.
    pub nsu_inst_pj: f64,
    /// Static power per NSU, W, drawn only by runs that offload (the NSUs are power-gated
    /// when nothing is offloaded, ndp.md §5.4). NDP spec §5.3 \[DEFAULT\]: the SM's
    /// (`sm_static_w`), *placeholder* like it; the paper deletes the leakage of the units
    /// an NSU lacks but gives no figure.
    pub nsu_static_w: f64,
}

impl Default for EnergyCfg {
    fn default() -> Self {
        EnergyCfg {
            inter_node_pj_per_bit: 2.0,
            crossbar_pj_per_bit: 2.4,
            sm_l2_pj_per_bit: 2.4,
            l1_access_pj: 200.0,
            l2_access_pj: 400.0,
            dram_activate_nj: 5.9,
            dram_read_pj_per_bit: 4.0,
            dram_write_pj_per_bit: 4.0,
            int_inst_pj: 500.0,
            fp_inst_pj: 1000.0,
            sfu_inst_pj: 2000.0,
            mem_inst_pj: 500.0,
            other_inst_pj: 200.0,
            sm_static_w: 1.0,
            node_static_w: 10.0,
            dram_channel_static_w: 0.5,
            nsu_inst_pj: 1000.0,
            nsu_static_w: 1.0,
        }
    }
}

impl EnergyCfg {
    /// Every parameter with its key under `[energy]`.
    pub fn fields(&self) -> [(&'static str, f64); 18] {
        [
            ("inter_node_pj_per_bit", self.inter_node_pj_per_bit),
            ("crossbar_pj_per_bit", self.crossbar_pj_per_bit),
            ("sm_l2_pj_per_bit", self.sm_l2_pj_per_bit),
            ("l1_access_pj", self.l1_access_pj),
            ("l2_access_pj", self.l2_access_pj),
            ("dram_activate_nj", self.dram_activate_nj),
            ("dram_read_pj_per_bit", self.dram_read_pj_per_bit),
            ("dram_write_pj_per_bit", self.dram_write_pj_per_bit),
            ("int_inst_pj", self.int_inst_pj),
            ("fp_inst_pj", self.fp_inst_pj),
            ("sfu_inst_pj", self.sfu_inst_pj),
            ("mem_inst_pj", self.mem_inst_pj),
            ("other_inst_pj", self.other_inst_pj),
            ("sm_static_w", self.sm_static_w),
            ("node_static_w", self.node_static_w),
            ("dram_channel_static_w", self.dram_channel_static_w),
            ("nsu_inst_pj", self.nsu_inst_pj),
            ("nsu_static_w", self.nsu_static_w),
        ]
    }
}

/// Hardware coherence protocol of the L2s (issue 7 §2).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// Software coherence only: the kernel-boundary action (`l2.kernel_boundary`).
    None,
    /// A home-side sharer directory (REC §2.3-§2.4): a remote read records the requester as
    /// a sharer at the home; a write reaching the home invalidates every other sharer's L2
    /// copy (and their L1 copies too with `coherence.inval_scope = "l2-and-l1"`).
    Directory,
}

/// Which caches a directory invalidation reaches (`coherence.inval_scope`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum InvalScope {
    /// The L2 only, the papers' rule (REC §2.3 and rec.md §6.13: "`Inv` targets the L2
    /// only. L1s are software-coherent (invalidated at kernel start)"; NUBA §5.3 and
    /// nuba.md A11: write-invalidate of the peer LLC partition's copy). An L1 may then
    /// serve a copy a write in the same kernel made stale (the GPU memory model allows it
    /// until the next acquire); the coherence checker holds L1 hits to the versions
    /// completed at the kernel's start.
    L2,
    /// Not the papers' rule: an invalidation also drops the line from every L1 of the
    /// node and stops the fills in flight there, as is a write passing the writer's node
    /// L2 and a write performed at the home (the home node's other L1s); the checker then
    /// holds L1 hits to the versions completed at that moment. What Locus did before
    /// session 35.
    L2AndL1,
}

/// Organisation of the home-side directory (`crate::coherence`, rec.md §2.3-§3.7).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DirectoryKind {
    /// Exact, unbounded per-line sharer sets: the ideal directory (REC §2.8, rec.md §6.17),
    /// no evict-initiated invalidations. `full-map` is accepted as an alias.
    #[serde(alias = "full-map")]
    Ideal,
    /// The paper's baseline: one line per entry, set-associative, FIFO; every eviction
    /// invalidates the sharers (rec.md §2.3). "2x entries" = a larger `directory.entries`.
    LineFifo,
    /// HMG as REC models it: one sharer vector per aligned 4-line region, FIFO, writes and
    /// evictions invalidate all four lines (rec.md §2.7).
    Hmg,
    /// REC: a base + per-line position and sharer bits over an aligned
    /// `directory.range_bytes` range, per-line write invalidations (rec.md §3).
    Rec,
}

impl DirectoryKind {
    /// The name used in configuration and statistics.
    pub fn name(self) -> &'static str {
        match self {
            DirectoryKind::Ideal => "ideal",
            DirectoryKind::LineFifo => "line-fifo",
            DirectoryKind::Hmg => "hmg",
            DirectoryKind::Rec => "rec",
        }
    }
}

/// Entry replacement of the REC directory (rec.md §3.7).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Replacement {
    /// LRU per set, invalid ways first; recency at allocation and remote read/write hits.
    Lru,
    /// Insertion order (hits do not refresh): REC Fig. 18's comparison point.
    Fifo,
}

/// The home-side directory (used when `coherence.protocol = "directory"`; rec.md Table 2:
/// 8K entries, 8-way, at the home L2 controller).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DirectoryCfg {
    /// Organisation: `ideal` (default, unbounded), `line-fifo`, `hmg` or `rec`.
    pub kind: DirectoryKind,
    /// Entries per home node (bounded kinds).
    pub entries: u32,
    /// Associativity (bounded kinds); `entries` must be a multiple of it.
    pub ways: u32,
    /// REC's coalescing range, bytes: `system.line_bytes` times a power of two of at least
    /// 2 (rec.md Table 1: 128 B, 256 B, 1 KB (default), 4 KB).
    pub range_bytes: u64,
    /// REC's entry replacement (`lru` default, `fifo`); `line-fifo` and `hmg` are FIFO, as
    /// the paper models them.
    pub replacement: Replacement,
}

impl Default for DirectoryCfg {
    fn default() -> Self {
        DirectoryCfg {
            kind: DirectoryKind::Ideal,
            entries: 8192,
            ways: 8,
            range_bytes: 1024,
            replacement: Replacement::Lru,
        }
    }
}

/// Coherence of cached remote data.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CoherenceCfg {
    pub protocol: Protocol,
    /// Size of an invalidation packet, bytes (a header: the line address).
    pub inv_bytes: u32,
    /// Run the coherence checker (shadow versions; costs time and memory, for tests).
    pub check: bool,
    /// Which caches a directory invalidation reaches: `"l2"` (the papers' rule, default)
    /// or `"l2-and-l1"` ([`InvalScope`]).
    pub inval_scope: InvalScope,
}

impl Default for CoherenceCfg {
    fn default() -> Self {
        CoherenceCfg {
            protocol: Protocol::None,
            inv_bytes: 16,
            check: false,
            inval_scope: InvalScope::L2,
        }
    }
}

impl Config {
    /// Every node as built: `system.node_kinds` resolved against `[[node_kinds]]`, each
    /// field a kind leaves out taken from `system`, `l1` and `l2`. Without node kinds,
    /// `system.nodes` equal default nodes. An undefined kind name resolves to the default
    /// node here; [`Config::validate`] refuses it.
    pub fn node_specs(&self) -> Vec<NodeSpec> {
        let s = &self.system;
        (0..s.nodes as usize)
            .map(|n| {
                let k = s
                    .node_kinds
                    .get(n)
                    .and_then(|name| self.node_kinds.iter().find(|k| &k.name == name));
                NodeSpec {
                    kind: k.map(|k| k.name.clone()),
                    sms: k.and_then(|k| k.sms).unwrap_or(s.sms_per_node),
                    sm_clock_ghz: k.and_then(|k| k.sm_clock_ghz).unwrap_or(s.sm_clock_ghz),
                    l1_bytes: k.and_then(|k| k.l1_bytes).unwrap_or(self.l1.bytes),
                    l2_bytes: k.and_then(|k| k.l2_bytes).unwrap_or(self.l2.bytes_per_node),
                }
            })
            .collect()
    }

    /// SMs of every node (`node_specs().sms`).
    pub fn sms_of_nodes(&self) -> Vec<u32> {
        self.node_specs().iter().map(|n| n.sms).collect()
    }

    /// Check `[[node_kinds]]` and `system.node_kinds` (issue 7 §4).
    fn validate_node_kinds(&self) -> Result<(), String> {
        let s = &self.system;
        let defined: Vec<&str> = self.node_kinds.iter().map(|k| k.name.as_str()).collect();
        for (i, k) in self.node_kinds.iter().enumerate() {
            if k.name.is_empty() {
                return Err(format!(
                    "node_kinds[{i}].name is empty: give each [[node_kinds]] table a name that system.node_kinds refers to"
                ));
            }
            if defined[..i].contains(&k.name.as_str()) {
                return Err(format!(
                    "node_kinds[{i}].name = \"{}\": defined twice; give each kind its own name",
                    k.name
                ));
            }
            if let Some(n) = k.sms.filter(|&n| n > 1024) {
                return Err(format!(
                    "node_kinds[{i}].sms = {n} (kind \"{}\"): must be 0..=1024 (0 = a memory-only node)",
                    k.name
                ));
            }
            if let Some(g) = k.sm_clock_ghz {
                check_range(
                    &format!("node_kinds[{i}].sm_clock_ghz"),
                    g,
                    CLOCK_GHZ,
                    "GHz",
                    "e.g. 1 for a kind at half a 2 GHz GPU's clock",
                )?;
            }
            if let Some(b) = k.l1_bytes {
                if b as u64 > 64 << 20 {
                    return Err(format!(
                        "node_kinds[{i}].l1_bytes = {b}: at most {}",
                        64 << 20
                    ));
                }
                check_cache("l1", b as u64, self.l1.ways, s.line_bytes, 1).map_err(|_| {
                    format!(
                        "node_kinds[{i}].l1_bytes = {b}: with l1.ways = {} and {} B lines this is not a power-of-two number of sets; use e.g. 16384 or 65536",
                        self.l1.ways, s.line_bytes
                    )
                })?;
            }
            if let Some(b) = k.l2_bytes {
                if b > 1 << 30 {
                    return Err(format!(
                        "node_kinds[{i}].l2_bytes = {b}: at most {}",
                        1u64 << 30
                    ));
                }
                let l2 = &self.l2;
                check_cache("l2", b, l2.ways, s.line_bytes, l2.slices_per_node).map_err(|_| {
                    format!(
                        "node_kinds[{i}].l2_bytes = {b}: over l2.slices_per_node = {} slices of l2.ways = {} ways and {} B lines this is not a power-of-two number of sets; use e.g. 524288 or 2097152",
                        l2.slices_per_node, l2.ways, s.line_bytes
                    )
                })?;
            }
        }
        if s.node_kinds.is_empty() {
            return Ok(());
        }
        if s.node_kinds.len() != s.nodes as usize {
            return Err(format!(
                "system.node_kinds has {} entries for system.nodes = {}: name one kind per node, e.g. system.node_kinds = [\"gpu\", \"stack\"], or leave it empty for identical nodes",
                s.node_kinds.len(),
                s.nodes
            ));
        }
        for (n, name) in s.node_kinds.iter().enumerate() {
            if !defined.contains(&name.as_str()) {
                let hint = locus_workload::nearest(name, &defined)
                    .map(|d| format!(" (did you mean `{d}`?)"))
                    .unwrap_or_default();
                return Err(format!(
                    "system.node_kinds[{n}] = \"{name}\": no [[node_kinds]] table has that name{hint}; define it, e.g. [[node_kinds]] name = \"{name}\" sms = 0 in a --config file or --set 'node_kinds=[{{name=\"{name}\",sms=0}}]'; defined kinds: [{}]",
                    defined.join(", ")
                ));
            }
        }
        if self.sms_of_nodes().iter().all(|&n| n == 0) {
            return Err(format!(
                "system.node_kinds = [{}]: every node has 0 SMs, so no thread block can run; give at least one kind SMs (node_kinds[..].sms, default system.sms_per_node)",
                s.node_kinds.join(", ")
            ));
        }
        Ok(())
    }

    /// NUBA §5 replication settings.
    fn check_replication(&self) -> Result<(), String> {
        let r = &self.replication;
        if r.kind == ReplicationKind::None {
            return Ok(());
        }
        if self.l2.organisation != L2Organisation::HomeSide {
            return Err(format!(
                "replication.kind = \"{}\" needs l2.organisation = \"home-side\" (NUBA §3.5: replicas are the only remote lines an LLC slice holds); set --set l2.organisation=home-side or replication.kind=none",
                if r.kind == ReplicationKind::Full { "full" } else { "mdr" }
            ));
        }
        if self.l2.kernel_boundary != KernelBoundary::FlushRemote {
            return Err(
                "replication needs l2.kernel_boundary = \"flush-remote\": replicas of data read-only in one kernel must be dropped before the next may write it (NUBA §5.3)".into(),
            );
        }
        if r.epoch_cycles == 0 || r.epoch_cycles > 1 << 40 {
            return Err(format!(
                "replication.epoch_cycles = {}: must be 1..=2^40 (NUBA §5.4: 20000)",
                r.epoch_cycles
            ));
        }
        if r.sample_sets == 0 {
            return Err("replication.sample_sets = 0: must be at least 1 (NUBA §5.4: 8)".into());
        }
        Ok(())
    }

    /// Check every value for consistency; the message names the key and the fix.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.system;
        let p2 = |v: u64| v.is_power_of_two();
        if s.nodes == 0 || !p2(s.nodes as u64) || s.nodes > 256 {
            return Err(format!(
                "system.nodes = {}: must be a power of two from 1 to 256",
                s.nodes
            ));
        }
        if s.kernel_launch_ns > 1_000_000 {
            return Err(format!(
                "system.kernel_launch_ns = {}: at most 1,000,000 (1 ms; real launches cost a few us)",
                s.kernel_launch_ns
            ));
        }
        if s.block_dispatch_ps > 1_000_000 || (s.block_dispatch_ps > 0 && s.nodes > 1) {
            return Err(format!(
                "system.block_dispatch_ps = {}: at most 1,000,000 (1 us), and on one-node machines only (nodes = {}): the dispatch rate is one GPU's block scheduler",
                s.block_dispatch_ps, s.nodes
            ));
        }
        if s.sms_per_node == 0 || s.sms_per_node > 1024 {
            return Err(format!(
                "system.sms_per_node = {}: must be 1..=1024",
                s.sms_per_node
            ));
        }
        check_range(
            "system.sm_clock_ghz",
            s.sm_clock_ghz,
            CLOCK_GHZ,
            "GHz",
            "e.g. 2 (CODA Table 1)",
        )?;
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
        if s.sector_bytes != 0 {
            let sb = s.sector_bytes;
            if !p2(sb as u64) || sb < 32 || sb > s.line_bytes {
                return Err(format!(
                    "system.sector_bytes = {sb}: must be 0 (whole lines) or a power of two from 32 to system.line_bytes ({})",
                    s.line_bytes
                ));
            }
            let why = if self.l2.organisation != L2Organisation::RequesterSide {
                Some("l2.organisation is not requester-side")
            } else if self.coherence.protocol == Protocol::Directory {
                Some("coherence.protocol is \"directory\"")
            } else if !matches!(self.replication.kind, ReplicationKind::None) {
                Some("LLC replication is on")
            } else if self.ndp.offload != crate::ndp::OffloadMode::None {
                Some("NDP offload is on")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(format!(
                    "system.sector_bytes = {sb}: sectored caches are modelled with the requester-side L2 only, and {why}; set system.sector_bytes = 0"
                ));
            }
        }
        let fb = self.l2.dram_fetch_bytes;
        if fb != 0 {
            let lo = if s.sector_bytes == 0 {
                s.line_bytes
            } else {
                s.sector_bytes
            };
            if s.sector_bytes == 0 || !p2(fb as u64) || fb < lo || fb > s.line_bytes {
                return Err(format!(
                    "l2.dram_fetch_bytes = {fb}: must be 0, or with system.sector_bytes set a power of two from it ({}) to system.line_bytes ({})",
                    s.sector_bytes, s.line_bytes
                ));
            }
        }
        let f = self.mapping.fgp_stripe_bytes;
        if !p2(f) || f < s.line_bytes as u64 || f > s.page_bytes {
            return Err(format!(
                "mapping.fgp_stripe_bytes = {f}: must be a power of two from system.line_bytes ({}) to system.page_bytes ({}) (CODA spec A1)",
                s.line_bytes, s.page_bytes
            ));
        }
        let m = &self.memory;
        // a non-power-of-two count (K80's 6 GDDR5 controllers) is interleaved by modulo
        // and needs one stack
        if m.channels_per_node == 0 || (!p2(m.channels_per_node as u64) && m.stacks_per_node != 1) {
            return Err(format!(
                "memory.channels_per_node = {}: must be a power of two (any count >= 1 with memory.stacks_per_node = 1)",
                m.channels_per_node
            ));
        }
        if m.channel_xor && !p2(m.channels_per_node as u64) {
            return Err(format!(
                "memory.channel_xor = true needs a power-of-two memory.channels_per_node (it is {}); set memory.channel_xor = false",
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
        if self.l2.set_index == SetIndex::Partition {
            crate::mapping::slice_select_fields(self)
                .map_err(|e| format!("l2.set_index = \"partition\": {e}"))?;
        }
        let spc = self.l2.slices_per_channel;
        if spc > 0 && (self.l2.memory_side || self.l2.slices_per_node != m.channels_per_node * spc)
        {
            return Err(format!(
                "l2.slices_per_channel = {spc}: needs l2.slices_per_node ({}) = memory.channels_per_node ({}) x {spc} and l2.memory_side = false; set l2.slices_per_channel = 0 to hash lines over all slices",
                self.l2.slices_per_node, m.channels_per_node
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
        self.validate_node_kinds()?;
        for (k, v) in [
            ("l2.slice_gbps", l2.slice_gbps),
            ("noc.channel_port_gbps", self.noc.channel_port_gbps),
            ("noc.sm_l2_request_gbps", self.noc.sm_l2_request_gbps),
            (
                "noc.sm_port_gbps",
                if self.noc.sm_port_gbps == 0.0 {
                    1.0
                } else {
                    self.noc.sm_port_gbps
                },
            ),
            ("interconnect.link_gbps", self.interconnect.link_gbps),
            ("interconnect.local_gbps", self.interconnect.local_gbps),
        ] {
            check_gbps(k, v)?;
        }
        for (i, l) in self.interconnect.links.iter().enumerate() {
            check_gbps(&format!("interconnect.links[{i}].gbps"), l.gbps)?;
        }
        // the network must connect every node (checked by building it)
        crate::topology::build(self)?;
        self.check_physical_bounds()?;
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
        for (i, &n) in self.placement.random_nodes.iter().enumerate() {
            if n >= s.nodes {
                return Err(format!(
                    "placement.random_nodes[{i}] = {n}: must be below system.nodes ({}); list the nodes that hold pages",
                    s.nodes
                ));
            }
        }
        for (i, &n) in self.interconnect.no_transit.iter().enumerate() {
            if n >= s.nodes {
                return Err(format!(
                    "interconnect.no_transit[{i}] = {n}: must be a node id below system.nodes ({})",
                    s.nodes
                ));
            }
        }
        if !self.interconnect.no_transit.is_empty()
            && self.interconnect.topology != Topology::Custom
        {
            return Err("interconnect.no_transit applies to topology = \"custom\" only; remove it or use a [[interconnect.links]] list".into());
        }
        self.ndp.validate(s.nodes)?;
        if self.ndp.offload != crate::ndp::OffloadMode::None
            && self.node_specs()[self.ndp.gpu_node as usize].sms == 0
        {
            return Err(format!(
                "ndp.gpu_node = {}: node has no SMs, so nothing can offload; name the GPU node (ndp-8hmc: 0) or set ndp.offload = \"none\"",
                self.ndp.gpu_node
            ));
        }
        let th = self.placement.lab_threshold;
        if !(0.0..=1.0).contains(&th) {
            return Err(format!(
                "placement.lab_threshold = {th}: must be in [0, 1] (NPB lies in [1/n, 1]; NUBA §4.2 uses 0.9)"
            ));
        }
        if self.placement.migration != MigrationKind::None {
            let iv = self.placement.migration_interval_cycles;
            if iv == 0 || iv > MAX_LATENCY_CYCLES as u64 * 100 {
                return Err(format!(
                    "placement.migration_interval_cycles = {iv}: must be in [1, {}] SM cycles (nuba.md A23 uses 100000)",
                    MAX_LATENCY_CYCLES as u64 * 100
                ));
            }
            let r = self.placement.migration_ratio;
            if !(r.is_finite() && r > 0.0) {
                return Err(format!(
                    "placement.migration_ratio = {r}: must be a positive number (nuba.md A23 uses 2)"
                ));
            }
        }
        let f = self.placement.replication_min_free;
        if !(0.0..1.0).contains(&f) {
            return Err(format!(
                "placement.replication_min_free = {f}: must be in [0, 1) (nuba.md A23 uses 0.1)"
            ));
        }
        self.check_replication()?;
        if self.placement.samples == 0 {
            return Err("placement.samples must be at least 1".into());
        }
        if self.coherence.protocol == Protocol::Directory && s.nodes > 64 {
            return Err(format!(
                "coherence.protocol = \"directory\" with system.nodes = {}: the full-map directory tracks at most 64 sharers (a 64-bit mask); use 64 nodes or fewer",
                s.nodes
            ));
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
        self.check_directory()?;
        let inv = self.coherence.inv_bytes;
        if inv == 0 || inv > 4096 {
            return Err(format!(
                "coherence.inv_bytes = {inv}: must be 1..=4096 (an invalidation is a header-sized packet, 16 B by default)"
            ));
        }
        // DRAM messages start with the field name: prefix the section to give the full key
        self.dram.validate().map_err(|e| format!("dram.{e}"))?;
        for (k, v) in self.energy.fields() {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!(
                    "energy.{k} = {v}: must be a finite number >= 0 (0 leaves that part out)"
                ));
            }
        }
        self.spaces.validate()?;
        crate::spaces::validate_place(&self.place, self.spaces.enabled)?;
        if self.run.sample_cycles > 1 << 40 {
            return Err(format!(
                "run.sample_cycles = {}: at most 2^40 (0 turns sampling off)",
                self.run.sample_cycles
            ));
        }
        Ok(())
    }
}

impl Config {
    /// `[directory]`: sizes and the REC range (checked whatever the protocol, so a
    /// preset cannot carry a broken directory that a later `--set` would expose).
    fn check_directory(&self) -> Result<(), String> {
        let d = &self.directory;
        if d.ways == 0 || d.ways > 1024 {
            return Err(format!(
                "directory.ways = {}: must be 1..=1024 (8 in REC Table 2)",
                d.ways
            ));
        }
        if d.entries == 0 || d.entries > 1 << 24 {
            return Err(format!(
                "directory.entries = {}: must be 1..=16777216 (8192 in REC Table 2)",
                d.entries
            ));
        }
        if !d.entries.is_multiple_of(d.ways) {
            return Err(format!(
                "directory.entries = {} is not divisible by directory.ways = {}: use a multiple of the ways, e.g. {}",
                d.entries,
                d.ways,
                (d.entries / d.ways).max(1) * d.ways
            ));
        }
        let line = self.system.line_bytes as u64;
        let r = d.range_bytes;
        let lines = r / line.max(1);
        if !r.is_multiple_of(line.max(1)) || lines < 2 || !lines.is_power_of_two() || lines > 1024 {
            return Err(format!(
                "directory.range_bytes = {r}: must be system.line_bytes ({line}) times a power of two from 2 to 1024, e.g. {} (16 lines; REC Table 1: 128, 256, 1024, 4096 with 64 B lines)",
                16 * line
            ));
        }
        Ok(())
    }
}

/// Accepted SM clock, GHz: 10 MHz to 100 GHz. Outside it the picosecond clock degenerates
/// (a 1e-6 GHz clock makes each SM cycle a millisecond of DRAM ticks: hours of host time).
pub const CLOCK_GHZ: (f64, f64) = (0.01, 100.0);
/// Accepted bandwidth of every port and link, GB/s: 10 MB/s to 1 PB/s. A zero or near-zero
/// bandwidth never drains a queue (the run hangs); the upper end is beyond any machine.
pub const BANDWIDTH_GBPS: (f64, f64) = (0.01, 1e6);
/// Largest latency in SM cycles (a million cycles: 0.5 ms at 2 GHz, far above any real
/// cache, network or page walk) for every `*_latency` key.
pub const MAX_LATENCY_CYCLES: u32 = 1_000_000;

/// `key = v` must be a finite number in `[lo, hi]` (`unit` and `example` go into the message).
pub(crate) fn check_range(
    key: &str,
    v: f64,
    (lo, hi): (f64, f64),
    unit: &str,
    example: &str,
) -> Result<(), String> {
    if v.is_finite() && (lo..=hi).contains(&v) {
        return Ok(());
    }
    Err(format!(
        "{key} = {v}: must be between {lo} and {hi} {unit}, {example}; a value outside makes the run hang or meaningless"
    ))
}

impl Config {
    /// Physical sanity bounds on latencies and per-cycle widths (issue 7 "bad input"): a
    /// value outside them would make a run hang, take hours, or exhaust host memory.
    fn check_physical_bounds(&self) -> Result<(), String> {
        let (sm, l1, l2, noc, ic, tlb) = (
            &self.sm,
            &self.l1,
            &self.l2,
            &self.noc,
            &self.interconnect,
            &self.tlb,
        );
        for (k, v) in [
            ("sm.int_latency", sm.int_latency),
            ("sm.fp_latency", sm.fp_latency),
            ("sm.sfu_latency", sm.sfu_latency),
            ("sm.branch_latency", sm.branch_latency),
            ("sm.smem_latency", sm.smem_latency),
            ("l1.hit_latency", l1.hit_latency),
            ("l2.hit_latency", l2.hit_latency),
            ("noc.sm_l2_latency", noc.sm_l2_latency),
            ("noc.xbar_latency", noc.xbar_latency),
            ("interconnect.latency", ic.latency),
            ("tlb.l1_latency", tlb.l1_latency),
            ("tlb.l2_latency", tlb.l2_latency),
            ("tlb.walk_latency", tlb.walk_latency),
            (
                "placement.migration_cycles",
                self.placement.migration_cycles,
            ),
        ] {
            if v > MAX_LATENCY_CYCLES {
                return Err(format!(
                    "{k} = {v}: at most {MAX_LATENCY_CYCLES} SM cycles (a latency beyond any real machine)"
                ));
            }
        }
        for (k, v, max) in [
            ("sm.issue_width", sm.issue_width as u64, 64),
            ("sm.lsu_lines_per_cycle", sm.lsu_lines_per_cycle as u64, 64),
            (
                "sm.max_outstanding_writes",
                sm.max_outstanding_writes as u64,
                1 << 16,
            ),
            ("sm.max_threads", sm.max_threads as u64, 1 << 16),
            ("sm.registers", sm.registers as u64, 1 << 24),
            ("sm.smem_bytes", sm.smem_bytes as u64, 1 << 30),
            ("interconnect.header_bytes", ic.header_bytes as u64, 4096),
            ("placement.samples", self.placement.samples as u64, 1 << 16),
            ("system.page_bytes", self.system.page_bytes, 1 << 30),
            ("memory.bytes_per_node", self.memory.bytes_per_node, 1 << 44),
            (
                "memory.channel_interleave_bytes",
                self.memory.channel_interleave_bytes,
                1 << 30,
            ),
            (
                "memory.stack_interleave_bytes",
                self.memory.stack_interleave_bytes,
                1 << 30,
            ),
            (
                "mapping.fgp_stripe_bytes",
                self.mapping.fgp_stripe_bytes,
                1 << 30,
            ),
        ] {
            if v > max {
                return Err(format!("{k} = {v}: at most {max}"));
            }
        }
        Ok(())
    }
}

/// A bandwidth in GB/s must be finite and within [`BANDWIDTH_GBPS`]: below, a packet would
/// take seconds of simulated time per byte; above, serialisation rounds to nothing.
pub fn check_gbps(key: &str, v: f64) -> Result<(), String> {
    check_range(key, v, BANDWIDTH_GBPS, "GB/s", "e.g. 16 or 32")
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
