//! Mantevo miniFE, CUDA version (`cuda/src` of github.com/Mantevo/miniFE): the conjugate
//! gradient solve of `cg_solve.hpp` on the assembled finite-element matrix, with the
//! kernels it launches: `matvec_ell_kernel` (`SparseMatrix_functions.hpp`, `matvec_std`),
//! `waxpby_kernel`, `dot_kernel` and `dot_final_reduce_kernel` (`Vector_functions.hpp`)
//! and `cudaMemset_kernel` (`CudaUtils.h`, `cudaMemset_custom`, run before each dot).
//!
//! **Matrix format.** miniFE's CUDA version stores the matrix in ELL, not CSR
//! (`CudaELLMatrix.hpp`): `num_cols_per_row` = 27 slots per row, column-major with
//! `pitch = ceil(nrows / 32) * 32`, so slot `j` of row `r` is at `j * pitch + r`; unused slots
//! hold column -1. Its mat-vec runs one thread per row (`BLOCK_SIZE` 256, `min(32768,
//! ceil(nrows / 256))` blocks, grid-stride loop): per slot it loads `cols[offset]`, skips
//! the slot if it is -1, else loads `coefs[offset]` and `__ldg(X + c)` (read-only path) and
//! accumulates; then it stores `Y[row]`. There is no warp-shuffle reduction in this kernel
//! (no row is shared by lanes), so the model needs none: consecutive lanes read consecutive
//! words of each slot (coalesced), and the vector gather follows the mesh neighbours.
//!
//! **Vector kernels.** `waxpby_kernel` (`w = alpha x + beta y`, 256 threads, `min(ceil(n /
//! 256), 32768)` blocks, grid-stride). `dot` zeroes the 1024 partial sums with
//! `cudaMemset_kernel` (512 threads, 2 blocks), runs `dot_kernel` (512 threads, `min(1024,
//! ceil(n / 512))` blocks, grid-stride products into a register, then a `volatile
//! __shared__ double red[512]` tree: `__syncthreads()` before the 256, 128, 64 and 32 steps,
//! warp-synchronous 16 .. 1 steps without barriers; thread 0 stores `d[blockIdx.x]`) and
//! `dot_final_reduce_kernel` (one block of 1024 threads over `d`, same tree from 512, thread
//! 0 stores `d[0]`); the host copies `d[0]` back. Doubles throughout (miniFE's
//! `MINIFE_SCALAR` double, `int` ordinals), so shared slots are `LDS.64`/`STS.64`.
//!
//! **Host.** `cg_solve` as written: `p = x`, `Ap = A p`, `r = b - Ap`, `rtrans = r.r`; then
//! for `k = 1 ..= max_iter` while `normr > tolerance`: `p = r` (k = 1) or `rtrans = r.r`,
//! `p = r + beta p`; `Ap = A p`; `pAp = Ap.p`; `x += alpha p`; `r -= alpha Ap`. miniFE's
//! tolerance is machine epsilon, so the solve runs `max_iter` (200) iterations in practice.
//! Launches: 6 before the loop, 7 in iteration 1, 10 in every later one.
//!
//! **Matrix and right-hand side.** The structured box of `nx * ny * nz` hexahedral elements
//! has `(nx+1)(ny+1)(nz+1)` nodes, numbered `x + (nx+1) (y + (ny+1) z)` (miniFE's `get_id`);
//! a node's row lists its up to 27 mesh neighbours in ascending column order. The values are
//! the Laplace stiffness of trilinear unit-cube elements assembled element by element (per
//! element pair: 1/3 on the diagonal, 0 along an edge, -1/12 across a face or the body
//! diagonal), which gives the same sparsity and symmetric positive definite system as
//! miniFE's `diffusionMatrix`; miniFE's Gauss-quadrature assembly itself (`perform_element_
//! loop`) and its source term are not modelled (b = 0 before the boundary conditions).
//! Dirichlet conditions as `impose_dirichlet`: 0 on the x = 0 face, then 1 on the x = nx
//! face (rows become identity rows, their columns are zeroed elsewhere and moved to b).
//! The ELL structure keeps every slot, zeroed or not, as miniFE does.
//!
//! **Input.** NDP Table 1 (ndp.md §5.4): MiniFE 128 x 64 x 64 elements (545,025 rows,
//! 198 MB with the ELL `cols` and `coefs` and the five CG vectors). Rule 1 of `scale.rs`
//! on the three element dimensions: factor 0.553, 70 x 35 x 35 elements (92,016 rows,
//! 31.96 MiB). miniFE's `max_iter` default 200. Rule 2 halves the work-only dimension
//! first, the CG iterations: [`ITER_HALVINGS`] = 2 times, to 50, the grid kept. On
//! `coda-4gpu` 100 iterations ran past 80 s of host CPU time (stopped) and 50 took 46.9 s
//! (BENCHMARKS.md, 2026-11-29).

use crate::bench::shoc::common::{bad, entry, kinfo, loop_step};
use crate::memory::Memory;
use crate::model::{Host, Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale::{dim, linear_factor};
use std::sync::Mutex;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "minife",
    suite: "Mantevo",
    category: "-",
    about: "miniFE CUDA CG solve: matvec_ell_kernel (ELL, one thread per row, __ldg gather), waxpby_kernel, dot_kernel + dot_final_reduce_kernel (shared double tree), cudaMemset_kernel",
    params: &[
        ParamSpec {
            name: "nx",
            default: "70",
            help: "elements along x (NDP: 128; rule 1)",
        },
        ParamSpec {
            name: "ny",
            default: "35",
            help: "elements along y (NDP: 64; rule 1)",
        },
        ParamSpec {
            name: "nz",
            default: "35",
            help: "elements along z (NDP: 64; rule 1)",
        },
        ParamSpec {
            name: "max_iter",
            default: "50",
            help: "CG iterations at most (miniFE max_iter 200, halved twice by rule 2)",
        },
    ],
    build,
};

/// `num_cols_per_row` of miniFE's ELL matrix (27-point hex8 connectivity).
pub const COLS_PER_ROW: u64 = 27;
/// `matvec_std`'s and `waxpby`'s `BLOCK_SIZE`.
const BS: u64 = 256;
/// `dot`'s `BLOCK_SIZE` and the memset's.
const DOT_BS: u64 = 512;
/// `dot_final_reduce_kernel`'s block (and the length of `d`).
const FINAL_BS: u64 = 1024;
/// The largest input the model builds (4 GiB of device objects; the paper input is 198 MB).
const MAX_FOOTPRINT: u64 = 4 << 30;

/// Bytes of the objects for `nx * ny * nz` elements: ELL `cols` (int) and `coefs`
/// (double) of `pitch * 27` slots, the vectors x, b, r, p, Ap and the 1024 partial sums.
pub fn footprint(nx: u64, ny: u64, nz: u64) -> u64 {
    let n = (nx + 1) * (ny + 1) * (nz + 1);
    let pitch = n.div_ceil(32) * 32;
    pitch * COLS_PER_ROW * 12 + 5 * n * 8 + FINAL_BS * 8
}

/// Rule 1 of `scale.rs` on NDP's 128 x 64 x 64 elements, before rule 2: (nx, ny, nz).
pub fn rule1_dims() -> (u64, u64, u64) {
    let f = linear_factor(footprint(128, 64, 64), 3);
    (dim(128, f, 1), dim(64, f, 1), dim(64, f, 1))
}

/// miniFE's `max_iter` default.
pub const PAPER_MAX_ITER: u64 = 200;
/// Times rule 2 of `scale.rs` halved the CG iterations (module doc; the grid stays rule 1's).
pub const ITER_HALVINGS: u32 = 2;

/// The default input: [`rule1_dims`].
pub fn default_dims() -> (u64, u64, u64) {
    rule1_dims()
}

/// The assembled system in miniFE's ELL layout.
pub struct Ell {
    /// Rows (= nodes).
    pub n: u64,
    /// Column-major slot stride.
    pub pitch: u64,
    /// `cols[j * pitch + r]`, -1 for an unused slot.
    pub cols: Vec<i32>,
    /// `coefs[j * pitch + r]`.
    pub coefs: Vec<f64>,
    /// Right-hand side.
    pub b: Vec<f64>,
}

/// Assemble the Laplace system of the `nx * ny * nz` element box (module doc) with the
/// Dirichlet rows of `impose_dirichlet` (0 on x = 0, then 1 on x = nx).
pub fn assemble(nx: u64, ny: u64, nz: u64) -> Ell {
    let (ax, ay, az) = (nx + 1, ny + 1, nz + 1);
    let n = ax * ay * az;
    let pitch = n.div_ceil(32) * 32;
    let id = |x: u64, y: u64, z: u64| x + ax * (y + ay * z);
    // dense 27-slot rows by neighbour offset (dz, dy, dx), assembled element by element
    let mut dense = vec![0f64; (n * 27) as usize];
    let slot = |dx: i64, dy: i64, dz: i64| ((dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)) as usize;
    for ez in 0..nz {
        for ey in 0..ny {
            for ex in 0..nx {
                for a in 0..8u64 {
                    let (ax_, ay_, az_) = (a & 1, (a >> 1) & 1, a >> 2);
                    let row = id(ex + ax_, ey + ay_, ez + az_);
                    for c in 0..8u64 {
                        let (cx, cy, cz) = (c & 1, (c >> 1) & 1, c >> 2);
                        let diff = (ax_ != cx) as u32 + (ay_ != cy) as u32 + (az_ != cz) as u32;
                        let k = match diff {
                            0 => 1.0 / 3.0,
                            1 => 0.0,
                            _ => -1.0 / 12.0,
                        };
                        let s = slot(
                            cx as i64 - ax_ as i64,
                            cy as i64 - ay_ as i64,
                            cz as i64 - az_ as i64,
                        );
                        dense[row as usize * 27 + s] += k;
                    }
                }
            }
        }
    }
    let mut cols = vec![-1i32; (pitch * COLS_PER_ROW) as usize];
    let mut coefs = vec![0f64; (pitch * COLS_PER_ROW) as usize];
    for z in 0..az {
        for y in 0..ay {
            for x in 0..ax {
                let r = id(x, y, z);
                let mut j = 0u64;
                for dz in -1i64..=1 {
                    for dy in -1i64..=1 {
                        for dx in -1i64..=1 {
                            let (nx_, ny_, nz_) = (x as i64 + dx, y as i64 + dy, z as i64 + dz);
                            if nx_ < 0
                                || ny_ < 0
                                || nz_ < 0
                                || nx_ >= ax as i64
                                || ny_ >= ay as i64
                                || nz_ >= az as i64
                            {
                                continue;
                            }
                            let o = (j * pitch + r) as usize;
                            cols[o] = id(nx_ as u64, ny_ as u64, nz_ as u64) as i32;
                            coefs[o] = dense[r as usize * 27 + slot(dx, dy, dz)];
                            j += 1;
                        }
                    }
                }
            }
        }
    }
    let mut b = vec![0f64; n as usize];
    for (face_x, value) in [(0, 0.0), (nx, 1.0)] {
        let is_bc = |node: i32| node as u64 % ax == face_x;
        // impose_dirichlet_first_kernel: identity rows, b = value
        for r in 0..n {
            if !is_bc(r as i32) {
                continue;
            }
            b[r as usize] = value;
            for j in 0..COLS_PER_ROW {
                let o = (j * pitch + r) as usize;
                if cols[o] == -1 {
                    break;
                }
                coefs[o] = if cols[o] as u64 == r { 1.0 } else { 0.0 };
            }
        }
        // impose_dirichlet_second_kernel: other rows lose their bc columns to b
        for r in 0..n {
            if is_bc(r as i32) {
                continue;
            }
            let mut sum = 0.0;
            for j in 0..COLS_PER_ROW {
                let o = (j * pitch + r) as usize;
                if cols[o] == -1 {
                    break;
                }
                if is_bc(cols[o]) {
                    sum += coefs[o];
                    coefs[o] = 0.0;
                }
            }
            b[r as usize] -= sum * value;
        }
    }
    Ell {
        n,
        pitch,
        cols,
        coefs,
        b,
    }
}

/// `matvec_ell_kernel`: `y = A x`, one thread per row.
struct Matvec {
    cols: ObjId,
    coefs: ObjId,
    x: ObjId,
    y: ObjId,
    n: u64,
    pitch: u64,
}

impl Matvec {
    fn blocks(&self) -> u64 {
        self.n.div_ceil(BS).min(32768)
    }
}

impl Kernel for Matvec {
    fn info(&self) -> KernelInfo {
        kinfo(
            "matvec_ell_kernel",
            Dim3::x(self.blocks() as u32),
            Dim3::x(BS as u32),
            32,
            0,
        )
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): `MOV; S2R x2`, `row_idx` (`IMAD`), the
    /// loop bound `ISETP` and predicated `EXIT`; per row the slot loop's entry (`ISETP; BRA`:
    /// `num_cols_per_row` is a kernel argument); per slot the address of `cols[offset]`
    /// (`IMAD.WIDE`), `LDG`, the `c != -1` test (`ISETP; BRA`), in the taken path the
    /// addresses and loads of `coefs[offset]` (`LDG.64`) and `X[c]` (`LDG.E.64.CONSTANT` of
    /// `__ldg`) and `DFMA`, then `offset += pitch` and the loop control (2 int + `BRA`); after
    /// the slots the address and `STG.64` of `Y[row]` and the grid-stride step.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        entry(t, 2, 1, true);
        let stride = self.blocks() * BS;
        let mut row = t.gx();
        while row < self.n {
            t.alu(1);
            t.branch(1);
            let mut sum = 0f64;
            for j in 0..COLS_PER_ROW {
                let off = j * self.pitch + row;
                t.alu(1);
                let c: i32 = t.ld(self.cols, off);
                t.alu(1);
                t.branch(1);
                if c != -1 {
                    // NDP offload block 0 (spec ndp.md Table 1 MiniFE "3"): `LD A; LD x[c];
                    // DFMA` with the double `sum` in and out (2 registers each); `x[c]` is
                    // indirect (`c` loaded before the block), so no single-load block of its
                    // own. Lanes of padded rows (`c == -1`) are not in the instance. Table 1
                    // lists no other MiniFE block: `dot` and `waxpby` stay unmarked.
                    t.ofld_begin(0, 2, 3);
                    t.alu(1);
                    let a: f64 = t.ld(self.coefs, off);
                    t.alu(1);
                    let xv: f64 = t.ld_tex(self.x, c as u64);
                    t.fp(1);
                    t.ofld_end(2);
                    sum = a.mul_add(xv, sum);
                }
                t.alu(1);
                loop_step(t);
            }
            t.alu(1);
            t.st(self.y, row, sum);
            loop_step(t);
            row += stride;
        }
    }
}

/// `waxpby_kernel`: `w = alpha x + beta y`.
struct Waxpby {
    alpha: f64,
    x: ObjId,
    beta: f64,
    y: ObjId,
    w: ObjId,
    n: u64,
}

impl Waxpby {
    fn blocks(&self) -> u64 {
        self.n.div_ceil(BS).min(2048 * 16)
    }
}

impl Kernel for Waxpby {
    fn info(&self) -> KernelInfo {
        kinfo(
            "waxpby_kernel",
            Dim3::x(self.blocks() as u32),
            Dim3::x(BS as u32),
            16,
            0,
        )
    }
    /// Per thread: `MOV; S2R x2`, `idx` (`IMAD`), `ISETP` and predicated `EXIT`; per element
    /// the three addresses (`IMAD.WIDE` each), `LDG.64` x2, `DMUL; DFMA`, `STG.64` and the
    /// grid-stride step (2 int + `BRA`).
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        entry(t, 2, 1, true);
        let stride = self.blocks() * BS;
        let mut i = t.gx();
        while i < self.n {
            t.alu(1);
            let xv: f64 = t.ld(self.x, i);
            t.alu(1);
            let yv: f64 = t.ld(self.y, i);
            t.fp(2);
            t.alu(1);
            t.st(self.w, i, self.beta.mul_add(yv, self.alpha * xv));
            loop_step(t);
            i += stride;
        }
    }
}

/// `cudaMemset_kernel<double>` of `cudaMemset_custom(d, 0, 1024)`.
struct Memset {
    d: ObjId,
}

impl Kernel for Memset {
    fn info(&self) -> KernelInfo {
        kinfo(
            "cudaMemset_kernel",
            Dim3::x(FINAL_BS.div_ceil(DOT_BS) as u32),
            Dim3::x(DOT_BS as u32),
            8,
            0,
        )
    }
    /// Per thread: `MOV; S2R x2`, `idx`, `ISETP; EXIT`, the address and `STG.64`, the
    /// grid-stride step.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        entry(t, 2, 1, true);
        let i = t.gx();
        if i < FINAL_BS {
            t.alu(1);
            t.st(self.d, i, 0f64);
            loop_step(t);
        }
    }
}

/// The `volatile __shared__ double red[B]` tree shared by `dot_kernel` (B = 512) and
/// `dot_final_reduce_kernel` (B = 1024): phase 0 leaves each thread's `sum` in `red[tid]`;
/// phases 1 .. s halve with a `__syncthreads()` before each (`tid < B/2 .. 64`); phase s + 1
/// is the warp-synchronous tail (`tid < 32 .. 1`, no barriers) and thread 0's store. Each
/// thread's `sum` register is mirrored in `sums`; the tail's lanes run one after the other
/// in the model, so each takes its lock-step values from the snapshot of `red[0 .. 64]`
/// left by the last barrier step (lane `i` reads `red[i + off]`, which lane `i + off` has
/// not run yet). One block is generated at a time, so one mirror per launch suffices.
struct Tree {
    b: u64,
    sums: Mutex<Vec<f64>>,
}

/// The warp-synchronous offsets.
const TAIL: [u64; 6] = [32, 16, 8, 4, 2, 1];

impl Tree {
    fn new(b: u64) -> Self {
        Tree {
            b,
            sums: Mutex::new(vec![0.0; b as usize]),
        }
    }
    /// Barrier steps (`B/2 .. 64`).
    fn steps(&self) -> u32 {
        self.b.trailing_zeros() - 6
    }
    /// Phase 0's end: `red[tid] = sum` (shared address + `STS.64`).
    fn start(&self, t: &mut Thread<'_>, tid: u64, sum: f64) {
        t.alu(1);
        t.sh_st_f64(tid as u32, sum);
        self.sums.lock().unwrap()[tid as usize] = sum;
    }
    /// Phase `phase` >= 1; returns thread 0's final sum in the last phase.
    fn phase(&self, t: &mut Thread<'_>, tid: u64, phase: u32) -> Option<f64> {
        if phase <= self.steps() {
            let h = self.b >> phase;
            t.alu(1);
            t.branch(1);
            if tid < h {
                t.sh_ld_f64((tid + h) as u32);
                t.fp(1);
                let mut s = self.sums.lock().unwrap();
                let v = s[tid as usize] + s[(tid + h) as usize];
                s[tid as usize] = v;
                drop(s);
                t.sh_st_f64(tid as u32, v);
            }
            return None;
        }
        let mut v = [0f64; 64];
        v.copy_from_slice(&self.sums.lock().unwrap()[..64]);
        let mut sum = v[(tid as usize).min(63)];
        for off in TAIL {
            t.alu(1);
            t.branch(1);
            if tid < off {
                t.sh_ld_f64((tid + off) as u32);
                t.fp(1);
            }
            // lock-step: every lane below `off` adds its partner's previous value
            for j in 0..off as usize {
                v[j] += v[j + off as usize];
            }
            if tid < off {
                sum = v[tid as usize];
                if off > 1 {
                    t.sh_st_f64(tid as u32, sum);
                }
            }
        }
        t.alu(1);
        t.branch(1);
        (tid == 0).then_some(sum)
    }
}

/// `dot_kernel`: per-block partial sums of `x . y` into `d[blockIdx.x]`.
struct Dot {
    x: ObjId,
    y: ObjId,
    d: ObjId,
    n: u64,
    tree: Tree,
}

impl Dot {
    fn blocks(&self) -> u64 {
        self.n.div_ceil(DOT_BS).min(1024)
    }
}

impl Kernel for Dot {
    fn info(&self) -> KernelInfo {
        kinfo(
            "dot_kernel",
            Dim3::x(self.blocks() as u32),
            Dim3::x(DOT_BS as u32),
            20,
            (DOT_BS * 8) as u32,
        )
    }
    fn phases(&self) -> u32 {
        self.tree.steps() + 2
    }
    /// Phase 0: `MOV; S2R x2`, `idx` (`IMAD`), the loop entry `ISETP; BRA`; per element the
    /// two addresses, `LDG.64` x2, `DFMA`, the grid-stride step; the shared address and
    /// `STS.64`. Barrier steps: `ISETP; BRA`, below the bound `LDS.64`, `DADD`, `STS.64`.
    /// Tail: per offset `ISETP; BRA` and, below it, `LDS.64`, `DADD` and (but the last)
    /// `STS.64`; `ISETP; BRA` of thread 0, its address and `STG.64`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tid = t.tid.x as u64;
        if phase == 0 {
            entry(t, 2, 1, false);
            t.alu(1);
            t.branch(1);
            let stride = self.blocks() * DOT_BS;
            let mut sum = 0f64;
            let mut i = t.gx();
            while i < self.n {
                t.alu(1);
                let a: f64 = t.ld(self.x, i);
                t.alu(1);
                let b: f64 = t.ld(self.y, i);
                t.fp(1);
                sum = a.mul_add(b, sum);
                loop_step(t);
                i += stride;
            }
            self.tree.start(t, tid, sum);
        } else if let Some(s) = self.tree.phase(t, tid, phase) {
            t.alu(1);
            t.st(self.d, t.block.x as u64, s);
        }
    }
}

/// `dot_final_reduce_kernel`: `d[0] = sum of d[0 .. 1024]`, one block.
struct DotFinal {
    d: ObjId,
    tree: Tree,
}

impl Kernel for DotFinal {
    fn info(&self) -> KernelInfo {
        kinfo(
            "dot_final_reduce_kernel",
            Dim3::x(1),
            Dim3::x(FINAL_BS as u32),
            16,
            (FINAL_BS * 8) as u32,
        )
    }
    fn phases(&self) -> u32 {
        self.tree.steps() + 2
    }
    /// Phase 0: `MOV; S2R`, the address and `LDG.64` of `d[tid]`, the shared address and
    /// `STS.64`; then the tree of [`Dot`] from 512 and thread 0's `STG.64` of `d[0]`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tid = t.tid.x as u64;
        if phase == 0 {
            entry(t, 1, 0, false);
            t.alu(1);
            let s: f64 = t.ld(self.d, tid);
            self.tree.start(t, tid, s);
        } else if let Some(s) = self.tree.phase(t, tid, phase) {
            t.alu(1);
            t.st(self.d, 0, s);
        }
    }
}

/// A host-side scalar of `cg_solve` used as a `waxpby` coefficient.
#[derive(Clone, Copy, Debug)]
enum Coef {
    One,
    Zero,
    MinusOne,
    Beta,
    Alpha,
    MinusAlpha,
}

/// Where the host puts the `d[0]` it copies back.
#[derive(Clone, Copy, Debug)]
enum Dest {
    /// `rtrans = r.r` before the loop.
    Rtrans0,
    /// `oldrtrans = rtrans; rtrans = r.r; beta = rtrans / oldrtrans`.
    Rtrans,
    /// `p_ap_dot = Ap.p; alpha = rtrans / p_ap_dot`.
    Pap,
}

/// One step of `cg_solve`: a launch or host work between launches.
#[derive(Clone, Copy, Debug)]
enum Step {
    Waxpby(Coef, ObjId, Coef, ObjId, ObjId),
    Matvec,
    Memset,
    Dot(ObjId, ObjId),
    Final,
    Read(Dest),
    /// The loop test and the next iteration's steps.
    Iter,
}

/// `cg_solve`'s host code as a queue of steps.
struct CgHost {
    o: Objs,
    n: u64,
    pitch: u64,
    max_iter: u64,
    tolerance: f64,
    k: u64,
    rtrans: f64,
    alpha: f64,
    beta: f64,
    normr: f64,
    queue: std::collections::VecDeque<Step>,
}

/// The data objects of the solve.
#[derive(Clone, Copy, Debug)]
struct Objs {
    cols: ObjId,
    coefs: ObjId,
    x: ObjId,
    b: ObjId,
    r: ObjId,
    p: ObjId,
    ap: ObjId,
    d: ObjId,
}

impl CgHost {
    fn coef(&self, c: Coef) -> f64 {
        match c {
            Coef::One => 1.0,
            Coef::Zero => 0.0,
            Coef::MinusOne => -1.0,
            Coef::Beta => self.beta,
            Coef::Alpha => self.alpha,
            Coef::MinusAlpha => -self.alpha,
        }
    }
    fn dot(&mut self, x: ObjId, y: ObjId, into: Dest) {
        self.queue
            .extend([Step::Memset, Step::Dot(x, y), Step::Final, Step::Read(into)]);
    }
}

impl Host for CgHost {
    fn next_kernel(&mut self, mem: &mut Memory) -> Option<Box<dyn Kernel>> {
        let o = self.o;
        while let Some(s) = self.queue.pop_front() {
            let k: Box<dyn Kernel> = match s {
                Step::Waxpby(a, x, b, y, w) => Box::new(Waxpby {
                    alpha: self.coef(a),
                    x,
                    beta: self.coef(b),
                    y,
                    w,
                    n: self.n,
                }),
                Step::Matvec => Box::new(Matvec {
                    cols: o.cols,
                    coefs: o.coefs,
                    x: o.p,
                    y: o.ap,
                    n: self.n,
                    pitch: self.pitch,
                }),
                Step::Memset => Box::new(Memset { d: o.d }),
                Step::Dot(x, y) => Box::new(Dot {
                    x,
                    y,
                    d: o.d,
                    n: self.n,
                    tree: Tree::new(DOT_BS),
                }),
                Step::Final => Box::new(DotFinal {
                    d: o.d,
                    tree: Tree::new(FINAL_BS),
                }),
                Step::Read(into) => {
                    let v: f64 = mem.get(o.d, 0);
                    match into {
                        Dest::Rtrans0 => {
                            self.rtrans = v;
                            self.normr = v.sqrt();
                        }
                        Dest::Rtrans => {
                            let old = self.rtrans;
                            self.rtrans = v;
                            self.beta = v / old;
                            self.normr = v.sqrt();
                        }
                        Dest::Pap => self.alpha = self.rtrans / v,
                    }
                    continue;
                }
                Step::Iter => {
                    self.k += 1;
                    // NaN (a breakdown) also ends the loop, as `normr > tolerance` does
                    if self.k > self.max_iter || self.normr.is_nan() || self.normr <= self.tolerance
                    {
                        self.queue.clear();
                        return None;
                    }
                    use Coef::*;
                    if self.k == 1 {
                        self.queue.push_back(Step::Waxpby(One, o.r, Zero, o.r, o.p));
                    } else {
                        self.dot(o.r, o.r, Dest::Rtrans);
                        self.queue.push_back(Step::Waxpby(One, o.r, Beta, o.p, o.p));
                    }
                    self.queue.push_back(Step::Matvec);
                    self.dot(o.ap, o.p, Dest::Pap);
                    self.queue.extend([
                        Step::Waxpby(One, o.x, Alpha, o.p, o.x),
                        Step::Waxpby(One, o.r, MinusAlpha, o.ap, o.r),
                        Step::Iter,
                    ]);
                    continue;
                }
            };
            return Some(k);
        }
        None
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (dx, dy, dz) = default_dims();
    let nx = p.u64("nx", dx)?;
    let ny = p.u64("ny", dy)?;
    let nz = p.u64("nz", dz)?;
    let max_iter = p.u64("max_iter", PAPER_MAX_ITER >> ITER_HALVINGS)?;
    if nx == 0 || ny == 0 || nz == 0 || max_iter == 0 {
        return Err(bad(
            "minife: parameters `nx`, `ny`, `nz` and `max_iter` must be at least 1".into(),
        ));
    }
    let nodes = (nx + 1)
        .checked_mul(ny + 1)
        .and_then(|v| v.checked_mul(nz + 1));
    match nodes {
        Some(v) if v.div_ceil(32) * 32 * COLS_PER_ROW < i32::MAX as u64 => {}
        _ => {
            return Err(bad(format!(
                "minife: {nx} x {ny} x {nz} elements overflow miniFE's int ordinals; \
                 lower `nx`, `ny` or `nz`"
            )))
        }
    }
    if footprint(nx, ny, nz) > MAX_FOOTPRINT {
        return Err(bad(format!(
            "minife: {nx} x {ny} x {nz} elements need {} MiB of device objects, above the \
             model's {} MiB limit (the system is held in host memory); lower `nx`, `ny` or `nz`",
            footprint(nx, ny, nz) >> 20,
            MAX_FOOTPRINT >> 20
        )));
    }
    let e = assemble(nx, ny, nz);
    let n = e.n;
    let mut m = Memory::new();
    let o = Objs {
        cols: m.alloc_from("A.cols", &e.cols, true),
        coefs: m.alloc_from("A.coefs", &e.coefs, true),
        x: m.alloc::<f64>("x", n, false),
        b: m.alloc_from("b", &e.b, true),
        r: m.alloc::<f64>("r", n, false),
        p: m.alloc::<f64>("p", n, false),
        ap: m.alloc::<f64>("Ap", n, false),
        d: m.alloc::<f64>("d", FINAL_BS, false),
    };
    use Coef::*;
    let mut h = CgHost {
        o,
        n,
        pitch: e.pitch,
        max_iter,
        tolerance: f64::EPSILON,
        k: 0,
        rtrans: 0.0,
        alpha: 0.0,
        beta: 0.0,
        normr: 0.0,
        queue: Default::default(),
    };
    h.queue.extend([
        Step::Waxpby(One, o.x, Zero, o.x, o.p),
        Step::Matvec,
        Step::Waxpby(One, o.b, MinusOne, o.ap, o.r),
    ]);
    h.dot(o.r, o.r, Dest::Rtrans0);
    h.queue.push_back(Step::Iter);
    Ok(ModelWorkload::new("minife", m, Box::new(h)))
}
