//! SHOC MD (level 1, `MD.cu`, kernel `compute_lj_force<float, float3, float4, true,
//! texReader_sp>`): Lennard-Jones forces over a fixed neighbour list, one thread per atom,
//! 256 threads per block. Each thread loads its own position `position[idx]` (a `float4`,
//! global), then for `j` in `0..maxNeighbors` (128) reads `neighList[j * nAtom + idx]`
//! (column-major: coalesced across the warp), fetches the neighbour's position through the
//! texture `tex1Dfetch(posTexture, jidx)` (SHOC's default, `useTexture = true`), and, when
//! the squared distance is below `cutsq` (16), adds `r2inv * r6inv * (lj1 * r6inv - lj2)`
//! times the displacement (lj1 = 1.5, lj2 = 2); it stores the `float3` force.
//!
//! The neighbour list is SHOC's: each atom's 128 nearest other atoms in increasing order
//! of distance (ties by index), whether inside the cutoff or not, over atoms placed
//! uniformly at random in a cube of edge 20. SHOC finds them by brute force; the model
//! uses a cell grid with the same result.
//!
//! Inputs: HMS Table IV (training set, `compute_lj_force`, `d_position(T→G)`,
//! `neighList(G→T)`) gives no size; SHOC's default size class 1: 12,288 atoms (classes
//! 12288, 24576, 36864, 73728), `--iterations 1` launch per pass. Footprint 6.6 MB, under
//! the cap (rule 1 keeps it). Single precision only.
//!
//! Placement: `--param position_space=global` reads the neighbours' positions from global
//! memory (HMS `d_position(T→G)`); `--param neighlist_space=texture` reads the neighbour
//! list through the texture path (HMS `neighList(G→T)`).

use super::common::{addr_ld, bad, entry, kinfo, loop_step, seq, MemSpace};
use crate::bench::dense::hs::F4;
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-md",
    suite: "SHOC",
    category: "-",
    about: "SHOC MD compute_lj_force: LJ forces over a 128-nearest neighbour list, positions through texture",
    params: &[
        ParamSpec {
            name: "atoms",
            default: "12288",
            help: "atoms (SHOC size class 1; multiple of 256)",
        },
        ParamSpec {
            name: "neighbors",
            default: "128",
            help: "neighbours per atom (SHOC maxNeighbors)",
        },
        ParamSpec {
            name: "iterations",
            default: "1",
            help: "launches (SHOC --iterations)",
        },
        ParamSpec {
            name: "position_space",
            default: "texture",
            help: "space of the neighbours' positions: texture | global (HMS d_position(T→G))",
        },
        ParamSpec {
            name: "neighlist_space",
            default: "global",
            help: "space of neighList: global | texture (HMS neighList(G→T))",
        },
    ],
    build,
};

/// Threads per block.
const BS: u64 = 256;
const CUTSQ: f32 = 16.0;
const LJ1: f32 = 1.5;
const LJ2: f32 = 2.0;
/// Edge of the cubic domain.
const DOMAIN: f64 = 20.0;

struct LjForce {
    force: ObjId,
    position: ObjId,
    neigh: ObjId,
    atoms: u64,
    neighbors: u64,
    pos_space: MemSpace,
    nl_space: MemSpace,
}

/// The force contribution of one neighbour (SHOC's arithmetic, in its order).
fn lj(ipos: F4, jpos: F4) -> Option<[f32; 3]> {
    let d = [
        ipos.0[0] - jpos.0[0],
        ipos.0[1] - jpos.0[1],
        ipos.0[2] - jpos.0[2],
    ];
    let mut r2inv = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if r2inv < CUTSQ {
        r2inv = 1.0 / r2inv;
        let r6inv = r2inv * r2inv * r2inv;
        let force = r2inv * r6inv * (LJ1 * r6inv - LJ2);
        Some([d[0] * force, d[1] * force, d[2] * force])
    } else {
        None
    }
}

impl Kernel for LjForce {
    fn info(&self) -> KernelInfo {
        kinfo(
            "compute_lj_force",
            Dim3::x((self.atoms / BS) as u32),
            Dim3::x(BS as u32),
            32,
            0,
        )
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): `MOV; S2R x2; IMAD` (idx), the
    /// position address (`IMAD.WIDE`), `LDG.128`, the loop entry `ISETP; BRA`; per
    /// neighbour the list address (`IMAD.WIDE`; none through a texture), its load, the
    /// position fetch by index (`TEX`, or `IMAD.WIDE` + `LDG.128` from global memory),
    /// `FADD` x3, `FMUL; FFMA x2` (r2), `FSETP; BRA`; the cutoff body the division
    /// (`MUFU.RCP` + 4 fp), `FMUL` x2 (r6inv), `FMUL; FFMA; FMUL` (force), `FFMA` x3; loop
    /// control. The `float3` store: its address and three `STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let idx = t.gid();
        entry(t, 2, 1, false);
        t.alu(1);
        let ipos: F4 = t.ld(self.position, idx);
        t.alu(1);
        t.branch(1);
        let mut f = [0f32; 3];
        for j in 0..self.neighbors {
            let jidx: i32 = addr_ld(t, self.nl_space, self.neigh, j * self.atoms + idx);
            let jpos: F4 = addr_ld(t, self.pos_space, self.position, jidx as u64);
            t.fp(6);
            t.alu(1);
            t.branch(1);
            // the body is issued whenever a lane of the warp is inside the cutoff, which
            // with SHOC's inputs (128-nearest radius about 2.7 against a cutoff of 4) is
            // every time: recorded by every lane, keeping the warp aligned
            t.sfu(1);
            t.fp(4 + 2 + 3 + 3);
            if let Some(df) = lj(ipos, jpos) {
                for k in 0..3 {
                    f[k] += df[k];
                }
            }
            loop_step(t);
        }
        t.alu(1);
        for (k, v) in f.iter().enumerate() {
            t.st(self.force, idx * 3 + k as u64, *v);
        }
    }
}

/// Each atom's `k` nearest other atoms, nearest first (ties by index), stored column-major
/// `list[j * n + i]` as SHOC's `buildNeighborList` does; a cell grid replaces its brute
/// force (same result: a search box is widened until the k-th distance is inside it).
pub(crate) fn neighbor_list(pos: &[F4], k: usize) -> Vec<i32> {
    let n = pos.len();
    let cells = ((n as f64 / 8.0).cbrt().floor() as usize).clamp(1, 64);
    let cell = DOMAIN / cells as f64;
    let cof = |x: f32| ((x as f64 / cell) as usize).min(cells - 1);
    let mut bins: Vec<Vec<u32>> = vec![Vec::new(); cells * cells * cells];
    for (i, p) in pos.iter().enumerate() {
        bins[(cof(p.0[2]) * cells + cof(p.0[1])) * cells + cof(p.0[0])].push(i as u32);
    }
    let mut list = vec![0i32; n * k];
    let mut cand: Vec<(f32, u32)> = Vec::new();
    for (i, p) in pos.iter().enumerate() {
        let c = [cof(p.0[0]), cof(p.0[1]), cof(p.0[2])];
        let mut ring = 1usize;
        loop {
            cand.clear();
            let lo = |a: usize| a.saturating_sub(ring);
            let hi = |a: usize| (a + ring).min(cells - 1);
            for z in lo(c[2])..=hi(c[2]) {
                for y in lo(c[1])..=hi(c[1]) {
                    for x in lo(c[0])..=hi(c[0]) {
                        for &j in &bins[(z * cells + y) * cells + x] {
                            if j as usize != i {
                                let q = pos[j as usize];
                                let d = [p.0[0] - q.0[0], p.0[1] - q.0[1], p.0[2] - q.0[2]];
                                cand.push((d[0] * d[0] + d[1] * d[1] + d[2] * d[2], j));
                            }
                        }
                    }
                }
            }
            let covered = ring as f64 * cell;
            let full = ring >= cells;
            if cand.len() >= k || full {
                cand.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let kth = cand.get(k - 1).map_or(f32::INFINITY, |c| c.0) as f64;
                if full || kth <= covered * covered {
                    break;
                }
            }
            ring += 1;
        }
        for j in 0..k {
            // fewer than k other atoms: SHOC's list keeps its -1 fill; point at itself
            list[j * n + i] = cand.get(j).map_or(i as i32, |c| c.1 as i32);
        }
    }
    list
}

/// Host reference: SHOC's `checkResults` arithmetic.
#[cfg(test)]
pub(crate) fn host_forces(pos: &[F4], list: &[i32], k: usize) -> Vec<f32> {
    let n = pos.len();
    let mut out = vec![0f32; 3 * n];
    for i in 0..n {
        let mut f = [0f32; 3];
        for j in 0..k {
            if let Some(df) = lj(pos[i], pos[list[j * n + i] as usize]) {
                for c in 0..3 {
                    f[c] += df[c];
                }
            }
        }
        out[3 * i..3 * i + 3].copy_from_slice(&f);
    }
    out
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let atoms = p.u64("atoms", 12288)?;
    let neighbors = p.u64("neighbors", 128)?;
    let iterations = p.u64("iterations", 1)?;
    use MemSpace::*;
    let pos_space = MemSpace::param(p, "position_space", Texture, &[Texture, Global])?;
    let nl_space = MemSpace::param(p, "neighlist_space", Global, &[Global, Texture])?;
    if atoms == 0 || atoms % BS != 0 || neighbors == 0 || neighbors >= atoms || iterations == 0 {
        return Err(bad(
            "shoc-md: atoms must be a positive multiple of 256, 1 <= neighbors < atoms, iterations >= 1"
                .into(),
        ));
    }
    let mut rng = Rng::new(p.seed);
    let pos: Vec<F4> = (0..atoms)
        .map(|_| {
            F4([
                (rng.f64() * DOMAIN) as f32,
                (rng.f64() * DOMAIN) as f32,
                (rng.f64() * DOMAIN) as f32,
                0.0,
            ])
        })
        .collect();
    let list = neighbor_list(&pos, neighbors as usize);
    let mut m = Memory::new();
    let force = m.alloc::<f32>("d_force", 3 * atoms, false);
    let position = m.alloc_from("d_position", &pos, true);
    let neigh = m.alloc_from("d_neighborList", &list, true);
    let kernels: Vec<Box<dyn Kernel>> = (0..iterations)
        .map(|_| {
            Box::new(LjForce {
                force,
                position,
                neigh,
                atoms,
                neighbors,
                pos_space,
                nl_space,
            }) as Box<dyn Kernel>
        })
        .collect();
    Ok(ModelWorkload::new("shoc-md", m, seq(kernels)))
}
