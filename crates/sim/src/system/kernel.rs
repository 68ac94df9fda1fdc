//! Running a workload: launch by launch, placement analysis (CODA), block scheduling, the
//! event loop, the kernel boundary, and the final report.

use super::{App, Ev, System};
use crate::coherence::Cause;
use crate::config::PlacementPolicy;
use crate::error::SimError;
use crate::placement::{coda, ObjPlacement};
use crate::scheduling::{BlockScheduler, Layout};
use crate::stats::{
    DramStats, HostStats, KernelStats, LinkStats, NodeStats, ObjCounters, ObjectStats, Report,
    SimStats, Summary, SCHEMA_VERSION,
};
use locus_workload::{sharing::occupancy, KernelInfo, Workload, WorkloadError};
use std::time::Instant;

/// Progress of a run, reported to the caller's callback.
#[derive(Clone, Debug)]
pub struct Progress {
    pub kernel: u32,
    pub kernel_name: String,
    pub blocks_done: u64,
    pub blocks_total: u64,
    pub sim_ns: f64,
    pub l1_requests: u64,
}

impl System {
    /// Concurrent blocks per SM for `k` on this machine (0 = does not fit).
    pub fn blocks_per_sm(&self, k: &KernelInfo) -> u32 {
        let s = &self.cfg.sm;
        let by_warps = s.max_warps / k.warps_per_block().max(1);
        occupancy(k, s.max_blocks, s.max_threads, s.registers, s.smem_bytes).min(by_warps)
    }

    /// Give the free SM slots of application `a` their next blocks.
    pub(crate) fn fill_app(&mut self, a: usize, w: &mut dyn Workload) -> Result<(), WorkloadError> {
        if self.stopped_at.is_some() {
            return Ok(());
        }
        let rate = self.cfg.system.block_dispatch_ps as u64;
        if rate > 0 {
            return self.fill_app_paced(a, w, rate);
        }
        let Some(mut sched) = self.apps[a].sched.take() else {
            return Ok(());
        };
        let (first, count) = (self.apps[a].first_sm, self.apps[a].sms);
        let mut buf = std::mem::take(&mut self.dispatch_buf);
        buf.clear();
        sched.dispatch(&mut self.free_slots[first..first + count], &mut buf);
        self.apps[a].sched = Some(sched);
        for &(b, sm) in &buf {
            self.dispatch_block(w, b, first + sm)?;
        }
        self.dispatch_buf = buf;
        Ok(())
    }

    /// [`System::fill_app`] with a block-dispatch rate (`system.block_dispatch_ps`): one
    /// block at a time, at least `rate` ps apart; an `Ev::Launch` brings the dispatcher back
    /// while blocks wait and slots are free (a block finishing calls it too).
    fn fill_app_paced(
        &mut self,
        a: usize,
        w: &mut dyn Workload,
        rate: u64,
    ) -> Result<(), WorkloadError> {
        if self.apps[a].dispatch_pending {
            return Ok(()); // the queued event dispatches
        }
        let now = self.q.now();
        let app = &mut self.apps[a];
        let Some(sched) = app.sched.as_mut() else {
            return Ok(());
        };
        if sched.remaining() == 0 {
            return Ok(());
        }
        if now < app.next_dispatch {
            app.dispatch_pending = true;
            let at = app.next_dispatch;
            self.q.push(at, Ev::Launch(a as u32));
            return Ok(());
        }
        let (first, count) = (app.first_sm, app.sms);
        let mut buf = std::mem::take(&mut self.dispatch_buf);
        buf.clear();
        sched.dispatch_max(&mut self.free_slots[first..first + count], &mut buf, 1);
        let more = sched.remaining() > 0;
        if let Some(&(b, sm)) = buf.first() {
            app.next_dispatch = now + rate;
            if more {
                app.dispatch_pending = true;
                self.q.push(now + rate, Ev::Launch(a as u32));
            }
            self.dispatch_block(w, b, first + sm)?;
        }
        self.dispatch_buf = buf;
        Ok(())
    }

    /// A block of application `a` finished on one of its SMs.
    pub(crate) fn app_block_done(
        &mut self,
        a: usize,
        ws: &mut [&mut dyn Workload],
    ) -> Result<(), WorkloadError> {
        self.apps[a].live_blocks -= 1;
        self.apps[a].blocks_done += 1;
        self.fill_app(a, &mut *ws[a])?;
        let app = &self.apps[a];
        let launch_done =
            app.sched.as_ref().is_some_and(|s| s.remaining() == 0) && app.live_blocks == 0;
        if self.apps.len() > 1 && launch_done {
            // co-running applications: each moves on at its own kernel boundary
            self.finish_launch(a);
            let (first, count) = (self.apps[a].first_sm, self.apps[a].sms);
            for sm in &mut self.sms[first..first + count] {
                sm.l1.clear();
            }
            self.next_app_launch(a, &mut *ws[a]).map_err(|e| match e {
                SimError::Workload(w) => w,
                other => WorkloadError::Msg(other.to_string()),
            })?;
        }
        Ok(())
    }

    fn event_loop(
        &mut self,
        ws: &mut [&mut dyn Workload],
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), SimError> {
        let mut n: u64 = 0;
        let max_ps = match self.cfg.run.max_cycles {
            0 => u64::MAX,
            c => self.clk.cycles(c),
        };
        self.arm_timers();
        loop {
            if self.timers_armed > 0 && self.q.len() == self.timers_armed {
                // only epochs are left: timers must not keep a finished run alive
                self.disarm_timers();
                break;
            }
            let Some((t, ev)) = self.q.pop() else { break };
            if t >= max_ps && self.stopped_at.is_none() {
                self.stopped_at = Some(max_ps);
            }
            self.ev_counts[ev.index()] += 1;
            match ev {
                Ev::SmTick(sm) => self.sm_tick(sm as usize, ws)?,
                Ev::L2Access(id) => self.l2_access(id),
                Ev::DramArrive(id) => self.dram_arrive(id),
                Ev::DramTick(c) => self.dram_tick_event(c as usize),
                Ev::DramDone(id) => self.dram_done(id),
                Ev::L2Fill(id) => self.l2_fill(id),
                Ev::L1Fill(id) => self.l1_fill(id),
                Ev::AtomicResp(id) => self.atomic_resp(id),
                Ev::WriteAck(id) => self.write_ack(id),
                Ev::Epoch(t) => self.epoch(t),
                Ev::Inval(id) => self.inval_arrive(id),
                Ev::Wait => {}
                Ev::Ndp(id) => self.ndp_arrive(id),
                Ev::NsuTick(s) => self.nsu_tick(s),
                Ev::Launch(a) => {
                    self.apps[a as usize].dispatch_pending = false;
                    self.fill_app(a as usize, &mut *ws[a as usize])?
                }
            }
            n += 1;
            if n & 0xFFFF == 0 {
                progress(&self.progress());
            }
        }
        Ok(())
    }

    fn progress(&self) -> Progress {
        let a = &self.apps[0];
        Progress {
            kernel: a.index.saturating_sub(1),
            kernel_name: a.info.as_ref().map(|i| i.name.clone()).unwrap_or_default(),
            blocks_done: a.blocks_done,
            blocks_total: a.info.as_ref().map(|i| i.num_blocks()).unwrap_or(0),
            sim_ns: self.q.now() as f64 / 1000.0,
            l1_requests: self.c.l1_requests,
        }
    }

    /// Make launch `info` of application `a` current: occupancy, CODA placement analysis,
    /// scheduler, first blocks.
    fn start_launch(
        &mut self,
        a: usize,
        w: &mut dyn Workload,
        info: KernelInfo,
    ) -> Result<(), SimError> {
        let t = Instant::now();
        self.read_only_bits(a, w);
        self.host_functional += t.elapsed();
        self.rep.kernel_start();
        // MDR's epochs run from the kernel's start (A7); other timers keep their phase
        self.restart_timer(super::TimerOwner::Replication);
        if let Some(n) = &mut self.ndp {
            n.launch(&info.name);
        }
        // the placements of this launch, and the shared memory its staged objects add to
        // each block (`staging.rs`)
        self.spaces_launch(a);
        self.spaces_probe_staged(a, w, &info)?;
        let staged = self.staged_smem_bytes(a);
        let mut occ = info.clone();
        occ.smem_per_block = (u64::from(info.smem_per_block) + staged).min(u32::MAX as u64) as u32;
        if staged > 0 && u64::from(occ.smem_per_block) > self.cfg.spaces.shared_bytes_per_block {
            return Err(SimError::Config(format!(
                "kernel {}: the objects placed in shared memory ({staged} B) and the kernel's own {} B exceed the {} B a block may hold (spaces.shared_bytes_per_block); place fewer objects in shared",
                info.name, info.smem_per_block, self.cfg.spaces.shared_bytes_per_block
            )));
        }
        let bps = self.blocks_per_sm(&occ);
        if bps == 0 {
            return Err(SimError::Config(format!(
                "kernel {} (block {}x{}x{}, {} regs/thread, {} B shared{}) does not fit on one SM (sm.max_threads {}, sm.registers {}, sm.smem_bytes {}, sm.max_warps {})",
                info.name, info.block.x, info.block.y, info.block.z, info.regs_per_thread, occ.smem_per_block,
                if staged > 0 { format!(", {staged} B of it staged objects") } else { String::new() },
                self.cfg.sm.max_threads, self.cfg.sm.registers, self.cfg.sm.smem_bytes, self.cfg.sm.max_warps
            )));
        }
        // Eq. 1's N_blocks_per_GPU for CODA's analysis: the largest node's (every node's
        // on a machine of identical nodes)
        let spn = self.sms_per_node().into_iter().max().unwrap_or(0);
        let mut nbpg = bps as u64 * spn as u64;
        if self.cfg.scheduling.affinity_balanced {
            // balanced variant (beyond the paper): no GPU idles for lack of blocks
            let nodes = self.apps[a].layout.nodes().max(1) as u64;
            nbpg = nbpg.min(info.num_blocks().div_ceil(nodes).max(1));
        }
        if self.cfg.placement.policy == PlacementPolicy::Coda {
            let objs = self.objects.clone();
            let undecided: Vec<bool> = (0..objs.len())
                .map(|o| self.placement.decision(o as u16).is_none())
                .collect();
            if undecided.iter().any(|&u| u) {
                let t = Instant::now();
                let ds = coda::analyze(
                    w,
                    &info,
                    &objs,
                    &undecided,
                    nbpg,
                    self.cfg.system.page_bytes,
                    self.cfg.system.line_bytes,
                    &self.cfg.placement,
                )?;
                self.host_functional += t.elapsed();
                for d in ds {
                    self.placement.decide(d.obj, d.placement);
                    self.decisions.push(d);
                }
            }
        }
        let app = &mut self.apps[a];
        app.sched = Some(BlockScheduler::new(
            &self.cfg.scheduling,
            info.num_blocks(),
            &app.layout,
            bps,
        ));
        app.start = self.q.now();
        app.before = self.c;
        app.bps = bps;
        let app = &mut self.apps[a];
        app.blocks_done = 0;
        app.index += 1;
        app.info = Some(info);
        let (first, count) = (app.first_sm, app.sms);
        for f in &mut self.free_slots[first..first + count] {
            *f = bps;
        }
        let now = self.q.now();
        match self.cfg.system.kernel_launch_ns {
            0 => {
                self.apps[a].next_dispatch = now;
                self.fill_app(a, w)?
            }
            ns => {
                // the launch's fixed cost: the first blocks dispatch when it has passed
                let at = now + ns as u64 * 1000;
                self.apps[a].next_dispatch = at;
                self.apps[a].dispatch_pending = true;
                self.q.push(at, Ev::Launch(a as u32));
            }
        }
        Ok(())
    }

    /// The read-only bits of application `a`'s launch now starting, before any block runs
    /// (issue 7 §4): from the objects the workload says the launch may write.
    fn read_only_bits(&mut self, a: usize, w: &mut dyn Workload) {
        let writes = w.launch_writes(self.read_only_probe).map(|mut v| {
            v.sort_unstable();
            v
        });
        for o in 0..self.obj_may_write.len() {
            if self.obj_app.get(o).copied().unwrap_or(0) as usize == a {
                self.obj_may_write[o] = match &writes {
                    Some(ws) => ws.binary_search(&(o as locus_workload::ObjId)).is_ok(),
                    None => true,
                };
            }
        }
        self.apps[a].may_write = writes.map(|_| {
            (0..self.objects.len())
                .filter(|&o| {
                    self.obj_app.get(o).copied().unwrap_or(0) as usize == a
                        && !self.object_read_only_in_kernel(o as locus_workload::ObjId)
                })
                .map(|o| self.objects[o].name.clone())
                .collect()
        });
    }

    /// Record the statistics of application `a`'s current launch.
    fn finish_launch(&mut self, a: usize) {
        // CODA's objects this kernel touched first without deciding them (coda.md A11)
        for o in self.placement.take_unsampled() {
            self.decisions.push(unsampled(o));
        }
        let app = &mut self.apps[a];
        let Some(info) = app.info.take() else { return };
        app.sched = None;
        let end = self.stopped_at.unwrap_or(self.q.now()).max(app.start);
        let diff = self.c.since(&app.before);
        let name = if self.apps.len() > 1 {
            format!("{}:{}", self.app_names[a], info.name)
        } else {
            info.name.clone()
        };
        let mut written_objects = Vec::new();
        for (o, w) in self.obj_written.iter_mut().enumerate() {
            if *w && self.obj_app.get(o).copied().unwrap_or(0) as usize == a {
                *w = false;
                written_objects.push(self.objects[o].name.clone());
                if !self.obj_may_write[o] {
                    self.ro_violations.push(format!(
                        "kernel {name} wrote object {}, which it declared read-only before it ran (Kernel::writes / Workload::launch_writes must name every object a kernel may write)",
                        self.objects[o].name
                    ));
                }
            }
        }
        let may_write_objects = self.apps[a].may_write.take();
        let spaces = self.spaces_finish(a, diff.warp_insts);
        let place_not_applied = self.spaces_not_applied(a);
        let app = &self.apps[a];
        self.kernels.push(KernelStats {
            index: app.index - 1,
            name,
            grid: [info.grid.x, info.grid.y, info.grid.z],
            block: [info.block.x, info.block.y, info.block.z],
            blocks_per_sm: app.bps,
            start_ns: app.start as f64 / 1000.0,
            summary: Summary::new(&diff, end - app.start, self.clk.period),
            written_objects,
            may_write_objects,
            spaces,
            place_not_applied,
        });
    }

    /// Begin the next launch of co-running application `a`, or mark it finished.
    fn next_app_launch(&mut self, a: usize, w: &mut dyn Workload) -> Result<(), SimError> {
        let max = self.cfg.run.max_kernels;
        let next = if (max == 0 || self.apps[a].index < max) && self.stopped_at.is_none() {
            let t = Instant::now();
            let launch = w.begin_launch()?;
            self.host_functional += t.elapsed();
            launch
        } else {
            None
        };
        match next {
            Some(info) => self.start_launch(a, w, info),
            None => {
                self.apps[a].finish = self.q.now();
                self.apps[a].done = true;
                Ok(())
            }
        }
    }

    /// Run one launch of the single application to completion (all blocks done, all
    /// requests drained, boundary actions applied).
    fn run_launch(
        &mut self,
        w: &mut dyn Workload,
        info: KernelInfo,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), SimError> {
        let total = info.num_blocks();
        let name = info.name.clone();
        self.start_launch(0, w, info)?;
        let mut ws = [w];
        self.event_loop(&mut ws, progress)?;
        let stopped = self.stopped_at.is_some();
        if !stopped && (self.apps[0].blocks_done != total || self.apps[0].live_blocks != 0) {
            return Err(SimError::Config(format!(
                "kernel {name} stalled: {} of {total} blocks finished (a warp waits forever: check the workload's barriers)",
                self.apps[0].blocks_done
            )));
        }
        self.kernel_boundary();
        self.event_loop(&mut ws, progress)?;
        self.finish_launch(0);
        progress(&self.progress());
        Ok(())
    }

    fn set_objects(&mut self, objs: Vec<locus_workload::DataObject>) {
        self.objects = objs;
        self.objects.sort_by_key(|o| o.base);
        self.placement.set_objects(&self.objects);
        self.obj = vec![ObjCounters::default(); self.objects.len()];
        self.obj_written = vec![false; self.objects.len()];
        self.obj_may_write = vec![true; self.objects.len()];
        self.obj_app = vec![0; self.objects.len()];
        self.rep.fills_by_obj = vec![0; self.objects.len()];
    }

    fn check_end(&self) -> Result<(), SimError> {
        if self.ran_dry.get() {
            return Err(SimError::GenLimit(self.cfg.run.gen_limit));
        }
        if let Some(v) = self.ro_violations.first() {
            // a wrong declaration is a bug of the workload model
            return Err(SimError::Workload(WorkloadError::Msg(format!(
                "{v} ({} such write(s) in all)",
                self.ro_violations.len()
            ))));
        }
        if self.live_reqs != 0 {
            return Err(SimError::Config(format!(
                "internal: {} requests never completed",
                self.live_reqs
            )));
        }
        if self.placement.stats.pages_oom > 0 {
            return Err(SimError::Config(format!(
                "the workload needs more physical memory than memory.bytes_per_node x nodes provides ({} pages unmapped); raise memory.bytes_per_node",
                self.placement.stats.pages_oom
            )));
        }
        Ok(())
    }

    fn report(&self, name: &str, mut warnings: Vec<String>, t_host: Instant) -> Report {
        let secs = t_host.elapsed().as_secs_f64().max(1e-9);
        warnings.extend(self.place_warnings());
        let sim = self.sim_stats(warnings);
        let host = HostStats {
            seconds: secs,
            l1_requests_per_sec: self.c.l1_requests as f64 / secs,
            warp_insts_per_sec: self.c.warp_insts as f64 / secs,
            events_per_sec: self.q.popped() as f64 / secs,
            peak_rss_mb: crate::stats::peak_rss_mb(),
            input_seconds: 0.0,
            functional_seconds: self.host_functional.as_secs_f64(),
            timing_seconds: (secs - self.host_functional.as_secs_f64()).max(0.0),
            gen_reruns: 0,
        };
        Report {
            schema_version: SCHEMA_VERSION,
            preset: self.cfg.system.name.clone(),
            workload: name.to_string(),
            config: self.cfg.clone(),
            sim,
            host: Some(host),
        }
    }

    /// Run workload `w` on the whole machine to completion and build the report.
    pub fn run(
        &mut self,
        w: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Report, SimError> {
        let t_host = Instant::now();
        self.set_objects(w.objects().to_vec());
        self.spaces_objects()?;
        self.apps = vec![App::new(0, Layout::new(&self.sms_per_node()))];
        self.app_names = vec![w.name().to_string()];
        let max = self.cfg.run.max_kernels;
        while (max == 0 || self.apps[0].index < max) && self.stopped_at.is_none() {
            let t = Instant::now();
            let launch = w.begin_launch()?;
            self.host_functional += t.elapsed();
            let Some(info) = launch else { break };
            self.run_launch(w, info, progress)?;
        }
        self.apps[0].finish = self.q.now();
        self.check_end()?;
        Ok(self.report(w.name(), w.warnings(), t_host))
    }

    /// Run several applications at once, application `i` alone on node `i` (CODA Fig. 13's
    /// multiprogrammed mixes). Each application moves from kernel to kernel on its own; the
    /// report's `apps` section gives each one's finishing time. A single application runs
    /// alone on node 0 (the other nodes idle; its pages may still live anywhere).
    pub fn run_multi(
        &mut self,
        ws: &mut [&mut dyn Workload],
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Report, SimError> {
        let t_host = Instant::now();
        let n = self.cfg.system.nodes as usize;
        if ws.is_empty() || ws.len() > n.min(u8::MAX as usize) {
            return Err(SimError::Config(format!(
                "{} applications for {n} nodes: give 1 to {}",
                ws.len(),
                n.min(u8::MAX as usize)
            )));
        }
        let mut objs = Vec::new();
        let mut owner = Vec::new();
        for (a, w) in ws.iter().enumerate() {
            objs.extend_from_slice(w.objects());
            owner.extend(std::iter::repeat_n(a as u8, w.objects().len()));
        }
        self.set_objects(objs);
        self.spaces_objects()?;
        self.obj_app = owner;
        // application i runs on the i-th node with SMs (node i when every node has SMs)
        let hosts: Vec<u32> = (0..n as u32)
            .filter(|&g| !self.node_sms(g).is_empty())
            .collect();
        if ws.len() > hosts.len() {
            return Err(SimError::Config(format!(
                "{} applications for {} nodes with SMs (system.node_kinds): give 1 to {}",
                ws.len(),
                hosts.len(),
                hosts.len()
            )));
        }
        self.apps = hosts[..ws.len()]
            .iter()
            .map(|&g| {
                let r = self.node_sms(g);
                App::new(r.start, Layout::new(&[r.len() as u32]))
            })
            .collect();
        self.app_names = ws.iter().map(|w| w.name().to_string()).collect();
        for (i, sm) in self.sms.iter().enumerate() {
            let host = hosts.partition_point(|&g| g < sm.node);
            self.app_of_sm[i] = host.min(ws.len().saturating_sub(1)) as u8;
        }
        for (a, w) in ws.iter_mut().enumerate() {
            self.next_app_launch(a, &mut **w)?;
        }
        self.event_loop(ws, progress)?;
        // One application alone (`--apps bfs`): it owns node 0's SMs, the other nodes stay
        // idle. `app_block_done` moves an application on only when several share the
        // machine (a single workload's launches are driven by `run`), so here each launch
        // of the lone application drains, then the next one starts.
        while ws.len() == 1
            && self.stopped_at.is_none()
            && !self.apps[0].done
            && self.apps[0].live_blocks == 0
            && self.apps[0]
                .sched
                .as_ref()
                .is_some_and(|s| s.remaining() == 0)
        {
            self.finish_launch(0);
            let (first, count) = (self.apps[0].first_sm, self.apps[0].sms);
            for sm in &mut self.sms[first..first + count] {
                sm.l1.clear();
            }
            self.next_app_launch(0, &mut *ws[0])?;
            self.event_loop(ws, progress)?;
        }
        if self.stopped_at.is_some() {
            // a run limit: the launches in progress end at the stop, partial
            for a in 0..self.apps.len() {
                self.finish_launch(a);
            }
        }
        for (a, app) in self.apps.iter().enumerate() {
            if !app.done && self.stopped_at.is_none() {
                return Err(SimError::Config(format!(
                    "application {} stalled before finishing",
                    self.app_names[a]
                )));
            }
        }
        self.kernel_boundary();
        self.event_loop(ws, progress)?;
        self.check_end()?;
        let warnings = ws.iter().flat_map(|w| w.warnings()).collect();
        let name = self.app_names.join("+");
        Ok(self.report(&name, warnings, t_host))
    }

    /// The directory's own figures, summed over the homes.
    fn directory_stats(&self) -> Option<crate::stats::DirectoryStats> {
        if self.dirs.is_empty() {
            return None;
        }
        let entries = self.dirs.iter().map(|d| d.entries()).sum();
        let cap = self
            .dirs
            .iter()
            .map(|d| d.capacity())
            .fold(0u64, u64::saturating_add);
        let capacity = if cap == u64::MAX { 0 } else { cap };
        let mut hist: Vec<u64> = Vec::new();
        for d in &self.dirs {
            let h = d.coalesced();
            if hist.len() < h.len() {
                hist.resize(h.len(), 0);
            }
            for (a, b) in hist.iter_mut().zip(h) {
                *a += b;
            }
        }
        let n: u64 = hist.iter().sum();
        let lines: u64 = hist.iter().enumerate().map(|(i, c)| i as u64 * c).sum();
        let mut live: Vec<u64> = Vec::new();
        for d in &self.dirs {
            let h = d.live_coalesced();
            if live.len() < h.len() {
                live.resize(h.len(), 0);
            }
            for (a, b) in live.iter_mut().zip(&h) {
                *a += b;
            }
        }
        let live_n: u64 = live.iter().sum();
        let live_lines: u64 = live.iter().enumerate().map(|(i, c)| i as u64 * c).sum();
        Some(crate::stats::DirectoryStats {
            kind: self.cfg.directory.kind.name().to_string(),
            entries,
            capacity,
            occupancy: if capacity == 0 {
                0.0
            } else {
                entries as f64 / capacity as f64
            },
            evictions: self.dirs.iter().map(|d| d.evictions()).sum(),
            coalesced_histogram: hist,
            coalesced_mean: if n == 0 { 0.0 } else { lines as f64 / n as f64 },
            remote_lines_touched: self.dirs.iter().map(|d| d.touched()).sum(),
            remote_lines_touched_max_home: self.dirs.iter().map(|d| d.touched()).max().unwrap_or(0),
            live_coalesced_histogram: live,
            live_coalesced_mean: if live_n == 0 {
                0.0
            } else {
                live_lines as f64 / live_n as f64
            },
        })
    }

    /// The coherence section: present when a directory or the checker is on.
    fn coherence_stats(&self) -> Option<crate::stats::CoherenceStats> {
        if self.dirs.is_empty() && self.chk.is_none() {
            return None;
        }
        let k = &self.coh;
        let end = self.stopped_at.unwrap_or(self.q.now()).max(1);
        Some(crate::stats::CoherenceStats {
            protocol: format!("{:?}", self.cfg.coherence.protocol).to_lowercase(),
            invalidations_sent: k.inv_sent,
            invalidations_received: k.inv_received,
            invalidation_hits: k.inv_hits,
            invalidation_hits_dirty: k.inv_hits_dirty,
            l1_invalidation_hits: k.l1_inv_hits,
            fills_dropped: k.fills_dropped,
            directory_entries: self.dirs.iter().map(|d| d.entries()).sum(),
            directory_evictions: self.dirs.iter().map(|d| d.evictions()).sum(),
            invalidations_by_cause: ["write", "false-positive", "eviction"]
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let c = crate::stats::InvalCause {
                        sent: k.inv_sent_by[i],
                        hits: k.inv_hits_by[i],
                    };
                    (n.to_string(), c)
                })
                .collect(),
            unnecessary_invalidations: k.inv_hits_by[Cause::Evict.index()]
                + k.inv_hits_by[Cause::FalsePositive.index()],
            invalidation_gbps: (k.inv_sent * self.cfg.coherence.inv_bytes as u64) as f64
                / (end as f64 / 1000.0),
            l2_misses: self.c.l2_misses,
            l2_cold_misses: k.l2_cold_misses,
            l2_misses_non_cold: self.c.l2_misses.saturating_sub(k.l2_cold_misses),
            l2_lookup_latency_ns: if k.l2_reads == 0 {
                0.0
            } else {
                k.l2_read_latency_ps as f64 / k.l2_reads as f64 / 1000.0
            },
            inter_node_transactions: crate::noc::Msg::ALL
                .iter()
                .map(|&m| {
                    let t = &self.net.transactions;
                    let st = crate::stats::MsgStat {
                        packets: t.packets[m as usize],
                        bytes: t.bytes[m as usize],
                    };
                    (m.name().to_string(), st)
                })
                .filter(|(_, st)| st.packets > 0)
                .collect(),
            inter_node_transactions_total: self.net.transactions.packets.iter().sum(),
            directory: self.directory_stats(),
            checker: self.chk.as_ref().map(|c| crate::stats::CheckerStats {
                checks: c.checks,
                violations: c.violations,
                examples: c.examples.clone(),
                writes_performed: c.writes_performed,
                surviving_writes: c.surviving_writes(),
                lost_writes: c.lost_writes,
                early_reads: c.early_reads,
            }),
        })
    }

    /// One warning per object whose texture or constant placement some launches did not
    /// apply (they may write it; `KernelStats::place_not_applied`), naming those kernels.
    fn place_warnings(&self) -> Vec<String> {
        let mut by_obj: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
        for k in &self.kernels {
            for o in &k.place_not_applied {
                let ks = by_obj.entry(o.as_str()).or_default();
                if !ks.contains(&k.name.as_str()) {
                    ks.push(&k.name);
                }
            }
        }
        by_obj
            .into_iter()
            .map(|(o, ks)| {
                let n = self
                    .kernels
                    .iter()
                    .filter(|k| k.place_not_applied.iter().any(|x| x == o))
                    .count();
                format!(
                    "place.{o}: not applied in {n} of {} launches (kernels {}), which may write `{o}`: texture and constant memory are read-only in a kernel, so their accesses to it stayed global",
                    self.kernels.len(),
                    ks.join(", ")
                )
            })
            .collect()
    }

    fn sim_stats(&self, warnings: Vec<String>) -> SimStats {
        let end = self.stopped_at.unwrap_or(self.q.now()).max(1);
        let total = Summary::new(&self.c, end, self.clk.period);
        let cpn = self.cfg.memory.channels_per_node as usize;
        let slpn = self.cfg.l2.slices_per_node as usize;
        let peak = locus_dram::peak_bandwidth_gbs(&self.cfg.dram);
        let dram_of = |chans: &[super::Chan]| -> DramStats {
            let mut d = DramStats::default();
            let (mut lat, mut latn, mut busy) = (0u64, 0u64, 0u64);
            for c in chans {
                let s = c.ch.stats();
                d.reads += s.reads;
                d.writes += s.writes;
                d.bytes += s.bytes_read + s.bytes_written;
                d.row_hits += s.row_hits;
                d.row_misses += s.row_misses;
                d.row_conflicts += s.row_conflicts;
                d.activates += s.activates;
                d.refreshes += s.refreshes;
                lat += s.read_latency_sum_ps;
                latn += s.read_latency_count;
                busy += s.bus_busy_ps;
            }
            let acc = d.row_hits + d.row_misses + d.row_conflicts;
            d.row_hit_rate = if acc == 0 {
                0.0
            } else {
                d.row_hits as f64 / acc as f64
            };
            d.bandwidth_gbs = d.bytes as f64 / end as f64 * 1000.0;
            d.peak_gbs = peak * chans.len() as f64;
            d.utilization = busy as f64 / (end as f64 * chans.len().max(1) as f64);
            d.mean_read_latency_ns = if latn == 0 {
                0.0
            } else {
                lat as f64 / latn as f64 / 1000.0
            };
            d
        };
        let hetero = !self.cfg.system.node_kinds.is_empty();
        let specs = self.cfg.node_specs();
        let nodes: Vec<NodeStats> = (0..self.cfg.system.nodes as usize)
            .map(|n| {
                let sms = &self.sms[self.node_sms(n as u32)];
                let sl = &self.slices[n * slpn..(n + 1) * slpn];
                let (h, m) = (
                    sl.iter().map(|s| s.hits).sum::<u64>(),
                    sl.iter().map(|s| s.misses).sum::<u64>(),
                );
                NodeStats {
                    node: n as u32,
                    blocks: sms.iter().map(|s| s.blocks_run).sum(),
                    warp_insts: sms.iter().map(|s| s.warp_insts).sum(),
                    l1_hits: sms.iter().map(|s| s.l1_hits).sum(),
                    l1_misses: sms.iter().map(|s| s.l1_misses).sum(),
                    l2_hits: h,
                    l2_misses: m,
                    l2_hit_rate: if h + m == 0 {
                        0.0
                    } else {
                        h as f64 / (h + m) as f64
                    },
                    dram: dram_of(&self.chans[n * cpn..(n + 1) * cpn]),
                    kind: hetero.then(|| specs[n].kind.clone().unwrap_or_default()),
                    sms: hetero.then_some(specs[n].sms),
                    sm_clock_ghz: hetero.then_some(specs[n].sm_clock_ghz),
                }
            })
            .collect();
        let all = dram_of(&self.chans);
        let links = self
            .net
            .ports
            .iter()
            .zip(&self.net.names)
            .zip(&self.net.msgs)
            .zip(&self.net.kinds)
            .map(|(((p, name), m), kind)| {
                let s = p.stats();
                let by_kind = crate::noc::Msg::ALL
                    .iter()
                    .filter(|k| m.packets[**k as usize] > 0)
                    .map(|k| {
                        (
                            k.name().to_string(),
                            crate::stats::MsgStat {
                                packets: m.packets[*k as usize],
                                bytes: m.bytes[*k as usize],
                            },
                        )
                    })
                    .collect();
                LinkStats {
                    name: name.clone(),
                    kind: kind.name().to_string(),
                    gbps: p.gbps(),
                    packets: s.packets,
                    bytes_sent: s.bytes_sent,
                    bytes_received: s.bytes_received,
                    // over the span the port's reservations cover: a run stopped by
                    // `run.max_warp_insts` leaves packets reserved past its end, whose
                    // serialisation `busy_ps` already holds (NUBA's links showed 104.7%)
                    utilization: s.busy_ps as f64 / end.max(p.next_free()) as f64,
                    mean_queue_ns: if s.packets == 0 {
                        0.0
                    } else {
                        s.queue_ps as f64 / s.packets as f64 / 1000.0
                    },
                    by_kind,
                }
            })
            .collect();
        let objects = self
            .objects
            .iter()
            .zip(&self.obj)
            .enumerate()
            .map(|(i, (o, c))| ObjectStats {
                name: o.name.clone(),
                bytes: o.bytes,
                l1_requests: c.l1_requests,
                local_accesses: c.local,
                remote_accesses: c.remote,
                remote_fraction: if c.local + c.remote == 0 {
                    0.0
                } else {
                    c.remote as f64 / (c.local + c.remote) as f64
                },
                placement: self.placement.decision(i as u16).map(|d| match d {
                    ObjPlacement::Fgp => "fgp".to_string(),
                    ObjPlacement::Cgp { span, .. } => format!("cgp span {span} B"),
                }),
            })
            .collect();
        SimStats {
            total,
            stopped_by_limit: self.stopped_at.is_some(),
            kernels: self.kernels.clone(),
            nodes,
            links,
            objects,
            placement: self.placement.snapshot(),
            coda_decisions: self
                .decisions
                .iter()
                .copied()
                .chain(self.placement.unsampled().iter().map(|&o| unsampled(o)))
                .collect(),
            dram_row_hit_rate: all.row_hit_rate,
            dram_bandwidth_gbs: all.bandwidth_gbs,
            apps: self
                .apps
                .iter()
                .zip(&self.app_names)
                .map(|(a, n)| crate::stats::AppStats {
                    name: n.clone(),
                    first_sm: a.first_sm,
                    sms: a.sms,
                    kernels: a.index,
                    finish_cycles: a.finish / self.clk.period,
                    finish_ns: a.finish as f64 / 1000.0,
                })
                .collect(),
            events: self.q.popped(),
            events_by_kind: super::Ev::NAMES
                .iter()
                .copied()
                .zip(self.ev_counts)
                .enumerate()
                .filter(|(i, (_, n))| *i < super::Ev::ALWAYS_LISTED || *n > 0)
                .map(|(_, kv)| kv)
                .collect(),
            coherence: self.coherence_stats(),
            replication: self.rep.on().then(|| {
                let names: Vec<String> = self.objects.iter().map(|o| o.name.clone()).collect();
                self.rep.snapshot(&names)
            }),
            warnings,
            energy: crate::energy::energy(
                &self.cfg.energy,
                &self.energy_counts(),
                end as f64 * 1e-12,
            ),
            timeline: self.timeline.clone(),
            page_sharing: self.sharers.as_ref().map(|p| p.stats()),
            ndp: self.ndp_stats(),
        }
    }

    /// The counts the energy model charges for, from this run's counters so far.
    pub fn energy_counts(&self) -> crate::energy::EnergyCounts {
        let mut link_bits = [0u64; 3];
        for (p, k) in self.net.ports.iter().zip(&self.net.kinds) {
            link_bits[*k as usize] += p.stats().bytes_sent * 8;
        }
        let (mut act, mut rd, mut wr) = (0u64, 0u64, 0u64);
        for c in &self.chans {
            let s = c.ch.stats();
            act += s.activates;
            rd += s.bytes_read * 8;
            wr += s.bytes_written * 8;
        }
        let mut insts = crate::energy::EnergyCounts::insts_from(&self.c);
        let (mut nsu_insts, mut nsus) = (0, 0);
        if let Some(n) = self.ndp.as_deref() {
            // `@NSU` ALU instructions the GPU issued as NOPs: issue energy only there,
            // their compute is the NSUs' (`inst nsu`)
            let (nops, ni, units) = n.energy_inputs();
            let other = crate::energy::InstEnergyClass::Other as usize;
            for (k, &x) in nops.iter().enumerate() {
                let x = x.min(insts[k]);
                insts[k] -= x;
                insts[other] += x;
            }
            (nsu_insts, nsus) = (ni, units);
        }
        crate::energy::EnergyCounts {
            link_bits,
            l1_accesses: if self.cfg.l1.enabled {
                self.c.l1_requests
            } else {
                0
            },
            l2_accesses: self.c.l2_accesses,
            dram_activates: act,
            dram_read_bits: rd,
            dram_write_bits: wr,
            insts,
            sms: self.sms.len() as u64,
            nodes: self.cfg.system.nodes as u64,
            dram_channels: self.chans.len() as u64,
            nsu_insts,
            nsus,
        }
    }
}

/// The decision [`crate::placement::Placement`] took for object `o` at its first touch: no
/// sampled block of the kernel that touched it first touched it (coda.md A11).
fn unsampled(o: locus_workload::ObjId) -> coda::Decision {
    coda::Decision {
        obj: o,
        placement: crate::placement::ObjPlacement::Fgp,
        reason: coda::Reason::NotSampled,
    }
}
