//! The statistics tree: one serialisable structure with a schema version, holding totals,
//! per-kernel figures, per node, per link, per cache, per data object. Everything under
//! `sim` is a pure function of (configuration, workload, seed) and so bit-identical between
//! runs; host-side speed figures live apart under `host`.

use crate::placement::{coda::Decision, PlacementStats};
use serde::Serialize;

/// Version of the JSON layout; bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Raw event counters, kept as plain integers so per-kernel figures are differences of two
/// snapshots.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Counters {
    pub warp_insts: u64,
    pub thread_insts: u64,
    pub mem_insts: u64,
    /// Line requests sent by SMs to their L1 (loads, stores, atomics).
    pub l1_requests: u64,
    pub l1_hits: u64,
    pub l1_misses: u64,
    pub l1_mshr_merges: u64,
    pub l2_accesses: u64,
    pub l2_hits: u64,
    pub l2_misses: u64,
    pub l2_mshr_merges: u64,
    pub l2_writebacks: u64,
    pub tlb_l1_hits: u64,
    pub tlb_l1_misses: u64,
    pub tlb_l2_hits: u64,
    pub tlb_l2_misses: u64,
    /// Memory accesses (L2 misses, uncached remote accesses, atomics, write-backs) whose
    /// home is the requesting node (CODA spec A8).
    pub local_accesses: u64,
    pub remote_accesses: u64,
    pub local_bytes: u64,
    pub remote_bytes: u64,
    /// L1 misses classified by home (spec A8, L1-miss level).
    pub l1_miss_local: u64,
    pub l1_miss_remote: u64,
    pub dram_reads: u64,
    pub dram_writes: u64,
    /// Bytes the DRAM reads and writes moved: a line each, or with sectored caches
    /// (`system.sector_bytes`) the sectors (`l2.dram_fetch_bytes` blocks) each moved.
    pub dram_read_bytes: u64,
    pub dram_write_bytes: u64,
    /// Load instructions issued (each completes exactly once).
    pub load_insts: u64,
    /// Loads completed and the sum of their latencies (issue to data back at the SM), ps.
    pub loads_completed: u64,
    pub load_latency_ps: u64,
    /// Requests created / retired (conservation: equal once drained).
    pub reqs_created: u64,
    pub reqs_retired: u64,
    pub blocks: u64,
    /// Pages migrated (migration-based first touch) and the bytes copied.
    pub migrations: u64,
    pub migrated_bytes: u64,
    /// First-touch page faults paid (`placement.first_touch_fault_cycles`).
    pub page_faults: u64,
    /// Memory instructions by space and kind: index `space * 3 + kind` with space in
    /// `Space::ALL` order and kind load, store, atomic (issue 7 §1). Reported as
    /// [`Summary::mem_insts_by_space`].
    #[serde(skip)]
    pub mem_by_space: [u64; 15],
    /// Warp instructions issued by class, indexed by `InstClass as usize` (order of
    /// `InstClass::ALL`: int, fp, sfu, branch, load, store, atomic, barrier, exit); the
    /// energy model charges each class its own figure.
    pub warp_insts_by_class: [u64; 9],
}

/// Index of a memory instruction in [`Counters::mem_by_space`].
#[inline]
pub fn mem_index(space: locus_workload::Space, class: locus_workload::InstClass) -> usize {
    use locus_workload::InstClass;
    let kind = match class {
        InstClass::Load => 0,
        InstClass::Store => 1,
        _ => 2,
    };
    space as usize * 3 + kind
}

/// Memory instructions of one space, by kind.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct MemKinds {
    pub load: u64,
    pub store: u64,
    pub atomic: u64,
}

impl Counters {
    /// `self - earlier`, field by field.
    pub fn since(&self, e: &Counters) -> Counters {
        let mut mem_by_space = [0; 15];
        for (i, m) in mem_by_space.iter_mut().enumerate() {
            *m = self.mem_by_space[i] - e.mem_by_space[i];
        }
        macro_rules! d {
            ($($f:ident),*) => {
                Counters {
                    $($f: self.$f - e.$f,)*
                    mem_by_space,
                    warp_insts_by_class: std::array::from_fn(|i| {
                        self.warp_insts_by_class[i] - e.warp_insts_by_class[i]
                    }),
                }
            };
        }
        d!(
            warp_insts,
            thread_insts,
            mem_insts,
            l1_requests,
            l1_hits,
            l1_misses,
            l1_mshr_merges,
            l2_accesses,
            l2_hits,
            l2_misses,
            l2_mshr_merges,
            l2_writebacks,
            tlb_l1_hits,
            tlb_l1_misses,
            tlb_l2_hits,
            tlb_l2_misses,
            local_accesses,
            remote_accesses,
            local_bytes,
            remote_bytes,
            l1_miss_local,
            l1_miss_remote,
            dram_reads,
            dram_writes,
            dram_read_bytes,
            dram_write_bytes,
            load_insts,
            loads_completed,
            load_latency_ps,
            reqs_created,
            reqs_retired,
            blocks,
            migrations,
            migrated_bytes,
            page_faults
        )
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Derived rates of a [`Counters`] over a time span.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub cycles: u64,
    pub ns: f64,
    pub ipc: f64,
    pub l1_hit_rate: f64,
    pub l2_hit_rate: f64,
    pub tlb_l1_hit_rate: f64,
    pub remote_fraction: f64,
    pub mean_load_latency_ns: f64,
    /// Warp instructions per memory instruction.
    pub insts_per_mem_inst: f64,
    /// Memory instructions by space (global, shared, local, constant, texture) and kind
    /// (load, store, atomic); spaces never used are left out.
    pub mem_insts_by_space: std::collections::BTreeMap<String, MemKinds>,
    pub counters: Counters,
}

impl Summary {
    pub fn new(c: &Counters, ps: u64, cycle_ps: u64) -> Summary {
        let cycles = ps / cycle_ps.max(1);
        Summary {
            cycles,
            ns: ps as f64 / 1000.0,
            ipc: ratio(c.warp_insts, cycles),
            l1_hit_rate: ratio(c.l1_hits, c.l1_hits + c.l1_misses),
            l2_hit_rate: ratio(c.l2_hits, c.l2_hits + c.l2_misses),
            tlb_l1_hit_rate: ratio(c.tlb_l1_hits, c.tlb_l1_hits + c.tlb_l1_misses),
            remote_fraction: ratio(c.remote_accesses, c.local_accesses + c.remote_accesses),
            mean_load_latency_ns: ratio(c.load_latency_ps, c.loads_completed) / 1000.0,
            insts_per_mem_inst: ratio(c.warp_insts, c.mem_insts),
            mem_insts_by_space: locus_workload::Space::ALL
                .iter()
                .map(|&sp| {
                    let i = sp as usize * 3;
                    let k = MemKinds {
                        load: c.mem_by_space[i],
                        store: c.mem_by_space[i + 1],
                        atomic: c.mem_by_space[i + 2],
                    };
                    (sp.name().to_string(), k)
                })
                .filter(|(_, k)| k.load + k.store + k.atomic > 0)
                .collect(),
            counters: *c,
        }
    }
}

/// One kernel launch.
#[derive(Clone, Debug, Serialize)]
pub struct KernelStats {
    pub index: u32,
    pub name: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub blocks_per_sm: u32,
    pub start_ns: f64,
    #[serde(flatten)]
    pub summary: Summary,
    /// Data objects this kernel wrote (stores, atomics); every other object was read-only
    /// in it (the per-kernel read-only bit, issue 7 §4).
    pub written_objects: Vec<String>,
    /// Data objects the kernel may write, as known before its first block ran (declared by
    /// the kernel, or found by a dry run when a policy asked: `System::object_read_only_in_kernel`);
    /// absent when unknown (then every object may be written). Always a superset of
    /// `written_objects` (a run that breaks this is refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub may_write_objects: Option<Vec<String>>,
    /// HMS memory spaces (`spaces.enabled`, preset `k80`): replays by cause, texture and
    /// constant cache hits and misses, shared bank conflicts; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spaces: Option<crate::spaces::SpaceCounters>,
    /// Objects placed in texture or constant memory (`[place]`) that this kernel may write,
    /// so their placement did not apply in it (both spaces are read-only in a kernel, HMS
    /// spec §2.2): its accesses to them stayed global. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub place_not_applied: Vec<String>,
}

/// DRAM totals of a node.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DramStats {
    pub reads: u64,
    pub writes: u64,
    pub bytes: u64,
    pub row_hits: u64,
    pub row_misses: u64,
    pub row_conflicts: u64,
    pub row_hit_rate: f64,
    pub activates: u64,
    pub refreshes: u64,
    pub bandwidth_gbs: f64,
    pub peak_gbs: f64,
    pub utilization: f64,
    pub mean_read_latency_ns: f64,
}

/// Per node.
#[derive(Clone, Debug, Serialize)]
pub struct NodeStats {
    pub node: u32,
    pub blocks: u64,
    pub warp_insts: u64,
    pub l1_hits: u64,
    pub l1_misses: u64,
    pub l2_hits: u64,
    pub l2_misses: u64,
    pub l2_hit_rate: f64,
    pub dram: DramStats,
    /// Heterogeneous machines only (`system.node_kinds` set; issue 7 §4): the node's kind,
    /// its SMs (0 for a memory-only node, whose blocks and instructions are then 0) and its
    /// SM clock. Absent otherwise, so homogeneous runs report exactly as before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sms: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sm_clock_ghz: Option<f64>,
}

/// Per link / port.
#[derive(Clone, Debug, Serialize)]
pub struct LinkStats {
    pub name: String,
    /// "inter-node", "crossbar" or "sm-l2" (see `noc::PortKind`).
    pub kind: String,
    pub gbps: f64,
    pub packets: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Serialisation time over the run's end or the end of the port's last reservation,
    /// whichever is later (packets of a capped run reserved past its end count in both),
    /// so it never exceeds 1.
    pub utilization: f64,
    pub mean_queue_ns: f64,
    /// Packets and bytes by message kind (read, write, response, ack, atomic,
    /// invalidation, offload, migration); kinds never sent are left out.
    pub by_kind: std::collections::BTreeMap<String, MsgStat>,
}

/// Packets and bytes of one message kind on one link.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct MsgStat {
    pub packets: u64,
    pub bytes: u64,
}

/// Per data object.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ObjectStats {
    pub name: String,
    pub bytes: u64,
    pub l1_requests: u64,
    pub local_accesses: u64,
    pub remote_accesses: u64,
    pub remote_fraction: f64,
    /// CODA placement decision, when one was made.
    pub placement: Option<String>,
}

/// Per-object raw counters (hot path).
#[derive(Clone, Copy, Debug, Default)]
pub struct ObjCounters {
    pub l1_requests: u64,
    pub local: u64,
    pub remote: u64,
}

/// One application of a run (a single workload, or one of a multiprogrammed mix).
#[derive(Clone, Debug, Serialize)]
pub struct AppStats {
    pub name: String,
    pub first_sm: usize,
    pub sms: usize,
    pub kernels: u32,
    /// When its last kernel finished.
    pub finish_cycles: u64,
    pub finish_ns: f64,
}

/// Everything that is a pure function of the inputs.
#[derive(Clone, Debug, Serialize)]
pub struct SimStats {
    pub total: Summary,
    /// A run limit (`run.max_warp_insts` / `run.max_cycles`) ended the run: the last
    /// kernel is partial and `total.cycles` is the time of the stop.
    pub stopped_by_limit: bool,
    pub kernels: Vec<KernelStats>,
    pub nodes: Vec<NodeStats>,
    pub links: Vec<LinkStats>,
    pub objects: Vec<ObjectStats>,
    pub placement: PlacementStats,
    pub coda_decisions: Vec<Decision>,
    /// DRAM row-buffer hit rate over all channels.
    pub dram_row_hit_rate: f64,
    /// DRAM bandwidth used over all channels, GB/s.
    pub dram_bandwidth_gbs: f64,
    pub apps: Vec<AppStats>,
    pub events: u64,
    /// Events handled, by kind.
    pub events_by_kind: std::collections::BTreeMap<&'static str, u64>,
    pub warnings: Vec<String>,
    /// Energy of the run by part (issue 7 §5, [`crate::energy`]).
    pub energy: crate::energy::EnergyReport,
    /// Time-series samples every `run.sample_cycles` SM cycles (absent when sampling is
    /// off, so default reports are unchanged).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<Sample>,
    /// Coherence traffic and the checker (only with `coherence.protocol = "directory"` or
    /// `coherence.check = true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coherence: Option<CoherenceStats>,
    /// Page sharing degree (only with `run.page_sharing = true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_sharing: Option<crate::page_sharing::PageSharingStats>,
    /// NUBA replication counters (only when `replication.kind` is not `none`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replication: Option<crate::replication::ReplicationStats>,
    /// Partitioned execution (only when `ndp.offload` is not `none`; ndp.md §3-§4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ndp: Option<crate::ndp::NdpStats>,
}

/// One time-series sample: cumulative counters at `cycle` (an epoch of the sampling timer,
/// `run.sample_cycles`). Rates over an interval are differences of consecutive samples.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Sample {
    /// SM cycle of the sample (a multiple of `run.sample_cycles`).
    pub cycle: u64,
    pub warp_insts: u64,
    pub l1_misses: u64,
    pub l2_misses: u64,
    pub dram_reads: u64,
    pub dram_writes: u64,
    /// Bytes sent on inter-node links (all of them) so far.
    pub inter_node_bytes: u64,
}

/// Coherence of cached remote data (issue 7 §2).
#[derive(Clone, Debug, Serialize)]
pub struct CoherenceStats {
    /// "none" or "directory".
    pub protocol: String,
    /// Invalidation packets sent by homes and received by sharers (equal once drained).
    pub invalidations_sent: u64,
    pub invalidations_received: u64,
    /// Invalidations that found the line in the sharer's L2, and of those the dirty ones
    /// (written back).
    pub invalidation_hits: u64,
    pub invalidation_hits_dirty: u64,
    /// L1 copies dropped by invalidations (sharers, and on chip at the home and writer).
    pub l1_invalidation_hits: u64,
    /// Fills not installed because an invalidation crossed them in flight (L2 and L1).
    pub fills_dropped: u64,
    /// Directory entries in use at the end, and capacity evictions.
    pub directory_entries: u64,
    pub directory_evictions: u64,
    /// Invalidations sent and those that hit in the target's L2, by cause: `write` (the
    /// written line), `false-positive` (another line of a coarse HMG entry), `eviction`
    /// (REC Figs. 5 and 14).
    pub invalidations_by_cause: std::collections::BTreeMap<String, InvalCause>,
    /// Invalidations that hit a line in a sharer's L2 although its data was still valid:
    /// eviction and false-positive hits (REC Fig. 14's "unnecessary invalidations").
    pub unnecessary_invalidations: u64,
    /// Invalidation traffic over the run, GB/s (packets x `coherence.inv_bytes` / time;
    /// REC Fig. 15).
    pub invalidation_gbps: f64,
    /// L2 misses, the cold ones (first miss of a node on a line, rec.md §6.21) and the
    /// others (REC Figs. 4 and 13 exclude cold misses). Tracked with the directory only.
    pub l2_misses: u64,
    pub l2_cold_misses: u64,
    pub l2_misses_non_cold: u64,
    /// Mean L2 lookup latency of reads at their node's slice: arrival to data leaving the
    /// slice (a hit's latency or a miss's round trip), ns (REC Fig. 16).
    pub l2_lookup_latency_ns: f64,
    /// Inter-node messages end to end (once per message, whatever its route), by kind,
    /// and their total (REC Fig. 14's inter-GPU transactions).
    pub inter_node_transactions: std::collections::BTreeMap<String, MsgStat>,
    pub inter_node_transactions_total: u64,
    /// The directory organisation's own figures (with `coherence.protocol = "directory"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub directory: Option<DirectoryStats>,
    /// The checker's verdict (`coherence.check = true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checker: Option<CheckerStats>,
}

/// Invalidations of one cause.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct InvalCause {
    pub sent: u64,
    /// Found the line in the target node's L2.
    pub hits: u64,
}

/// A directory organisation's figures, summed over the homes (`[directory]`).
#[derive(Clone, Debug, Serialize)]
pub struct DirectoryStats {
    /// `ideal`, `line-fifo`, `hmg` or `rec`.
    pub kind: String,
    /// Entries in use at the end and the capacity (0 = unbounded), over all homes.
    pub entries: u64,
    pub capacity: u64,
    /// `entries / capacity` (0 when unbounded).
    pub occupancy: f64,
    pub evictions: u64,
    /// Evicted entries by the number of lines they tracked (index = lines; REC Fig. 12),
    /// and the mean.
    pub coalesced_histogram: Vec<u64>,
    pub coalesced_mean: f64,
    /// Distinct lines read by a remote node, summed over the homes and at the home with the
    /// most (REC's directory pressure, issue 9): counted by the ideal directory only, 0 for
    /// the bounded organisations.
    pub remote_lines_touched: u64,
    pub remote_lines_touched_max_home: u64,
    /// Entries in use at the end by the lines each tracks (index = lines; REC only), and
    /// the mean: Fig. 12's coalescing read on live entries, not at eviction (issue 9).
    pub live_coalesced_histogram: Vec<u64>,
    pub live_coalesced_mean: f64,
}

/// The coherence checker's verdict.
#[derive(Clone, Debug, Serialize)]
pub struct CheckerStats {
    /// Loads checked (L1 hits and data deliveries).
    pub checks: u64,
    /// Loads that got data older than a write completed before they issued.
    pub violations: u64,
    /// The first few violations.
    pub examples: Vec<crate::coherence::checker::Violation>,
    /// Writes performed at their homes.
    pub writes_performed: u64,
    /// Versions held at the homes at the end, summed over lines: equal to
    /// `writes_performed` when every written value survived (migration included).
    pub surviving_writes: u64,
    /// Writes performed at a migrating page's new frame before its copy landed (lost).
    pub lost_writes: u64,
    /// Reads served at a migrating page's new frame before its copy landed.
    pub early_reads: u64,
}

/// Host-side figures (vary run to run).
#[derive(Clone, Debug, Serialize)]
pub struct HostStats {
    pub seconds: f64,
    pub l1_requests_per_sec: f64,
    pub warp_insts_per_sec: f64,
    pub events_per_sec: f64,
    pub peak_rss_mb: f64,
    /// Generating the workload's input before the run (set by the caller that built it,
    /// e.g. `locus run`; 0 when unknown). Not part of `seconds`.
    pub input_seconds: f64,
    /// Of `seconds`: running the workload's threads functionally (block generation, the
    /// host code between launches, the read-only probe, CODA's sampling analysis).
    pub functional_seconds: f64,
    /// Of `seconds`: everything else, the timing simulation.
    pub timing_seconds: f64,
    /// Runs made again without `run.gen_limit` because a warp needed more of its program
    /// (0 or 1; [`crate::simulate_exact`]). The figures above are the last run's.
    pub gen_reruns: u32,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub preset: String,
    pub workload: String,
    pub config: crate::config::Config,
    pub sim: SimStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<HostStats>,
}

/// Peak resident memory of this process in MB (Linux `VmHWM`), 0 when unknown.
pub fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}
