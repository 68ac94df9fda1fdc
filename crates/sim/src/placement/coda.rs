//! CODA data placement (Kim et al., TACO 2018, §4.3; spec §3.4-§3.7).
//!
//! Before the first kernel that uses an object, find `B`, the bytes of the object one thread
//! block uses, the way the paper's runtime does when compile-time analysis cannot: generate
//! sampled pairs of consecutive thread blocks without side effects, and for every access
//! site (warp, instruction position) compare the lowest byte address its lanes touch in the
//! object (`B` in bytes, spec §3.4; a workload that records no lanes gives its lowest line).
//! A site whose difference is the same in every sample has a runtime-constant stride (RCS);
//! zero means data shared by all blocks; differing values mean an irregular (data-dependent)
//! site. Per object (spec §3.5 / A10): any regular site → CGP with the `B` of the heaviest
//! regular site; only shared or irregular sites → FGP. Graphs take the profiler path
//! (§3.7): the workload's [`ProfileHint`] gives the mean bytes per block and their
//! coefficient of variation; CGP only when CV <= `cv_max`.
//!
//! The placement is then Eqs. 2-3 with span `S = B · N_bpg`: by default as the paper's text
//! says (`chunk = min(4 KB, S)` rounded up to whole pages, `placement.rounding =
//! "paper-roundup"`), or, as a named option that is not the paper's rule, per page against
//! the exact span (the page goes to the GPU owning its middle byte, `"per-page-majority"`,
//! spec A2). The first kernel that uses an object decides it (spec §3.4, A11), unless the
//! option `placement.defer_whole_object` leaves an object one chunk would hold to a later
//! kernel; an object that kernel touches outside its sampled blocks is fixed fine-grained
//! at its first page's mapping ([`Reason::NotSampled`], `crate::placement::Placement`),
//! unless the option `placement.defer_unsampled` leaves it to a later kernel too.

use super::ObjPlacement;
use crate::config::{CodaRounding, PlacementCfg};
use locus_workload::{
    BlockProgram, DataObject, KernelInfo, ObjId, ProfileHint, Space, Workload, WorkloadError,
    NO_OBJ,
};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// CODA Eq. 3: the GPU that owns byte `offset` of an object placed in chunks of `span`
/// bytes (`span = B x N_blocks_per_GPU`, Eq. 2 without the page rounding).
#[inline]
pub fn eq3_node(offset: u64, span: u64, nodes: u32) -> u32 {
    ((offset / span.max(1)) % nodes as u64) as u32
}

/// Eq. 3 on a machine of unequal nodes (issue 7 §4): chunks follow the affinity scheduler's
/// rotation, in which node `g` takes a batch of blocks proportional to its SM count
/// (`node_sms[g]`, zero for a memory-only node, which then gets no chunk). `span` covers the
/// largest node's batch, so one SM's share is `span / max(node_sms)`; the byte at `offset`
/// belongs to the node whose SMs hold share `(offset / share) mod total SMs`. On identical
/// nodes this is exactly [`eq3_node`].
pub fn eq3_node_weighted(offset: u64, span: u64, node_sms: &[u32]) -> u32 {
    let spn = node_sms.iter().copied().max().unwrap_or(0) as u128;
    let total: u128 = node_sms.iter().map(|&s| s as u128).sum();
    if spn == 0 || total == 0 {
        return 0;
    }
    let mut r = (offset as u128 * spn / span.max(1) as u128) % total;
    for (g, &s) in node_sms.iter().enumerate() {
        if r < s as u128 {
            return g as u32;
        }
        r -= s as u128;
    }
    0
}

/// Why an object got its placement (reported in statistics).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Reason {
    /// Regular sites with a runtime-constant stride of `b` bytes per block.
    Stride { b: u64 },
    /// Profiler estimate (graphs) with its coefficient of variation.
    Profiled { b: u64, cv: f64 },
    /// Every site has stride 0: shared by all blocks.
    Shared,
    /// Sites with data-dependent strides only.
    Irregular,
    /// Smaller than one page (spec A24) or too few blocks to sample.
    Small,
    /// Profiled, but the CV is above `cv_max`.
    TooIrregular { cv: f64 },
    /// 2-D grid whose strides are not linear in the flattened block id (spec §3.6).
    NonLinear2d,
    /// Touched first by a kernel none of whose sampled blocks touched it (or whose grid was
    /// too small to sample): no stride seen, fine-grained at its first page's mapping, and
    /// never re-placed by a later kernel (spec A11).
    NotSampled,
}

/// A decision for one object.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Decision {
    pub obj: ObjId,
    pub placement: ObjPlacement,
    pub reason: Reason,
}

/// One site's lowest byte address in an object and its line requests there, in one block.
#[derive(Clone, Copy)]
struct Site {
    addr: u64,
    lines: u64,
}

#[derive(Default, Clone, Copy)]
struct SiteStat {
    delta: i64,
    seen: u32,
    consistent: bool,
    weight: u64,
}

/// Per (object, site) lowest byte address one block touches, and the line requests the
/// site makes in the object (its weight). A site is a warp's dynamic memory instruction
/// (warp index, position). The address is the lowest lane's byte address when the
/// workload records lanes (kernel models and traces do): `B` is then exact, as Alg. 1's
/// `index_K - index_{K-1}` is, even when it is not a whole number of lines (spec §3.4:
/// `B` is the RCS in bytes). A workload that records no lanes gives its lowest line.
fn site_addrs(bp: &BlockProgram, line_bytes: u32, out: &mut FxHashMap<(ObjId, u32, u32), Site>) {
    out.clear();
    let mask = !(line_bytes.max(1) as u64 - 1);
    for (w, wp) in bp.warps.iter().enumerate() {
        for (i, inst) in wp.insts.iter().enumerate() {
            if !inst.class.is_mem() || inst.space == Space::Shared {
                continue;
            }
            let lines = wp.lines_of(inst);
            for l in lines {
                if l.obj == NO_OBJ {
                    continue;
                }
                let e = out.entry((l.obj, w as u32, i as u32)).or_insert(Site {
                    addr: u64::MAX,
                    lines: 0,
                });
                e.lines += 1;
            }
            match wp.lanes_of(i) {
                Some(lanes) if !lanes.is_empty() => {
                    for la in lanes {
                        let line = la.addr & mask;
                        let Some(l) = lines.iter().find(|l| l.addr == line && l.obj != NO_OBJ)
                        else {
                            continue;
                        };
                        if let Some(e) = out.get_mut(&(l.obj, w as u32, i as u32)) {
                            e.addr = e.addr.min(la.addr);
                        }
                    }
                }
                _ => {
                    for l in lines.iter().filter(|l| l.obj != NO_OBJ) {
                        let e = out
                            .get_mut(&(l.obj, w as u32, i as u32))
                            .expect("inserted above");
                        e.addr = e.addr.min(l.addr);
                    }
                }
            }
        }
    }
    // a site whose lanes all missed their lines (cannot happen when lanes coalesce to
    // the lines) falls back to nothing: drop it rather than compare u64::MAX
    out.retain(|_, s| s.addr != u64::MAX);
}

/// Per-object stride from sampled block pairs `(a, b)`; `None` per object when no regular
/// site. Returns (obj → (stride, all sites shared?)).
///
/// Several regular sites of one object that disagree (spec §3.5 [S], A10): the stride
/// whose sites carry the most weight wins, ties to the largest |B|. A site's weight is
/// its line requests in the object over the sampled blocks: the dynamic stand-in for
/// Alg. 1's static weight (a site is a warp's dynamic instruction, so a static site in a
/// loop is as many sites as iterations, and their weights add up under one stride).
fn strides(
    launch: &mut dyn Workload,
    pairs: &[(u64, u64)],
    line_bytes: u32,
) -> Result<FxHashMap<ObjId, (Option<i64>, bool)>, WorkloadError> {
    let mut sites: FxHashMap<(ObjId, u32, u32), SiteStat> = FxHashMap::default();
    let (mut bp, mut a_map, mut b_map) = (
        BlockProgram {
            record_lanes: true,
            ..Default::default()
        },
        FxHashMap::default(),
        FxHashMap::default(),
    );
    for &(a, b) in pairs {
        launch.gen_block(a, true, line_bytes, &mut bp)?;
        site_addrs(&bp, line_bytes, &mut a_map);
        launch.gen_block(b, true, line_bytes, &mut bp)?;
        site_addrs(&bp, line_bytes, &mut b_map);
        for (k, sb) in &b_map {
            let s = sites.entry(*k).or_insert(SiteStat {
                consistent: true,
                ..Default::default()
            });
            s.weight += sb.lines;
            match a_map.get(k) {
                Some(sa) => {
                    s.weight += sa.lines;
                    let d = sb.addr as i64 - sa.addr as i64;
                    if s.seen > 0 && d != s.delta {
                        s.consistent = false;
                    }
                    s.delta = d;
                    s.seen += 1;
                }
                None => s.consistent = false,
            }
        }
    }
    // per object: the weight of each regular (consistent, nonzero) stride, and whether
    // every site is shared (stride 0 in every pair)
    let mut weights: FxHashMap<(ObjId, i64), u64> = FxHashMap::default();
    let mut per: FxHashMap<ObjId, (Option<i64>, bool)> = FxHashMap::default();
    for (k, s) in &sites {
        let e = per.entry(k.0).or_insert((None, true));
        let regular = s.consistent && s.seen as usize == pairs.len() && s.delta != 0;
        let shared = s.consistent && s.seen > 0 && s.delta == 0;
        if !shared {
            e.1 = false;
        }
        if regular {
            *weights.entry((k.0, s.delta)).or_default() += s.weight;
        }
    }
    let mut best: FxHashMap<ObjId, (u64, i64)> = FxHashMap::default();
    for (&(o, d), &w) in &weights {
        let e = best.entry(o).or_insert((w, d));
        if w > e.0 || (w == e.0 && (d.abs(), d) > (e.1.abs(), e.1)) {
            *e = (w, d);
        }
    }
    for (o, (_, d)) in best {
        per.get_mut(&o).expect("object of a site").0 = Some(d);
    }
    Ok(per)
}

/// Evenly spread sample block ids, deterministic.
fn sample_points(n: u64, k: u32, step: u64) -> Vec<u64> {
    // blocks b with b - step >= 0; avoid row boundaries for x-steps handled by caller
    let lo = step;
    if n <= lo {
        return Vec::new();
    }
    let span = n - lo;
    let k = (k as u64).min(span).max(1);
    (0..k)
        .map(|i| lo + (i * span) / k + (span / k) / 2)
        .map(|b| b.min(n - 1))
        .collect()
}

/// Analyse the current launch (`info`) of `launch` and decide placements for the objects in
/// `undecided` that it touches.
#[allow(clippy::too_many_arguments)]
pub fn analyze(
    launch: &mut dyn Workload,
    info: &KernelInfo,
    objs: &[DataObject],
    undecided: &[bool],
    nbpg: u64,
    page_bytes: u64,
    line_bytes: u32,
    cfg: &PlacementCfg,
) -> Result<Vec<Decision>, WorkloadError> {
    let gx = info.grid.x as u64;
    let n = info.num_blocks();
    let mut out = Vec::new();
    let hints: Vec<ProfileHint> = launch.launch_hints();
    // x-pairs: consecutive ids in one grid row
    let mut xpairs = Vec::new();
    for b in sample_points(n, cfg.samples, 1) {
        let b = if gx > 1 && b % gx == 0 { b + 1 } else { b };
        if b < n && (gx == 1 || b % gx != 0) {
            xpairs.push((b - 1, b));
        }
    }
    xpairs.dedup();
    if xpairs.is_empty() {
        return Ok(out);
    }
    let sx = strides(launch, &xpairs, line_bytes)?;
    let sy = if info.grid.y > 1 {
        let ypairs: Vec<(u64, u64)> = sample_points(n, cfg.samples, gx)
            .into_iter()
            .map(|b| (b - gx, b))
            .collect();
        Some(strides(launch, &ypairs, line_bytes)?)
    } else {
        None
    };
    let mut touched: Vec<ObjId> = sx.keys().copied().collect();
    touched.extend(hints.iter().map(|h| h.obj));
    touched.sort_unstable();
    touched.dedup();
    for o in touched {
        if !undecided.get(o as usize).copied().unwrap_or(false) {
            continue;
        }
        let obj = &objs[o as usize];
        let decide = |stride: i64, reason: Reason| -> Decision {
            let span = stride.unsigned_abs().saturating_mul(nbpg).max(1);
            let from_end = stride < 0;
            let placement = match cfg.rounding {
                CodaRounding::PerPageMajority => ObjPlacement::Cgp {
                    span,
                    round: page_bytes / 2,
                    from_end,
                },
                CodaRounding::PaperRoundup => {
                    let chunk = span.min(4096).div_ceil(page_bytes) * page_bytes;
                    ObjPlacement::Cgp {
                        span: chunk,
                        round: 0,
                        from_end,
                    }
                }
            };
            Decision {
                obj: o,
                placement,
                reason,
            }
        };
        let fgp = |reason| Decision {
            obj: o,
            placement: ObjPlacement::Fgp,
            reason,
        };
        if obj.bytes < page_bytes {
            out.push(fgp(Reason::Small));
            continue;
        }
        if let Some(h) = hints.iter().find(|h| h.obj == o) {
            if h.cv <= cfg.cv_max && h.bytes_per_block >= 1.0 {
                out.push(decide(
                    h.bytes_per_block.round() as i64,
                    Reason::Profiled {
                        b: h.bytes_per_block.round() as u64,
                        cv: h.cv,
                    },
                ));
            } else {
                out.push(fgp(Reason::TooIrregular { cv: h.cv }));
            }
            continue;
        }
        let (bx, shared_x) = sx.get(&o).copied().unwrap_or((None, false));
        let d = match (&sy, bx) {
            (None, Some(b)) => decide(
                b,
                Reason::Stride {
                    b: b.unsigned_abs(),
                },
            ),
            (None, None) => fgp(if shared_x {
                Reason::Shared
            } else {
                Reason::Irregular
            }),
            (Some(sy), _) => {
                let (by, shared_y) = sy.get(&o).copied().unwrap_or((None, false));
                match (bx, by) {
                    (Some(x), Some(y)) if y == x * gx as i64 => decide(
                        x,
                        Reason::Stride {
                            b: x.unsigned_abs(),
                        },
                    ),
                    // Alg. 1 differentiates w.r.t. blockIdx.x: stride 0 there is RCS = 0,
                    // shared (FGP); reading the y stride per grid row (spec §3.6 [S]) is the
                    // named option `placement.rows_2d`, not the paper's rule
                    (None, Some(_)) if shared_x && !cfg.rows_2d => fgp(Reason::Shared),
                    (None, Some(y)) if shared_x => {
                        let b = y.unsigned_abs() / gx.max(1);
                        if b == 0 {
                            fgp(Reason::NonLinear2d)
                        } else {
                            decide(b as i64, Reason::Stride { b })
                        }
                    }
                    (None, None) if shared_x && shared_y => fgp(Reason::Shared),
                    (None, None) => fgp(Reason::Irregular),
                    _ => fgp(Reason::NonLinear2d),
                }
            }
        };
        // option `placement.defer_whole_object` (not the paper's rule, whose first kernel
        // decides): a chunk as large as the whole object would put all of it on one GPU,
        // so leave the object to a later kernel with more blocks (GE's 3-block Fan1)
        if let ObjPlacement::Cgp { span, .. } = d.placement {
            if cfg.defer_whole_object && span >= obj.bytes {
                continue;
            }
        }
        out.push(d);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_workload::registry;
    use std::collections::BTreeMap;

    fn cfg() -> PlacementCfg {
        PlacementCfg::default()
    }

    #[test]
    fn vectoradd_arrays_get_block_stride() {
        let mut ov = BTreeMap::new();
        ov.insert("n".to_string(), "64k".to_string());
        let mut w = registry::build("vectoradd", &ov, 1).unwrap();
        let objs = w.objects().to_vec();
        let info = w.begin_launch().unwrap().unwrap();
        let mut c = cfg();
        c.rounding = CodaRounding::PerPageMajority;
        let d = analyze(&mut w, &info, &objs, &[true; 3], 24, 4096, 128, &c).unwrap();
        assert_eq!(d.len(), 3);
        for x in d {
            // 256 threads x 4 B per block; span = 1 KB x 24
            assert_eq!(x.reason, Reason::Stride { b: 1024 });
            assert_eq!(
                x.placement,
                ObjPlacement::Cgp {
                    span: 24 * 1024,
                    round: 2048,
                    from_end: false
                }
            );
        }
    }

    #[test]
    fn default_is_the_papers_literal_eq2() {
        // Eq. 2 literally: chunk = min(4 KB, B x N_bpg) rounded up to pages = one page
        assert_eq!(cfg().rounding, CodaRounding::PaperRoundup);
        assert!(
            !cfg().defer_whole_object,
            "the first kernel decides (spec §3.4)"
        );
        let mut ov = BTreeMap::new();
        ov.insert("n".to_string(), "64k".to_string());
        let mut w = registry::build("vectoradd", &ov, 1).unwrap();
        let objs = w.objects().to_vec();
        let info = w.begin_launch().unwrap().unwrap();
        let d = analyze(&mut w, &info, &objs, &[true; 3], 24, 4096, 128, &cfg()).unwrap();
        for x in d {
            assert_eq!(
                x.placement,
                ObjPlacement::Cgp {
                    span: 4096,
                    round: 0,
                    from_end: false
                }
            );
        }
    }

    // ---- Algorithm 1's own cases (spec §8.2 test 6/7), given to the runtime stride sampling
    // that stands in for it: each kernel below has one access site whose index is the case.

    use locus_workload::{Dim3, Host, Kernel, Memory, ModelWorkload, Thread};

    #[derive(Clone, Copy)]
    enum Case {
        /// `x[threadIdx.x]`: no blockIdx, RCS = 0.
        Tx,
        /// `level[elist[e]]`, `e = gid`: the index is a loaded value.
        LoadDep,
        /// GE Fan2's pivot row `a[Size*t + (by*4 + ty + t)]`: independent of blockIdx.x.
        GePivot,
        /// K-means `in[(bx*bd + tx)*nf + i]`, i over nf features.
        KmIn,
        /// `x[gid]` with 48 threads per block: B = 192 B, not a whole number of lines.
        Narrow,
        /// Two regular sites that disagree: `x[gid*8 + i]` for 8 values of i (one warp
        /// per block: B = 1 KB, 64 line requests per block) and `x[bx*2048 + tx]` once
        /// (B = 8 KB, one line request).
        TwoSites,
    }

    struct K {
        case: Case,
        obj: ObjId,
        idx: ObjId,
        grid: Dim3,
        block: Dim3,
    }
    const SIZE: u64 = 256;
    const NF: u64 = 34;
    impl Kernel for K {
        fn info(&self) -> KernelInfo {
            KernelInfo {
                name: "alg1".into(),
                grid: self.grid,
                block: self.block,
                regs_per_thread: 16,
                smem_per_block: 0,
            }
        }
        fn thread(&self, t: &mut Thread<'_>, _p: u32) {
            match self.case {
                Case::Tx => {
                    let _: f32 = t.ld(self.obj, t.tid.x as u64);
                }
                Case::LoadDep => {
                    let e = t.gid();
                    let v: u32 = t.ld(self.idx, e);
                    let _: u32 = t.ld(self.obj, v as u64);
                }
                Case::GePivot => {
                    let tstep = 3;
                    let y = t.block.y as u64 * 4 + t.tid.y as u64;
                    let _: f32 = t.ld(self.obj, SIZE * tstep + y + tstep);
                }
                Case::KmIn => {
                    let pid = t.block_id() * 256 + t.tid.x as u64;
                    for i in 0..NF {
                        let _: f32 = t.ld(self.obj, pid * NF + i);
                    }
                }
                Case::Narrow => {
                    let _: f32 = t.ld(self.obj, t.gid());
                }
                Case::TwoSites => {
                    for i in 0..8 {
                        let _: f32 = t.ld(self.obj, t.gid() * 8 + i);
                    }
                    let _: f32 = t.ld(self.obj, t.block_id() * 2048 + t.tid.x as u64);
                }
            }
        }
    }
    struct Once(Option<Box<dyn Kernel>>);
    impl Host for Once {
        fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
            self.0.take()
        }
    }

    fn alg1(case: Case) -> (ModelWorkload, KernelInfo, Vec<DataObject>) {
        let mut m = Memory::new();
        let mut rng = locus_workload::gen::rng::Rng::new(7);
        let (grid, block, n) = match case {
            Case::Tx => (Dim3::x(64), Dim3::x(256), 64 * 256),
            Case::LoadDep => (Dim3::x(64), Dim3::x(256), 64 * 256),
            Case::GePivot => (Dim3::new(16, 64, 1), Dim3::new(4, 4, 1), SIZE * SIZE),
            Case::KmIn => (Dim3::x(96), Dim3::x(256), 96 * 256 * NF),
            Case::Narrow => (Dim3::x(256), Dim3::x(48), 256 * 48),
            Case::TwoSites => (Dim3::x(64), Dim3::x(32), 64 * 2048),
        };
        let obj = m.alloc::<f32>("obj", n, true);
        let perm: Vec<u32> = (0..n).map(|_| rng.below(n) as u32).collect();
        let idx = m.alloc_from("idx", &perm, true);
        let k = K {
            case,
            obj,
            idx,
            grid,
            block,
        };
        let mut w = ModelWorkload::new("alg1", m, Box::new(Once(Some(Box::new(k)))));
        let objs = w.objects().to_vec();
        let info = w.begin_launch().unwrap().unwrap();
        (w, info, objs)
    }

    fn decide(case: Case, c: &PlacementCfg) -> Decision {
        let (mut w, info, objs) = alg1(case);
        let d = analyze(&mut w, &info, &objs, &[true, false], 24, 4096, 128, c).unwrap();
        assert_eq!(d.len(), 1, "one decision for the accessed object");
        d[0]
    }

    #[test]
    fn alg1_thread_index_only_is_rcs_zero_and_stays_fgp() {
        let d = decide(Case::Tx, &cfg());
        assert_eq!((d.reason, d.placement), (Reason::Shared, ObjPlacement::Fgp));
    }

    #[test]
    fn alg1_loaded_index_is_skipped_and_stays_fgp() {
        let d = decide(Case::LoadDep, &cfg());
        assert_eq!(
            (d.reason, d.placement),
            (Reason::Irregular, ObjPlacement::Fgp)
        );
    }

    #[test]
    fn alg1_ge_pivot_row_has_rcs_zero_in_block_x() {
        // Alg. 1 w.r.t. blockIdx.x: delta 0. Sampled strides: x 0 (every block of a grid row
        // reads the same 4 elements), y 4 elements = 16 B per grid row.
        let (mut w, info, _) = alg1(Case::GePivot);
        let gx = info.grid.x as u64;
        let sx = strides(&mut w, &[(1, 2), (17, 18), (40, 41)], 128).unwrap();
        assert_eq!(sx.get(&0).copied(), Some((None, true)), "RCS 0 w.r.t. bx");
        let d = decide(Case::GePivot, &cfg());
        assert_eq!((d.reason, d.placement), (Reason::Shared, ObjPlacement::Fgp));
        // the named option reads the y stride per grid row instead (spec §3.6 [S]): 16 B per
        // grid row
        let mut c = cfg();
        c.rows_2d = true;
        let sy = strides(&mut w, &[(5, 5 + gx), (40, 40 + gx)], 128).unwrap();
        assert_eq!(sy.get(&0).copied(), Some((Some(16), false)));
        assert_ne!(decide(Case::GePivot, &c).reason, Reason::Shared);
    }

    #[test]
    fn alg1_kmeans_in_gets_bd_times_nf_and_pages_0_to_203_on_gpu0() {
        // B = blockDim x nfeatures x 4 B = 34,816 B; N_bpg = 24 -> span 835,584 B = 204 pages
        let mut c = cfg();
        c.rounding = CodaRounding::PerPageMajority;
        let d = decide(Case::KmIn, &c);
        assert_eq!(d.reason, Reason::Stride { b: 256 * NF * 4 });
        let ObjPlacement::Cgp {
            span,
            round,
            from_end,
        } = d.placement
        else {
            panic!("K-means `in` is coarse-grained: {d:?}")
        };
        assert!(!from_end);
        for page in 0..800u64 {
            let want = if page < 204 {
                0
            } else if page < 408 {
                1
            } else if page < 612 {
                2
            } else {
                3
            };
            assert_eq!(eq3_node(page * 4096 + round, span, 4), want, "page {page}");
        }
        // the paper's literal Eq. 2 caps the chunk at 4 KB: pages round-robin over GPUs
        let d = decide(Case::KmIn, &cfg());
        assert_eq!(d.reason, Reason::Stride { b: 256 * NF * 4 });
        let ObjPlacement::Cgp { span, round, .. } = d.placement else {
            panic!()
        };
        for page in 0..16u64 {
            assert_eq!(eq3_node(page * 4096 + round, span, 4), (page % 4) as u32);
        }
    }

    #[test]
    fn a_stride_that_is_not_whole_lines_is_measured_in_bytes() {
        // 48 threads x 4 B: block b starts at byte 192 b, so its lowest line steps by 128 or
        // 256 B; measured on lines the site looks irregular (FGP), on lanes it is B = 192
        let d = decide(Case::Narrow, &cfg());
        assert_eq!(d.reason, Reason::Stride { b: 192 });
        assert!(matches!(d.placement, ObjPlacement::Cgp { .. }));
    }

    #[test]
    fn disagreeing_sites_take_the_heaviest_stride() {
        // spec §3.5 [S]: the largest weight wins, |B| only breaks ties; the 8 loop sites
        // (1 KB stride, 64 line requests a block) outweigh the one 8 KB site
        let d = decide(Case::TwoSites, &cfg());
        assert_eq!(d.reason, Reason::Stride { b: 1024 });
    }

    #[test]
    fn weighted_eq3_equals_eq3_on_identical_nodes_and_skips_smless_nodes() {
        for off in (0..200_000u64).step_by(777) {
            assert_eq!(
                eq3_node_weighted(off, 12_288, &[16, 16, 16, 16]),
                eq3_node(off, 12_288, 4)
            );
        }
        // node 1 has no SMs, node 2 half of node 0's: the rotation is 16 + 8 SM shares
        let sms = [16, 0, 8];
        let span = 16 * 1024; // one SM's share: 1 KB
        let owners: Vec<u32> = (0..24)
            .map(|k| eq3_node_weighted(k * 1024, span, &sms))
            .collect();
        assert_eq!(&owners[..16], &[0; 16]);
        assert_eq!(&owners[16..], &[2; 8]);
        assert_eq!(
            eq3_node_weighted(24 * 1024, span, &sms),
            0,
            "rotation wraps"
        );
    }

    #[test]
    fn sample_points_are_in_range() {
        for n in [2u64, 3, 10, 1000] {
            for k in [1u32, 4, 16] {
                for b in sample_points(n, k, 1) {
                    assert!(b >= 1 && b < n);
                }
            }
        }
        assert!(sample_points(1, 4, 1).is_empty());
    }
}
