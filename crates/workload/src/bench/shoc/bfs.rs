//! SHOC BFS (level 1, `bfs_kernel.cu`, kernel `BFS_kernel_warp`, the host loop of
//! `BFS.cu`'s `RunTest1`): level-synchronous breadth-first search with one warp per chunk
//! of vertices. Blocks of `maxThreadsPerBlock` (1024) threads, `ceil(V / 1024)` blocks;
//! with `W_SZ = 32` and `CHUNK_SZ = 32` warp `W_ID` owns vertices `W_ID * 32 ..` (the last
//! chunk clipped). For each owned vertex the whole warp reads `levels[v]` (a broadcast);
//! if it equals the current level `curr` the warp reads the vertex's adjacency bounds
//! `edgeArray[v]`, `edgeArray[v + 1]` and its lanes stride the neighbour list
//! `edgeArrayAux[nbr_off + i]` by 32, setting every unvisited neighbour's level to `curr + 1`
//! and raising `*flag`. The host zeroes the flag, launches with `curr` = 0, 1, .. and stops
//! when a launch leaves the flag down.
//!
//! The graph is SHOC's `GenerateSimpleKWayGraph(V, degree)`: a complete `degree`-ary tree
//! (children `v * degree + 1 ..= v * degree + degree`) with each vertex's parent edge
//! appended, default degree 2, searched from vertex 0.
//!
//! Inputs: HMS Table IV (`BFS_kernel_warp`, `edgeArray(G→T)`) gives no size; SHOC's default
//! size class 1: 1,000 vertices (classes 1,000, 10,000, 100,000, 1,000,000), degree 2; the
//! footprint (16 KB) is under the cap, so rule 1 keeps it. One block of 1024 threads.
//!
//! Placement: `--param edge_space=texture` reads `edgeArray` through the texture path (HMS
//! `edgeArray(G→T)`), `--param aux_space=texture` the neighbour list `edgeArrayAux`.

use super::common::{addr_ld, bad, entry, host, kinfo, loop_step, MemSpace};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-bfs",
    suite: "SHOC",
    category: "-",
    about:
        "SHOC BFS BFS_kernel_warp: warp per 32-vertex chunk, level-synchronous, k-way tree graph",
    params: &[
        ParamSpec {
            name: "vertices",
            default: "1000",
            help: "vertices (SHOC size class 1)",
        },
        ParamSpec {
            name: "degree",
            default: "2",
            help: "k of the k-way tree (SHOC --degree)",
        },
        ParamSpec {
            name: "block",
            default: "1024",
            help: "threads per block (SHOC: maxThreadsPerBlock)",
        },
        ParamSpec {
            name: "edge_space",
            default: "global",
            help: "space of edgeArray (offsets): global | texture (HMS edgeArray(G→T))",
        },
        ParamSpec {
            name: "aux_space",
            default: "global",
            help: "space of edgeArrayAux (neighbour lists): global | texture",
        },
    ],
    build,
};

/// `W_SZ` and `CHUNK_SZ` of SHOC's host code.
const W_SZ: u64 = 32;
const CHUNK_SZ: u64 = 32;
/// Unvisited (`UINT_MAX`).
const INF: u32 = u32::MAX;

struct BfsWarp {
    levels: ObjId,
    edge: ObjId,
    aux: ObjId,
    flag: ObjId,
    vertices: u64,
    block: u32,
    curr: u32,
    edge_space: MemSpace,
    aux_space: MemSpace,
}

impl Kernel for BfsWarp {
    fn info(&self) -> KernelInfo {
        kinfo(
            "BFS_kernel_warp",
            Dim3::x(self.vertices.div_ceil(self.block as u64) as u32),
            Dim3::x(self.block),
            20,
            0,
        )
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): `MOV; S2R x2`, `tid` (`IMAD`),
    /// `W_OFF` and `W_ID` (remainder and quotient by the parameter `W_SZ`, about 22 int),
    /// `v1` and the chunk clip (`IMAD; ISETP; SEL; IADD3`): 27 int; the loop entry `ISETP;
    /// BRA`. Per owned vertex: the address of `levels[v]` (`IMAD.WIDE`), `LDG`, `ISETP; BRA`;
    /// on the frontier the bounds' address (none through a texture), `LDG` x2, `IADD3`
    /// (`num_nbr`), loop entry `ISETP; BRA`, and per neighbour the address of
    /// `edgeArrayAux` (none through a texture), `LDG`, the address of `levels[nbr]`, `LDG`,
    /// `ISETP; BRA`; for an unvisited one `IADD3` (`curr + 1`), `STG` x2 (level, flag);
    /// loop control per neighbour and per vertex.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid();
        let w_off = tid % W_SZ;
        let v1 = (tid / W_SZ) * CHUNK_SZ;
        let stop = (v1 + CHUNK_SZ).min(self.vertices);
        entry(t, 2, 27, false);
        t.alu(1);
        t.branch(1);
        let mut v = v1;
        while v < stop {
            t.alu(1);
            let lv: u32 = t.ld(self.levels, v);
            t.alu(1);
            t.branch(1);
            if lv == self.curr {
                let off: u32 = addr_ld(t, self.edge_space, self.edge, v);
                let end: u32 = super::common::ld_in(t, self.edge_space, self.edge, v + 1);
                t.alu(2);
                t.branch(1);
                let num = (end - off) as u64;
                let mut i = w_off;
                while i < num {
                    let nbr: u32 = addr_ld(t, self.aux_space, self.aux, off as u64 + i);
                    t.alu(1);
                    let ln: u32 = t.ld(self.levels, nbr as u64);
                    t.alu(1);
                    t.branch(1);
                    if ln == INF {
                        t.alu(1);
                        t.st(self.levels, nbr as u64, self.curr + 1);
                        t.st(self.flag, 0, 1u32);
                    }
                    loop_step(t);
                    i += W_SZ;
                }
            }
            loop_step(t);
            v += 1;
        }
    }
}

/// SHOC's `GenerateSimpleKWayGraph`: (edge offsets, neighbour lists).
pub(crate) fn kway_graph(verts: u64, degree: u64) -> (Vec<u32>, Vec<u32>) {
    let mut off = Vec::with_capacity(verts as usize + 1);
    let mut list = Vec::with_capacity((verts * (degree + 1)) as usize);
    for v in 0..verts {
        off.push(list.len() as u32);
        for j in 0..degree {
            let c = v * degree + j + 1;
            if c < verts {
                list.push(c as u32);
            }
        }
        if v != 0 {
            list.push(((v - 1) / degree) as u32);
        }
    }
    off.push(list.len() as u32);
    (off, list)
}

/// Host reference: BFS levels from vertex 0.
#[cfg(test)]
pub(crate) fn host_levels(off: &[u32], list: &[u32]) -> Vec<u32> {
    let n = off.len() - 1;
    let mut lv = vec![INF; n];
    lv[0] = 0;
    let mut q = std::collections::VecDeque::from([0usize]);
    while let Some(v) = q.pop_front() {
        for &u in &list[off[v] as usize..off[v + 1] as usize] {
            if lv[u as usize] == INF {
                lv[u as usize] = lv[v] + 1;
                q.push_back(u as usize);
            }
        }
    }
    lv
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let vertices = p.u64("vertices", 1000)?;
    let degree = p.u64("degree", 2)?.max(1);
    let block = p.u64("block", 1024)?;
    let edge_space = MemSpace::param(
        p,
        "edge_space",
        MemSpace::Global,
        &[MemSpace::Global, MemSpace::Texture],
    )?;
    let aux_space = MemSpace::param(
        p,
        "aux_space",
        MemSpace::Global,
        &[MemSpace::Global, MemSpace::Texture],
    )?;
    if vertices < 2 || !(32..=1024).contains(&block) || block % 32 != 0 {
        return Err(bad(
            "shoc-bfs: need vertices >= 2 and block a multiple of 32 in 32..=1024".into(),
        ));
    }
    let (off, list) = kway_graph(vertices, degree);
    let mut levels = vec![INF; vertices as usize];
    levels[0] = 0;
    let mut m = Memory::new();
    let lv = m.alloc_from("d_costArray", &levels, false);
    let edge = m.alloc_from("d_edgeArray", &off, true);
    let aux = m.alloc_from("d_edgeArrayAux", &list, true);
    let flag = m.alloc::<u32>("d_flag", 1, false);
    let mut curr = 0u32;
    let h = host(move |mem: &mut Memory| {
        // `while (*flag)`: stop after a launch that found no new vertex
        if curr > 0 && mem.get::<u32>(flag, 0) == 0 {
            return None;
        }
        mem.set(flag, 0, 0u32);
        let k = BfsWarp {
            levels: lv,
            edge,
            aux,
            flag,
            vertices,
            block: block as u32,
            curr,
            edge_space,
            aux_space,
        };
        curr += 1;
        Some(Box::new(k) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("shoc-bfs", m, h))
}
