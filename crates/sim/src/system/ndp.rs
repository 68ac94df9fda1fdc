//! Partitioned execution in the System (NDP, spec ndp.md §3.5-§3.9, §4): the stations of
//! `crate::ndp` wired into the core's SMs, network ports, DRAM channels and caches.
//!
//! When a warp of the GPU node issues the first instruction of an offload block instance
//! (`WarpProgram::offload`, the kernel models' `OFLD.BEG` markers), the [`Selector`]
//! decides (naive, static ratio, Algorithm 1's ratio, the cache-locality check). Not
//! offloaded: the instance runs unchanged (its load lines and their L1/L2 presence feed
//! the §4.4 statistics). Offloaded:
//! - the offload command (live-ins) waits in the SM's pending buffer until the first
//!   memory instruction names the target NSU (§3.5: the stack with most of its lines);
//!   then 1 command + #LD read + #ST write entries are reserved at once ([`Credits`],
//!   §3.8); a denied instance waits in its stack's FIFO, retried when credits return, and
//!   its packets stay pending; a granted instance's packets leave at once;
//! - the SM still generates, coalesces and translates addresses (LSU time, TLB); a load
//!   line probes L1 then L2 (a hit updates LRU, a miss allocates nothing): on a hit the
//!   GPU sends the RDF response itself over the target's GPU link, on a miss an RDF goes
//!   to the owning vault, which reads DRAM and forwards the words to the target NSU
//!   (locally or over the memory network); a store line becomes a WTA to the target;
//! - the NSU ([`Nsu`], its own clock, 48 warp slots) runs the block's NSU code (its loads
//!   and stores in program order, its `@NSU` ALU work before the first store); an NSU
//!   store writes each line at its GPU-given address (through the memory network if
//!   another stack's); the vault acknowledges to the NSU and sends a cache invalidation
//!   to the GPU, which drops the line from its L2 and L1s (§3.9);
//! - after the last write ack the NSU sends the offload ack with the live-outs; the warp
//!   waits at `OFLD.END` for the ack and every invalidation of its writes (§3.9's race
//!   rule), then goes on.
//!
//! Packet sizes are [`crate::ndp::packets::bytes`]; every trip reserves the core's ports
//! (`Network::remote`, `to_channel`, `from_channel`) and is redeemed on arrival; packets in
//! flight are requests of kind [`Kind::Ndp`] in the core's slab (packet kind, instance and
//! sequence number in `Req::token`), so the end-of-run check that every request retired
//! covers them. Nothing is allocated per packet once the pools have grown.
//!
//! Credits (§3.8): an entry freed at an NSU waits there and rides on the NSU's next
//! offload ack, or leaves alone as a credit packet (1 FLIT) after [`CREDIT_WAIT`] NSU
//! cycles; the GPU regains it on arrival and grants the waiting instances in order. A full
//! SM pending buffer (`ndp.pending_entries`) holds warps at `OFLD.BEG`; a granted
//! instance's packets pass the SM's ready buffer (`ndp.ready_entries`, a bounded stage,
//! [`crate::ndp::ready`]) and leave it when the first link of their route takes them; a
//! ready buffer without room for an instruction's packets holds the warp at that memory
//! instruction ([`System::ndp_issue_held`]). Fig. 8's no-issue split: [`NoIssue`], with
//! the held cycles counted under both readings of `ndp.pending_stall_as`.
//!
//! Simplifications (documented, not hidden): GPU-side `@NSU` ALU instructions still
//! issue (as the NOPs they become, with their latency); an instance already begun may
//! push the pending buffer past its cap (bounded by the warps: holding its later memory
//! instructions could leave every pending instance waiting for a first one); a pending
//! packet leaves the pending count at the grant and, when the ready buffer is full then,
//! waits for a ready slot in time (it enters when the earliest ready packet leaves);
//! only the SMs of `ndp.gpu_node` offload.

use super::{Ev, Kind, Req, System};
use crate::mapping::{Location, Mode};
use crate::ndp::nsu::{Buf, Credits, Nsu, NsuOp, NsuOut};
use crate::ndp::packets::{self, bytes as pkt_bytes, Packet, MAX_MEM_INSTS};
use crate::ndp::ready::ReadyBuffer;
use crate::ndp::select::{BlockDesc, Selector};
use crate::ndp::target::first_access_target;
use crate::ndp::{
    HillIpc, InstanceTime, NdpStats, NoIssueReadings, NoIssueSplit, NoIssueStats, NsuMarkerInsts,
    NsuStats, OffloadMode, PacketStats, PendingStallAs, StaticBlock,
};
use crate::noc::{Msg, Receipts};
use locus_engine::{Clock, Ps};
use locus_workload::{InstClass, Space, WarpInst};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;
/// The location field of a packet that names no line (commands, acks).
const NO_LOC: Location = Location {
    node: 0,
    channel: 0,
    chan_addr: 0,
};
/// NSU cycles a freed credit waits for a packet to the GPU to ride on before it is sent
/// alone (spec ndp.md §3.8 [DEFAULT]: 100).
const CREDIT_WAIT: u64 = 100;
/// Static blocks per kernel (the `block` operand of `Thread::ofld_begin` is a `u8`).
const BLOCKS_PER_KERNEL: u32 = 256;

/// Is `i` a memory instruction of an offload block that the NSU performs (a global or
/// texture load, a global store; constants come from the NSU's constant cache)?
#[inline]
fn block_mem(i: &WarpInst) -> Option<bool> {
    match (i.class, i.space) {
        (InstClass::Load, Space::Global | Space::Texture) if i.nlines > 0 => Some(false),
        (InstClass::Store, Space::Global) if i.nlines > 0 => Some(true),
        _ => None,
    }
}

/// The NSU code of one block instance from its memory instructions `ops` (loads and
/// stores in program order): the loop body's `body` static instructions run `iters` times
/// (1 for straight-line code), each iteration's `@NSU` compute after its loads and before
/// its stores (it consumes the loaded values and produces the stored one, §3.4 Fig. 3(b)).
fn nsu_code(ops: &mut Vec<NsuOp>, tmp: &mut Vec<NsuOp>, body: u32, iters: u32) {
    let per = ops.len().div_ceil(iters.max(1) as usize);
    let alu = (body as usize).saturating_sub(per);
    if alu == 0 {
        return;
    }
    tmp.clear();
    if ops.is_empty() {
        tmp.extend(std::iter::repeat_n(NsuOp::Alu, alu));
    }
    for g in ops.chunks(per.max(1)) {
        let st = g.iter().position(|o| *o == NsuOp::St).unwrap_or(g.len());
        tmp.extend_from_slice(&g[..st]);
        tmp.extend(std::iter::repeat_n(NsuOp::Alu, alu));
        tmp.extend_from_slice(&g[st..]);
    }
    std::mem::swap(ops, tmp);
}

#[inline]
fn token(inst: u32, seq: u8, p: Packet) -> u64 {
    inst as u64 | (seq as u64) << 32 | (p as u64) << 40
}

#[inline]
fn untoken(t: u64) -> (u32, u8, Packet) {
    (
        t as u32,
        (t >> 32) as u8,
        Packet::ALL[((t >> 40) as usize).min(Packet::ALL.len() - 1)],
    )
}

impl Req {
    /// Does this request write DRAM (a store, a write-back or an NSU write)?
    #[inline]
    pub(crate) fn writes_dram(&self) -> bool {
        match self.kind {
            Kind::Write | Kind::Writeback => true,
            Kind::Ndp => untoken(self.token).2 == Packet::NsuWrite,
            _ => false,
        }
    }
}

/// Why an SM issued nothing in a cycle (spec ndp.md §6.3, Fig. 8, GPGPU-sim's
/// classification): checked in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoIssue {
    /// A warp had its next instruction ready but its unit was busy (an issue slot held by
    /// replays, full L1 MSHRs, a full write buffer).
    ExecBusy = 0,
    /// A warp had an instruction whose operands were not ready (an ALU result or a load
    /// still in flight: the scoreboard).
    Dependency = 1,
    /// No warp had a valid instruction: none resident, all done, at a barrier, or (NDP)
    /// waiting at `OFLD.END` for an offload ack.
    Idle = 2,
}

/// Per warp slot: the offload block instance it is in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WarpNdp {
    /// Index of the next offload mark of the warp's program.
    next_mark: u16,
    /// 0: outside a block; 1: an instance run on the GPU; 2: an offloaded instance.
    mode: u8,
    /// The instance's ack arrived before the warp reached `OFLD.END`.
    done_early: bool,
    seq: u8,
    /// One past the block's last instruction.
    end: u32,
    /// Selector key of the static block.
    key: u32,
    /// Offloaded instance id.
    inst: u32,
    /// Algorithm 1's count of this instance at its retirement (`HillIpc::Retire`): the
    /// block's GPU-side instructions x active threads.
    retire: u32,
    /// Load lines of this instance and how many were in the GPU caches (§4.4).
    lines: u32,
    hits: u32,
    /// `@NSU` ALU instructions of the offloaded instance (its NSU code's ALU operations),
    /// which the GPU issues as NOPs (`NdpStats::gpu_alu_nops`).
    nops: u16,
    /// ALU instructions (int, fp, sfu) the GPU issued in the offloaded instance after its
    /// first memory instruction: where its `@NSU` compute sits (it consumes loaded
    /// values, §3.4 Fig. 3(b)); address arithmetic before the first load stays the GPU's.
    alu_after_ld: [u16; 3],
}

impl Default for WarpNdp {
    fn default() -> Self {
        WarpNdp {
            next_mark: 0,
            mode: 0,
            done_early: false,
            seq: 0,
            end: 0,
            key: 0,
            inst: NONE,
            retire: 0,
            lines: 0,
            hits: 0,
            nops: 0,
            alu_after_ld: [0; 3],
        }
    }
}

/// An offloaded instance in flight.
#[derive(Clone, Copy, Debug, Default)]
struct Inst {
    wg: u32,
    sm: u32,
    /// Target stack index (`NONE` until the first memory instruction).
    target: u32,
    loads: u8,
    stores: u8,
    lanes: u8,
    live_ins: u8,
    live_outs: u8,
    prog: u16,
    granted: bool,
    acked: bool,
    /// Algorithm 1's count of the instance, added when it retires (`WarpNdp::retire`).
    retire: u32,
    /// Invalidations of its writes still to reach the GPU.
    invals: u32,
    /// Pending packets (before the grant), a list in the packet pool.
    pend_head: u32,
    pend_tail: u32,
    /// Store lines (the WTA addresses the NSU writes to), a list in the pool.
    st_head: u32,
    /// Timeline of the instance (issue 11's decomposition, [`InstanceTime`]): `OFLD.BEG`,
    /// grant, command at the NSU, warp spawned, last RDF response or WTA at the NSU, last
    /// NSU write sent, offload ack sent, ack at the GPU, warp at `OFLD.END` (`Ps::MAX`:
    /// not yet there).
    t: [Ps; 9],
}

/// Indices of `Inst::t`.
const T_BEGIN: usize = 0;
const T_GRANT: usize = 1;
const T_CMD: usize = 2;
const T_SPAWN: usize = 3;
const T_DATA: usize = 4;
const T_WRITE: usize = 5;
const T_ACK_SENT: usize = 6;
const T_ACK: usize = 7;
const T_END: usize = 8;

/// A packet waiting in an SM's pending buffer, or a store line kept for the NSU write.
#[derive(Clone, Copy, Debug)]
struct Pkt {
    next: u32,
    packet: Packet,
    seq: u8,
    active: u8,
    aligned: bool,
    /// Lines of the load (the RDF responses the NSU merges into one entry).
    of: u16,
    obj: u16,
    mode: Mode,
    loc: Location,
    line: u64,
    /// Earliest send time.
    t: Ps,
}

/// One line of the memory instruction being issued (scratch).
#[derive(Clone, Copy, Debug)]
struct LineAt {
    loc: Location,
    line: u64,
    mode: Mode,
    t: Ps,
    active: u8,
    aligned: bool,
    obj: u16,
}

/// Partitioned-execution state of the System.
pub(crate) struct NdpState {
    mode: OffloadMode,
    sel: Selector,
    gpu: u32,
    stack_node: Vec<u32>,
    /// Node -> stack index (`NONE` for a node without an NSU).
    stack_of: Vec<u32>,
    nsus: Vec<Nsu>,
    nsu_warps: u32,
    nsu_clk: Clock,
    nsu_tick_at: Vec<Ps>,
    /// Time of each NSU's last cycle (`Ps::MAX`: none yet).
    nsu_last: Vec<Ps>,
    credits: Credits,
    /// Credits freed at each NSU not yet sent (command, read, write entries) and since when
    /// (`Ps::MAX`: none), and the batches on their way to the GPU, oldest first (§3.8).
    credit_pend: Vec<[u32; 3]>,
    credit_since: Vec<Ps>,
    credit_flight: Vec<VecDeque<[u32; 3]>>,
    waiting: Vec<VecDeque<u32>>,
    read_entries: u32,
    write_entries: u32,
    warps: Vec<WarpNdp>,
    insts: Vec<Inst>,
    free_insts: Vec<u32>,
    pkts: Vec<Pkt>,
    free_pkts: Vec<u32>,
    progs: rustc_hash::FxHashMap<Vec<NsuOp>, u16>,
    /// Per stack: the static blocks (selector keys) its NSU ran, in first-run order (the
    /// code its I-cache holds, Fig. 11).
    code: Vec<Vec<u32>>,
    /// `ndp.nsu_inst_bytes`, `ndp.nsu_icache_bytes`.
    inst_bytes: u32,
    icache_bytes: u32,
    /// `@NSU` ALU instructions issued as NOPs on the GPU, by energy class.
    alu_nops: [u64; 5],
    ops: Vec<NsuOp>,
    ops_tmp: Vec<NsuOp>,
    kernels: Vec<String>,
    kernel: u32,
    /// Per selector key: the static block's row, in `block_order` order of first sight.
    blocks: Vec<Option<StaticBlock>>,
    block_order: Vec<u32>,
    out: Vec<NsuOut>,
    scratch: Vec<LineAt>,
    line_bytes: u32,
    flit: u32,
    pending: Vec<u32>,
    /// Pending packet buffer entries per SM (`ndp.pending_entries`, Table 2: 300).
    pending_cap: u32,
    /// Issue attempts of an `OFLD.BEG` held back by a full pending buffer (one per warp
    /// and cycle).
    pending_stalls: u64,
    /// Per SM: the ready packet buffer (§3.8, Table 2: 64).
    ready: Vec<ReadyBuffer>,
    /// Issue attempts of a memory instruction held back by a full ready buffer.
    ready_stalls: u64,
    /// Per warp slot: until when a full pending or ready buffer holds its next
    /// instruction (Fig. 8: such a warp has a valid, ready instruction; 0: not held).
    held_until: Vec<Ps>,
    /// Per SM: the warps (slot bits) a full pending buffer held at an `OFLD.BEG` in the
    /// SM's ticks at time `pend_hold_at` (host speed only: [`System::ndp_rehold`]).
    pend_hold: Vec<u64>,
    pend_hold_at: Vec<Ps>,
    /// Per SM: the time of the tick at which it went to sleep held by its full pending
    /// buffer (`Ps::MAX`: awake; host speed only, [`System::ndp_sleep`]).
    asleep: Vec<Ps>,
    /// Let an SM held by its full pending buffer sleep instead of ticking every cycle
    /// ([`System::ndp_sleep`]; true, the tests compare it with the ticking behaviour).
    pub(crate) sleep_held: bool,
    /// Per grant that gave room to an SM holding warps on its full pending buffer: (SM,
    /// grant time, time of the SM's next tick, whether that tick issued) (tests; the
    /// tick's fields are `Ps::MAX` and false until it runs).
    #[cfg(test)]
    pub(crate) resume_log: Vec<(usize, Ps, Ps, bool)>,
    /// Which reading `NdpStats::no_issue`'s headline split follows.
    stall_as: PendingStallAs,
    // statistics
    offloaded: u64,
    on_gpu: u64,
    not_offloadable: u64,
    packets: [u64; 11],
    bytes: [u64; 11],
    gpu_link: [u64; 11],
    regs_in: u64,
    regs_out: u64,
    threads: u64,
    invals: u64,
    credit_errors: u64,
    peak_pending: u32,
    /// Algorithm 1's count of offload-block instructions, offloaded or not, in
    /// `hill_ipc`'s unit (thread instructions of retired instances, or warp instructions
    /// issued), and its value at the last epoch.
    block_insts: u64,
    epoch_insts: u64,
    hill_ipc: HillIpc,
    epoch_cycles: u64,
    ratios: Vec<f64>,
    ipcs: Vec<f64>,
    /// Completed offloaded instances and the sums (ps) of their timeline's phases
    /// ([`InstanceTime`]): the 8 consecutive phases, then the GPU's part and the time the
    /// warp was blocked at `OFLD.END`.
    done: u64,
    phase_ps: [u64; 10],
    /// Fig. 8, per SM: since when it has issued nothing (`Ps::MAX`: it issued in its last
    /// tick) and that stretch's class ([`NoIssue`] as `usize`) under each reading of a
    /// buffer-held warp (`[exec-unit-busy, warp-idle]`, [`PendingStallAs`]).
    quiet_since: Vec<Ps>,
    quiet_class: Vec<[u8; 2]>,
    /// SM cycles with no instruction issued by class under each reading, and cycles with
    /// one, summed over SMs.
    no_issue: [[u64; 3]; 2],
    issue_cycles: u64,
    /// Every packet sent, kind and bytes, in the order sent (tests: Fig. 2's order).
    #[cfg(test)]
    pub(crate) log: Vec<(Packet, u32)>,
    /// Every standalone credit packet: (NSU, when its oldest credit was freed, when it
    /// left) (tests: §3.8's wait).
    #[cfg(test)]
    pub(crate) credit_log: Vec<(usize, Ps, Ps)>,
}

impl NdpState {
    /// Bytes of NSU code of the static blocks stack `s`'s NSU ran ([`NsuStats::code_bytes`]):
    /// each block's body (Table 1's NSU instructions) plus its NSU `OFLD.BEG` and
    /// `OFLD.END`.
    fn code_bytes(&self, s: usize) -> u64 {
        self.code[s]
            .iter()
            .filter_map(|&k| self.blocks[k as usize].as_ref())
            .map(|b| (u64::from(b.nsu_insts) + 2) * u64::from(self.inst_bytes))
            .sum()
    }
    /// Energy-model inputs of the NSUs: the `@NSU` ALU instructions the GPU issued as NOPs
    /// by energy class, the NSUs' warp instructions, and the NSUs drawing static power (0
    /// when no instance was offloaded: the NSUs and the memory network are power-gated,
    /// ndp.md §5.4 and §7 #23).
    pub(crate) fn energy_inputs(&self) -> ([u64; 5], u64, u64) {
        let insts = self.nsus.iter().map(|u| u.insts).sum();
        let units = if self.offloaded > 0 {
            self.nsus.len() as u64
        } else {
            0
        };
        (self.alu_nops, insts, units)
    }
    /// Count one stall on SM `sm`'s full pending buffer and mark the warp `bit` (its
    /// slot on the SM) held at `now`, starting a fresh held set at a new instant.
    fn hold_on_full(&mut self, sm: usize, bit: u64, now: Ps) {
        self.pending_stalls += 1;
        if self.pend_hold_at[sm] != now {
            self.pend_hold_at[sm] = now;
            self.pend_hold[sm] = 0;
        }
        self.pend_hold[sm] |= bit;
    }
    /// The state for `cfg` (`None` when `ndp.offload = "none"`: nothing runs).
    pub(crate) fn new(cfg: &crate::config::Config, nsm: usize) -> Option<Box<NdpState>> {
        let n = &cfg.ndp;
        if n.offload == OffloadMode::None {
            return None;
        }
        let stack_node: Vec<u32> = if n.stack_nodes.is_empty() {
            (0..cfg.system.nodes).filter(|&k| k != n.gpu_node).collect()
        } else {
            n.stack_nodes.clone()
        };
        let mut stack_of = vec![NONE; cfg.system.nodes as usize];
        for (i, &k) in stack_node.iter().enumerate() {
            stack_of[k as usize] = i as u32;
        }
        let stacks = stack_node.len();
        let max_warps = cfg.sm.max_warps as usize;
        Some(Box::new(NdpState {
            mode: n.offload,
            sel: Selector::new(
                n.offload,
                n.static_ratio,
                n.hill_params(),
                nsm as u32,
                BLOCKS_PER_KERNEL as usize,
                n.seed,
                cfg.system.line_bytes,
                n.min_samples,
                n.paper_literal_benefit,
            ),
            gpu: n.gpu_node,
            stack_of,
            nsus: (0..stacks)
                .map(|_| {
                    let mut u = Nsu::new(
                        n.nsu_warps,
                        n.cmd_entries,
                        n.read_entries,
                        n.write_entries,
                        Vec::new(),
                    );
                    u.set_issue_begin(n.nsu_marker_insts == NsuMarkerInsts::BeginAndEnd);
                    u.set_alu_latency(n.alu_latency(cfg.sm.fp_latency, cfg.system.sm_clock_ghz));
                    u
                })
                .collect(),
            nsu_warps: n.nsu_warps,
            nsu_clk: Clock::ghz(n.nsu_clock_ghz),
            nsu_tick_at: vec![Ps::MAX; stacks],
            nsu_last: vec![Ps::MAX; stacks],
            credits: Credits::new(
                stacks as u32,
                n.cmd_entries,
                n.read_entries,
                n.write_entries,
            ),
            credit_pend: vec![[0; 3]; stacks],
            credit_since: vec![Ps::MAX; stacks],
            credit_flight: (0..stacks).map(|_| VecDeque::new()).collect(),
            waiting: (0..stacks).map(|_| VecDeque::new()).collect(),
            read_entries: n.read_entries,
            write_entries: n.write_entries,
            stack_node,
            warps: vec![WarpNdp::default(); nsm * max_warps],
            insts: Vec::new(),
            free_insts: Vec::new(),
            pkts: Vec::new(),
            free_pkts: Vec::new(),
            progs: Default::default(),
            code: vec![Vec::new(); stacks],
            inst_bytes: n.nsu_inst_bytes,
            icache_bytes: n.nsu_icache_bytes,
            alu_nops: [0; 5],
            ops: Vec::new(),
            ops_tmp: Vec::new(),
            kernels: Vec::new(),
            kernel: 0,
            blocks: Vec::new(),
            block_order: Vec::new(),
            out: Vec::new(),
            scratch: Vec::new(),
            line_bytes: cfg.system.line_bytes,
            flit: n.flit_bytes,
            pending: vec![0; nsm],
            pending_cap: n.pending_entries,
            pending_stalls: 0,
            ready: (0..nsm)
                .map(|_| ReadyBuffer::new(n.ready_entries))
                .collect(),
            ready_stalls: 0,
            held_until: vec![0; nsm * max_warps],
            pend_hold: vec![0; nsm],
            pend_hold_at: vec![0; nsm],
            asleep: vec![Ps::MAX; nsm],
            sleep_held: true,
            #[cfg(test)]
            resume_log: Vec::new(),
            stall_as: n.pending_stall_as,
            offloaded: 0,
            on_gpu: 0,
            not_offloadable: 0,
            packets: [0; 11],
            bytes: [0; 11],
            gpu_link: [0; 11],
            regs_in: 0,
            regs_out: 0,
            threads: 0,
            invals: 0,
            credit_errors: 0,
            peak_pending: 0,
            block_insts: 0,
            epoch_insts: 0,
            hill_ipc: n.hill_ipc,
            epoch_cycles: n.epoch_cycles,
            ratios: Vec::new(),
            ipcs: Vec::new(),
            done: 0,
            phase_ps: [0; 10],
            quiet_since: vec![0; nsm],
            quiet_class: vec![[NoIssue::Idle as u8; 2]; nsm],
            no_issue: [[0; 3]; 2],
            issue_cycles: 0,
            #[cfg(test)]
            log: Vec::new(),
            #[cfg(test)]
            credit_log: Vec::new(),
        }))
    }

    /// A warp slot starts a new warp.
    pub(crate) fn warp_start(&mut self, wg: usize) {
        self.warps[wg] = WarpNdp::default();
        self.held_until[wg] = 0;
    }

    /// A launch of kernel `name` begins: its static blocks get their selector keys (the
    /// same kernel name shares its blocks' statistics across launches, as one `OFLD.BEG`
    /// PC does).
    pub(crate) fn launch(&mut self, name: &str) {
        self.kernel = match self.kernels.iter().position(|k| k == name) {
            Some(k) => k as u32,
            None => {
                self.kernels.push(name.to_string());
                (self.kernels.len() - 1) as u32
            }
        };
        self.sel
            .ensure_blocks(self.kernels.len() * BLOCKS_PER_KERNEL as usize);
        self.blocks
            .resize(self.kernels.len() * BLOCKS_PER_KERNEL as usize, None);
    }

    fn count(&mut self, p: Packet, bytes: u32, gpu_link: bool) {
        let k = p as usize;
        #[cfg(test)]
        self.log.push((p, bytes));
        self.packets[k] += 1;
        self.bytes[k] += bytes as u64;
        if gpu_link {
            self.gpu_link[k] += bytes as u64;
        }
    }

    fn alloc_pkt(&mut self, p: Pkt) -> u32 {
        match self.free_pkts.pop() {
            Some(i) => {
                self.pkts[i as usize] = p;
                i
            }
            None => {
                self.pkts.push(p);
                (self.pkts.len() - 1) as u32
            }
        }
    }

    fn alloc_inst(&mut self, i: Inst) -> u32 {
        match self.free_insts.pop() {
            Some(k) => {
                self.insts[k as usize] = i;
                k
            }
            None => {
                self.insts.push(i);
                (self.insts.len() - 1) as u32
            }
        }
    }

    /// Append packet `p` to instance `i`'s pending list.
    fn push_pending(&mut self, i: u32, p: Pkt) {
        let id = self.alloc_pkt(Pkt { next: NONE, ..p });
        let inst = &mut self.insts[i as usize];
        if inst.pend_tail == NONE {
            inst.pend_head = id;
        } else {
            self.pkts[inst.pend_tail as usize].next = id;
        }
        self.insts[i as usize].pend_tail = id;
        let sm = self.insts[i as usize].sm as usize;
        self.pending[sm] += 1;
        self.peak_pending = self.peak_pending.max(self.pending[sm]);
    }

    /// Program id of the NSU code in `self.ops` (registered at every NSU on first use).
    fn prog_id(&mut self) -> u16 {
        if let Some(&p) = self.progs.get(&self.ops[..]) {
            return p;
        }
        let mut id = 0;
        for n in &mut self.nsus {
            id = n.add_program(self.ops.clone());
        }
        self.progs.insert(self.ops.clone(), id);
        id
    }
}

impl System {
    /// Is warp `wg` of SM `sm`, about to issue `inst`, held by a full NDP buffer of its
    /// SM (§3.8 [DEFAULT]: a full buffer stalls issue of further offload-block memory
    /// instructions or `OFLD.BEG`)? Returns when to look again.
    /// - At an `OFLD.BEG` while the pending packet buffer is full: held, next cycle (it
    ///   empties on grants). Only new instances wait there: an instance already begun
    ///   sends its packets on (bounded by the warps), so an instance never waits for room
    ///   its own packets hold.
    /// - At a memory instruction of an offloaded instance already granted while the ready
    ///   buffer has no room for its packets (one per line): held until a ready packet
    ///   leaves. (An instance not yet granted queues its packets in the pending buffer.)
    ///
    /// A held warp is marked for Fig. 8 ([`System::ndp_cycle_end`]).
    pub(crate) fn ndp_issue_held(&mut self, sm: usize, wg: usize, inst: &WarpInst) -> Option<Ps> {
        let now = self.q.now();
        let cyc = self.sms[sm].clk.period;
        let bit = 1u64 << (wg - sm * self.max_warps);
        let n = self.ndp.as_deref_mut()?;
        let wn = n.warps[wg];
        let until = if wn.mode == 0 {
            if n.pending[sm] < n.pending_cap {
                return None;
            }
            let w = &self.warps[wg];
            let prog = &self.sms[sm].blocks[w.block_slot as usize].prog.warps[w.wib as usize];
            let begins = prog.offload[(wn.next_mark as usize).min(prog.offload.len())..]
                .iter()
                .find(|m| m.begin >= w.pc && m.begin < m.end)
                .is_some_and(|m| m.begin == w.pc);
            if !begins {
                return None;
            }
            n.hold_on_full(sm, bit, now);
            now + cyc
        } else {
            if wn.mode != 2 || block_mem(inst).is_none() || !n.insts[wn.inst as usize].granted {
                return None;
            }
            let rb = &mut n.ready[sm];
            if rb.room(now, inst.nlines as usize) {
                return None;
            }
            n.ready_stalls += 1;
            rb.next_departure(now)
                .expect("a buffer without room holds packets")
                .max(now + cyc)
        };
        n.held_until[wg] = until;
        Some(until)
    }

    /// Host speed only (the simulation is unchanged): SM `sm` ticks at `now` with the
    /// warps `ready` (slot bits) ready to issue. When they are exactly the warps a full
    /// pending buffer held at an `OFLD.BEG` one cycle ago ([`System::ndp_issue_held`]) and
    /// the buffer is still full, this tick's scan would find each of them held again and
    /// nothing else (a held warp's scoreboard verdict, program counter and next marker
    /// do not change until it issues, and nothing else is ready): hold them all at once,
    /// as the scan would (one `pending_full_stalls` each, held and looked at again next
    /// cycle), and return true (the tick issues nothing). Otherwise change nothing and
    /// return false. While the buffer stays full (naive offload fills it for thousands of
    /// cycles) every SM ticks every cycle for its held warps, and the scan per held warp
    /// was most of the host time of such runs (spec ndp.md §3.8's stall, issue 11).
    pub(crate) fn ndp_rehold(&mut self, sm: usize, now: Ps, ready: u64) -> bool {
        let cyc = self.sms[sm].clk.period;
        let Some(n) = self.ndp.as_deref() else {
            return false;
        };
        if ready == 0
            || n.pend_hold[sm] != ready
            || n.pend_hold_at[sm].checked_add(cyc) != Some(now)
            || n.pending[sm] < n.pending_cap
            || self.replay_busy_until(sm) > now
        {
            return false;
        }
        let t = now + cyc;
        let base = sm * self.max_warps;
        let n = self.ndp.as_deref_mut().expect("ndp on");
        n.pend_hold_at[sm] = now;
        n.pending_stalls += u64::from(ready.count_ones());
        let mut m = ready;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            n.held_until[base + w] = t;
        }
        let mut m = ready;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            self.defer_ready_warp(sm, base + w, t);
        }
        true
    }

    /// Host speed only: the warps (slot bits) of SM `sm` that a full pending buffer held
    /// at an `OFLD.BEG` in its ticks one cycle before `now` (0 when it did not tick then).
    pub(crate) fn ndp_held_before(&self, sm: usize, now: Ps) -> u64 {
        let cyc = self.sms[sm].clk.period;
        let n = self.ndp.as_deref().expect("ndp on");
        if n.pend_hold_at[sm].checked_add(cyc) == Some(now) {
            n.pend_hold[sm]
        } else {
            0
        }
    }

    /// Host speed only: warp `wg` of SM `sm`, held at an `OFLD.BEG` by a full pending
    /// buffer one cycle before `now` ([`System::ndp_held_before`]), is held again when the
    /// buffer is still full, with what [`System::ndp_issue_held`] records (its scoreboard
    /// verdict, program counter and next marker have not changed since, as it did not
    /// issue): returns when to look again. `None`: the buffer has room; the full checks
    /// decide.
    pub(crate) fn ndp_hold_again(&mut self, sm: usize, wg: usize, now: Ps) -> Option<Ps> {
        let cyc = self.sms[sm].clk.period;
        let bit = 1u64 << (wg - sm * self.max_warps);
        let n = self.ndp.as_deref_mut().expect("ndp on");
        if n.pending[sm] < n.pending_cap {
            return None;
        }
        n.hold_on_full(sm, bit, now);
        n.held_until[wg] = now + cyc;
        Some(now + cyc)
    }

    /// Host speed only: SM `sm`, whose tick at `now` held the warps `held` (slot bits) at
    /// an `OFLD.BEG` on its full pending buffer again and found nothing else ready
    /// ([`System::ndp_rehold`]), sleeps instead of ticking every cycle. Each tick it skips
    /// would hold the same warps again and issue nothing (naive offload keeps pending
    /// buffers full for thousands of cycles: 4.85 G such holds on backprop's NaiveNDP,
    /// issue 11), so nothing but the count changes until one of these wakes it:
    /// - a grant that frees a pending slot ([`System::ndp_grant`]): the SM ticks at the
    ///   first cycle edge at or after the grant, never twice at its sleeping tick's edge
    ///   (the ticking SM's next look at its buffer);
    /// - a change to its warps (a response, an offload ack, a fill, a new block: the
    ///   `wake_sm` every such event already makes) or the ready time of another warp (the
    ///   tick's wake-up, which leaves the sleeping warps out).
    ///
    /// At the wake ([`System::ndp_cycle_begin`]) the skipped ticks are counted in closed
    /// form: `pending_full_stalls` gains the held warps once per skipped tick, the held
    /// set is dated one cycle back (as the last skipped tick would have left it), and
    /// Fig. 8's no-issue stretch runs on in the class of the sleeping tick (its inputs
    /// change only with a wake). Returns the sleeping warps (0: sleeping is off,
    /// `NdpState::sleep_held`; the SM looks again next cycle).
    ///
    /// The cycles are the ticking SM's; what can move is the order of same-instant events
    /// (the wake tick is queued when the wake is known, a ticking SM's one cycle before),
    /// measured in BENCHMARKS.md.
    pub(crate) fn ndp_sleep(&mut self, sm: usize, now: Ps, held: u64) -> u64 {
        let n = self.ndp.as_deref_mut().expect("ndp on");
        if !n.sleep_held {
            return 0;
        }
        n.asleep[sm] = now;
        held
    }

    /// Warp `wg` of SM `sm` issues `inst`, the instruction at index `pc` of its program:
    /// begin, follow and end offload block instances. Returns true when `inst` was an
    /// offloaded memory instruction (its packets are sent; the SM does nothing else).
    pub(crate) fn ndp_issue(&mut self, sm: usize, wg: usize, pc: u32, inst: &WarpInst) -> bool {
        let Some(n) = self.ndp.as_deref_mut() else {
            return false;
        };
        if self.sms[sm].node != n.gpu {
            return false;
        }
        let now = self.q.now();
        let mut wn = n.warps[wg];
        if wn.mode == 0 {
            let w = &self.warps[wg];
            let prog = &self.sms[sm].blocks[w.block_slot as usize].prog.warps[w.wib as usize];
            while let Some(m) = prog.offload.get(wn.next_mark as usize) {
                if m.begin < pc || m.begin >= m.end {
                    wn.next_mark += 1; // passed (or empty): never an instance
                } else {
                    break;
                }
            }
            if let Some(m) = prog
                .offload
                .get(wn.next_mark as usize)
                .filter(|m| m.begin == pc)
            {
                let m = *m;
                wn.next_mark += 1;
                n.ops.clear();
                let (mut loads, mut stores) = (0u32, 0u32);
                for i in &prog.insts[m.begin as usize..(m.end as usize).min(prog.insts.len())] {
                    match block_mem(i) {
                        Some(false) => {
                            loads += 1;
                            n.ops.push(NsuOp::Ld);
                        }
                        Some(true) => {
                            stores += 1;
                            n.ops.push(NsuOp::St);
                        }
                        None => {}
                    }
                }
                nsu_code(
                    &mut n.ops,
                    &mut n.ops_tmp,
                    m.nsu_insts as u32,
                    m.iters.max(1) as u32,
                );
                let key = n.kernel * BLOCKS_PER_KERNEL + m.block as u32;
                let d = BlockDesc {
                    loads,
                    stores,
                    live_ins: m.live_ins as u32,
                    live_outs: m.live_outs as u32,
                    nsu_insts: m.nsu_insts as u32,
                };
                match &mut n.blocks[key as usize] {
                    Some(b) => b.instances += 1,
                    slot => {
                        *slot = Some(StaticBlock {
                            kernel: n.kernels[n.kernel as usize].clone(),
                            kernel_index: n.kernel,
                            block: m.block as u32,
                            loads,
                            stores,
                            live_ins: d.live_ins,
                            live_outs: d.live_outs,
                            nsu_insts: d.nsu_insts,
                            iters: m.iters.max(1) as u32,
                            instances: 1,
                        });
                        n.block_order.push(key);
                    }
                }
                // a span the markers did not close, or holding an exit or a barrier, is
                // not a block (a marker in divergent code can misalign; run it on the GPU)
                let closed = (m.end as usize) <= prog.insts.len()
                    && prog.insts[m.begin as usize..m.end as usize]
                        .iter()
                        .all(|i| !matches!(i.class, InstClass::Exit | InstClass::Barrier));
                let ok = closed
                    && loads + stores > 0
                    && loads + stores <= MAX_MEM_INSTS
                    && loads <= n.read_entries
                    && stores <= n.write_entries;
                let off = ok && n.sel.decide(sm as u32, key as usize, &d);
                wn = WarpNdp {
                    next_mark: wn.next_mark,
                    mode: 1,
                    end: m.end,
                    key,
                    retire: (m.end - m.begin) * u32::from(m.lanes),
                    ..WarpNdp::default()
                };
                if off {
                    wn.nops = n
                        .ops
                        .iter()
                        .filter(|o| **o == NsuOp::Alu)
                        .count()
                        .min(u16::MAX as usize) as u16;
                    let prog_id = n.prog_id();
                    let i = n.alloc_inst(Inst {
                        wg: wg as u32,
                        sm: sm as u32,
                        target: NONE,
                        loads: loads as u8,
                        stores: stores as u8,
                        lanes: m.lanes,
                        live_ins: m.live_ins,
                        live_outs: m.live_outs,
                        prog: prog_id,
                        pend_head: NONE,
                        pend_tail: NONE,
                        st_head: NONE,
                        t: [now, 0, 0, 0, 0, 0, 0, 0, Ps::MAX],
                        retire: wn.retire,
                        ..Inst::default()
                    });
                    n.push_pending(
                        i,
                        Pkt {
                            next: NONE,
                            packet: Packet::OffloadCmd,
                            seq: 0,
                            active: m.lanes,
                            aligned: true,
                            of: 0,
                            obj: locus_workload::NO_OBJ,
                            mode: Mode::Fgp,
                            loc: NO_LOC,
                            line: 0,
                            t: now,
                        },
                    );
                    wn.mode = 2;
                    wn.inst = i;
                    n.offloaded += 1;
                    n.regs_in += m.live_ins as u64 * m.lanes as u64;
                    n.regs_out += m.live_outs as u64 * m.lanes as u64;
                    n.threads += m.lanes as u64;
                } else {
                    n.on_gpu += 1;
                    if !ok {
                        n.not_offloadable += 1;
                    }
                }
            }
        }
        if wn.mode == 0 {
            n.warps[wg] = wn;
            return false;
        }
        if n.hill_ipc == HillIpc::Issue {
            n.block_insts += 1;
        }
        let mut handled = false;
        match (block_mem(inst), wn.mode) {
            (Some(store), 2) => {
                n.warps[wg] = wn;
                self.ndp_mem(sm, wg, pc, inst, store);
                wn = self.ndp.as_deref().expect("ndp on").warps[wg];
                handled = true;
            }
            (Some(false), _) => {
                // run on the GPU: note whether its lines are in the GPU caches (§4.4)
                let (l, h) = self.ndp_probe(sm, wg, inst);
                wn.lines += l;
                wn.hits += h;
            }
            // an ALU instruction after the instance's first load: a candidate `@NSU`
            (None, 2) if wn.seq > 0 => match inst.class {
                InstClass::Int => wn.alu_after_ld[0] = wn.alu_after_ld[0].saturating_add(1),
                InstClass::Fp => wn.alu_after_ld[1] = wn.alu_after_ld[1].saturating_add(1),
                InstClass::Sfu => wn.alu_after_ld[2] = wn.alu_after_ld[2].saturating_add(1),
                _ => {}
            },
            _ => {}
        }
        let n = self.ndp.as_deref_mut().expect("ndp on");
        if pc + 1 >= wn.end {
            // OFLD.END
            n.sel
                .observe(wn.key as usize, wn.lines as u64, wn.hits as u64);
            if wn.mode == 2 {
                // the NSU code's ALU operations were NOPs on the GPU: taken from the ALU
                // instructions after the first load, floating-point first (the compute
                // on loaded data), then SFU, then integer
                use crate::energy::InstEnergyClass as E;
                let mut left = wn.nops;
                for (k, e) in [(1, E::Fp), (2, E::Sfu), (0, E::Int)] {
                    let x = left.min(wn.alu_after_ld[k]);
                    n.alu_nops[e as usize] += u64::from(x);
                    left -= x;
                }
            }
            if wn.mode == 2 && !wn.done_early {
                self.warps[wg].ofld_wait = true;
                n.insts[wn.inst as usize].t[T_END] = now;
            } else if n.hill_ipc == HillIpc::Retire {
                // on the GPU, or offloaded and already acknowledged: it retires now
                n.block_insts += u64::from(wn.retire);
            }
            wn.mode = 0;
            wn.inst = NONE;
        }
        n.warps[wg] = wn;
        handled
    }

    /// The load lines of `inst` (run on the GPU) and how many are in the L1 or the L2 now
    /// (a look without side effects, before the access itself).
    fn ndp_probe(&mut self, sm: usize, wg: usize, inst: &WarpInst) -> (u32, u32) {
        let node = self.sms[sm].node;
        let w = self.warps[wg];
        let (first, nl) = (inst.first_line as usize, inst.nlines as usize);
        let mut hits = 0;
        for k in first..first + nl {
            let lr = self.sms[sm].blocks[w.block_slot as usize].prog.warps[w.wib as usize].lines[k];
            let vpn = lr.addr / self.placement.page_bytes();
            if self.placement.lookup(vpn).is_none() {
                continue; // never touched: a miss
            }
            let (pa, mode) = self.placement.translate(lr.addr, lr.obj, node);
            let line = pa >> self.line_shift;
            let loc = self.map.locate(pa, mode);
            let l1 = self.cfg.l1.enabled
                && (self.cfg.l1.cache_remote || loc.node == node)
                && self.sms[sm].l1.contains(line);
            let s = self.slice_of(node, line, loc.node, loc.channel);
            if l1 || self.slices[s].cache.contains(line) {
                hits += 1;
            }
        }
        (nl as u32, hits)
    }

    /// An offloaded load (`store = false`) or store of warp `wg`: addresses generated,
    /// coalesced and translated by the SM; RDFs / WTAs built (§3.5).
    fn ndp_mem(&mut self, sm: usize, wg: usize, pc: u32, inst: &WarpInst, store: bool) {
        let now = self.q.now();
        let cyc = self.sms[sm].clk.period;
        self.c.mem_insts += 1;
        self.c.mem_by_space[crate::stats::mem_index(inst.space, inst.class)] += 1;
        let mut lines = std::mem::take(&mut self.scratch_lines);
        let mut shape = std::mem::take(&mut self.scratch_shape);
        lines.clear();
        shape.clear();
        let line_bytes = self.cfg.system.line_bytes;
        {
            let w = &self.warps[wg];
            let prog = &self.sms[sm].blocks[w.block_slot as usize].prog.warps[w.wib as usize];
            lines.extend_from_slice(prog.lines_of(inst));
            // §3.5: the access is aligned when its lanes read consecutive words of one line
            let lanes = prog.lanes_of(pc as usize);
            let al = lanes.is_some_and(|ls| packets::aligned(ls, line_bytes as u64));
            shape.extend(lines.iter().map(|lr| {
                let (a, al) = packets::line_shape(lanes, al, lr.addr, lr.bytes as u32, line_bytes);
                (a as u8, al)
            }));
        }
        let lpc = self.cfg.sm.lsu_lines_per_cycle as u64;
        let t0 = now.max(self.sms[sm].lsu_free);
        self.sms[sm].lsu_free = t0 + (lines.len() as u64).div_ceil(lpc) * cyc;
        let mut scratch = std::mem::take(&mut self.ndp.as_deref_mut().expect("ndp on").scratch);
        scratch.clear();
        for (k, lr) in lines.iter().enumerate() {
            let ti = t0 + (k as u64 / lpc) * cyc;
            if store {
                if let Some(w) = self.obj_written.get_mut(lr.obj as usize) {
                    *w = true;
                }
            }
            let (pa, mode, tlat) = self.translate(sm, lr.addr, lr.obj, store);
            let line = pa >> self.line_shift;
            scratch.push(LineAt {
                loc: self.map.locate(line << self.line_shift, mode),
                line,
                mode,
                t: ti + tlat,
                active: shape[k].0,
                aligned: shape[k].1,
                obj: lr.obj,
            });
        }
        self.scratch_lines = lines;
        self.scratch_shape = shape;
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let mut wn = n.warps[wg];
        let i = wn.inst;
        let seq = wn.seq;
        wn.seq = wn.seq.wrapping_add(1);
        let first = n.insts[i as usize].target == NONE;
        if first {
            // the target NSU: the stack with most of the first instruction's lines (§3.5)
            let mut st = [0u32; 64];
            let mut k = 0;
            for l in &scratch {
                let s = n.stack_of[l.loc.node as usize];
                if s != NONE && k < 64 {
                    st[k] = s;
                    k += 1;
                }
            }
            let t = first_access_target(&st[..k], n.stack_node.len() as u32).unwrap_or(0);
            n.insts[i as usize].target = t;
            // the NSU's I-cache now holds this static block's code (Fig. 11)
            if !n.code[t as usize].contains(&wn.key) {
                n.code[t as usize].push(wn.key);
            }
        }
        let node = self.sms[sm].node;
        let l1_lat = self.sms[sm].clk.cycles(self.cfg.l1.hit_latency as u64);
        let l2_probe = self
            .clk
            .cycles(self.cfg.noc.sm_l2_latency as u64 + self.cfg.l2.hit_latency as u64);
        let of = scratch.len().min(u16::MAX as usize) as u16;
        for l in &scratch {
            let mut p = Pkt {
                next: NONE,
                packet: Packet::Wta,
                seq,
                active: l.active,
                aligned: l.aligned,
                of,
                obj: l.obj,
                mode: l.mode,
                loc: l.loc,
                line: l.line,
                t: l.t,
            };
            if store {
                // the WTA's addresses, kept for the NSU's write
                let n = self.ndp.as_deref_mut().expect("ndp on");
                let id = n.alloc_pkt(Pkt {
                    packet: Packet::NsuWrite,
                    next: n.insts[i as usize].st_head,
                    ..p
                });
                n.insts[i as usize].st_head = id;
            } else {
                // the RDF looks the GPU caches up first (§3.5, Fig. 6a)
                let l1 = self.cfg.l1.enabled
                    && (self.cfg.l1.cache_remote || l.loc.node == node)
                    && self.sms[sm].l1.access(l.line);
                p.t += l1_lat;
                let hit = l1 || {
                    p.t += l2_probe;
                    let s = self.slice_of(node, l.line, l.loc.node, l.loc.channel);
                    self.slices[s].cache.access(l.line)
                };
                p.packet = if hit { Packet::RdfResp } else { Packet::Rdf };
                wn.lines += 1;
                wn.hits += hit as u32;
            }
            let n = self.ndp.as_deref_mut().expect("ndp on");
            if n.insts[i as usize].granted {
                self.ndp_send(i, p);
            } else {
                n.push_pending(i, p);
            }
        }
        let n = self.ndp.as_deref_mut().expect("ndp on");
        n.warps[wg] = wn;
        n.scratch = scratch;
        if first {
            self.ndp_try_grant(i);
        }
    }

    /// Ask the buffer manager for instance `i`'s NSU entries (all or nothing, §3.8); a
    /// denied instance queues behind the others waiting at its stack.
    fn ndp_try_grant(&mut self, i: u32) {
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let x = n.insts[i as usize];
        let s = x.target as usize;
        if n.waiting[s].is_empty() && n.credits.reserve(x.target, x.loads as u32, x.stores as u32) {
            self.ndp_grant(i);
        } else {
            if !n.waiting[s].is_empty() {
                n.credits.denied += 1;
            }
            n.waiting[s].push_back(i);
        }
    }

    /// Instance `i` holds its reservation: its pending packets leave, in order. A slot
    /// freed in the pending buffer of an SM asleep on it wakes the SM
    /// ([`System::ndp_sleep`]).
    fn ndp_grant(&mut self, i: u32) {
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let sm = n.insts[i as usize].sm as usize;
        #[cfg(test)]
        let was_full = n.pending[sm] >= n.pending_cap;
        n.insts[i as usize].granted = true;
        n.insts[i as usize].t[T_GRANT] = self.q.now();
        let mut k = n.insts[i as usize].pend_head;
        n.insts[i as usize].pend_head = NONE;
        n.insts[i as usize].pend_tail = NONE;
        while k != NONE {
            let n = self.ndp.as_deref_mut().expect("ndp on");
            let p = n.pkts[k as usize];
            n.free_pkts.push(k);
            let sm = n.insts[i as usize].sm as usize;
            n.pending[sm] -= 1;
            k = p.next;
            self.ndp_send(i, p);
        }
        let now = self.q.now();
        let cyc = self.sms[sm].clk.period;
        let n = self.ndp.as_deref_mut().expect("ndp on");
        if n.pending[sm] < n.pending_cap {
            let since = n.asleep[sm];
            #[cfg(test)]
            if was_full
                && n.pend_hold[sm] != 0
                && (since != Ps::MAX || n.pend_hold_at[sm] + cyc >= now)
            {
                n.resume_log.push((sm, now, Ps::MAX, false));
            }
            if since != Ps::MAX {
                self.wake_sm(sm, now.max(since + cyc));
            }
        }
    }

    /// A request of kind `Ndp` for packet `p` of instance `i`, bound for `dst` (the
    /// target NSU's node for vault responses and NSU writes).
    fn ndp_req(&self, i: u32, p: &Pkt, packet: Packet, dst: u32) -> Req {
        let x = self.ndp.as_deref().expect("ndp on").insts[i as usize];
        Req {
            kind: Kind::Ndp,
            mode: p.mode,
            sm: x.sm,
            src: dst,
            home: p.loc.node,
            chan: p.loc.channel,
            chan_addr: p.loc.chan_addr,
            line: p.line,
            bytes: p.active as u32,
            obj: p.obj,
            token: token(i, p.seq, packet),
            direct: false,
            at_home: false,
            ver: p.of as u32,
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

    /// Send a GPU-side packet of granted instance `i`: the command, an RDF, a GPU-built
    /// RDF response (a cache hit) or a WTA.
    ///
    /// The packet passes the SM's ready buffer (§3.8): it enters at its send time, or when
    /// a slot frees if the buffer is full then, and leaves when the first link of its
    /// route has serialised it.
    fn ndp_send(&mut self, i: u32, p: Pkt) {
        let now = self.q.now();
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let x = n.insts[i as usize];
        let t = n.ready[x.sm as usize].enter(now, p.t.max(now));
        let (gpu, tnode) = (n.gpu, n.stack_node[x.target as usize]);
        let (lb, fl) = (n.line_bytes, n.flit);
        let act = p.active as u32;
        let (bytes, msg) = match p.packet {
            Packet::OffloadCmd => (
                pkt_bytes(Packet::OffloadCmd, act, x.live_ins as u32, false, lb, fl),
                Msg::Offload,
            ),
            Packet::Wta => (
                pkt_bytes(Packet::Wta, act, 0, !p.aligned, lb, fl),
                Msg::Offload,
            ),
            Packet::RdfResp => (
                pkt_bytes(Packet::RdfResp, act, 0, false, lb, fl),
                Msg::Response,
            ),
            _ => (
                pkt_bytes(Packet::Rdf, act, 0, !p.aligned, lb, fl),
                Msg::Read,
            ),
        };
        let mut r = self.ndp_req(i, &p, p.packet, tnode);
        let to = if p.packet == Packet::Rdf {
            r.home
        } else {
            tnode
        };
        let left = self.first_hop_done(t, gpu, to, bytes, msg);
        let n = self.ndp.as_deref_mut().expect("ndp on");
        n.ready[x.sm as usize].depart(left);
        n.count(p.packet, bytes, true);
        if p.packet == Packet::Rdf {
            // to the vault owning the line
            let t = self.net.remote(t, gpu, r.home, bytes, msg, &mut r.rx);
            let t = self
                .net
                .to_channel(t, r.home, r.chan, bytes, msg, &mut r.rx);
            let id = self.new_req(r);
            self.q.push(t, Ev::DramArrive(id));
        } else {
            let t = self.net.remote(t, gpu, tnode, bytes, msg, &mut r.rx);
            let id = self.new_req(r);
            self.q.push(t, Ev::Ndp(id));
        }
    }

    /// When `bytes` sent at `t` from node `from` towards `to` will have been serialised
    /// onto the first link of the route (before the send reserves it): the moment the
    /// packet has left the sender. A gap-filling link ([`locus_engine::Port::filling_gaps`])
    /// is read as FIFO here.
    fn first_hop_done(&self, t: Ps, from: u32, to: u32, bytes: u32, msg: Msg) -> Ps {
        let g = self.net.graph();
        let Some(&l) = g.route(from, to).first() else {
            return t;
        };
        let reply = self.cfg.interconnect.reply_network && matches!(msg, Msg::Response | Msg::Ack);
        let id =
            self.net.inter_ports().start + if reply { g.links().len() } else { 0 } + l as usize;
        let port = &self.net.ports[id];
        t.max(port.next_free()) + port.ser(bytes)
    }

    /// A DRAM access of an NDP packet finished at a vault: an RDF's words go to the target
    /// NSU; an NSU write is acknowledged to the NSU and invalidated at the GPU (§3.9).
    pub(crate) fn ndp_dram_done(&mut self, id: u32) {
        let now = self.q.now();
        let mut r = self.reqs[id as usize];
        let (i, seq, p) = untoken(r.token);
        let n = self.ndp.as_deref().expect("ndp on");
        let (lb, fl, gpu) = (n.line_bytes, n.flit, n.gpu);
        // the channel moved a line (`dram_arrive`: NDP runs whole lines)
        let line = self.cfg.system.line_bytes as u64;
        if p == Packet::Rdf {
            self.c.dram_reads += 1;
            self.c.dram_read_bytes += line;
            let b = pkt_bytes(Packet::RdfResp, r.bytes, 0, false, lb, fl);
            let t = self
                .net
                .from_channel(now, r.home, r.chan, b, Msg::Response, &mut r.rx);
            let t = self
                .net
                .remote(t, r.home, r.src, b, Msg::Response, &mut r.rx);
            r.token = token(i, seq, Packet::RdfResp);
            self.reqs[id as usize] = r;
            self.ndp
                .as_deref_mut()
                .expect("ndp on")
                .count(Packet::RdfResp, b, false);
            self.q.push(t, Ev::Ndp(id));
            return;
        }
        debug_assert_eq!(p, Packet::NsuWrite);
        self.c.dram_writes += 1;
        self.c.dram_write_bytes += line;
        let b = pkt_bytes(Packet::WriteAck, 0, 0, false, lb, fl);
        let t = self
            .net
            .from_channel(now, r.home, r.chan, b, Msg::Ack, &mut r.rx);
        let t = self.net.remote(t, r.home, r.src, b, Msg::Ack, &mut r.rx);
        r.token = token(i, seq, Packet::WriteAck);
        self.reqs[id as usize] = r;
        self.q.push(t, Ev::Ndp(id));
        // the vault invalidates the GPU's copies
        let bi = pkt_bytes(Packet::Inval, 0, 0, false, lb, fl);
        let mut v = Req {
            token: token(i, seq, Packet::Inval),
            rx: Receipts::default(),
            ..r
        };
        let t = self
            .net
            .remote(now, r.home, gpu, bi, Msg::Invalidation, &mut v.rx);
        let vid = self.new_req(v);
        self.q.push(t, Ev::Ndp(vid));
        let n = self.ndp.as_deref_mut().expect("ndp on");
        n.count(Packet::WriteAck, b, false);
        n.count(Packet::Inval, bi, true);
    }

    /// An NDP packet arrives at its NSU or at the GPU.
    pub(crate) fn ndp_arrive(&mut self, id: u32) {
        let mut r = self.reqs[id as usize];
        self.net.arrive(&mut r.rx);
        self.reqs[id as usize].rx = r.rx;
        let (i, seq, p) = untoken(r.token);
        if p == Packet::Credit {
            self.retire(id);
            self.ndp_credits_arrive(i as usize);
            return;
        }
        if p == Packet::OffloadAck && seq == 1 {
            let s = self.ndp.as_deref().expect("ndp on").insts[i as usize].target;
            self.ndp_credits_arrive(s as usize);
        }
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let x = n.insts[i as usize];
        let s = x.target as usize;
        let gpu = n.gpu;
        let now = self.q.now();
        let tl = &mut n.insts[i as usize].t;
        match p {
            Packet::OffloadCmd => tl[T_CMD] = now,
            Packet::RdfResp | Packet::Wta => tl[T_DATA] = tl[T_DATA].max(now),
            Packet::OffloadAck => tl[T_ACK] = now,
            _ => {}
        }
        let res = match p {
            Packet::OffloadCmd => Some(n.nsus[s].arrive_cmd(i, x.prog)),
            Packet::RdfResp => Some(n.nsus[s].arrive_rdf(i, seq, r.ver as u16)),
            Packet::Wta => Some(n.nsus[s].arrive_wta(i, seq, r.ver as u16)),
            Packet::WriteAck => {
                n.nsus[s].write_acked(i);
                Some(Ok(()))
            }
            _ => None,
        };
        self.retire(id);
        match res {
            Some(res) => {
                if res.is_err() {
                    self.ndp.as_deref_mut().expect("ndp on").credit_errors += 1;
                }
                self.wake_nsu(s);
            }
            None if p == Packet::Inval => {
                // drop the GPU's copies (L2 slice and every L1), fills in flight too
                let n = self.ndp.as_deref_mut().expect("ndp on");
                n.insts[i as usize].invals -= 1;
                n.invals += 1;
                let sl = self.slice_of(gpu, r.line, r.home, r.chan);
                self.slices[sl].cache.invalidate(r.line);
                self.inval_l1s(gpu, r.line, u32::MAX);
                self.ndp_maybe_done(i);
            }
            None => {
                // the offload ack with the live-outs
                let n = self.ndp.as_deref_mut().expect("ndp on");
                n.insts[i as usize].acked = true;
                self.ndp_maybe_done(i);
            }
        }
    }

    /// Instance `i` is done once acked with every invalidation delivered: its warp goes on.
    fn ndp_maybe_done(&mut self, i: u32) {
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let x = n.insts[i as usize];
        if !x.acked || x.invals > 0 {
            return;
        }
        n.free_insts.push(i);
        // the timeline's phases (issue 11): consecutive, each clamped to start no earlier
        // than the one before ends
        let now = self.q.now();
        let mut b = x.t[T_BEGIN];
        for (k, &t) in x.t[T_GRANT..=T_ACK].iter().chain([&now]).enumerate() {
            let e = b.max(t);
            n.phase_ps[k] += e - b;
            b = e;
        }
        let end = x.t[T_END].min(now);
        n.phase_ps[8] += end - x.t[T_BEGIN];
        n.phase_ps[9] += now - end;
        n.done += 1;
        let wg = x.wg as usize;
        if n.warps[wg].mode == 2 && n.warps[wg].inst == i {
            n.warps[wg].done_early = true; // not yet at OFLD.END
        } else if n.hill_ipc == HillIpc::Retire {
            // the warp waits at OFLD.END: the instance retires now
            n.block_insts += u64::from(x.retire);
        }
        self.warps[wg].ofld_wait = false;
        self.unpark(wg);
        let now = self.q.now();
        self.wake_sm(x.sm as usize, now);
    }

    /// NSU `s` may have work: tick at its next clock edge.
    fn wake_nsu(&mut self, s: usize) {
        let now = self.q.now();
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let mut t = n.nsu_clk.next_edge(now);
        if n.nsu_last[s] != Ps::MAX && t <= n.nsu_last[s] {
            t = n.nsu_last[s] + n.nsu_clk.period;
        }
        if n.nsu_tick_at[s] > t {
            n.nsu_tick_at[s] = t;
            self.q.push(t, Ev::NsuTick(s as u32));
        }
    }

    /// One cycle of NSU `s`; it keeps ticking while it makes progress, and sleeps until
    /// the next arrival, or the end of an ALU latency, when every warp waits (cycles slept are counted for occupancy).
    pub(crate) fn nsu_tick(&mut self, s: u32) {
        let s = s as usize;
        let now = self.q.now();
        let n = self.ndp.as_deref_mut().expect("ndp on");
        if n.nsu_tick_at[s] != now {
            return;
        }
        n.nsu_tick_at[s] = Ps::MAX;
        let period = n.nsu_clk.period;
        if n.nsu_last[s] != Ps::MAX {
            let gap = (now - n.nsu_last[s]) / period;
            if gap > 1 {
                let busy = n.nsus[s].busy_slots() as u64;
                n.nsus[s].cycles += gap - 1;
                n.nsus[s].slot_cycles += (gap - 1) * busy;
            }
        }
        n.nsu_last[s] = now;
        let mut out = std::mem::take(&mut n.out);
        out.clear();
        let before = n.nsus[s].insts;
        n.nsus[s].cycle(&mut out);
        let progressed = n.nsus[s].insts != before || !out.is_empty();
        for &o in &out {
            match o {
                NsuOut::Credit(b) => {
                    // freed here; the GPU learns of it when a packet carries it (§3.8)
                    let n = self.ndp.as_deref_mut().expect("ndp on");
                    n.credit_pend[s][b as usize] += 1;
                    if n.credit_since[s] == Ps::MAX {
                        n.credit_since[s] = now;
                    }
                }
                NsuOut::Write(i, seq) => {
                    self.ndp.as_deref_mut().expect("ndp on").insts[i as usize].t[T_WRITE] = now;
                    self.nsu_write(s, i, seq)
                }
                NsuOut::Spawn(i) => {
                    self.ndp.as_deref_mut().expect("ndp on").insts[i as usize].t[T_SPAWN] = now;
                }
                NsuOut::Ack(i) => {
                    let n = self.ndp.as_deref_mut().expect("ndp on");
                    let tl = &mut n.insts[i as usize].t;
                    tl[T_ACK_SENT] = now;
                    if tl[T_WRITE] == 0 {
                        tl[T_WRITE] = now; // no store: issuing ran up to the ack
                    }
                    let x = n.insts[i as usize];
                    let b = pkt_bytes(
                        Packet::OffloadAck,
                        x.lanes as u32,
                        x.live_outs as u32,
                        false,
                        n.line_bytes,
                        n.flit,
                    );
                    let (gpu, tnode) = (n.gpu, n.stack_node[s]);
                    let carries = self.ndp_credits_leave(s);
                    let p = Pkt {
                        next: NONE,
                        packet: Packet::OffloadAck,
                        seq: carries as u8,
                        active: x.lanes,
                        aligned: true,
                        of: 0,
                        obj: locus_workload::NO_OBJ,
                        mode: Mode::Fgp,
                        loc: NO_LOC,
                        line: 0,
                        t: now,
                    };
                    let mut r = self.ndp_req(i, &p, Packet::OffloadAck, gpu);
                    let t = self.net.remote(now, tnode, gpu, b, Msg::Offload, &mut r.rx);
                    let id = self.new_req(r);
                    self.q.push(t, Ev::Ndp(id));
                    self.ndp
                        .as_deref_mut()
                        .expect("ndp on")
                        .count(Packet::OffloadAck, b, true);
                }
            }
        }
        let n = self.ndp.as_deref_mut().expect("ndp on");
        n.out = out;
        if progressed && n.nsus[s].has_work() {
            let t = now + period;
            if n.nsu_tick_at[s] > t {
                n.nsu_tick_at[s] = t;
                self.q.push(t, Ev::NsuTick(s as u32));
            }
        } else if let Some(r) = n.nsus[s].next_ready() {
            // every warp waits; one of them only on its ALU latency: tick when it is over
            let t = now + (r - n.nsus[s].cycles) * period;
            if n.nsu_tick_at[s] > t {
                n.nsu_tick_at[s] = t;
                self.q.push(t, Ev::NsuTick(s as u32));
            }
        }
        // credits no packet carried for `CREDIT_WAIT` cycles leave on their own (§3.8)
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let since = n.credit_since[s];
        if since != Ps::MAX {
            let due = since + CREDIT_WAIT * period;
            if now >= due {
                self.ndp_credit_packet(s);
            } else if n.nsu_tick_at[s] > due {
                n.nsu_tick_at[s] = due;
                self.q.push(due, Ev::NsuTick(s as u32));
            }
        }
    }

    /// The credits pending at NSU `s` leave in a packet now (an ack or a credit packet):
    /// true when there were any.
    fn ndp_credits_leave(&mut self, s: usize) -> bool {
        let n = self.ndp.as_deref_mut().expect("ndp on");
        if n.credit_since[s] == Ps::MAX {
            return false;
        }
        let batch = std::mem::take(&mut n.credit_pend[s]);
        n.credit_flight[s].push_back(batch);
        n.credit_since[s] = Ps::MAX;
        true
    }

    /// A standalone credit packet (1 FLIT) from NSU `s` to the GPU.
    fn ndp_credit_packet(&mut self, s: usize) {
        #[cfg(test)]
        let since = self.ndp.as_deref().expect("ndp on").credit_since[s];
        if !self.ndp_credits_leave(s) {
            return;
        }
        let now = self.q.now();
        #[cfg(test)]
        self.ndp
            .as_deref_mut()
            .expect("ndp on")
            .credit_log
            .push((s, since, now));
        let n = self.ndp.as_deref().expect("ndp on");
        let b = pkt_bytes(Packet::Credit, 0, 0, false, n.line_bytes, n.flit);
        let (gpu, tnode) = (n.gpu, n.stack_node[s]);
        let mut r = Req {
            kind: Kind::Ndp,
            mode: Mode::Fgp,
            sm: 0,
            src: gpu,
            home: tnode,
            chan: 0,
            chan_addr: 0,
            line: 0,
            bytes: 0,
            obj: locus_workload::NO_OBJ,
            token: token(s as u32, 1, Packet::Credit),
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
        };
        let t = self.net.remote(now, tnode, gpu, b, Msg::Offload, &mut r.rx);
        let id = self.new_req(r);
        self.q.push(t, Ev::Ndp(id));
        self.ndp
            .as_deref_mut()
            .expect("ndp on")
            .count(Packet::Credit, b, true);
    }

    /// A batch of NSU `s`'s credits reached the GPU's buffer manager: the instances
    /// waiting there are granted, in order, while the credits last.
    fn ndp_credits_arrive(&mut self, s: usize) {
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let Some(batch) = n.credit_flight[s].pop_front() else {
            return;
        };
        for (b, k) in [Buf::Cmd, Buf::Read, Buf::Write].into_iter().zip(batch) {
            for _ in 0..k {
                n.credits.give_back(s as u32, b);
            }
        }
        loop {
            let n = self.ndp.as_deref_mut().expect("ndp on");
            let Some(&w) = n.waiting[s].front() else {
                break;
            };
            let x = n.insts[w as usize];
            if !n.credits.reserve(s as u32, x.loads as u32, x.stores as u32) {
                break;
            }
            n.waiting[s].pop_front();
            self.ndp_grant(w);
        }
    }

    /// NSU `s` stores `seq` of instance `i`: one write per line of its WTA addresses, to
    /// the owning vault (through the memory network when another stack's).
    fn nsu_write(&mut self, s: usize, i: u32, seq: u8) {
        let now = self.q.now();
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let tnode = n.stack_node[s];
        let (lb, fl) = (n.line_bytes, n.flit);
        let mut writes = 0u16;
        let mut prev = NONE;
        let mut k = n.insts[i as usize].st_head;
        while k != NONE {
            let n = self.ndp.as_deref_mut().expect("ndp on");
            let p = n.pkts[k as usize];
            let next = p.next;
            if p.seq != seq {
                prev = k;
                k = next;
                continue;
            }
            // unlink and free
            if prev == NONE {
                n.insts[i as usize].st_head = next;
            } else {
                n.pkts[prev as usize].next = next;
            }
            n.free_pkts.push(k);
            n.insts[i as usize].invals += 1;
            let b = pkt_bytes(Packet::NsuWrite, p.active as u32, 0, false, lb, fl);
            n.count(Packet::NsuWrite, b, false);
            let mut r = self.ndp_req(i, &p, Packet::NsuWrite, tnode);
            let t = self
                .net
                .remote(now, tnode, r.home, b, Msg::Write, &mut r.rx);
            let t = self
                .net
                .to_channel(t, r.home, r.chan, b, Msg::Write, &mut r.rx);
            let id = self.new_req(r);
            self.q.push(t, Ev::DramArrive(id));
            writes += 1;
            k = next;
        }
        let n = self.ndp.as_deref_mut().expect("ndp on");
        match writes {
            0 => n.nsus[s].write_acked(i), // nothing to write: nothing to wait for
            1 => {}
            w => n.nsus[s].more_writes(i, w - 1),
        }
    }

    /// Fig. 8: SM `sm` ticks at `now`: the cycles since its last tick that issued nothing
    /// count for that tick's class (nothing that changes the class happens without waking
    /// the SM, so the class holds for the whole stretch).
    pub(crate) fn ndp_cycle_begin(&mut self, sm: usize, now: Ps) {
        let cyc = self.sms[sm].clk.period;
        let n = self.ndp.as_deref_mut().expect("ndp on");
        let slept = std::mem::replace(&mut n.asleep[sm], Ps::MAX);
        if slept != Ps::MAX && now > slept {
            // the ticks it slept through (`ndp_sleep`), each holding the same warps again
            let skipped = (now - slept) / cyc - 1;
            n.pending_stalls += skipped * u64::from(n.pend_hold[sm].count_ones());
            n.pend_hold_at[sm] = now - cyc;
        }
        let since = std::mem::replace(&mut n.quiet_since[sm], Ps::MAX);
        if since != Ps::MAX && now > since {
            for (r, &c) in n.quiet_class[sm].iter().enumerate() {
                n.no_issue[r][c as usize] += (now - since) / cyc;
            }
        }
    }

    /// Fig. 8: SM `sm`'s tick at `now` ends, having issued (`issued`) or not; `unit_busy`:
    /// a ready warp found its unit busy in this tick (not counting warps held by a full
    /// NDP buffer, [`System::ndp_issue_held`], whose class is `ndp.pending_stall_as`'s:
    /// both readings are kept, `[exec-unit-busy, warp-idle]`).
    pub(crate) fn ndp_cycle_end(&mut self, sm: usize, now: Ps, issued: bool, unit_busy: bool) {
        let cls = if issued {
            None
        } else {
            let base = sm * self.max_warps;
            let held =
                &self.ndp.as_deref().expect("ndp on").held_until[base..base + self.max_warps];
            let busy =
                unit_busy || self.sms[sm].mshr_waiters != 0 || self.sms[sm].write_waiters != 0;
            let (mut any_held, mut waiting, mut waiting_unheld) = (false, false, false);
            for (w, &h) in self.warps[base..base + self.max_warps].iter().zip(held) {
                let is_held = h > now;
                any_held |= is_held;
                if w.live && !w.at_barrier && !w.ofld_wait {
                    waiting = true;
                    waiting_unheld |= !is_held;
                }
            }
            let class = |busy: bool, waiting: bool| {
                if busy {
                    NoIssue::ExecBusy
                } else if waiting {
                    NoIssue::Dependency
                } else {
                    NoIssue::Idle
                }
            };
            Some([
                class(busy || any_held, waiting),
                class(busy, waiting_unheld),
            ])
        };
        let cyc = self.sms[sm].clk.period;
        let replay_busy = self.replay_busy_until(sm);
        let n = self.ndp.as_deref_mut().expect("ndp on");
        #[cfg(test)]
        if let Some(r) = n
            .resume_log
            .iter_mut()
            .rev()
            .find(|r| r.0 == sm && r.2 == Ps::MAX)
        {
            (r.2, r.3) = (now, issued);
        }
        match cls {
            None => {
                n.issue_cycles += 1;
                // the next cycle starts a stretch of its own (the SM ticks again then,
                // or when replays free its issue slot)
                n.quiet_since[sm] = now + cyc;
                n.quiet_class[sm] = if replay_busy > now + cyc {
                    [NoIssue::ExecBusy as u8; 2]
                } else {
                    [NoIssue::Idle as u8; 2]
                };
            }
            Some(c) => {
                n.quiet_since[sm] = now;
                n.quiet_class[sm] = c.map(|c| c as u8);
            }
        }
    }

    /// Entries left in every NSU's command, read-data and write-address buffers, summed
    /// (tests: 0 after a run, every entry taken by its instruction).
    #[cfg(test)]
    pub(crate) fn ndp_buffered(&self) -> [usize; 3] {
        let mut t = [0; 3];
        for u in self.ndp.iter().flat_map(|n| n.nsus.iter()) {
            for (a, b) in t.iter_mut().zip(u.buffered()) {
                *a += b;
            }
        }
        t
    }

    /// Algorithm 1's epoch (§4.3): the offload-block IPC of the epoch moves the ratio.
    pub(crate) fn ndp_epoch(&mut self) {
        let Some(n) = self.ndp.as_deref_mut() else {
            return;
        };
        let ipc = (n.block_insts - n.epoch_insts) as f64 / n.epoch_cycles.max(1) as f64;
        n.epoch_insts = n.block_insts;
        let r = n.sel.hill_mut().end_epoch(ipc);
        n.ratios.push(r);
        n.ipcs.push(ipc);
    }

    /// The `sim.ndp` statistics (`None` when NDP is off).
    pub(crate) fn ndp_stats(&self) -> Option<NdpStats> {
        let n = self.ndp.as_deref()?;
        let links = self.net.graph().links();
        let base = self.net.inter_ports().start;
        let (mut gpu_link, mut off_chip) = (0u64, 0u64);
        for (l, k) in links.iter().enumerate() {
            let b = self.net.ports[base + l].stats().bytes_sent;
            off_chip += b;
            if k.from == n.gpu || k.to == n.gpu {
                gpu_link += b;
            }
        }
        let end = self.q.now().max(1);
        let nsu_cycles = (end / n.nsu_clk.period).max(1);
        let nsus: Vec<NsuStats> = n
            .nsus
            .iter()
            .enumerate()
            .map(|(s, u)| {
                let code_bytes = n.code_bytes(s);
                NsuStats {
                    stack: s as u32,
                    node: n.stack_node[s],
                    insts: u.insts,
                    code_bytes,
                    icache_use: code_bytes as f64 / n.icache_bytes.max(1) as f64,
                    occupancy: u.slot_cycles as f64 / (nsu_cycles * n.nsu_warps as u64) as f64,
                    peak_cmd: u.peak[0],
                    peak_read: u.peak[1],
                    peak_write: u.peak[2],
                }
            })
            .collect();
        let inval_bytes = n.gpu_link[Packet::Inval as usize];
        // SMs still asleep on a full pending buffer (a run limit stopped the run): the
        // ticks they slept through before the limit (`ndp_sleep`)
        let mut pending_stalls = n.pending_stalls;
        for (sm, &slept) in n.asleep.iter().enumerate() {
            let cyc = self.sms[sm].clk.period;
            let limit = self.stopped_at.map_or(end, |s| s.saturating_sub(cyc));
            if slept != Ps::MAX && limit > slept {
                let ticks = (limit - slept).div_ceil(cyc) - 1;
                pending_stalls += ticks * u64::from(n.pend_hold[sm].count_ones());
            }
        }
        // Fig. 8: the stretch each SM is in at the end counts up to the end
        let mut no_issue = n.no_issue;
        for (sm, &since) in n.quiet_since.iter().enumerate() {
            if since != Ps::MAX && end > since {
                for (r, &c) in n.quiet_class[sm].iter().enumerate() {
                    no_issue[r][c as usize] += (end - since) / self.sms[sm].clk.period;
                }
            }
        }
        let split = |r: usize| NoIssueSplit {
            exec_busy: no_issue[r][NoIssue::ExecBusy as usize],
            dependency: no_issue[r][NoIssue::Dependency as usize],
            idle: no_issue[r][NoIssue::Idle as usize],
        };
        let by_reading = NoIssueReadings {
            exec_unit_busy: split(0),
            warp_idle: split(1),
        };
        let head = match n.stall_as {
            PendingStallAs::ExecUnitBusy => by_reading.exec_unit_busy,
            PendingStallAs::WarpIdle => by_reading.warp_idle,
        };
        let threads = n.threads.max(1) as f64;
        let nsu_insts: u64 = n.nsus.iter().map(|u| u.insts).sum();
        let instance_time = InstanceTime::from_sums(
            n.done,
            &n.phase_ps,
            nsu_insts,
            nsu_cycles * n.nsus.len() as u64,
            n.nsu_clk.period,
        );
        Some(NdpStats {
            offload: n.mode.name().to_string(),
            instances_offloaded: n.offloaded,
            instances_on_gpu: n.on_gpu,
            suppressed_by_cache_check: n.sel.suppressed,
            not_offloadable: n.not_offloadable,
            blocks: n
                .block_order
                .iter()
                .filter_map(|&k| n.blocks[k as usize].clone())
                .collect(),
            packets: Packet::ALL
                .iter()
                .map(|&p| PacketStats {
                    kind: p.name(),
                    packets: n.packets[p as usize],
                    bytes: n.bytes[p as usize],
                    gpu_link_bytes: n.gpu_link[p as usize],
                })
                .collect(),
            ndp_gpu_link_bytes: n.gpu_link.iter().sum(),
            gpu_link_bytes: gpu_link,
            off_chip_bytes: off_chip,
            invalidations: n.invals,
            invalidation_share_of_off_chip: inval_bytes as f64 / off_chip.max(1) as f64,
            live_ins_per_thread: n.regs_in as f64 / threads,
            live_outs_per_thread: n.regs_out as f64 / threads,
            credit_denials: n.credits.denied,
            credit_violations: n.credit_errors,
            peak_pending_packets: n.peak_pending,
            pending_full_stalls: pending_stalls,
            peak_ready_packets: n.ready.iter().map(|b| b.peak).max().unwrap_or(0) as u32,
            ready_full_stalls: n.ready_stalls,
            nsu_occupancy: nsus.iter().map(|u| u.occupancy).sum::<f64>() / nsus.len().max(1) as f64,
            nsu_icache_use: nsus.iter().map(|u| u.icache_use).sum::<f64>()
                / nsus.len().max(1) as f64,
            gpu_alu_nops: n.alu_nops,
            nsus,
            ratio_per_epoch: n.ratios.clone(),
            ipc_per_epoch: n.ipcs.clone(),
            hill_insts: n.block_insts,
            instance_time,
            no_issue: NoIssueStats {
                pending_stall_as: n.stall_as.name(),
                exec_busy: head.exec_busy,
                dependency: head.dependency,
                idle: head.idle,
                issue: n.issue_cycles,
                by_reading,
            },
        })
    }
}

#[cfg(test)]
#[path = "ndp_tests.rs"]
mod tests;
