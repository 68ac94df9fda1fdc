//! Pieces shared by the GraphBIG-style benchmarks: the device copy of a CSR graph
//! (`cudaGraph`: u64 `vlist` of |V|+1 offsets, u64 `elist`), GraphBIG's launch shape (one
//! thread per vertex, `min(|V|, maxThreadsPerBlock = 1024)` threads per block), the input
//! graph chosen by parameters, the profiler hints of spec §3.7, and a closure-driven host.

use crate::gen::graph::{self, Csr, Neighbours};
use crate::memory::Memory;
use crate::model::{Host, Kernel, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, ProfileHint, WorkloadError};
use crate::registry::Params;

/// GraphBIG's "infinity" for unvisited vertices (`MY_INFINITY` in `cudaGraph.h`).
pub const MY_INFINITY: u32 = 0xffff_ff00;

/// `devProp.maxThreadsPerBlock` on the Fermi-class GPU of the paper.
pub const MAX_TPB: u64 = 1024;

/// A host program written as a closure: called once per launch with the device memory (to
/// read flags and set values the way host `cudaMemcpy`s do), it returns the next kernel or
/// `None` when the program has finished.
pub struct FnHost<F>(pub F);

impl<F> Host for FnHost<F>
where
    F: FnMut(&mut Memory) -> Option<Box<dyn Kernel>> + Send,
{
    fn next_kernel(&mut self, mem: &mut Memory) -> Option<Box<dyn Kernel>> {
        (self.0)(mem)
    }
}

/// GraphBIG's launch shape for `threads` threads: `min(threads, 1024)` threads per block and
/// enough blocks to cover them.
pub fn launch(name: &str, threads: u64, regs: u32) -> KernelInfo {
    let tpb = threads.clamp(1, MAX_TPB);
    KernelInfo {
        name: name.into(),
        grid: Dim3::x(threads.max(1).div_ceil(tpb) as u32),
        block: Dim3::x(tpb as u32),
        regs_per_thread: regs,
        smem_per_block: 0,
    }
}

/// SASS counting rules shared by the GraphBIG kernel models (issue 7 §1; sm_70+ nvcc -O3,
/// counted the way `bench/vectoradd.rs` counts its trace). GraphBIG computes
/// `uint64_t tid = blockIdx.x * blockDim.x + threadIdx.x` (32-bit product, zero-extended)
/// and compares it with the 64-bit `graph.vertex_cnt`: `MOV R1` (stack pointer), `S2R`
/// x2, `IMAD`, `ULDC.64` (the bound), `ISETP.GE.U32.AND` + `ISETP.GE.U32.AND.EX`: 7 int,
/// then the predicated `EXIT` (1 branch). Recorded by every lane, as the real code is.
#[track_caller]
pub fn guard_u64(t: &mut Thread<'_>) {
    t.alu(7);
    t.branch(1);
}

/// The prologue of a kernel whose bound is a 32-bit `unsigned` parameter (CC's
/// `kernel_update`, `kernel_pointer_jumping`): `MOV; S2R; S2R; IMAD; ISETP.GE.U32` (the
/// zero-extended id needs one 32-bit compare against the constant-bank operand): 5 int,
/// then the predicated `EXIT`.
#[track_caller]
pub fn guard_u32(t: &mut Thread<'_>) {
    t.alu(5);
    t.branch(1);
}

/// The bottom of one iteration of a `for (uint64_t i = start; i < end; i++)` edge loop:
/// the 64-bit induction update `IADD3` + `IADD3.X`, the 64-bit compare
/// `ISETP.GE.U32.AND` + `ISETP.GE.U32.AND.EX` (4 int) and the back-edge `BRA` (1 branch).
/// GraphBIG's edge loops run over `uint64_t` indices, so both halves are executed; the
/// loop address `elist + i` is formed separately (`LEA` + `LEA.HI.X`, see the kernels).
#[track_caller]
pub fn loop_u64(t: &mut Thread<'_>) {
    t.alu(4);
    t.branch(1);
}

/// The guard before an edge loop (`start < end`, 64-bit): `ISETP.GE.U32.AND` +
/// `ISETP.GE.U32.AND.EX` and the `BRA` that skips the loop (2 int + 1 branch).
#[track_caller]
pub fn cmp_u64(t: &mut Thread<'_>) {
    t.alu(2);
    t.branch(1);
}

/// The graph as the device holds it (`cudaGraph` after `cudaGraphCopy`).
#[derive(Clone, Copy, Debug)]
pub struct DevGraph {
    /// Row offsets, u64, |V|+1 entries.
    pub vlist: ObjId,
    /// Edge destinations, u64, |E| entries.
    pub elist: ObjId,
    /// |V|.
    pub n: u64,
    /// |E| (directed entries).
    pub m: u64,
}

impl DevGraph {
    /// Allocate and copy `g`'s `vlist` and `elist` (read-only unless `elist_rw`, for kernels
    /// that sort adjacency lists in place).
    pub fn alloc(mem: &mut Memory, g: &Csr, elist_rw: bool) -> DevGraph {
        let vlist = mem.alloc_from("vlist", &g.vlist, true);
        let elist = mem.alloc_from("elist", &g.elist, !elist_rw);
        DevGraph {
            vlist,
            elist,
            n: g.num_vertices(),
            m: g.num_edges(),
        }
    }
}

/// The profiler hint of spec §3.7 for an edge-indexed object `obj` of `elem_bytes`-byte
/// elements read by a topology-driven kernel over `g`: bytes per block =
/// threads_per_block · mean degree · elem_bytes, CV of edges per block over TB windows.
pub fn edge_hint(g: &Csr, obj: ObjId, elem_bytes: u32) -> ProfileHint {
    let tpb = g.num_vertices().clamp(1, MAX_TPB);
    let p = graph::tb_profile(g, tpb);
    ProfileHint {
        obj,
        bytes_per_block: tpb as f64 * g.mean_degree() * elem_bytes as f64,
        cv: p.cv,
    }
}

/// Defaults of the input-graph parameters of one benchmark (must match the strings given to
/// `graph_params!`, which the registry resolves before building).
#[derive(Clone, Copy, Debug)]
pub struct GraphDefaults {
    /// `graph`: rmat, grid or regular.
    pub kind: &'static str,
    /// `scale` (R-MAT).
    pub scale: u64,
    /// `edge_factor` (R-MAT).
    pub edge_factor: u64,
    /// `n` (regular).
    pub n: u64,
    /// `degree` (regular).
    pub degree: f64,
    /// `cv` (regular).
    pub cv: f64,
    /// `local` (regular).
    pub local: u64,
}

/// The parameter list of benchmarks whose input graph is selectable: defaults of `graph`,
/// `scale`, `edge_factor`, `n`, `degree`, `cv`, `local` (as strings, mirroring a
/// [`GraphDefaults`]), then extra specs.
macro_rules! graph_params {
    ($kind:literal, $scale:literal, $ef:literal, $n:literal, $deg:literal, $cv:literal, $local:literal $(, $extra:expr)* $(,)?) => {
        &[
            $crate::registry::ParamSpec {
                name: "graph",
                default: $kind,
                help: "input graph: rmat (Graph500 R-MAT, random ids), grid (2-D 4-neighbour mesh), regular (chosen degree CV)",
            },
            $crate::registry::ParamSpec { name: "scale", default: $scale, help: "rmat: log2 of the vertex count" },
            $crate::registry::ParamSpec { name: "edge_factor", default: $ef, help: "rmat: generated edges per vertex before symmetrising" },
            $crate::registry::ParamSpec { name: "side", default: "512", help: "grid: vertices per side (side x side mesh)" },
            $crate::registry::ParamSpec { name: "n", default: $n, help: "regular: vertex count" },
            $crate::registry::ParamSpec { name: "degree", default: $deg, help: "regular: mean degree" },
            $crate::registry::ParamSpec { name: "cv", default: $cv, help: "regular: coefficient of variation of the degrees" },
            $crate::registry::ParamSpec { name: "local", default: $local, help: "regular: 1 = neighbours close in id (mesh-like), 0 = random neighbours" },
            $crate::registry::ParamSpec { name: "run", default: "1", help: "regular: consecutive vertices sharing one drawn degree (1024 = per-block CV follows degree CV)" },
            $($extra,)*
        ]
    };
}
pub(crate) use graph_params;

/// Build the input graph selected by the `graph` parameter (see `graph_params!`).
pub fn graph_from_params(p: &Params, d: &GraphDefaults) -> Result<Csr, WorkloadError> {
    let bad = |m: String| Err(WorkloadError::Msg(m));
    match p.str("graph", d.kind).as_str() {
        "rmat" => {
            let s = p.u64("scale", d.scale)?;
            let e = p.u64("edge_factor", d.edge_factor)?;
            if !(2..=26).contains(&s) || e == 0 || (e << s) > (1 << 28) {
                return bad(format!(
                    "rmat: need 2 <= scale <= 26, edge_factor > 0 and edge_factor x 2^scale <= 2^28 (got {s}, {e})"
                ));
            }
            Ok(graph::rmat(s as u32, e, p.seed))
        }
        "grid" => {
            let side = p.u64("side", 512)?;
            if !(2..=8192).contains(&side) {
                return bad(format!("grid: need 2 <= side <= 8192 (got {side})"));
            }
            Ok(graph::grid(side, side))
        }
        "regular" => {
            let n = p.u64("n", d.n)?;
            let deg = p.f64("degree", d.degree)?;
            let cv = p.f64("cv", d.cv)?;
            let local = p.u64("local", d.local)?;
            let run = p.u64("run", 1)?;
            // the same bounds as R-MAT's: at most 2^26 vertices and 2^28 generated edges
            // (each edge is two adjacency entries; degree = 1e12 used to abort on a 32 GB
            // allocation, or run for hours in tc)
            let fits = (2..=1 << 26).contains(&n)
                && deg.is_finite()
                && deg > 0.0
                && deg <= (n - 1) as f64
                && n as f64 * deg <= (1u64 << 28) as f64;
            if !fits || !cv.is_finite() || cv < 0.0 {
                return bad(format!(
                    "regular: need 2 <= n <= 2^26, 0 < degree <= n - 1, n x degree <= 2^28 and a finite cv >= 0 (got n = {n}, degree = {deg}, cv = {cv})"
                ));
            }
            let nb = if local != 0 {
                Neighbours::Local
            } else {
                Neighbours::Random
            };
            Ok(graph::regular(n, deg, cv, nb, run, p.seed))
        }
        other => bad(format!(
            "unknown graph kind `{other}`; use rmat, grid or regular"
        )),
    }
}

/// The traversal root from the `root` parameter: `auto` picks the largest-degree vertex (so
/// the traversal covers the giant component), `center` the middle vertex (grids), otherwise
/// a vertex id.
pub fn root_from_params(p: &Params, g: &Csr, default: &str) -> Result<u64, WorkloadError> {
    let s = p.str("root", default);
    let n = g.num_vertices();
    let r = match s.as_str() {
        "auto" => g.max_degree_vertex(),
        "center" => {
            let side = (n as f64).sqrt().round() as u64;
            if side * side == n {
                (side / 2) * side + side / 2
            } else {
                n / 2
            }
        }
        _ => s.trim().parse::<u64>().map_err(|_| {
            WorkloadError::Msg(format!(
                "parameter `root` = `{s}`: use auto, center or a vertex id"
            ))
        })?,
    };
    if r >= n {
        return Err(WorkloadError::Msg(format!(
            "root {r} is not a vertex (|V| = {n})"
        )));
    }
    Ok(r)
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Helpers for the graph benchmark tests: run a workload, hash its stream, count lines.

    use crate::model::ModelWorkload;
    use crate::program::{BlockProgram, Workload};
    use crate::registry::{self};
    use std::collections::BTreeMap;
    use std::hash::{Hash, Hasher};

    /// Build benchmark `name` with `kv` overrides.
    pub fn build(name: &str, kv: &[(&str, &str)], seed: u64) -> ModelWorkload {
        let ov: BTreeMap<String, String> = kv
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        registry::build(name, &ov, seed).unwrap()
    }

    /// Summary of one full run.
    #[derive(Debug, Default)]
    pub struct RunStats {
        /// Kernel names in launch order.
        pub launches: Vec<String>,
        /// Total coalesced line requests (global/texture/constant).
        pub lines: u64,
        /// Hash of every instruction class, lane count and line request.
        pub hash: u64,
    }

    /// Run every launch and block of `w` in order.
    pub fn run(w: &mut ModelWorkload) -> RunStats {
        let mut st = RunStats::default();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let mut bp = BlockProgram::default();
        while let Some(mut l) = w.next_launch().unwrap() {
            st.launches.push(l.info().name.clone());
            for b in 0..l.info().num_blocks() {
                l.block(b, false, 128, &mut bp).unwrap();
                for wp in &bp.warps {
                    for i in &wp.insts {
                        (i.class as u8, i.lanes).hash(&mut h);
                        for lr in wp.lines_of(i) {
                            (lr.addr, lr.bytes, lr.obj).hash(&mut h);
                            st.lines += 1;
                        }
                    }
                }
            }
        }
        st.hash = h.finish();
        st
    }
}
