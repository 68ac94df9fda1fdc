//! CC, connected components (GraphBIG `gpu_ConnectedComp/connected_comp.cu`, after Soman et
//! al.): `initialize` (vertex-parallel: `parents[v] = shadow[v] = v`, and for each edge of v
//! `mask[e] = false`, `edge_src[e] = v`), then rounds of
//! `kernel_hooking` (edge-parallel, two edges per thread, `min(⌈|E|/2⌉, 1024)` threads per
//! block: for each unmasked edge compare the parents of its ends; if they differ, hook
//! `shadow[min] = max` on even rounds, `shadow[max] = min` on odd rounds, and clear `over`;
//! else mask the edge), `kernel_update` (`parents = shadow`), `kernel_pointer_jumping`
//! (follow `parents` to the root, write it to `shadow`) and `kernel_update` again, until a
//! hooking round changes nothing. Spec §7 CC row, Table 2 block-majority.

use super::common::{
    cmp_u64, edge_hint, graph_from_params, graph_params, guard_u32, guard_u64, launch, loop_u64,
    DevGraph, FnHost, GraphDefaults,
};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{KernelInfo, ObjId, ProfileHint, WorkloadError};
use crate::registry::{BenchSpec, Params};

/// `cc`: Soman-style connected components.
pub const SPEC: BenchSpec = BenchSpec {
    name: "cc",
    suite: "GraphBIG",
    category: "block-majority",
    about: "connected components: edge-parallel hooking (2 edges/thread) + pointer jumping",
    params: graph_params!("rmat", "15", "8", "64k", "16", "0.3", "1"),
    build,
};

/// Edges per hooking thread (`CHUNK_SZ`).
const CHUNK: u64 = 2;

#[derive(Clone, Copy)]
struct Objs {
    parents: ObjId,
    shadow: ObjId,
    mask: ObjId,
    edge_src: ObjId,
    over: ObjId,
}

/// `initialize`: identity parents, and per-edge mask and source id.
struct Init {
    g: DevGraph,
    o: Objs,
    hints: Vec<ProfileHint>,
}

impl Kernel for Init {
    fn info(&self) -> KernelInfo {
        launch("cc_initialize", self.g.n, 14)
    }
    /// GraphBIG CC `initialize` (connected_comp.cu), SASS-level count per thread:
    /// [`guard_u64`] (7 int + `EXIT`); `ULDC.64` + `IMAD.WIDE.U32` x2 (`d_parents`,
    /// `d_shadow`) and the `MOV` of the zero high word of `tid` (4 int), `STG.64` x2;
    /// `IMAD.WIDE.U32` (1 int), `LDG.64` x2 (the edge range); loop guard [`cmp_u64`]; per
    /// edge `IADD3` + `IADD3.X` (`d_mask + i`) and `LEA` + `LEA.HI.X` (`d_edge_src + i`),
    /// 4 int, `STG.U8` + `STG.64`, [`loop_u64`] (4 int + `BRA`): 11 warp instructions per
    /// edge, 2 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid();
        guard_u64(t);
        if tid >= self.g.n {
            return;
        }
        t.alu(4);
        t.st(self.o.parents, tid, tid);
        t.st(self.o.shadow, tid, tid);
        t.alu(1);
        let start: u64 = t.ld(self.g.vlist, tid);
        let end: u64 = t.ld(self.g.vlist, tid + 1);
        cmp_u64(t);
        for i in start..end {
            t.alu(4);
            t.st(self.o.mask, i, 0u8);
            t.st(self.o.edge_src, i, tid);
            loop_u64(t);
        }
    }
    fn profile_hints(&self, _mem: &Memory) -> Vec<ProfileHint> {
        self.hints.clone()
    }
}

/// `kernel_hooking`: merge the trees of the two ends of every live edge.
struct Hooking {
    g: DevGraph,
    o: Objs,
    iter: u32,
    hints: Vec<ProfileHint>,
}

impl Kernel for Hooking {
    fn info(&self) -> KernelInfo {
        launch("cc_kernel_hooking", self.g.m.div_ceil(CHUNK), 20)
    }
    /// GraphBIG CC `kernel_hooking` (connected_comp.cu, `CHUNK_SZ` = 2), SASS-level count
    /// per thread: `MOV; S2R; S2R; IMAD`, `IMAD.WIDE.U32` (`tid * CHUNK_SZ`), `ULDC.64`,
    /// `ISETP.GE.U32` + `.EX` (8 int) + `EXIT`; `end_id`: `IADD3` + `IADD3.X`, the 64-bit
    /// clamp `ISETP.GT.U32` + `.EX` and `SEL` x2 (6 int); loop guard [`cmp_u64`]; per edge
    /// `IADD3` + `IADD3.X` (`d_mask + eid`), `LDG.U8`, `ISETP.NE` + `BRA` (`continue`); for
    /// a live edge `LEA` + `LEA.HI.X` x2 (`d_edge_src + eid`, `elist + eid`), `LDG.64` x2,
    /// `LEA` + `LEA.HI.X` x2 (`d_parents` of both ends), `LDG.64` x2 (the comparison
    /// reuses them), `ISETP.NE.U32` + `.EX` + `BRA`; when they differ the min/max
    /// (`ISETP.GT.U32` + `.EX`, `SEL` x4: 6 int), the even/odd `BRA` on the hoisted
    /// `iter % 2` predicate, `LEA` + `LEA.HI.X` (`d_shadow` + the chosen index), `STG.64`,
    /// `STG.U8` (`d_over`, hoisted pointer, `false` from `RZ`); else `MOV` (`true`) and
    /// `STG.U8` (kept address); [`loop_u64`] (4 int + `BRA`) on every path. 10 warp
    /// instructions per masked edge, 27 per self-connected edge, 36 per hooking edge.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let chunk = t.gid() * CHUNK;
        t.alu(8);
        t.branch(1);
        if chunk >= self.g.m {
            return;
        }
        let end = (chunk + CHUNK).min(self.g.m);
        t.alu(6);
        cmp_u64(t);
        for eid in chunk..end {
            t.alu(2);
            let mk: u8 = t.ld(self.o.mask, eid);
            t.alu(1);
            t.branch(1);
            if mk == 0 {
                t.alu(4);
                let src: u64 = t.ld(self.o.edge_src, eid);
                let dest: u64 = t.ld(self.g.elist, eid);
                t.alu(4);
                let ps: u64 = t.ld(self.o.parents, src);
                let pd: u64 = t.ld(self.o.parents, dest);
                t.alu(2);
                t.branch(1);
                if ps != pd {
                    let (mn, mx) = if ps > pd { (pd, ps) } else { (ps, pd) };
                    t.alu(6);
                    t.branch(1);
                    t.alu(2);
                    if self.iter.is_multiple_of(2) {
                        t.st(self.o.shadow, mn, mx);
                    } else {
                        t.st(self.o.shadow, mx, mn);
                    }
                    t.st(self.o.over, 0, 0u8);
                } else {
                    t.alu(1);
                    t.st(self.o.mask, eid, 1u8);
                }
            }
            loop_u64(t);
        }
    }
    fn profile_hints(&self, _mem: &Memory) -> Vec<ProfileHint> {
        self.hints.clone()
    }
}

/// `kernel_update`: `parents[v] = shadow[v]`.
struct Update {
    n: u64,
    o: Objs,
}

impl Kernel for Update {
    fn info(&self) -> KernelInfo {
        launch("cc_kernel_update", self.n, 8)
    }
    /// GraphBIG CC `kernel_update` (connected_comp.cu; `unsigned vertex_cnt`), SASS-level
    /// count: [`guard_u32`] (5 int + `EXIT`), `ULDC.64` + `IMAD.WIDE.U32` x2 (3 int),
    /// `LDG.64`, `STG.64`: 11 warp instructions, 2 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid();
        guard_u32(t);
        if tid < self.n {
            t.alu(3);
            let s: u64 = t.ld(self.o.shadow, tid);
            t.st(self.o.parents, tid, s);
        }
    }
}

/// `kernel_pointer_jumping`: find each vertex's root and store it in `shadow`.
struct PointerJumping {
    n: u64,
    o: Objs,
}

impl Kernel for PointerJumping {
    fn info(&self) -> KernelInfo {
        launch("cc_kernel_pointer_jumping", self.n, 10)
    }
    /// GraphBIG CC `kernel_pointer_jumping` (connected_comp.cu; `unsigned vertex_cnt`),
    /// SASS-level count: [`guard_u32`] (5 int + `EXIT`); `ULDC.64` + `IMAD.WIDE.U32`
    /// (2 int), `LDG.64`; per step `LEA` + `LEA.HI.X` (`d_parents + parent`), `LDG.64`,
    /// `ISETP.NE.U32` + `.EX` + `BRA` (the loop test; the body's second
    /// `d_parents[parent]` is the same load, so the step is the back edge): 6 warp
    /// instructions, 1 memory; then `IMAD.WIDE.U32` (`d_shadow + tid`, 1 int), `STG.64`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid();
        guard_u32(t);
        if tid >= self.n {
            return;
        }
        t.alu(2);
        let mut parent: u64 = t.ld(self.o.parents, tid);
        loop {
            t.alu(2);
            let pp: u64 = t.ld(self.o.parents, parent);
            t.alu(2);
            t.branch(1);
            if pp == parent {
                break;
            }
            parent = pp;
        }
        t.alu(1);
        t.st(self.o.shadow, tid, parent);
    }
}

/// Input-graph defaults (mirrors the parameter list).
const GRAPH: GraphDefaults = GraphDefaults {
    kind: "rmat",
    scale: 15,
    edge_factor: 8,
    n: 65536,
    degree: 16.0,
    cv: 0.3,
    local: 1,
};

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let g = graph_from_params(p, &GRAPH)?;
    let mut m = Memory::new();
    let dg = DevGraph::alloc(&mut m, &g, false);
    let o = Objs {
        parents: m.alloc::<u64>("parents", dg.n, false),
        shadow: m.alloc::<u64>("shadow", dg.n, false),
        mask: m.alloc::<u8>("mask", dg.m, false),
        edge_src: m.alloc::<u64>("edge_src", dg.m, false),
        over: m.alloc::<u8>("over", 1, false),
    };
    // `initialize` walks each vertex's edge range (input-dependent, profiler estimate);
    // hooking indexes the edge arrays by thread id (CHUNK edges per thread, CV 0)
    let hints = vec![edge_hint(&g, o.mask, 1), edge_hint(&g, o.edge_src, 8)];
    let hook_tpb = dg.m.div_ceil(CHUNK).clamp(1, super::common::MAX_TPB) as f64;
    let flat = |obj, b: f64| ProfileHint {
        obj,
        bytes_per_block: hook_tpb * CHUNK as f64 * b,
        cv: 0.0,
    };
    let hook_hints = vec![
        flat(dg.elist, 8.0),
        flat(o.mask, 1.0),
        flat(o.edge_src, 8.0),
    ];
    // host loop of cuda_connected_comp: init, then { hooking, update, read flag, jumping,
    // update } while the hooking round changed something
    let (mut step, mut iter, mut stop) = (0u32, 0u32, false);
    let n = dg.n;
    let host = FnHost(move |mem: &mut Memory| -> Option<Box<dyn Kernel>> {
        let s = step;
        step += 1;
        if s == 0 {
            return Some(Box::new(Init {
                g: dg,
                o,
                hints: hints.clone(),
            }));
        }
        match (s - 1) % 4 {
            0 => {
                if stop {
                    return None;
                }
                mem.set(o.over, 0, 1u8);
                let k = Hooking {
                    g: dg,
                    o,
                    iter,
                    hints: hook_hints.clone(),
                };
                Some(Box::new(k))
            }
            1 => Some(Box::new(Update { n, o })),
            2 => {
                stop = mem.get::<u8>(o.over, 0) != 0;
                iter += 1;
                Some(Box::new(PointerJumping { n, o }))
            }
            _ => Some(Box::new(Update { n, o })),
        }
    });
    Ok(ModelWorkload::new("cc", m, Box::new(host)))
}

#[cfg(test)]
mod tests {
    use super::super::common::testutil::{build, run};
    use crate::gen::graph;
    use crate::sharing::coda_default_sharing;

    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        let mut y = x;
        while p[y] != r {
            let nx = p[y];
            p[y] = r;
            y = nx;
        }
        r
    }

    #[test]
    fn labels_partition_like_union_find() {
        // sparse R-MAT: many components, isolated vertices included
        for (scale, ef) in [("11", "1"), ("10", "4")] {
            let mut w = build("cc", &[("scale", scale), ("edge_factor", ef)], 8);
            let st = run(&mut w);
            let g = graph::rmat(scale.parse().unwrap(), ef.parse().unwrap(), 8);
            let n = g.num_vertices() as usize;
            let mut uf: Vec<usize> = (0..n).collect();
            for v in 0..n {
                for &u in g.neighbors(v as u64) {
                    let (a, b) = (find(&mut uf, v), find(&mut uf, u as usize));
                    uf[a] = b;
                }
            }
            let lab = w.memory().to_vec::<u64>(2);
            let mut comps = std::collections::HashSet::new();
            for v in 0..n {
                for u in 0..n.min(300) {
                    let same_uf = find(&mut uf, v) == find(&mut uf, u);
                    assert_eq!(same_uf, lab[v] == lab[u], "vertices {v} {u}");
                }
                comps.insert(lab[v]);
            }
            assert!(comps.len() > 1);
            assert_eq!(st.launches[0], "cc_initialize");
            assert_eq!((st.launches.len() - 1) % 4, 0, "rounds of 4 kernels");
            assert!(st.launches[1..]
                .chunks(4)
                .all(|c| c[0] == "cc_kernel_hooking"
                    && c[1] == "cc_kernel_update"
                    && c[2] == "cc_kernel_pointer_jumping"));
        }
    }

    #[test]
    fn deterministic_and_measured_category() {
        let a = run(&mut build("cc", &[("scale", "10")], 4));
        let b = run(&mut build("cc", &[("scale", "10")], 4));
        assert_eq!((a.hash, a.lines), (b.hash, b.lines));
        // Paper: block-majority. Measured with the faithful kernels: the edge arrays
        // (elist, edge_src: 16 KB per hooking block) dominate the pages and are
        // single-block; `mask` (1 B per edge, 2 blocks per page) and the irregular
        // parents/shadow pages are too few to pull the 1-block share under 90 % at edge
        // factor 16, and are shared within one GPU, so the 1-GPU share stays above 90 %.
        let mut w = build("cc", &[("scale", "14"), ("edge_factor", "16")], 1);
        let r = coda_default_sharing(&mut w, 1000).unwrap();
        eprintln!("cc sharing: {r:?}");
        assert_eq!(
            r.category,
            crate::sharing::classify(r.frac_one_block, r.frac_one_gpu),
            "{r:?}"
        ); // measured, not pinned to the paper (issue 13)
        assert!(r.frac_one_block < 0.95, "{r:?}");
        let mut w = build("cc", &[("scale", "14"), ("edge_factor", "8")], 1);
        let r = coda_default_sharing(&mut w, 1000).unwrap();
        eprintln!("cc sharing ef8: {r:?}");
        assert_eq!(
            r.category,
            crate::sharing::classify(r.frac_one_block, r.frac_one_gpu),
            "{r:?}"
        ); // measured, not pinned to the paper (issue 13)
        assert!(r.frac_one_block > 0.6 && r.frac_one_block < 0.9, "{r:?}");
    }
}
