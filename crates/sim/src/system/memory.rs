//! The memory side of the request path: L2 slices (requester-side, write-back,
//! write-allocate, MSHR merging), the trip to the home node's memory channel (local
//! crossbar, or inter-node network then the home crossbar), DRAM, and the responses back
//! to the L2 and the SM.

use super::{Ev, Kind, Req, System};
use crate::noc::{Msg, Receipts};
use locus_engine::Ps;

impl System {
    /// Index (over all nodes) of the L2 slice of `node` that holds `r`'s line.
    #[inline]
    pub(crate) fn slice_id(&self, node: u32, r: &Req) -> usize {
        let spn = self.cfg.l2.slices_per_node as usize;
        let s = if self.cfg.l2.memory_side && r.home == node {
            // memory-side slices belong to a stack: the line's stack picks the slice group
            let stacks = self.cfg.memory.stacks_per_node as usize;
            let per_stack_ch = self.cfg.memory.channels_per_node as usize / stacks;
            let group = spn / stacks;
            let stack = r.chan as usize / per_stack_ch.max(1);
            stack * group + (self.map.slice(r.line << self.line_shift) as usize % group.max(1))
        } else {
            self.map.slice(r.line << self.line_shift) as usize
        };
        node as usize * spn + s
    }

    #[inline]
    fn cacheable(&self, r: &Req, at: u32) -> bool {
        self.cfg.l2.cache_remote || r.home == at
    }

    /// Request `id` arrives at its L2 slice: redeem its receipts; return it, the node whose
    /// L2 handles it (the home for atomics, the requester otherwise) and the slice.
    fn arrive_at_slice(&mut self, id: u32) -> (Req, u32, usize) {
        let mut r = self.reqs[id as usize];
        self.net.arrive(&mut r.rx);
        self.reqs[id as usize].rx = r.rx;
        let at = if r.kind == Kind::Atomic {
            r.home
        } else {
            r.src
        };
        let s = self.slice_id(at, &r);
        (r, at, s)
    }

    /// A request reaches an L2 slice.
    #[inline(never)]
    pub(crate) fn l2_access(&mut self, id: u32) {
        let now = self.q.now();
        let (r, at, s) = self.arrive_at_slice(id);
        let l2_lat = self.clk.cycles(self.cfg.l2.hit_latency as u64);
        self.c.l2_accesses += 1;
        match r.kind {
            Kind::Read | Kind::Atomic => {
                let cacheable = self.cacheable(&r, at);
                if cacheable && self.slices[s].cache.access(r.line) {
                    self.c.l2_hits += 1;
                    self.slices[s].hits += 1;
                    if r.kind == Kind::Atomic {
                        self.slices[s].cache.set_dirty(r.line);
                    }
                    self.respond_from_l2(id, at, s, now + l2_lat);
                    return;
                }
                self.c.l2_misses += 1;
                self.slices[s].misses += 1;
                match self.slices[s].mshr.add(r.line, id as u64) {
                    Some(true) => {
                        if r.kind == Kind::Read {
                            self.count_access(r.src, r.home, r.bytes as u64, r.obj);
                        }
                        self.send_to_memory(id, at, now + l2_lat, false);
                    }
                    Some(false) => self.c.l2_mshr_merges += 1,
                    None => {
                        // MSHRs full: retry when one frees
                        self.c.l2_misses -= 1;
                        self.slices[s].misses -= 1;
                        self.c.l2_accesses -= 1;
                        self.slices[s].stalled.push_back(id);
                    }
                }
            }
            Kind::Write => {
                if self.cacheable(&r, at) {
                    if self.slices[s].cache.set_dirty(r.line) {
                        self.c.l2_hits += 1;
                    } else {
                        self.c.l2_misses += 1;
                        // write-validate allocation: no fetch, the line becomes dirty
                        let meta = mode_meta(r.mode);
                        if let Some(v) = self.slices[s].cache.insert(r.line, true, meta) {
                            if v.dirty {
                                self.writeback(at, v.line, v.meta, now + l2_lat);
                            }
                        }
                    }
                    self.retire(id);
                } else {
                    self.c.l2_misses += 1;
                    self.count_access(r.src, r.home, r.bytes as u64, r.obj);
                    self.send_to_memory(id, at, now + l2_lat, true);
                }
            }
            Kind::Writeback => unreachable!("write-backs go straight to memory"),
        }
    }

    /// Send request `id` from node `at` towards its home memory channel at time `t`.
    pub(crate) fn send_to_memory(&mut self, id: u32, at: u32, t: Ps, with_data: bool) {
        let mut r = self.reqs[id as usize];
        let h = self.net.header_bytes;
        let bytes = if with_data { h + r.bytes } else { h };
        let mut t = t;
        let msg = if with_data { Msg::Write } else { Msg::Read };
        if r.home != at {
            t = self.net.remote(t, at, r.home, bytes, msg, &mut r.rx);
        }
        t = self
            .net
            .to_channel(t, r.home, r.chan, bytes, msg, &mut r.rx);
        self.reqs[id as usize] = r;
        self.q.push(t, Ev::DramArrive(id));
    }

    /// Write a dirty line evicted from node `node`'s L2 back to its home.
    pub(crate) fn writeback(&mut self, node: u32, line: u64, meta: u8, t: Ps) {
        let mode = meta_mode(meta);
        let loc = self.map.locate(line << self.line_shift, mode);
        self.c.l2_writebacks += 1;
        let bytes = self.cfg.system.line_bytes;
        self.count_access(node, loc.node, bytes as u64, locus_workload::NO_OBJ);
        let id = self.new_req(Req {
            kind: Kind::Writeback,
            mode,
            sm: u32::MAX,
            src: node,
            home: loc.node,
            chan: loc.channel,
            chan_addr: loc.chan_addr,
            line,
            bytes,
            obj: locus_workload::NO_OBJ,
            token: u64::MAX,
            direct: false,
            rx: Receipts::default(),
        });
        self.send_to_memory(id, node, t, true);
    }

    #[inline]
    fn chan_id(&self, node: u32, chan: u32) -> usize {
        node as usize * self.cfg.memory.channels_per_node as usize + chan as usize
    }

    /// A request reaches its channel.
    #[inline(never)]
    pub(crate) fn dram_arrive(&mut self, id: u32) {
        let now = self.q.now();
        let mut rx = self.reqs[id as usize].rx;
        self.net.arrive(&mut rx);
        self.reqs[id as usize].rx = rx;
        let r = self.reqs[id as usize];
        let c = self.chan_id(r.home, r.chan);
        if self.chans[c].ch.can_accept() && self.chans[c].overflow.is_empty() {
            let write = matches!(r.kind, Kind::Write | Kind::Writeback);
            let line = self.cfg.system.line_bytes;
            self.chans[c].ch.push(now, id, r.chan_addr, line, write);
        } else {
            self.chans[c].overflow.push_back(id);
        }
        self.dram_tick(c);
    }

    /// Let channel `c` make progress now; schedule its completions and its next tick.
    #[inline(never)]
    pub(crate) fn dram_tick(&mut self, c: usize) {
        let now = self.q.now();
        let mut done = std::mem::take(&mut self.done_buf);
        loop {
            done.clear();
            let next = self.chans[c].ch.tick(now, &mut done);
            for d in &done {
                self.q.push(d.time_ps, Ev::DramDone(d.tag));
            }
            // refill from the overflow queue
            let mut pushed = false;
            while self.chans[c].ch.can_accept() {
                let Some(id) = self.chans[c].overflow.pop_front() else {
                    break;
                };
                let r = self.reqs[id as usize];
                let write = matches!(r.kind, Kind::Write | Kind::Writeback);
                let line = self.cfg.system.line_bytes;
                self.chans[c].ch.push(now, id, r.chan_addr, line, write);
                pushed = true;
            }
            if !pushed {
                if let Some(t) = next {
                    if t < self.chans[c].tick_at || self.chans[c].tick_at <= now {
                        self.chans[c].tick_at = t;
                        self.q.push(t, Ev::DramTick(c as u32));
                    }
                }
                break;
            }
        }
        self.done_buf = done;
    }

    /// A DRAM channel tick event.
    pub(crate) fn dram_tick_event(&mut self, c: usize) {
        if self.chans[c].tick_at != self.q.now() {
            return;
        }
        self.chans[c].tick_at = Ps::MAX;
        self.dram_tick(c);
    }

    /// DRAM finished request `id`.
    #[inline(never)]
    pub(crate) fn dram_done(&mut self, id: u32) {
        let now = self.q.now();
        let mut r = self.reqs[id as usize];
        match r.kind {
            Kind::Read | Kind::Atomic => {
                self.c.dram_reads += 1;
                // the slice that missed: requester's for reads, home's for atomics
                let at = if r.kind == Kind::Atomic {
                    r.home
                } else {
                    r.src
                };
                let h = self.net.header_bytes;
                let mut t = self.net.from_channel(
                    now,
                    r.home,
                    r.chan,
                    h + r_line(self),
                    Msg::Response,
                    &mut r.rx,
                );
                if at != r.home {
                    t = self
                        .net
                        .remote(t, r.home, at, h + r_line(self), Msg::Response, &mut r.rx);
                }
                self.reqs[id as usize] = r;
                self.q.push(t, Ev::L2Fill(id));
            }
            Kind::Write | Kind::Writeback => {
                self.c.dram_writes += 1;
                if r.src != r.home {
                    let h = self.net.header_bytes;
                    let t = self.net.remote(now, r.home, r.src, h, Msg::Ack, &mut r.rx);
                    self.reqs[id as usize] = r;
                    self.q.push(t, Ev::WriteAck(id));
                } else {
                    self.retire(id);
                }
            }
        }
    }

    /// A remote write's acknowledgement arrived.
    pub(crate) fn write_ack(&mut self, id: u32) {
        let mut rx = self.reqs[id as usize].rx;
        self.net.arrive(&mut rx);
        self.reqs[id as usize].rx = rx;
        self.retire(id);
    }

    /// Data for the primary request `id` reaches the slice that missed.
    #[inline(never)]
    pub(crate) fn l2_fill(&mut self, id: u32) {
        let now = self.q.now();
        let (r, at, s) = self.arrive_at_slice(id);
        if self.cacheable(&r, at) {
            let dirty = r.kind == Kind::Atomic;
            if let Some(v) = self.slices[s]
                .cache
                .insert(r.line, dirty, mode_meta(r.mode))
            {
                if v.dirty {
                    self.writeback(at, v.line, v.meta, now);
                }
            }
        }
        let mut waiters = std::mem::take(&mut self.scratch_tok);
        waiters.clear();
        self.slices[s].mshr.complete(r.line, &mut waiters);
        for &w in &waiters {
            let wid = w as u32;
            if self.reqs[wid as usize].kind == Kind::Atomic && wid != id {
                // a merged atomic: it modifies the freshly filled line
                self.slices[s].cache.set_dirty(r.line);
            }
            self.respond_from_l2(wid, at, s, now);
        }
        self.scratch_tok = waiters;
        // retry requests that stalled on full MSHRs
        let n = self.slices[s].stalled.len();
        for _ in 0..n.min(self.slices[s].mshr.free()) {
            if let Some(sid) = self.slices[s].stalled.pop_front() {
                self.q.push(now, Ev::L2Access(sid));
            }
        }
    }

    /// Send the data of request `id` from slice `s` of node `at` to its SM, ready at `t`.
    fn respond_from_l2(&mut self, id: u32, at: u32, s: usize, t: Ps) {
        let mut r = self.reqs[id as usize];
        let spn = self.cfg.l2.slices_per_node as usize;
        let slice = (s % spn) as u32;
        match r.kind {
            Kind::Read => {
                let b = r_line(self);
                let t = self.net.slice_to_sm(t, at, slice, b, &mut r.rx);
                self.reqs[id as usize] = r;
                self.q.push(t, Ev::L1Fill(id));
            }
            Kind::Atomic => {
                let sm_node = self.sms[r.sm as usize].node;
                let h = self.net.header_bytes;
                let mut t = t;
                if sm_node != at {
                    t = self
                        .net
                        .remote(t, at, sm_node, h + r.bytes, Msg::Response, &mut r.rx);
                }
                t += self.clk.cycles(self.cfg.noc.sm_l2_latency as u64);
                self.reqs[id as usize] = r;
                self.q.push(t, Ev::AtomicResp(id));
            }
            _ => {}
        }
    }

    /// Data arrives at the SM's L1.
    #[inline(never)]
    pub(crate) fn l1_fill(&mut self, id: u32) {
        let mut r = self.reqs[id as usize];
        self.net.arrive(&mut r.rx);
        self.reqs[id as usize].rx = r.rx;
        let sm = r.sm as usize;
        if self.cfg.l1.enabled {
            self.sms[sm].l1.insert(r.line, false, 0);
        }
        let mut toks = std::mem::take(&mut self.scratch_tok);
        toks.clear();
        if r.direct {
            toks.push(r.token);
        } else {
            self.sms[sm].mshr.complete(r.line, &mut toks);
        }
        for &t in &toks {
            if t != u64::MAX {
                self.complete_pend(t as usize);
            }
        }
        self.scratch_tok = toks;
        let enough = self.sms[sm].mshr.free() >= self.sms[sm].mshr_need;
        let parked = if enough {
            std::mem::take(&mut self.sms[sm].mshr_waiters)
        } else {
            0
        };
        self.retire(id);
        if parked != 0 {
            // warps parked on full MSHRs may go now
            self.sms[sm].mshr_need = usize::MAX;
            self.unpark_all(sm, parked);
        }
    }

    /// An atomic's response arrives at its SM.
    pub(crate) fn atomic_resp(&mut self, id: u32) {
        let mut r = self.reqs[id as usize];
        self.net.arrive(&mut r.rx);
        self.reqs[id as usize].rx = r.rx;
        if r.token != u64::MAX {
            self.complete_pend(r.token as usize);
        }
        self.retire(id);
    }

    /// Kernel boundary (spec A7): write back dirty remote lines and drop remote lines from
    /// every L2; invalidate every L1.
    pub(crate) fn kernel_boundary(&mut self) {
        let now = self.q.now();
        for sm in &mut self.sms {
            sm.l1.clear();
        }
        if !self.cfg.l2.flush_remote_at_kernel_end || self.cfg.system.nodes == 1 {
            return;
        }
        let spn = self.cfg.l2.slices_per_node as usize;
        for s in 0..self.slices.len() {
            let node = (s / spn) as u32;
            let map = self.map.clone();
            let shift = self.line_shift;
            let dirty = self.slices[s].cache.invalidate_where(|line, _, meta| {
                map.locate(line << shift, meta_mode(meta)).node != node
            });
            for v in dirty {
                self.writeback(node, v.line, v.meta, now);
            }
        }
    }
}

#[inline]
fn r_line(s: &System) -> u32 {
    s.cfg.system.line_bytes
}

#[inline]
fn mode_meta(m: crate::mapping::Mode) -> u8 {
    match m {
        crate::mapping::Mode::Fgp => 0,
        crate::mapping::Mode::Cgp => 1,
    }
}

#[inline]
fn meta_mode(m: u8) -> crate::mapping::Mode {
    if m == 1 {
        crate::mapping::Mode::Cgp
    } else {
        crate::mapping::Mode::Fgp
    }
}
