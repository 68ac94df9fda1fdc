//! Scalar CSR SpMV `y = A x`: one thread per row walks `row_ptr[r]..row_ptr[r+1]`, loading
//! `col[j]`, `val[j]` and the gathered `x[col[j]]`, then stores `y[r]` (the classic "CSR
//! scalar" kernel of Bell & Garland). The matrix comes from [`crate::gen::matrix`]: a banded
//! component plus random columns.

use super::common::{bad, kinfo, loop_step, prologue, seq};
use crate::gen::matrix::{banded_random, MatrixSpec};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "spmv-csr",
    suite: "Locus",
    category: "-",
    about: "scalar CSR SpMV, one thread per row, banded+random generated matrix",
    params: &[
        ParamSpec {
            name: "rows",
            default: "128k",
            help: "matrix rows (= columns)",
        },
        ParamSpec {
            name: "nnz",
            default: "16",
            help: "mean non-zeros per row",
        },
        ParamSpec {
            name: "spread",
            default: "4",
            help: "non-zeros per row vary by +-spread",
        },
        ParamSpec {
            name: "band",
            default: "256",
            help: "half-width of the banded component",
        },
        ParamSpec {
            name: "random",
            default: "0.25",
            help: "fraction of random columns",
        },
        ParamSpec {
            name: "block",
            default: "256",
            help: "threads per block",
        },
    ],
    build,
};

/// The scalar CSR kernel.
struct SpmvCsr {
    row_ptr: ObjId,
    col: ObjId,
    val: ObjId,
    x: ObjId,
    y: ObjId,
    rows: u64,
    block: u32,
}

impl Kernel for SpmvCsr {
    fn info(&self) -> KernelInfo {
        let g = self.rows.div_ceil(self.block as u64) as u32;
        kinfo("spmv_csr_scalar", Dim3::x(g), Dim3::x(self.block), 16, 0)
    }
    /// Per thread, the instructions of SHOC `spmv_csr_scalar_kernel` (sm_70+ SASS, issue 7
    /// §1 counting): entry `MOV; S2R x2; IMAD; ISETP; EXIT` (6), the `rowDelimiters`
    /// address (`IMAD.WIDE`), `LDG` x2 (`myRow`, `myRow+1` at a constant offset), the loop
    /// guard `ISETP; BRA`; per nonzero the `cols` and `val` addresses (2), `LDG` x2, the
    /// `x` address from the column (`IMAD.WIDE`), `LDG` of `x`, `FFMA` and the loop control
    /// (3): 10 per nonzero, 3 of them memory; then `IMAD.WIDE; STG; EXIT`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let r = t.gid();
        prologue(t, 2, 1);
        if r >= self.rows {
            return;
        }
        t.alu(1);
        let s: u32 = t.ld(self.row_ptr, r);
        let e: u32 = t.ld(self.row_ptr, r + 1);
        t.alu(1);
        t.branch(1);
        let mut sum = 0.0f32;
        for j in s as u64..e as u64 {
            t.alu(2);
            let c: u32 = t.ld(self.col, j);
            let v: f32 = t.ld(self.val, j);
            t.alu(1);
            let xv: f32 = t.ld(self.x, c as u64);
            t.fp(1);
            sum += v * xv;
            loop_step(t);
        }
        t.alu(1);
        t.st(self.y, r, sum);
    }
}

/// Read the matrix parameters shared by the SpMV benchmarks.
pub(crate) fn matrix_spec(
    p: &Params,
    rows: u64,
    nnz: u64,
    spread: u64,
    band: u64,
    random: f64,
) -> Result<MatrixSpec, WorkloadError> {
    let s = MatrixSpec {
        n: p.u64("rows", rows)? as usize,
        nnz_per_row: p.u64("nnz", nnz)? as usize,
        spread: p.u64("spread", spread)? as usize,
        band: p.u64("band", band)? as usize,
        random_frac: p.f64("random", random)?,
    };
    if s.n == 0
        || s.nnz_per_row == 0
        || s.spread >= s.nnz_per_row
        || !(0.0..=1.0).contains(&s.random_frac)
    {
        return Err(bad(
            "spmv: need rows > 0, 0 <= spread < nnz, 0 <= random <= 1".into(),
        ));
    }
    Ok(s)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let s = matrix_spec(p, 128 << 10, 16, 4, 256, 0.25)?;
    let block = p.u64("block", 256)?;
    if !(32..=1024).contains(&block) {
        return Err(bad("spmv-csr: 32 <= block <= 1024".into()));
    }
    let a = banded_random(s, p.seed);
    let mut rng = Rng::new(p.seed ^ 0x5eed);
    let xv: Vec<f32> = (0..s.n).map(|_| rng.f32()).collect();
    let mut m = Memory::new();
    let row_ptr = m.alloc_from("row_ptr", &a.row_ptr, true);
    let col = m.alloc_from("col_idx", &a.col, true);
    let val = m.alloc_from("val", &a.val, true);
    let x = m.alloc_from("x", &xv, true);
    let y = m.alloc::<f32>("y", s.n as u64, false);
    let k = SpmvCsr {
        row_ptr,
        col,
        val,
        x,
        y,
        rows: s.n as u64,
        block: block as u32,
    };
    Ok(ModelWorkload::new("spmv-csr", m, seq(vec![Box::new(k)])))
}
