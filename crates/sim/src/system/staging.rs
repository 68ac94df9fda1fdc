//! Shared-memory staging of an object placed in shared memory (`[place] X = "shared"`),
//! as the code the placement stands for runs it (spec `hms-placement-model.md` §3.5 and
//! §7 #17: "a written object placed in S needs a write-back to global"; §4: the block's
//! shared usage grows and occupancy is recomputed, §7 #18).
//!
//! An array the kernel reads from global memory is in shared memory only after the block
//! copied it there: the program the placement stands for declares it `__shared__` and
//! begins each block with the cooperative copy
//!
//! ```text
//! for (i = threadIdx; i < n; i += blockDim) s[i] = g[i];  __syncthreads();
//! ```
//!
//! and, when the kernel may write the array, ends each block with the copy back after a
//! barrier. The loop is issued unrolled by four ([`UNROLL`]): per group of up to four
//! iterations, each iteration's two integer instructions (index, address) and global load,
//! then the four shared stores (each waiting on its own load), then the loop branch; the
//! copy back the same with shared loads and global stores. Every block of a launch in which the placement
//! applies stages every object placed in shared memory (a placement names objects, not
//! kernels), and the staged bytes count against the block's shared memory for occupancy
//! ([`System::staged_smem_bytes`]). Without the copy a shared placement was free: the
//! simulated time of `weights(G→S)` and `foundKey(G→S)` (HMS Table IV) left out what the
//! model's `T_init` charges.

use super::System;
use locus_workload::{
    coalesce, InstClass, LaneAddr, Space, WarpInst, WarpProgram, CHUNK_BYTES, NO_OBJ,
};

/// Program counters of the staging instructions (outside the kernel models' sites).
const PC_STAGE: u32 = 0xFFFF_FF00;
/// The register the first staging load of a group writes (the `j`-th: `STAGE_REG + j`);
/// each store waits on its own load.
const STAGE_REG: u16 = 0xFF00;
/// Iterations of the copy loop per group: the loop of unknown trip count unrolled by 4,
/// its loads hoisted ahead of its stores, as nvcc's runtime unrolling of a short loop
/// compiles it (an assumption, not measured against SASS here).
const UNROLL: u64 = 4;

/// One object to stage: the range a block copies (the whole object, or with
/// `spaces.shared_stage = "block-range"` the largest range one block spans, replaced per
/// block by that block's own), its element size and whether the block writes it back.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Staged {
    pub obj: u16,
    pub base: u64,
    pub bytes: u64,
    pub elem: u64,
    pub write_back: bool,
    /// Each block copies only the range its accesses span (`SharedStage::BlockRange`).
    pub block_range: bool,
}

/// The range (first byte, one past the last) of object `obj` that the accesses of block
/// program `prog` span: their lane addresses where recorded, else the chunks of their line
/// requests (lines of `line_bytes`) clipped to `[lo, hi)`; `None` when the block does not
/// access it.
fn block_span(
    prog: &locus_workload::BlockProgram,
    obj: u16,
    lo: u64,
    hi: u64,
    line_bytes: u64,
) -> Option<(u64, u64)> {
    let (mut a, mut b) = (u64::MAX, 0u64);
    for wp in &prog.warps {
        for (i, inst) in wp.insts.iter().enumerate() {
            if inst.nlines == 0 || wp.lines[inst.first_line as usize].obj != obj {
                continue;
            }
            match wp.lanes_of(i) {
                Some(ls) if !ls.is_empty() => {
                    for l in ls {
                        a = a.min(l.addr);
                        b = b.max(l.addr + u64::from(l.bytes.max(1)));
                    }
                }
                _ => {
                    // the 32-byte chunks each line request touches (its sector bits),
                    // or the whole line
                    for l in wp.lines_of(inst) {
                        let (s, e) = if l.sectors != 0 {
                            (
                                l.addr + CHUNK_BYTES * u64::from(l.sectors.trailing_zeros()),
                                l.addr + CHUNK_BYTES * u64::from(32 - l.sectors.leading_zeros()),
                            )
                        } else {
                            (l.addr, l.addr + line_bytes)
                        };
                        a = a.min(s.max(lo));
                        b = b.max(e.min(hi));
                    }
                }
            }
        }
    }
    (b > a).then_some((a, b))
}

/// Appends one memory instruction of lanes `lanes` (lane index, address) of `elem` bytes
/// each to `wp`, with its line requests for `obj` and, when `lanes_on`, its lane
/// addresses.
#[allow(clippy::too_many_arguments)]
fn push_mem(
    wp: &mut WarpProgram,
    lanes_on: bool,
    mut inst: WarpInst,
    lanes: &[(u8, u64)],
    elem: u64,
    obj: u16,
    line_bytes: u32,
    buf: &mut Vec<(u64, u32)>,
) {
    buf.clear();
    buf.extend(lanes.iter().map(|&(_, a)| (a, elem as u32)));
    inst.first_line = wp.lines.len() as u32;
    inst.nlines = coalesce(buf, line_bytes, obj, &mut wp.lines);
    inst.lanes = lanes.len() as u8;
    if lanes_on {
        wp.lane_at.push(wp.lane_addrs.len() as u32);
        wp.lane_addrs
            .extend(lanes.iter().map(|&(lane, addr)| LaneAddr {
                lane,
                bytes: elem as u16,
                addr,
            }));
    }
    wp.insts.push(inst);
}

/// Appends a non-memory instruction.
fn push_alu(wp: &mut WarpProgram, lanes_on: bool, class: InstClass, lanes: u8, pc: u32) {
    if lanes_on {
        wp.lane_at.push(wp.lane_addrs.len() as u32);
    }
    wp.insts.push(WarpInst {
        pc,
        ..WarpInst::alu(class, lanes)
    });
}

/// The copy loop of warp `wi` (threads `32 wi ..`) of a block of `tpb` threads over
/// `objs`: global to shared (`back` false) or shared to global (`back` true).
#[allow(clippy::too_many_arguments)]
fn copy_loop(
    wp: &mut WarpProgram,
    lanes_on: bool,
    objs: &[Staged],
    wi: u64,
    tpb: u64,
    back: bool,
    line_bytes: u32,
    buf: &mut Vec<(u64, u32)>,
) {
    let first = wi * 32;
    let active = tpb.saturating_sub(first).min(32);
    let mut lanes: Vec<(u8, u64)> = Vec::with_capacity(32);
    let (ld_space, st_space) = if back {
        (Space::Shared, Space::Global)
    } else {
        (Space::Global, Space::Shared)
    };
    let pc = PC_STAGE + if back { 8 } else { 2 };
    for s in objs.iter().filter(|s| !back || s.write_back) {
        let n = s.bytes.div_ceil(s.elem);
        let (ld_obj, st_obj) = if back {
            (NO_OBJ, s.obj)
        } else {
            (s.obj, NO_OBJ)
        };
        // the lanes of iteration `r` (element `r * blockDim + thread`)
        let iteration = |r: u64, lanes: &mut Vec<(u8, u64)>| {
            lanes.clear();
            for l in 0..active {
                let i = r * tpb + first + l;
                if i < n {
                    lanes.push((l as u8, s.base + i * s.elem));
                }
            }
        };
        let mut r = 0;
        while r * tpb + first < n {
            // a group of up to UNROLL iterations: their loads first, then their stores
            let g = (0..UNROLL)
                .take_while(|j| (r + j) * tpb + first < n)
                .count() as u64;
            for j in 0..g {
                iteration(r + j, &mut lanes);
                let k = lanes.len() as u8;
                push_alu(wp, lanes_on, InstClass::Int, k, PC_STAGE);
                push_alu(wp, lanes_on, InstClass::Int, k, PC_STAGE + 1);
                let ld = WarpInst {
                    pc,
                    class: InstClass::Load,
                    space: ld_space,
                    dst: STAGE_REG + j as u16,
                    ..WarpInst::alu(InstClass::Load, k)
                };
                push_mem(wp, lanes_on, ld, &lanes, s.elem, ld_obj, line_bytes, buf);
            }
            for j in 0..g {
                iteration(r + j, &mut lanes);
                let st = WarpInst {
                    pc: pc + 1,
                    class: InstClass::Store,
                    space: st_space,
                    srcs: [STAGE_REG + j as u16, 0, 0],
                    ..WarpInst::alu(InstClass::Store, lanes.len() as u8)
                };
                push_mem(wp, lanes_on, st, &lanes, s.elem, st_obj, line_bytes, buf);
            }
            iteration(r, &mut lanes);
            push_alu(
                wp,
                lanes_on,
                InstClass::Branch,
                lanes.len() as u8,
                PC_STAGE + 4,
            );
            r += g;
        }
    }
    if active > 0 {
        push_alu(
            wp,
            lanes_on,
            InstClass::Barrier,
            active as u8,
            PC_STAGE + if back { 12 } else { 5 },
        );
    }
}

impl System {
    /// Keep, of the objects application `a`'s launch would stage, those it accesses
    /// ([`locus_workload::Workload::launch_objects`]: a dry run of the launch; for a
    /// workload that cannot say, those its first block accesses, generated once as a probe
    /// without side effects): a kernel that never touches an array placed in shared memory
    /// does not declare or copy it.
    pub(crate) fn spaces_probe_staged(
        &mut self,
        a: usize,
        w: &mut dyn locus_workload::Workload,
        info: &locus_workload::KernelInfo,
    ) -> Result<(), locus_workload::WorkloadError> {
        let Some(st) = self.spaces.as_mut() else {
            return Ok(());
        };
        if st.staged.get(a).is_none_or(|v| v.is_empty()) {
            return Ok(());
        }
        let mut objs = std::mem::take(&mut st.staged[a]);
        let t = std::time::Instant::now();
        let used = w.launch_objects();
        self.host_functional += t.elapsed();
        if info.num_blocks() == 0 {
            objs.clear();
        } else if let Some(used) = used {
            objs.retain_mut(|s| match used.binary_search_by_key(&s.obj, |u| u.0) {
                Ok(i) => {
                    if s.block_range {
                        s.bytes = used[i].1;
                    }
                    true
                }
                Err(_) => false,
            });
        } else {
            // a workload that cannot say (a trace): the objects its first block accesses
            // (and the range it spans)
            let mut bp = locus_workload::BlockProgram {
                record_lanes: self.record_lanes,
                ..Default::default()
            };
            let t = std::time::Instant::now();
            w.gen_block(0, true, self.cfg.system.line_bytes, &mut bp)?;
            self.host_functional += t.elapsed();
            let line = u64::from(self.cfg.system.line_bytes);
            objs.retain_mut(
                |s| match block_span(&bp, s.obj, s.base, s.base + s.bytes, line) {
                    Some((lo, hi)) => {
                        if s.block_range {
                            s.bytes = hi - lo;
                        }
                        true
                    }
                    None => false,
                },
            );
        }
        self.spaces.as_mut().expect("spaces on").staged[a] = objs;
        Ok(())
    }

    /// Bytes of shared memory each block of application `a`'s current launch adds for the
    /// objects it stages (occupancy counts them beside the kernel's own).
    pub(crate) fn staged_smem_bytes(&self, a: usize) -> u64 {
        self.spaces
            .as_ref()
            .and_then(|st| st.staged.get(a))
            .map_or(0, |v| v.iter().map(|s| s.bytes).sum())
    }

    /// Prepend the staging copy to every warp of the freshly generated block in `slot` of
    /// SM `sm` (and append the copy back of written objects), after `spaces_rewrite`.
    pub(crate) fn spaces_stage(&mut self, sm: usize, slot: usize) {
        let Some(st) = self.spaces.as_mut() else {
            return;
        };
        let a = self.app_of_sm[sm] as usize;
        if st.staged.get(a).is_none_or(|v| v.is_empty()) {
            return;
        }
        let tpb = self.apps[a]
            .info
            .as_ref()
            .map_or(32, |i| i.threads_per_block().max(1) as u64);
        let line = self.cfg.system.line_bytes;
        let launch = std::mem::take(&mut st.staged[a]);
        let mut scratch = std::mem::take(&mut st.stage_scratch);
        let mut buf = Vec::with_capacity(32);
        let prog = &mut self.sms[sm].blocks[slot].prog;
        // this block's copies: the whole object, or the range this block's accesses span
        // (none when it does not access the object)
        let objs: Vec<Staged> = launch
            .iter()
            .filter_map(|s| {
                if !s.block_range {
                    return Some(*s);
                }
                let o = &self.objects[s.obj as usize];
                let (lo, hi) = block_span(prog, s.obj, o.base, o.base + o.bytes, u64::from(line))?;
                // whole elements from the object's element grid
                let lo = o.base + (lo - o.base) / s.elem * s.elem;
                Some(Staged {
                    base: lo,
                    bytes: hi - lo,
                    ..*s
                })
            })
            .collect();
        let any_back = objs.iter().any(|s| s.write_back);
        let mut added = 0u64;
        for (wi, wp) in prog.warps.iter_mut().enumerate() {
            let lanes_on = !wp.lane_at.is_empty();
            scratch.clear();
            copy_loop(
                &mut scratch,
                lanes_on,
                &objs,
                wi as u64,
                tpb,
                false,
                line,
                &mut buf,
            );
            let (pi, pl, pa) = (
                scratch.insts.len(),
                scratch.lines.len() as u32,
                scratch.lane_addrs.len() as u32,
            );
            // the kernel's own program after the prologue (its Exit kept last)
            let exit = match wp.insts.last() {
                Some(i) if i.class == InstClass::Exit => wp.insts.len() - 1,
                _ => wp.insts.len(),
            };
            for inst in &wp.insts[..exit] {
                let mut i = *inst;
                i.first_line += pl;
                scratch.insts.push(i);
            }
            scratch.lines.extend_from_slice(&wp.lines);
            if lanes_on {
                scratch
                    .lane_at
                    .extend(wp.lane_at[..exit].iter().map(|x| x + pa));
                scratch.lane_addrs.extend_from_slice(&wp.lane_addrs);
            }
            if any_back {
                copy_loop(
                    &mut scratch,
                    lanes_on,
                    &objs,
                    wi as u64,
                    tpb,
                    true,
                    line,
                    &mut buf,
                );
            }
            for inst in &wp.insts[exit..] {
                scratch.insts.push(*inst);
                if lanes_on {
                    scratch.lane_at.push(scratch.lane_addrs.len() as u32);
                }
            }
            if lanes_on {
                scratch.end_lanes();
            }
            for m in &mut wp.offload {
                m.begin += pi as u32;
                m.end += pi as u32;
            }
            added += (scratch.insts.len() - wp.insts.len()) as u64;
            scratch.offload = std::mem::take(&mut wp.offload);
            scratch.truncated = wp.truncated;
            std::mem::swap(wp, &mut scratch);
        }
        let st = self.spaces.as_mut().expect("spaces on");
        st.c.staged_insts += added;
        st.c.staged_bytes += objs
            .iter()
            .map(|s| s.bytes * (1 + u64::from(s.write_back)))
            .sum::<u64>();
        st.staged[a] = launch;
        st.stage_scratch = scratch;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_workload::{BlockProgram, LineReq};

    /// One warp, two loads of object 3 (lanes at 1000..1128 and 5000..5004) and one of
    /// object 4.
    fn prog(lanes: bool) -> BlockProgram {
        let mut wp = WarpProgram::default();
        let mut buf = Vec::new();
        let ld = WarpInst::alu(InstClass::Load, 32);
        let a: Vec<(u8, u64)> = (0..32).map(|l| (l, 1000 + 4 * u64::from(l))).collect();
        push_mem(&mut wp, lanes, ld, &a, 4, 3, 128, &mut buf);
        push_mem(&mut wp, lanes, ld, &[(0, 5000)], 4, 3, 128, &mut buf);
        push_mem(&mut wp, lanes, ld, &[(0, 9000)], 4, 4, 128, &mut buf);
        if lanes {
            wp.end_lanes();
        }
        BlockProgram {
            warps: vec![wp],
            ..Default::default()
        }
    }

    /// A block's range of an object: exact from the lane addresses; from the line
    /// requests (a trace without lanes) the lines it touches, clipped to the object; none
    /// for an object it does not access. Fails if another object's accesses leak in or
    /// the clip is lost.
    #[test]
    fn block_span_from_lanes_or_lines() {
        assert_eq!(
            block_span(&prog(true), 3, 0, 1 << 20, 128),
            Some((1000, 5004))
        );
        // line requests: 896..1024 and 1024..1152 (chunks 992..1024, 1024..1152) and
        // 4992..5120 (chunk 4992..5024); clipped to [995, 5010)
        let p = prog(false);
        assert_eq!(
            p.warps[0].lines[0],
            LineReq {
                addr: 896,
                ..p.warps[0].lines[0]
            }
        );
        assert_eq!(block_span(&p, 3, 0, 1 << 20, 128), Some((992, 5024)));
        assert_eq!(block_span(&p, 3, 995, 5010, 128), Some((995, 5010)));
        assert_eq!(block_span(&prog(true), 7, 0, 1 << 20, 128), None);
    }
}
