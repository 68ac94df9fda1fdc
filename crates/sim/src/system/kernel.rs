//! Running a workload: launch by launch, placement analysis (CODA), block scheduling, the
//! event loop, the kernel boundary, and the final report.

use super::{Ev, System};
use crate::config::PlacementPolicy;
use crate::error::SimError;
use crate::placement::{coda, ObjPlacement};
use crate::scheduling::BlockScheduler;
use crate::stats::{
    Counters, DramStats, HostStats, KernelStats, LinkStats, NodeStats, ObjCounters, ObjectStats,
    Report, SimStats, Summary, SCHEMA_VERSION,
};
use locus_engine::Ps;
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

    /// Give free SM slots their next blocks.
    pub(crate) fn fill_sms(&mut self, launch: &mut dyn Workload) -> Result<(), WorkloadError> {
        let Some(mut sched) = self.sched.take() else {
            return Ok(());
        };
        let mut buf = std::mem::take(&mut self.dispatch_buf);
        buf.clear();
        sched.dispatch(&mut self.free_slots, self.cfg.system.sms_per_node, &mut buf);
        self.sched = Some(sched);
        for &(b, sm) in &buf {
            self.dispatch_block(launch, b, sm)?;
        }
        self.dispatch_buf = buf;
        Ok(())
    }

    fn event_loop(
        &mut self,
        launch: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
        p: &mut Progress,
    ) -> Result<(), SimError> {
        let mut n: u64 = 0;
        while let Some((_, ev)) = self.q.pop() {
            self.ev_counts[ev.index()] += 1;
            match ev {
                Ev::SmTick(sm) => self.sm_tick(sm as usize, launch)?,
                Ev::L2Access(id) => self.l2_access(id),
                Ev::DramArrive(id) => self.dram_arrive(id),
                Ev::DramTick(c) => self.dram_tick_event(c as usize),
                Ev::DramDone(id) => self.dram_done(id),
                Ev::L2Fill(id) => self.l2_fill(id),
                Ev::L1Fill(id) => self.l1_fill(id),
                Ev::AtomicResp(id) => self.atomic_resp(id),
                Ev::WriteAck(id) => self.write_ack(id),
            }
            n += 1;
            if n & 0xFFFF == 0 {
                p.blocks_done = self.c.blocks;
                p.sim_ns = self.q.now() as f64 / 1000.0;
                p.l1_requests = self.c.l1_requests;
                progress(p);
            }
        }
        Ok(())
    }

    /// Run one launch to completion (all blocks done, all requests drained, boundary
    /// actions applied).
    fn run_launch(
        &mut self,
        launch: &mut dyn Workload,
        info: KernelInfo,
        index: u32,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), SimError> {
        let bps = self.blocks_per_sm(&info);
        if bps == 0 {
            return Err(SimError::Config(format!(
                "kernel {} (block {}x{}x{}, {} regs/thread, {} B shared) does not fit on one SM (sm.max_threads {}, sm.registers {}, sm.smem_bytes {}, sm.max_warps {})",
                info.name, info.block.x, info.block.y, info.block.z, info.regs_per_thread, info.smem_per_block,
                self.cfg.sm.max_threads, self.cfg.sm.registers, self.cfg.sm.smem_bytes, self.cfg.sm.max_warps
            )));
        }
        let spn = self.cfg.system.sms_per_node;
        let nbpg = bps as u64 * spn as u64;
        if self.cfg.placement.policy == PlacementPolicy::Coda {
            let objs = self.objects.clone();
            let undecided: Vec<bool> = (0..objs.len())
                .map(|o| self.placement.decision(o as u16).is_none())
                .collect();
            if undecided.iter().any(|&u| u) {
                let ds = coda::analyze(
                    launch,
                    &info,
                    &objs,
                    &undecided,
                    nbpg,
                    self.cfg.system.page_bytes,
                    self.cfg.system.line_bytes,
                    &self.cfg.placement,
                )?;
                for d in ds {
                    self.placement.decide(d.obj, d.placement);
                    self.decisions.push(d);
                }
            }
        }
        let start: Ps = self.q.now();
        let before: Counters = self.c;
        self.sched = Some(BlockScheduler::new(
            &self.cfg.scheduling,
            info.num_blocks(),
            self.cfg.system.nodes,
            spn,
            nbpg,
        ));
        for f in &mut self.free_slots {
            *f = bps;
        }
        let mut p = Progress {
            kernel: index,
            kernel_name: info.name.clone(),
            blocks_done: 0,
            blocks_total: info.num_blocks(),
            sim_ns: start as f64 / 1000.0,
            l1_requests: self.c.l1_requests,
        };
        let blocks_before = self.c.blocks;
        self.fill_sms(launch)?;
        self.event_loop(launch, progress, &mut p)?;
        let done = self.c.blocks - blocks_before;
        if done != info.num_blocks() || self.live_blocks != 0 {
            return Err(SimError::Config(format!(
                "kernel {} stalled: {done} of {} blocks finished (a warp waits forever: check the workload's barriers)",
                info.name,
                info.num_blocks()
            )));
        }
        self.kernel_boundary();
        self.event_loop(launch, progress, &mut p)?;
        self.sched = None;
        let end = self.q.now();
        let diff = self.c.since(&before);
        self.kernels.push(KernelStats {
            index,
            name: info.name.clone(),
            grid: [info.grid.x, info.grid.y, info.grid.z],
            block: [info.block.x, info.block.y, info.block.z],
            blocks_per_sm: bps,
            start_ns: start as f64 / 1000.0,
            summary: Summary::new(&diff, end - start, self.clk.period),
        });
        p.blocks_done = info.num_blocks();
        p.sim_ns = end as f64 / 1000.0;
        progress(&p);
        Ok(())
    }

    /// Run workload `w` to completion and build the report.
    pub fn run(
        &mut self,
        w: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Report, SimError> {
        let t_host = Instant::now();
        self.objects = w.objects().to_vec();
        self.objects.sort_by_key(|o| o.base);
        self.placement.set_objects(&self.objects);
        self.obj = vec![ObjCounters::default(); self.objects.len()];
        let mut index = 0u32;
        let max = self.cfg.run.max_kernels;
        while max == 0 || index < max {
            let Some(info) = w.begin_launch()? else { break };
            self.run_launch(w, info, index, progress)?;
            index += 1;
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
        let secs = t_host.elapsed().as_secs_f64().max(1e-9);
        let sim = self.sim_stats(w.warnings());
        let host = HostStats {
            seconds: secs,
            l1_requests_per_sec: self.c.l1_requests as f64 / secs,
            warp_insts_per_sec: self.c.warp_insts as f64 / secs,
            events_per_sec: self.q.popped() as f64 / secs,
            peak_rss_mb: crate::stats::peak_rss_mb(),
        };
        Ok(Report {
            schema_version: SCHEMA_VERSION,
            preset: self.cfg.system.name.clone(),
            workload: w.name().to_string(),
            config: self.cfg.clone(),
            sim,
            host: Some(host),
        })
    }

    fn sim_stats(&self, warnings: Vec<String>) -> SimStats {
        let end = self.q.now().max(1);
        let total = Summary::new(&self.c, end, self.clk.period);
        let spn = self.cfg.system.sms_per_node as usize;
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
        let nodes: Vec<NodeStats> = (0..self.cfg.system.nodes as usize)
            .map(|n| {
                let sms = &self.sms[n * spn..(n + 1) * spn];
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
                }
            })
            .collect();
        let all = dram_of(&self.chans);
        let links = self
            .net
            .ports
            .iter()
            .zip(&self.net.names)
            .map(|(p, name)| {
                let s = p.stats();
                LinkStats {
                    name: name.clone(),
                    gbps: p.gbps(),
                    packets: s.packets,
                    bytes_sent: s.bytes_sent,
                    bytes_received: s.bytes_received,
                    utilization: s.busy_ps as f64 / end as f64,
                    mean_queue_ns: if s.packets == 0 {
                        0.0
                    } else {
                        s.queue_ps as f64 / s.packets as f64 / 1000.0
                    },
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
            kernels: self.kernels.clone(),
            nodes,
            links,
            objects,
            placement: self.placement.snapshot(),
            coda_decisions: self.decisions.clone(),
            dram_row_hit_rate: all.row_hit_rate,
            dram_bandwidth_gbs: all.bandwidth_gbs,
            events: self.q.popped(),
            events_by_kind: super::Ev::NAMES
                .iter()
                .copied()
                .zip(self.ev_counts)
                .collect(),
            warnings,
        }
    }
}
