//! Accel-Sim traces as a [`Workload`]: the data objects are the trace's MemcpyHtoD buffers,
//! the launches its kernel files in list order, and each thread block is read from the trace
//! on demand (any order; see [`locus_trace::KernelTrace`]) and lowered to the common
//! [`BlockProgram`] form: every trace instruction becomes one [`WarpInst`] carrying the
//! trace's registers (so the scoreboard honours real register dependences) and, for memory
//! instructions outside shared memory, the coalesced line requests of its lane addresses.

use crate::program::{
    coalesce, object_of, BlockProgram, DataObject, Dim3, InstClass, KernelInfo, LaneAddr, LineReq,
    Reg, Space, WarpInst, WarpProgram, Workload, WorkloadError, NO_OBJ, REG_ALL,
};
use locus_trace::{KernelList, KernelTrace, MemSpace, OpClass, TraceBlock, TraceWarp, NO_REG};
use std::path::{Path, PathBuf};

/// Largest line size accepted (keeps the coalescer's 16-bit byte counts from overflowing).
pub const MAX_LINE_BYTES: u32 = 4096;

/// A trace folder as a workload.
pub struct TraceWorkload {
    name: String,
    objects: Vec<DataObject>,
    kernels: Vec<PathBuf>,
    next: usize,
    warnings: Vec<String>,
    block: TraceBlock,
    lanes: Vec<(u64, u32)>,
    cur: Option<CurLaunch>,
}

/// The launch being simulated: its kernel file and how many requested blocks it lacked.
struct CurLaunch {
    info: KernelInfo,
    trace: KernelTrace,
    missing: u64,
}

impl CurLaunch {
    fn warnings(&self) -> Vec<String> {
        let mut w = self.trace.warnings();
        if self.missing > 0 {
            w.push(format!(
                "kernel {}: {} requested thread blocks are absent from the trace; run as \
                 exit-only blocks",
                self.info.name, self.missing
            ));
        }
        w
    }
}

impl TraceWorkload {
    /// Open the trace at `path` (a folder or its `kernelslist.g`). Kernel files are checked
    /// to exist now and read when their launch comes.
    pub fn open(path: &Path) -> Result<Self, WorkloadError> {
        let list = KernelList::open(path)?;
        let objects = list
            .objects()
            .into_iter()
            .map(|o| DataObject {
                name: o.name,
                base: o.base,
                bytes: o.bytes,
                elem_bytes: 4,
                read_only: false,
            })
            .collect();
        let name = list
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "trace".to_string());
        Ok(TraceWorkload {
            name,
            objects,
            kernels: list.kernels().map(Path::to_path_buf).collect(),
            next: 0,
            warnings: Vec::new(),
            block: TraceBlock::default(),
            lanes: Vec::new(),
            cur: None,
        })
    }

    /// Number of kernel launches in the trace.
    pub fn num_kernels(&self) -> usize {
        self.kernels.len()
    }
}

impl Workload for TraceWorkload {
    fn name(&self) -> &str {
        &self.name
    }
    fn objects(&self) -> &[DataObject] {
        &self.objects
    }
    fn begin_launch(&mut self) -> Result<Option<KernelInfo>, WorkloadError> {
        if let Some(c) = self.cur.take() {
            self.warnings.extend(c.warnings());
        }
        let Some(path) = self.kernels.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        let trace = KernelTrace::open(path)?;
        let h = trace.header();
        let info = KernelInfo {
            name: h.name.clone(),
            grid: Dim3::new(h.grid[0], h.grid[1], h.grid[2]),
            block: Dim3::new(h.block[0], h.block[1], h.block[2]),
            regs_per_thread: h.nregs,
            smem_per_block: h.shmem,
        };
        self.cur = Some(CurLaunch {
            info: info.clone(),
            trace,
            missing: 0,
        });
        Ok(Some(info))
    }

    fn gen_block(
        &mut self,
        block: u64,
        _probe: bool,
        line_bytes: u32,
        out: &mut BlockProgram,
    ) -> Result<(), WorkloadError> {
        if !line_bytes.is_power_of_two() || line_bytes > MAX_LINE_BYTES {
            return Err(WorkloadError::Msg(format!(
                "line size {line_bytes} is not a power of two <= {MAX_LINE_BYTES}"
            )));
        }
        let Some(cur) = self.cur.as_mut() else {
            return Err(WorkloadError::Msg(
                "gen_block called with no current launch".into(),
            ));
        };
        let threads = cur.info.threads_per_block() as u64;
        let nwarps = cur.info.warps_per_block() as usize;
        out.reset(nwarps);
        let record = out.record_lanes;
        let found =
            block < cur.info.num_blocks() && cur.trace.read_block(block, &mut self.block)?;
        if !found {
            cur.missing += 1;
        }
        for (w, wp) in out.warps.iter_mut().enumerate() {
            match self.block.warps.get(w).filter(|tw| found && tw.present) {
                Some(tw) => lower_warp(tw, &self.objects, line_bytes, &mut self.lanes, wp, record),
                None => {
                    let lanes = threads.saturating_sub(w as u64 * 32).min(32) as u8;
                    if record {
                        wp.lane_at.push(0);
                    }
                    wp.insts.push(WarpInst::alu(InstClass::Exit, lanes));
                }
            }
            if record {
                wp.end_lanes();
            }
        }
        Ok(())
    }

    fn warnings(&self) -> Vec<String> {
        let mut w = self.warnings.clone();
        if let Some(c) = &self.cur {
            w.extend(c.warnings());
        }
        w
    }
}

fn class_of(c: OpClass) -> InstClass {
    match c {
        OpClass::Int => InstClass::Int,
        OpClass::Fp => InstClass::Fp,
        OpClass::Sfu => InstClass::Sfu,
        OpClass::Branch => InstClass::Branch,
        OpClass::Load => InstClass::Load,
        OpClass::Store => InstClass::Store,
        OpClass::Atomic => InstClass::Atomic,
        OpClass::Barrier => InstClass::Barrier,
        OpClass::Exit => InstClass::Exit,
    }
}

fn space_of(s: MemSpace) -> Space {
    match s {
        // generic spaces are resolved by the reader; anything left is global
        MemSpace::Global | MemSpace::Generic => Space::Global,
        MemSpace::Shared => Space::Shared,
        MemSpace::Local => Space::Local,
        MemSpace::Constant => Space::Constant,
        MemSpace::Texture => Space::Texture,
    }
}

/// Up to three distinct source registers; if the trace names more, the last slot waits for
/// every outstanding load ([`REG_ALL`]) so no dependence is lost.
fn srcs_of(trace: &[u16; 5]) -> [Reg; 3] {
    let mut out = [0; 3];
    let mut n = 0;
    for &r in trace.iter().filter(|&&r| r != NO_REG) {
        if out[..n].contains(&r) {
            continue;
        }
        if n == 3 {
            out[2] = REG_ALL;
            break;
        }
        out[n] = r;
        n += 1;
    }
    out
}

/// Lower one trace warp into `wp`; with `record`, keep each memory instruction's lane
/// addresses ([`WarpProgram::lanes_of`]: the trace's addresses, one per active lane of the
/// mask in lane order).
fn lower_warp(
    tw: &TraceWarp,
    objects: &[DataObject],
    line_bytes: u32,
    lanes: &mut Vec<(u64, u32)>,
    wp: &mut WarpProgram,
    record: bool,
) {
    // keep `addr + width` from wrapping in the coalescer (corrupt traces only)
    let top = u64::MAX - 2 * MAX_LINE_BYTES as u64;
    for ti in &tw.insts {
        if record {
            wp.lane_at.push(wp.lane_addrs.len() as u32);
            if ti.space.is_some() {
                let mut mask = ti.mask;
                for (i, &a) in tw.addrs_of(ti).iter().enumerate() {
                    let lane = if mask != 0 {
                        mask.trailing_zeros()
                    } else {
                        i as u32
                    };
                    mask &= mask.wrapping_sub(1);
                    wp.lane_addrs.push(LaneAddr {
                        lane: lane.min(31) as u8,
                        bytes: ti.width as u16,
                        addr: a.min(top),
                    });
                }
            }
        }
        let mut wi = WarpInst::alu(class_of(ti.class), ti.mask.count_ones() as u8);
        wi.dst = ti.dst;
        wi.srcs = srcs_of(&ti.srcs);
        wi.pc = ti.pc as u32;
        if let Some(space) = ti.space {
            wi.space = space_of(space);
            if wi.space != Space::Shared {
                lanes.clear();
                lanes.extend(
                    tw.addrs_of(ti)
                        .iter()
                        .map(|&a| (a.min(top), ti.width as u32)),
                );
                let start = wp.lines.len();
                wi.first_line = start as u32;
                wi.nlines = coalesce(lanes, line_bytes, NO_OBJ, &mut wp.lines);
                for l in wp.lines.iter_mut().skip(start) {
                    l.obj = line_object(l, lanes, line_bytes, objects);
                }
            }
        }
        wp.insts.push(wi);
    }
    if wp.insts.last().map(|i| i.class) != Some(InstClass::Exit) {
        let lanes = wp.insts.last().map(|i| i.lanes).unwrap_or(32);
        if record {
            wp.lane_at.push(wp.lane_addrs.len() as u32);
        }
        wp.insts.push(WarpInst::alu(InstClass::Exit, lanes));
    }
}

/// Object of a coalesced line: the object holding the first lane byte that falls in it.
fn line_object(l: &LineReq, lanes: &[(u64, u32)], line_bytes: u32, objects: &[DataObject]) -> u16 {
    let end = l.addr.saturating_add(line_bytes as u64);
    for &(a, b) in lanes {
        if a < end && a.saturating_add(b.max(1) as u64) > l.addr {
            return object_of(objects, a.max(l.addr));
        }
    }
    object_of(objects, l.addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECTORADD: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces/vectoradd"
    );
    const BACKPROP: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces/backprop-h100"
    );

    /// Whether the example trace `dir` (under `../shared/traces`) is present; when absent
    /// (a clone without `shared/` beside it) prints why `test` is skipped. CI has them.
    fn have_trace(dir: &str, test: &str) -> bool {
        let ok = Path::new(dir).is_dir();
        if !ok {
            eprintln!(
                "skipped {test}: the example trace {dir} is missing \
                 (the repository is used with shared/ beside it)"
            );
        }
        ok
    }

    /// Lines of 128 B touched by each LDG of the vectoradd trace, counted by scanning text.
    fn expected_load_lines(block_x: u64) -> (u64, u64) {
        let text = std::fs::read_to_string(format!("{VECTORADD}/kernel-1.traceg")).unwrap();
        let mut in_block = false;
        let (mut lines, mut loads) = (0u64, 0u64);
        for l in text.lines() {
            let l = l.trim();
            if let Some(v) = l.strip_prefix("thread block = ") {
                in_block = v.split(',').next().unwrap().parse::<u64>().unwrap() == block_x;
                continue;
            }
            if !in_block || !l.contains(" LDG.") {
                continue;
            }
            let f: Vec<&str> = l.split_whitespace().collect();
            // 00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x... 4 0
            assert_eq!(f[8], "1", "vectoradd uses base+stride");
            let mask = u32::from_str_radix(f[1], 16).unwrap();
            let base = u64::from_str_radix(f[9].trim_start_matches("0x"), 16).unwrap();
            let stride: u64 = f[10].parse().unwrap();
            let n = mask.count_ones() as u64;
            if n == 0 {
                continue;
            }
            let first = base / 128;
            let last = (base + stride * (n - 1) + 3) / 128;
            lines += last - first + 1;
            loads += 1;
        }
        (lines, loads)
    }

    /// Lane addresses on request (issue 7 §4): each memory instruction of a trace block
    /// keeps one address per active lane of its mask, which coalesce to exactly its lines.
    #[test]
    fn recorded_trace_lanes_coalesce_to_the_lines() {
        if !have_trace(VECTORADD, "recorded_trace_lanes_coalesce_to_the_lines") {
            return;
        }
        let mut w = TraceWorkload::open(Path::new(VECTORADD)).unwrap();
        w.begin_launch().unwrap().unwrap();
        let mut bp = BlockProgram {
            record_lanes: true,
            ..Default::default()
        };
        let mut checked = 0;
        for b in [0u64, 195] {
            w.gen_block(b, false, 128, &mut bp).unwrap();
            for wp in &bp.warps {
                assert_eq!(wp.lane_at.len(), wp.insts.len() + 1);
                for (i, inst) in wp.insts.iter().enumerate() {
                    let lanes = wp.lanes_of(i).unwrap();
                    if !inst.class.is_mem() {
                        assert!(lanes.is_empty());
                        continue;
                    }
                    assert_eq!(lanes.len(), inst.lanes as usize);
                    let addrs: Vec<(u64, u32)> =
                        lanes.iter().map(|l| (l.addr, l.bytes as u32)).collect();
                    let mut got = Vec::new();
                    coalesce(&addrs, 128, NO_OBJ, &mut got);
                    let want: Vec<(u64, u16)> = wp
                        .lines_of(inst)
                        .iter()
                        .map(|l| (l.addr, l.bytes))
                        .collect();
                    let got: Vec<(u64, u16)> = got.iter().map(|l| (l.addr, l.bytes)).collect();
                    assert_eq!(got, want, "block {b} inst {i}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 0);
    }

    #[test]
    fn vectoradd_blocks_and_load_lines() {
        if !have_trace(VECTORADD, "vectoradd_blocks_and_load_lines") {
            return;
        }
        let mut w = TraceWorkload::open(Path::new(VECTORADD)).unwrap();
        assert_eq!(w.objects().len(), 2);
        assert_eq!(w.objects()[0].name, "obj0");
        assert_eq!(w.objects()[1].base, 0x7fb0fc430e00);
        let objs = w.objects().to_vec();
        let mut bp = BlockProgram::default();
        {
            let mut l = w.next_launch().unwrap().unwrap();
            assert_eq!(l.info().num_blocks(), 196);
            assert_eq!(l.info().warps_per_block(), 8);
            // out of order: last block, first block, a middle one, then the last again
            for b in [195u64, 0, 97, 195] {
                l.block(b, b == 97, 128, &mut bp).unwrap();
                assert_eq!(bp.warps.len(), 8);
                let (exp_lines, exp_loads) = expected_load_lines(b);
                let mut lines = 0u64;
                let mut loads = 0u64;
                for wp in &bp.warps {
                    assert_eq!(wp.insts.last().unwrap().class, InstClass::Exit);
                    for i in &wp.insts {
                        if i.class == InstClass::Load {
                            loads += 1;
                            lines += i.nlines as u64;
                            for lr in wp.lines_of(i) {
                                assert_eq!(lr.addr % 128, 0);
                                assert_ne!(lr.obj, NO_OBJ, "vectoradd loads hit obj0/obj1");
                                assert!(objs[lr.obj as usize]
                                    .contains(lr.addr.max(objs[lr.obj as usize].base)));
                            }
                            assert!(i.dst != 0, "loads write a register");
                        }
                    }
                }
                assert_eq!((lines, loads), (exp_lines, exp_loads), "block {b}");
            }
            // block 0 warp 0: 17 trace instructions, first LDG at index 10 reads R4 -> id 5
            l.block(0, false, 128, &mut bp).unwrap();
            let w0 = &bp.warps[0];
            assert_eq!(w0.insts.len(), 17);
            assert_eq!(w0.insts[10].class, InstClass::Load);
            assert_eq!(w0.insts[10].pc, 0x00a0, "the trace's PC is kept");
            assert_eq!(w0.insts[10].dst, 5);
            assert_eq!(w0.insts[10].srcs, [5, 0, 0]);
            assert_eq!(w0.insts[10].nlines, 1);
            assert_eq!(w0.insts[5].class, InstClass::Exit);
            assert_eq!(w0.insts[5].lanes, 0, "EXIT with mask 0");
            assert_eq!(w0.insts[7].class, InstClass::Int, "ULDC.64 width 0 is ALU");
            // 32-byte lines split a 128 B warp access into 4 requests
            l.block(0, false, 32, &mut bp).unwrap();
            assert_eq!(bp.warps[0].insts[10].nlines, 4);
            assert!(l.block(0, false, 0, &mut bp).is_err());
            // a block id beyond the grid gives exit-only warps
            l.block(10_000, false, 128, &mut bp).unwrap();
            assert!(bp.warps.iter().all(|w| w.insts.len() == 1));
        }
        assert!(w.next_launch().unwrap().is_none());
        assert!(w.warnings().iter().any(|s| s.contains("absent")));
    }

    #[test]
    fn backprop_all_kernels_lower() {
        if !have_trace(BACKPROP, "backprop_all_kernels_lower") {
            return;
        }
        let mut w = TraceWorkload::open(Path::new(BACKPROP)).unwrap();
        assert_eq!(w.num_kernels(), 33);
        assert_eq!(w.objects().len(), 5);
        let mut bp = BlockProgram::default();
        let mut kernels = 0;
        let mut insts = 0usize;
        while let Some(mut l) = w.next_launch().unwrap() {
            kernels += 1;
            for b in 0..l.info().num_blocks() {
                l.block(b, false, 128, &mut bp).unwrap();
                insts += bp.num_insts();
            }
        }
        assert_eq!(kernels, 33);
        let text_insts: usize = std::fs::read_dir(BACKPROP)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "traceg"))
            .map(|p| {
                std::fs::read_to_string(p)
                    .unwrap()
                    .lines()
                    .filter_map(|l| l.strip_prefix("insts = "))
                    .map(|n| n.trim().parse::<usize>().unwrap())
                    .sum::<usize>()
            })
            .sum();
        assert_eq!(
            insts, text_insts,
            "every trace warp ends in EXIT: no extra insts"
        );
        assert!(w.warnings().is_empty(), "{:?}", w.warnings());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 48, failure_persistence: None, ..Default::default()
        })]

        /// Corrupted traces give errors, never panics, through the whole adapter path.
        #[test]
        fn mutated_trace_never_panics(
            flips in proptest::collection::vec((0usize..60_000, proptest::prelude::any::<u8>()), 1..8),
            cut in 1000usize..60_000,
        ) {
            let Ok(mut t) = std::fs::read(format!("{VECTORADD}/kernel-1.traceg")) else {
                have_trace(VECTORADD, "mutated_trace_never_panics");
                return Ok(());
            };
            t.truncate(cut);
            for (i, b) in flips {
                if let Some(x) = t.get_mut(i) {
                    *x = b;
                }
            }
            let dir = std::env::temp_dir().join(format!(
                "locus-trace-source-{}-{cut}-{}",
                std::process::id(),
                t.len()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("kernelslist.g"), "MemcpyHtoD,0x7fb0fc400000,200000\nkernel-1.traceg\n").unwrap();
            std::fs::write(dir.join("kernel-1.traceg"), &t).unwrap();
            if let Ok(mut w) = TraceWorkload::open(&dir) {
                let mut bp = BlockProgram::default();
                if let Ok(Some(mut l)) = w.next_launch() {
                    for b in [2u64, 0, 1, 5, 2] {
                        let _ = l.block(b, false, 128, &mut bp);
                    }
                }
                let _ = w.warnings();
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
