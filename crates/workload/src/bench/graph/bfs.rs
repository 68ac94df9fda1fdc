//! BFS (GraphBIG `gpu_BFS/bfs_topo_thread_centric.cu`): level-synchronous, topology-driven,
//! one thread per vertex, 1024-thread blocks. Every launch scans all vertices; those at the
//! current level walk their edges and label unvisited neighbours `curr + 1`, setting the
//! `changed` flag. The host relaunches until a level changes nothing (spec §7 BFS row, Table 2
//! block-exclusive). Input: Graph500 R-MAT (`bfs`) or a 2-D grid (`bfs-grid`,
//! [`super::bfs_grid`]).

use super::common::{
    cmp_u64, guard_u64, launch, loop_u64, root_from_params, DevGraph, FnHost, MY_INFINITY,
};
use crate::gen::graph::{self, Csr};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{KernelInfo, ObjId, ProfileHint, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// `bfs`: BFS over a Graph500 R-MAT graph.
pub const SPEC: BenchSpec = BenchSpec {
    name: "bfs",
    suite: "GraphBIG",
    category: "block-exclusive",
    about:
        "level-synchronous BFS, one thread per vertex (GraphBIG topo thread-centric), R-MAT input",
    params: &[
        ParamSpec {
            name: "scale",
            default: "16",
            help: "R-MAT: log2 of the vertex count",
        },
        ParamSpec {
            name: "edge_factor",
            default: "16",
            help: "R-MAT: generated edges per vertex",
        },
        ParamSpec {
            name: "root",
            default: "auto",
            help: "source vertex id, or auto (largest degree)",
        },
    ],
    build,
};

/// GraphBIG `initialize`: `level[tid] = MY_INFINITY`.
pub(crate) struct InitLevels {
    pub(crate) level: ObjId,
    pub(crate) n: u64,
}

impl Kernel for InitLevels {
    fn info(&self) -> KernelInfo {
        launch("bfs_initialize", self.n, 8)
    }
    /// GraphBIG `initialize` (bfs_topo_thread_centric.cu), SASS-level count: the 64-bit
    /// bound prologue ([`guard_u64`]: 7 int + predicated `EXIT`), then `MOV` (the constant
    /// `MY_INFINITY`), `ULDC.64` + `IMAD.WIDE.U32` (the address), `STG`: 12 recorded
    /// instructions per in-range thread plus the final `EXIT`, 1 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid();
        guard_u64(t);
        if tid < self.n {
            t.alu(3);
            t.st(self.level, tid, MY_INFINITY);
        }
    }
}

/// GraphBIG BFS `kernel`: one level of the traversal.
pub(crate) struct BfsLevel {
    pub(crate) g: DevGraph,
    pub(crate) level: ObjId,
    pub(crate) changed: ObjId,
    pub(crate) curr: u32,
    pub(crate) hints: Vec<ProfileHint>,
}

impl Kernel for BfsLevel {
    fn info(&self) -> KernelInfo {
        launch("bfs_kernel", self.g.n, 18)
    }
    /// GraphBIG BFS `kernel` (bfs_topo_thread_centric.cu), SASS-level count per thread:
    /// - prologue [`guard_u64`]: 7 int + predicated `EXIT`;
    /// - `vplist[tid]`: `ULDC.64` + `IMAD.WIDE.U32` (2 int), `LDG`; `ISETP.NE` against
    ///   `curr` + predicated `EXIT` (1 int + 1 branch);
    /// - edge range: `ULDC.64` + `IMAD.WIDE.U32` (2 int), `LDG.64` x2 (`tid + 1` is a
    ///   constant offset); loop guard [`cmp_u64`] (2 int + `BRA`); hoisted `curr + 1`
    ///   (`IADD3`), the stored `true` (`MOV`) and the `changed` pointer (`ULDC.64`): 3 int;
    /// - per edge: `LEA` + `LEA.HI.X` (`elist + i`), `LDG.64`; `LEA` + `LEA.HI.X`
    ///   (`vplist + vid`), `LDG`; `ISETP.NE` + `BRA` (1 int + 1 branch); when unvisited
    ///   `STG.U8` + `STG` (addresses and values already in registers); [`loop_u64`]
    ///   (4 int + `BRA`).
    ///
    /// So 13 warp instructions for a vertex off the level (1 memory), and 13 per edge (2-4
    /// memory).
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid();
        guard_u64(t);
        if tid >= self.g.n {
            return;
        }
        t.alu(2);
        let lv: u32 = t.ld(self.level, tid);
        t.alu(1);
        t.branch(1);
        if lv != self.curr {
            return;
        }
        t.alu(2);
        let start: u64 = t.ld(self.g.vlist, tid);
        let end: u64 = t.ld(self.g.vlist, tid + 1);
        cmp_u64(t);
        t.alu(3);
        for i in start..end {
            t.alu(2);
            let vid: u64 = t.ld(self.g.elist, i);
            t.alu(2);
            let lu: u32 = t.ld(self.level, vid);
            t.alu(1);
            t.branch(1);
            if lu == MY_INFINITY {
                t.st(self.changed, 0, 1u8);
                t.st(self.level, vid, self.curr + 1);
            }
            loop_u64(t);
        }
    }
    fn profile_hints(&self, _mem: &Memory) -> Vec<ProfileHint> {
        self.hints.clone()
    }
}

/// Build a BFS workload over `g` from `root`: allocation, `initialize`, then one launch per
/// level until the `changed` flag stays clear (levels + 1 BFS launches).
pub(crate) fn bfs_workload(name: &str, g: &Csr, root: u64) -> ModelWorkload {
    let mut m = Memory::new();
    let dg = DevGraph::alloc(&mut m, g, false);
    let level = m.alloc::<u32>("level", dg.n, false);
    let changed = m.alloc::<u8>("changed", 1, false);
    let hints = vec![super::common::edge_hint(g, dg.elist, 8)];
    let mut stage = 0u32;
    let mut curr = 0u32;
    let host = FnHost(move |mem: &mut Memory| -> Option<Box<dyn Kernel>> {
        match stage {
            0 => {
                stage = 1;
                return Some(Box::new(InitLevels { level, n: dg.n }));
            }
            1 => {
                stage = 2;
                mem.set(level, root, 0u32);
            }
            _ => {
                if mem.get::<u8>(changed, 0) == 0 {
                    return None;
                }
                curr += 1;
            }
        }
        mem.set(changed, 0, 0u8);
        Some(Box::new(BfsLevel {
            g: dg,
            level,
            changed,
            curr,
            hints: hints.clone(),
        }))
    });
    ModelWorkload::new(name, m, Box::new(host))
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let scale = p.u64("scale", 16)?;
    let ef = p.u64("edge_factor", 16)?;
    if !(2..=26).contains(&scale) || ef == 0 || (ef << scale) > (1 << 28) {
        return Err(WorkloadError::Msg(format!(
            "bfs: need 2 <= scale <= 26, edge_factor > 0 and edge_factor x 2^scale <= 2^28 (got {scale}, {ef})"
        )));
    }
    let g = graph::rmat(scale as u32, ef, p.seed);
    let root = root_from_params(p, &g, "auto")?;
    Ok(bfs_workload("bfs", &g, root))
}

/// Host reference: BFS levels from `root` (`MY_INFINITY` for unreachable vertices).
#[cfg(test)]
pub(crate) fn cpu_bfs(g: &Csr, root: u64) -> Vec<u32> {
    let mut lv = vec![MY_INFINITY; g.num_vertices() as usize];
    lv[root as usize] = 0;
    let mut q = std::collections::VecDeque::from([root]);
    while let Some(v) = q.pop_front() {
        for &u in g.neighbors(v) {
            if lv[u as usize] == MY_INFINITY {
                lv[u as usize] = lv[v as usize] + 1;
                q.push_back(u);
            }
        }
    }
    lv
}

#[cfg(test)]
mod tests {
    use super::super::common::testutil::{build, run};
    use super::*;
    use crate::sharing::coda_default_sharing;

    #[test]
    fn levels_match_cpu_bfs_and_launches_are_levels_plus_one() {
        let mut w = build("bfs", &[("scale", "11"), ("edge_factor", "8")], 3);
        let st = run(&mut w);
        let g = graph::rmat(11, 8, 3);
        let want = cpu_bfs(&g, g.max_degree_vertex());
        let got: Vec<u32> = w.memory().to_vec(2);
        assert_eq!(got, want);
        let depth = want
            .iter()
            .filter(|&&l| l != MY_INFINITY)
            .max()
            .copied()
            .unwrap();
        assert_eq!(
            st.launches.len() as u32,
            1 + depth + 1,
            "init + one per level + final"
        );
        assert_eq!(st.launches[0], "bfs_initialize");
    }

    #[test]
    fn stream_is_deterministic_per_seed() {
        let a = run(&mut build(
            "bfs",
            &[("scale", "10"), ("edge_factor", "8")],
            5,
        ));
        let b = run(&mut build(
            "bfs",
            &[("scale", "10"), ("edge_factor", "8")],
            5,
        ));
        let c = run(&mut build(
            "bfs",
            &[("scale", "10"), ("edge_factor", "8")],
            6,
        ));
        assert_eq!(a.hash, b.hash);
        assert_eq!(a.lines, b.lines);
        assert_ne!(a.hash, c.hash);
    }

    #[test]
    fn pages_are_block_exclusive() {
        let mut w = build("bfs", &[("scale", "14"), ("edge_factor", "16")], 1);
        let r = coda_default_sharing(&mut w, 1000).unwrap();
        assert_eq!(
            r.category,
            crate::sharing::classify(r.frac_one_block, r.frac_one_gpu),
            "{r:?}"
        ); // measured, not pinned to the paper (issue 13)
    }

    #[test]
    fn profile_hint_covers_elist() {
        let mut w = build("bfs", &[("scale", "12"), ("edge_factor", "8")], 1);
        use crate::program::Workload;
        let _init = w.next_launch().unwrap().unwrap().profile_hints();
        let l = w.next_launch().unwrap().unwrap();
        let h = l.profile_hints();
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].obj, 1, "elist");
        let g = graph::rmat(12, 8, 1);
        assert!((h[0].bytes_per_block - 1024.0 * g.mean_degree() * 8.0).abs() < 1e-6);
        assert!(h[0].cv > 0.0 && h[0].cv < 1.0, "{:?}", h[0]);
    }
}
