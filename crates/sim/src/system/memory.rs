//! The memory side of the request path: L2 slices (organised requester-side, home-side or
//! both; write-back or write-through per line class; MSHR merging), the trip to the home
//! node's memory channel (local crossbar, or inter-node network then the home crossbar),
//! DRAM, the responses back to the L2 and the SM, and the coherence station (home-side
//! directory, invalidations, the fill/invalidation race; issue 7 §2, `crate::coherence`).

use super::{Ev, Kind, Req, System};
use crate::cache::SectorAdd;
use crate::coherence::{Cause, Inval};
use crate::config::{InvalScope, KernelBoundary, L2Organisation, WritePolicy};
use crate::mapping::Mode;
use crate::noc::{Msg, Receipts};
use locus_engine::Ps;

impl System {
    /// Index (over all nodes) of the L2 slice of `node` that holds `r`'s line.
    #[inline]
    pub(crate) fn slice_id(&self, node: u32, r: &Req) -> usize {
        self.slice_of(node, r.line, r.home, r.chan)
    }

    /// The slice of node `node` that caches `line` (homed at `home`, channel `chan`).
    #[inline]
    pub(crate) fn slice_of(&self, node: u32, line: u64, home: u32, chan: u32) -> usize {
        let spn = self.cfg.l2.slices_per_node as usize;
        let spc = self.cfg.l2.slices_per_channel as usize;
        let s = if spc > 0 {
            // the line's channel owns spc slices (of every node: a requester-side L2
            // caches a remote line in the slice of the same channel index)
            (chan as usize * spc + self.map.slice(line << self.line_shift) as usize % spc) % spn
        } else if self.cfg.l2.memory_side && home == node {
            // memory-side slices belong to a stack: the line's stack picks the slice group
            let stacks = self.cfg.memory.stacks_per_node as usize;
            let per_stack_ch = self.cfg.memory.channels_per_node as usize / stacks;
            let group = spn / stacks;
            let stack = chan as usize / per_stack_ch.max(1);
            stack * group + (self.map.slice(line << self.line_shift) as usize % group.max(1))
        } else {
            self.map.slice(line << self.line_shift) as usize
        };
        node as usize * spn + s
    }

    #[inline]
    fn cacheable(&self, r: &Req, at: u32) -> bool {
        r.home == at
            || r.rep
            || (self.cfg.l2.cache_remote && self.cfg.l2.organisation != L2Organisation::HomeSide)
    }

    /// NUBA replication (`crate::replication`): decide whether read `id`, arriving at slice
    /// `s` of node `at`, takes the replica path (sets `Req::rep`), and feed MDR's profile
    /// (the sampled slice is global slice 0: partition 0, slice 0).
    ///
    /// A `retry` (the request waited at this slice and looks it up again) is decided again
    /// but not sampled or counted again: its first look-up already was, and its second
    /// would find the line in the shadow directory (inserted by the first) and not in the
    /// real array (its fill has not begun), biasing MDR's hit rates and `Frac_local`.
    fn replication_path(
        &mut self,
        id: u32,
        r: &Req,
        at: u32,
        s: usize,
        now: Ps,
        retry: bool,
    ) -> bool {
        let remote = !r.at_home && r.home != at;
        let ro = remote && self.object_read_only_in_kernel(r.obj);
        let on = self.rep.replicating(now);
        if let Some(m) = self.rep.mdr().filter(|_| !retry) {
            if !r.at_home {
                m.note_request(r.home == at);
            }
            if s == 0 && (!remote || ro) {
                let set = self.slices[0].cache.set_of(r.line);
                if let Some(k) = m.sampled(set) {
                    // the real array sees local homes, requests from other partitions and,
                    // when replicating, the would-be replicas; the shadow the other way
                    let hit = self.slices[0].cache.contains(r.line);
                    let real = (!ro || on).then_some(hit);
                    m.sample(k, r.line, real, !ro || !on);
                }
            }
        }
        let rep = ro && on;
        if ro && !retry {
            if rep {
                self.rep.stats.replica_lookups += 1;
            } else {
                self.rep.stats.ro_remote_bypassed += 1;
            }
        }
        if !r.at_home {
            // (a replica-path read at its home slice keeps its flag for the reply)
            self.reqs[id as usize].rep = rep;
        }
        rep
    }

    /// Checker id of slice `s`'s cache (L1s are `0..sms`).
    #[inline]
    pub(crate) fn l2_cache_id(&self, s: usize) -> u32 {
        (self.sms.len() + s) as u32
    }

    /// Is the directory protocol on?
    #[inline]
    pub(crate) fn directory_on(&self) -> bool {
        !self.dirs.is_empty()
    }

    /// Do the directory's invalidations reach the L1s too (`coherence.inval_scope =
    /// "l2-and-l1"`, not the papers' rule)? With the default `"l2"` the L1s are software
    /// coherent: cleared at each kernel's start, and never touched by an invalidation.
    #[inline]
    pub(crate) fn dir_inval_l1(&self) -> bool {
        self.directory_on() && self.cfg.coherence.inval_scope == InvalScope::L2AndL1
    }

    /// Request `id` arrives at its L2 slice: redeem its receipts; return it, the node whose
    /// L2 handles it (the home for atomics, the requester otherwise) and the slice.
    fn arrive_at_slice(&mut self, id: u32) -> (Req, u32, usize) {
        let mut r = self.reqs[id as usize];
        self.net.arrive(&mut r.rx);
        self.reqs[id as usize].rx = r.rx;
        let at = if r.kind == Kind::Atomic || r.at_home {
            r.home
        } else {
            r.src
        };
        let s = self.slice_id(at, &r);
        (r, at, s)
    }

    /// Send request `id` from node `at` to the home node's L2 slice (home-side or two-level
    /// organisation), leaving at `t`.
    fn forward_to_home(&mut self, id: u32, at: u32, t: Ps, with_data: bool) {
        let mut r = self.reqs[id as usize];
        let h = self.net.header_bytes;
        let (bytes, msg) = if with_data {
            (h + r.bytes, Msg::Write)
        } else {
            (h, Msg::Read)
        };
        let t = self.net.remote(t, at, r.home, bytes, msg, &mut r.rx);
        r.at_home = true;
        self.reqs[id as usize] = r;
        self.q.push(t, Ev::L2Access(id));
    }

    /// A remote node's write was absorbed by the home slice: acknowledge it.
    fn ack_from_home(&mut self, id: u32, t: Ps) {
        let mut r = self.reqs[id as usize];
        let h = self.net.header_bytes;
        let t = self.net.remote(t, r.home, r.src, h, Msg::Ack, &mut r.rx);
        self.reqs[id as usize] = r;
        self.q.push(t, Ev::WriteAck(id));
    }

    /// A request reaches an L2 slice.
    #[inline(never)]
    pub(crate) fn l2_access(&mut self, id: u32) {
        let now = self.q.now();
        let (r, at, s) = self.arrive_at_slice(id);
        if self.reqs[id as usize].t_l2 == Ps::MAX {
            self.reqs[id as usize].t_l2 = now;
        }
        let retry = r.retry;
        self.reqs[id as usize].retry = false;
        let org = self.cfg.l2.organisation;
        if r.kind == Kind::Write && !r.at_home && self.dir_inval_l1() {
            // the write passes its node's L2: the other L1 copies there go
            self.inval_l1s(at, r.line, r.sm);
        }
        if s == 0 && r.kind == Kind::Write && (r.at_home || r.home == at) && !retry {
            // MDR: a write allocates in the real array (write-validate); the shadow
            // directory follows it so the two compare like with like
            let set = self.slices[0].cache.set_of(r.line);
            if let Some(m) = self.rep.mdr() {
                if let Some(k) = m.sampled(set) {
                    m.touch(k, r.line);
                }
            }
        }
        let rep = self.rep.on()
            && r.kind == Kind::Read
            && org == L2Organisation::HomeSide
            && self.replication_path(id, &r, at, s, now, retry);
        let r = if self.rep.on() {
            self.reqs[id as usize]
        } else {
            r
        };
        if org == L2Organisation::HomeSide
            && !r.at_home
            && r.home != at
            && !rep
            && matches!(r.kind, Kind::Read | Kind::Write)
        {
            // home-side L2: a remote line is served by its home's slice only
            self.count_access(r.src, r.home, r.bytes as u64, r.obj);
            self.forward_to_home(id, at, now, r.kind == Kind::Write);
            return;
        }
        let l2_lat = self.clk.cycles(self.cfg.l2.hit_latency as u64);
        self.c.l2_accesses += 1;
        match r.kind {
            Kind::Read | Kind::Atomic => {
                let cacheable = self.cacheable(&r, at);
                // the chunks not here (sectored: the needed sectors not valid; else the
                // whole line unless it is present)
                let missing = match self.sect {
                    None if cacheable && self.slices[s].cache.access(r.line) => 0,
                    None => u32::MAX,
                    Some(_) if cacheable => self.slices[s].cache.access_sectors(r.line, r.sectors),
                    Some(_) => r.sectors,
                };
                if missing == 0 {
                    self.c.l2_hits += 1;
                    self.slices[s].hits += 1;
                    if rep {
                        self.rep.stats.replica_hits += 1;
                    }
                    if r.kind == Kind::Atomic {
                        self.make_dirty(s, &r);
                        self.home_write(&r, None, u32::MAX);
                    } else if let Some(c) = &self.chk {
                        self.reqs[id as usize].ver = c.copy(self.l2_cache_id(s), r.line);
                    }
                    self.respond_from_l2(id, at, s, now + l2_lat);
                    self.wake_stalled(s, now);
                    return;
                }
                if self.directory_on() && self.slices[s].mshr.is_poisoned(r.line) {
                    // merging onto a fill that an invalidation crossed would return stale
                    // data: wait for it to complete, then miss afresh
                    self.c.l2_accesses -= 1;
                    self.reqs[id as usize].retry = true;
                    self.slices[s].stalled.push_back(id);
                    return;
                }
                self.c.l2_misses += 1;
                self.slices[s].misses += 1;
                // sectored: the DRAM fetch blocks of the missing sectors; a miss that the
                // outstanding fills of the line do not cover reads the rest, and its
                // entry completes with the last fill, so no sector is read twice
                let added = match self.sect {
                    None => self.slices[s].mshr.add(r.line, id as u64),
                    Some(g) => {
                        let m = &mut self.slices[s].mshr;
                        let fetch = g.to_fetch(missing & !m.chunks(r.line));
                        self.reqs[id as usize].fetch = fetch;
                        match m.add_sectors(r.line, id as u64, missing, fetch, true) {
                            SectorAdd::New | SectorAdd::Uncovered => Some(true),
                            SectorAdd::Merged => Some(false),
                            SectorAdd::Full => None,
                        }
                    }
                };
                if rep && added.is_some() {
                    self.rep.stats.replica_misses += 1;
                }
                match added {
                    Some(true) => {
                        self.note_miss(at, r.line);
                        if r.kind == Kind::Read && !r.at_home {
                            self.count_access(r.src, r.home, r.bytes as u64, r.obj);
                        }
                        if r.kind == Kind::Atomic {
                            self.home_write(&r, None, u32::MAX);
                        }
                        if (org == L2Organisation::Both || rep) && r.home != at {
                            self.forward_to_home(id, at, now + l2_lat, false);
                        } else {
                            self.send_to_memory(id, at, now + l2_lat, false);
                        }
                    }
                    Some(false) => {
                        self.note_miss(at, r.line);
                        self.c.l2_mshr_merges += 1;
                        if r.kind == Kind::Atomic {
                            self.home_write(&r, None, u32::MAX);
                        }
                        self.wake_stalled(s, now);
                    }
                    None if r.at_home && r.kind == Kind::Read => {
                        // a remote node's read at the home slice (two-level L2) finds the
                        // MSHRs full: go to memory without one. Waiting here could deadlock:
                        // the home's MSHRs may all hold its own remote misses, stalled at
                        // the slices whose MSHRs hold reads stalled here. `l2_fill` answers
                        // it although no MSHR entry names it.
                        self.note_miss(at, r.line);
                        self.reqs[id as usize].bypass = true;
                        self.send_to_memory(id, at, now + l2_lat, false);
                    }
                    None => {
                        // MSHRs full: retry when one frees
                        self.c.l2_misses -= 1;
                        self.slices[s].misses -= 1;
                        self.c.l2_accesses -= 1;
                        self.reqs[id as usize].retry = true;
                        self.slices[s].stalled.push_back(id);
                    }
                }
            }
            Kind::Write => self.l2_write(id, &r, at, s, now + l2_lat),
            Kind::Writeback | Kind::Invalidation | Kind::Ndp => {
                unreachable!("write-backs and NDP packets go straight to memory, invalidations to inval_arrive")
            }
        }
    }

    /// A store reaches the L2 slice `s` of node `at`; the slice is ready at `t`.
    fn l2_write(&mut self, id: u32, r: &Req, at: u32, s: usize, t: Ps) {
        let local = r.home == at;
        let forward = |sys: &mut System| {
            // on to the home: its slice (two-level L2) or its memory
            if sys.cfg.l2.organisation == L2Organisation::Both && !local {
                sys.forward_to_home(id, at, t, true);
            } else {
                sys.send_to_memory(id, at, t, true);
            }
        };
        if !self.cacheable(r, at) {
            self.c.l2_misses += 1;
            self.note_miss(at, r.line);
            self.count_access(r.src, r.home, r.bytes as u64, r.obj);
            forward(self);
            return;
        }
        let policy = if local {
            self.cfg.l2.write_policy_local
        } else {
            self.cfg.l2.write_policy_remote
        };
        match policy {
            WritePolicy::WriteBack => {
                if self.make_dirty(s, r) {
                    self.c.l2_hits += 1;
                } else {
                    self.c.l2_misses += 1;
                    self.note_miss(at, r.line);
                    // write-validate allocation: no fetch, the line (sectored: the sectors
                    // written) becomes dirty
                    let meta = mode_meta(r.mode);
                    let c = &mut self.slices[s].cache;
                    let out = match self.sect {
                        None => c.insert(r.line, true, meta),
                        Some(_) => c.fill_sectors(r.line, 0, r.sectors, meta),
                    };
                    if let Some(v) = out {
                        if v.dirty {
                            self.writeback(at, v, t);
                        }
                    }
                }
                if local {
                    self.home_write(r, Some(r.src), r.sm);
                }
                if r.at_home {
                    self.ack_from_home(id, t);
                } else {
                    self.retire(id);
                }
            }
            WritePolicy::WriteThrough => {
                // update a present copy (it stays clean); no allocation
                let hit = self.slices[s].cache.access(r.line);
                if !local {
                    // checker: the copy holds this write before the home performs it;
                    // label it with the version the write is expected to get (L1 fills
                    // from it meanwhile carry the new data)
                    let cid = self.l2_cache_id(s);
                    if let Some(c) = &mut self.chk {
                        let v = c.write_issued(r.line);
                        if hit {
                            c.install(cid, r.line, v);
                        }
                    }
                }
                if hit {
                    self.c.l2_hits += 1;
                } else {
                    self.c.l2_misses += 1;
                    self.note_miss(at, r.line);
                    if self.directory_on() {
                        // a fill in flight predates this write: do not install it
                        self.slices[s].mshr.poison(r.line);
                    }
                }
                if local {
                    self.home_write(r, Some(r.src), r.sm);
                } else {
                    self.count_access(r.src, r.home, r.bytes as u64, r.obj);
                }
                forward(self);
            }
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
    pub(crate) fn writeback(&mut self, node: u32, v: crate::cache::Evicted, t: Ps) {
        let (line, meta) = (v.line, v.meta);
        let mode = meta_mode(meta);
        let loc = self.map.locate(line << self.line_shift, mode);
        self.c.l2_writebacks += 1;
        // a sectored line writes back its dirty sectors only
        let bytes = self
            .sect
            .map_or(self.cfg.system.line_bytes, |g| g.bytes(v.sectors));
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
            at_home: false,
            ver: 0,
            issue_ver: 0,
            bypass: false,
            retry: false,
            rep: false,
            t_l2: Ps::MAX,
            sectors: v.sectors,
            fetch: u32::MAX,
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
        if matches!(r.kind, Kind::Write | Kind::Writeback)
            && r.src != r.home
            && !r.at_home
            && (self.chk.is_some() || self.directory_on())
        {
            // a remote write (write-through, uncached or a write-back) performed at the
            // home without passing its L2: the home slice's copy, if any, takes it in place
            self.home_write(&r, Some(r.src), r.sm);
        }
        if let Some(t) = self.dram_trace.as_mut() {
            t.push(super::DramRecord {
                ps: now,
                line: r.line,
                node: r.home,
                chan: r.chan,
                chan_addr: r.chan_addr,
                write: r.writes_dram(),
            });
        }
        let c = self.chan_id(r.home, r.chan);
        if self.chans[c].ch.can_accept() && self.chans[c].overflow.is_empty() {
            let write = r.writes_dram();
            let bytes = self.dram_bytes(&r);
            self.chans[c].ch.push(now, id, r.chan_addr, bytes, write);
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
                let write = r.writes_dram();
                let bytes = self.dram_bytes(&r);
                self.chans[c].ch.push(now, id, r.chan_addr, bytes, write);
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
                let b = self.dram_bytes(&r);
                self.c.dram_read_bytes += b as u64;
                // the slice that missed: requester's for reads, home's for atomics and for
                // requests served by the home slice
                let at = if r.kind == Kind::Atomic || r.at_home {
                    r.home
                } else {
                    r.src
                };
                if let Some(c) = &mut self.chk {
                    c.home_read(r.line, now);
                    r.ver = c.performed(r.line);
                }
                if at != r.home {
                    // the home's memory served a remote node: a sharer
                    self.home_read(r.line, r.mode, r.home, at);
                }
                let h = self.net.header_bytes;
                let mut t =
                    self.net
                        .from_channel(now, r.home, r.chan, h + b, Msg::Response, &mut r.rx);
                if at != r.home {
                    t = self
                        .net
                        .remote(t, r.home, at, h + b, Msg::Response, &mut r.rx);
                }
                self.reqs[id as usize] = r;
                self.q.push(t, Ev::L2Fill(id));
            }
            Kind::Invalidation => unreachable!("invalidations never reach memory"),
            Kind::Ndp => self.ndp_dram_done(id),
            Kind::Write | Kind::Writeback => {
                self.c.dram_writes += 1;
                self.c.dram_write_bytes += self.dram_bytes(&r) as u64;
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
        let dropped = self.directory_on() && self.slices[s].mshr.is_poisoned(r.line);
        if dropped {
            // an invalidation crossed this fill: deliver, do not install
            self.coh.fills_dropped += 1;
        }
        let present = self.chk.is_some() && self.slices[s].cache.contains(r.line);
        if self.cacheable(&r, at) && !dropped {
            if r.rep && at != r.home {
                self.rep.filled(r.obj as usize);
            }
            let dirty = r.kind == Kind::Atomic;
            let c = &mut self.slices[s].cache;
            let out = match self.sect {
                None => c.insert(r.line, dirty, mode_meta(r.mode)),
                // the fetched sectors; an atomic's own ones dirty
                Some(_) => c.fill_sectors(
                    r.line,
                    r.fetch,
                    if dirty { r.sectors } else { 0 },
                    mode_meta(r.mode),
                ),
            };
            if let Some(v) = out {
                if v.dirty {
                    self.writeback(at, v, now);
                }
            }
        }
        // the version delivered: a copy written meanwhile merges with the fill
        let cid = self.l2_cache_id(s);
        let ver = match &mut self.chk {
            Some(c) if present => c.copy(cid, r.line),
            Some(c) => {
                if self.slices[s].cache.contains(r.line) {
                    c.install(cid, r.line, r.ver);
                }
                r.ver
            }
            None => 0,
        };
        if r.bypass {
            // a home-slice read that bypassed full MSHRs (`l2_access`): it alone is answered
            self.reqs[id as usize].bypass = false;
            self.reqs[id as usize].ver = ver;
            self.respond_from_l2(id, at, s, now);
            return;
        }
        if self.sect.is_some() && !self.slices[s].mshr.fill_arrived(r.line) {
            // sectored: more fills of this line are on their way; the last answers all
            return;
        }
        let mut waiters = std::mem::take(&mut self.scratch_tok);
        waiters.clear();
        self.slices[s].mshr.complete(r.line, &mut waiters);
        let cacheable = self.cacheable(&r, at);
        for &w in &waiters {
            let wid = w as u32;
            if self.sect.is_some() && wid != id && cacheable {
                // the line's fills brought every sector its waiters need, unless some
                // were evicted before the last fill landed: such a waiter looks again (a
                // new access) and reads what it still lacks
                let need = self.reqs[wid as usize].sectors;
                if self.slices[s].cache.access_sectors(r.line, need) != 0 {
                    self.reqs[wid as usize].retry = true;
                    self.q.push(now, Ev::L2Access(wid));
                    continue;
                }
            }
            self.reqs[wid as usize].ver = ver;
            if self.reqs[wid as usize].kind == Kind::Atomic && wid != id {
                // a merged atomic: it modifies the freshly filled line
                let w = self.reqs[wid as usize];
                self.make_dirty(s, &w);
            }
            self.respond_from_l2(wid, at, s, now);
        }
        self.scratch_tok = waiters;
        // retry as many requests stalled on full MSHRs as entries are free (a retried
        // request that hits or merges wakes the next: `wake_stalled`)
        let n = self.slices[s].stalled.len();
        for _ in 0..n.min(self.slices[s].mshr.free()) {
            if let Some(sid) = self.slices[s].stalled.pop_front() {
                self.q.push(now, Ev::L2Access(sid));
            }
        }
    }

    /// A request at slice `s` was served without taking an MSHR (a hit or a merge): if an
    /// entry is free while requests wait for one, retry the oldest. A fill retries only as
    /// many as it freed entries; one of those that then hits (its line was written
    /// meanwhile, write-validate) takes none, and without this the rest would be stranded
    /// with no fill left in flight to wake them (the deadlock of hs at
    /// `l2.mshrs_per_slice=2`, session 11).
    #[inline]
    fn wake_stalled(&mut self, s: usize, now: Ps) {
        if !self.slices[s].stalled.is_empty() && self.slices[s].mshr.free() > 0 {
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
            Kind::Read if r.at_home => {
                // served by the home slice for remote node `src`: a sharer; the data crosses
                // back to the requester's L2 (two-level) or straight to its SM (home-side)
                self.home_read(r.line, r.mode, at, r.src);
                let h = self.net.header_bytes;
                let b = self.resp_bytes(&r);
                let mut t = self
                    .net
                    .remote(t, at, r.src, h + b, Msg::Response, &mut r.rx);
                r.at_home = false;
                self.reqs[id as usize] = r;
                if self.cfg.l2.organisation == L2Organisation::Both || r.rep {
                    self.q.push(t, Ev::L2Fill(id));
                } else {
                    t += self.clk.cycles(self.cfg.noc.sm_l2_latency as u64);
                    let t = self.net.into_sm(t, r.sm, b, &mut r.rx);
                    self.reqs[id as usize].rx = r.rx;
                    self.q.push(t, Ev::L1Fill(id));
                }
            }
            Kind::Read => {
                if r.t_l2 != Ps::MAX {
                    self.coh.l2_reads += 1;
                    self.coh.l2_read_latency_ps += t.saturating_sub(r.t_l2);
                }
                let b = self.resp_bytes(&r);
                let t = self.net.slice_to_sm(t, at, slice, b, &mut r.rx);
                let t = self.net.into_sm(t, r.sm, b, &mut r.rx);
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
        // a fill an invalidation crossed (or one with no MSHR to mark) is not installed
        let dropped = self.directory_on() && (r.direct || self.sms[sm].mshr.is_poisoned(r.line));
        if dropped && !r.direct {
            self.coh.fills_dropped += 1;
        }
        if self.cfg.l1.enabled
            && (self.cfg.l1.cache_remote || r.home == self.sms[sm].node)
            && !dropped
        {
            let l1 = &mut self.sms[sm].l1;
            match self.sect {
                None => {
                    l1.insert(r.line, false, 0);
                }
                // the sectors the miss asked for
                Some(_) => {
                    l1.fill_sectors(r.line, r.sectors, 0, 0);
                }
            }
            if let Some(c) = &mut self.chk {
                c.install(sm as u32, r.line, r.ver);
            }
        }
        if let Some(c) = &mut self.chk {
            let now = self.q.now();
            c.check("delivered", sm as u32, r.line, r.ver, r.issue_ver, now);
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

    /// Kernel boundary: invalidate every L1 (acquire); then, by `l2.kernel_boundary`, write
    /// back dirty remote lines and drop remote lines from every L2 (software coherence,
    /// spec A7), write them back and keep them clean (release, REC §2.4), or nothing.
    pub(crate) fn kernel_boundary(&mut self) {
        let now = self.q.now();
        for sm in &mut self.sms {
            sm.l1.clear();
        }
        if let Some(c) = &mut self.chk {
            c.acquire();
        }
        let action = self.cfg.l2.kernel_boundary;
        if action == KernelBoundary::ProfilerFlush {
            // untimed, and no DRAM write: the profiler flushes before its measured time
            for sl in &mut self.slices {
                sl.cache.clear();
            }
            return;
        }
        if action == KernelBoundary::None || self.cfg.system.nodes == 1 {
            return;
        }
        let spn = self.cfg.l2.slices_per_node as usize;
        let (mut most, mut total) = (0u64, 0u64);
        for s in 0..self.slices.len() {
            let node = (s / spn) as u32;
            let map = self.map.clone();
            let shift = self.line_shift;
            let remote =
                |line: u64, meta: u8| map.locate(line << shift, meta_mode(meta)).node != node;
            let mut dropped = 0u64;
            let dirty = match action {
                KernelBoundary::FlushRemote => {
                    self.slices[s].cache.invalidate_where(|line, _, meta| {
                        let r = remote(line, meta);
                        dropped += r as u64;
                        r
                    })
                }
                KernelBoundary::CleanAll => self.slices[s].cache.clean_where(|_, _| true),
                _ => self.slices[s].cache.clean_where(remote),
            };
            for v in dirty {
                self.writeback(node, v, now);
            }
            most = most.max(dropped);
            total += dropped;
        }
        if self.rep.on() && self.cfg.l2.organisation == L2Organisation::HomeSide {
            // the remote lines of a home-side slice are its replicas (NUBA A8): the
            // slices flush in parallel at a cost per replica; the next kernel waits
            let cycles = most * self.cfg.replication.flush_cycles_per_line as u64;
            self.rep.stats.flushed_replicas += total;
            self.rep.stats.flush_cycles += cycles;
            if cycles > 0 {
                self.q.push(now + self.clk.cycles(cycles), Ev::Wait);
            }
        }
    }

    /// Invalidate `line` in the L1 of every SM of `node` but `except` (the writer, whose
    /// copy holds its own write; a global SM id, or `u32::MAX`), and mark every fill in
    /// flight, the writer's too (its data predates the write), so it is not installed.
    pub(crate) fn inval_l1s(&mut self, node: u32, line: u64, except: u32) {
        for sm in self.node_sms(node) {
            if sm as u32 == except {
                self.sms[sm].mshr.poison(line);
                continue;
            }
            if self.sms[sm].l1.invalidate(line).is_some() {
                self.coh.l1_inv_hits += 1;
            }
            self.sms[sm].mshr.poison(line);
        }
    }

    /// The set-index line of `line` (a `mode` page) in the directory of `home`: the
    /// home-local line number of the first line of its entry (`coherence::DirectoryOrg`;
    /// rec.md §2.1, the home indexes with its own local addresses).
    #[inline]
    fn dir_index(&self, line: u64, mode: Mode, home: u32) -> u64 {
        let first = line & !(self.dirs[home as usize].entry_lines() - 1);
        let (_, local) = self.map.dual.route(first << self.line_shift, mode);
        local >> self.line_shift
    }

    /// The home `home` served `line` (a `mode` page) to remote node `node`: the directory
    /// records a sharer (and may evict, sending invalidations).
    fn home_read(&mut self, line: u64, mode: Mode, home: u32, node: u32) {
        if !self.directory_on() {
            return;
        }
        let mut buf = std::mem::take(&mut self.inval_buf);
        buf.clear();
        let idx = self.dir_index(line, mode, home);
        self.dirs[home as usize].read(line, idx, node, &mut buf);
        self.send_inval_buf(home, &buf, None);
        self.inval_buf = buf;
    }

    /// Send the invalidations `buf` a directory produced at `home`; `written` is the line
    /// and checker version of the write that called it, if any. Returns how many
    /// invalidations of that write's own line were sent. Every other invalidation (an
    /// eviction's, or a false positive of a coarse entry) makes the directory forget
    /// sharers of a line that was not written: the checker holds that line's next write
    /// back from completing until they land (no acknowledgements, REC §2.4), or a stale
    /// copy could be read after the write completed.
    fn send_inval_buf(&mut self, home: u32, buf: &[Inval], written: Option<(u64, u32)>) -> u32 {
        let mut own = 0;
        for inv in buf {
            match written {
                Some((l, v)) if inv.line == l && inv.cause == Cause::Write => {
                    own += self.send_invals(home, inv.line, inv.sharers, v, inv.cause);
                }
                _ => {
                    let v = self.chk.as_ref().map_or(0, |c| c.performed(inv.line));
                    let n = self.send_invals(home, inv.line, inv.sharers, v, inv.cause);
                    match &mut self.chk {
                        Some(c) if n > 0 => c.complete_after(inv.line, v, n),
                        _ => {}
                    }
                }
            }
        }
        own
    }

    /// An L2 miss of node `node` on `line`: count it cold if the node never missed on it
    /// (tracked with the directory protocol only).
    #[inline]
    fn note_miss(&mut self, node: u32, line: u64) {
        if let Some(seen) = self.l2_seen.get_mut(node as usize) {
            if seen.insert(line) {
                self.coh.l2_cold_misses += 1;
            }
        }
    }

    /// A write of request `r` (store, write-back or atomic) is performed at its home.
    /// `writer` is the node that keeps an up-to-date copy (`None` for atomics), `writer_sm`
    /// the SM whose L1 copy was updated (`u32::MAX`: none). The checker gets a new version;
    /// the directory invalidates the home's other L1 copies on chip and every other sharer
    /// over the network. Nothing happens with neither the checker nor a directory.
    pub(crate) fn home_write(&mut self, r: &Req, writer: Option<u32>, writer_sm: u32) {
        if self.chk.is_none() && !self.directory_on() {
            return;
        }
        let (line, home) = (r.line, r.home);
        let passed_writer_copy = r.kind == Kind::Write
            && r.src != home
            && self.cfg.l2.write_policy_remote == WritePolicy::WriteThrough
            && self.cacheable(r, r.src);
        let ver = match self.chk.take() {
            Some(mut c) => {
                if passed_writer_copy {
                    c.write_arrived(line);
                }
                let v = c.perform_write(line, self.q.now());
                // the copies that hold the written data take the new version: the home
                // slice's, the writer's L2 copy, the writer SM's L1 copy (updated by the
                // store) and, for a remote write, the L1 copies its node refilled from its
                // updated L2 copy meanwhile
                let hs = self.slice_of(home, line, home, r.chan);
                if self.slices[hs].cache.contains(line) {
                    c.install(self.l2_cache_id(hs), line, v);
                }
                // a copy a later write already passed through (write-through, still in
                // flight to the home) keeps that later label: max, never back
                if let Some(w) = writer.filter(|&w| w != home) {
                    let ws = self.slice_of(w, line, home, r.chan);
                    if self.slices[ws].cache.contains(line) {
                        let id = self.l2_cache_id(ws);
                        c.install(id, line, v.max(c.copy(id, line)));
                    }
                }
                let refilled = r.src != home && r.kind == Kind::Write;
                for sm in self.node_sms(r.src) {
                    if (sm as u32 == writer_sm || refilled) && self.sms[sm].l1.contains(line) {
                        c.install(sm as u32, line, v.max(c.copy(sm as u32, line)));
                    }
                }
                self.chk = Some(c);
                v
            }
            None => 0,
        };
        let mut sent = 0;
        if self.directory_on() {
            if self.dir_inval_l1() {
                self.inval_l1s(home, line, writer_sm);
            }
            let mut buf = std::mem::take(&mut self.inval_buf);
            buf.clear();
            let idx = self.dir_index(line, r.mode, home);
            self.dirs[home as usize].write(line, idx, writer.filter(|&w| w != home), &mut buf);
            sent = self.send_inval_buf(home, &buf, Some((line, ver)));
            self.inval_buf = buf;
        }
        if let Some(c) = &mut self.chk {
            c.complete_after(line, ver, sent);
        }
    }

    /// Send an invalidation of `line` from `home` to every node in `mask`, caused by
    /// `cause`; returns how many.
    fn send_invals(&mut self, home: u32, line: u64, mask: u64, ver: u32, cause: Cause) -> u32 {
        let now = self.q.now();
        let bytes = self.cfg.coherence.inv_bytes;
        let mut n = 0;
        let mut m = mask;
        while m != 0 {
            let target = m.trailing_zeros();
            m &= m - 1;
            let mut rx = Receipts::default();
            let t = self
                .net
                .remote(now, home, target, bytes, Msg::Invalidation, &mut rx);
            let id = self.new_req(Req {
                kind: Kind::Invalidation,
                mode: crate::mapping::Mode::Fgp,
                sm: u32::MAX,
                src: target,
                home,
                chan: 0,
                chan_addr: 0,
                line,
                bytes,
                obj: locus_workload::NO_OBJ,
                // an invalidation's token carries its cause
                token: cause.index() as u64,
                direct: false,
                at_home: false,
                ver,
                issue_ver: 0,
                bypass: false,
                retry: false,
                rep: false,
                t_l2: Ps::MAX,
                sectors: u32::MAX,
                fetch: u32::MAX,
                rx,
            });
            self.q.push(t, Ev::Inval(id));
            self.coh.inv_sent += 1;
            self.coh.inv_sent_by[cause.index()] += 1;
            n += 1;
        }
        n
    }

    /// An invalidation reaches its target node: drop the line from the node's L2 slice
    /// (writing a dirty copy back) and L1s, and mark fills in flight so they are not
    /// installed (the race of issue 7 §2: their data predates the write).
    pub(crate) fn inval_arrive(&mut self, id: u32) {
        let now = self.q.now();
        let mut r = self.reqs[id as usize];
        self.net.arrive(&mut r.rx);
        self.reqs[id as usize].rx = r.rx;
        let node = r.src;
        self.coh.inv_received += 1;
        // the slice that caches the line: with channel-bound slices
        // (`l2.slices_per_channel`) it depends on the line's channel, which an invalidation
        // does not carry (a directory eviction names only lines): the line is looked up
        // in the slice of its channel under either page mode (the same slice but on
        // machines that mix modes). It once went to channel 0's slice, missed the copy and
        // let nuba-sm-uba read stale data.
        let s = self.slice_of(node, r.line, r.home, r.chan);
        let mut at = [s, s];
        if self.cfg.l2.slices_per_channel > 0 {
            let addr = r.line << self.line_shift;
            for (k, m) in [Mode::Fgp, Mode::Cgp].into_iter().enumerate() {
                let ch = self.map.locate(addr, m).channel;
                at[k] = self.slice_of(node, r.line, r.home, ch);
            }
        }
        for (k, &s) in at.iter().enumerate() {
            if k == 1 && s == at[0] {
                break;
            }
            if let Some(v) = self.slices[s].cache.invalidate(r.line) {
                self.coh.inv_hits += 1;
                self.coh.inv_hits_by[r.token as usize] += 1;
                if v.dirty {
                    // a dirty remote copy (write-back remote policy) holds other bytes of
                    // the line: write them back rather than lose them
                    self.coh.inv_hits_dirty += 1;
                    self.writeback(node, v, now);
                }
            }
            self.slices[s].mshr.poison(r.line);
        }
        if self.dir_inval_l1() {
            self.inval_l1s(node, r.line, u32::MAX);
        }
        if let Some(c) = &mut self.chk {
            c.inval_delivered(r.line, r.ver);
        }
        self.retire(id);
    }
}

#[inline]
fn r_line(s: &System) -> u32 {
    s.cfg.system.line_bytes
}

impl System {
    /// Bytes a response to read `r` carries: its sectors (sectored caches) or the line.
    #[inline]
    fn resp_bytes(&self, r: &Req) -> u32 {
        match self.sect {
            Some(g) => g.bytes(r.sectors),
            None => r_line(self),
        }
    }

    /// Bytes request `r` moves at its memory channel: a sectored L2's fetch blocks (a read)
    /// or the sectors written (a write, a write-back); else the line.
    #[inline]
    pub(crate) fn dram_bytes(&self, r: &Req) -> u32 {
        match self.sect {
            Some(g) if matches!(r.kind, Kind::Read | Kind::Atomic) => g.bytes(r.fetch),
            Some(g) if matches!(r.kind, Kind::Write | Kind::Writeback) => g.bytes(r.sectors),
            _ => r_line(self),
        }
    }

    /// A write (or an atomic) to a present line of slice `s`: it becomes dirty (sectored:
    /// the chunks `r` writes become valid and dirty). False when the line is absent.
    #[inline]
    fn make_dirty(&mut self, s: usize, r: &Req) -> bool {
        match self.sect {
            None => self.slices[s].cache.set_dirty(r.line),
            Some(_) => self.slices[s].cache.write_sectors(r.line, r.sectors),
        }
    }
}

#[inline]
fn mode_meta(m: crate::mapping::Mode) -> u8 {
    match m {
        crate::mapping::Mode::Fgp => 0,
        crate::mapping::Mode::Cgp => 1,
    }
}

#[inline]
pub(crate) fn meta_mode(m: u8) -> crate::mapping::Mode {
    if m == 1 {
        crate::mapping::Mode::Cgp
    } else {
        crate::mapping::Mode::Fgp
    }
}
