//! Helpers shared by the PolyBench/GPU models: launch descriptions, hosts, the instruction
//! counts every kernel of the suite shares (entry, unrolled loop control, the
//! global-accumulator loop) and the default-size arithmetic of `crate::scale`.
//!
//! Counting rules (docs/workloads.md, sm_70+ `nvcc -O3`): the suite's problem sizes are
//! compile-time constants, so nvcc unrolls every `for` loop by 4 (one induction update,
//! compare and back-edge per 4 iterations, plus one pointer increment per array the loop
//! walks; the unrolled body addresses at constant offsets). No pointer is `__restrict__`, so
//! a loop that accumulates into global memory (`tmp[i] += A[..] * x[j]`) stores every
//! iteration and cannot hoist the next iteration's loads above that store: one dependent
//! load-load-compute-store chain per iteration, which is what makes these naive kernels
//! latency bound.

use crate::memory::Memory;
use crate::model::{Host, Kernel, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::scale::{dim, linear_factor};

/// The loop unroll factor nvcc applies to the suite's constant-trip-count loops.
pub(crate) const UNROLL: u64 = 4;

/// A [`KernelInfo`] without shared memory.
pub(crate) fn kinfo(name: &str, grid: Dim3, block: Dim3, regs: u32) -> KernelInfo {
    KernelInfo {
        name: name.to_string(),
        grid,
        block,
        regs_per_thread: regs,
        smem_per_block: 0,
    }
}

/// `ceil(n / b)` as a grid extent.
pub(crate) fn blocks(n: u64, b: u32) -> u32 {
    n.div_ceil(b as u64).max(1) as u32
}

/// A host program written as a closure: called once per launch, returns the next kernel.
struct FnHost<F>(F);

impl<F> Host for FnHost<F>
where
    F: FnMut(&mut Memory) -> Option<Box<dyn Kernel>> + Send,
{
    fn next_kernel(&mut self, mem: &mut Memory) -> Option<Box<dyn Kernel>> {
        (self.0)(mem)
    }
}

/// Box a closure host.
pub(crate) fn host<F>(f: F) -> Box<dyn Host>
where
    F: FnMut(&mut Memory) -> Option<Box<dyn Kernel>> + Send + 'static,
{
    Box::new(FnHost(f))
}

/// A fixed launch sequence (the suite's host code has no data-dependent control).
pub(crate) fn seq(kernels: Vec<Box<dyn Kernel>>) -> Box<dyn Host> {
    let mut it = kernels.into_iter();
    host(move |_m| it.next())
}

/// A parameter-validation error.
pub(crate) fn bad(msg: String) -> WorkloadError {
    WorkloadError::Msg(msg)
}

/// Read a dimension parameter that must be a positive multiple of `m`.
pub(crate) fn side(
    p: &crate::registry::Params,
    bench: &str,
    name: &str,
    default: u64,
    m: u64,
) -> Result<u64, WorkloadError> {
    let v = p.u64(name, default)?;
    if v == 0 || v % m != 0 {
        return Err(bad(format!(
            "{bench}: --param {name}={v} must be a positive multiple of {m} (the kernel's thread-block extent)"
        )));
    }
    Ok(v)
}

/// Kernel entry with a bound test: `MOV R1`, one `S2R` per special register, `ints` index
/// instructions (`IMAD`, `ULDC`, extra `ISETP` of a compound condition), the final `ISETP`
/// and the predicated `EXIT`: `2 + sregs + ints` int and one branch.
#[track_caller]
pub(crate) fn prologue(t: &mut Thread<'_>, sregs: u32, ints: u32) {
    t.alu(2 + sregs + ints);
    t.branch(1);
}

/// Loop control after iteration `it` (0-based) of an `n`-iteration loop unrolled by
/// [`UNROLL`]: every 4th iteration (and after the last) the induction update and compare
/// (2 int), one increment per walked pointer (`ptrs` int) and the back-edge `BRA`.
#[track_caller]
pub(crate) fn unrolled_step(t: &mut Thread<'_>, it: u64, n: u64, ptrs: u32) {
    if (it + 1).is_multiple_of(UNROLL) || it + 1 == n {
        t.alu(2 + ptrs);
        t.branch(1);
    }
}

/// The loop `acc[o] += (scale *) m[m_at(j)] * v[j]` for `j` in `0..n` as nvcc compiles it
/// without `__restrict__` (module doc): per iteration `LDG m`, `LDG v`, an `FMUL` by the
/// constant when `scale` is given, the `FFMA`, `STG acc[o]`; the loop walks two pointers.
/// `acc` is the accumulator's value before the loop (already loaded or stored by the
/// caller); returns its final value. Used by atax, bicg, gemver, mvt and the GEMMs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn acc_loop(
    t: &mut Thread<'_>,
    m: ObjId,
    m_at: impl Fn(u64) -> u64,
    v: ObjId,
    v_at: impl Fn(u64) -> u64,
    out: ObjId,
    o: u64,
    mut acc: f32,
    n: u64,
    scale: Option<f32>,
) -> f32 {
    for j in 0..n {
        // NDP offload block 0 of the kernel (spec ndp.md Table 1: BICG's blocks of 4 NSU
        // instructions, `LDG; LDG; FFMA@NSU; STG`): the accumulator in (live-in) and out
        // (live-out); the addresses stay on the GPU. No effect unless markers are recorded.
        t.ofld_begin(0, 1, if scale.is_some() { 5 } else { 4 });
        let a: f32 = t.ld(m, m_at(j));
        let b: f32 = t.ld(v, v_at(j));
        match scale {
            Some(s) => {
                t.fp(2);
                acc += s * a * b;
            }
            None => {
                t.fp(1);
                acc += a * b;
            }
        }
        t.st(out, o, acc);
        t.ofld_end(1);
        unrolled_step(t, j, n, 2);
    }
    acc
}

/// Host reference of [`acc_loop`] (same operation order, so results are equal).
#[cfg(test)]
pub(crate) fn acc_ref(
    mut acc: f32,
    n: u64,
    m: impl Fn(u64) -> f32,
    v: impl Fn(u64) -> f32,
    scale: Option<f32>,
) -> f32 {
    for j in 0..n {
        match scale {
            Some(s) => acc += s * m(j) * v(j),
            None => acc += m(j) * v(j),
        }
    }
    acc
}

/// Rule 1 of `crate::scale` for a model with `d` footprint-growing dimensions: the paper
/// dimension `paper` whose input has `footprint` bytes, scaled and rounded down to
/// `multiple`; then rule 2's `halvings` (each halves and rounds down to `multiple` again).
pub fn scaled(paper: u64, footprint: u64, d: u32, multiple: u64, halvings: u32) -> u64 {
    let mut n = dim(paper, linear_factor(footprint, d), multiple);
    for _ in 0..halvings {
        n = dim(n, 0.5, multiple);
    }
    n
}

/// `MiB` in bytes (REC Table 3 footprints are binary megabytes: C2D's 512 MB is exactly two
/// 8192^2 float matrices).
pub const MIB: u64 = 1 << 20;

/// The suite's one-thread-per-output matrix-vector kernel (256x1 blocks,
/// `DIM_THREAD_BLOCK_X 256`): thread `t < threads` computes
/// `out[t] (+)= (scale *) sum_j m[..] * v[j]` over `len` columns, walking row `t` of `m`
/// (`m[t*stride + j]`: 32 lines per warp load, the uncoalesced half of ATAX/BICG/MVT) or
/// column `t` (`m[j*stride + t]`: one line per warp load). The shape of `atax_kernel1/2`,
/// `bicg_kernel1/2`, `mvt_kernel1/2` and `gemver_kernel2/3`.
pub(crate) struct MatVec {
    pub name: &'static str,
    pub threads: u64,
    pub len: u64,
    pub stride: u64,
    pub m: ObjId,
    /// `true`: column walk `m[j*stride + t]`.
    pub column: bool,
    pub v: ObjId,
    pub out: ObjId,
    /// `out[t] = 0.0f` is stored before the loop (bicg) instead of loading `out[t]`.
    pub zero_first: bool,
    pub scale: Option<f32>,
    /// After the loop `out[t] += add[t]` (gemver_kernel2's `x[i] += z[i]`).
    pub add_after: Option<ObjId>,
}

impl Kernel for MatVec {
    fn info(&self) -> KernelInfo {
        kinfo(
            self.name,
            Dim3::x(blocks(self.threads, 256)),
            Dim3::x(256),
            16,
        )
    }
    /// Per thread: entry `MOV; S2R x2; IMAD; ISETP; EXIT` (6); the matrix row or column
    /// pointer (`IMAD; IMAD.WIDE`), the output address (`IMAD.WIDE`), the vector base
    /// (`ULDC`) (4 int); `LDG out[t]` (or `STG` of the zero); the loop of [`acc_loop`]
    /// (`LDG; LDG; [FMUL]; FFMA; STG` per column, 5 int + `BRA` per 4 columns); gemver's
    /// tail `IMAD.WIDE; LDG z; FADD; STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.gx();
        prologue(t, 2, 1);
        if i >= self.threads {
            return;
        }
        t.alu(4);
        let acc = if self.zero_first {
            t.st(self.out, i, 0.0f32);
            0.0
        } else {
            t.ld::<f32>(self.out, i)
        };
        let s = self.stride;
        let acc = if self.column {
            acc_loop(
                t,
                self.m,
                |j| j * s + i,
                self.v,
                |j| j,
                self.out,
                i,
                acc,
                self.len,
                self.scale,
            )
        } else {
            acc_loop(
                t,
                self.m,
                |j| i * s + j,
                self.v,
                |j| j,
                self.out,
                i,
                acc,
                self.len,
                self.scale,
            )
        };
        if let Some(z) = self.add_after {
            t.alu(1);
            let zv: f32 = t.ld(z, i);
            t.fp(1);
            t.st(self.out, i, acc + zv);
        }
    }
}

/// Host reference of [`MatVec`] over row-major `m` (`stride` columns).
#[cfg(test)]
pub(crate) fn matvec_ref(k: &MatVecRef<'_>, out: &mut [f32]) {
    for (i, o) in out.iter_mut().enumerate().take(k.threads) {
        let init = if k.zero_first { 0.0 } else { *o };
        let m = |j: u64| {
            let j = j as usize;
            if k.column {
                k.m[j * k.stride + i]
            } else {
                k.m[i * k.stride + j]
            }
        };
        let mut acc = acc_ref(init, k.len as u64, m, |j| k.v[j as usize], k.scale);
        if let Some(z) = k.add_after {
            acc += z[i];
        }
        *o = acc;
    }
}

/// The inputs of [`matvec_ref`].
#[cfg(test)]
pub(crate) struct MatVecRef<'a> {
    pub threads: usize,
    pub len: usize,
    pub stride: usize,
    pub m: &'a [f32],
    pub column: bool,
    pub v: &'a [f32],
    pub zero_first: bool,
    pub scale: Option<f32>,
    pub add_after: Option<&'a [f32]>,
}
