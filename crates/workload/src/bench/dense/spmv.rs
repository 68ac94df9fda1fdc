//! Parboil SPMV (`spmv_jds`): the matrix in transposed jagged-diagonal storage. Rows are
//! sorted by length (descending) and padded to warps; diagonal `k` holds the `k`-th non-zero
//! of every row whose warp has more than `k` non-zeros, contiguously from `jds_ptr[k]`.
//! Thread `ix = bx*bd+tx` loops `k < sh_zcnt[ix>>5]`: `data[jds_ptr[k]+ix]`,
//! `indices[jds_ptr[k]+ix]`, `x[indices[..]]` through the texture path, then stores
//! `dst[perm[ix]]`. `jds_ptr` and `sh_zcnt` are `__constant__`. Block size 192 (Parboil's
//! `compute_active_thread` on Fermi: 1536 threads / 8 blocks). Spec §7 SPMV row: CE.

use super::common::{kinfo, loop_step, prologue, seq};
use super::spmv_csr::matrix_spec;
use crate::gen::matrix::{banded_random, Csr};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "spmv",
    suite: "Parboil",
    category: "core-exclusive",
    about: "Parboil spmv_jds: JDS SpMV, texture x, constant jds_ptr/zcnt, 192 threads/block",
    params: &[
        ParamSpec {
            name: "rows",
            default: "147456",
            help: "matrix rows (Dubcova3-like size)",
        },
        ParamSpec {
            name: "nnz",
            default: "24",
            help: "mean non-zeros per row",
        },
        ParamSpec {
            name: "spread",
            default: "2",
            help: "non-zeros per row vary by +-spread",
        },
        ParamSpec {
            name: "band",
            default: "64",
            help: "half-width of the banded component",
        },
        ParamSpec {
            name: "random",
            default: "0.1",
            help: "fraction of random columns",
        },
    ],
    build,
};

/// Threads per block.
const BLOCK: u32 = 192;

/// A matrix in Parboil's JDS layout.
pub(crate) struct Jds {
    /// Rows padded to a multiple of 32.
    pub dim_pad: usize,
    pub data: Vec<f32>,
    pub indices: Vec<u32>,
    /// `perm[sorted_row] = original_row`.
    pub perm: Vec<u32>,
    pub jds_ptr: Vec<u32>,
    /// Non-zeros of the longest row of each warp of sorted rows.
    pub zcnt: Vec<u32>,
}

/// Convert CSR to JDS (stable sort by decreasing row length; padding per warp of 32 rows).
#[allow(clippy::needless_range_loop)]
pub(crate) fn to_jds(a: &Csr) -> Jds {
    let len = |r: usize| (a.row_ptr[r + 1] - a.row_ptr[r]) as usize;
    let mut perm: Vec<u32> = (0..a.n as u32).collect();
    perm.sort_by_key(|&r| std::cmp::Reverse(len(r as usize)));
    let dim_pad = a.n.div_ceil(32) * 32;
    let warps = dim_pad / 32;
    let zcnt: Vec<u32> = (0..warps)
        .map(|w| len(perm[w * 32] as usize) as u32)
        .collect();
    let maxd = zcnt.first().copied().unwrap_or(0) as usize;
    let mut jds_ptr = Vec::with_capacity(maxd);
    let mut total = 0usize;
    for k in 0..maxd {
        jds_ptr.push(total as u32);
        total += 32 * zcnt.iter().filter(|&&z| z as usize > k).count();
    }
    let mut data = vec![0.0f32; total];
    let mut indices = vec![0u32; total];
    for (sr, &r) in perm.iter().enumerate() {
        let s = a.row_ptr[r as usize] as usize;
        for k in 0..len(r as usize) {
            let j = jds_ptr[k] as usize + sr;
            data[j] = a.val[s + k];
            indices[j] = a.col[s + k];
        }
    }
    Jds {
        dim_pad,
        data,
        indices,
        perm,
        jds_ptr,
        zcnt,
    }
}

/// The `spmv_jds` kernel.
struct SpmvJds {
    dst: ObjId,
    data: ObjId,
    indices: ObjId,
    perm: ObjId,
    x: ObjId,
    jds_ptr: ObjId,
    zcnt: ObjId,
    dim: u64,
}

impl Kernel for SpmvJds {
    fn info(&self) -> KernelInfo {
        let g = self.dim.div_ceil(BLOCK as u64) as u32;
        kinfo("spmv_jds", Dim3::x(g), Dim3::x(BLOCK), 20, 0)
    }
    /// Per thread, the instructions of Parboil `spmv_jds` (sm_70+ SASS, issue 7 §1
    /// counting): entry `MOV; S2R x2; IMAD; ISETP; EXIT` (6); `ix/32` and its constant-bank
    /// index (`SHF; IMAD`), `LDC` of the bound, the loop guard `ISETP; BRA`; per diagonal:
    /// the `jds_ptr` index (1), `LDC`, `IADD3` (`j`) and the `d_data` and `d_index`
    /// addresses (`IMAD.WIDE` x2), `LDG` x2, the texture coordinate from the index (1),
    /// `TEX`, `FFMA` and the loop control (3): 13 per diagonal, 4 of them memory; then the
    /// `d_perm` address, `LDG`, the destination address, `STG`, `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let ix = t.gx();
        prologue(t, 2, 1);
        if ix >= self.dim {
            return;
        }
        t.alu(2);
        let bound: u32 = t.ld_const(self.zcnt, ix >> 5);
        t.alu(1);
        t.branch(1);
        let mut sum = 0.0f32;
        for k in 0..bound as u64 {
            t.alu(1);
            let jp: u32 = t.ld_const(self.jds_ptr, k);
            t.alu(3);
            let j = jp as u64 + ix;
            let d: f32 = t.ld(self.data, j);
            let i: u32 = t.ld(self.indices, j);
            t.alu(1);
            let xv: f32 = t.ld_tex(self.x, i as u64);
            t.fp(1);
            sum += d * xv;
            loop_step(t);
        }
        t.alu(1);
        let pr: u32 = t.ld(self.perm, ix);
        t.alu(1);
        t.st(self.dst, pr as u64, sum);
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let s = matrix_spec(p, 147456, 24, 2, 64, 0.1)?;
    let a = banded_random(s, p.seed);
    let j = to_jds(&a);
    let mut rng = Rng::new(p.seed ^ 0x5eed);
    let xv: Vec<f32> = (0..s.n).map(|_| rng.f32()).collect();
    let mut m = Memory::new();
    let data = m.alloc_from("d_data", &j.data, true);
    let indices = m.alloc_from("d_index", &j.indices, true);
    let perm = m.alloc_from("d_perm", &j.perm, true);
    let x = m.alloc_from("x_vec", &xv, true);
    let dst = m.alloc::<f32>("dst_vector", j.dim_pad as u64, false);
    let jds_ptr = m.alloc_from("jds_ptr_int", &j.jds_ptr, true);
    let zcnt = m.alloc_from("sh_zcnt_int", &j.zcnt, true);
    let k = SpmvJds {
        dst,
        data,
        indices,
        perm,
        x,
        jds_ptr,
        zcnt,
        dim: s.n as u64,
    };
    Ok(ModelWorkload::new("spmv", m, seq(vec![Box::new(k)])))
}
