//! The system: every component of the configured machine in arenas indexed by small ids,
//! driven by one deterministic event queue. `build` wires it from a [`Config`]; `run` plays
//! a [`Workload`](locus_workload::Workload) launch by launch.
//!
//! The path of a load (see docs/ARCHITECTURE.md):
//! SM issue (`sm`) → TLB → L1 (hit, MSHR merge, or miss) → L2 slice of the requesting
//! node (`memory`) → on a miss, the address map picks the home node and channel → the
//! crossbar (local) or the inter-node network then the home crossbar (remote) → DRAM
//! channel → back along the same kind of path → L2 fill → L1 fill → the warp's scoreboard.

mod kernel;
mod memory;
mod ndp;
mod ready;
mod sm;
mod spaces;
mod staging;

use crate::cache::{Mshrs, SetAssoc};
use crate::coherence::{Checker, Directory, Inval};
use crate::config::{Config, Protocol};
use crate::mapping::{AddressMap, Mode};
use crate::noc::{Network, Receipts};
use crate::placement::Placement;
use crate::stats::{Counters, KernelStats, ObjCounters};
use crate::tlb::Tlb;
use locus_dram::Channel;
use locus_engine::{Clock, EventQueue, Ps};
use locus_workload::{BlockProgram, ObjId, Reg};
use std::collections::VecDeque;

pub use kernel::Progress;

/// Events: small and `Copy`; payloads are ids into arenas.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ev {
    /// An SM may issue (payload: global SM id).
    SmTick(u32),
    /// A request reaches an L2 slice (the requester's, or the home's for atomics).
    L2Access(u32),
    /// A request reaches its DRAM channel's queue.
    DramArrive(u32),
    /// A DRAM channel may make scheduling decisions (payload: global channel id).
    DramTick(u32),
    /// A DRAM access finished.
    DramDone(u32),
    /// Data from memory reaches the L2 slice that missed.
    L2Fill(u32),
    /// Data reaches the SM's L1.
    L1Fill(u32),
    /// An atomic's response reaches its SM.
    AtomicResp(u32),
    /// A remote write's acknowledgement returns.
    WriteAck(u32),
    /// A periodic timer's epoch (payload: timer id into `System::timers`).
    Epoch(u32),
    /// A coherence invalidation reaches its target node (payload: a request of kind
    /// `Kind::Invalidation`).
    Inval(u32),
    /// Nothing happens: time passes (a kernel boundary's replica flush, NUBA A8).
    Wait,
    /// An NDP packet (a request of kind `Kind::Ndp`) reaches its NSU or the GPU
    /// (`system/ndp.rs`).
    Ndp(u32),
    /// An NSU may issue (payload: stack index).
    NsuTick(u32),
    /// A launch's fixed cost (`system.kernel_launch_ns`) has passed, or the block
    /// dispatcher may go again (`system.block_dispatch_ps`): blocks dispatch (payload:
    /// application index).
    Launch(u32),
}

impl Ev {
    /// Dense index of the variant (for per-kind event counts).
    pub(crate) fn index(&self) -> usize {
        match self {
            Ev::SmTick(_) => 0,
            Ev::L2Access(_) => 1,
            Ev::DramArrive(_) => 2,
            Ev::DramTick(_) => 3,
            Ev::DramDone(_) => 4,
            Ev::L2Fill(_) => 5,
            Ev::L1Fill(_) => 6,
            Ev::AtomicResp(_) => 7,
            Ev::WriteAck(_) => 8,
            Ev::Epoch(_) => 9,
            Ev::Inval(_) => 10,
            Ev::Wait => 11,
            Ev::Ndp(_) => 12,
            Ev::NsuTick(_) => 13,
            Ev::Launch(_) => 14,
        }
    }
    /// Number of variants.
    pub(crate) const COUNT: usize = 15;
    /// Variants that existed before coherence: always listed in the statistics; later
    /// ones only when they occurred, so runs without them report exactly as before.
    pub(crate) const ALWAYS_LISTED: usize = 9;
    /// Names of the variants, by [`Ev::index`].
    pub(crate) const NAMES: [&'static str; Ev::COUNT] = [
        "sm_tick",
        "l2_access",
        "dram_arrive",
        "dram_tick",
        "dram_done",
        "l2_fill",
        "l1_fill",
        "atomic_resp",
        "write_ack",
        "epoch",
        "invalidation",
        "wait",
        "ndp_packet",
        "nsu_tick",
        "launch",
    ];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Read,
    Write,
    Atomic,
    Writeback,
    /// A coherence invalidation from a home to a sharer (`src` is the target node, `ver`
    /// the checker version of the write that caused it).
    Invalidation,
    /// A packet of partitioned execution (NDP, `system/ndp.rs`): its packet kind, instance
    /// and sequence number are in `token`.
    Ndp,
}

/// One request arriving at a DRAM channel ([`System::record_dram_trace`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DramRecord {
    /// Arrival time at the channel (ps).
    pub ps: Ps,
    /// Physical line number.
    pub line: u64,
    /// Home node.
    pub node: u32,
    /// Channel within the node.
    pub chan: u32,
    /// Channel-local byte address.
    pub chan_addr: u64,
    /// A write or write-back.
    pub write: bool,
}

/// A memory request in flight (slab entry).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Req {
    pub kind: Kind,
    pub mode: Mode,
    /// Requesting SM (u32::MAX for write-backs).
    pub sm: u32,
    /// Node whose L2 issued it.
    pub src: u32,
    pub home: u32,
    pub chan: u32,
    pub chan_addr: u64,
    /// Physical line number.
    pub line: u64,
    pub bytes: u32,
    pub obj: ObjId,
    /// L1 MSHR token of the primary requester.
    pub token: u64,
    /// The token is not held by an L1 MSHR: the fill completes it directly.
    pub direct: bool,
    /// Being served by the home node's L2 slice on behalf of remote node `src` (home-side
    /// or two-level L2 organisation).
    pub at_home: bool,
    /// Checker: version of the data carried (reads) or of the write (invalidations).
    pub ver: u32,
    /// Checker: version of the line completed when the load issued.
    pub issue_ver: u32,
    /// A remote read at the home slice that found the MSHRs full and went to memory
    /// without one (`l2_access`): its fill answers it alone.
    pub bypass: bool,
    /// A read-only remote read on the replication path (NUBA §5.3): it looks the
    /// requester's local slice up, and its reply is installed there as a replica.
    pub rep: bool,
    /// Comes back to `l2_access` at the same slice after waiting there (MSHRs full, a
    /// poisoned fill, a sector refetch): NUBA's MDR profile and the replica statistics
    /// count a request once per slice it reaches, not once per look-up (reset on arrival).
    pub retry: bool,
    /// When the request first reached its node's L2 slice (`Ps::MAX` before): the L2
    /// lookup latency of REC Fig. 16 is measured from here.
    pub t_l2: Ps,
    /// Sectored caches (`system.sector_bytes`): the 32-byte chunks of the line the
    /// requester needs (a read; its response carries them) or writes (a store, a
    /// write-back); `u32::MAX` (the whole line) otherwise.
    pub sectors: u32,
    /// Sectored caches: the chunks an L2 miss reads from memory (`sectors` less the valid
    /// ones, widened to `l2.dram_fetch_bytes`); `u32::MAX` otherwise.
    pub fetch: u32,
    pub rx: Receipts,
}

impl Req {
    /// A request of SM `sm` (on `node`) for physical line `line` homed at `loc`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn from_sm(
        kind: Kind,
        sm: usize,
        node: u32,
        loc: &crate::mapping::Location,
        line: u64,
        mode: Mode,
        bytes: u32,
        obj: ObjId,
        token: u64,
    ) -> Req {
        Req {
            kind,
            mode,
            sm: sm as u32,
            src: node,
            home: loc.node,
            chan: loc.channel,
            chan_addr: loc.chan_addr,
            line,
            bytes,
            obj,
            token,
            direct: false,
            at_home: false,
            ver: 0,
            issue_ver: 0,
            bypass: false,
            retry: false,
            rep: false,
            t_l2: Ps::MAX,
            sectors: u32::MAX,
            fetch: u32::MAX,
            rx: Receipts::default(),
        }
    }
}

/// Where a live warp's instruction list and line requests lie: the raw parts of its
/// [`locus_workload::WarpProgram`]'s `insts` and `lines` in its block slot, taken when the
/// block is dispatched (after every rewrite of the program), so an issue reads its next
/// instruction with one load instead of chasing four pointers (SM, block slot, block
/// program, warp program: host cache misses on most issues; issue 7's profile).
///
/// Valid while the warp is live: a block slot's program is generated or rewritten only
/// while none of its warps is live (`dispatch_block`), and nothing else writes it, so the
/// vectors' buffers neither move nor shrink in between.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProgView {
    insts: *const locus_workload::WarpInst,
    lines: *const locus_workload::LineReq,
    len: u32,
    nlines: u32,
    /// `WarpProgram::truncated`: running past the end means the generator's cap was hit.
    pub truncated: bool,
}

// SAFETY: the pointers refer to buffers owned by the same `System` (its block slots); a
// `ProgView` is read only through `&System`, so sending the system sends what they point to.
unsafe impl Send for ProgView {}

impl Default for ProgView {
    fn default() -> Self {
        ProgView {
            insts: std::ptr::null(),
            lines: std::ptr::null(),
            len: 0,
            nlines: 0,
            truncated: false,
        }
    }
}

impl ProgView {
    /// The view of `p`; valid until `p`'s `insts` or `lines` is next written.
    pub fn of(p: &locus_workload::WarpProgram) -> Self {
        ProgView {
            insts: p.insts.as_ptr(),
            lines: p.lines.as_ptr(),
            len: u32::try_from(p.insts.len()).expect("a warp program fits u32 instructions"),
            nlines: u32::try_from(p.lines.len()).expect("a warp program fits u32 lines"),
            truncated: p.truncated,
        }
    }

    /// The instruction at `pc`, `None` past the end.
    #[inline(always)]
    pub fn get(&self, pc: u32) -> Option<locus_workload::WarpInst> {
        if pc < self.len {
            // SAFETY: in bounds of the live program's `insts` (see the type's doc)
            Some(unsafe { *self.insts.add(pc as usize) })
        } else {
            None
        }
    }

    /// The number of instructions.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether this is still the view of `p` (its vectors neither moved nor changed
    /// length since the view was taken): debug builds check it on every fetch, so a
    /// change that rewrites a live warp's program fails the tests instead of reading freed
    /// memory.
    pub fn is_of(&self, p: &locus_workload::WarpProgram) -> bool {
        std::ptr::eq(self.insts, p.insts.as_ptr())
            && std::ptr::eq(self.lines, p.lines.as_ptr())
            && self.len as usize == p.insts.len()
            && self.nlines as usize == p.lines.len()
    }

    /// The line requests of `inst`, an instruction of this program.
    #[inline]
    pub fn lines_of(&self, inst: &locus_workload::WarpInst) -> &[locus_workload::LineReq] {
        let (s, n) = (inst.first_line as usize, inst.nlines as usize);
        assert!(
            s + n <= self.nlines as usize,
            "line requests past the program's"
        );
        if n == 0 {
            return &[];
        }
        // SAFETY: in bounds of the live program's `lines` (checked above; type's doc)
        unsafe { std::slice::from_raw_parts(self.lines.add(s), n) }
    }

    /// Host cache hints for the instruction `ahead` past `pc` and, for a memory
    /// instruction, its first and last line requests (hints only: they read nothing).
    #[inline(always)]
    pub fn prefetch(&self, pc: u32, ahead: usize, inst: &locus_workload::WarpInst) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // `wrapping_add`: the address may lie past the end; a prefetch never faults
            let p = self.insts.wrapping_add(pc as usize + ahead);
            // SAFETY: `_mm_prefetch` is a hint that reads nothing and cannot fault
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) };
            if inst.nlines > 0 && inst.class.is_mem() {
                let l = self.lines.wrapping_add(inst.first_line as usize);
                let last = l.wrapping_add(inst.nlines as usize - 1);
                // SAFETY: as above
                unsafe {
                    _mm_prefetch::<_MM_HINT_T0>(l as *const i8);
                    _mm_prefetch::<_MM_HINT_T0>(last as *const i8);
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (pc, ahead, inst);
    }
}

/// A warp slot of an SM. `repr(C)`, 64-byte aligned, with what the scheduler's scan and the
/// scoreboard read first (the cached next instruction, its settled verdict, the program
/// counter, the flags and the ALU result registers) in the first host cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct Warp {
    /// The instruction at `pc`, cached so the scheduler's scan does not chase the block
    /// program's pointers for every warp it looks at (refreshed on issue and dispatch).
    pub next: locus_workload::WarpInst,
    /// The scoreboard's settled verdict on `next`: stalled until this time, free from it
    /// on (`Ps::MAX`: not settled, check). Set by `System::precheck` at issue when nothing
    /// of the warp waits for memory; reset by every issue. Code that changes a warp's
    /// scoreboard outside its own issue must reset it to `Ps::MAX`.
    pub free_from: Ps,
    /// Latest `Pend::ready_at` ever given to a slot of this warp: a slot is reused only
    /// once it is no longer busy, so while this lies in the future it is exactly when the
    /// last outstanding load becomes usable. Together with `mem_wait` it answers "wait for
    /// every outstanding load" (`REG_ALL`) without scanning the slots.
    pub ready_max: Ps,
    pub pc: u32,
    /// Scoreboard slots of this warp still waiting for memory (`Pend::remaining > 0`).
    pub mem_wait: u16,
    pub block_slot: u16,
    pub wib: u16,
    pub live: bool,
    pub wait_mem: bool,
    pub at_barrier: bool,
    /// Blocked at `OFLD.END` until its offloaded block's ack (NDP, `system/ndp.rs`).
    pub ofld_wait: bool,
    pub alu_i: u8,
    /// The destination registers of the last four ALU results (0: none) ...
    pub alu_reg: [Reg; 4],
    /// The warp's program (set at dispatch; see [`ProgView`]); second host cache line.
    pub prog: ProgView,
    /// ... and when each becomes usable (a ring written at `alu_i`).
    pub alu_at: [Ps; 4],
}

const _: () = assert!(
    std::mem::size_of::<Warp>() == 128,
    "Warp stays two host cache lines"
);

/// A scoreboard entry: one outstanding load instruction of a warp.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Pend {
    pub reg: Reg,
    pub remaining: u16,
    pub ready_at: Ps,
    pub t0: Ps,
}

impl Pend {
    #[inline]
    pub fn busy(&self, now: Ps) -> bool {
        self.remaining > 0 || self.ready_at > now
    }
}

/// A resident thread block.
#[derive(Default)]
pub(crate) struct BlockSlot {
    pub live: bool,
    pub id: u64,
    pub warps_left: u32,
    pub at_barrier: u32,
    pub prog: BlockProgram,
    pub warp_slots: Vec<u16>,
}

/// Per-SM state.
pub(crate) struct Sm {
    pub node: u32,
    /// The SM's clock domain: its node kind's `sm_clock_ghz` (issue 7 §4); issue, compute
    /// latencies, the L1 hit latency, shared memory and the LSU count its cycles.
    pub clk: Clock,
    pub tick_at: Ps,
    pub lsu_free: Ps,
    pub last: usize,
    pub order: Vec<u16>,
    pub blocks: Vec<BlockSlot>,
    pub l1: SetAssoc,
    pub mshr: Mshrs,
    pub tlb: Tlb,
    pub blocks_run: u64,
    pub warp_insts: u64,
    pub l1_hits: u64,
    pub l1_misses: u64,
    /// Warps parked because the L1 MSHRs were full (bit per warp slot).
    pub mshr_waiters: u64,
    /// Fewest free MSHRs any parked warp needs (wake them only when that many are free).
    pub mshr_need: usize,
    /// Stores and atomics sent and not yet absorbed by the L2 or memory.
    pub writes_inflight: u32,
    /// Warps parked on a full write buffer.
    pub write_waiters: u64,
    /// Warps that may issue: live, not waiting for memory, not at a barrier (bit per slot).
    pub eligible: u64,
    /// Position in `order` of each warp slot in it (kept by `dispatch_block` and
    /// `warp_exit`, the only places `order` changes), so the scheduler's scan visits the
    /// eligible warps alone and still knows their age.
    pub pos: [u8; 64],
    /// Ready times of the warp slots by cycle (mirrors `System::wready`, kept by
    /// `System::set_wready`), so a tick finds the warps ready now without a scan.
    pub wheel: ready::ReadyWheel,
    /// Warps (bit per slot) that issued at time `held_at` and were filed in the wheel at
    /// their settled `Warp::free_from` instead of the next cycle (`System::issue`); a
    /// tick at that same time that issues nothing wakes the SM at the next cycle for them,
    /// as it did when they were filed there.
    pub held: u64,
    pub held_at: Ps,
}

/// An L2 slice.
pub(crate) struct Slice {
    pub cache: SetAssoc,
    pub mshr: Mshrs,
    pub stalled: VecDeque<u32>,
    pub hits: u64,
    pub misses: u64,
}

/// An application and the state of its current launch. A single workload is one
/// application on every SM; co-running applications each own one node's SMs.
pub(crate) struct App {
    pub first_sm: usize,
    pub sms: usize,
    /// The application's nodes and their SMs (global SM ids relative to `first_sm`).
    pub layout: crate::scheduling::Layout,
    pub sched: Option<crate::scheduling::BlockScheduler>,
    pub info: Option<locus_workload::KernelInfo>,
    /// Launches begun.
    pub index: u32,
    pub bps: u32,
    pub live_blocks: u64,
    pub blocks_done: u64,
    pub start: Ps,
    pub before: Counters,
    pub finish: Ps,
    pub done: bool,
    /// Names of the objects the current launch may write, when known before it ran.
    pub may_write: Option<Vec<String>>,
    /// Earliest time of the next block dispatch (`system.block_dispatch_ps`, the launch
    /// cost), and whether an `Ev::Launch` that will dispatch is queued.
    pub next_dispatch: Ps,
    pub dispatch_pending: bool,
}

impl App {
    pub fn new(first_sm: usize, layout: crate::scheduling::Layout) -> App {
        App {
            first_sm,
            sms: layout.total(),
            layout,
            sched: None,
            info: None,
            index: 0,
            bps: 0,
            live_blocks: 0,
            blocks_done: 0,
            start: 0,
            before: Counters::default(),
            finish: 0,
            done: false,
            may_write: None,
            next_dispatch: 0,
            dispatch_pending: false,
        }
    }
}

/// A DRAM channel with its overflow queue.
pub(crate) struct Chan {
    pub ch: Channel,
    pub tick_at: Ps,
    pub overflow: VecDeque<u32>,
}

/// The simulated machine.
pub struct System {
    pub(crate) cfg: Config,
    pub(crate) clk: Clock,
    pub(crate) q: EventQueue<Ev>,
    pub(crate) map: AddressMap,
    pub(crate) placement: Placement,
    pub(crate) net: Network,
    pub(crate) sms: Vec<Sm>,
    /// First global SM id of each node, and the total at the end (`nodes + 1` entries):
    /// node `n`'s SMs are `node_sm[n]..node_sm[n + 1]` (none for a memory-only node).
    pub(crate) node_sm: Vec<usize>,
    pub(crate) warps: Vec<Warp>,
    /// Earliest time each warp (by global warp index) may issue, kept apart from [`Warp`]
    /// so the scheduler's scan reads one compact array.
    pub(crate) wready: Vec<Ps>,
    pub(crate) pend: Vec<Pend>,
    pub(crate) slices: Vec<Slice>,
    pub(crate) chans: Vec<Chan>,
    pub(crate) l2tlb: Vec<Tlb>,
    pub(crate) reqs: Vec<Req>,
    pub(crate) free_reqs: Vec<u32>,
    pub(crate) live_reqs: u64,
    pub(crate) c: Counters,
    pub(crate) obj: Vec<ObjCounters>,
    pub(crate) kernels: Vec<KernelStats>,
    pub(crate) max_warps: usize,
    pub(crate) maxp: usize,
    pub(crate) line_shift: u32,
    /// Sectored L1s and L2s (`system.sector_bytes`); `None`: whole lines.
    pub(crate) sect: Option<crate::cache::SectorGeom>,
    pub(crate) scratch_lines: Vec<locus_workload::LineReq>,
    /// NDP: (active threads, aligned) of each line in `scratch_lines` (§3.5, reused).
    pub(crate) scratch_shape: Vec<(u8, bool)>,
    pub(crate) scratch_tok: Vec<u64>,
    pub(crate) done_buf: Vec<locus_dram::Completion>,
    pub(crate) free_slots: Vec<u32>,
    pub(crate) apps: Vec<App>,
    pub(crate) app_names: Vec<String>,
    pub(crate) app_of_sm: Vec<u8>,
    pub(crate) dispatch_buf: Vec<(u64, usize)>,
    pub(crate) objects: Vec<locus_workload::DataObject>,
    pub(crate) decisions: Vec<crate::placement::coda::Decision>,
    pub(crate) ev_counts: [u64; Ev::COUNT],
    /// Pages being migrated and when they become usable.
    pub(crate) migrating: rustc_hash::FxHashMap<u64, Ps>,
    /// Per data object: written (store or atomic issued) by its application's current
    /// kernel; the per-kernel read-only bit is its negation (issue 7 §4, NUBA's
    /// `ld.global.ro`). Cleared when the kernel's statistics are recorded.
    pub(crate) obj_written: Vec<bool>,
    /// Per data object: the application it belongs to (multiprogrammed runs).
    pub(crate) obj_app: Vec<u8>,
    /// Per data object: its application's current kernel may write it, as known before the
    /// kernel's first block runs (`Workload::launch_writes`; true when unknown). Its
    /// negation is the per-kernel read-only bit known in advance.
    pub(crate) obj_may_write: Vec<bool>,
    /// Work the read-only bits out (a dry run) for kernels that do not declare their
    /// writes ([`System::compute_read_only_bits`]).
    pub(crate) read_only_probe: bool,
    /// Kernels that wrote an object they declared read-only (a model bug; the run fails).
    pub(crate) ro_violations: Vec<String>,
    /// Generate blocks with their per-lane addresses ([`System::record_lane_addresses`]).
    pub(crate) record_lanes: bool,
    /// A warp needed an instruction past its truncated program (`run.gen_limit`).
    pub(crate) ran_dry: std::cell::Cell<bool>,
    /// The post-L2 DRAM request trace ([`System::record_dram_trace`]); `None` when off.
    pub(crate) dram_trace: Option<Vec<DramRecord>>,
    /// When a run limit (`run.max_warp_insts`, `run.max_cycles`) stopped issue.
    pub(crate) stopped_at: Option<Ps>,
    /// Periodic timers of run-time policies ([`Timer`]).
    pub(crate) timers: Vec<Timer>,
    /// Timers with an `Ev::Epoch` in the queue.
    pub(crate) timers_armed: usize,
    /// Samples of the `run.sample_cycles` timer.
    pub(crate) timeline: Vec<crate::stats::Sample>,
    /// Home-side directories, one per node (empty unless `coherence.protocol = "directory"`).
    pub(crate) dirs: Vec<Directory>,
    /// The coherence checker (`coherence.check`).
    pub(crate) chk: Option<Checker>,
    /// Host time spent running the workload functionally (`HostStats::functional_seconds`).
    pub(crate) host_functional: std::time::Duration,
    /// Distinct SMs per page (`run.page_sharing`).
    pub(crate) sharers: Option<crate::page_sharing::PageSharers>,
    /// Coherence counters.
    pub(crate) coh: CohCounters,
    pub(crate) inval_buf: Vec<Inval>,
    /// Per node, the lines its L2 has missed on before (directory protocol only): a miss
    /// on a line not in it is cold (rec.md §6.21, Figs. 4 and 13 exclude them).
    pub(crate) l2_seen: Vec<rustc_hash::FxHashSet<u64>>,
    /// The HMS memory spaces (`spaces.enabled`; `system/spaces.rs`), else `None`.
    pub(crate) spaces: Option<Box<spaces::SpaceState>>,
    /// The replication station (NUBA §5; `replication.kind`).
    pub(crate) rep: crate::replication::Replication,
    /// Partitioned execution (NDP, `ndp.offload` other than `none`), else `None`.
    pub(crate) ndp: Option<Box<ndp::NdpState>>,
    /// Griffin-style page migration (`placement.migration = "griffin"`, NUBA §7.9), else
    /// `None`.
    pub(crate) griffin: Option<crate::placement::griffin::Griffin>,
    /// Carrefour-style page replication (`placement.migration = "carrefour"`, NUBA §7.9),
    /// else `None`.
    pub(crate) carrefour: Option<crate::placement::carrefour::Carrefour>,
}

/// The policy a periodic timer belongs to; an epoch dispatches on it by `match` (no `dyn`).
/// Issue 7 §4: NUBA's 20K-cycle replication epochs (nuba.md) and NDP's 30K-cycle offload
/// epochs (ndp.md §4.3) are the intended further owners.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimerOwner {
    /// Time-series sampling of cumulative counters (`run.sample_cycles`).
    Sampler,
    /// NUBA's MDR epochs (`replication.epoch_cycles`, nuba.md §5.4).
    Replication,
    /// NDP's hill-climbing epochs (`ndp.epoch_cycles`, ndp.md §4.3).
    Ndp,
    /// Griffin's counting intervals (`placement.migration_interval_cycles`, NUBA §7.9).
    Migration,
}

/// A periodic timer: fires `Ev::Epoch(id)` at every multiple of `period` from time 0 (or
/// from its last restart, [`System::restart_timer`]) while the simulation has other work queued. When only timer events remain, the event
/// loop drops them without advancing time (so a timer never keeps a finished run alive nor
/// moves its end time) and re-arms them at the same `next_at` when work resumes (the next
/// launch or the kernel boundary's drain). Hence epoch `k` (at `k * period`) fires iff
/// `k * period` is before the run's last event, or equal to it and queued before it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timer {
    pub owner: TimerOwner,
    /// Period in ps (a whole number of SM cycles).
    pub period: Ps,
    /// Time of the next epoch.
    pub next_at: Ps,
    pub armed: bool,
    /// Epochs fired so far.
    pub fired: u64,
}

/// Coherence traffic and its effects (issue 7 §2).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CohCounters {
    pub inv_sent: u64,
    pub inv_received: u64,
    /// Invalidations that found the line in the target's L2.
    pub inv_hits: u64,
    /// ... and found it dirty (written back).
    pub inv_hits_dirty: u64,
    /// L1 copies dropped by invalidations (home, writer and sharer nodes).
    pub l1_inv_hits: u64,
    /// Fills not installed because an invalidation crossed them (L2 and L1).
    pub fills_dropped: u64,
    /// Invalidations sent and those that found the line in the target's L2, by
    /// [`crate::coherence::Cause`] (write, false positive, eviction).
    pub inv_sent_by: [u64; crate::coherence::Cause::COUNT],
    pub inv_hits_by: [u64; crate::coherence::Cause::COUNT],
    /// L2 misses on a line the slice's node never missed on before.
    pub l2_cold_misses: u64,
    /// Reads answered by their node's L2 slice and the sum of their lookup latencies
    /// (arrival at the slice to data leaving it), ps.
    pub l2_reads: u64,
    pub l2_read_latency_ps: u64,
}

impl System {
    /// Build the machine described by `cfg` (already validated).
    pub fn new(cfg: &Config) -> System {
        let clk = Clock::ghz(cfg.system.sm_clock_ghz);
        let nodes = cfg.system.nodes as usize;
        let specs = cfg.node_specs();
        let mut node_sm = vec![0usize];
        for n in &specs {
            node_sm.push(node_sm.last().copied().unwrap_or(0) + n.sms as usize);
        }
        let nsm = node_sm[nodes];
        let line = cfg.system.line_bytes;
        let node_of = |i: usize| node_sm.partition_point(|&f| f <= i) - 1;
        let sect = crate::cache::SectorGeom::new(
            cfg.system.line_bytes,
            cfg.system.sector_bytes,
            cfg.l2.dram_fetch_bytes,
        );
        let sectored = |c: SetAssoc| if sect.is_some() { c.sectored() } else { c };
        let sms = (0..nsm)
            .map(|i| {
                let n = &specs[node_of(i)];
                let l1_lines = (n.l1_bytes / line).max(cfg.l1.ways);
                let l1_sets = (l1_lines / cfg.l1.ways).max(1) as usize;
                (node_of(i), n.sm_clock_ghz, l1_sets)
            })
            .map(|(node, ghz, l1_sets)| Sm {
                node: node as u32,
                clk: Clock::ghz(ghz),
                wheel: ready::ReadyWheel::new(Clock::ghz(ghz).period),
                tick_at: Ps::MAX,
                lsu_free: 0,
                last: 0,
                order: Vec::new(),
                blocks: (0..cfg.sm.max_blocks)
                    .map(|_| BlockSlot::default())
                    .collect(),
                l1: sectored(SetAssoc::new(
                    l1_sets.next_power_of_two(),
                    cfg.l1.ways as usize,
                    0,
                )),
                mshr: Mshrs::new(cfg.l1.mshrs.max(1) as usize),
                tlb: Tlb::new(cfg.tlb.l1_entries),
                blocks_run: 0,
                warp_insts: 0,
                l1_hits: 0,
                l1_misses: 0,
                mshr_waiters: 0,
                mshr_need: usize::MAX,
                writes_inflight: 0,
                write_waiters: 0,
                eligible: 0,
                held: 0,
                held_at: Ps::MAX,
                pos: [0; 64],
            })
            .collect();
        let spn = cfg.l2.slices_per_node as u64;
        let slices = (0..nodes * spn as usize)
            .map(|i| {
                let lines_per_slice = specs[i / spn as usize].l2_bytes / line as u64 / spn;
                (lines_per_slice / cfg.l2.ways as u64).max(1) as usize
            })
            .map(|sets| Slice {
                cache: sectored(match cfg.l2.set_index {
                    crate::config::SetIndex::Linear => SetAssoc::new(sets, cfg.l2.ways as usize, 0),
                    // the slice-select bits dropped first (a slice holds one line of
                    // every `slices` consecutive ones), as GPGPU-Sim indexes an L2 bank
                    // by the address with its partition bits removed
                    crate::config::SetIndex::Partition => {
                        let (fields, div) = crate::mapping::slice_select_fields(cfg)
                            .expect("checked by Config::validate");
                        SetAssoc::new(sets, cfg.l2.ways as usize, 0).bank_local(&fields, div)
                    }
                    crate::config::SetIndex::Xor => {
                        let drop = (spn.max(1)).ilog2();
                        SetAssoc::new(sets, cfg.l2.ways as usize, drop).hashed()
                    }
                }),
                mshr: Mshrs::new(cfg.l2.mshrs_per_slice as usize),
                stalled: VecDeque::new(),
                hits: 0,
                misses: 0,
            })
            .collect();
        let chans = (0..nodes * cfg.memory.channels_per_node as usize)
            .map(|_| Chan {
                ch: Channel::new(&cfg.dram),
                tick_at: Ps::MAX,
                overflow: VecDeque::new(),
            })
            .collect();
        let max_warps = cfg.sm.max_warps as usize;
        let maxp = cfg.sm.max_pending_loads as usize;
        let mut s = System {
            clk,
            q: EventQueue::new(),
            map: AddressMap::new(cfg),
            placement: Placement::new(cfg),
            net: Network::new(cfg, clk),
            sms,
            node_sm,
            warps: vec![Warp::default(); nsm * max_warps],
            wready: vec![0; nsm * max_warps],
            pend: vec![Pend::default(); nsm * max_warps * maxp],
            slices,
            chans,
            l2tlb: (0..nodes).map(|_| Tlb::new(cfg.tlb.l2_entries)).collect(),
            reqs: Vec::with_capacity(4096),
            free_reqs: Vec::new(),
            live_reqs: 0,
            c: Counters::default(),
            obj: Vec::new(),
            kernels: Vec::new(),
            max_warps,
            maxp,
            line_shift: line.trailing_zeros(),
            sect,
            scratch_lines: Vec::with_capacity(64),
            scratch_shape: Vec::with_capacity(64),
            scratch_tok: Vec::with_capacity(64),
            done_buf: Vec::with_capacity(64),
            free_slots: vec![0; nsm],
            apps: vec![App::new(
                0,
                crate::scheduling::Layout::new(&cfg.sms_of_nodes()),
            )],
            app_names: vec![String::new()],
            app_of_sm: vec![0; nsm],
            dispatch_buf: Vec::new(),
            objects: Vec::new(),
            decisions: Vec::new(),
            ev_counts: [0; Ev::COUNT],
            migrating: Default::default(),
            obj_written: Vec::new(),
            obj_app: Vec::new(),
            obj_may_write: Vec::new(),
            read_only_probe: false,
            ro_violations: Vec::new(),
            record_lanes: false,
            ran_dry: std::cell::Cell::new(false),
            dram_trace: None,
            stopped_at: None,
            timers: Vec::new(),
            timers_armed: 0,
            timeline: Vec::new(),
            dirs: match cfg.coherence.protocol {
                Protocol::None => Vec::new(),
                Protocol::Directory => (0..cfg.system.nodes)
                    .map(|h| Directory::new(cfg, h))
                    .collect(),
            },
            chk: cfg.coherence.check.then(Checker::default),
            host_functional: std::time::Duration::ZERO,
            sharers: cfg.run.page_sharing.then(|| {
                crate::page_sharing::PageSharers::new(
                    cfg.sms_of_nodes().iter().sum::<u32>() as usize
                )
            }),
            coh: CohCounters::default(),
            inval_buf: Vec::new(),
            l2_seen: match cfg.coherence.protocol {
                Protocol::None => Vec::new(),
                Protocol::Directory => (0..nodes).map(|_| Default::default()).collect(),
            },
            spaces: cfg
                .spaces
                .enabled
                .then(|| Box::new(spaces::SpaceState::new(cfg, nsm))),
            rep: crate::replication::Replication::new(cfg),
            ndp: ndp::NdpState::new(cfg, nsm),
            griffin: (cfg.placement.migration == crate::config::MigrationKind::Griffin).then(
                || {
                    crate::placement::griffin::Griffin::new(
                        cfg.system.nodes,
                        crate::placement::griffin::GriffinCfg {
                            interval_cycles: cfg.placement.migration_interval_cycles,
                            ratio: cfg.placement.migration_ratio,
                        },
                    )
                },
            ),
            carrefour: (cfg.placement.migration == crate::config::MigrationKind::Carrefour).then(
                || {
                    crate::placement::carrefour::Carrefour::new(
                        crate::placement::carrefour::CarrefourCfg {
                            min_free_fraction: cfg.placement.replication_min_free,
                        },
                    )
                },
            ),
            cfg: cfg.clone(),
        };
        // the spaces decide per lane (bank conflicts, divergence, 2-D tiles); NDP's RDF / WTA
        // alignment is a per-lane rule (ndp.md §3.5)
        s.record_lanes = cfg.spaces.enabled || s.ndp.is_some();
        if cfg.run.sample_cycles > 0 {
            s.add_timer(TimerOwner::Sampler, cfg.run.sample_cycles);
        }
        if s.rep.on() {
            // replicas need the per-kernel read-only bit before the kernel runs
            s.read_only_probe = true;
        }
        if s.rep.mdr().is_some() {
            s.add_timer(TimerOwner::Replication, cfg.replication.epoch_cycles);
        }
        if matches!(
            cfg.ndp.offload,
            crate::ndp::OffloadMode::Dyn | crate::ndp::OffloadMode::DynCache
        ) {
            s.add_timer(TimerOwner::Ndp, cfg.ndp.epoch_cycles);
        }
        if s.griffin.is_some() || s.carrefour.is_some() {
            s.add_timer(
                TimerOwner::Migration,
                cfg.placement.migration_interval_cycles,
            );
        }
        s
    }

    /// Register a periodic timer of `owner` every `period_cycles` SM cycles (from time 0);
    /// returns its id. It is armed when the event loop next runs.
    pub(crate) fn add_timer(&mut self, owner: TimerOwner, period_cycles: u64) -> u32 {
        let period = self.clk.cycles(period_cycles.max(1));
        self.timers.push(Timer {
            owner,
            period,
            next_at: period,
            armed: false,
            fired: 0,
        });
        (self.timers.len() - 1) as u32
    }

    /// Queue the next epoch of every timer not yet queued.
    pub(crate) fn arm_timers(&mut self) {
        for (i, t) in self.timers.iter_mut().enumerate() {
            if !t.armed {
                t.armed = true;
                self.timers_armed += 1;
                self.q.push(t.next_at, Ev::Epoch(i as u32));
            }
        }
    }

    /// Only timer epochs are queued: the work is done. Drop them without advancing time.
    pub(crate) fn disarm_timers(&mut self) {
        debug_assert_eq!(self.q.len(), self.timers_armed);
        self.q.clear();
        for t in &mut self.timers {
            t.armed = false;
        }
        self.timers_armed = 0;
    }

    /// Restart `owner`'s timers now: the next epoch one period from now, and every later
    /// one a multiple of the period after it. NUBA's MDR counts its epochs from each
    /// kernel's start (nuba.md §5.4 and A7: the first epoch of each kernel runs NoRep for a
    /// whole epoch, not the remainder of one counted from time 0). A queued epoch at the
    /// old time stays in the queue (the queue has no removal) and is dropped when it pops
    /// ([`System::epoch`]); it counts in `timers_armed` until then.
    pub(crate) fn restart_timer(&mut self, owner: TimerOwner) {
        let now = self.q.now();
        for (i, t) in self.timers.iter_mut().enumerate() {
            if t.owner != owner || t.next_at == now + t.period {
                continue;
            }
            t.next_at = now + t.period;
            if t.armed {
                self.timers_armed += 1;
                self.q.push(t.next_at, Ev::Epoch(i as u32));
            }
        }
    }

    /// Timer `id`'s epoch: queue the next one, then run its owner's action. An epoch
    /// queued before its timer was restarted ([`System::restart_timer`]) is stale: it pops
    /// before the timer's `next_at` and is dropped.
    pub(crate) fn epoch(&mut self, id: u32) {
        let now = self.q.now();
        let t = &mut self.timers[id as usize];
        if now != t.next_at {
            debug_assert!(
                now < t.next_at,
                "an epoch popped after its timer's next one"
            );
            self.timers_armed -= 1;
            return;
        }
        let at = t.next_at;
        t.fired += 1;
        t.next_at += t.period;
        let (owner, next) = (t.owner, t.next_at);
        self.q.push(next, Ev::Epoch(id));
        match owner {
            TimerOwner::Sampler => self.sample(at),
            TimerOwner::Replication => {
                if let Some(m) = self.rep.mdr() {
                    m.epoch(at);
                }
            }
            TimerOwner::Ndp => self.ndp_epoch(),
            TimerOwner::Migration => {
                self.griffin_epoch(at);
                self.carrefour_epoch(at);
            }
        }
    }

    /// The end of a Griffin counting interval at time `at` (NUBA §7.9, nuba.md A23): the
    /// policy decides from the interval's per-partition access counts
    /// ([`crate::placement::griffin::Griffin::end_interval`]) and each decided page moves
    /// through the core's migration path ([`System::migrate_page`]: fault and shootdown,
    /// then the whole page copied from its old partition over the network; accesses to
    /// it wait until the copy lands). Pages of fine-grained frames (no single home) and
    /// pages still being moved are left where they are.
    fn griffin_epoch(&mut self, at: Ps) {
        let Some(mut g) = self.griffin.take() else {
            return;
        };
        let page = self.placement.page_bytes();
        let (placement, map, migrating) = (&self.placement, &self.map, &self.migrating);
        let moves = g.end_interval(|vpn| {
            let pte = placement.lookup(vpn)?;
            if pte.mode != Mode::Cgp || migrating.get(&vpn).is_some_and(|&r| r > at) {
                return None;
            }
            Some(map.locate(pte.ppn * page, Mode::Cgp).node)
        });
        self.griffin = Some(g);
        for m in moves {
            self.migrate_page(m.vpn, m.to, at);
        }
    }

    /// The end of a Carrefour counting interval at time `at` (NUBA §7.9, nuba.md A23):
    /// every coarse page only read so far gets a replica in each partition that read it
    /// remotely this interval, while that partition's free memory fraction (replicas
    /// decided at this epoch counted) stays above `placement.replication_min_free`
    /// ([`crate::placement::carrefour::Carrefour::end_interval`]); the replicas are made by
    /// [`System::make_replicas`].
    fn carrefour_epoch(&mut self, at: Ps) {
        let Some(mut cf) = self.carrefour.take() else {
            return;
        };
        let thr = self.cfg.placement.replication_min_free;
        let per_frame =
            1.0 / (self.cfg.memory.bytes_per_node / self.placement.page_bytes()).max(1) as f64;
        let mut pending = vec![0u32; self.cfg.system.nodes as usize];
        let placement = &self.placement;
        let d = cf.end_interval(|n| {
            let f = placement.free_fraction(n) - pending[n as usize] as f64 * per_frame;
            if f > thr {
                pending[n as usize] += 1;
            }
            f
        });
        self.carrefour = Some(cf);
        self.make_replicas(&d.replicate, at);
    }

    /// Record a time-series sample of the cumulative counters at time `at`.
    fn sample(&mut self, at: Ps) {
        let inter_node_bytes = self
            .net
            .ports
            .iter()
            .zip(&self.net.kinds)
            .filter(|(_, k)| **k == crate::noc::PortKind::InterNode)
            .map(|(p, _)| p.stats().bytes_sent)
            .sum();
        let c = &self.c;
        self.timeline.push(crate::stats::Sample {
            cycle: at / self.clk.period,
            warp_insts: c.warp_insts,
            l1_misses: c.l1_misses,
            l2_misses: c.l2_misses,
            dram_reads: c.dram_reads,
            dram_writes: c.dram_writes,
            inter_node_bytes,
        });
    }

    /// Epochs fired so far by each timer, in registration order.
    pub fn epochs_fired(&self) -> Vec<u64> {
        self.timers.iter().map(|t| t.fired).collect()
    }

    /// Allocate a request in the slab.
    #[inline]
    pub(crate) fn new_req(&mut self, r: Req) -> u32 {
        self.live_reqs += 1;
        self.c.reqs_created += 1;
        match self.free_reqs.pop() {
            Some(i) => {
                self.reqs[i as usize] = r;
                i
            }
            None => {
                self.reqs.push(r);
                (self.reqs.len() - 1) as u32
            }
        }
    }

    /// Retire a request.
    #[inline]
    pub(crate) fn retire(&mut self, id: u32) {
        debug_assert!(
            self.reqs[id as usize].rx.is_empty(),
            "retiring a request with bytes in flight"
        );
        let r = &self.reqs[id as usize];
        if matches!(r.kind, Kind::Write | Kind::Atomic) && r.sm != u32::MAX {
            let sm = r.sm as usize;
            self.sms[sm].writes_inflight -= 1;
            let parked = std::mem::take(&mut self.sms[sm].write_waiters);
            if parked != 0 {
                self.unpark_all(sm, parked);
            }
        }
        self.live_reqs -= 1;
        self.c.reqs_retired += 1;
        self.free_reqs.push(id);
    }

    /// Schedule an SM tick at `t` unless one is already due no later.
    #[inline]
    pub(crate) fn wake_sm(&mut self, sm: usize, t: Ps) {
        let t = t.max(self.q.now());
        if self.sms[sm].tick_at <= t {
            // a tick at or before `t` is queued, so at or before its cycle edge too: the
            // rounding division (a host hot spot) would only confirm that nothing is pushed
            return;
        }
        let t = self.sms[sm].clk.next_edge(t);
        if self.sms[sm].tick_at > t {
            self.sms[sm].tick_at = t;
            self.q.push(t, Ev::SmTick(sm as u32));
        }
    }

    /// [`System::wake_sm`] for a time `t` (not in the past) known to be a cycle edge of
    /// SM `sm`'s clock: the same event, without the rounding division.
    #[inline]
    pub(crate) fn wake_sm_at_edge(&mut self, sm: usize, t: Ps) {
        debug_assert_eq!(t, self.sms[sm].clk.next_edge(t.max(self.q.now())));
        if self.sms[sm].tick_at > t {
            self.sms[sm].tick_at = t;
            self.q.push(t, Ev::SmTick(sm as u32));
        }
    }

    /// Mark warp `wg` as waiting for memory (not scanned until [`System::unpark`]).
    #[inline]
    pub(crate) fn park(&mut self, wg: usize) {
        self.warps[wg].wait_mem = true;
        let (sm, w) = (wg / self.max_warps, wg % self.max_warps);
        self.sms[sm].eligible &= !(1u64 << w);
    }

    /// Warp `wg` may be able to issue again.
    #[inline]
    pub(crate) fn unpark(&mut self, wg: usize) {
        let warp = &mut self.warps[wg];
        warp.wait_mem = false;
        if warp.live && !warp.at_barrier {
            let (sm, w) = (wg / self.max_warps, wg % self.max_warps);
            self.sms[sm].eligible |= 1u64 << w;
        }
    }

    /// Unpark the warps of SM `sm` whose bits are set in `mask`, and wake the SM.
    pub(crate) fn unpark_all(&mut self, sm: usize, mask: u64) {
        let base = sm * self.max_warps;
        for w in 0..64 {
            if mask & (1u64 << w) != 0 {
                self.unpark(base + w);
            }
        }
        let now = self.q.now();
        self.wake_sm(sm, now);
    }

    /// Global ids of node `node`'s SMs (empty for a memory-only node).
    #[inline]
    pub(crate) fn node_sms(&self, node: u32) -> std::ops::Range<usize> {
        self.node_sm[node as usize]..self.node_sm[node as usize + 1]
    }

    /// SMs of each node (0 for a memory-only node; issue 7 §4).
    pub fn sms_per_node(&self) -> Vec<u32> {
        self.node_sm
            .windows(2)
            .map(|w| (w[1] - w[0]) as u32)
            .collect()
    }

    /// Requests still in flight (0 once drained).
    pub fn live_requests(&self) -> u64 {
        self.live_reqs
    }

    /// Counters so far.
    pub fn counters(&self) -> &Counters {
        &self.c
    }

    /// Whether data object `obj` has been written (a store or atomic issued) by the
    /// current kernel of its application so far: a policy may treat an object as
    /// read-only in this kernel while this is false (the kernel's final answer is its
    /// statistics' `written_objects`).
    pub fn object_written_in_kernel(&self, obj: locus_workload::ObjId) -> bool {
        self.obj_written.get(obj as usize).copied().unwrap_or(false)
    }

    /// Lines the L2 slices hold whose home is another node. Under `l2.organisation =
    /// "home-side"` these are exactly NUBA's replicas (nuba.md §5.3), so after a run (a
    /// kernel boundary) it is 0 when the replicas were flushed.
    pub fn remote_lines_in_l2(&self) -> u64 {
        let spn = self.cfg.l2.slices_per_node as usize;
        self.slices
            .iter()
            .enumerate()
            .map(|(s, sl)| {
                let node = (s / spn) as u32;
                sl.cache
                    .lines()
                    .filter(|e| {
                        self.map
                            .locate(e.line << self.line_shift, memory::meta_mode(e.meta))
                            .node
                            != node
                    })
                    .count() as u64
            })
            .sum()
    }

    /// The per-kernel read-only bit known before the kernel runs (issue 7 §4): true when
    /// the current kernel of `obj`'s application cannot write `obj`, from the moment its
    /// launch starts (before its first block is dispatched). Known when the kernel
    /// declares its writes (`Kernel::writes`) or, after [`System::compute_read_only_bits`],
    /// from a dry run of a kernel model; unknown (traces, or undeclared without the dry
    /// run) answers false: every object may be written.
    pub fn object_read_only_in_kernel(&self, obj: locus_workload::ObjId) -> bool {
        !self
            .obj_may_write
            .get(obj as usize)
            .copied()
            .unwrap_or(true)
    }

    /// Ask for the read-only bits of kernels that do not declare their writes: each launch
    /// of a kernel model is then run once functionally on a scratch copy of memory before
    /// its first block (`Workload::launch_writes(true)`), which costs about as much host
    /// time as generating its blocks. For policies that need the bit (NUBA's replication of
    /// read-only data); off by default. Timing and every statistic but the kernels'
    /// `may_write_objects` are unchanged.
    pub fn compute_read_only_bits(&mut self, on: bool) {
        self.read_only_probe = on;
    }

    /// Generate every block with its memory instructions' per-lane addresses
    /// (`BlockProgram::record_lanes`), for policies that decide per lane; off by default
    /// (nothing recorded, nothing paid). Timing is unchanged.
    pub fn record_lane_addresses(&mut self, on: bool) {
        self.record_lanes = on;
    }

    /// Record every request that reaches a DRAM channel (the post-L2 "filtered memory
    /// trace" with arrival times that the HMS model's sample profile needs, hms spec §3.6
    /// step 4 and §3.3.4 inter-arrival study); off by default (then nothing is recorded
    /// or paid). Timing is unchanged. Read it with [`System::take_dram_trace`].
    pub fn record_dram_trace(&mut self, on: bool) {
        self.dram_trace = on.then(Vec::new);
    }

    /// The DRAM requests recorded so far (empty when [`System::record_dram_trace`] is off),
    /// in arrival order; recording goes on.
    pub fn take_dram_trace(&mut self) -> Vec<DramRecord> {
        self.dram_trace
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The lane addresses of instruction `index` of warp slot `wg` of SM `sm` (its
    /// position in the warp's program: the instruction a warp with `pc == index` issues
    /// next), when [`System::record_lane_addresses`] is on. For policies that decide per
    /// lane (none yet: used by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn lanes_of(
        &self,
        sm: usize,
        wg: usize,
        index: usize,
    ) -> Option<&[locus_workload::LaneAddr]> {
        let w = &self.warps[wg];
        self.sms[sm].blocks[w.block_slot as usize].prog.warps[w.wib as usize].lanes_of(index)
    }

    /// Whether a run limit stopped the run (its last launch is partial).
    pub fn stopped_by_limit(&self) -> bool {
        self.stopped_at.is_some()
    }

    /// Current simulated time in ps.
    pub fn now(&self) -> Ps {
        self.q.now()
    }

    /// Lines held now by the L2 slices whose home is another node, and how many of them are
    /// dirty (a debug query for tests: a scan of every slice).
    pub fn l2_remote_lines(&self) -> (u64, u64) {
        let spn = self.cfg.l2.slices_per_node as usize;
        let (mut remote, mut dirty) = (0, 0);
        for (s, sl) in self.slices.iter().enumerate() {
            let node = (s / spn) as u32;
            for e in sl.cache.lines() {
                let home = self
                    .map
                    .locate(e.line << self.line_shift, memory::meta_mode(e.meta))
                    .node;
                if home != node {
                    remote += 1;
                    dirty += e.dirty as u64;
                }
            }
        }
        (remote, dirty)
    }
}

#[cfg(test)]
mod dram_trace_tests;
#[cfg(test)]
mod lanes_tests;
#[cfg(test)]
mod tests;
