//! Timing of the HMS memory spaces (spec `hms-placement-model.md` §2, §3.2.4; the rules
//! and configuration are in [`crate::spaces`]): per-SM texture and constant caches, shared
//! memory banks, replays and their issue cost, and the per-object placement override.
//!
//! A replay occupies the SM's issue slot for one cycle, so an instruction with `R` replays
//! keeps its SM from issuing for `R` more cycles (Kepler re-issues the instruction; spec
//! §3.2.2 counts issued instructions, replays included) and its warp from issuing its next
//! instruction until then. Only built when `spaces.enabled`.

use super::{Ev, Kind, Req, System};
use crate::cache::SetAssoc;
use crate::error::SimError;
use crate::noc::Msg;
use crate::spaces::{self, PlaceSpace, SpaceCounters};
use locus_engine::Ps;
use locus_workload::{InstClass, LaneAddr, Space, WarpInst, NO_OBJ};

/// State of the memory spaces: caches per SM, the placement of each object, counters.
pub(crate) struct SpaceState {
    /// Texture cache of each SM (lines of `spaces.tex_line_bytes`).
    pub tex: Vec<SetAssoc>,
    /// Constant cache of each SM (lines of `spaces.const_line_bytes`).
    pub cst: Vec<SetAssoc>,
    pub tex_shift: u32,
    pub const_shift: u32,
    /// Placement of each data object (`None`: as the workload issues it).
    pub place: Vec<Option<PlaceSpace>>,
    /// Placement of each data object in the current launch of its application: `place`,
    /// except that an object placed in texture or constant memory stays global in a launch
    /// that may write it (both spaces are read-only in a kernel, spec §2.2; a program binds
    /// a texture or copies to constant memory per kernel, so the rule is per kernel).
    pub in_launch: Vec<Option<PlaceSpace>>,
    /// Per application: the objects whose texture or constant placement its current launch
    /// did not apply (it may write them), reported with the kernel's statistics.
    pub not_applied: Vec<Vec<String>>,
    /// Is any object placed (the rewrite of generated blocks is skipped otherwise)?
    pub any_placed: bool,
    /// Earliest time each SM may issue again after replays.
    pub issue_free: Vec<Ps>,
    pub c: SpaceCounters,
    /// Counters at the start of each application's current launch.
    pub before: Vec<SpaceCounters>,
    /// Per application: the objects its current launch stages in shared memory
    /// (`staging.rs`).
    pub staged: Vec<Vec<super::staging::Staged>>,
    /// A warp program reused to build staged warps.
    pub stage_scratch: locus_workload::WarpProgram,
}

fn cache(bytes: u32, line: u32, ways: u32) -> SetAssoc {
    let sets = ((bytes / line.max(1)) / ways.max(1)).max(1) as usize;
    SetAssoc::new(sets.next_power_of_two(), ways.max(1) as usize, 0)
}

impl SpaceState {
    pub fn new(cfg: &crate::Config, nsm: usize) -> SpaceState {
        let s = &cfg.spaces;
        SpaceState {
            tex: (0..nsm)
                .map(|_| cache(s.tex_bytes, s.tex_line_bytes, s.tex_ways))
                .collect(),
            cst: (0..nsm)
                .map(|_| cache(s.const_cache_bytes, s.const_line_bytes, s.const_ways))
                .collect(),
            tex_shift: s.tex_line_bytes.trailing_zeros(),
            const_shift: s.const_line_bytes.trailing_zeros(),
            place: Vec::new(),
            in_launch: Vec::new(),
            not_applied: Vec::new(),
            any_placed: false,
            issue_free: vec![0; nsm],
            c: SpaceCounters::default(),
            before: Vec::new(),
            staged: Vec::new(),
            stage_scratch: Default::default(),
        }
    }
}

impl System {
    /// Resolve `[place]` against the workload's objects (after `set_objects`); an illegal
    /// placement is a configuration error naming the object and the rule. When an object
    /// the workload writes is placed in texture or constant memory, each launch's writes
    /// must be known before it runs ([`System::compute_read_only_bits`] is turned on) to
    /// decide whether the placement applies in it.
    pub(crate) fn spaces_objects(&mut self) -> Result<(), SimError> {
        let Some(st) = self.spaces.as_mut() else {
            return Ok(());
        };
        st.place = spaces::resolve(&self.cfg.place, &self.objects, &self.cfg.spaces)
            .map_err(SimError::Config)?;
        st.in_launch = st.place.clone();
        st.any_placed = st.place.iter().any(|p| p.is_some());
        if st
            .place
            .iter()
            .zip(&self.objects)
            .any(|(p, o)| p.is_some_and(|p| p.read_only()) && !o.read_only)
        {
            self.read_only_probe = true;
        }
        Ok(())
    }

    /// A launch of application `a` begins (after its read-only bits are known): snapshot
    /// the counters, invalidate the texture and constant caches of its SMs (neither is
    /// coherent with writes), and decide which placements apply in this launch.
    pub(crate) fn spaces_launch(&mut self, a: usize) {
        let (first, count) = (self.apps[a].first_sm, self.apps[a].sms);
        let Some(st) = self.spaces.as_mut() else {
            return;
        };
        if st.before.len() <= a {
            st.before.resize(a + 1, SpaceCounters::default());
            st.not_applied.resize(a + 1, Vec::new());
            st.staged.resize(a + 1, Vec::new());
        }
        st.staged[a].clear();
        st.before[a] = st.c;
        for sm in first..first + count {
            st.tex[sm].clear();
            st.cst[sm].clear();
        }
        st.not_applied[a].clear();
        for (o, p) in st.place.iter().enumerate() {
            if self.obj_app.get(o).copied().unwrap_or(0) as usize != a {
                continue;
            }
            let written = !self.objects[o].read_only && self.obj_may_write[o];
            st.in_launch[o] = match p {
                Some(p) if p.read_only() && written => {
                    st.not_applied[a].push(self.objects[o].name.clone());
                    None
                }
                _ => *p,
            };
            if st.in_launch[o] == Some(PlaceSpace::Shared) {
                let ob = &self.objects[o];
                st.staged[a].push(super::staging::Staged {
                    obj: o as u16,
                    base: ob.base,
                    bytes: ob.bytes,
                    elem: u64::from(ob.elem_bytes.max(1)),
                    write_back: written,
                    block_range: self.cfg.spaces.shared_stage
                        == crate::spaces::SharedStage::BlockRange,
                });
            }
        }
    }

    /// The objects whose texture or constant placement application `a`'s launch that just
    /// ended did not apply, because it may write them (empty when the spaces are off).
    pub(crate) fn spaces_not_applied(&mut self, a: usize) -> Vec<String> {
        self.spaces
            .as_mut()
            .and_then(|st| st.not_applied.get_mut(a))
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The counters of application `a`'s launch that just ended (`None` when the spaces
    /// are off, so other presets report as before).
    pub(crate) fn spaces_finish(&self, a: usize, warp_insts: u64) -> Option<SpaceCounters> {
        let st = self.spaces.as_ref()?;
        let mut d = st.c.since(&st.before[a]);
        d.issued_insts = warp_insts + d.replays();
        Some(d)
    }

    /// Rewrite the spaces of a freshly generated block by `[place]` as it applies in the
    /// current launch (`SpaceState::in_launch`): every access to a placed object goes to its
    /// space (loads only for texture and constant, which are read-only; loads and stores
    /// for shared; atomics stay global).
    pub(crate) fn spaces_rewrite(&mut self, sm: usize, slot: usize) {
        let Some(st) = self.spaces.as_mut() else {
            return;
        };
        if !st.any_placed {
            return;
        }
        let prog = &mut self.sms[sm].blocks[slot].prog;
        for wp in &mut prog.warps {
            for i in 0..wp.insts.len() {
                let inst = wp.insts[i];
                if !inst.class.is_mem()
                    || inst.nlines == 0
                    || matches!(inst.space, Space::Local | Space::Shared)
                {
                    continue;
                }
                let obj = wp.lines[inst.first_line as usize].obj;
                let Some(Some(p)) = st.in_launch.get(obj as usize) else {
                    continue;
                };
                let load = inst.class == InstClass::Load;
                let to = match p {
                    PlaceSpace::Global => Space::Global,
                    PlaceSpace::Tex1d | PlaceSpace::Tex2d { .. } if load => Space::Texture,
                    PlaceSpace::Const if load => Space::Constant,
                    PlaceSpace::Shared if inst.class != InstClass::Atomic => Space::Shared,
                    _ => inst.space,
                };
                if to != inst.space {
                    wp.insts[i].space = to;
                    st.c.placed_insts += 1;
                }
            }
        }
    }

    /// Time memory instruction `inst` of warp `wg` (already counted) in its space. Returns
    /// true when handled here (shared, texture and constant loads); false for the global
    /// path, after charging replay cause (1).
    pub(crate) fn spaces_mem(&mut self, sm: usize, wg: usize, inst: WarpInst) -> bool {
        let now = self.q.now();
        let cyc = self.sms[sm].clk.period;
        // the instruction's lanes (recorded: `record_lanes` is on with the spaces), or its
        // line requests for a workload that records none
        let mut buf = [LaneAddr {
            lane: 0,
            bytes: 0,
            addr: 0,
        }; 32];
        let mut n = 0;
        let mut obj = NO_OBJ;
        {
            let w = &self.warps[wg];
            let prog = &self.sms[sm].blocks[w.block_slot as usize].prog.warps[w.wib as usize];
            if inst.nlines > 0 {
                obj = prog.lines[inst.first_line as usize].obj;
            }
            match prog.lanes_of(w.pc as usize - 1) {
                Some(ls) if !ls.is_empty() => {
                    n = ls.len().min(32);
                    buf[..n].copy_from_slice(&ls[..n]);
                }
                _ => {
                    for (b, l) in buf.iter_mut().zip(prog.lines_of(&inst)) {
                        *b = LaneAddr {
                            lane: 0,
                            bytes: l.bytes,
                            addr: l.addr,
                        };
                        n += 1;
                    }
                }
            }
        }
        let lanes = &buf[..n];
        let scfg = self.cfg.spaces;
        let load = inst.class == InstClass::Load;
        match inst.space {
            Space::Shared => {
                let r =
                    spaces::bank_conflict_replays(lanes, scfg.shared_banks, scfg.shared_bank_bytes);
                let st = self.spaces.as_mut().expect("spaces on");
                st.c.shared_insts += 1;
                if r > 0 {
                    st.c.shared_conflicted_insts += 1;
                    st.c.replays_shared_bank_conflict += r as u64;
                }
                if !load {
                    if let Some(w) = self.obj_written.get_mut(obj as usize) {
                        *w = true;
                    }
                }
                self.replay_cost(sm, wg, r);
                // the data path's slot, one cycle per wavefront (`sm.shared_uses_lsu`)
                let start = if self.cfg.sm.shared_uses_lsu {
                    let t0 = now.max(self.sms[sm].lsu_free);
                    self.sms[sm].lsu_free = t0 + (1 + r as u64) * self.sms[sm].clk.period;
                    t0
                } else {
                    now
                };
                if load && inst.dst != 0 {
                    let done = start
                        + self.sms[sm]
                            .clk
                            .cycles(self.cfg.sm.smem_latency as u64 + r as u64);
                    self.alloc_pend(wg, inst.dst, now, done);
                    self.c.loads_completed += 1;
                    self.c.load_latency_ps += done - now;
                }
                true
            }
            Space::Constant | Space::Texture if load => {
                let constant = inst.space == Space::Constant;
                // the cache lines the instruction needs, each once (and for texture, the
                // address of the data behind the line)
                let mut keys = [(0u64, 0u64); 32];
                let shift = {
                    let st = self.spaces.as_ref().expect("spaces on");
                    if constant {
                        st.const_shift
                    } else {
                        st.tex_shift
                    }
                };
                let layout = match self.spaces.as_ref().and_then(|s| s.place.get(obj as usize)) {
                    Some(Some(PlaceSpace::Tex2d { width })) if !constant => Some(*width),
                    _ => None,
                };
                for (k, l) in keys.iter_mut().zip(lanes) {
                    let mut a = l.addr;
                    if let (Some(width), Some(o)) = (layout, self.objects.get(obj as usize)) {
                        let elem = o.elem_bytes.max(1) as u64;
                        let t = o.base
                            + spaces::tiled_offset((a - o.base) / elem, width, elem, 1 << shift);
                        // the last tile row may be padded past the object: keep the data
                        if t < o.base + o.bytes {
                            a = t;
                        }
                    }
                    *k = (a >> shift, a);
                }
                let keys = &mut keys[..n];
                keys.sort_unstable_by_key(|k| k.0);
                let mut m = 0;
                for i in 0..keys.len() {
                    if i == 0 || keys[i].0 != keys[m - 1].0 {
                        keys[m] = keys[i];
                        m += 1;
                    }
                }
                let keys = &keys[..m];
                let div = if constant {
                    spaces::const_divergence_replays(lanes)
                } else {
                    0
                };
                let hit_lat = self.sms[sm].clk.cycles(if constant {
                    scfg.const_hit_latency
                } else {
                    scfg.tex_hit_latency
                } as u64);
                let lpc = self.cfg.sm.lsu_lines_per_cycle as u64;
                let t0 = now.max(self.sms[sm].lsu_free);
                self.sms[sm].lsu_free = t0 + (m as u64).div_ceil(lpc) * cyc;
                let slot = (inst.dst != 0).then(|| self.alloc_pend(wg, inst.dst, now, now));
                let node = self.sms[sm].node;
                let mut misses = 0u32;
                for (i, &(line, addr)) in keys.iter().enumerate() {
                    let ti = t0 + (i as u64 / lpc) * cyc;
                    let st = self.spaces.as_mut().expect("spaces on");
                    let c = if constant {
                        &mut st.cst[sm]
                    } else {
                        &mut st.tex[sm]
                    };
                    let hit = c.access(line);
                    if !hit {
                        // allocate at the miss: later lookups of the line hit under it
                        c.insert(line, false, 0);
                    }
                    if constant {
                        st.c.const_requests += 1;
                        if hit {
                            st.c.const_hits += 1;
                        } else {
                            st.c.const_misses += 1;
                        }
                    } else {
                        st.c.tex_requests += 1;
                        if hit {
                            st.c.tex_hits += 1;
                        } else {
                            st.c.tex_misses += 1;
                        }
                    }
                    if hit {
                        if let Some(s) = slot {
                            let p = &mut self.pend[s];
                            p.ready_at = p.ready_at.max(ti + hit_lat);
                            let w = &mut self.warps[wg];
                            w.ready_max = w.ready_max.max(ti + hit_lat);
                        }
                        continue;
                    }
                    misses += 1;
                    // the miss reads the line's data from the L2 (bypassing the L1)
                    let (pa, mode, tlat) = self.translate(sm, addr, obj, false);
                    let l2line = pa >> self.line_shift;
                    let loc = self.map.locate(l2line << self.line_shift, mode);
                    let tok = slot.map(|s| s as u64).unwrap_or(u64::MAX);
                    if let Some(s) = slot {
                        self.pend_wait_one_more(s);
                    }
                    let mut r = Req::from_sm(
                        Kind::Read,
                        sm,
                        node,
                        &loc,
                        l2line,
                        mode,
                        self.cfg.system.line_bytes,
                        obj,
                        tok,
                    );
                    r.direct = true;
                    let t = self.sm_to_l2(ti + tlat + hit_lat, node, &mut r, Msg::Read);
                    let id = self.new_req(r);
                    self.q.push(t, Ev::L2Access(id));
                }
                let mut replays = div;
                {
                    let st = self.spaces.as_mut().expect("spaces on");
                    st.c.replays_const_divergence += div as u64;
                    if constant {
                        // cause (2): one replay per missing constant line
                        st.c.replays_const_miss += misses as u64;
                        replays += misses;
                    }
                }
                self.replay_cost(sm, wg, replays);
                if let Some(s) = slot {
                    let p = self.pend[s];
                    if p.remaining == 0 {
                        self.c.loads_completed += 1;
                        self.c.load_latency_ps += p.ready_at - p.t0;
                    }
                }
                true
            }
            _ => {
                // global (and local, and stores to read-only spaces): cause (1)
                if inst.class != InstClass::Atomic {
                    let r = spaces::global_replays(
                        lanes,
                        scfg.global_transaction_bytes,
                        scfg.global_replay,
                    );
                    self.spaces
                        .as_mut()
                        .expect("spaces on")
                        .c
                        .replays_global_divergence += r as u64;
                    self.replay_cost(sm, wg, r);
                }
                false
            }
        }
    }

    /// `r` replays of the instruction warp `wg` just issued: the SM's issue slot and the
    /// warp are busy for `r` more cycles.
    fn replay_cost(&mut self, sm: usize, wg: usize, r: u32) {
        if r == 0 {
            return;
        }
        let now = self.q.now();
        let cyc = self.sms[sm].clk.period;
        let free = now + (1 + r as u64) * cyc;
        if let Some(st) = self.spaces.as_mut() {
            st.issue_free[sm] = st.issue_free[sm].max(free);
        }
        self.set_wready(sm, wg, self.wready[wg].max(free));
    }

    /// When SM `sm` may issue again after replays (0 when the spaces are off).
    #[inline]
    pub(crate) fn replay_busy_until(&self, sm: usize) -> Ps {
        match &self.spaces {
            Some(st) => st.issue_free[sm],
            None => 0,
        }
    }
}
