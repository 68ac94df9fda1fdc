//! Rodinia `lavaMD` (cuda/lavaMD), registry name `lavamd`: particle forces in a 3-D grid of
//! `boxes1d^3` boxes of `NUMBER_PAR_PER_BOX = 100` particles. `kernel_gpu_cuda` runs one
//! block of `NUMBER_THREADS = 128` threads per home box: the home box's positions
//! (`FOUR_VECTOR rv = {v, x, y, z}`) are staged in shared memory (`rA_shared`), then for the
//! home box and each of its `nn` neighbours (`box_str.nei[]`, up to 26) the neighbour's
//! positions and charges are staged (`rB_shared`, `qB_shared` as doubles), `__syncthreads()`,
//! and threads `0..100` accumulate into their particle's force (`fA[wtx]`, global) the
//! contribution of the 100 neighbour particles (`vij = exp(-2 alpha^2 r2)`, forces along
//! the distance), `__syncthreads()`.
//!
//! Host (main.c): the boxes in z, y, x order with their neighbours in the same order,
//! positions and charges `(rand() % 10 + 1) / 10` (here from the seeded generator), forces
//! zero, `alpha = 0.5`; one launch.
//!
//! Every block runs the phases of the largest neighbour count (27 boxes, 55 phases); a
//! block whose box has fewer neighbours runs empty trailing phases, so it issues up to 2
//! barrier instructions per missing neighbour that the real kernel does not.
//!
//! Inputs: NUBA §6.3 Table 2 lists LavaMD at 7 MB; Rodinia's run (`-boxes1d 10`, 1000
//! boxes, 100K particles) is 4.3 MB here, under the 32 MiB cap: rule 1 keeps it. That input
//! issues 335 M warp instructions (each block walks 100 x 100 pairs per neighbour box) and
//! takes 43.2 s of host CPU time on `coda-4gpu` (session 23's engine, idle, 2026-11-29;
//! BENCHMARKS.md), so rule 2 of [`crate::scale`] does not apply and the default is
//! Rodinia's. (Sessions 17-22 halved `boxes1d` to 5 when the paper input took 72.8 s.)

use crate::bench::dense::common::{bad, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "lavamd",
    suite: "Rodinia",
    category: "-",
    about: "Rodinia lavaMD: kernel_gpu_cuda, one 128-thread block per home box, home and \
            neighbour boxes staged in shared memory, 100x100 particle interactions per box pair",
    params: &[ParamSpec {
        name: "boxes1d",
        default: "10",
        help: "boxes per side (Rodinia's run: -boxes1d 10)",
    }],
    build,
};

/// `NUMBER_PAR_PER_BOX`.
pub const PAR: u64 = 100;
/// `NUMBER_THREADS`.
const THREADS: u64 = 128;
/// 32-bit words of one `box_str` (656 bytes).
const BOX_WORDS: u64 = 164;
/// `alpha`.
const ALPHA: f32 = 0.5;
/// Shared-memory word bases: `rA_shared`, `rB_shared`, `qB_shared` (doubles).
const SH_RA: u32 = 0;
const SH_RB: u32 = 400;
const SH_QB: u32 = 800;

/// The box table: (offset, neighbour box numbers) per box, in main.c's order.
pub fn boxes(b1: u64) -> Vec<Vec<u64>> {
    let b = b1 as i64;
    let mut out = Vec::new();
    for i in 0..b {
        for j in 0..b {
            for k in 0..b {
                let mut nei = Vec::new();
                for l in -1..2 {
                    for m in -1..2 {
                        for n in -1..2 {
                            let (z, y, x) = (i + l, j + m, k + n);
                            let inside = z >= 0 && y >= 0 && x >= 0 && z < b && y < b && x < b;
                            if inside && !(l == 0 && m == 0 && n == 0) {
                                nei.push((z * b * b + y * b + x) as u64);
                            }
                        }
                    }
                }
                out.push(nei);
            }
        }
    }
    out
}

/// The force contribution of particle `b` (charge `q`) on particle `a`, added to `f` the
/// way the kernel does (float math, the sum in double).
pub fn interact(f: &mut [f32; 4], a: [f32; 4], b: [f32; 4], q: f32) {
    let a2 = (2.0 * ALPHA as f64 * ALPHA as f64) as f32;
    let r2 = a[0] + b[0] - (a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    let u2 = a2 * r2;
    let vij = (-u2).exp();
    let fs = 2.0 * vij;
    let d = [a[1] - b[1], a[2] - b[2], a[3] - b[3]];
    let fx = [fs * d[0], fs * d[1], fs * d[2]];
    f[0] = (f[0] as f64 + (q * vij) as f64) as f32;
    f[1] = (f[1] as f64 + (q * fx[0]) as f64) as f32;
    f[2] = (f[2] as f64 + (q * fx[1]) as f64) as f32;
    f[3] = (f[3] as f64 + (q * fx[2]) as f64) as f32;
}

/// `kernel_gpu_cuda`: phase 0 stages the home box; then per box `k` (home, neighbours)
/// phase `2k + 1` stages it and phase `2k + 2` computes.
struct LavaKernel {
    nboxes: u64,
    box_o: ObjId,
    rv: ObjId,
    qv: ObjId,
    fv: ObjId,
}

impl LavaKernel {
    fn ld4(&self, t: &mut Thread<'_>, o: ObjId, p: u64) -> [f32; 4] {
        let mut v = [0f32; 4];
        for (c, x) in v.iter_mut().enumerate() {
            *x = t.ld(o, 4 * p + c as u64);
        }
        v
    }
}

impl Kernel for LavaKernel {
    fn info(&self) -> KernelInfo {
        kinfo(
            "kernel_gpu_cuda",
            Dim3::x(self.nboxes as u32),
            Dim3::x(THREADS as u32),
            40,
            ((400 + 400) * 4 + 100 * 8) as u32,
        )
    }
    fn phases(&self) -> u32 {
        1 + 2 * 27
    }
    /// Per thread (sm_70-class SASS, issue 7 §1 counting). Phase 0: entry `MOV; S2R` x2,
    /// the bound `ISETP`/`EXIT`, `a2` in double (`F2F`, `DMUL` x2, `F2F`), `LDG.64
    /// box.offset` and its address; threads below 100: 4 `LDG` of `rA[wtx]` (the struct is
    /// only 4-byte aligned), 4 `STS`. Per box `k`, staging: `LDG nn` (reloaded: `fA` stores
    /// may alias the box table), the loop test, for neighbours `LDG nei[k-1].number`, then
    /// `LDG.64 offset` (addresses 3 int); threads below 100: 4 `LDG rv`, `LDG qv`, `F2F.F64`,
    /// 4 `STS`, `STS.64`. Compute, threads below 100: 4 `LDS` of `rA_shared[wtx]` and 4
    /// `LDG` of `fA[wtx]` (hoisted out of the j loop: the loop reads only shared memory),
    /// then per neighbour particle 4 `LDS` + `LDS.64`, the `qB` conversion (`F2F`, 1 sfu),
    /// `r2`/`u2`/`exp`/`fs`/`d`/forces (13 FP with `expf`'s 2, and its `MUFU.EX2`), the four
    /// double accumulations (`FMUL`, `F2F` x2, `DADD` each: 8 FP, 8 conversions at 1 sfu)
    /// and one int; the loop unrolled by 4 (`IADD3`,
    /// `ISETP`, `BRA` per 4); 4 `STG` of `fA[wtx]`; the outer loop step (3).
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tx = t.tid.x as u64;
        let bx = t.block.x as u64;
        let bw = bx * BOX_WORDS;
        let nn: i32 = t.peek(self.box_o, bw + 6);
        if phase == 0 {
            t.alu(4);
            t.branch(1);
            t.sfu(2);
            t.fp(2);
            t.alu(1);
            let first_i: i64 = t.ld(self.box_o, bw / 2 + 2);
            if tx < PAR {
                let r = self.ld4(t, self.rv, first_i as u64 + tx);
                for (c, x) in r.iter().enumerate() {
                    t.sh_st_f32(SH_RA + (4 * tx + c as u64) as u32, *x);
                }
            }
            return;
        }
        let k = ((phase - 1) / 2) as i32;
        if k > nn {
            return;
        }
        if phase % 2 == 1 {
            t.alu(1);
            let _nn: i32 = t.ld(self.box_o, bw + 6);
            t.alu(1);
            t.branch(1);
            let pointer = if k == 0 {
                bx
            } else {
                t.alu(1);
                let p: i32 = t.ld(self.box_o, bw + 8 + 6 * (k as u64 - 1) + 3);
                p as u64
            };
            t.alu(1);
            let first_j: i64 = t.ld(self.box_o, pointer * BOX_WORDS / 2 + 2);
            if tx < PAR {
                let r = self.ld4(t, self.rv, first_j as u64 + tx);
                let q: f32 = t.ld(self.qv, first_j as u64 + tx);
                t.sfu(1);
                for (c, x) in r.iter().enumerate() {
                    t.sh_st_f32(SH_RB + (4 * tx + c as u64) as u32, *x);
                }
                t.sh_st_f32(SH_QB + 2 * tx as u32, q);
            }
        } else {
            let first_i: i64 = t.peek(self.box_o, bw / 2 + 2);
            if tx < PAR {
                let mut a = [0f32; 4];
                for (c, x) in a.iter_mut().enumerate() {
                    *x = t.sh_ld_f32(SH_RA + (4 * tx + c as u64) as u32);
                }
                t.alu(1);
                let mut f = self.ld4(t, self.fv, first_i as u64 + tx);
                for j in 0..PAR {
                    let mut b = [0f32; 4];
                    for (c, x) in b.iter_mut().enumerate() {
                        *x = t.sh_ld_f32(SH_RB + (4 * j + c as u64) as u32);
                    }
                    let q = t.sh_ld_f32(SH_QB + 2 * j as u32);
                    t.sfu(1);
                    t.fp(13);
                    t.sfu(1);
                    t.fp(8);
                    t.sfu(8);
                    t.alu(1);
                    interact(&mut f, a, b, q);
                    if j % 4 == 3 {
                        t.alu(2);
                        t.branch(1);
                    }
                }
                for (c, x) in f.iter().enumerate() {
                    t.st(self.fv, 4 * (first_i as u64 + tx) + c as u64, *x);
                }
            }
            t.alu(2);
            t.branch(1);
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let b1 = p.u64("boxes1d", 5)?;
    if b1 == 0 || b1 > 64 {
        return Err(bad(format!("lavamd: boxes1d = {b1} must be in 1..=64")));
    }
    let bx = boxes(b1);
    let nb = bx.len() as u64;
    // box_str words: x, y, z, number, offset (long), nn, pad, nei[26] of 6 words
    let mut bw = vec![0u32; (nb * BOX_WORDS) as usize];
    let b = b1 as usize;
    for (n, nei) in bx.iter().enumerate() {
        let w = &mut bw[n * BOX_WORDS as usize..(n + 1) * BOX_WORDS as usize];
        w[0] = (n % b) as u32;
        w[1] = (n / b % b) as u32;
        w[2] = (n / (b * b)) as u32;
        w[3] = n as u32;
        w[4] = (n as u64 * PAR) as u32;
        w[6] = nei.len() as u32;
        for (k, &m) in nei.iter().enumerate() {
            let e = 8 + 6 * k;
            let m = m as usize;
            w[e] = (m % b) as u32;
            w[e + 1] = (m / b % b) as u32;
            w[e + 2] = (m / (b * b)) as u32;
            w[e + 3] = m as u32;
            w[e + 4] = (m as u64 * PAR) as u32;
        }
    }
    let mut rng = Rng::new(p.seed);
    let mut tenth = || (rng.below(10) + 1) as f32 / 10.0;
    let np = nb * PAR;
    let rv: Vec<f32> = (0..4 * np).map(|_| tenth()).collect();
    let qv: Vec<f32> = (0..np).map(|_| tenth()).collect();
    let mut mem = Memory::new();
    let box_o = mem.alloc_from("d_box_gpu", &bw, true);
    let rv_o = mem.alloc_from("d_rv_gpu", &rv, true);
    let qv_o = mem.alloc_from("d_qv_gpu", &qv, true);
    let fv_o = mem.alloc::<f32>("d_fv_gpu", 4 * np, false);
    let k = LavaKernel {
        nboxes: nb,
        box_o,
        rv: rv_o,
        qv: qv_o,
        fv: fv_o,
    };
    Ok(ModelWorkload::new(
        "lavamd",
        mem,
        crate::bench::dense::common::seq(vec![Box::new(k)]),
    ))
}
