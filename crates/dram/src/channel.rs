//! Event-driven model of one HBM2 channel (coda spec §2.3; JEDEC JESD235 legacy mode).
//!
//! # Model
//!
//! The channel keeps, for every timing rule, the earliest time at which the next command of
//! each kind may issue (per bank, per bank group and per channel), and a request queue in
//! arrival order. At a decision time `t` (a clock edge) [`Channel::tick`]:
//!
//! 1. performs the refreshes that are due (precharge-all, then REF, banks blocked for tRFC);
//! 2. issues at most one *column* command (RD/WR of one burst) — the oldest row hit whose
//!    command is legal at `t` (FR-FCFS) or the head of the queue (FCFS);
//! 3. issues at most one *row* command (ACT or PRE) — again oldest-first among those legal
//!    at `t`. HBM2 has separate row and column command buses, so both may issue in the same
//!    cycle;
//! 4. returns the earliest time at which any queued request's next command becomes legal.
//!
//! A read's completion is reported when its last burst's RD issues, with the time of its
//! last data beat (RD + tCL + BL/2 tCK); a write's when its last WR issues, with the end of
//! its write data (WR + WL + BL/2 tCK). Per decision the work is O(queue); nothing is
//! allocated per request (the queue is a `Vec` with capacity `queue_depth`).
//!
//! Honoured constraints: tRCD, tCL, WL, tRP, tRAS, tRC, tRTP, tWR, tCCD_S/L (also between
//! bursts of one request: a 128 B line is two BL4 bursts to the same bank group, so its
//! second burst issues tCCD_L after the first), tRRD_S/L, tFAW, tWTR_S/L, read-to-write
//! turnaround (tRTRS), data-bus occupancy, and all-bank refresh every tREFI blocking the
//! channel for tRFC.

use crate::config::{DramConfig, PagePolicy, Scheduler};
use crate::stats::ChannelStats;

/// A request whose data transfer has been scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The tag given to [`Channel::push`].
    pub tag: u32,
    /// For reads, the end of the last data beat; for writes, the end of the write data.
    /// May lie in the future of the `tick` that reported it.
    pub time_ps: u64,
    /// Whether the request was a write.
    pub is_write: bool,
}

/// A channel-local address split into DRAM coordinates (see the mapping in
/// [`crate::config`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramAddress {
    /// Bank group.
    pub bank_group: u32,
    /// Flat bank index in the channel: `bank_group * banks_per_group + bank_in_group`.
    pub bank: u32,
    /// Row within the bank.
    pub row: u32,
    /// Burst index within the row.
    pub column: u32,
}

/// Kind of a DRAM command in the optional command log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandKind {
    /// Row activation.
    Activate,
    /// Precharge of one bank (explicit, or auto-precharge under the closed-page policy).
    Precharge,
    /// Precharge-all before a refresh (one record per bank it closes).
    PrechargeAll,
    /// Read burst.
    Read,
    /// Write burst.
    Write,
    /// All-bank refresh.
    Refresh,
}

/// One issued command, recorded when the command log is enabled (for tests and debugging).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandRecord {
    /// Issue time in ps.
    pub time_ps: u64,
    /// Command kind.
    pub kind: CommandKind,
    /// Flat bank index (0 for all-bank commands).
    pub bank: u16,
    /// Row (for ACT/RD/WR; 0 otherwise).
    pub row: u32,
}

const NO_ROW: u32 = u32::MAX;

/// All timings in ps, rounded up to whole cycles.
#[derive(Debug, Clone, Copy)]
struct Timing {
    tck: u64,
    burst: u64,
    cl: u64,
    cwl: u64,
    rcd: u64,
    rp: u64,
    ras: u64,
    rc: u64,
    wr: u64,
    rtp: u64,
    rrd_s: u64,
    rrd_l: u64,
    faw: u64,
    ccd_s: u64,
    ccd_l: u64,
    wtr_s: u64,
    wtr_l: u64,
    rtrs: u64,
    rfc: u64,
    refi: u64,
}

#[derive(Debug, Clone, Copy)]
struct Bank {
    open_row: u32,
    /// Earliest ACT (tRP after PRE, tRC after ACT, tRFC after REF).
    next_act: u64,
    /// Earliest PRE (tRAS after ACT, tRTP after RD, tWR after write data).
    next_pre: u64,
    /// Earliest column command (tRCD after ACT).
    next_col: u64,
    /// Queued requests that target the open row.
    pending_hits: u32,
    /// Column commands served by the open row since its ACT.
    hits_since_act: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct Group {
    next_rd: u64,
    next_wr: u64,
    next_act: u64,
}

#[derive(Debug, Clone, Copy)]
struct Req {
    tag: u32,
    arrival: u64,
    row: u32,
    bank: u16,
    bg: u16,
    bursts_left: u32,
    bytes: u32,
    is_write: bool,
    classified: bool,
}

#[derive(Clone, Copy)]
enum Outcome {
    Hit,
    Miss,
    Conflict,
}

/// One HBM2 channel: banks, row buffers, a request queue and its scheduler.
///
/// Drive it with [`Channel::push`] (after checking [`Channel::can_accept`]) and call
/// [`Channel::tick`] after every push and at every time it returns.
#[derive(Debug, Clone)]
pub struct Channel {
    t: Timing,
    scheduler: Scheduler,
    page_policy: PagePolicy,
    row_hit_cap: u32,
    refresh: bool,
    queue_depth: usize,
    burst_bytes: u32,
    row_bytes: u32,
    burst_shift: u32,
    col_bits: u32,
    bg_bits: u32,
    bpg_bits: u32,
    row_mask: u64,
    queue: Vec<Req>,
    banks: Vec<Bank>,
    groups: Vec<Group>,
    next_act_any: u64,
    faw_ring: [u64; 4],
    faw_pos: usize,
    acts_seen: u64,
    next_row_cmd: u64,
    next_col_cmd: u64,
    bus_free: u64,
    next_refresh: u64,
    stats: ChannelStats,
    log: Option<Vec<CommandRecord>>,
}

impl Channel {
    /// Builds an idle channel (all banks precharged, first refresh due at tREFI).
    ///
    /// Panics if `cfg.validate()` fails: configurations are validated when loaded, so an
    /// invalid one here is a programming error.
    pub fn new(cfg: &DramConfig) -> Channel {
        if let Err(e) = cfg.validate() {
            panic!("locus-dram: invalid DramConfig: {e}");
        }
        let tck = cfg.tck_ps;
        let burst = cfg.burst_ps();
        let t = Timing {
            tck,
            burst,
            cl: cfg.ns_to_ps_ck(cfg.tcl_ns),
            cwl: cfg.ns_to_ps_ck(cfg.tcwl_ns),
            rcd: cfg.ns_to_ps_ck(cfg.trcd_ns),
            rp: cfg.ns_to_ps_ck(cfg.trp_ns),
            ras: cfg.ns_to_ps_ck(cfg.tras_ns),
            rc: cfg.ns_to_ps_ck(cfg.trc_ns),
            wr: cfg.ns_to_ps_ck(cfg.twr_ns),
            rtp: cfg.ns_to_ps_ck(cfg.trtp_ns),
            rrd_s: cfg.ns_to_ps_ck(cfg.trrd_s_ns),
            rrd_l: cfg.ns_to_ps_ck(cfg.trrd_l_ns),
            faw: cfg.ns_to_ps_ck(cfg.tfaw_ns),
            ccd_s: (u64::from(cfg.tccd_s_ck) * tck).max(burst),
            ccd_l: (u64::from(cfg.tccd_l_ck) * tck).max(burst),
            wtr_s: cfg.ns_to_ps_ck(cfg.twtr_s_ns),
            wtr_l: cfg.ns_to_ps_ck(cfg.twtr_l_ns),
            rtrs: u64::from(cfg.trtrs_ck) * tck,
            rfc: cfg.ns_to_ps_ck(cfg.trfc_ns),
            refi: cfg.ns_to_ps_ck(cfg.trefi_ns).max(tck),
        };
        let bank = Bank {
            open_row: NO_ROW,
            next_act: 0,
            next_pre: 0,
            next_col: 0,
            pending_hits: 0,
            hits_since_act: 0,
        };
        let bpg = cfg.banks / cfg.bank_groups;
        Channel {
            t,
            scheduler: cfg.scheduler,
            page_policy: cfg.page_policy,
            row_hit_cap: cfg.row_hit_cap,
            refresh: cfg.refresh,
            queue_depth: cfg.queue_depth as usize,
            burst_bytes: cfg.burst_bytes(),
            row_bytes: cfg.row_bytes,
            burst_shift: cfg.burst_bytes().trailing_zeros(),
            col_bits: (cfg.row_bytes / cfg.burst_bytes()).trailing_zeros(),
            bg_bits: cfg.bank_groups.trailing_zeros(),
            bpg_bits: bpg.trailing_zeros(),
            row_mask: cfg.rows_per_bank().max(1) - 1,
            queue: Vec::with_capacity(cfg.queue_depth as usize),
            banks: vec![bank; cfg.banks as usize],
            groups: vec![Group::default(); cfg.bank_groups as usize],
            next_act_any: 0,
            faw_ring: [0; 4],
            faw_pos: 0,
            acts_seen: 0,
            next_row_cmd: 0,
            next_col_cmd: 0,
            bus_free: 0,
            next_refresh: t.refi,
            stats: ChannelStats::default(),
            log: None,
        }
    }

    /// Whether the request queue has a free entry (coda spec §2.3: 64 entries).
    pub fn can_accept(&self) -> bool {
        self.queue.len() < self.queue_depth
    }

    /// Number of queued requests (not yet fully issued).
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Splits a channel-local byte address into bank group, bank, row and column
    /// (mapping documented in [`crate::config`]).
    pub fn decode(&self, addr: u64) -> DramAddress {
        let a = addr >> self.burst_shift;
        let column = (a & ((1 << self.col_bits) - 1)) as u32;
        let a = a >> self.col_bits;
        let bank_group = (a & ((1 << self.bg_bits) - 1)) as u32;
        let a = a >> self.bg_bits;
        let bank_in_group = (a & ((1 << self.bpg_bits) - 1)) as u32;
        let row = ((a >> self.bpg_bits) & self.row_mask) as u32;
        DramAddress {
            bank_group,
            bank: (bank_group << self.bpg_bits) | bank_in_group,
            row,
            column,
        }
    }

    /// Enqueues a request that arrived at `now_ps`.
    ///
    /// `addr` is the channel-local byte address; `bytes` a multiple of the burst size
    /// (64 B by default; a 128 B line is two bursts) that must not cross a row boundary.
    /// Panics if the queue is full (check [`Channel::can_accept`] first).
    pub fn push(&mut self, now_ps: u64, tag: u32, addr: u64, bytes: u32, is_write: bool) {
        assert!(
            self.can_accept(),
            "locus-dram: push into a full channel queue (check can_accept first)"
        );
        assert!(bytes > 0, "locus-dram: zero-byte request");
        let d = self.decode(addr);
        let bursts = bytes.div_ceil(self.burst_bytes);
        debug_assert!(
            (addr % u64::from(self.row_bytes)) + u64::from(bursts * self.burst_bytes)
                <= u64::from(self.row_bytes),
            "locus-dram: request at {addr:#x} of {bytes} B crosses a row boundary"
        );
        let bank = &mut self.banks[d.bank as usize];
        if bank.open_row == d.row {
            bank.pending_hits += 1;
        }
        self.queue.push(Req {
            tag,
            arrival: now_ps,
            row: d.row,
            bank: d.bank as u16,
            bg: d.bank_group as u16,
            bursts_left: bursts,
            bytes,
            is_write,
            classified: false,
        });
    }

    /// Makes every scheduling decision possible at `now_ps`, appends a [`Completion`] for
    /// every request whose data transfer is now fixed, and returns when to call again
    /// (`None` when the queue is empty; refreshes of an idle channel are then accounted
    /// lazily at the next call).
    pub fn tick(&mut self, now_ps: u64, done: &mut Vec<Completion>) -> Option<u64> {
        if self.queue.is_empty() {
            self.catch_up_refresh(now_ps);
            return None;
        }
        // Commands issue on clock edges.
        let t = now_ps.div_ceil(self.t.tck) * self.t.tck;
        if t != now_ps {
            return Some(t);
        }
        self.catch_up_refresh(t);
        if let Some(i) = self.pick_column(t) {
            self.issue_column(i, t, done);
        }
        if let Some(i) = self.pick_row(t) {
            self.issue_row(i, t);
        }
        if self.queue.is_empty() {
            return None;
        }
        let mut next = self.next_decision();
        if self.refresh {
            next = next.min(self.next_refresh);
        }
        if next <= t && self.next_col_cmd <= t {
            // A zero timing (tRCD = 0): the row activated at `t` takes its column command
            // at `t` too, on the column bus, which no command used yet at `t` (found by
            // sweeping every configuration key over absurd values, session 21)
            if let Some(i) = self.pick_column(t) {
                self.issue_column(i, t, done);
            }
            if self.queue.is_empty() {
                return None;
            }
            next = self.next_decision();
            if self.refresh {
                next = next.min(self.next_refresh);
            }
        }
        if next <= t {
            // Cannot happen (both command buses issued at `t`, so every candidate waits at
            // least one clock); a safe fallback keeps the simulation moving.
            debug_assert!(false, "locus-dram: next decision {next} <= now {t}");
            next = t + self.t.tck;
        }
        Some(next)
    }

    /// Statistics so far.
    pub fn stats(&self) -> &ChannelStats {
        &self.stats
    }

    /// Starts recording every issued command (allocates; meant for tests and debugging).
    pub fn enable_command_log(&mut self) {
        self.log.get_or_insert_with(Vec::new);
    }

    /// Commands recorded since [`Channel::enable_command_log`], in issue order (an
    /// auto-precharge is recorded when decided, with its later execution time).
    pub fn command_log(&self) -> &[CommandRecord] {
        self.log.as_deref().unwrap_or(&[])
    }

    // ----- internals -------------------------------------------------------------------

    fn record(&mut self, time_ps: u64, kind: CommandKind, bank: u16, row: u32) {
        if let Some(log) = self.log.as_mut() {
            log.push(CommandRecord {
                time_ps,
                kind,
                bank,
                row,
            });
        }
    }

    fn eligible(&self) -> usize {
        match self.scheduler {
            Scheduler::FrFcfs => self.queue.len(),
            Scheduler::Fcfs => self.queue.len().min(1),
        }
    }

    fn catch_up_refresh(&mut self, t: u64) {
        while self.refresh && self.next_refresh <= t {
            let due = self.next_refresh;
            self.do_refresh(due);
            self.next_refresh += self.t.refi;
        }
    }

    /// All-bank refresh due at `due`: precharge-all at the first legal time, REF once every
    /// bank may be activated again, then no ACT for tRFC.
    fn do_refresh(&mut self, due: u64) {
        let start = due.max(self.next_row_cmd);
        let mut pre = start;
        let mut open = 0u64;
        for b in &self.banks {
            if b.open_row != NO_ROW {
                open += 1;
                pre = pre.max(b.next_pre);
            }
        }
        let mut ref_t = start;
        if open > 0 {
            ref_t = ref_t.max(pre + self.t.rp.max(self.t.tck));
            self.stats.precharges += open;
            for b in 0..self.banks.len() {
                if self.banks[b].open_row != NO_ROW {
                    self.record(pre, CommandKind::PrechargeAll, b as u16, 0);
                }
            }
        }
        for b in &self.banks {
            ref_t = ref_t.max(b.next_act);
        }
        self.stats.refreshes += 1;
        self.record(ref_t, CommandKind::Refresh, 0, 0);
        let blocked = ref_t + self.t.rfc;
        for b in &mut self.banks {
            b.open_row = NO_ROW;
            b.next_act = blocked;
            b.pending_hits = 0;
            b.hits_since_act = 0;
        }
        self.next_row_cmd = ref_t + self.t.tck;
    }

    fn faw_ready(&self) -> u64 {
        if self.acts_seen >= 4 {
            self.faw_ring[self.faw_pos] + self.t.faw
        } else {
            0
        }
    }

    fn col_ready(&self, r: &Req) -> u64 {
        let b = &self.banks[r.bank as usize];
        let g = &self.groups[r.bg as usize];
        let e = b.next_col.max(self.next_col_cmd);
        if r.is_write {
            e.max(g.next_wr)
                .max(self.bus_free.saturating_sub(self.t.cwl))
        } else {
            e.max(g.next_rd)
                .max(self.bus_free.saturating_sub(self.t.cl))
        }
    }

    fn act_ready(&self, r: &Req) -> u64 {
        let b = &self.banks[r.bank as usize];
        let g = &self.groups[r.bg as usize];
        b.next_act
            .max(g.next_act)
            .max(self.next_act_any)
            .max(self.faw_ready())
            .max(self.next_row_cmd)
    }

    fn pre_ready(&self, r: &Req) -> u64 {
        let b = &self.banks[r.bank as usize];
        let keep_open = self.scheduler == Scheduler::FrFcfs
            && b.pending_hits > 0
            && (self.row_hit_cap == 0 || b.hits_since_act < self.row_hit_cap);
        if keep_open {
            u64::MAX
        } else {
            b.next_pre.max(self.next_row_cmd)
        }
    }

    fn ready(&self, r: &Req) -> u64 {
        let open = self.banks[r.bank as usize].open_row;
        if open == r.row {
            self.col_ready(r)
        } else if open == NO_ROW {
            self.act_ready(r)
        } else {
            self.pre_ready(r)
        }
    }

    fn next_decision(&self) -> u64 {
        self.queue[..self.eligible()]
            .iter()
            .map(|r| self.ready(r))
            .min()
            .unwrap_or(u64::MAX)
    }

    fn pick_column(&self, t: u64) -> Option<usize> {
        self.queue[..self.eligible()]
            .iter()
            .position(|r| self.banks[r.bank as usize].open_row == r.row && self.col_ready(r) <= t)
    }

    fn pick_row(&self, t: u64) -> Option<usize> {
        self.queue[..self.eligible()].iter().position(|r| {
            let open = self.banks[r.bank as usize].open_row;
            if open == r.row {
                false
            } else if open == NO_ROW {
                self.act_ready(r) <= t
            } else {
                self.pre_ready(r) <= t
            }
        })
    }

    fn classify(&mut self, i: usize, o: Outcome) {
        if self.queue[i].classified {
            return;
        }
        self.queue[i].classified = true;
        match o {
            Outcome::Hit => self.stats.row_hits += 1,
            Outcome::Miss => self.stats.row_misses += 1,
            Outcome::Conflict => self.stats.row_conflicts += 1,
        }
    }

    fn issue_column(&mut self, i: usize, t: u64, done: &mut Vec<Completion>) {
        self.classify(i, Outcome::Hit);
        let r = self.queue[i];
        let tm = self.t;
        let data_end = t + if r.is_write { tm.cwl } else { tm.cl } + tm.burst;
        self.bus_free = data_end;
        self.stats.bus_busy_ps += tm.burst;
        self.stats.bursts += 1;
        self.next_col_cmd = t + tm.tck;
        for (h, g) in self.groups.iter_mut().enumerate() {
            let same = h == r.bg as usize;
            let ccd = if same { tm.ccd_l } else { tm.ccd_s };
            if r.is_write {
                g.next_wr = g.next_wr.max(t + ccd);
                let wtr = if same { tm.wtr_l } else { tm.wtr_s };
                g.next_rd = g.next_rd.max(data_end + wtr);
            } else {
                g.next_rd = g.next_rd.max(t + ccd);
                g.next_wr = g.next_wr.max((data_end + tm.rtrs).saturating_sub(tm.cwl));
            }
        }
        let bank = &mut self.banks[r.bank as usize];
        bank.next_pre = bank.next_pre.max(if r.is_write {
            data_end + tm.wr
        } else {
            t + tm.rtp
        });
        bank.hits_since_act += 1;
        let kind = if r.is_write {
            CommandKind::Write
        } else {
            CommandKind::Read
        };
        self.record(t, kind, r.bank, r.row);
        self.queue[i].bursts_left -= 1;
        if self.queue[i].bursts_left > 0 {
            return;
        }
        // Last burst: the request's data transfer is now fixed.
        self.queue.remove(i);
        done.push(Completion {
            tag: r.tag,
            time_ps: data_end,
            is_write: r.is_write,
        });
        if r.is_write {
            self.stats.writes += 1;
            self.stats.bytes_written += u64::from(r.bytes);
        } else {
            self.stats.reads += 1;
            self.stats.bytes_read += u64::from(r.bytes);
            let lat = data_end.saturating_sub(r.arrival);
            self.stats.read_latency_sum_ps += lat;
            self.stats.read_latency_count += 1;
            self.stats.read_latency_max_ps = self.stats.read_latency_max_ps.max(lat);
        }
        let bank = &mut self.banks[r.bank as usize];
        bank.pending_hits = bank.pending_hits.saturating_sub(1);
        if self.page_policy == PagePolicy::Closed && bank.pending_hits == 0 {
            // Auto-precharge (RDA/WRA) at the first legal time.
            let pre = bank.next_pre;
            bank.open_row = NO_ROW;
            bank.next_act = bank.next_act.max(pre + tm.rp);
            self.stats.precharges += 1;
            self.record(pre, CommandKind::Precharge, r.bank, r.row);
        }
    }

    fn issue_row(&mut self, i: usize, t: u64) {
        let r = self.queue[i];
        let tm = self.t;
        self.next_row_cmd = t + tm.tck;
        let b = r.bank as usize;
        if self.banks[b].open_row == NO_ROW {
            self.classify(i, Outcome::Miss);
            let hits = self
                .queue
                .iter()
                .filter(|q| q.bank == r.bank && q.row == r.row)
                .count() as u32;
            let bank = &mut self.banks[b];
            bank.open_row = r.row;
            bank.next_col = t + tm.rcd;
            bank.next_pre = bank.next_pre.max(t + tm.ras);
            bank.next_act = bank.next_act.max(t + tm.rc);
            bank.hits_since_act = 0;
            bank.pending_hits = hits;
            let g = &mut self.groups[r.bg as usize];
            g.next_act = g.next_act.max(t + tm.rrd_l);
            self.next_act_any = self.next_act_any.max(t + tm.rrd_s);
            self.faw_ring[self.faw_pos] = t;
            self.faw_pos = (self.faw_pos + 1) % 4;
            self.acts_seen += 1;
            self.stats.activates += 1;
            self.record(t, CommandKind::Activate, r.bank, r.row);
        } else {
            self.classify(i, Outcome::Conflict);
            let bank = &mut self.banks[b];
            bank.open_row = NO_ROW;
            bank.next_act = bank.next_act.max(t + tm.rp);
            bank.pending_hits = 0;
            bank.hits_since_act = 0;
            self.stats.precharges += 1;
            self.record(t, CommandKind::Precharge, r.bank, 0);
        }
    }
}
