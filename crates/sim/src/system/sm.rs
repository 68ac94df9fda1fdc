//! The SM: block residency, warp scheduling (GTO / loose round-robin), the scoreboard and
//! instruction issue, and the load/store unit that sends line requests to the L1.

use super::{Ev, Kind, Pend, Req, System, Warp};
use crate::cache::SectorAdd;
use crate::config::WarpSched;
use crate::mapping::Mode;
use crate::noc::{Msg, Receipts};
use crate::stats::ObjCounters;
use locus_engine::Ps;
use locus_workload::{InstClass, Space, WarpInst, Workload, WorkloadError, NO_OBJ, REG_ALL};

/// Why a warp cannot issue now.
enum Stall {
    /// Until this time.
    Until(Ps),
    /// Until a memory response arrives.
    Mem,
}

impl System {
    /// Put block `b` of `launch` on SM `sm`.
    #[inline(never)]
    pub(crate) fn dispatch_block(
        &mut self,
        launch: &mut dyn Workload,
        b: u64,
        sm: usize,
    ) -> Result<(), WorkloadError> {
        let now = self.q.now();
        let line = self.cfg.system.line_bytes;
        let slot = self.sms[sm]
            .blocks
            .iter()
            .position(|s| !s.live)
            .expect("scheduler respects block slots");
        {
            let bs = &mut self.sms[sm].blocks[slot];
            bs.prog.record_lanes = self.record_lanes;
            bs.prog.offload_markers = self.ndp.is_some();
            bs.prog.max_warp_insts =
                if self.record_lanes || self.ndp.is_some() || self.spaces.is_some() {
                    0
                } else {
                    self.cfg.run.gen_limit
                };
            let t = std::time::Instant::now();
            launch.gen_block(b, false, line, &mut bs.prog)?;
            self.host_functional += t.elapsed();
            bs.live = true;
            bs.id = b;
            bs.at_barrier = 0;
            bs.warps_left = bs.prog.warps.len() as u32;
            bs.warp_slots.clear();
        }
        if self.spaces.is_some() {
            self.spaces_rewrite(sm, slot);
            self.spaces_stage(sm, slot);
        }
        let nw = self.sms[sm].blocks[slot].prog.warps.len();
        let base = sm * self.max_warps;
        let mut w = 0;
        for wib in 0..nw {
            while self.warps[base + w].live {
                w += 1;
            }
            self.warps[base + w] = Warp {
                live: true,
                block_slot: slot as u16,
                wib: wib as u16,
                pc: 0,
                free_from: Ps::MAX,
                ..Warp::default()
            };
            self.set_wready(sm, base + w, now);
            self.warps[base + w].prog =
                super::ProgView::of(&self.sms[sm].blocks[slot].prog.warps[wib]);
            self.warps[base + w].next = self.inst(base + w);
            if let Some(n) = &mut self.ndp {
                n.warp_start(base + w);
            }
            for p in &mut self.pend[(base + w) * self.maxp..(base + w + 1) * self.maxp] {
                *p = Pend::default();
            }
            self.sms[sm].blocks[slot].warp_slots.push(w as u16);
            self.sms[sm].order.push(w as u16);
            self.sms[sm].pos[w] = (self.sms[sm].order.len() - 1) as u8;
            self.sms[sm].eligible |= 1u64 << w;
        }
        if nw == 0 {
            // an empty block completes at once
            self.sms[sm].blocks[slot].live = false;
            self.c.blocks += 1;
            self.free_slots[sm] += 1;
            let a = self.app_of_sm[sm] as usize;
            self.apps[a].blocks_done += 1;
        } else {
            let a = self.app_of_sm[sm] as usize;
            self.apps[a].live_blocks += 1;
        }
        self.wake_sm(sm, now);
        Ok(())
    }

    /// Check the scoreboard for `inst` of warp `wg`.
    #[inline(never)]
    fn stall(&self, wg: usize, inst: &WarpInst, now: Ps) -> Option<Stall> {
        let w = &self.warps[wg];
        if w.ofld_wait {
            return Some(Stall::Mem); // at OFLD.END until the offload ack (NDP)
        }
        // no outstanding load at all (nothing waits for memory, every slot's ready time has
        // passed): only the ALU results can hold the instruction back
        let loads_idle = w.mem_wait == 0 && w.ready_max <= now;
        let pend: &[Pend] = if loads_idle {
            &[]
        } else {
            &self.pend[wg * self.maxp..(wg + 1) * self.maxp]
        };
        let mut until = 0;
        let mut mem = false;
        let note = |p: &Pend, until: &mut Ps, mem: &mut bool| {
            if p.remaining > 0 {
                *mem = true;
            } else if p.ready_at > now {
                *until = (*until).max(p.ready_at);
            }
        };
        for &s in &inst.srcs {
            if s == 0 {
                continue;
            }
            if s == REG_ALL {
                let w = &self.warps[wg];
                if w.mem_wait > 0 {
                    mem = true;
                } else if w.ready_max > now {
                    until = until.max(w.ready_max);
                }
                continue;
            }
            for p in pend
                .iter()
                .filter(|p| p.busy(now) && (s == REG_ALL || p.reg == s))
            {
                note(p, &mut until, &mut mem);
            }
            if s != REG_ALL {
                let w = &self.warps[wg];
                for (&r, &t) in w.alu_reg.iter().zip(&w.alu_at) {
                    if r == s && t > now {
                        until = until.max(t);
                    }
                }
            }
        }
        if inst.class == InstClass::Load && inst.dst != 0 {
            for p in pend.iter().filter(|p| p.reg == inst.dst && p.busy(now)) {
                note(p, &mut until, &mut mem);
            }
            if !loads_idle && !pend.iter().any(|p| !p.busy(now)) {
                // every slot busy: wait for the earliest one that only waits on time
                match pend
                    .iter()
                    .filter(|p| p.remaining == 0)
                    .map(|p| p.ready_at)
                    .min()
                {
                    Some(t) => until = until.max(t),
                    None => mem = true,
                }
            }
        }
        if mem {
            Some(Stall::Mem)
        } else if until > now {
            Some(Stall::Until(until))
        } else {
            None
        }
    }

    /// One SM cycle: issue up to `issue_width` warp instructions.
    #[inline(never)]
    pub(crate) fn sm_tick(
        &mut self,
        sm: usize,
        ws: &mut [&mut dyn Workload],
    ) -> Result<(), WorkloadError> {
        let now = self.q.now();
        if self.sms[sm].tick_at != now {
            return Ok(()); // superseded
        }
        self.sms[sm].tick_at = Ps::MAX;
        if self.stopped_at.is_some() {
            return Ok(()); // a run limit was reached: nothing issues any more
        }
        if self.ndp.is_some() {
            self.ndp_cycle_begin(sm, now); // Fig. 8's no-issue cycles until now
        }
        let base = sm * self.max_warps;
        let mut issued = 0;
        let width = self.cfg.sm.issue_width;
        let mut tried_mshr_stall = false;
        // Candidates as a mask over positions in `order` (oldest first): eligible warps
        // whose ready time has come (from the SM's ready wheel). `next` collects the
        // earliest time something may change when nothing issues.
        let ready = self.ready_warps(sm, now);
        let mut next = Ps::MAX;
        // NDP: warps held on a full pending buffer while the SM sleeps (`ndp_sleep`)
        let mut asleep = 0u64;
        let mut cand = if self.ndp.is_some() && self.ndp_rehold(sm, now, ready) {
            // NDP: the same warps held by the same full pending buffer as one cycle ago
            // (host speed only: what the scan below would do, `ndp_rehold`); the SM
            // sleeps until something changes instead of looking again next cycle
            asleep = self.ndp_sleep(sm, now, ready);
            if asleep == 0 {
                next = now + self.sms[sm].clk.period;
            }
            0
        } else {
            self.positions(sm, ready)
        };
        // NDP: the warps a full pending buffer held one cycle ago (see `ndp_held_before`)
        let mut held_before = if self.ndp.is_some() {
            self.ndp_held_before(sm, now)
        } else {
            0
        };
        for _ in 0..width {
            let n = self.sms[sm].order.len();
            if n == 0 || self.stopped_at.is_some() {
                break;
            }
            // replays of an instruction hold the issue slot (memory spaces only)
            let busy = self.replay_busy_until(sm);
            if busy > now {
                next = next.min(busy);
                break;
            }
            let start = match self.cfg.sm.warp_scheduler {
                WarpSched::Gto => self.sms[sm].last.min(n - 1),
                WarpSched::Lrr => (self.sms[sm].last + 1) % n,
            };
            let mut chosen = None;
            while cand != 0 {
                // GTO: the greedy warp first, then the others oldest first;
                // LRR: round robin from `start`
                let i = match self.cfg.sm.warp_scheduler {
                    WarpSched::Gto if cand & (1u64 << start) != 0 => start,
                    WarpSched::Gto => cand.trailing_zeros() as usize,
                    WarpSched::Lrr => {
                        let hi = cand >> start;
                        if hi != 0 {
                            start + hi.trailing_zeros() as usize
                        } else {
                            cand.trailing_zeros() as usize
                        }
                    }
                };
                cand &= !(1u64 << i);
                let w = self.sms[sm].order[i] as usize;
                let wg = base + w;
                if held_before & (1u64 << w) != 0 {
                    held_before &= !(1u64 << w);
                    if let Some(t) = self.ndp_hold_again(sm, wg, now) {
                        // held again, as the checks below would find (host speed only)
                        self.defer_ready_warp(sm, wg, t);
                        next = next.min(t);
                        continue;
                    }
                }
                let inst = self.warps[wg].next;
                // a warp whose scoreboard verdict was settled at its last issue (see
                // `precheck`) reads it instead of checking the scoreboard again
                let stall = match self.warps[wg].free_from {
                    Ps::MAX => self.stall(wg, &inst, now),
                    x if now >= x => None,
                    x => Some(Stall::Until(x)),
                };
                match stall {
                    Some(Stall::Mem) => {
                        self.park(wg);
                        continue;
                    }
                    Some(Stall::Until(t)) => {
                        // nothing can change before t: later scans skip the warp cheaply
                        self.defer_ready_warp(sm, wg, t);
                        next = next.min(t);
                        continue;
                    }
                    None => {}
                }
                if self.ndp.is_some() {
                    if let Some(t) = self.ndp_issue_held(sm, wg, &inst) {
                        // NDP: the SM's pending or ready packet buffer is full (§3.8);
                        // look again at `t` (Fig. 8 reads the hold, `ndp_cycle_end`)
                        self.defer_ready_warp(sm, wg, t);
                        next = next.min(t);
                        continue;
                    }
                }
                if inst.class.is_mem()
                    && inst.space != Space::Shared
                    && inst.class == InstClass::Load
                {
                    // need L1 MSHRs for the worst case (every line a new miss)
                    // (an instruction wider than the whole MSHR file waits for all of it)
                    let need = (inst.nlines as usize).min(self.sms[sm].mshr.capacity());
                    if self.sms[sm].mshr.free() < need {
                        // parked until an L1 fill frees an MSHR (see `l1_fill`)
                        tried_mshr_stall = true;
                        self.park(wg);
                        self.sms[sm].mshr_waiters |= 1u64 << w;
                        let slot = &mut self.sms[sm].mshr_need;
                        *slot = (*slot).min(need);
                        continue;
                    }
                }
                if matches!(inst.class, InstClass::Store | InstClass::Atomic)
                    && inst.space != Space::Shared
                    && self.sms[sm].writes_inflight > 0
                    && self.sms[sm].writes_inflight + inst.nlines as u32
                        > self.cfg.sm.max_outstanding_writes
                {
                    // the write buffer is full: back-pressure until writes drain
                    self.park(wg);
                    self.sms[sm].write_waiters |= 1u64 << w;
                    continue;
                }
                chosen = Some((i, wg, inst));
                break;
            }
            let Some((i, wg, inst)) = chosen else { break };
            self.sms[sm].last = i;
            let exit = inst.class == InstClass::Exit;
            self.issue(sm, wg, inst, ws)?;
            issued += 1;
            if exit {
                // an exit reorders `order` (and may dispatch a new block): positions moved
                cand = self.ready_positions(sm, now);
            }
        }
        let cyc = self.sms[sm].clk.period;
        if self.ndp.is_some() {
            // (a held issue slot or full L1 MSHRs: a ready warp's unit is busy)
            let unit_busy = tried_mshr_stall || (issued == 0 && self.replay_busy_until(sm) > now);
            self.ndp_cycle_end(sm, now, issued > 0, unit_busy);
        }
        // a warp stalled on full L1 MSHRs is woken by the next L1 fill, not by polling
        if issued > 0 {
            // `now` is a cycle edge of this SM (ticks run only at the edges `wake_sm`
            // rounds to), so one cycle later is an edge too: skip the rounding division,
            // unless a memory-space replay holds the issue slot longer (HMS spaces)
            let busy = self.replay_busy_until(sm);
            if busy > now + cyc {
                self.wake_sm(sm, busy);
            } else {
                self.wake_sm_at_edge(sm, now + cyc);
            }
        } else {
            // nothing issued, so the eligible set changed in this tick only by parking
            // warps that were ready: the earliest pending ready time of the eligible warps
            // is the one the tick began with (rounded up to the cycle edge `wake_sm`
            // rounds to anyway)
            let s = &self.sms[sm];
            next = next.min(s.wheel.next_of(s.eligible & !asleep));
            if s.held_at == now && s.held & s.eligible != 0 {
                // warps that issued at this instant and were filed past their next cycle
                // (`issue`): before that filing they were pending at the next cycle
                next = next.min(now + cyc);
            }
            if next != Ps::MAX {
                self.wake_sm(sm, next);
            }
        }
        Ok(())
    }

    /// The positions in `order` of the eligible warps of SM `sm` that are ready at `now`
    /// (a bit per position).
    ///
    /// Every tick runs this. The SM's [`super::ready::ReadyWheel`] hands over the slots
    /// whose ready time has come (no scan of the waiting ones); only those are placed at
    /// their age position through `Sm::pos` (eligible warps are live, hence in `order`).
    /// Same answer as walking `order` and testing each warp's `wready`.
    #[inline]
    fn ready_positions(&mut self, sm: usize, now: Ps) -> u64 {
        let ready = self.ready_warps(sm, now);
        self.positions(sm, ready)
    }

    /// The eligible warps of SM `sm` that are ready at `now` (a bit per warp slot).
    #[inline]
    fn ready_warps(&mut self, sm: usize, now: Ps) -> u64 {
        let s = &mut self.sms[sm];
        s.wheel.advance(now) & s.eligible
    }

    /// The positions in `order` of the warps `el` (slot bits) of SM `sm`.
    #[inline]
    fn positions(&self, sm: usize, mut el: u64) -> u64 {
        let s = &self.sms[sm];
        let mut mask = 0u64;
        while el != 0 {
            let w = el.trailing_zeros() as usize;
            el &= el - 1;
            debug_assert_eq!(s.order[s.pos[w] as usize] as usize, w, "Sm::pos is stale");
            debug_assert!(self.wready[sm * self.max_warps + w] <= self.q.now());
            mask |= 1u64 << s.pos[w];
        }
        mask
    }

    /// The instruction at warp `wg`'s program counter (a one-lane `EXIT` past its end;
    /// that sets `ran_dry` when the generator truncated the program).
    #[inline(always)]
    fn inst(&self, wg: usize) -> WarpInst {
        let w = &self.warps[wg];
        debug_assert!(
            w.prog.is_of(
                &self.sms[wg / self.max_warps].blocks[w.block_slot as usize]
                    .prog
                    .warps[w.wib as usize]
            ),
            "warp {wg}'s program view is stale: its block program was rewritten while it was live"
        );
        match w.prog.get(w.pc) {
            Some(i) => i,
            None => {
                if w.prog.truncated {
                    self.ran_dry.set(true);
                }
                WarpInst::alu(InstClass::Exit, 1)
            }
        }
    }

    /// How many instructions past `Warp::next` [`System::fetch_next`] asks for: 4 (96
    /// bytes, about 1.5 host cache lines, ahead) measured best of 1, 2, 4 and 8 on bfs.
    const PREFETCH_AHEAD: usize = 4;

    /// The instruction at warp `wg`'s program counter ([`System::inst`]), with two host
    /// cache hints on the way ([`ProgView::prefetch`](super::ProgView::prefetch)): the
    /// instruction `PREFETCH_AHEAD` past it, and, when it is a memory instruction, its
    /// line requests (the first and the last of `WarpProgram::lines`, which
    /// [`System::issue_mem`] copies out when it issues). Block programs are large and a
    /// warp issues again only after many other warps did, so without the hints those
    /// reads miss the host caches almost every time (a fifth of bfs's host cycles for the
    /// instructions, a twentieth for the line requests). Hints only: nothing is read or
    /// written through them, so the simulation is unchanged.
    #[inline(always)]
    fn fetch_next(&self, wg: usize) -> WarpInst {
        let inst = self.inst(wg);
        let w = &self.warps[wg];
        w.prog.prefetch(w.pc, Self::PREFETCH_AHEAD, &inst);
        inst
    }

    /// Has warp `wg` consumed its whole instruction list?
    fn at_end(&self, wg: usize) -> bool {
        let w = &self.warps[wg];
        w.pc >= w.prog.len()
    }

    /// Result latency of compute class `c` on SM `sm` (its clock domain).
    fn latency(&self, sm: usize, c: InstClass) -> u64 {
        let s = &self.cfg.sm;
        self.sms[sm].clk.cycles(match c {
            InstClass::Fp => s.fp_latency,
            InstClass::Sfu => s.sfu_latency,
            InstClass::Branch => s.branch_latency,
            _ => s.int_latency,
        } as u64)
    }

    #[inline(never)]
    fn issue(
        &mut self,
        sm: usize,
        wg: usize,
        inst: WarpInst,
        ws: &mut [&mut dyn Workload],
    ) -> Result<(), WorkloadError> {
        let now = self.q.now();
        let cyc = self.sms[sm].clk.period;
        self.c.warp_insts += 1;
        self.c.thread_insts += inst.lanes as u64;
        let lim = self.cfg.run.max_warp_insts;
        if lim != 0 && self.c.warp_insts >= lim {
            self.stopped_at = Some(now + cyc);
        }
        self.c.warp_insts_by_class[inst.class as usize] += 1;
        self.sms[sm].warp_insts += 1;
        let pc = self.warps[wg].pc;
        self.warps[wg].pc += 1;
        self.warps[wg].free_from = Ps::MAX;
        self.warps[wg].next = self.fetch_next(wg);
        // The warp was a candidate of this tick, so the wheel has it as ready: it is filed
        // one cycle on. A compute or memory instruction without NDP or memory spaces (which
        // read or move the filing on the way: `ndp_issue`, `replay_cost`) files it once, at
        // the end, straight at its settled ready time (below); the rest file it now.
        let file_late = self.ndp.is_none()
            && self.spaces.is_none()
            && !matches!(inst.class, InstClass::Exit | InstClass::Barrier);
        if !file_late {
            self.defer_ready_warp(sm, wg, now + cyc);
        }
        // partitioned execution: an offloaded block's loads and stores become packets
        let offloaded = self.ndp.is_some() && self.ndp_issue(sm, wg, pc, &inst);
        match inst.class {
            _ if offloaded => {}
            // an EXIT that some lanes take while others go on (traces: predicated or
            // partial exits) ends only those lanes; the warp ends at its last instruction
            InstClass::Exit if !self.at_end(wg) => {}
            InstClass::Exit => return self.warp_exit(sm, wg, ws),
            InstClass::Barrier => {
                let bs = self.warps[wg].block_slot as usize;
                self.warps[wg].at_barrier = true;
                self.sms[sm].eligible &= !(1u64 << (wg % self.max_warps));
                self.sms[sm].blocks[bs].at_barrier += 1;
                self.check_barrier(sm, bs);
            }
            c if c.is_mem() => self.issue_mem(sm, wg, inst),
            c => {
                if inst.dst != 0 {
                    let lat = self.latency(sm, c);
                    let w = &mut self.warps[wg];
                    w.alu_reg[w.alu_i as usize] = inst.dst;
                    w.alu_at[w.alu_i as usize] = now + lat;
                    w.alu_i = (w.alu_i + 1) % 4;
                }
            }
        }
        self.precheck(wg, now + cyc);
        // A settled verdict that holds the warp past its next cycle files it at the time it
        // becomes free: the ticks in between no longer examine it only to defer it there
        // (`precheck`: every examination before `free_from` answers `Until(free_from)`,
        // and deferring to it was all such an examination did). Exact: the one other
        // use of the earlier ready time, a tick at this same instant that issues nothing
        // (a block dispatched now wakes the SM again now), reads it from `Sm::held`.
        let f = self.warps[wg].free_from;
        // (filed late, the warp's ready time is still the tick's: `now + cyc` stands for it)
        let filed = if file_late {
            now + cyc
        } else {
            self.wready[wg]
        };
        let held = f != Ps::MAX && f > filed;
        if held {
            let s = &mut self.sms[sm];
            if s.held_at != now {
                s.held_at = now;
                s.held = 0;
            }
            s.held |= 1u64 << (wg - sm * self.max_warps);
        }
        match (file_late, held) {
            (true, true) => self.defer_ready_warp(sm, wg, f),
            (true, false) => self.defer_ready_warp(sm, wg, now + cyc),
            (false, true) => self.set_wready(sm, wg, f),
            (false, false) => {}
        }
        Ok(())
    }

    /// Settle, right after warp `wg` issued, the scoreboard's verdict on its next
    /// instruction for the rest of time when it no longer depends on memory, so the
    /// scheduler's examinations of the warp read it instead of checking again (most
    /// instructions were checked twice: once too early, stalled on an ALU result, and once
    /// when it was ready).
    ///
    /// Exact: with no load of the warp waiting for memory (`mem_wait == 0`), everything
    /// [`System::stall`] reads is frozen until the warp issues again (ALU result times,
    /// the scoreboard slots' `ready_at`, `ready_max`: only the warp's own issue writes
    /// them, and a response touches only slots still waiting for memory). So `stall` at
    /// any `T >= t` answers `Until(x)` for `T < x` and `None` from `x` on, where `x` is
    /// its answer at `t` (`t` itself when that is `None`): each term it takes the maximum
    /// of is a fixed time counted only while it is later than `T`, and the all-slots-busy
    /// term only while `T` is below every slot's time. The warp's ready time is left at
    /// `t` (the first cycle it may issue, so no examination comes earlier) and every
    /// examination happens as before: the order of the SM's tick events, which decides
    /// ties with other events at the same time, does not change. `Warp::free_from`
    /// holds `x` (reset on every issue).
    #[inline]
    fn precheck(&mut self, wg: usize, t: Ps) {
        let w = &self.warps[wg];
        // (a warp held at OFLD.END waits for an NDP ack, not a time: `stall` answers it)
        if w.mem_wait != 0 || !w.live || w.ofld_wait {
            return;
        }
        let next = w.next;
        if w.ready_max <= t {
            // every load's result is usable by `t`: `stall` would read the ALU results
            // alone (its `loads_idle` case), so answer with their latest time directly
            let mut x = t;
            for &s in &next.srcs {
                if s != 0 && s != REG_ALL {
                    for (&r, &at) in w.alu_reg.iter().zip(&w.alu_at) {
                        if r == s {
                            x = x.max(at);
                        }
                    }
                }
            }
            self.warps[wg].free_from = x;
            return;
        }
        self.warps[wg].free_from = match self.stall(wg, &next, t) {
            None => t,
            Some(Stall::Until(x)) => x,
            // (cannot happen with `mem_wait == 0`; left to the scheduler's check)
            Some(Stall::Mem) => Ps::MAX,
        };
    }

    fn check_barrier(&mut self, sm: usize, bs: usize) {
        let b = &self.sms[sm].blocks[bs];
        if b.at_barrier > 0 && b.at_barrier >= b.warps_left {
            let now = self.q.now() + self.sms[sm].clk.period;
            let n = b.warp_slots.len();
            self.sms[sm].blocks[bs].at_barrier = 0;
            let base = sm * self.max_warps;
            // by index: the release neither adds nor removes slots (no copy of the list)
            for k in 0..n {
                let w = self.sms[sm].blocks[bs].warp_slots[k];
                let warp = &mut self.warps[base + w as usize];
                if warp.live && warp.at_barrier {
                    warp.at_barrier = false;
                    let wait_mem = warp.wait_mem;
                    self.set_wready(sm, base + w as usize, now);
                    if !wait_mem {
                        self.sms[sm].eligible |= 1u64 << w;
                    }
                }
            }
        }
    }

    fn warp_exit(
        &mut self,
        sm: usize,
        wg: usize,
        ws: &mut [&mut dyn Workload],
    ) -> Result<(), WorkloadError> {
        let w = wg - sm * self.max_warps;
        self.warps[wg].live = false;
        self.sms[sm].eligible &= !(1u64 << w);
        let bs = self.warps[wg].block_slot as usize;
        if let Some(p) = self.sms[sm].order.iter().position(|&x| x as usize == w) {
            self.sms[sm].order.remove(p);
            let s = &mut self.sms[sm];
            for (i, &x) in s.order.iter().enumerate().skip(p) {
                s.pos[x as usize] = i as u8;
            }
            let last = &mut self.sms[sm].last;
            if *last >= p && *last > 0 {
                *last -= 1;
            }
        }
        self.sms[sm].blocks[bs].warps_left -= 1;
        if self.sms[sm].blocks[bs].warps_left == 0 {
            self.sms[sm].blocks[bs].live = false;
            self.block_done(sm);
            let a = self.app_of_sm[sm] as usize;
            self.app_block_done(a, ws)?;
        } else {
            self.check_barrier(sm, bs);
        }
        Ok(())
    }

    fn block_done(&mut self, sm: usize) {
        self.c.blocks += 1;
        self.sms[sm].blocks_run += 1;
        self.free_slots[sm] += 1;
    }

    /// Translate `va` for SM `sm` (TLB timing included): (pa, mode, extra latency). `write`
    /// says whether the access writes (stores, atomics): under Carrefour a write collapses
    /// the page's replicas first and a read may be served by its partition's replica.
    #[inline]
    pub(crate) fn translate(
        &mut self,
        sm: usize,
        va: u64,
        obj: u16,
        write: bool,
    ) -> (u64, Mode, Ps) {
        let node = self.sms[sm].node;
        let vpn = va / self.placement.page_bytes();
        use crate::config::PlacementPolicy as P;
        let policy = self.cfg.placement.policy;
        let migrate = policy == P::Migrate;
        let fault = self.cfg.placement.first_touch_fault_cycles;
        let demand = fault > 0 && matches!(policy, P::FirstTouch | P::RoundRobin | P::Lab);
        let first_touch = (migrate || demand) && self.placement.lookup(vpn).is_none();
        let (mut pa, mut mode) = self.placement.translate(va, obj, node);
        let mut wait = 0;
        if demand {
            // demand paging: the first touch faults; every access waits until it is mapped
            let now = self.q.now();
            if first_touch {
                let ready = now + self.clk.cycles(fault as u64);
                self.c.page_faults += 1;
                self.migrating.insert(vpn, ready);
                wait = ready - now;
            } else if let Some(&ready) = self.migrating.get(&vpn) {
                if ready > now {
                    wait = ready - now;
                } else {
                    self.migrating.remove(&vpn);
                }
            }
        } else if migrate {
            let now = self.q.now();
            if first_touch {
                wait = self.migrate_page(vpn, node, now) - now;
                // the access goes to the page's new home once the copy has landed
                (pa, mode) = self.placement.translate(va, obj, node);
            } else if let Some(&ready) = self.migrating.get(&vpn) {
                if ready > now {
                    wait = ready - now;
                } else {
                    self.migrating.remove(&vpn);
                }
            }
        } else if self.griffin.is_some() {
            // a page Griffin is moving is unusable until its copy lands
            let now = self.q.now();
            if let Some(&ready) = self.migrating.get(&vpn) {
                if ready > now {
                    wait = ready - now;
                } else {
                    self.migrating.remove(&vpn);
                }
            }
        }
        if let Some(g) = &mut self.griffin {
            g.record(vpn, node);
        }
        if self.carrefour.is_some() {
            let w = self.carrefour_access(vpn, node, write, &mut pa, &mut mode);
            wait = wait.max(w);
        }
        if !self.cfg.tlb.enabled {
            return (pa, mode, wait);
        }
        let t = &self.cfg.tlb;
        let mut lat = t.l1_latency as u64;
        if self.sms[sm].tlb.lookup(vpn) {
            self.c.tlb_l1_hits += 1;
        } else {
            self.c.tlb_l1_misses += 1;
            lat += t.l2_latency as u64;
            if self.l2tlb[node as usize].lookup(vpn) {
                self.c.tlb_l2_hits += 1;
            } else {
                self.c.tlb_l2_misses += 1;
                lat += t.walk_latency as u64;
            }
        }
        (pa, mode, wait.max(self.clk.cycles(lat)))
    }

    /// Carrefour at one access to page `vpn` from partition `node` (NUBA §7.9, nuba.md
    /// A23; `placement.migration = "carrefour"`): the access is counted for the interval's
    /// decisions ([`crate::placement::carrefour::Carrefour::record`]; only coarse pages,
    /// which have one home partition, take part). A write to a replicated page first
    /// collapses every replica ([`crate::placement::Placement::collapse`]: the frames are
    /// freed, the page table maps the home frame alone again) and the writer waits the
    /// fault and shootdown cost `placement.migration_cycles` (returned); a read from a
    /// partition holding a landed replica is redirected to it (`pa`, `mode` rewritten).
    fn carrefour_access(
        &mut self,
        vpn: u64,
        node: u32,
        write: bool,
        pa: &mut u64,
        mode: &mut Mode,
    ) -> Ps {
        if *mode != Mode::Cgp {
            return 0;
        }
        let page = self.placement.page_bytes();
        let home = self.map.locate(*pa & !(page - 1), Mode::Cgp).node;
        let Some(cf) = &mut self.carrefour else {
            return 0;
        };
        let dropped = cf.record(vpn, home, node, write);
        let written = cf.is_written(vpn);
        if write {
            if dropped.is_empty() {
                return 0;
            }
            self.collapse_replicas(vpn, self.q.now());
            return self.clk.cycles(self.cfg.placement.migration_cycles as u64);
        }
        if node != home {
            if let Some(ppn) = self
                .placement
                .replica_for_read(vpn, node, self.q.now(), written)
            {
                *pa = (ppn * page) | (*pa & (page - 1));
            }
        }
        0
    }

    /// Make the replicas a Carrefour interval decided at `at` (NUBA §7.9): each takes a
    /// coarse frame on its partition ([`crate::placement::Placement::add_replica`]) and,
    /// after the fault and shootdown cost `placement.migration_cycles`, the home sends the
    /// whole page over the network; reads use the replica once the copy has landed (the
    /// home serves them until then). A replica refused for want of a frame is forgotten.
    pub(crate) fn make_replicas(&mut self, reps: &[(u64, u32)], at: Ps) {
        let page = self.placement.page_bytes();
        let fault = at + self.clk.cycles(self.cfg.placement.migration_cycles as u64);
        for &(vpn, node) in reps {
            let Some(pte) = self.placement.lookup(vpn) else {
                continue;
            };
            let home = self.map.locate(pte.ppn * page, Mode::Cgp).node;
            let bytes = page as u32 + self.net.header_bytes;
            let mut rx = Receipts::default();
            let t = self
                .net
                .remote(fault, home, node, bytes, Msg::Migration, &mut rx);
            self.net.arrive(&mut rx);
            if self.placement.add_replica(vpn, node, t).is_none() {
                if let Some(cf) = &mut self.carrefour {
                    cf.forget(vpn, node);
                }
            }
        }
    }

    /// Collapse page `vpn`'s Carrefour replicas ([`crate::placement::Placement::collapse`])
    /// and drop the cached lines of every replica frame freed ([`System::drop_frame_lines`]).
    pub(crate) fn collapse_replicas(&mut self, vpn: u64, now: Ps) -> u64 {
        let mut freed = Vec::new();
        let m = self.placement.collapse(vpn, &mut freed);
        for ppn in freed {
            self.drop_frame_lines(ppn, now);
        }
        m
    }

    /// Drop every cached copy of the lines of frame `ppn`, just freed by a Carrefour
    /// collapse or a Griffin move (NUBA §7.9): each line is invalidated by address in
    /// every SM's L1 and every LLC slice (replicas included), and a fill of it in flight
    /// is poisoned so it is not installed, so a later page given this frame never hits
    /// on the lines of the page it held before. A dirty LLC copy is written back to the old
    /// frame's memory at `now` (a line write-back, [`System::writeback`], at its traffic and
    /// DRAM cost) before it is dropped, as a migration flushes the page's dirty lines before
    /// copying it; the page copy then carries the data (the checker's `page_copy`). Counted
    /// in [`crate::placement::PlacementStats::freed_frames_flushed`] and its neighbours.
    pub(crate) fn drop_frame_lines(&mut self, ppn: u64, now: Ps) {
        let lines = self.placement.page_bytes() >> self.line_shift;
        let first = ppn * lines;
        let spn = self.cfg.l2.slices_per_node as usize;
        let (mut dropped, mut dirty) = (0, 0);
        for line in first..first + lines {
            for sm in self.sms.iter_mut() {
                dropped += sm.l1.invalidate(line).is_some() as u64;
                sm.mshr.poison(line);
            }
            for s in 0..self.slices.len() {
                if let Some(v) = self.slices[s].cache.invalidate(line) {
                    dropped += 1;
                    if v.dirty {
                        dirty += 1;
                        self.writeback((s / spn) as u32, v, now);
                    }
                }
                self.slices[s].mshr.poison(line);
            }
        }
        let st = &mut self.placement.stats;
        st.freed_frames_flushed += 1;
        st.freed_lines_dropped += dropped;
        st.freed_dirty_dropped += dirty;
    }

    /// Migrate page `vpn` to `node` on its first touch (CODA spec A16). The page was mapped
    /// fine-grained, striped over every node; after a fixed fault and shootdown overhead
    /// ([`crate::config::PlacementCfg::migration_cycles`]) each other node sends its share
    /// of the page (`page / N` bytes plus a header) over the remote network to `node`, the
    /// page table then points at a coarse frame on `node` ([`crate::placement::Placement::migrate`],
    /// the old frame freed), and every access to the page waits until the last share has
    /// arrived. Returns when the page is usable.
    pub(crate) fn migrate_page(&mut self, vpn: u64, node: u32, now: Ps) -> Ps {
        let n = self.cfg.system.nodes;
        let fault = now + self.clk.cycles(self.cfg.placement.migration_cycles as u64);
        let mut ready = fault;
        let old = self.placement.migrate(vpn, node);
        if let Some(o) = old.filter(|o| o.mode == Mode::Cgp) {
            // a Griffin move (NUBA §7.9) frees a frame whose lines may be cached; a
            // fine-grained page is moved at the access that mapped it (CODA A16), before
            // any line of it could be cached
            self.drop_frame_lines(o.ppn, now);
        }
        // the checker's shadow data move with the copy (issue 13: no write may be lost):
        // (first old line, first new line, lines per page)
        let shift = self.placement.page_bytes().trailing_zeros() - self.line_shift;
        let moved = match (&self.chk, old, self.placement.lookup(vpn)) {
            (Some(_), Some(old), Some(new)) => Some((old.ppn << shift, new.ppn << shift)),
            _ => None,
        };
        // who sends what: every other node its share of a fine-grained page; the home of a
        // coarse-grained page (Griffin's moves, NUBA §7.9) the whole page
        let senders: Vec<(u32, u32)> = match old {
            Some(o) if n > 1 && o.mode == Mode::Cgp => {
                let page = self.placement.page_bytes();
                let from = self.map.locate(o.ppn * page, Mode::Cgp).node;
                let bytes = page as u32 + self.net.header_bytes;
                (from != node)
                    .then_some((from, bytes))
                    .into_iter()
                    .collect()
            }
            Some(_) if n > 1 => {
                let share = (self.cfg.system.page_bytes / n as u64) as u32 + self.net.header_bytes;
                (0..n).filter(|&k| k != node).map(|k| (k, share)).collect()
            }
            _ => Vec::new(),
        };
        for (from, bytes) in senders {
            let mut rx = Receipts::default();
            let t = self
                .net
                .remote(fault, from, node, bytes, Msg::Migration, &mut rx);
            self.net.arrive(&mut rx);
            self.c.migrated_bytes += bytes as u64;
            ready = ready.max(t);
        }
        if let (Some(c), Some((from, to))) = (&mut self.chk, moved) {
            c.page_copy(from, to, 1 << shift, ready);
        }
        self.c.migrations += 1;
        self.migrating.insert(vpn, ready);
        ready
    }

    #[inline(never)]
    fn issue_mem(&mut self, sm: usize, wg: usize, inst: WarpInst) {
        let now = self.q.now();
        let cyc = self.sms[sm].clk.period;
        self.c.mem_insts += 1;
        self.c.mem_by_space[crate::stats::mem_index(inst.space, inst.class)] += 1;
        if self.spaces.is_some() && self.spaces_mem(sm, wg, inst) {
            return;
        }
        if inst.space == Space::Shared {
            // the slot of the load/store unit's data path (`sm.shared_uses_lsu`)
            let start = if self.cfg.sm.shared_uses_lsu {
                let t0 = now.max(self.sms[sm].lsu_free);
                self.sms[sm].lsu_free = t0 + cyc;
                t0
            } else {
                now
            };
            if inst.class == InstClass::Load && inst.dst != 0 {
                let done = start + self.sms[sm].clk.cycles(self.cfg.sm.smem_latency as u64);
                self.alloc_pend(wg, inst.dst, now, done);
                self.c.loads_completed += 1;
                self.c.load_latency_ps += done - now;
            }
            return;
        }
        // copy the line requests out of the block program
        let mut lines = std::mem::take(&mut self.scratch_lines);
        lines.clear();
        lines.extend_from_slice(self.warps[wg].prog.lines_of(&inst));
        let lpc = self.cfg.sm.lsu_lines_per_cycle as u64;
        let t0 = now.max(self.sms[sm].lsu_free);
        self.sms[sm].lsu_free = t0 + (lines.len() as u64).div_ceil(lpc) * cyc;
        let l1_lat = self.sms[sm].clk.cycles(self.cfg.l1.hit_latency as u64);
        let node = self.sms[sm].node;
        let slot = if inst.class == InstClass::Load && inst.dst != 0 {
            Some(self.alloc_pend(wg, inst.dst, now, now))
        } else {
            None
        };
        for (i, lr) in lines.iter().enumerate() {
            let ti = t0 + (i as u64 / lpc) * cyc;
            if inst.class != InstClass::Load {
                if let Some(w) = self.obj_written.get_mut(lr.obj as usize) {
                    *w = true;
                }
            }
            self.c.l1_requests += 1;
            if let Some(o) = self.obj_counter(lr.obj) {
                o.l1_requests += 1;
            }
            let (pa, mode, tlat) =
                self.translate(sm, lr.addr, lr.obj, inst.class != InstClass::Load);
            if let Some(p) = &mut self.sharers {
                p.touch(lr.addr / self.cfg.system.page_bytes, sm);
            }
            let ti = ti + tlat;
            let line = pa >> self.line_shift;
            let loc = self.map.locate(line << self.line_shift, mode);
            match inst.class {
                InstClass::Load => {
                    // the chunks a miss asks for: the touched sectors (sectored caches)
                    // or the whole line
                    let need = self.sect.map_or(u32::MAX, |g| g.to_sectors(lr.sectors));
                    let cached =
                        self.cfg.l1.enabled && (self.cfg.l1.cache_remote || loc.node == node);
                    let hit = cached
                        && match self.sect {
                            None => self.sms[sm].l1.access(line),
                            Some(_) => self.sms[sm].l1.access_sectors(line, need) == 0,
                        };
                    // a software-coherent L1 (the directory's invalidations stop at the L2,
                    // `coherence.inval_scope = "l2"`) owes only what completed before the
                    // kernel started (the acquire that cleared it)
                    let l1_sw = self.directory_on() && !self.dir_inval_l1();
                    let issue_ver = match &mut self.chk {
                        Some(c) => {
                            let need = c.completed(line);
                            if hit {
                                let have = c.copy(sm as u32, line);
                                let owed = if l1_sw {
                                    c.completed_at_acquire(line)
                                } else {
                                    need
                                };
                                c.check("l1-hit", sm as u32, line, have, owed, now);
                            }
                            need
                        }
                        None => 0,
                    };
                    if hit {
                        self.c.l1_hits += 1;
                        self.sms[sm].l1_hits += 1;
                        if let Some(s) = slot {
                            let p = &mut self.pend[s];
                            p.ready_at = p.ready_at.max(ti + l1_lat);
                            let w = &mut self.warps[wg];
                            w.ready_max = w.ready_max.max(ti + l1_lat);
                        }
                        continue;
                    }
                    self.c.l1_misses += 1;
                    self.sms[sm].l1_misses += 1;
                    self.count_l1_miss(node, loc.node);
                    let tok = slot.map(|s| s as u64).unwrap_or(u64::MAX);
                    if let Some(s) = slot {
                        self.pend_wait_one_more(s);
                    }
                    // a fill an invalidation crossed must not serve a later load: such a
                    // load goes on its own (directory protocol only)
                    let poisoned = !self.dirs.is_empty() && self.sms[sm].mshr.is_poisoned(line);
                    // (sectored: the missing sectors, as GPGPU-Sim's sector cache asks
                    // for the touched sectors of the line, valid ones included)
                    let added = if poisoned {
                        None
                    } else if self.sect.is_some() {
                        // a fill of the line in flight that lacks some of these sectors:
                        // this miss goes on its own (as one past a full MSHR file)
                        match self.sms[sm].mshr.add_sectors(line, tok, need, need, false) {
                            SectorAdd::New => Some(true),
                            SectorAdd::Merged => Some(false),
                            SectorAdd::Uncovered | SectorAdd::Full => None,
                        }
                    } else {
                        self.sms[sm].mshr.add(line, tok)
                    };
                    match added {
                        Some(false) => {
                            self.c.l1_mshr_merges += 1;
                        }
                        added => {
                            let mut r = Req::from_sm(
                                Kind::Read,
                                sm,
                                node,
                                &loc,
                                line,
                                mode,
                                self.cfg.system.line_bytes,
                                lr.obj,
                                tok,
                            );
                            // no MSHR left (an instruction wider than the MSHR file): the
                            // request carries its waiter itself
                            r.direct = added.is_none();
                            r.issue_ver = issue_ver;
                            if let Some(g) = self.sect {
                                // a miss on its own past an outstanding fill of the line asks
                                // for what that fill does not bring
                                let ask = need & !self.sms[sm].mshr.chunks(line);
                                let ask = if ask == 0 { need } else { ask };
                                r.sectors = ask;
                                r.bytes = g.bytes(ask);
                            }
                            let t = self.sm_to_l2(ti + l1_lat, node, &mut r, Msg::Read);
                            let id = self.new_req(r);
                            self.q.push(t, Ev::L2Access(id));
                        }
                    }
                }
                InstClass::Store => {
                    // write-through, no write-allocate: a present line stays valid (updated)
                    self.sms[sm].writes_inflight += 1;
                    let mut r = Req::from_sm(
                        Kind::Write,
                        sm,
                        node,
                        &loc,
                        line,
                        mode,
                        self.cfg.system.line_bytes,
                        lr.obj,
                        u64::MAX,
                    );
                    if let Some(g) = self.sect {
                        // the sectors written (a sectored L2 validates them: write-validate)
                        r.sectors = g.to_sectors(lr.sectors);
                        r.bytes = g.bytes(r.sectors);
                    }
                    let t = self.sm_to_l2(ti + l1_lat, node, &mut r, Msg::Write);
                    let id = self.new_req(r);
                    self.q.push(t, Ev::L2Access(id));
                }
                _ => {
                    // atomic: performed at the home node's L2 (spec A7)
                    let tok = slot.map(|s| s as u64).unwrap_or(u64::MAX);
                    if let Some(s) = slot {
                        self.pend_wait_one_more(s);
                    }
                    self.count_access(node, loc.node, lr.bytes as u64, lr.obj);
                    self.sms[sm].writes_inflight += 1;
                    let mut r = Req::from_sm(
                        Kind::Atomic,
                        sm,
                        node,
                        &loc,
                        line,
                        mode,
                        lr.bytes as u32,
                        lr.obj,
                        tok,
                    );
                    if let Some(g) = self.sect {
                        r.sectors = g.to_sectors(lr.sectors);
                    }
                    let mut t = ti + l1_lat;
                    if loc.node != node {
                        let b = self.net.header_bytes + r.bytes;
                        t = self
                            .net
                            .remote(t, node, loc.node, b, Msg::Atomic, &mut r.rx);
                    }
                    // the home slice's request port (after the network for a remote home)
                    let t = self.sm_to_l2(t, loc.node, &mut r, Msg::Atomic);
                    let id = self.new_req(r);
                    self.q.push(t, Ev::L2Access(id));
                }
            }
        }
        if let Some(s) = slot {
            let p = self.pend[s];
            if p.remaining == 0 {
                // all hits: complete at the latest hit time
                self.c.loads_completed += 1;
                self.c.load_latency_ps += p.ready_at - p.t0;
            }
        }
        self.scratch_lines = lines;
    }

    /// Send request `r` at `t` through the request port of its L2 slice on node `at` (issue
    /// 7 §3: SM -> L2 requests are bandwidth-limited, `noc.sm_l2_request_gbps`): a read
    /// carries a header, a write or atomic header + data. Returns the arrival time.
    #[inline]
    pub(crate) fn sm_to_l2(&mut self, t: Ps, at: u32, r: &mut Req, msg: Msg) -> Ps {
        let spn = self.cfg.l2.slices_per_node as usize;
        let slice = (self.slice_id(at, r) % spn) as u32;
        let h = self.net.header_bytes;
        let bytes = if msg == Msg::Read { h } else { h + r.bytes };
        let t = self.net.from_sm(t, r.sm, bytes, msg, &mut r.rx);
        self.net.sm_to_slice(t, at, slice, bytes, msg, &mut r.rx)
    }

    /// Allocate a scoreboard slot (no response outstanding yet); returns its index in
    /// `pend`.
    pub(crate) fn alloc_pend(&mut self, wg: usize, reg: u16, now: Ps, ready: Ps) -> usize {
        self.c.load_insts += 1;
        let base = wg * self.maxp;
        let i = (0..self.maxp)
            .find(|&i| !self.pend[base + i].busy(now))
            .unwrap_or(0);
        debug_assert!(
            !self.pend[base + i].busy(now),
            "the scoreboard had a free slot"
        );
        if self.pend[base + i].remaining > 0 {
            self.warps[wg].mem_wait -= 1;
        }
        self.pend[base + i] = Pend {
            reg,
            remaining: 0,
            ready_at: ready,
            t0: now,
        };
        let w = &mut self.warps[wg];
        w.ready_max = w.ready_max.max(ready);
        base + i
    }

    /// Scoreboard slot `slot` waits for one more memory response.
    #[inline]
    pub(crate) fn pend_wait_one_more(&mut self, slot: usize) {
        let p = &mut self.pend[slot];
        if p.remaining == 0 {
            self.warps[slot / self.maxp].mem_wait += 1;
        }
        p.remaining += 1;
    }

    /// A response for scoreboard slot `slot` arrived at `now`.
    pub(crate) fn complete_pend(&mut self, slot: usize) {
        let now = self.q.now();
        let p = &mut self.pend[slot];
        if p.remaining == 0 {
            return;
        }
        p.remaining -= 1;
        p.ready_at = p.ready_at.max(now);
        let (ready, done) = (p.ready_at, p.remaining == 0);
        let wg = slot / self.maxp;
        let w = &mut self.warps[wg];
        w.ready_max = w.ready_max.max(ready);
        if done {
            w.mem_wait -= 1;
            let p = &self.pend[slot];
            self.c.loads_completed += 1;
            self.c.load_latency_ps += p.ready_at - p.t0;
            self.unpark(wg);
            let sm = wg / self.max_warps;
            let t = self.pend[slot].ready_at;
            self.wake_sm(sm, t);
        }
    }

    #[inline]
    pub(crate) fn obj_counter(&mut self, o: u16) -> Option<&mut ObjCounters> {
        if o == NO_OBJ {
            None
        } else {
            self.obj.get_mut(o as usize)
        }
    }

    #[inline]
    fn count_l1_miss(&mut self, node: u32, home: u32) {
        if node == home {
            self.c.l1_miss_local += 1;
        } else {
            self.c.l1_miss_remote += 1;
        }
    }

    /// Count a memory access leaving `node` for `home` (spec A8).
    #[inline]
    pub(crate) fn count_access(&mut self, node: u32, home: u32, bytes: u64, obj: u16) {
        let local = node == home;
        if local {
            self.c.local_accesses += 1;
            self.c.local_bytes += bytes;
        } else {
            self.c.remote_accesses += 1;
            self.c.remote_bytes += bytes;
        }
        if let Some(o) = self.obj_counter(obj) {
            if local {
                o.local += 1;
            } else {
                o.remote += 1;
            }
        }
    }
}
