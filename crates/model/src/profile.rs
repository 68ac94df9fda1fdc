//! The model's input (spec §3.7): one [`Profile`] per kernel of a sample placement —
//! instruction counts by class, every warp-level memory access with its lane addresses in
//! one deterministic global order (the SASSI memory trace of §3.6 steps 1-2), the objects'
//! address ranges and sample placement, and what was measured on the sample (time, issued
//! instructions, the post-L2 DRAM trace with arrival times), filled from a simulator run.
//!
//! The access stream is produced functionally from the workload (every block is executed,
//! as `locus analyze mix` does) and merged into one order by the spec's interleaving \[D\]
//! (§3.7): blocks go to SMs round-robin in waves limited by occupancy; inside an SM warps
//! issue loose round-robin, one instruction each per round; SMs advance in lockstep. The
//! position in that stream is the access's `dyn_id`.

use crate::space::Place;
use locus_workload::{BlockProgram, InstClass, Space, Workload, REG_ALL};
use serde::{Deserialize, Serialize};

/// Object id meaning "no object" (an address outside every array).
pub const NO_OBJ: u16 = u16::MAX;

/// One array of the kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ObjInfo {
    /// Name (the workload's allocation name).
    pub name: String,
    /// Virtual base address (shared arrays: their byte offset in the block's shared memory,
    /// 0 for the undivided `__shared`; their accesses' offsets are block-relative).
    pub base: u64,
    /// Size in bytes (shared arrays: bytes per block).
    pub bytes: u64,
    /// Element size in bytes.
    pub elem_bytes: u32,
    /// Whether the kernel stores to it (then it may not go to T, 2T or C).
    pub written: bool,
    /// Its component in the sample placement: the one most of its accesses use (ties: the
    /// first seen). An object accessed in several components (SHOC md's positions: its own
    /// from global, the neighbours' through the texture) keeps each access's own
    /// ([`Access::place`]) while it stays in this component; moved, every access goes to the
    /// target.
    pub place: Place,
    /// Elements per row when seen as a 2-D array (2-D texture layout); 0 = square-ish.
    pub row_elems: u64,
    /// Warp-level accesses in the profiled kernel.
    pub accesses: u64,
}

/// Kind of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// A load.
    Load,
    /// A store.
    Store,
    /// An atomic / reduction.
    Atomic,
}

/// One warp-level memory instruction of the sample trace.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Access {
    /// Position of the instruction in the merged global order (§3.7).
    pub dyn_id: u64,
    /// SM the block ran on.
    pub sm: u16,
    /// Linear block id (over all launches of the kernel).
    pub block: u32,
    /// Object accessed ([`NO_OBJ`] if none).
    pub obj: u16,
    /// Load, store or atomic.
    pub kind: Kind,
    /// Component of the access in the sample.
    pub place: Place,
    /// First lane in [`Profile::lanes`].
    pub lane0: u32,
    /// Active lanes.
    pub nlanes: u8,
}

/// The address one active lane accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    /// Lane id (0..32).
    pub lane: u8,
    /// Bytes accessed.
    pub bytes: u16,
    /// Virtual address (shared: block-relative offset).
    pub addr: u64,
}

/// What the simulator measured for the sample placement (the nvprof counters of §3.7).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Kernel time in core cycles (all launches of the kernel).
    pub cycles: f64,
    /// Warp instructions issued (with replays).
    pub inst_issued: u64,
    /// Warp instructions executed (without replays).
    pub inst_executed: u64,
}

/// One launch of the profiled kernel: its own launch configuration (spec §3.7: grid,
/// block, `#total_warps`, `#active_SMs`, `N`) and where its accesses lie in the merged
/// trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchShape {
    /// Blocks recorded (fewer than `blocks_total` when the profile was capped in it).
    pub blocks: u64,
    /// Blocks of the launch.
    pub blocks_total: u64,
    /// Linear id of its first block ([`Access::block`]).
    pub block0: u64,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Shared memory per block (bytes).
    pub smem_per_block: u32,
    /// `#active_SMs` of the launch.
    pub active_sms: u32,
    /// `N` of the launch: resident warps per SM.
    pub warps_per_sm: u32,
    /// Resident blocks per SM by every limit but shared memory (0 in profiles written
    /// before session 33: `N` is then kept whatever the placement).
    #[serde(default)]
    pub bps_other: u32,
    /// Shared memory per SM (bytes) of the profiled machine.
    #[serde(default)]
    pub smem_per_sm: u32,
    /// Its first access in [`Profile::accesses`] and one past its last.
    pub accesses: (usize, usize),
    /// Its first `dyn_id` and one past its last.
    pub dyn_ids: (u64, u64),
    /// Its executed warp instructions by class.
    pub by_class: [u64; 9],
}

/// One kernel's sample profile (spec §3.7).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Workload name.
    pub workload: String,
    /// Kernel name.
    pub kernel: String,
    /// Launches of the kernel merged into this profile.
    pub launches: u64,
    /// Thread blocks over all launches.
    pub blocks: u64,
    /// Warps per block.
    pub warps_per_block: u32,
    /// `#total_warps` of Eq. 2.
    pub total_warps: u64,
    /// `#active_SMs` of Eq. 2.
    pub active_sms: u32,
    /// `N`: resident warps per SM (occupancy, capped by the blocks there are).
    pub warps_per_sm: u32,
    /// Shared memory per block (bytes) in the sample.
    pub smem_per_block: u32,
    /// Executed warp instructions by class (`InstClass::ALL` order).
    pub by_class: [u64; 9],
    /// `ILP` of \[7\]: independent instructions per warp (1: the workload models chain their
    /// compute instructions).
    pub ilp: f64,
    /// `MLP` of \[7\]: mean loads a warp issues before the first use of one (§3.3.1 \[D\]).
    pub mlp: f64,
    /// The arrays (and one pseudo-array for the block's shared memory, if used).
    pub objects: Vec<ObjInfo>,
    /// Every warp-level memory access, in `dyn_id` order.
    pub accesses: Vec<Access>,
    /// Lane addresses of the accesses.
    pub lanes: Vec<Lane>,
    /// Total dynamic warp instructions in the merged order.
    pub dyn_insts: u64,
    /// The sample's measurement, if a simulation was run.
    pub measured: Option<Measured>,
    /// Blocks of the kernel over all launches; larger than [`Profile::blocks`] when the
    /// profile was capped ([`CollectOpts::max_accesses`]): predictions then scale by
    /// `blocks_total / blocks` (the recorded waves stand for the rest).
    pub blocks_total: u64,
    /// The recorded launches, each with its own configuration (empty in profiles
    /// written before issue 12).
    #[serde(default)]
    pub launch_shapes: Vec<LaunchShape>,
}

/// Options of [`collect`]: the machine shape the interleaving follows.
#[derive(Clone, Debug)]
pub struct CollectOpts {
    /// Kernel to profile (`None`: the first launched).
    pub kernel: Option<String>,
    /// Launches of the program to run at most.
    pub max_launches: usize,
    /// SMs (`#active_SMs` upper bound).
    pub sms: u32,
    /// Resident warps per SM at most.
    pub max_warps_per_sm: u32,
    /// Resident blocks per SM at most.
    pub max_blocks_per_sm: u32,
    /// Resident threads, 32-bit registers and shared memory (bytes) per SM at most (the
    /// occupancy calculator's other limits, as the simulator applies them).
    pub max_threads_per_sm: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// Shared memory per SM (bytes).
    pub smem_per_sm: u32,
    /// Line size for coalescing (does not change lane addresses).
    pub line_bytes: u32,
    /// Rows of 2-D arrays by object name (elements per row), for the 2-D texture layout.
    pub row_elems: Vec<(String, u64)>,
    /// Stop recording (at a wave boundary) once this many warp-level accesses are
    /// recorded; later blocks still run functionally. Bounds memory (16 B per lane).
    pub max_accesses: usize,
}

impl Default for CollectOpts {
    fn default() -> Self {
        CollectOpts {
            kernel: None,
            max_launches: 1 << 20,
            sms: 13,
            max_warps_per_sm: 64,
            max_blocks_per_sm: 16,
            max_threads_per_sm: 2048,
            registers_per_sm: 131072,
            smem_per_sm: 114688,
            line_bytes: 128,
            row_elems: Vec::new(),
            max_accesses: 1 << 18,
        }
    }
}

impl Profile {
    /// `N` (resident warps per SM) with each block's shared memory changed by `delta`
    /// bytes, as a placement moving arrays into (+) or out of (-) shared memory changes it
    /// (§7 #18 \[D\]: the occupancy calculator again, the simulator's): per launch, the
    /// blocks that fit by every other limit and by the shared memory, capped by the
    /// blocks each SM gets; the largest over the launches, as [`Profile::warps_per_sm`].
    /// `delta` 0, or a profile without the limits (written before session 33), gives
    /// [`Profile::warps_per_sm`].
    pub fn warps_per_sm_with(&self, delta: i64) -> u32 {
        if delta == 0
            || self.launch_shapes.is_empty()
            || self.launch_shapes.iter().any(|l| l.bps_other == 0)
        {
            return self.warps_per_sm;
        }
        self.launch_shapes
            .iter()
            .map(|l| {
                let smem = (i64::from(l.smem_per_block) + delta).max(0) as u64;
                let by_smem = u64::from(l.smem_per_sm)
                    .checked_div(smem)
                    .unwrap_or(u64::MAX);
                let bps = u64::from(l.bps_other).min(by_smem).max(1);
                let per_sm = l.blocks_total.div_ceil(u64::from(l.active_sms.max(1)));
                (per_sm.min(bps) * u64::from(l.warps_per_block)) as u32
            })
            .max()
            .unwrap_or(self.warps_per_sm)
    }

    /// Per object: the bytes the accesses of one recorded block span (first byte to one
    /// past the last), the largest over the blocks and their sum over the blocks that
    /// access it. What a block copies into shared memory under the named reading
    /// `block-range` ([`crate::memsim::MemCfg::shared_block_range`]).
    pub fn block_spans(&self) -> Vec<(u64, u64)> {
        let mut by: std::collections::HashMap<(u16, u32), (u64, u64)> =
            std::collections::HashMap::new();
        for a in &self.accesses {
            if a.obj == NO_OBJ {
                continue;
            }
            let r = by.entry((a.obj, a.block)).or_insert((u64::MAX, 0));
            for l in self.lanes_of(a) {
                r.0 = r.0.min(l.addr);
                r.1 = r.1.max(l.addr + u64::from(l.bytes.max(1)));
            }
        }
        let mut out = vec![(0u64, 0u64); self.objects.len()];
        for ((o, _), (lo, hi)) in by {
            if let Some(s) = out.get_mut(o as usize) {
                if hi > lo {
                    s.0 = s.0.max(hi - lo);
                    s.1 += hi - lo;
                }
            }
        }
        out
    }

    /// Lanes of access `a`.
    pub fn lanes_of(&self, a: &Access) -> &[Lane] {
        &self.lanes[a.lane0 as usize..a.lane0 as usize + a.nlanes as usize]
    }
    /// How many times the recorded blocks stand for the kernel (>= 1).
    pub fn scale(&self) -> f64 {
        if self.blocks == 0 {
            1.0
        } else {
            (self.blocks_total.max(self.blocks) as f64 / self.blocks as f64).max(1.0)
        }
    }
    /// Executed warp instructions.
    pub fn inst_executed(&self) -> u64 {
        self.by_class.iter().sum()
    }
    /// Executed warp instructions of `class`.
    pub fn count(&self, class: InstClass) -> u64 {
        self.by_class[class as usize]
    }
    /// The sample placement: every object's component.
    pub fn sample_placement(&self) -> Vec<Place> {
        self.objects.iter().map(|o| o.place).collect()
    }
    /// The profile of each recorded launch on its own (spec §3.7: the model's inputs are
    /// one launch configuration, so a kernel launched several times with different
    /// grids is predicted launch by launch): its accesses (`dyn_id` and block ids
    /// rebased to the launch), instruction counts and configuration; the objects as in
    /// the whole profile. The sample's measurement is apportioned by executed
    /// instructions (the simulator's time is per kernel; \[D\]): every launch keeps the
    /// kernel's issue rate and replay share. Empty with fewer than two launches.
    pub fn split_launches(&self) -> Vec<Profile> {
        if self.launch_shapes.len() < 2 {
            return Vec::new();
        }
        let exec_all = self.inst_executed().max(1) as f64;
        self.launch_shapes
            .iter()
            .map(|ls| {
                let (a0, a1) = ls.accesses;
                let mut lanes = Vec::new();
                let accesses: Vec<Access> = self.accesses[a0..a1]
                    .iter()
                    .map(|a| {
                        let lane0 = lanes.len() as u32;
                        lanes.extend_from_slice(self.lanes_of(a));
                        Access {
                            dyn_id: a.dyn_id - ls.dyn_ids.0,
                            block: (u64::from(a.block) - ls.block0) as u32,
                            lane0,
                            ..*a
                        }
                    })
                    .collect();
                let mut objects = self.objects.clone();
                for o in &mut objects {
                    o.accesses = 0;
                }
                for a in &accesses {
                    if let Some(o) = objects.get_mut(a.obj as usize) {
                        o.accesses += 1;
                    }
                }
                let exec: u64 = ls.by_class.iter().sum();
                let share = exec as f64 / exec_all;
                let measured = self.measured.as_ref().map(|m| {
                    let rep = m.inst_issued.saturating_sub(m.inst_executed) as f64 * share;
                    Measured {
                        cycles: m.cycles * share,
                        inst_issued: exec + rep.round() as u64,
                        inst_executed: exec,
                    }
                });
                Profile {
                    workload: self.workload.clone(),
                    kernel: self.kernel.clone(),
                    launches: 1,
                    blocks: ls.blocks,
                    warps_per_block: ls.warps_per_block,
                    total_warps: ls.blocks * u64::from(ls.warps_per_block),
                    active_sms: ls.active_sms,
                    warps_per_sm: ls.warps_per_sm,
                    smem_per_block: ls.smem_per_block,
                    by_class: ls.by_class,
                    ilp: self.ilp,
                    mlp: self.mlp,
                    objects,
                    accesses,
                    lanes,
                    dyn_insts: ls.dyn_ids.1 - ls.dyn_ids.0,
                    measured,
                    blocks_total: ls.blocks_total,
                    launch_shapes: vec![LaunchShape {
                        block0: 0,
                        accesses: (0, a1 - a0),
                        dyn_ids: (0, ls.dyn_ids.1 - ls.dyn_ids.0),
                        ..ls.clone()
                    }],
                }
            })
            .collect()
    }
    /// Index of the object called `name`.
    pub fn object(&self, name: &str) -> Option<usize> {
        self.objects.iter().position(|o| o.name == name)
    }
}

/// Runs `w` functionally (every block of every launch, in order, so later launches see
/// earlier results) and records the accesses of the launches of one kernel in the merged
/// global order of §3.7.
pub fn collect(w: &mut dyn Workload, opts: &CollectOpts) -> Result<Profile, String> {
    let objs = w.objects().to_vec();
    let mut p = Profile {
        workload: w.name().to_string(),
        ilp: 1.0,
        ..Profile::default()
    };
    p.objects = objs
        .iter()
        .map(|o| ObjInfo {
            name: o.name.clone(),
            base: o.base,
            bytes: o.bytes,
            elem_bytes: o.elem_bytes.max(1),
            written: false,
            place: Place::Global,
            row_elems: opts
                .row_elems
                .iter()
                .find(|(n, _)| *n == o.name)
                .map_or(0, |r| r.1),
            accesses: 0,
        })
        .collect();
    let shared_obj = p.objects.len() as u16;
    let mut shared_used = false;
    // the kernel's named shared arrays (`Workload::launch_shared_arrays`): while profiling,
    // the k-th is object `shared_obj + 1 + k` and an access outside every one is
    // `shared_obj` (`__shared`, the undivided scratch area); renumbered at the end
    let mut shared_arrays: Vec<locus_workload::SharedArray> = Vec::new();
    let mut shared_named_used: Vec<bool> = Vec::new();
    // per object: its warp-level accesses in each component (Place::ALL's order) and the
    // order in which the components were first seen (ties go to the first seen)
    let mut place_count = vec![[0u64; 5]; p.objects.len()];
    let mut place_first = vec![[u64::MAX; 5]; p.objects.len()];
    let mut progs: Vec<BlockProgram> = Vec::new();
    let (mut mlp_sum, mut mlp_n) = (0u64, 0u64);
    let mut pending: Vec<u16> = Vec::with_capacity(64);
    let mut block_base = 0u64;
    let mut kernel: Option<String> = opts.kernel.clone();
    for _ in 0..opts.max_launches {
        let Some(info) = w.begin_launch().map_err(|e| e.to_string())? else {
            break;
        };
        if kernel.is_none() {
            kernel = Some(info.name.clone());
        }
        let nb = info.num_blocks();
        if kernel.as_deref() != Some(info.name.as_str()) {
            let mut bp = BlockProgram::default();
            for b in 0..nb {
                w.gen_block(b, false, opts.line_bytes, &mut bp)
                    .map_err(|e| e.to_string())?;
            }
            continue;
        }
        p.launches += 1;
        p.blocks_total += nb;
        for a in w.launch_shared_arrays() {
            if !shared_arrays.iter().any(|b| b.name == a.name) {
                shared_arrays.push(a);
                shared_named_used.push(false);
            }
        }
        if p.accesses.len() >= opts.max_accesses {
            let mut bp = BlockProgram::default();
            for b in 0..nb {
                w.gen_block(b, false, opts.line_bytes, &mut bp)
                    .map_err(|e| e.to_string())?;
            }
            continue;
        }
        p.blocks += nb;
        let (acc0, dyn0, class0, blocks0) = (p.accesses.len(), p.dyn_insts, p.by_class, p.blocks);
        let wpb = info.warps_per_block();
        p.warps_per_block = wpb;
        p.smem_per_block = info.smem_per_block;
        p.total_warps += nb * u64::from(wpb);
        // the occupancy calculator (blocks, threads, warps, registers and shared memory),
        // as the simulator applies it; the limit without shared memory is kept so a
        // placement that changes the block's shared memory recomputes `N` (§7 #18)
        let occ = |smem: u32| {
            let mut k = info.clone();
            k.smem_per_block = smem;
            locus_workload::sharing::occupancy(
                &k,
                opts.max_blocks_per_sm,
                opts.max_threads_per_sm,
                opts.registers_per_sm,
                opts.smem_per_sm,
            )
            .min(opts.max_warps_per_sm / wpb.max(1))
            .max(1)
        };
        let bps = occ(info.smem_per_block);
        let bps_other = occ(0);
        let wave = u64::from(opts.sms) * u64::from(bps);
        p.active_sms = p.active_sms.max(nb.min(u64::from(opts.sms)) as u32);
        let resident = (nb.div_ceil(u64::from(opts.sms))).min(u64::from(bps)) as u32;
        p.warps_per_sm = p.warps_per_sm.max(resident * wpb);
        let mut first = 0u64;
        while first < nb {
            let n = (nb - first).min(wave) as usize;
            if progs.len() < n {
                progs.resize_with(n, BlockProgram::default);
            }
            for (i, bp) in progs.iter_mut().take(n).enumerate() {
                bp.record_lanes = true;
                w.gen_block(first + i as u64, false, opts.line_bytes, bp)
                    .map_err(|e| e.to_string())?;
                // MLP per warp: loads issued before the first use of one (§3.3.1 [D])
                for wp in &bp.warps {
                    pending.clear();
                    for inst in &wp.insts {
                        if inst.class != InstClass::Load
                            && !pending.is_empty()
                            && inst
                                .srcs
                                .iter()
                                .any(|&s| s != 0 && (s == REG_ALL || pending.contains(&s)))
                        {
                            mlp_sum += pending.len() as u64;
                            mlp_n += 1;
                            pending.clear();
                        }
                        if inst.class == InstClass::Load {
                            pending.push(inst.dst);
                        }
                    }
                }
            }
            // lockstep SMs, loose round-robin warps, one instruction per warp per round
            let mut round = 0usize;
            loop {
                let mut any = false;
                for sm in 0..opts.sms as usize {
                    let mut bi = sm;
                    while bi < n {
                        let bp = &progs[bi];
                        for wp in &bp.warps {
                            let Some(inst) = wp.insts.get(round) else {
                                continue;
                            };
                            any = true;
                            let dyn_id = p.dyn_insts;
                            p.dyn_insts += 1;
                            p.by_class[inst.class as usize] += 1;
                            if !inst.class.is_mem() {
                                continue;
                            }
                            let lanes = wp.lanes_of(round).unwrap_or(&[]);
                            let lane0 = p.lanes.len() as u32;
                            p.lanes.extend(lanes.iter().map(|l| Lane {
                                lane: l.lane,
                                bytes: l.bytes,
                                addr: l.addr,
                            }));
                            let place = Place::of_space(inst.space);
                            let obj = if inst.space == Space::Shared {
                                let off = lanes.first().map_or(0, |l| l.addr);
                                match shared_arrays.iter().position(|s| {
                                    off >= u64::from(s.offset)
                                        && off < u64::from(s.offset) + u64::from(s.bytes)
                                }) {
                                    Some(k) => {
                                        shared_named_used[k] = true;
                                        shared_obj + 1 + k as u16
                                    }
                                    None => {
                                        shared_used = true;
                                        shared_obj
                                    }
                                }
                            } else {
                                lanes
                                    .first()
                                    .map_or(NO_OBJ, |l| locus_workload::object_of(&objs, l.addr))
                            };
                            let kind = match inst.class {
                                InstClass::Load => Kind::Load,
                                InstClass::Store => Kind::Store,
                                _ => Kind::Atomic,
                            };
                            if (obj as usize) < place_count.len() {
                                let o = &mut p.objects[obj as usize];
                                o.accesses += 1;
                                o.written |= kind != Kind::Load;
                                let k = place.index();
                                place_count[obj as usize][k] += 1;
                                let first = &mut place_first[obj as usize][k];
                                *first = (*first).min(dyn_id);
                            }
                            p.accesses.push(Access {
                                dyn_id,
                                sm: sm as u16,
                                block: (block_base + first + bi as u64) as u32,
                                obj,
                                kind,
                                place,
                                lane0,
                                nlanes: lanes.len() as u8,
                            });
                        }
                        bi += opts.sms as usize;
                    }
                }
                if !any {
                    break;
                }
                round += 1;
            }
            first += n as u64;
            if p.accesses.len() >= opts.max_accesses && first < nb {
                // capped: the rest of the launch runs unrecorded
                let skipped = nb - first;
                p.blocks -= skipped;
                p.total_warps -= skipped * u64::from(wpb);
                let mut bp = BlockProgram::default();
                for b in first..nb {
                    w.gen_block(b, false, opts.line_bytes, &mut bp)
                        .map_err(|e| e.to_string())?;
                }
                break;
            }
        }
        let mut by_class = p.by_class;
        for (c, c0) in by_class.iter_mut().zip(class0) {
            *c -= c0;
        }
        let recorded = nb - (blocks0 - p.blocks);
        p.launch_shapes.push(LaunchShape {
            blocks: recorded,
            blocks_total: nb,
            block0: block_base,
            warps_per_block: wpb,
            smem_per_block: info.smem_per_block,
            active_sms: nb.min(u64::from(opts.sms)) as u32,
            warps_per_sm: resident * wpb,
            bps_other,
            smem_per_sm: opts.smem_per_sm,
            accesses: (acc0, p.accesses.len()),
            dyn_ids: (dyn0, p.dyn_insts),
            by_class,
        });
        block_base += nb;
    }
    // an object's component in the sample: the one most of its accesses use (SHOC md's
    // kernel reads its own atom's position from global and every neighbour's through the
    // texture: the paper places `d_position` in T); each access keeps its own (`Access::place`)
    for (o, (n, first)) in p
        .objects
        .iter_mut()
        .zip(place_count.iter().zip(&place_first))
    {
        if let Some(k) = (0..5)
            .filter(|&k| n[k] > 0)
            .max_by_key(|&k| (n[k], std::cmp::Reverse(first[k])))
        {
            o.place = Place::ALL[k];
        }
    }
    p.kernel = kernel.unwrap_or_default();
    if p.launches == 0 {
        return Err(format!(
            "workload `{}` launches no kernel `{}`",
            p.workload, p.kernel
        ));
    }
    // the shared objects after the global ones: `__shared` (if used), then each named
    // array used, in declaration order
    let mut renumber = vec![u16::MAX; 1 + shared_arrays.len()];
    let mut next = shared_obj;
    for (k, used) in std::iter::once(shared_used)
        .chain(shared_named_used.iter().copied())
        .enumerate()
    {
        if !used {
            continue;
        }
        renumber[k] = next;
        next += 1;
        let tmp = shared_obj + k as u16;
        let (accesses, written) = p
            .accesses
            .iter()
            .filter(|a| a.obj == tmp)
            .fold((0, false), |(n, wr), a| (n + 1, wr || a.kind != Kind::Load));
        let (name, base, bytes, elem_bytes) = match k.checked_sub(1) {
            None => (
                "__shared".to_string(),
                0,
                u64::from(p.smem_per_block.max(4)),
                4,
            ),
            Some(i) => {
                let s = &shared_arrays[i];
                (
                    s.name.clone(),
                    u64::from(s.offset),
                    u64::from(s.bytes.max(1)),
                    s.elem_bytes.max(1),
                )
            }
        };
        p.objects.push(ObjInfo {
            name,
            base,
            bytes,
            elem_bytes,
            written,
            place: Place::Shared,
            row_elems: 0,
            accesses,
        });
    }
    if shared_named_used.iter().any(|&u| u) {
        for a in &mut p.accesses {
            if a.obj != NO_OBJ && a.obj >= shared_obj {
                a.obj = renumber[(a.obj - shared_obj) as usize];
            }
        }
    }
    p.mlp = if mlp_n == 0 {
        1.0
    } else {
        (mlp_sum as f64 / mlp_n as f64).max(1.0)
    };
    Ok(p)
}
