//! Rodinia `bfs` (cuda/bfs, Harish & Narayanan HiPC'07), registry name `rodinia-bfs` (the
//! GraphBIG BFS is `bfs`). One thread per node, `MAX_THREADS_PER_BLOCK = 512`; per level
//! the host clears `d_over` and launches
//!
//! - `Kernel`: a node whose `g_graph_mask` is set clears it and walks its edges
//!   (`g_graph_nodes[tid]` = `{int starting; int no_of_edges}`, `g_graph_edges`), and for
//!   each unvisited neighbour writes `g_cost[id] = g_cost[tid] + 1` and sets
//!   `g_updating_graph_mask[id]`;
//! - `Kernel2`: a node whose updating flag is set moves it into the mask, marks it visited,
//!   sets `*g_over` and clears the flag;
//!
//! and repeats while `d_over` came back true.
//!
//! Input: Rodinia's `graphgen` (data/bfs/inputGen): every node draws
//! `rand() % (MAX_INIT_EDGES - MIN_EDGES + 1) + MIN_EDGES` partners uniformly among all
//! nodes and each edge is stored in both directions, so the average degree is `min_edges + max_edges` (graph1MW_6: 2..4,
//! degree 6); source node 0. Not an R-MAT graph.
//!
//! Inputs: NDP §5.4 Table 1 runs BFS with 1M nodes (Rodinia's graph1MW_6.txt): 39 MB of
//! device objects (15 B per node plus 6 x 4 B of edges), so rule 1 of [`crate::scale`]
//! shrinks the node count (d = 1) to the 32 MiB cap, rounded down to the 512-thread block
//! as the rule rounds every dimension to the kernel's tile: 860 160 nodes. (Unrounded, the
//! seed's random edges made the measured footprint 1,823 bytes over the cap.)

use crate::bench::dense::common::{bad, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "rodinia-bfs",
    suite: "Rodinia",
    category: "-",
    about: "Rodinia bfs: Kernel (mask-driven edge walk) + Kernel2 (updating -> mask/visited, \
            over flag) per level, 512 threads/block, graphgen random graph",
    params: &[
        ParamSpec {
            name: "nodes",
            default: "860160",
            help: "graph nodes (NDP: 1M, scaled to the 32 MiB cap)",
        },
        ParamSpec {
            name: "min_edges",
            default: "2",
            help: "graphgen MIN_EDGES: fewest partners a node draws",
        },
        ParamSpec {
            name: "max_edges",
            default: "4",
            help:
                "graphgen MAX_INIT_EDGES: most partners a node draws (average degree = min + max)",
        },
    ],
    build,
};

/// `MAX_THREADS_PER_BLOCK`.
const TPB: u64 = 512;
/// NDP's input (§5.4): 1M nodes.
pub const PAPER_NODES: u64 = 1_000_000;

/// Expected device bytes for `n` nodes of average degree `deg`.
pub fn footprint(n: u64, deg: u64) -> u64 {
    n * (8 + 3 + 4) + n * deg * 4 + 1
}

/// The default node count by rule 1 (d = 1), rounded down to the thread block.
pub fn default_nodes() -> u64 {
    scale::dim(
        PAPER_NODES,
        scale::linear_factor(footprint(PAPER_NODES, 6), 1),
        TPB,
    )
}

/// Rodinia graphgen: (per-node `starting`, `no_of_edges`), the edge list.
pub fn graphgen(n: u64, min_e: u64, max_e: u64, seed: u64) -> (Vec<i32>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let mut adj: Vec<Vec<i32>> = vec![Vec::new(); n as usize];
    for i in 0..n as usize {
        let k = rng.below(max_e - min_e + 1) + min_e;
        for _ in 0..k {
            let id = rng.below(n) as usize;
            adj[i].push(id as i32);
            adj[id].push(i as i32);
        }
    }
    let mut nodes = Vec::with_capacity(2 * n as usize);
    let mut edges = Vec::new();
    for a in &adj {
        nodes.push(edges.len() as i32);
        nodes.push(a.len() as i32);
        edges.extend_from_slice(a);
    }
    (nodes, edges)
}

#[derive(Clone, Copy)]
struct Objs {
    nodes: ObjId,
    edges: ObjId,
    mask: ObjId,
    updating: ObjId,
    visited: ObjId,
    cost: ObjId,
    over: ObjId,
    n: u64,
}

/// `Kernel`: one level of the traversal.
struct BfsKernel(Objs);

impl Kernel for BfsKernel {
    fn info(&self) -> KernelInfo {
        kinfo(
            "Kernel",
            Dim3::x(self.0.n.div_ceil(TPB) as u32),
            Dim3::x(TPB as u32),
            16,
            0,
        )
    }
    /// Per thread (sm_70-class SASS, issue 7 §1 counting): entry `MOV; S2R` x2, `tid`
    /// (`LEA`), `ISETP` bound, `IMAD.WIDE`, `LDG.U8 mask`, `ISETP` and the `EXIT` of the
    /// out-of-range or unmasked threads. Active: `STG.U8 mask`, `IMAD.WIDE` (`&nodes[tid]`),
    /// `LDG starting`, `LDG no_of_edges`, `IADD3`, `ISETP`, `BRA`. Per edge: `IMAD.WIDE`,
    /// `LDG edge`, `IMAD.WIDE`, `LDG.U8 visited`, `ISETP`, `BRA`; unvisited: `LDG
    /// cost[tid]`, `IADD3`, `IMAD.WIDE`, `STG cost`, `IMAD.WIDE`, `STG.U8 updating`, and
    /// since `g_cost` may alias the `int` fields of `Node` (no `__restrict__`), the loop
    /// bound is reloaded after the stores (`LDG` x2, `IADD3`); the loop step `IADD3`,
    /// `ISETP`, `BRA`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let o = self.0;
        let tid = t.gid();
        t.alu(5);
        t.branch(1);
        if tid >= o.n {
            return;
        }
        t.alu(1);
        let m: u8 = t.ld(o.mask, tid);
        t.alu(1);
        t.branch(1);
        if m == 0 {
            return;
        }
        t.st(o.mask, tid, 0u8);
        t.alu(1);
        let start: i32 = t.ld(o.nodes, 2 * tid);
        let mut cnt: i32 = t.ld(o.nodes, 2 * tid + 1);
        t.alu(2);
        t.branch(1);
        let mut i = start;
        while i < start + cnt {
            t.alu(1);
            // NDP offload blocks (spec ndp.md §3.3 rule 4, Table 1 BFS "1, 1" of "1, 1, 16"): each single
            // indirect load is its own block, the address on the GPU, the loaded value the
            // one live-out: `g_graph_edges[i]` (`i` from `g_graph_nodes[tid].starting`) and
            // `g_graph_visited[id]`. Lanes leave the edge loop at different trip counts:
            // an instance holds the lanes still in the loop (`merge_warp`).
            t.ofld_begin(0, 0, 1);
            let id: i32 = t.ld(o.edges, i as u64);
            t.ofld_end(1);
            t.alu(1);
            t.ofld_begin(1, 0, 1);
            let v: u8 = t.ld(o.visited, id as u64);
            t.ofld_end(1);
            t.alu(1);
            t.branch(1);
            if v == 0 {
                // NDP offload block 2 (Table 1's BFS "16"; ours 7 in SASS counting): the
                // unvisited neighbour's basic block `LDG cost[tid]; IADD3; STG cost[id];
                // STG.U8 updating[id]; LDG starting; LDG no_of_edges; IADD3` (its two
                // `IMAD.WIDE` address computations stay on the GPU, `id` is already in a GPU
                // register: spec §3.3 rule 7), no live-in, the reloaded loop bound the one
                // live-out; Eq. 1 score (3 loads + 2 stores) x 4 B - 4 B = 16 B per thread > 0,
                // so TOM's rule extracts it. The lanes that take the branch form the instance.
                t.ofld_begin(2, 0, 7);
                let c: i32 = t.ld(o.cost, tid);
                t.alu(2);
                t.st(o.cost, id as u64, c + 1);
                t.alu(1);
                t.st(o.updating, id as u64, 1u8);
                let _s: i32 = t.ld(o.nodes, 2 * tid);
                cnt = t.ld(o.nodes, 2 * tid + 1);
                t.alu(1);
                t.ofld_end(1);
            }
            i += 1;
            t.alu(2);
            t.branch(1);
        }
    }
}

/// `Kernel2`: the frontier update.
struct BfsKernel2(Objs);

impl Kernel for BfsKernel2 {
    fn info(&self) -> KernelInfo {
        kinfo(
            "Kernel2",
            Dim3::x(self.0.n.div_ceil(TPB) as u32),
            Dim3::x(TPB as u32),
            10,
            0,
        )
    }
    /// Per thread: entry `MOV; S2R` x2, `LEA`, `ISETP`, `IMAD.WIDE`, `LDG.U8 updating`,
    /// `ISETP` and the `EXIT`; active: `IMAD.WIDE` x2 (mask, visited), `STG.U8` mask,
    /// visited, `*g_over` (its address is a parameter: 1 `MOV`), updating.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let o = self.0;
        let tid = t.gid();
        t.alu(5);
        t.branch(1);
        if tid >= o.n {
            return;
        }
        t.alu(1);
        let u: u8 = t.ld(o.updating, tid);
        t.alu(1);
        t.branch(1);
        if u == 0 {
            return;
        }
        t.alu(2);
        t.st(o.mask, tid, 1u8);
        t.st(o.visited, tid, 1u8);
        t.alu(1);
        t.st(o.over, 0, 1u8);
        t.st(o.updating, tid, 0u8);
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("nodes", default_nodes())?;
    let min_e = p.u64("min_edges", 2)?;
    let max_e = p.u64("max_edges", 4)?;
    if n < 2 || min_e == 0 || max_e < min_e {
        return Err(bad(format!(
            "rodinia-bfs: need nodes >= 2 and 1 <= min_edges <= max_edges (got nodes {n}, min_edges {min_e}, max_edges {max_e})"
        )));
    }
    let (nodes_v, edges_v) = graphgen(n, min_e, max_e, p.seed);
    let mut mem = Memory::new();
    let nodes = mem.alloc_from("d_graph_nodes", &nodes_v, true);
    let edges = mem.alloc_from("d_graph_edges", &edges_v, true);
    let mask = mem.alloc::<u8>("d_graph_mask", n, false);
    let updating = mem.alloc::<u8>("d_updating_graph_mask", n, false);
    let visited = mem.alloc::<u8>("d_graph_visited", n, false);
    let mut cost_v = vec![-1i32; n as usize];
    cost_v[0] = 0;
    let cost = mem.alloc_from("d_cost", &cost_v, false);
    let over = mem.alloc::<u8>("d_over", 1, false);
    mem.set(mask, 0, 1u8);
    mem.set(visited, 0, 1u8);
    let o = Objs {
        nodes,
        edges,
        mask,
        updating,
        visited,
        cost,
        over,
        n,
    };
    // the do { over = false; Kernel; Kernel2; copy over back } while (over) loop
    let mut step = 0u64;
    let host = crate::bench::dense::common::host(move |m: &mut Memory| {
        let k: Box<dyn Kernel> = if step.is_multiple_of(2) {
            if step > 0 && m.get::<u8>(over, 0) == 0 {
                return None;
            }
            m.set(over, 0, 0u8);
            Box::new(BfsKernel(o))
        } else {
            Box::new(BfsKernel2(o))
        };
        step += 1;
        Some(k)
    });
    Ok(ModelWorkload::new("rodinia-bfs", mem, host))
}
