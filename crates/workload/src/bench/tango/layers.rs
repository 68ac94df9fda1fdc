//! Tango's layer kernels (Karki et al., GPGPU 2019; gitlab.com/Tango-DNNbench/Tango, `GPU/*`
//! `*_kernel.cu`), reusable by every network of the suite.
//!
//! Tango writes one CUDA kernel per layer type and launches it with **one thread per output
//! element**: the block is one output feature map (`blockIdx.x` = output channel,
//! `threadIdx.x` = output *row*, `threadIdx.y` = output column, so consecutive lanes walk down
//! a column and the activations of a warp are not coalesced), and each thread loops over the
//! input channels and the filter window with plain global loads of activations and weights.
//! Maps larger than 32 x 32 are covered by several launches with row/column offsets
//! (`executeFirstLayer<<<96, (32,32)>>>(..., 0, 0)`, `(32,23)` at `(0,32)`, ...). Fully
//! connected layers run one single-thread block per output neuron (`executeFCLayer<<<4096,
//! 1>>>`). Convolutions fuse the bias and the ReLU (`if (product < 0) product = 0`).
//!
//! Instruction counts (issue 7 §1 rules, docs/workloads.md) are given per kernel. Loops with a
//! run-time trip count are not unrolled (each iteration: its addresses, the loads, the math
//! and `IADD3; ISETP; BRA`); fixed 11 x 11 windows unroll their inner loop.
//!
//! One deliberate difference: Tango's `execute3DconvolutionCuda` starts the window of a
//! column `col >= pad` at input column `col` (it forgets to subtract the padding, so the
//! window is shifted by `pad` columns and the last ones read past the row). The model starts
//! it at `col - pad` (a true zero-padded convolution) with the same trimmed loop bounds, the
//! same trip counts and the same access order, so results can be checked against a plain
//! convolution.

use crate::memory::Memory;
use crate::model::{Host, Kernel, Thread};
use crate::program::{Dim3, KernelInfo, ObjId};
use std::sync::atomic::{AtomicU32, Ordering};

/// A [`KernelInfo`] from its parts.
pub(crate) fn kinfo(name: &str, grid: Dim3, block: Dim3, regs: u32, smem: u32) -> KernelInfo {
    KernelInfo {
        name: name.to_string(),
        grid,
        block,
        regs_per_thread: regs,
        smem_per_block: smem,
    }
}

/// A fixed launch sequence: the network's host code (no data-dependent control).
pub(crate) struct Seq(pub std::vec::IntoIter<Box<dyn Kernel>>);

impl Host for Seq {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        self.0.next()
    }
}

/// Box a launch sequence as a host program.
pub(crate) fn seq(kernels: Vec<Box<dyn Kernel>>) -> Box<dyn Host> {
    Box::new(Seq(kernels.into_iter()))
}

/// Control of one iteration of a loop with a run-time bound: `IADD3; ISETP; BRA`.
#[track_caller]
fn loop_step(t: &mut Thread<'_>) {
    t.alu(2);
    t.branch(1);
}

/// Tiles of at most 32 x 32 covering an `h` x `w` map, in Tango's launch order (row offset
/// outer, column offset inner): `(r_off, c_off, rows, cols)`.
pub fn tiles(h: u32, w: u32) -> Vec<(u32, u32, u32, u32)> {
    let mut v = Vec::new();
    let mut r = 0;
    while r < h {
        let rows = (h - r).min(32);
        let mut c = 0;
        while c < w {
            let cols = (w - c).min(32);
            v.push((r, c, rows, cols));
            c += cols;
        }
        r += rows;
    }
    v
}

/// Output size of a window of `k` with `stride` and `pad` over `n` inputs.
pub fn out_dim(n: u32, k: u32, stride: u32, pad: u32) -> u32 {
    (n + 2 * pad).saturating_sub(k) / stride + 1
}

/// Tango's first AlexNet layer `executeFirstLayer`: an 11 x 11 (any `k`), stride-4
/// convolution over an interleaved RGB image (`in[(y * w + x) * 3 + c]`), weights
/// `[out][c][k][k]`, bias and ReLU fused; one launch per 32 x 32 output tile.
///
/// Per thread: entry `MOV; S2R x3`, the offsets and bases (8 int); per window row `i` the two
/// row pointers (2 int) and the loop control; per window column (unrolled): 6 loads (3
/// channels of input and weight) and `FMUL; FFMA x2; FADD` (4 fp); then bias load, `FADD`,
/// the ReLU select (1 fp), the output address (3 int) and `STG`.
pub struct ConvRgb {
    pub name: &'static str,
    pub input: ObjId,
    pub weights: ObjId,
    pub bias: ObjId,
    pub output: ObjId,
    /// Input image side (227).
    pub iw: u32,
    /// Output map side (55).
    pub ow: u32,
    pub k: u32,
    pub stride: u32,
    pub out_c: u32,
    /// The launch's tile: row and column offset, rows and columns.
    pub tile: (u32, u32, u32, u32),
}

impl Kernel for ConvRgb {
    fn info(&self) -> KernelInfo {
        let (_, _, rows, cols) = self.tile;
        kinfo(
            self.name,
            Dim3::x(self.out_c),
            Dim3::new(rows, cols, 1),
            32,
            0,
        )
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (r_off, c_off, _, _) = self.tile;
        let output = t.block.x as u64;
        let row = (t.tid.x + r_off) as u64;
        let col = (t.tid.y + c_off) as u64;
        let (iw, k, s) = (self.iw as u64, self.k as u64, self.stride as u64);
        t.alu(4 + 8);
        let mut product = 0.0f32;
        for i in 0..k {
            t.alu(2);
            let base = ((row * s + i) * iw + col * s) * 3;
            for j in 0..k {
                let x0: f32 = t.ld(self.input, base + j * 3);
                let w0: f32 = t.ld(self.weights, output * k * k * 3 + i * k + j);
                let x1: f32 = t.ld(self.input, base + j * 3 + 1);
                let w1: f32 = t.ld(self.weights, output * k * k * 3 + k * k + i * k + j);
                let x2: f32 = t.ld(self.input, base + j * 3 + 2);
                let w2: f32 = t.ld(self.weights, output * k * k * 3 + 2 * k * k + i * k + j);
                t.fp(4);
                product += x0 * w0 + x1 * w1 + x2 * w2;
            }
            loop_step(t);
        }
        let b: f32 = t.ld(self.bias, output);
        t.fp(2);
        product = (product + b).max(0.0);
        t.alu(3);
        let ow = self.ow as u64;
        t.st(self.output, output * ow * ow + row * ow + col, product);
    }
}

/// Tango's `execute3DconvolutionCuda` / `execute3Dconvolutiongroup2Cuda` (and the
/// convolutions of ResNet and SqueezeNet written the same way): CHW activations, weights
/// `[out][in_per_group][k][k]`, one thread per output element of channel `blockIdx.x +
/// out_off`, looping over `in_c` input channels starting at `in_off` (the second group reads
/// the second half) and over the window, whose bounds are trimmed at the borders (Tango's
/// `loopr`/`loopc` with the weight offset `k * x_pad + y_pad`); bias and ReLU fused.
///
/// Per thread: entry `MOV; S2R x3` and the border arithmetic (`ISETP`/`SEL` for `x_pad`,
/// `y_pad`, `loopr`, `loopc`, about 14 int); per input channel 2 int (channel bases) and the
/// loop control; per window row 2 int and the loop control; per window element the two
/// addresses (2 int), 2 `LDG`, `FFMA` and the loop control; then the bias load, `FADD`, the
/// ReLU (1 fp), 3 int and `STG`: 8 instructions per multiply-add, 2 of them loads.
pub struct Conv {
    pub name: &'static str,
    pub input: ObjId,
    pub weights: ObjId,
    /// Fused bias (AlexNet); ResNet's convolutions have none (BN and Scale follow).
    pub bias: Option<ObjId>,
    pub output: ObjId,
    /// Input map rows and columns.
    pub ih: u32,
    pub iw: u32,
    /// Output map rows and columns.
    pub oh: u32,
    pub ow: u32,
    pub k: u32,
    pub stride: u32,
    pub pad: u32,
    /// Input channels each output reads (per group), and the first one.
    pub in_c: u32,
    pub in_off: u32,
    /// Output channels of this launch (grid) and the first one.
    pub out_c: u32,
    pub out_off: u32,
    /// Channel offset and total channels of the output tensor (SqueezeNet's concatenation
    /// writes the expand outputs into one tensor).
    pub dst_off: u32,
    pub relu: bool,
    pub tile: (u32, u32, u32, u32),
    /// Tango's `_split` kernels: each thread computes `tf` x `tf` outputs (maps larger than
    /// 32 x 32 in ResNet); 1 otherwise.
    pub tf: u32,
}

impl Conv {
    /// The weight offset and trimmed loop range of one dimension: first input index (may be
    /// negative), first window index, trip count.
    fn window(o: u32, stride: u32, pad: u32, k: u32, n: u32) -> (i64, u32, u32) {
        let start = o as i64 * stride as i64 - pad as i64;
        let lo = (-start).max(0) as u32;
        let hi = ((n as i64 - start).min(k as i64)).max(0) as u32;
        (start, lo, hi.saturating_sub(lo))
    }
}

impl Kernel for Conv {
    fn info(&self) -> KernelInfo {
        let (_, _, rows, cols) = self.tile;
        kinfo(
            self.name,
            Dim3::x(self.out_c),
            Dim3::new(rows, cols, 1),
            32,
            0,
        )
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (r_off, c_off, _, _) = self.tile;
        let tf = self.tf.max(1);
        t.alu(4);
        t.branch(1);
        for a in 0..tf {
            let row = r_off + t.tid.x * tf + a;
            if row >= self.oh {
                break;
            }
            for b in 0..tf {
                let col = c_off + t.tid.y * tf + b;
                if col >= self.ow {
                    break;
                }
                self.element(t, row, col);
                if tf > 1 {
                    loop_step(t);
                }
            }
        }
    }
}

impl Conv {
    fn element(&self, t: &mut Thread<'_>, row: u32, col: u32) {
        let output = (t.block.x + self.out_off) as u64;
        let k = self.k as u64;
        let (r0, ilo, loopr) = Self::window(row, self.stride, self.pad, self.k, self.ih);
        let (c0, jlo, loopc) = Self::window(col, self.stride, self.pad, self.k, self.iw);
        let (ih, iw) = (self.ih as u64, self.iw as u64);
        t.alu(14);
        t.branch(1);
        let mut product = 0.0f32;
        for f in 0..self.in_c as u64 {
            t.alu(2);
            let feature = self.in_off as u64 + f;
            for i in 0..loopr as u64 {
                t.alu(2);
                let y = (r0 + (ilo as u64 + i) as i64) as u64;
                for j in 0..loopc as u64 {
                    let x = (c0 + (jlo as u64 + j) as i64) as u64;
                    t.alu(2);
                    let a: f32 = t.ld(self.input, feature * ih * iw + y * iw + x);
                    let w: f32 = t.ld(
                        self.weights,
                        output * k * k * self.in_c as u64
                            + f * k * k
                            + (ilo as u64 + i) * k
                            + jlo as u64
                            + j,
                    );
                    t.fp(1);
                    product += a * w;
                    loop_step(t);
                }
                loop_step(t);
            }
            loop_step(t);
        }
        if let Some(bias) = self.bias {
            let b: f32 = t.ld(bias, output);
            t.fp(1);
            product += b;
        }
        if self.relu {
            t.fp(1);
            product = product.max(0.0);
        }
        t.alu(3);
        let (oh, ow) = (self.oh as u64, self.ow as u64);
        let ch = self.dst_off as u64 + output;
        t.st(
            self.output,
            ch * oh * ow + row as u64 * ow + col as u64,
            product,
        );
    }
}

/// Tango's `executepoolingCuda`: max pooling, one block per channel, `(rows, cols)` threads,
/// `k` x `k` window with `stride`, no padding; the running maximum starts at 0 (inputs are
/// ReLU outputs). `avg = true` is the average-pooling kernel of ResNet (same loops, `FADD`
/// and a final multiply by `1/k^2`).
///
/// Per thread: entry `MOV; S2R x3` and bases (4 int); per window row 1 int and the loop
/// control; per element 1 int (address), `LDG`, 1 fp (`FMNMX` or `FADD`) and the loop
/// control; then 3 int and `STG`.
pub struct Pool {
    pub name: &'static str,
    pub input: ObjId,
    pub output: ObjId,
    pub ih: u32,
    pub iw: u32,
    pub oh: u32,
    pub ow: u32,
    pub k: u32,
    pub stride: u32,
    /// Padding (ResNet's pool1): the window is trimmed at the borders, as in Tango's
    /// ResNet `executepoolingCuda`.
    pub pad: u32,
    pub channels: u32,
    pub avg: bool,
    pub tile: (u32, u32, u32, u32),
    /// Outputs per thread and dimension (`tfactor`), 1 for AlexNet's kernel.
    pub tf: u32,
}

impl Kernel for Pool {
    fn info(&self) -> KernelInfo {
        let (_, _, rows, cols) = self.tile;
        kinfo(
            self.name,
            Dim3::x(self.channels),
            Dim3::new(rows, cols, 1),
            20,
            0,
        )
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (r_off, c_off, _, _) = self.tile;
        let tf = self.tf.max(1);
        let c = t.block.x as u64;
        let (ih, iw) = (self.ih as u64, self.iw as u64);
        t.alu(4 + 4);
        for a in 0..tf {
            let row = r_off + t.tid.x * tf + a;
            if row >= self.oh {
                break;
            }
            for b in 0..tf {
                let col = c_off + t.tid.y * tf + b;
                if col >= self.ow {
                    break;
                }
                let (r0, ilo, nr) = Conv::window(row, self.stride, self.pad, self.k, self.ih);
                let (c0, jlo, nc) = Conv::window(col, self.stride, self.pad, self.k, self.iw);
                if self.pad > 0 {
                    t.alu(8);
                }
                let mut acc = 0.0f32;
                for i in 0..nr as u64 {
                    t.alu(1);
                    let y = (r0 + (ilo as u64 + i) as i64) as u64;
                    for j in 0..nc as u64 {
                        let x = (c0 + (jlo as u64 + j) as i64) as u64;
                        t.alu(1);
                        let v: f32 = t.ld(self.input, c * ih * iw + y * iw + x);
                        t.fp(1);
                        if self.avg {
                            acc += v;
                        } else if acc < v {
                            acc = v;
                        }
                        loop_step(t);
                    }
                    loop_step(t);
                }
                if self.avg {
                    t.fp(1);
                    acc *= 1.0 / (self.k * self.k) as f32;
                }
                t.alu(3);
                let (oh, ow) = (self.oh as u64, self.ow as u64);
                t.st(self.output, c * oh * ow + row as u64 * ow + col as u64, acc);
                if tf > 1 {
                    loop_step(t);
                }
            }
        }
    }
}

/// The element-wise kernels of Tango's ResNet, in their `_split` form (grid = channels,
/// block `(f / tf, f / tf)`, `tf` x `tf` elements per thread): `executeBnNormLayerCUDA`
/// (`x = (x - mean[c]) / sqrt(var[c] + 1e-5)`, in place), `executeScaleLayerCUDA`
/// (`x = x * scale[c] + bias[c]`, in place), `executeReLULayerCUDA` (store only where
/// negative) and `executeEltWiseLayerCUDA` (`out = a + b`).
///
/// Per element: the address (3 int), the loads, the math (BN: `FADD`, `MUFU.RSQ`-class
/// `sqrt` 1 sfu + 2 fp, the division `MUFU.RCP` + 4 fp; Scale: `FFMA`; ReLU: `FSETP` and a
/// predicated `STG`; EltWise: `FADD`) and the store.
pub struct Eltwise {
    pub name: &'static str,
    pub op: EltOp,
    pub channels: u32,
    /// Map side (square maps).
    pub f: u32,
    pub tf: u32,
}

/// What an [`Eltwise`] kernel computes.
#[derive(Clone, Copy, Debug)]
pub enum EltOp {
    Bn { x: ObjId, mean: ObjId, var: ObjId },
    Scale { x: ObjId, scale: ObjId, bias: ObjId },
    Relu { x: ObjId },
    Add { a: ObjId, b: ObjId, out: ObjId },
}

impl Kernel for Eltwise {
    fn info(&self) -> KernelInfo {
        let side = self.f.div_ceil(self.tf.max(1));
        kinfo(
            self.name,
            Dim3::x(self.channels),
            Dim3::new(side, side, 1),
            16,
            0,
        )
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tf = self.tf.max(1);
        let c = t.block.x as u64;
        let f = self.f as u64;
        t.alu(6);
        t.branch(1);
        for a in 0..tf {
            let row = (t.tid.x * tf + a) as u64;
            if row >= f {
                break;
            }
            for b in 0..tf {
                let col = (t.tid.y * tf + b) as u64;
                if col >= f {
                    break;
                }
                let i = c * f * f + row * f + col;
                t.alu(3);
                match self.op {
                    EltOp::Bn { x, mean, var } => {
                        let v: f32 = t.ld(x, i);
                        let m: f32 = t.ld(mean, c);
                        let s: f32 = t.ld(var, c);
                        t.fp(3);
                        t.sfu(2);
                        t.fp(4);
                        t.st(x, i, (v - m) / (s + 1e-5).sqrt());
                    }
                    EltOp::Scale { x, scale, bias } => {
                        let v: f32 = t.ld(x, i);
                        let s: f32 = t.ld(scale, c);
                        let bb: f32 = t.ld(bias, c);
                        t.fp(1);
                        t.st(x, i, v * s + bb);
                    }
                    EltOp::Relu { x } => {
                        let v: f32 = t.ld(x, i);
                        t.fp(1);
                        t.branch(1);
                        if v < 0.0 {
                            t.st(x, i, 0.0f32);
                        }
                    }
                    EltOp::Add { a, b, out } => {
                        let u: f32 = t.ld(a, i);
                        let v: f32 = t.ld(b, i);
                        t.fp(1);
                        t.st(out, i, u + v);
                    }
                }
                if tf > 1 {
                    loop_step(t);
                }
            }
        }
    }
}

/// Tango's `executelrnNormCuda` / `executelrnNormCuda_split`: local response normalisation
/// across channels, `out = x / (1 + alpha / n * sum)^beta` with Tango's channel window
/// `[max(c - 2, 1) - 1, min(c + 2, C) - 1)`.
///
/// Per thread: entry and window bounds (4 + 8 int, 1 branch); per window channel 1 int,
/// `LDG`, `FFMA` (`pow(x, 2)` folds to a multiply) and the loop control; then the centre
/// load, `powf` (2 sfu + 4 fp), the division (`MUFU.RCP` + 4 fp), 3 int and `STG`.
pub struct Lrn {
    pub name: &'static str,
    pub input: ObjId,
    pub output: ObjId,
    pub channels: u32,
    pub h: u32,
    pub w: u32,
    pub alpha: f32,
    pub beta: f32,
    pub local: u32,
    pub tile: (u32, u32, u32, u32),
}

impl Kernel for Lrn {
    fn info(&self) -> KernelInfo {
        let (_, _, rows, cols) = self.tile;
        kinfo(
            self.name,
            Dim3::x(self.channels),
            Dim3::new(rows, cols, 1),
            20,
            0,
        )
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (r_off, c_off, _, _) = self.tile;
        let out = self.channels as i64;
        let c = t.block.x as i64;
        let row = (t.tid.x + r_off) as u64;
        let col = (t.tid.y + c_off) as u64;
        let (h, w) = (self.h as u64, self.w as u64);
        t.alu(4 + 8);
        t.branch(1);
        let n_start = (c - 2).max(1);
        let n_end = (c + 2).min(out);
        let mut sum = 0.0f32;
        for i in (n_start - 1)..(n_end - 1) {
            t.alu(1);
            let v: f32 = t.ld(self.input, i as u64 * h * w + row * w + col);
            t.fp(1);
            sum += v * v;
            loop_step(t);
        }
        let x: f32 = t.ld(self.input, c as u64 * h * w + row * w + col);
        t.sfu(2);
        t.fp(4);
        let den = (1.0 + (self.alpha / self.local as f32) * sum).powf(self.beta);
        t.sfu(1);
        t.fp(4);
        t.alu(3);
        t.st(self.output, c as u64 * h * w + row * w + col, x / den);
    }
}

/// Tango's `executeFCLayer`: one single-thread block per output neuron, looping over the
/// inputs (`product += in[i] * W[out * input + i]`), bias, optional ReLU.
///
/// Per thread: entry `MOV; S2R` and the row base (3 int); per input 1 int (the two
/// addresses advance together), 2 `LDG`, `FFMA` and the loop control; then the bias load,
/// `FADD`, the ReLU (1 fp), 1 int and `STG`.
pub struct Fc {
    pub name: &'static str,
    pub input: ObjId,
    pub weights: ObjId,
    /// AlexNet's `executeFCLayer` adds a bias; ResNet's `executeFCLayerCUDA` has none.
    pub bias: Option<ObjId>,
    pub output: ObjId,
    pub inputs: u32,
    pub outputs: u32,
    pub relu: bool,
}

impl Kernel for Fc {
    fn info(&self) -> KernelInfo {
        kinfo(self.name, Dim3::x(self.outputs), Dim3::x(1), 16, 0)
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let out = t.block.x as u64;
        let n = self.inputs as u64;
        t.alu(2 + 3);
        let mut product = 0.0f32;
        for i in 0..n {
            t.alu(1);
            let x: f32 = t.ld(self.input, i);
            let w: f32 = t.ld(self.weights, out * n + i);
            t.fp(1);
            product += x * w;
            loop_step(t);
        }
        if let Some(bias) = self.bias {
            let b: f32 = t.ld(bias, out);
            t.fp(1);
            product += b;
        }
        if self.relu {
            t.fp(1);
            product = product.max(0.0);
        }
        t.alu(1);
        t.st(self.output, out, product);
    }
}

/// The data objects of one GRU cell (Tango GRU, `GPU/GRU/gru_kernel.cu`): the input
/// `x_t` (one float, `input_dim` = 1), the hidden state `GPU_states` (read as h(t-1),
/// overwritten with h(t)), and per gate (h = candidate, r, z) the input weight vector
/// `GPU_kernel_*_w[units]`, the bias `GPU_bias_*[units]` and the recurrent weights
/// `GPU_rec_*_w[units][units]` (row `i` = h(t-1) element, column = unit).
#[derive(Clone, Copy, Debug)]
pub struct GruObjs {
    pub x: ObjId,
    pub states: ObjId,
    pub kernel_h: ObjId,
    pub kernel_r: ObjId,
    pub kernel_z: ObjId,
    pub bias_h: ObjId,
    pub bias_r: ObjId,
    pub bias_z: ObjId,
    pub rec_h: ObjId,
    pub rec_r: ObjId,
    pub rec_z: ObjId,
}

/// Keras' `hard_sigmoid` as Tango's `__device__ float hard_sigmoid` computes it: 0 below
/// -2.5, 1 above 2.5, else `0.2 * x + 0.5` with the double literals (so the product and sum
/// are double, rounded back to float on return).
#[inline]
pub fn hard_sigmoid(x: f32) -> f32 {
    if x < -2.5 {
        0.0
    } else if x > 2.5 {
        1.0
    } else {
        (0.2f64 * x as f64 + 0.5) as f32
    }
}

/// Tango GRU's `GPU_forward_pass_gru<<<1, (s, s)>>>`: one recurrent cell step of
/// `units = s * s` hidden units in ONE block, thread `index = threadIdx.x * blockDim.x +
/// threadIdx.y` owning unit `index` (so the lanes of a warp, x fastest, take units 10 apart
/// for Tango's 10 x 10 block: the weight columns a warp reads are not contiguous).
///
/// Source order: loop 1 over the `units` previous states accumulates `h(t-1) . Uz` and
/// `h(t-1) . Ur` (`GPU_states[i]` once, `GPU_rec_z_w[index + units i]`,
/// `GPU_rec_r_w[index + units i]` per iteration); `z = hard_sigmoid(x Wz + rec_z + bz)`;
/// the reset gate `r` goes to `__shared__ update_gate[index]`; `__syncthreads()`; loop 2
/// accumulates `update_gate[i] * GPU_states[i] * GPU_rec_h_w[index + units i]`; `h~ =
/// tanh(x Wh + rec_h + bh)`; `GPU_states[index] = (1 - z) GPU_states[index] + z h~`.
///
/// One deliberate difference: Tango's kernel has no barrier between loop 2, which reads
/// every `GPU_states[i]`, and the final store of `GPU_states[index]`, so on a GPU a warp that
/// finishes first may overwrite states another warp has not read yet (a race whose result
/// depends on warp timing). The model resolves it the way the GRU's equations (and Tango's
/// own comment) intend, every unit reading h(t-1): the store runs in a third phase after a
/// model-only barrier (one `BAR` per warp and step, 3 of about 1,000 instructions per
/// warp). `z` and `h~` live in per-thread registers between phases (`GruCell::regs`).
///
/// Instructions per thread (issue 7 §1 rules): the index and shared base (4 int); per
/// iteration of loop 1 two addresses (2 int), `LDG` states, two `LDG` weights, two `FFMA`;
/// per iteration of loop 2 one address (1 int), `LDS`, two `LDG`, `FMUL` + `FFMA`; both
/// loops have the constant trip count 100 in Tango and are taken as unrolled by 4 (`IADD3;
/// ISETP; BRA` per 4 iterations); each gate: its `LDG`s, `FFMA` + `FADD`, and
/// `hard_sigmoid`'s `F2F.F64.F32`, `DFMA`, `F2F.F32.F64` (2 sfu, 1 fp) and two compares
/// and selects (2 fp); `tanhf` 2 sfu + 4 fp; the update `FADD; FMUL; FFMA` (3 fp), its
/// address (1 int) and `STG`.
pub struct GruCell {
    pub o: GruObjs,
    /// Block side: the block is `side` x `side` threads, one per unit.
    pub side: u32,
    /// Per-thread registers across phases: `z` of unit `u` at `u`, `h~` at `units + u`
    /// (f32 bits). Allocated once per launch.
    regs: Vec<AtomicU32>,
}

impl GruCell {
    /// A cell of `side * side` units over the objects `o`.
    pub fn new(o: GruObjs, side: u32) -> Self {
        let units = (side * side) as usize;
        GruCell {
            o,
            side,
            regs: (0..2 * units).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    fn units(&self) -> u64 {
        self.side as u64 * self.side as u64
    }

    fn reg(&self, i: u64) -> f32 {
        f32::from_bits(self.regs[i as usize].load(Ordering::Relaxed))
    }

    fn set_reg(&self, i: u64, v: f32) {
        self.regs[i as usize].store(v.to_bits(), Ordering::Relaxed);
    }
}

/// Loop control of a loop unrolled by 4: `IADD3; ISETP; BRA` once per 4 iterations and at
/// the end.
#[track_caller]
fn unrolled4(t: &mut Thread<'_>, n: u64, trips: u64) {
    if n % 4 == 3 || n + 1 == trips {
        t.alu(2);
        t.branch(1);
    }
}

/// `hard_sigmoid` as recorded: two conversions (sfu), `DFMA`, two compares and selects.
#[track_caller]
fn hard_sigmoid_insts(t: &mut Thread<'_>) {
    t.sfu(1);
    t.fp(1);
    t.sfu(1);
    t.fp(2);
}

impl Kernel for GruCell {
    fn info(&self) -> KernelInfo {
        kinfo(
            "GPU_forward_pass_gru",
            Dim3::x(1),
            Dim3::new(self.side, self.side, 1),
            32,
            self.units() as u32 * 4,
        )
    }
    fn phases(&self) -> u32 {
        3
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.o.states])
    }
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let o = self.o;
        let u = self.units();
        let index = t.tid.x as u64 * t.block_dim.x as u64 + t.tid.y as u64;
        match phase {
            0 => {
                t.alu(4);
                let (mut rz, mut rr) = (0f32, 0f32);
                for i in 0..u {
                    t.alu(2);
                    let s: f32 = t.ld(o.states, i);
                    let wz: f32 = t.ld(o.rec_z, index + u * i);
                    let wr: f32 = t.ld(o.rec_r, index + u * i);
                    t.fp(2);
                    rz += s * wz;
                    rr += s * wr;
                    unrolled4(t, i, u);
                }
                let x: f32 = t.ld(o.x, 0);
                let kz: f32 = t.ld(o.kernel_z, index);
                let bz: f32 = t.ld(o.bias_z, index);
                t.fp(2);
                hard_sigmoid_insts(t);
                let z = hard_sigmoid(x * kz + rz + bz);
                let kr: f32 = t.ld(o.kernel_r, index);
                let br: f32 = t.ld(o.bias_r, index);
                t.fp(2);
                hard_sigmoid_insts(t);
                let r = hard_sigmoid(x * kr + rr + br);
                t.alu(1);
                t.sh_st_f32(index as u32, r);
                self.set_reg(index, z);
            }
            1 => {
                let mut rh = 0f32;
                for i in 0..u {
                    t.alu(1);
                    let g = t.sh_ld_f32(i as u32);
                    let s: f32 = t.ld(o.states, i);
                    let w: f32 = t.ld(o.rec_h, index + u * i);
                    t.fp(2);
                    rh += g * s * w;
                    unrolled4(t, i, u);
                }
                // __syncthreads() is a compiler memory barrier: x_t[0] is loaded again
                let x: f32 = t.ld(o.x, 0);
                let kh: f32 = t.ld(o.kernel_h, index);
                let bh: f32 = t.ld(o.bias_h, index);
                t.fp(2);
                t.sfu(2);
                t.fp(4);
                self.set_reg(u + index, (x * kh + rh + bh).tanh());
            }
            _ => {
                let (z, h) = (self.reg(index), self.reg(u + index));
                t.alu(1);
                let s: f32 = t.ld(o.states, index);
                t.fp(3);
                t.st(o.states, index, (1.0 - z) * s + z * h);
            }
        }
    }
}

/// Host references of the layers (plain loops over the same layouts), for the tests.
pub mod reference {
    /// Zero-padded convolution, CHW input `[ci][ih][iw]`, weights `[co][ci_per_group][k][k]`,
    /// `groups` equal channel groups, bias, optional ReLU.
    #[allow(clippy::too_many_arguments)]
    pub fn conv(
        x: &[f32],
        ci: usize,
        ih: usize,
        iw: usize,
        w: &[f32],
        b: &[f32],
        co: usize,
        k: usize,
        stride: usize,
        pad: usize,
        groups: usize,
        relu: bool,
    ) -> (Vec<f32>, usize, usize) {
        let oh = (ih + 2 * pad - k) / stride + 1;
        let ow = (iw + 2 * pad - k) / stride + 1;
        let cig = ci / groups;
        let cog = co / groups;
        let mut y = vec![0.0f32; co * oh * ow];
        for o in 0..co {
            let g = o / cog;
            for r in 0..oh {
                for c in 0..ow {
                    let mut p = 0.0f32;
                    for f in 0..cig {
                        let ch = g * cig + f;
                        for i in 0..k {
                            let yy = (r * stride + i) as i64 - pad as i64;
                            if yy < 0 || yy >= ih as i64 {
                                continue;
                            }
                            for j in 0..k {
                                let xx = (c * stride + j) as i64 - pad as i64;
                                if xx < 0 || xx >= iw as i64 {
                                    continue;
                                }
                                p += x[ch * ih * iw + yy as usize * iw + xx as usize]
                                    * w[o * cig * k * k + f * k * k + i * k + j];
                            }
                        }
                    }
                    p += b[o];
                    if relu {
                        p = p.max(0.0);
                    }
                    y[o * oh * ow + r * ow + c] = p;
                }
            }
        }
        (y, oh, ow)
    }

    /// Max (from 0) or average pooling without padding.
    pub fn pool(
        x: &[f32],
        c: usize,
        ih: usize,
        iw: usize,
        k: usize,
        s: usize,
        avg: bool,
    ) -> (Vec<f32>, usize, usize) {
        let oh = (ih - k) / s + 1;
        let ow = (iw - k) / s + 1;
        let mut y = vec![0.0f32; c * oh * ow];
        for ch in 0..c {
            for r in 0..oh {
                for q in 0..ow {
                    let mut m = 0.0f32;
                    for i in 0..k {
                        for j in 0..k {
                            let v = x[ch * ih * iw + (r * s + i) * iw + q * s + j];
                            if avg {
                                m += v;
                            } else if m < v {
                                m = v;
                            }
                        }
                    }
                    if avg {
                        m *= 1.0 / (k * k) as f32;
                    }
                    y[ch * oh * ow + r * ow + q] = m;
                }
            }
        }
        (y, oh, ow)
    }

    /// Tango's LRN window across channels.
    pub fn lrn(
        x: &[f32],
        c: usize,
        h: usize,
        w: usize,
        alpha: f32,
        beta: f32,
        n: usize,
    ) -> Vec<f32> {
        let mut y = vec![0.0f32; x.len()];
        for ch in 0..c as i64 {
            let s0 = (ch - 2).max(1);
            let e0 = (ch + 2).min(c as i64);
            for p in 0..h * w {
                let mut sum = 0.0f32;
                for i in (s0 - 1)..(e0 - 1) {
                    let v = x[i as usize * h * w + p];
                    sum += v * v;
                }
                let den = (1.0 + (alpha / n as f32) * sum).powf(beta);
                y[ch as usize * h * w + p] = x[ch as usize * h * w + p] / den;
            }
        }
        y
    }

    /// Fully connected layer `y = W x + b`, optional ReLU.
    pub fn fc(x: &[f32], w: &[f32], b: &[f32], outs: usize, relu: bool) -> Vec<f32> {
        let n = x.len();
        (0..outs)
            .map(|o| {
                let mut p = 0.0f32;
                for i in 0..n {
                    p += x[i] * w[o * n + i];
                }
                p += b[o];
                if relu {
                    p.max(0.0)
                } else {
                    p
                }
            })
            .collect()
    }
    /// One GRU step as Tango's `GPU_forward_pass_gru` computes it (every unit reads
    /// h(t-1)): `rec_*` are `[units][units]` with row = h(t-1) element; returns h(t).
    #[allow(clippy::too_many_arguments)]
    pub fn gru_step(
        x: f32,
        h: &[f32],
        kernel: [&[f32]; 3],
        bias: [&[f32]; 3],
        rec: [&[f32]; 3],
    ) -> Vec<f32> {
        use super::hard_sigmoid;
        let u = h.len();
        let [kh, kr, kz] = kernel;
        let [bh, br, bz] = bias;
        let [uh, ur, uz] = rec;
        let mut r = vec![0.0f32; u];
        let mut z = vec![0.0f32; u];
        for j in 0..u {
            let (mut az, mut ar) = (0.0f32, 0.0f32);
            for i in 0..u {
                az += h[i] * uz[j + u * i];
                ar += h[i] * ur[j + u * i];
            }
            z[j] = hard_sigmoid(x * kz[j] + az + bz[j]);
            r[j] = hard_sigmoid(x * kr[j] + ar + br[j]);
        }
        (0..u)
            .map(|j| {
                let mut a = 0.0f32;
                for i in 0..u {
                    a += r[i] * h[i] * uh[j + u * i];
                }
                let c = (x * kh[j] + a + bh[j]).tanh();
                (1.0 - z[j]) * h[j] + z[j] * c
            })
            .collect()
    }
}
