//! Mars, the MapReduce framework on GPUs (He, Fang, Luo, Govindaraju, Wang, PACT 2008;
//! public source `Mars/MarsLib`, `sample_apps/*`). NUBA (nuba.md §6.3, Table 2) runs its
//! PageViewCount, WordCount and StringMatch as its irregular, low-sharing group.
//!
//! The runtime is modelled as it runs on the GPU (`MarsLib.cu`, `MarsScan.cu`,
//! `MarsSort.cu`), the same for every application; only `map_count`, `map`, `compare` and
//! `reduce` are the application's (`App`):
//!
//! 1. **map count**: `MapperCount<<<ceil(records / 256), 256>>>`, one input record per thread
//!    (`DEFAULT_NUMTASK` 1), whose `MAP_COUNT_FUNC` adds each pair's key and value sizes and
//!    a count to the thread's slots (`EmitInterCount`, three global read-modify-writes);
//! 2. **prefix sum**: `prefexSum` of the three per-thread arrays (CUDA SDK `prescanArray`:
//!    `prescan` blocks of 256 threads scanning 512 elements in shared memory, up-sweep and
//!    down-sweep separated by `__syncthreads()`, block sums scanned recursively, then
//!    `uniformAdd`);
//! 3. **map**: `Mapper`, the same threads again; `EmitIntermediate` copies each key and
//!    value byte by byte to `interKeys`/`interVals` at the thread's prefix-sum offset and
//!    writes the pair's `int4` offset/size record;
//! 4. **group** (MAP_GROUP and MAP_REDUCE): `sort_GPU`: `initialize_kernel` pads the
//!    records to a power of two, `bitonicKernel` for every (k, j) step (inputs up to 256 K
//!    records; each thread compares two records with the application's `compare` over the
//!    key bytes), then the values and the keys are gathered into sorted buffers
//!    (`getZWArray`/`getXYArray`, `getIntYArray`, a prefix sum, `copyChunks_kernel`,
//!    `setZWArray`/`setXYArray`) and the groups found (`getChunkBoundary_kernel`, a prefix
//!    sum, `writeBoundary_kernel`, `setBoundaryInt2_kernel`);
//! 5. **reduce** (MAP_REDUCE): `ReducerCount`, three prefix sums, `Reducer` (`Emit` copies
//!    each output pair), one group per thread.
//!
//! Buffers Mars sizes at run time (`cudaMalloc` after a prefix sum) are allocated when the
//! workload is built, with the sizes the host computes from the same input; device-to-device
//! `cudaMemcpy`s (the bitonic buffer in and out, PageViewCount's second job reading the
//! first job's output) are done by the host program between launches without memory
//! traffic. `EmitIntermediate`'s `__syncthreads()` (inside a data-dependent loop) is not
//! modelled. Records (`int4`) move as two 8-byte accesses.

use crate::memory::Memory;
use crate::model::{Host, Kernel, Thread};
use crate::program::{Dim3, KernelInfo, ObjId};
use std::sync::Arc;

pub mod pageviewcount;
pub mod stringmatch;
pub mod wordcount;

#[cfg(test)]
mod tests;

use crate::registry::BenchSpec;

/// The Mars applications.
pub const SPECS: &[BenchSpec] = &[wordcount::SPEC, pageviewcount::SPEC, stringmatch::SPEC];

/// Mars's `DEFAULT_DIMBLOCK`.
pub const BLOCK: u32 = 256;
/// Elements one `prescan` block scans (2 per thread).
const SCAN_ELEMS: u64 = 512;

/// A kernel given by a closure over one thread and phase.
pub(crate) struct FnKernel {
    pub info: KernelInfo,
    pub phases: u32,
    #[allow(clippy::type_complexity)]
    pub f: Box<dyn Fn(&mut Thread<'_>, u32) + Send + Sync>,
}

impl Kernel for FnKernel {
    fn info(&self) -> KernelInfo {
        self.info.clone()
    }
    fn phases(&self) -> u32 {
        self.phases
    }
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        (self.f)(t, phase)
    }
}

fn kernel(
    name: &str,
    blocks: u64,
    threads: u32,
    smem: u32,
    phases: u32,
    f: impl Fn(&mut Thread<'_>, u32) + Send + Sync + 'static,
) -> Box<dyn Kernel> {
    Box::new(FnKernel {
        info: KernelInfo {
            name: name.to_string(),
            grid: Dim3::x(blocks.max(1) as u32),
            block: Dim3::x(threads),
            regs_per_thread: 32,
            smem_per_block: smem,
        },
        phases,
        f: Box::new(f),
    })
}

/// One step of the host program.
pub(crate) enum Step {
    Launch(Box<dyn Kernel>),
    /// `cudaMemcpy` device to device: `bytes` from `src[src_off..]` to `dst[dst_off..]`.
    Copy {
        src: ObjId,
        src_off: u64,
        dst: ObjId,
        dst_off: u64,
        bytes: u64,
    },
}

/// The host program: the steps in order, copies applied between launches.
pub(crate) struct MarsHost(pub std::vec::IntoIter<Step>);

impl Host for MarsHost {
    fn next_kernel(&mut self, m: &mut Memory) -> Option<Box<dyn Kernel>> {
        for s in self.0.by_ref() {
            match s {
                Step::Launch(k) => return Some(k),
                Step::Copy {
                    src,
                    src_off,
                    dst,
                    dst_off,
                    bytes,
                } => {
                    for i in 0..bytes {
                        let b: u8 = m.get(src, src_off + i);
                        m.set(dst, dst_off + i, b);
                    }
                }
            }
        }
        None
    }
}

/// `IADD3; ISETP; BRA` of one loop iteration.
#[track_caller]
pub(crate) fn loop_step(t: &mut Thread<'_>) {
    t.alu(2);
    t.branch(1);
}

/// Entry of a one-dimensional Mars kernel: `MOV; S2R x2; IMAD` (the global index), the
/// bound `ISETP` and its predicated `EXIT`.
#[track_caller]
fn entry(t: &mut Thread<'_>) {
    t.alu(5);
    t.branch(1);
}

/// Load an `int4` record (two 8-byte accesses).
#[track_caller]
pub(crate) fn ld4(t: &mut Thread<'_>, o: ObjId, i: u64) -> [i32; 4] {
    let a: u64 = t.ld(o, 2 * i);
    let b: u64 = t.ld(o, 2 * i + 1);
    [a as i32, (a >> 32) as i32, b as i32, (b >> 32) as i32]
}

/// Store an `int4` record.
#[track_caller]
pub(crate) fn st4(t: &mut Thread<'_>, o: ObjId, i: u64, v: [i32; 4]) {
    t.st::<u64>(o, 2 * i, pack(v[0], v[1]));
    t.st::<u64>(o, 2 * i + 1, pack(v[2], v[3]));
}

/// Load an `int2`.
#[track_caller]
pub(crate) fn ld2(t: &mut Thread<'_>, o: ObjId, i: u64) -> [i32; 2] {
    let a: u64 = t.ld(o, i);
    [a as i32, (a >> 32) as i32]
}

/// Store an `int2`.
#[track_caller]
pub(crate) fn st2(t: &mut Thread<'_>, o: ObjId, i: u64, v: [i32; 2]) {
    t.st::<u64>(o, i, pack(v[0], v[1]));
}

fn pack(lo: i32, hi: i32) -> u64 {
    (lo as u32 as u64) | ((hi as u32 as u64) << 32)
}

/// Where the bytes of an emitted key or value come from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Src {
    /// `len` bytes of a global object from byte `off`.
    Global { obj: ObjId, off: u64, len: u32 },
    /// A value the map function wrote to its `GET_OUTPUT_BUF` slot in shared memory.
    Shared { word: u32, val: u32 },
}

impl Src {
    fn len(&self) -> u32 {
        match *self {
            Src::Global { len, .. } => len,
            Src::Shared { .. } => 4,
        }
    }
}

/// One map input record as the runtime hands it to the application (`inputOffsetSizes`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rec {
    pub key_off: u64,
    pub val_off: u64,
}

/// The application callbacks of a Mars program.
pub(crate) trait App: Send + Sync + 'static {
    /// `MAP_COUNT_FUNC` over one record: call `emit(t, key_size, val_size)` per pair.
    fn map_count(
        &self,
        t: &mut Thread<'_>,
        rec: Rec,
        emit: &mut dyn FnMut(&mut Thread<'_>, u32, u32),
    );
    /// `MAP_FUNC` over one record: call `emit(t, key, val)` per pair.
    fn map(&self, t: &mut Thread<'_>, rec: Rec, emit: &mut dyn FnMut(&mut Thread<'_>, Src, Src));
    /// `compare(key_a, size_a, key_b, size_b)` over keys in `raw` (bytes from `a`, `b`).
    fn compare(&self, t: &mut Thread<'_>, raw: ObjId, a: u64, b: u64) -> i32;
    /// `REDUCE_COUNT_FUNC` (MAP_REDUCE): `(key_size, val_size)` of each output pair.
    fn reduce_count(&self) -> (u32, u32) {
        (0, 0)
    }
    /// `REDUCE_FUNC` before its single `Emit` of the group's first key and value
    /// (PageViewCount sets the value's phase to 1).
    fn reduce(&self, _t: &mut Thread<'_>, _vals: ObjId, _val_off: u64) {}
}

/// Mars's workflow of one job (`MAP_ONLY`, `MAP_GROUP`, `MAP_REDUCE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)]
pub(crate) enum Workflow {
    MapOnly,
    MapGroup,
    MapReduce,
}

/// Sizes of a job the host knows from its input (what Mars learns from its prefix sums).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Totals {
    pub records: u64,
    pub key_bytes: u64,
    pub val_bytes: u64,
    pub pairs: u64,
    /// Distinct keys (groups) after sorting.
    pub groups: u64,
}

/// The input buffers of a job.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Input {
    pub keys: ObjId,
    pub vals: ObjId,
    pub offsets: ObjId,
}

/// The buffers a job leaves behind (what `Spec_t` points to at the end).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Output {
    pub keys: ObjId,
    pub vals: ObjId,
    pub offsets: ObjId,
    /// `int2` key-list ranges (group first, group end), MAP_GROUP and MAP_REDUCE.
    pub ranges: Option<ObjId>,
    pub records: u64,
    pub key_bytes: u64,
    pub val_bytes: u64,
}

/// Append the steps of a prefix sum `out = exclusive_scan(inp[..n])` (`prescanArray`),
/// allocating its block-sum buffers.
pub(crate) fn prefix_sum(
    m: &mut Memory,
    steps: &mut Vec<Step>,
    tag: &str,
    inp: ObjId,
    out: ObjId,
    n: u64,
) {
    let blocks = n.div_ceil(SCAN_ELEMS).max(1);
    let sums = if blocks > 1 {
        Some(m.alloc::<i32>(&format!("{tag}_blockSums{n}"), blocks, false))
    } else {
        None
    };
    steps.push(Step::Launch(prescan(inp, out, n, blocks, sums)));
    if let Some(s) = sums {
        // scan the block sums in place (a copy holds the input), then add them back
        let scanned = m.alloc::<i32>(&format!("{tag}_blockSumsScan{n}"), blocks, false);
        prefix_sum(m, steps, tag, s, scanned, blocks);
        steps.push(Step::Launch(uniform_add(out, scanned, n, blocks)));
    }
}

/// CUDA SDK `prescan<storeSum>`: 256 threads scan 512 elements in shared memory.
///
/// Phases (each after a `__syncthreads()`): load two elements (`LDG` x2, `STS` x2); nine
/// up-sweep levels (active threads: 2 `LDS`, `IADD`, `STS` and 6 int of index
/// arithmetic); thread 0 stores the block sum and clears the root; nine down-sweep levels
/// (2 `LDS`, 2 `STS`, `IADD`, 6 int); write two elements (`LDS` x2, `STG` x2).
fn prescan(inp: ObjId, out: ObjId, n: u64, blocks: u64, sums: Option<ObjId>) -> Box<dyn Kernel> {
    kernel("prescan", blocks, 256, 512 * 4, 21, move |t, phase| {
        let tid = t.tid.x;
        let base = t.block.x as u64 * SCAN_ELEMS;
        match phase {
            0 => {
                entry(t);
                for e in [tid, tid + 256] {
                    let g = base + e as u64;
                    t.alu(2);
                    let v: i32 = if g < n { t.ld(inp, g) } else { 0 };
                    t.sh_st(e, v as u32);
                }
            }
            1..=9 => {
                let d = 256u32 >> (phase - 1);
                let offset = 1u32 << (phase - 1);
                t.alu(2);
                t.branch(1);
                if tid < d {
                    let ai = offset * (2 * tid + 1) - 1;
                    let bi = offset * (2 * tid + 2) - 1;
                    t.alu(6);
                    let a = t.sh_ld(ai);
                    let b = t.sh_ld(bi);
                    t.alu(1);
                    t.sh_st(bi, a.wrapping_add(b));
                }
            }
            10 => {
                t.branch(1);
                if tid == 0 {
                    let root = t.sh_ld(511);
                    if let Some(s) = sums {
                        t.alu(2);
                        t.st(s, t.block.x as u64, root as i32);
                    }
                    t.sh_st(511, 0);
                }
            }
            11..=19 => {
                let d = 1u32 << (phase - 11);
                let offset = 256u32 >> (phase - 11);
                t.alu(2);
                t.branch(1);
                if tid < d {
                    let ai = offset * (2 * tid + 1) - 1;
                    let bi = offset * (2 * tid + 2) - 1;
                    t.alu(6);
                    let a = t.sh_ld(ai);
                    let b = t.sh_ld(bi);
                    t.sh_st(ai, b);
                    t.alu(1);
                    t.sh_st(bi, a.wrapping_add(b));
                }
            }
            _ => {
                for e in [tid, tid + 256] {
                    let g = base + e as u64;
                    let v = t.sh_ld(e);
                    t.alu(2);
                    t.branch(1);
                    if g < n {
                        t.st(out, g, v as i32);
                    }
                }
            }
        }
    })
}

/// CUDA SDK `uniformAdd`: thread 0 loads the block's scanned sum into shared memory, then
/// every thread adds it to its two elements (`LDG`, `IADD`, `STG` each).
fn uniform_add(out: ObjId, sums: ObjId, n: u64, blocks: u64) -> Box<dyn Kernel> {
    kernel("uniformAdd", blocks, 256, 4, 2, move |t, phase| {
        let b = t.block.x as u64;
        if phase == 0 {
            entry(t);
            if t.tid.x == 0 {
                let u: i32 = t.ld(sums, b);
                t.sh_st(0, u as u32);
            }
        } else {
            let u = t.sh_ld(0) as i32;
            for e in [t.tid.x as u64, t.tid.x as u64 + 256] {
                let g = b * SCAN_ELEMS + e;
                t.alu(2);
                t.branch(1);
                if g < n {
                    let v: i32 = t.ld(out, g);
                    t.alu(1);
                    t.st(out, g, v.wrapping_add(u));
                }
            }
        }
    })
}

/// Per-thread arrays of a count / emit pass.
#[derive(Clone, Copy)]
struct PerThread {
    ks: ObjId,
    vs: ObjId,
    cnt: ObjId,
    ps_k: ObjId,
    ps_v: ObjId,
    ps_c: ObjId,
    kv_off: ObjId,
    cur: ObjId,
}

fn per_thread(m: &mut Memory, tag: &str, threads: u64) -> PerThread {
    let a = |m: &mut Memory, n: &str| m.alloc::<i32>(&format!("{tag}{n}"), threads, false);
    PerThread {
        ks: a(m, "KeysSizePerTask"),
        vs: a(m, "ValsSizePerTask"),
        cnt: a(m, "CountPerTask"),
        ps_k: a(m, "psKeySizes"),
        ps_v: a(m, "psValSizes"),
        ps_c: a(m, "psCounts"),
        kv_off: m.alloc::<u64>(&format!("{tag}keyValOffsets"), threads, false),
        cur: a(m, "curIndex"),
    }
}

/// `EmitInterCount` / `EmitCount`: three read-modify-writes of the thread's slots.
fn emit_count(t: &mut Thread<'_>, p: &PerThread, index: u64, ks: u32, vs: u32) {
    t.alu(2);
    let a: i32 = t.ld(p.ks, index);
    t.alu(1);
    t.st(p.ks, index, a + ks as i32);
    let b: i32 = t.ld(p.vs, index);
    t.alu(1);
    t.st(p.vs, index, b + vs as i32);
    let c: i32 = t.ld(p.cnt, index);
    t.alu(1);
    t.st(p.cnt, index, c + 1);
}

/// Copy one key or value byte by byte (`for (i < size) pSet[i] = s[i]`: a load, a store
/// and the loop control per byte).
fn copy_bytes(t: &mut Thread<'_>, src: Src, dst: ObjId, at: u64) {
    match src {
        Src::Global { obj, off, len } => {
            for i in 0..len as u64 {
                t.alu(1);
                let b: u8 = t.ld(obj, off + i);
                t.st(dst, at + i, b);
                loop_step(t);
            }
        }
        Src::Shared { word, val } => {
            for i in 0..4u64 {
                t.alu(1);
                let w = t.sh_ld(word);
                let b = (w >> (8 * i)) as u8;
                debug_assert_eq!(w, val);
                t.st(dst, at + i, b);
                loop_step(t);
            }
        }
    }
}

/// `EmitIntermediate` / `Emit`: copy the pair at the thread's running offsets and write its
/// `int4` record.
#[allow(clippy::too_many_arguments)]
fn emit_pair(
    t: &mut Thread<'_>,
    p: &PerThread,
    index: u64,
    key: Src,
    val: Src,
    keys: ObjId,
    vals: ObjId,
    offsets: ObjId,
) {
    t.alu(2);
    let [kx, ky] = ld2(t, p.kv_off, index);
    let psk: i32 = t.ld(p.ps_k, index);
    let psv: i32 = t.ld(p.ps_v, index);
    t.alu(4);
    copy_bytes(t, key, keys, (psk + kx) as u64);
    copy_bytes(t, val, vals, (psv + ky) as u64);
    let (kl, vl) = (key.len() as i32, val.len() as i32);
    t.alu(2);
    st2(t, p.kv_off, index, [kx + kl, ky + vl]);
    let cur: i32 = t.ld(p.cur, index);
    let psc: i32 = t.ld(p.ps_c, index);
    t.alu(3);
    let at = (cur + psc) as u64;
    let mut r1 = ld4(t, offsets, at);
    let r2 = ld4(t, offsets, at.saturating_sub(1));
    t.alu(1);
    t.branch(1);
    if cur != 0 {
        t.alu(2);
        r1[0] = r2[0] + r2[1];
        r1[2] = r2[2] + r2[3];
    }
    r1[1] = kl;
    r1[3] = vl;
    st4(t, offsets, at, r1);
    t.alu(1);
    t.st(p.cur, index, cur + 1);
}

/// Append the steps of one Mars job (`MapReduce(spec)`), allocating its buffers; `tag`
/// prefixes object names (PageViewCount runs two jobs).
pub(crate) fn job(
    m: &mut Memory,
    steps: &mut Vec<Step>,
    tag: &str,
    app: Arc<dyn App>,
    input: Input,
    tot: Totals,
    flow: Workflow,
) -> Output {
    let recs = tot.records;
    let blocks = recs.div_ceil(BLOCK as u64).max(1);
    let threads = blocks * BLOCK as u64;
    // ---- map count ----
    let pt = per_thread(m, &format!("{tag}inter"), threads);
    {
        let app = app.clone();
        steps.push(Step::Launch(kernel(
            "MapperCount",
            blocks,
            BLOCK,
            0,
            1,
            move |t, _| {
                let index = t.gid();
                entry(t);
                if index >= recs {
                    return;
                }
                t.alu(2);
                let os = ld4(t, input.offsets, index);
                t.alu(4);
                let rec = Rec {
                    key_off: os[0] as u64,
                    val_off: os[2] as u64,
                };
                app.map_count(t, rec, &mut |t, ks, vs| emit_count(t, &pt, index, ks, vs));
            },
        )));
    }
    // ---- prefix sums ----
    prefix_sum(m, steps, &format!("{tag}psK"), pt.ks, pt.ps_k, threads);
    prefix_sum(m, steps, &format!("{tag}psV"), pt.vs, pt.ps_v, threads);
    prefix_sum(m, steps, &format!("{tag}psC"), pt.cnt, pt.ps_c, threads);
    if tot.pairs == 0 {
        // Mars stops here ("No output")
        let none = m.alloc::<u8>(&format!("{tag}noOutput"), 0, false);
        return Output {
            keys: none,
            vals: none,
            offsets: none,
            ranges: None,
            records: 0,
            key_bytes: 0,
            val_bytes: 0,
        };
    }
    // ---- map ----
    let keys = m.alloc::<u8>(&format!("{tag}interKeys"), tot.key_bytes, false);
    let vals = m.alloc::<u8>(&format!("{tag}interVals"), tot.val_bytes, false);
    let offsets = m.alloc::<i32>(&format!("{tag}interOffsetSizes"), 4 * tot.pairs, false);
    {
        let app = app.clone();
        steps.push(Step::Launch(kernel(
            "Mapper",
            blocks,
            BLOCK,
            BLOCK * 5 * 4,
            1,
            move |t, _| {
                let index = t.gid();
                entry(t);
                if index >= recs {
                    return;
                }
                let psc: i32 = t.ld(pt.ps_c, index);
                t.alu(2);
                let mut r = ld4(t, offsets, psc as u64);
                r[0] = t.ld(pt.ps_k, index);
                r[2] = t.ld(pt.ps_v, index);
                st4(t, offsets, psc as u64, r);
                t.alu(2);
                let os = ld4(t, input.offsets, index);
                t.alu(4);
                let rec = Rec {
                    key_off: os[0] as u64,
                    val_off: os[2] as u64,
                };
                app.map(t, rec, &mut |t, k, v| {
                    emit_pair(t, &pt, index, k, v, keys, vals, offsets)
                });
            },
        )));
    }
    let mut out = Output {
        keys,
        vals,
        offsets,
        ranges: None,
        records: tot.pairs,
        key_bytes: tot.key_bytes,
        val_bytes: tot.val_bytes,
    };
    if flow == Workflow::MapOnly {
        return out;
    }
    let (g_keys, g_vals, g_offs, ranges) = group(m, steps, tag, &app, keys, vals, offsets, tot);
    out = Output {
        keys: g_keys,
        vals: g_vals,
        offsets: g_offs,
        ranges: Some(ranges),
        ..out
    };
    if flow == Workflow::MapGroup {
        return out;
    }
    reduce(m, steps, tag, &app, out, tot.groups)
}

/// `startGroup` / `sort_GPU`: bitonic sort of the records, gather of values and keys into
/// sorted buffers, group boundaries. Returns (keys, vals, offsets, ranges).
#[allow(clippy::too_many_arguments)]
fn group(
    m: &mut Memory,
    steps: &mut Vec<Step>,
    tag: &str,
    app: &Arc<dyn App>,
    keys: ObjId,
    vals: ObjId,
    offsets: ObjId,
    tot: Totals,
) -> (ObjId, ObjId, ObjId, ObjId) {
    let n = tot.pairs;
    let out_keys = m.alloc::<u8>(&format!("{tag}outputKeys"), tot.key_bytes, false);
    let out_vals = m.alloc::<u8>(&format!("{tag}outputVals"), tot.val_bytes, false);
    let out_ptr = m.alloc::<i32>(&format!("{tag}outputOffsetSizes"), 4 * n, false);
    // ---- bitonicSortGPU (rLen <= 256 K: one bitonicKernel launch per (k, j)) ----
    let np2 = n.next_power_of_two().max(256);
    let d_r = m.alloc::<i32>(&format!("{tag}d_R"), 4 * np2, false);
    steps.push(Step::Launch(chunked(
        "initialize_kernel",
        np2,
        512,
        move |t, pos| {
            t.alu(1);
            st4(t, d_r, pos, [-1; 4]);
        },
    )));
    steps.push(Step::Copy {
        src: offsets,
        src_off: 0,
        dst: d_r,
        dst_off: 0,
        bytes: 16 * n,
    });
    let mut k = 2;
    while k <= np2 {
        let mut j = k / 2;
        while j > 0 {
            let app = app.clone();
            steps.push(Step::Launch(kernel(
                "bitonicKernel",
                np2 / 256,
                256,
                0,
                1,
                move |t, _| {
                    let idx = t.gid();
                    t.alu(5);
                    let ixj = idx ^ j;
                    t.branch(1);
                    if ixj <= idx {
                        return;
                    }
                    let a = ld4(t, d_r, idx);
                    let b = ld4(t, d_r, ixj);
                    let c = cmp_records(t, &*app, keys, a, b);
                    t.alu(1);
                    t.branch(1);
                    let swap = if idx & k == 0 { c == 1 } else { c == -1 };
                    if swap {
                        st4(t, d_r, idx, b);
                        st4(t, d_r, ixj, a);
                    }
                },
            )));
            j /= 2;
        }
        k *= 2;
    }
    steps.push(Step::Copy {
        src: d_r,
        src_off: 16 * (np2 - n),
        dst: out_ptr,
        dst_off: 0,
        bytes: 16 * n,
    });
    // ---- scatter the values, then the keys ----
    let pa = m.alloc::<u64>(&format!("{tag}d_PA"), n, false);
    for (what, src, dst, hi) in [("ZW", vals, out_vals, true), ("XY", keys, out_keys, false)] {
        let get = if hi {
            "getZWArray_kernel"
        } else {
            "getXYArray_kernel"
        };
        steps.push(Step::Launch(chunked(get, n, 512, move |t, pos| {
            let r = ld4(t, out_ptr, pos);
            let v = if hi { [r[2], r[3]] } else { [r[0], r[1]] };
            st2(t, pa, pos, v);
        })));
        let size = m.alloc::<i32>(&format!("{tag}d_size{what}"), n, false);
        steps.push(Step::Launch(chunked(
            "getIntYArray_kernel",
            n,
            512,
            move |t, pos| {
                let v = ld2(t, pa, pos);
                t.st(size, pos, v[1]);
            },
        )));
        let sum = m.alloc::<i32>(&format!("{tag}d_sum{what}"), n, false);
        prefix_sum(m, steps, &format!("{tag}copy{what}"), size, sum, n);
        steps.push(Step::Launch(chunked(
            "copyChunks_kernel",
            n,
            128,
            move |t, pos| {
                let [off, sz] = ld2(t, pa, pos);
                let at: i32 = t.ld(sum, pos);
                t.alu(2);
                for i in 0..sz.max(0) as u64 {
                    t.alu(1);
                    let b: u8 = t.ld(src, off as u64 + i);
                    t.st(dst, at as u64 + i, b);
                    loop_step(t);
                }
                st2(t, pa, pos, [at, sz]);
            },
        )));
        let set = if hi {
            "setZWArray_kernel"
        } else {
            "setXYArray_kernel"
        };
        steps.push(Step::Launch(chunked(set, n, 512, move |t, pos| {
            let mut r = ld4(t, out_ptr, pos);
            let v = ld2(t, pa, pos);
            if hi {
                r[2] = v[0];
                r[3] = v[1];
            } else {
                r[0] = v[0];
                r[1] = v[1];
            }
            st4(t, out_ptr, pos, r);
        })));
    }
    // ---- getChunkBoundary ----
    let start = m.alloc::<i32>(&format!("{tag}d_startArray"), n, false);
    {
        let app = app.clone();
        steps.push(Step::Launch(chunked(
            "getChunkBoundary_kernel",
            n,
            512,
            move |t, pos| {
                t.branch(1);
                let flag = if pos == 0 {
                    1
                } else {
                    let cur = ld4(t, out_ptr, pos);
                    let left = ld4(t, out_ptr, pos - 1);
                    i32::from(cmp_records(t, &*app, out_keys, cur, left) != 0)
                };
                t.st(start, pos, flag);
            },
        )));
    }
    let start_sum = m.alloc::<i32>(&format!("{tag}d_startSumArray"), n, false);
    prefix_sum(m, steps, &format!("{tag}bound"), start, start_sum, n);
    let groups = tot.groups;
    let boundary = m.alloc::<i32>(&format!("{tag}d_boundary"), groups, false);
    steps.push(Step::Launch(chunked(
        "writeBoundary_kernel",
        n,
        512,
        move |t, pos| {
            let flag: i32 = t.ld(start, pos);
            let at: i32 = t.ld(start_sum, pos);
            t.alu(2);
            t.branch(1);
            if flag == 1 {
                t.st(boundary, at as u64, pos as i32);
            }
        },
    )));
    let ranges = m.alloc::<u64>(&format!("{tag}KeyListRange"), groups, false);
    steps.push(Step::Launch(chunked(
        "setBoundaryInt2_kernel",
        groups,
        512,
        move |t, pos| {
            let x: i32 = t.ld(boundary, pos);
            t.branch(1);
            let y = if pos + 1 != groups {
                t.ld(boundary, pos + 1)
            } else {
                n as i32
            };
            st2(t, ranges, pos, [x, y]);
        },
    )));
    (out_keys, out_vals, out_ptr, ranges)
}

/// `getCompareValue`: padding records (`x == -1`) sort first, others by the application's
/// `compare` over their key bytes.
fn cmp_records(t: &mut Thread<'_>, app: &dyn App, raw: ObjId, a: [i32; 4], b: [i32; 4]) -> i32 {
    t.alu(2);
    t.branch(1);
    if a[0] == -1 || b[0] == -1 {
        return if a[0] == b[0] {
            0
        } else if a[0] == -1 {
            -1
        } else {
            1
        };
    }
    app.compare(t, raw, a[0] as u64, b[0] as u64)
}

/// Mars's fixed launch shape for its helper kernels (`numBlock_x = 512` blocks of `threads`
/// threads per chunk of `512 * threads` elements, one launch per chunk; threads past `n`
/// exit after the bound test).
fn chunked(
    name: &'static str,
    n: u64,
    threads: u32,
    f: impl Fn(&mut Thread<'_>, u64) + Send + Sync + 'static,
) -> Box<dyn Kernel> {
    // Inputs here stay below one chunk (512 x threads elements) in every default; larger
    // ones run as one launch with as many blocks as needed.
    let blocks = n.div_ceil(threads as u64).max(512);
    kernel(name, blocks, threads, 0, 1, move |t, _| {
        let pos = t.gid();
        t.alu(7);
        t.branch(1);
        if pos < n {
            f(t, pos);
        }
    })
}

/// `startReduce`: `ReducerCount`, three prefix sums, `Reducer`, one group per thread.
fn reduce(
    m: &mut Memory,
    steps: &mut Vec<Step>,
    tag: &str,
    app: &Arc<dyn App>,
    inter: Output,
    groups: u64,
) -> Output {
    let ranges = inter.ranges.expect("reduce after group");
    let blocks = groups.div_ceil(BLOCK as u64).max(1);
    let threads = blocks * BLOCK as u64;
    let pt = per_thread(m, &format!("{tag}output"), threads);
    let (ks, vs) = app.reduce_count();
    steps.push(Step::Launch(kernel(
        "ReducerCount",
        blocks,
        BLOCK,
        0,
        1,
        move |t, _| {
            let index = t.gid();
            entry(t);
            if index >= groups {
                return;
            }
            let [first, _end] = ld2(t, ranges, index);
            t.alu(3);
            let _r = ld4(t, inter.offsets, first as u64);
            emit_count(t, &pt, index, ks, vs);
        },
    )));
    prefix_sum(m, steps, &format!("{tag}rpsK"), pt.ks, pt.ps_k, threads);
    prefix_sum(m, steps, &format!("{tag}rpsV"), pt.vs, pt.ps_v, threads);
    prefix_sum(m, steps, &format!("{tag}rpsC"), pt.cnt, pt.ps_c, threads);
    let (kb, vb) = (groups * ks as u64, groups * vs as u64);
    let keys = m.alloc::<u8>(&format!("{tag}reduceKeys"), kb, false);
    let vals = m.alloc::<u8>(&format!("{tag}reduceVals"), vb, false);
    let offsets = m.alloc::<i32>(&format!("{tag}reduceOffsetSizes"), 4 * groups, false);
    let app2 = app.clone();
    steps.push(Step::Launch(kernel(
        "Reducer",
        blocks,
        BLOCK,
        BLOCK * 5 * 4,
        1,
        move |t, _| {
            let index = t.gid();
            entry(t);
            if index >= groups {
                return;
            }
            let psc: i32 = t.ld(pt.ps_c, index);
            let psk: i32 = t.ld(pt.ps_k, index);
            let psv: i32 = t.ld(pt.ps_v, index);
            let mut r = ld4(t, offsets, psc as u64);
            r[0] = psk;
            r[2] = psv;
            st4(t, offsets, psc as u64, r);
            let [first, _end] = ld2(t, ranges, index);
            t.alu(3);
            let rec = ld4(t, inter.offsets, first as u64);
            t.alu(4);
            app2.reduce(t, inter.vals, rec[2] as u64);
            let key = Src::Global {
                obj: inter.keys,
                off: rec[0] as u64,
                len: ks,
            };
            let val = Src::Global {
                obj: inter.vals,
                off: rec[2] as u64,
                len: vs,
            };
            emit_pair(t, &pt, index, key, val, keys, vals, offsets);
        },
    )));
    Output {
        keys,
        vals,
        offsets,
        ranges: None,
        records: groups,
        key_bytes: kb,
        val_bytes: vb,
    }
}

/// Lay out map input records as `AddMapInputRecord` does: keys and values appended to two
/// byte buffers, an `int4` (key offset, key size, value offset, value size) per record.
pub(crate) fn input_records(m: &mut Memory, tag: &str, recs: &[(Vec<u8>, Vec<u8>)]) -> Input {
    let mut kb = Vec::new();
    let mut vb = Vec::new();
    let mut os = Vec::with_capacity(recs.len() * 4);
    for (k, v) in recs {
        os.extend_from_slice(&[
            kb.len() as i32,
            k.len() as i32,
            vb.len() as i32,
            v.len() as i32,
        ]);
        kb.extend_from_slice(k);
        vb.extend_from_slice(v);
    }
    Input {
        keys: m.alloc_from(&format!("{tag}inputKeys"), &kb, false),
        vals: m.alloc_from(&format!("{tag}inputVals"), &vb, true),
        offsets: m.alloc_from(&format!("{tag}inputOffsetSizes"), &os, true),
    }
}

/// Seeded Zipf sampler over ranks `0..n` (exponent `s`), by inverse CDF.
pub(crate) struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    pub(crate) fn new(n: usize, s: f64) -> Self {
        let mut cdf = Vec::with_capacity(n);
        let mut acc = 0.0;
        for r in 0..n {
            acc += 1.0 / ((r + 1) as f64).powf(s);
            cdf.push(acc);
        }
        for c in &mut cdf {
            *c /= acc;
        }
        Zipf { cdf }
    }
    pub(crate) fn sample(&self, rng: &mut crate::gen::rng::Rng) -> usize {
        let u = rng.f64();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}
