//! SHOC SpMV (level 1, `Spmv.cu`, kernel `spmv_csr_vector_kernel<float, texReaderSP>`): `out
//! = A * vec` for a CSR matrix, one warp per row. Blocks of 128 threads (`BLOCK_SIZE`), 4
//! rows per block; each warp reads its row's bounds `rowDelimiters[myRow]`,
//! `rowDelimiters[myRow + 1]` (one broadcast line), its lanes stride the row by 32 reading
//! `cols[j]`, `val[j]` and `vec[cols[j]]` through the texture (`tex1Dfetch(vecTex, col)`),
//! then reduce their partial sums in the `volatile` shared `partialSums` warp-synchronously
//! (`if (id < 16) .. += [t + 16]` .. `if (id < 1)`); lane 0 writes `out[myRow]`. SHOC's
//! host launches it `--iterations` (100) times per pass.
//!
//! Inputs: HMS Table IV (training set, `vector_kernel`, ten placements) gives no size;
//! SHOC's default size class 1: a random 1024 x 1024 matrix with 1% non-zeros (10,485,
//! placed row by row with probability `n / dim^2` as `initRandomMatrix` does, values and
//! vector uniform in [0, 10)), 100 iterations; the footprint is far under the cap (rule 1
//! keeps it). Single precision, unpadded CSR only (SHOC also runs the scalar kernel, the
//! padded CSR variants and ELLPACK-R).
//!
//! Placement (HMS's spmv tests): `vec_space` (default `texture`, as SHOC; `global`,
//! `constant`), `rowd_space` (`rowDelimiters`: default `global`; `texture`, `constant`),
//! `val_space` and `cols_space` (default `global`; `texture`). A constant array must fit in
//! 64 KiB. `rowDelimiters` in shared memory (HMS's `rowD(G→S)`) is not modelled.

use super::common::{addr_ld, bad, entry, host, kinfo, loop_step, MemSpace, WarpTail};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-spmv",
    suite: "SHOC",
    category: "-",
    about: "SHOC SpMV spmv_csr_vector_kernel: CSR, one warp per row, vector through texture, warp-synchronous shared reduction",
    params: &[
        ParamSpec {
            name: "dim",
            default: "1024",
            help: "matrix rows = columns (SHOC size class 1)",
        },
        ParamSpec {
            name: "density_pct",
            default: "1",
            help: "percent of non-zero entries (SHOC: 1)",
        },
        ParamSpec {
            name: "iterations",
            default: "100",
            help: "launches (SHOC --iterations)",
        },
        ParamSpec {
            name: "vec_space",
            default: "texture",
            help: "space of vec: texture | global | constant",
        },
        ParamSpec {
            name: "rowd_space",
            default: "global",
            help: "space of rowDelimiters: global | texture | constant",
        },
        ParamSpec {
            name: "val_space",
            default: "global",
            help: "space of val: global | texture",
        },
        ParamSpec {
            name: "cols_space",
            default: "global",
            help: "space of cols: global | texture",
        },
    ],
    build,
};

/// `BLOCK_SIZE`.
const BS: u64 = 128;
/// The shuffle-free tail offsets.
const TAIL: &[u64] = &[16, 8, 4, 2, 1];

/// The memory spaces of the four input arrays.
#[derive(Clone, Copy)]
struct Spaces {
    vec: MemSpace,
    rowd: MemSpace,
    val: MemSpace,
    cols: MemSpace,
}

struct SpmvVector {
    val: ObjId,
    cols: ObjId,
    rowd: ObjId,
    vec: ObjId,
    out: ObjId,
    dim: u64,
    sp: Spaces,
    tail: WarpTail,
}

impl Kernel for SpmvVector {
    fn info(&self) -> KernelInfo {
        kinfo(
            "spmv_csr_vector_kernel",
            Dim3::x(self.dim.div_ceil(BS / 32) as u32),
            Dim3::x(BS as u32),
            20,
            (BS * 4) as u32,
        )
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): `MOV; S2R x2`, `id`, `myRow` (3 int),
    /// the bound `ISETP` and predicated `EXIT`; the row bounds' address (`IMAD.WIDE`; none
    /// through a texture) and two loads; the loop entry `IADD3; ISETP; BRA`; per element
    /// the addresses of `cols[j]` and `val[j]` (1 each; none through a texture), their loads,
    /// the vector fetch by column (an address only in global or constant memory), `FFMA`,
    /// loop control; the shared address and `STS`; per tail step `ISETP; BRA` and, below the
    /// offset, `LDS` x2, `FADD`, `STS`; `ISETP; BRA` of lane 0 and its `LDS`, address, `STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.tid.x as u64;
        let id = tid & 31;
        let row = t.block.x as u64 * (BS / 32) + tid / 32;
        entry(t, 2, 3, true);
        if row >= self.dim {
            return;
        }
        let start: i32 = addr_ld(t, self.sp.rowd, self.rowd, row);
        let end: i32 = super::common::ld_in(t, self.sp.rowd, self.rowd, row + 1);
        t.alu(2);
        t.branch(1);
        let mut sum = 0f32;
        let mut j = start as u64 + id;
        while j < end as u64 {
            let col: i32 = addr_ld(t, self.sp.cols, self.cols, j);
            let a: f32 = addr_ld(t, self.sp.val, self.val, j);
            let x: f32 = addr_ld(t, self.sp.vec, self.vec, col as u64);
            t.fp(1);
            sum += a * x;
            loop_step(t);
            j += 32;
        }
        t.alu(1);
        t.sh_st_f32(tid as u32, sum);
        let base = tid - id;
        if id == 0 {
            // lane 0 runs first in the model: the warp's 32 partial sums, computed without
            // recording, feed the lock-step tail (see WarpTail)
            for l in 0..32 {
                let mut s = 0f32;
                let mut j = start as u64 + l;
                while j < end as u64 {
                    let col: i32 = t.peek(self.cols, j);
                    let a: f32 = t.peek(self.val, j);
                    let x: f32 = t.peek(self.vec, col as u64);
                    s += a * x;
                    j += 32;
                }
                self.tail.set_input(base + l, s);
            }
        }
        for (k, &off) in TAIL.iter().enumerate() {
            t.alu(1);
            t.branch(1);
            if id < off {
                t.sh_ld_f32(tid as u32);
                t.sh_ld_f32((tid + off) as u32);
                t.fp(1);
                t.sh_st_f32(tid as u32, self.tail.step(base, id, k));
            }
        }
        t.alu(1);
        t.branch(1);
        if id == 0 {
            let s = t.sh_ld_f32(tid as u32);
            t.alu(1);
            t.st(self.out, row, s);
        }
    }
}

/// SHOC's `initRandomMatrix`: row by row, entry (i, j) is non-zero with probability
/// `n / dim^2` while fewer than `n` are placed, and every remaining entry once the rest of
/// the matrix is needed to reach `n`. Returns (cols, rowDelimiters).
pub(crate) fn random_csr(rng: &mut Rng, n: u64, dim: u64) -> (Vec<i32>, Vec<i32>) {
    let prob = n as f64 / (dim as f64 * dim as f64);
    let mut cols = Vec::with_capacity(n as usize);
    let mut rowd = Vec::with_capacity(dim as usize + 1);
    let mut fill_rest = false;
    for i in 0..dim {
        rowd.push(cols.len() as i32);
        for j in 0..dim {
            let left = dim * dim - (i * dim + j);
            let need = n - cols.len() as u64;
            if left <= need {
                fill_rest = true;
            }
            if ((cols.len() as u64) < n && rng.f64() <= prob) || fill_rest {
                cols.push(j as i32);
            }
        }
    }
    rowd.push(cols.len() as i32);
    (cols, rowd)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let dim = p.u64("dim", 1024)?;
    let pct = p.u64("density_pct", 1)?;
    let iterations = p.u64("iterations", 100)?;
    use MemSpace::*;
    let sp = Spaces {
        vec: MemSpace::param(p, "vec_space", Texture, &[Texture, Global, Constant])?,
        rowd: MemSpace::param(p, "rowd_space", Global, &[Global, Texture, Constant])?,
        val: MemSpace::param(p, "val_space", Global, &[Global, Texture])?,
        cols: MemSpace::param(p, "cols_space", Global, &[Global, Texture])?,
    };
    if dim == 0 || dim > 1 << 16 || pct == 0 || pct > 100 || iterations == 0 {
        return Err(bad(
            "shoc-spmv: need 1 <= dim <= 65536, 1 <= density_pct <= 100, iterations >= 1".into(),
        ));
    }
    if sp.vec == Constant && dim * 4 > 64 << 10 {
        return Err(bad(format!(
            "parameter `vec_space` = `constant`: vec ({} B) exceeds the 64 KiB constant memory",
            dim * 4
        )));
    }
    if sp.rowd == Constant && (dim + 1) * 4 > 64 << 10 {
        return Err(bad(format!(
            "parameter `rowd_space` = `constant`: rowDelimiters ({} B) exceeds the 64 KiB constant memory",
            (dim + 1) * 4
        )));
    }
    let n = dim * dim * pct / 100;
    let mut rng = Rng::new(p.seed);
    let vals: Vec<f32> = (0..n).map(|_| rng.f32() * 10.0).collect();
    let (cols, rowd) = random_csr(&mut rng, n, dim);
    let vecv: Vec<f32> = (0..dim).map(|_| rng.f32() * 10.0).collect();
    let mut m = Memory::new();
    let val = m.alloc_from("d_val", &vals, true);
    let colso = m.alloc_from("d_cols", &cols, true);
    let rowdo = m.alloc_from("d_rowDelimiters", &rowd, true);
    let vec = m.alloc_from("d_vec", &vecv, true);
    let out = m.alloc::<f32>("d_out", dim, false);
    let mut it = 0u64;
    let h = host(move |_m: &mut Memory| {
        if it >= iterations {
            return None;
        }
        it += 1;
        Some(Box::new(SpmvVector {
            val,
            cols: colso,
            rowd: rowdo,
            vec,
            out,
            dim,
            sp,
            tail: WarpTail::new(BS as usize, TAIL, false),
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("shoc-spmv", m, h))
}
