//! K-means feature transpose (CODA Fig. 1; Rodinia `kmeans` `invert_mapping`): one thread
//! per point copies its `nfeatures` AoS features `in[pid*nfeatures+i]` to the SoA layout
//! `out[i*npoints+pid]`, 256 threads per block. The AoS read of a warp strides by
//! `nfeatures*4` bytes (one line per lane), the SoA write is one line per warp.
//!
//! Default input: Rodinia's own (`kdd_cup`: 494,020 points of 34 features, 134 MB for input
//! and output) brought under the footprint cap by rule 1 of [`crate::scale`]: 123,136
//! points (the largest multiple of the 256-thread block that fits 32 MiB).

use super::common::{bad, kinfo, loop_step, rolled_loops, seq, Unrolled, LOOPS_PARAM};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "kmeans-transpose",
    suite: "Rodinia",
    category: "core-exclusive",
    about: "K-means invert_mapping: AoS features -> SoA (CODA Fig. 1), 256 threads/block",
    params: &[
        ParamSpec {
            name: "npoints",
            default: "123136",
            help: "points (rows of the AoS input; default: rule 1 on Rodinia's kdd_cup, 494,020)",
        },
        ParamSpec {
            name: "nfeatures",
            default: "34",
            help: "features per point (KDD Cup: 34)",
        },
        LOOPS_PARAM,
    ],
    build,
};

/// Threads per block of Rodinia kmeans (`THREADS_PER_DIM * THREADS_PER_DIM`).
pub(crate) const KM_THREADS: u32 = 256;

/// Rodinia `invert_mapping(input, output, npoints, nfeatures)`.
pub(crate) struct InvertMapping {
    /// AoS input `[npoints][nfeatures]`.
    pub input: ObjId,
    /// SoA output `[nfeatures][npoints]`.
    pub output: ObjId,
    pub npoints: u64,
    pub nfeatures: u64,
    /// `loops=rolled` ([`rolled_loops`]): the feature loop one iteration at a time.
    pub rolled: bool,
}

impl InvertMapping {
    /// The feature loop one iteration at a time (`loops=rolled`): entry `MOV; S2R x2;
    /// IMAD; ISETP; EXIT` (6), the loop guard (2), per feature the two addresses, `LDG`,
    /// `STG` and the loop control (7).
    fn thread_rolled(&self, t: &mut Thread<'_>, pid: u64) {
        t.alu(5);
        t.branch(1);
        if pid < self.npoints {
            t.alu(1);
            t.branch(1);
            for i in 0..self.nfeatures {
                t.alu(2);
                let v: f32 = t.ld(self.input, pid * self.nfeatures + i);
                t.st(self.output, pid + self.npoints * i, v);
                loop_step(t);
            }
        }
    }
}

impl Kernel for InvertMapping {
    fn info(&self) -> KernelInfo {
        let blocks = self.npoints.div_ceil(KM_THREADS as u64) as u32;
        kinfo(
            "invert_mapping",
            Dim3::x(blocks),
            Dim3::x(KM_THREADS),
            12,
            0,
        )
    }
    /// Per thread, the instructions of Rodinia kmeans `invert_mapping` as nvcc 13 compiles
    /// it for sm_90 (validation/gpu/h200/sass.txt): entry `LDC x3; S2R; S2UR; IMAD;
    /// ISETP x2; EXIT` (8 int, 1 control), the trip count and guard (5 int, 1 control);
    /// with 4 or more features the unrolled part's set-up (7 int, 1 control; 2 int and 1
    /// control more before the 16s), chunks of 16 features while more than 12 remain, one
    /// chunk of 8 if more than 4 remain, chunks of 4 while any remain (each chunk 3 int of
    /// addresses, per feature `LDG; IMAD.WIDE; STG`, 5 int, the 16s and 4s a back edge;
    /// a test of 1 int and 1 control after the 16s and after the 8), then the exit test
    /// (1 int, 1 control) and the `nfeatures % 4` remaining features one at a time (6 int
    /// of set-up; per feature `LDG`, 4 int, `STG`, 1 int, the back edge), `EXIT` (the
    /// merge's). Each
    /// store waits for its load (it stores the loaded value; input and output may alias,
    /// so nvcc keeps them in order). With 34 features: 170 warp instructions, 68 of them
    /// memory. Under `loops=rolled`, [`InvertMapping::thread_rolled`].
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let pid = t.gx();
        if self.rolled {
            return self.thread_rolled(t, pid);
        }
        t.alu(8);
        t.branch(1);
        if pid >= self.npoints {
            return;
        }
        let nf = self.nfeatures;
        let copy = |t: &mut Thread<'_>, i: u64| {
            let v: f32 = t.ld(self.input, pid * nf + i);
            t.st(self.output, pid + self.npoints * i, v);
        };
        let chunk = |t: &mut Thread<'_>, i0: u64, k: u64| {
            t.alu(3);
            for i in i0..i0 + k {
                copy(t, i);
                t.alu(1);
            }
            t.alu(5);
        };
        t.alu(5);
        t.branch(1);
        let rem = nf % 4;
        let mut i = 0;
        if nf >= 4 {
            t.alu(9);
            t.branch(2);
            let u = Unrolled::of(nf - rem);
            if u.sixteens > 0 {
                t.alu(1);
            }
            for _ in 0..u.sixteens {
                chunk(t, i, 16);
                t.branch(1);
                i += 16;
            }
            t.alu(1);
            t.branch(1);
            if u.eight {
                chunk(t, i, 8);
                i += 8;
            }
            t.alu(1);
            t.branch(1);
            for _ in 0..u.fours {
                chunk(t, i, 4);
                t.branch(1);
                i += 4;
            }
        }
        t.alu(1);
        t.branch(1);
        if rem > 0 {
            t.alu(6);
            for i in i..nf {
                let v: f32 = t.ld(self.input, pid * nf + i);
                t.alu(4);
                t.st(self.output, pid + self.npoints * i, v);
                t.alu(1);
                t.branch(1);
            }
        }
    }
}

/// Generate `npoints` points with `nfeatures` features around a few random centres (so
/// K-means has real clusters to find); AoS layout, values in `[0, 1)`.
pub(crate) fn gen_points(rng: &mut Rng, npoints: u64, nfeatures: u64, centres: u64) -> Vec<f32> {
    let cs: Vec<f32> = (0..centres * nfeatures).map(|_| rng.f32()).collect();
    let mut v = Vec::with_capacity((npoints * nfeatures) as usize);
    for _ in 0..npoints {
        let c = rng.below(centres);
        for f in 0..nfeatures {
            let noise = (rng.f32() - 0.5) * 0.2;
            v.push((cs[(c * nfeatures + f) as usize] + noise).clamp(0.0, 1.0));
        }
    }
    v
}

/// Check and read the common K-means size parameters.
pub(crate) fn km_sizes(p: &Params, npoints_default: u64) -> Result<(u64, u64), WorkloadError> {
    let npoints = p.u64("npoints", npoints_default)?;
    let nfeatures = p.u64("nfeatures", 34)?;
    if npoints == 0 || nfeatures == 0 || nfeatures > 4096 {
        return Err(bad(
            "kmeans: need npoints > 0 and 0 < nfeatures <= 4096".into()
        ));
    }
    Ok((npoints, nfeatures))
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (npoints, nfeatures) = km_sizes(p, 128 << 10)?;
    let mut rng = Rng::new(p.seed);
    let mut m = Memory::new();
    let pts = gen_points(&mut rng, npoints, nfeatures, 5);
    let input = m.alloc_from("feature_flipped_d", &pts, true);
    let output = m.alloc::<f32>("feature_d", npoints * nfeatures, false);
    let k = InvertMapping {
        input,
        output,
        npoints,
        nfeatures,
        rolled: rolled_loops(p, "kmeans-transpose")?,
    };
    Ok(ModelWorkload::new(
        "kmeans-transpose",
        m,
        seq(vec![Box::new(k)]),
    ))
}
