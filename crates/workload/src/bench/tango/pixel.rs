//! Tango's per-pixel layer kernels (SqueezeNet, `GPU/SqueezeNet/squeezenet.cu`): double
//! precision activations and weights, **one thread per output pixel** (`threadIdx.x` = row,
//! `blockIdx.x` = column, so consecutive lanes walk down a column, 8-byte elements one map
//! row apart: uncoalesced), and each thread loops over **every output channel** and, per
//! channel, over the input channels. These are the pieces SqueezeNet is built from: the
//! first 7 x 7 / 2 convolution over int R, G, B planes ([`FirstConv`]), 1 x 1 convolutions
//! (squeeze, expand 1 x 1, conv10: [`Conv1x1`]), the expand 3 x 3 convolution with zero
//! padding ([`Conv3x3`]), the 3 x 3 / 2 max pooling run by odd threads only ([`MaxPool`]),
//! the global average pooling ([`GlobalAvgPool`]) and a fire module's three launches
//! ([`fire`]).
//!
//! Phases: a thread of these kernels runs hundreds of thousands of instructions (conv10:
//! 1000 channels x 512 inputs), which the kernel API would hold per lane in host memory, so
//! each output channel is one phase: the model issues one barrier per output channel and
//! warp that the real kernels do not have (under 0.2% of their instructions).
//!
//! Instruction counts (issue 7 §1 rules) are given per kernel; the loops over input
//! channels have constant trip counts and are taken as unrolled by 4 (`IADD3; ISETP; BRA`
//! per 4 iterations), the 3 x 3 windows fully unrolled. Multiply-adds are `DFMA` on the GPU;
//! the model and its host references both round the product and the sum separately.

use super::layers::kinfo;
use crate::model::{Kernel, Thread};
use crate::program::{Dim3, KernelInfo, ObjId};

/// Loop control of a loop unrolled by 4, recorded once per 4 iterations and at the end.
#[track_caller]
fn unrolled_step(t: &mut Thread<'_>, n: u32, trips: u32) {
    if n % 4 == 3 || n + 1 == trips {
        t.alu(2);
        t.branch(1);
    }
}

/// Tango SqueezeNet's `ExecuteFirstLayer`: a `k` x `k`, stride-2 convolution of the int R,
/// G, B planes (`side` x `side`) with double weights `[out][3][k][k]`, ReLU, no bias; grid
/// = output columns, block = output rows; thread `(x, y) = (2 tid + k/2, 2 bid + k/2)`
/// loops over the `out_c` output channels (one phase each).
///
/// Per output channel and window element: 3 int loads (`LDG`), 3 weight loads (`LDG.64`),
/// 3 `I2F.F64` (sfu), `DMUL` + 2 `DFMA` + `DADD` (4 fp), the four bounds tests (4 int, they
/// never fail), the addresses (3 int); per window row the loop control; per channel the
/// ReLU (2 fp), the address (2 int) and `STG.64`.
pub struct FirstConv {
    pub r: ObjId,
    pub g: ObjId,
    pub b: ObjId,
    pub weights: ObjId,
    pub output: ObjId,
    pub side: u32,
    pub out_side: u32,
    pub k: u32,
    pub out_c: u32,
}

impl Kernel for FirstConv {
    fn info(&self) -> KernelInfo {
        kinfo(
            "ExecuteFirstLayer",
            Dim3::x(self.out_side),
            Dim3::x(self.out_side),
            40,
            0,
        )
    }
    fn phases(&self) -> u32 {
        self.out_c
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.output])
    }
    fn thread(&self, t: &mut Thread<'_>, f: u32) {
        let h = (self.k / 2) as i64;
        let x = t.tid.x as i64 * 2 + h;
        let y = t.block.x as i64 * 2 + h;
        let (side, k) = (self.side as i64, self.k as u64);
        if f == 0 {
            t.alu(6);
        }
        let fk = f as u64 * 3 * k * k;
        let mut result = 0f64;
        for i in x - h..=x + h {
            for j in y - h..=y + h {
                t.alu(4);
                t.branch(1);
                if i < 0 || j < 0 || i >= side || j >= side {
                    continue;
                }
                let m = ((j - y + h) + (i - x + h) * k as i64) as u64;
                let p = (i * side + j) as u64;
                t.alu(3);
                let rv: i32 = t.ld(self.r, p);
                let wr: f64 = t.ld(self.weights, m + fk);
                let gv: i32 = t.ld(self.g, p);
                let wg: f64 = t.ld(self.weights, m + k * k + fk);
                let bv: i32 = t.ld(self.b, p);
                let wb: f64 = t.ld(self.weights, m + 2 * k * k + fk);
                t.sfu(3);
                t.fp(4);
                result += rgb_term(rv, wr, gv, wg, bv, wb);
            }
            t.alu(2);
            t.branch(1);
        }
        t.fp(2);
        if result < 0.0 {
            result = 0.0;
        }
        t.alu(2);
        let os = self.out_side as u64;
        let o = f as u64 * os * os + ((x - h) / 2) as u64 * os + ((y - h) / 2) as u64;
        t.st(self.output, o, result);
    }
}

/// One window element of the first layer: `R w_r + G w_g + B w_b`.
#[inline]
pub fn rgb_term(r: i32, wr: f64, g: i32, wg: f64, b: i32, wb: f64) -> f64 {
    r as f64 * wr + g as f64 * wg + b as f64 * wb
}

/// Tango SqueezeNet's 1 x 1 convolution kernels (`Executefire*squeeze1x1`,
/// `Executefire*expand1x1`, `ExecuteTenthLayer`): thread `(x, y)` = (row, column) of an
/// `h` x `w` map computes, per output channel `f` (one phase each), `sum_n in[n][x][y] *
/// W[f][n]`, ReLU, and stores channel `dst_off + f`; `bias` (fire8's squeeze) adds
/// `W[bias + f]` after the ReLU. `border` (conv10) runs a `(h + 2)`-side grid whose border
/// threads do nothing and whose interior threads read pixel `(x - 1, y - 1)` and write a
/// `(h + 2)`-side map.
///
/// Per output channel: per input channel 2 int (the two addresses advance), `LDG.64` x2,
/// `DFMA`, loop control per 4; then the ReLU (2 fp), the bias load and `DADD` if any, the
/// address (2 int) and `STG.64`, the channel loop control (2 int, `BRA`).
pub struct Conv1x1 {
    pub name: &'static str,
    pub input: ObjId,
    pub weights: ObjId,
    pub output: ObjId,
    pub h: u32,
    pub w: u32,
    pub in_c: u32,
    pub out_c: u32,
    pub dst_off: u32,
    pub bias: Option<u64>,
    pub border: bool,
}

impl Kernel for Conv1x1 {
    fn info(&self) -> KernelInfo {
        let e = if self.border { 2 } else { 0 };
        kinfo(self.name, Dim3::x(self.w + e), Dim3::x(self.h + e), 32, 0)
    }
    fn phases(&self) -> u32 {
        self.out_c
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.output])
    }
    fn thread(&self, t: &mut Thread<'_>, f: u32) {
        let (x, y) = (t.tid.x, t.block.x);
        if f == 0 {
            t.alu(4);
        }
        let (px, py, ow, oh) = if self.border {
            t.alu(4);
            t.branch(1);
            if x == 0 || y == 0 || x == self.h + 1 || y == self.w + 1 {
                return;
            }
            (x - 1, y - 1, self.w + 2, self.h + 2)
        } else {
            (x, y, self.w, self.h)
        };
        let (h, w) = (self.h as u64, self.w as u64);
        let pix = px as u64 * w + py as u64;
        let n_in = self.in_c as u64;
        let mut acc = 0f64;
        for n in 0..self.in_c {
            t.alu(2);
            let a: f64 = t.ld(self.input, n as u64 * h * w + pix);
            let b: f64 = t.ld(self.weights, f as u64 * n_in + n as u64);
            t.fp(1);
            acc += a * b;
            unrolled_step(t, n, self.in_c);
        }
        t.fp(2);
        if acc < 0.0 {
            acc = 0.0;
        }
        if let Some(bias) = self.bias {
            let b: f64 = t.ld(self.weights, bias + f as u64);
            t.fp(1);
            acc += b;
        }
        t.alu(2);
        let ch = (self.dst_off + f) as u64;
        let o = ch * oh as u64 * ow as u64 + x as u64 * ow as u64 + y as u64;
        t.st(self.output, o, acc);
        t.alu(2);
        t.branch(1);
    }
}

/// Tango SqueezeNet's `Executefire*expand3x3`: a 3 x 3 convolution with zero padding over an
/// `h` x `w` map, weights `[out][in][3][3]`, ReLU; thread (row, column); per output channel
/// (one phase) and input channel the nine taps accumulate into `result` (the borders add
/// 0 without loading), then `Features += result`; output channel `dst_off + f` (the
/// expand outputs are concatenated after the 1 x 1 ones).
///
/// Per input channel and tap: the two bounds tests (4 int, `BRA`), for an inside tap the
/// addresses (2 int), `LDG.64` x2 and `DFMA`; per input channel `DADD` and the loop control
/// per 4; per output channel the ReLU (2 fp), the address (2 int), `STG.64` and the loop
/// control.
pub struct Conv3x3 {
    pub name: &'static str,
    pub input: ObjId,
    pub weights: ObjId,
    pub output: ObjId,
    pub h: u32,
    pub w: u32,
    pub in_c: u32,
    pub out_c: u32,
    pub dst_off: u32,
}

impl Kernel for Conv3x3 {
    fn info(&self) -> KernelInfo {
        kinfo(self.name, Dim3::x(self.w), Dim3::x(self.h), 40, 0)
    }
    fn phases(&self) -> u32 {
        self.out_c
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.output])
    }
    fn thread(&self, t: &mut Thread<'_>, f: u32) {
        let (x, y) = (t.tid.x as i64, t.block.x as i64);
        let (h, w) = (self.h as i64, self.w as i64);
        if f == 0 {
            t.alu(4);
        }
        let n_in = self.in_c as u64;
        let mut features = 0f64;
        for n in 0..self.in_c {
            let mut result = 0f64;
            for i in x - 1..=x + 1 {
                for j in y - 1..=y + 1 {
                    t.alu(4);
                    t.branch(1);
                    if i < 0 || j < 0 || j > w - 1 || i > h - 1 {
                        continue;
                    }
                    let m = ((j - y + 1) + (i - x + 1) * 3) as u64;
                    t.alu(2);
                    let a: f64 = t.ld(self.input, (n as i64 * h * w + i * w + j) as u64);
                    let b: f64 = t.ld(self.weights, m + f as u64 * 9 * n_in + n as u64 * 9);
                    t.fp(1);
                    result += a * b;
                }
            }
            t.fp(1);
            features += result;
            unrolled_step(t, n, self.in_c);
        }
        t.fp(2);
        if features < 0.0 {
            features = 0.0;
        }
        t.alu(2);
        let ch = (self.dst_off + f) as i64;
        t.st(self.output, (ch * h * w + x * w + y) as u64, features);
        t.alu(2);
        t.branch(1);
    }
}

/// Tango SqueezeNet's `pooling1` / `pooling4` / `pooling8`: 3 x 3 / 2 max pooling of
/// `channels` maps of side `n`, one thread per *input* pixel (block = rows, grid =
/// columns); only threads with an odd row and column work, each looping over every channel
/// (window trimmed at the last row/column, maximum from 0), output pixel
/// `((row - 1) / 2, (col - 1) / 2)` of an `(n - 1) / 2`-side map. The other threads exit
/// (the compiler drops their empty channel loop).
///
/// Per thread: entry and the parity tests (4 int, `BRA`); per channel and window element
/// the bound test (1 int, `BRA`), the address (1 int), `LDG.64`, the compare and select (2
/// fp); per channel the address (2 int), `STG.64` and the loop control.
pub struct MaxPool {
    pub name: &'static str,
    pub input: ObjId,
    pub output: ObjId,
    pub n: u32,
    pub channels: u32,
}

impl MaxPool {
    /// Output side.
    pub fn out_side(n: u32) -> u32 {
        (n - 1) / 2
    }
}

impl Kernel for MaxPool {
    fn info(&self) -> KernelInfo {
        kinfo(self.name, Dim3::x(self.n), Dim3::x(self.n), 24, 0)
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.output])
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (row, col) = (t.tid.x as u64, t.block.x as u64);
        t.alu(4);
        t.branch(1);
        if row % 2 == 0 || col % 2 == 0 {
            return;
        }
        let n = self.n as u64;
        let o = Self::out_side(self.n) as u64;
        for c in 0..self.channels as u64 {
            let mut max = 0f64;
            for i in row - 1..=row + 1 {
                t.alu(1);
                t.branch(1);
                if i > n - 1 {
                    break;
                }
                for j in col - 1..=col + 1 {
                    t.alu(1);
                    t.branch(1);
                    if j > n - 1 {
                        break;
                    }
                    t.alu(1);
                    let v: f64 = t.ld(self.input, c * n * n + i * n + j);
                    t.fp(2);
                    if max < v {
                        max = v;
                    }
                }
            }
            t.alu(2);
            t.st(
                self.output,
                c * o * o + (row - 1) / 2 * o + (col - 1) / 2,
                max,
            );
            t.alu(2);
            t.branch(1);
        }
    }
}

/// Tango SqueezeNet's `global_pooling`: one block of `classes` threads, thread `c` sums
/// `side` rows of `side + 1` elements from `c * side^2` (the kernel's `j <= 15` reads one
/// element past each row: the next row's first, and after the last row the next map's
/// first; the input object has one padding element so the last thread's read stays in
/// it) and stores `sum / side^2`.
///
/// Per thread: entry (3 int); per element 1 int, `LDG.64`, `DADD`, loop control per 4
/// (the inner loop of 16 is unrolled by 4); then the division (`MUFU.RCP64H` + 8 fp), 2
/// int and `STG.64`.
pub struct GlobalAvgPool {
    pub input: ObjId,
    pub output: ObjId,
    pub classes: u32,
    pub side: u32,
}

impl Kernel for GlobalAvgPool {
    fn info(&self) -> KernelInfo {
        kinfo("global_pooling", Dim3::x(1), Dim3::x(self.classes), 16, 0)
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.output])
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.tid.x as u64;
        let s = self.side as u64;
        t.alu(3);
        let mut avg = 0f64;
        for i in 0..s {
            for j in 0..=s {
                t.alu(1);
                let v: f64 = t.ld(self.input, tid * s * s + i * s + j);
                t.fp(1);
                avg += v;
                unrolled_step(t, j as u32, s as u32 + 1);
            }
            t.alu(2);
            t.branch(1);
        }
        t.sfu(1);
        t.fp(8);
        t.alu(2);
        t.st(self.output, tid, avg / (s * s) as f64);
    }
}

/// The objects and widths of one fire module.
#[derive(Clone, Copy, Debug)]
pub struct Fire {
    /// Module number (2..=9), for the kernel names.
    pub id: u32,
    pub input: ObjId,
    pub squeeze_w: ObjId,
    pub squeeze_out: ObjId,
    pub expand1_w: ObjId,
    pub expand3_w: ObjId,
    pub output: ObjId,
    /// Map side.
    pub side: u32,
    pub in_c: u32,
    pub squeeze: u32,
    pub expand: u32,
    /// fire8's squeeze adds a bias stored after its weights.
    pub squeeze_bias: bool,
}

/// The kernel names of fire modules 2..=9 (squeeze, expand 1x1, expand 3x3).
const FIRE_NAMES: [[&str; 3]; 8] = [
    [
        "Executefire2squeeze1x1",
        "Executefire2expand1x1",
        "Executefire2expand3x3",
    ],
    [
        "Executefire3squeeze1x1",
        "Executefire3expand1x1",
        "Executefire3expand3x3",
    ],
    [
        "Executefire4squeeze1x1",
        "Executefire4expand1x1",
        "Executefire4expand3x3",
    ],
    [
        "Executefire5squeeze1x1",
        "Executefire5expand1x1",
        "Executefire5expand3x3",
    ],
    [
        "Executefire6squeeze1x1",
        "Executefire6expand1x1",
        "Executefire6expand3x3",
    ],
    [
        "Executefire7squeeze1x1",
        "Executefire7expand1x1",
        "Executefire7expand3x3",
    ],
    [
        "Executefire8squeeze1x1",
        "Executefire8expand1x1",
        "Executefire8expand3x3",
    ],
    [
        "Executefire9squeeze1x1",
        "Executefire9expand1x1",
        "Executefire9expand3x3",
    ],
];

/// A fire module as Tango's host launches it: squeeze 1 x 1 (ReLU), expand 1 x 1 into
/// channels `0..expand` of the output and expand 3 x 3 into channels `expand..2 expand`
/// (the host passes `fire_Features + side^2 * expand`), all on a `side`-column grid of
/// `side`-row blocks.
pub fn fire(m: &Fire) -> Vec<Box<dyn Kernel>> {
    let names = FIRE_NAMES[(m.id - 2) as usize];
    vec![
        Box::new(Conv1x1 {
            name: names[0],
            input: m.input,
            weights: m.squeeze_w,
            output: m.squeeze_out,
            h: m.side,
            w: m.side,
            in_c: m.in_c,
            out_c: m.squeeze,
            dst_off: 0,
            bias: m.squeeze_bias.then_some(m.squeeze as u64 * m.in_c as u64),
            border: false,
        }),
        Box::new(Conv1x1 {
            name: names[1],
            input: m.squeeze_out,
            weights: m.expand1_w,
            output: m.output,
            h: m.side,
            w: m.side,
            in_c: m.squeeze,
            out_c: m.expand,
            dst_off: 0,
            bias: None,
            border: false,
        }),
        Box::new(Conv3x3 {
            name: names[2],
            input: m.squeeze_out,
            weights: m.expand3_w,
            output: m.output,
            h: m.side,
            w: m.side,
            in_c: m.squeeze,
            out_c: m.expand,
            dst_off: m.expand,
        }),
    ]
}

/// Host references of the per-pixel layers (plain loops in the kernels' summation order).
pub mod reference {
    /// The first layer: `out_c` maps of side `(side - k) / 2 + 1`.
    pub fn first_conv(
        r: &[i32],
        g: &[i32],
        b: &[i32],
        side: usize,
        w: &[f64],
        k: usize,
        out_c: usize,
    ) -> Vec<f64> {
        let os = (side - k) / 2 + 1;
        let mut y = vec![0f64; out_c * os * os];
        for f in 0..out_c {
            for ox in 0..os {
                for oy in 0..os {
                    let mut acc = 0f64;
                    for di in 0..k {
                        for dj in 0..k {
                            let p = (2 * ox + di) * side + 2 * oy + dj;
                            let m = dj + di * k;
                            let base = f * 3 * k * k;
                            acc += super::rgb_term(
                                r[p],
                                w[m + base],
                                g[p],
                                w[m + k * k + base],
                                b[p],
                                w[m + 2 * k * k + base],
                            );
                        }
                    }
                    y[f * os * os + ox * os + oy] = acc.max(0.0);
                }
            }
        }
        y
    }

    /// A 1 x 1 convolution with ReLU (and a bias added after it, fire8's squeeze).
    pub fn conv1x1(
        x: &[f64],
        in_c: usize,
        hw: usize,
        w: &[f64],
        out_c: usize,
        bias: Option<&[f64]>,
    ) -> Vec<f64> {
        let mut y = vec![0f64; out_c * hw];
        for f in 0..out_c {
            for p in 0..hw {
                let mut acc = 0f64;
                for n in 0..in_c {
                    acc += x[n * hw + p] * w[f * in_c + n];
                }
                acc = acc.max(0.0);
                if let Some(b) = bias {
                    acc += b[f];
                }
                y[f * hw + p] = acc;
            }
        }
        y
    }

    /// A zero-padded 3 x 3 convolution with ReLU on `h` x `w` maps.
    pub fn conv3x3(
        x: &[f64],
        in_c: usize,
        h: usize,
        wd: usize,
        w: &[f64],
        out_c: usize,
    ) -> Vec<f64> {
        let mut y = vec![0f64; out_c * h * wd];
        for f in 0..out_c {
            for r in 0..h as i64 {
                for c in 0..wd as i64 {
                    let mut feat = 0f64;
                    for n in 0..in_c {
                        let mut res = 0f64;
                        for i in r - 1..=r + 1 {
                            for j in c - 1..=c + 1 {
                                if i < 0 || j < 0 || i >= h as i64 || j >= wd as i64 {
                                    continue;
                                }
                                let m = ((j - c + 1) + (i - r + 1) * 3) as usize;
                                res += x[n * h * wd + i as usize * wd + j as usize]
                                    * w[m + f * 9 * in_c + n * 9];
                            }
                        }
                        feat += res;
                    }
                    y[f * h * wd + r as usize * wd + c as usize] = feat.max(0.0);
                }
            }
        }
        y
    }

    /// 3 x 3 / 2 max pooling from 0 of `c` maps of side `n`.
    pub fn max_pool(x: &[f64], c: usize, n: usize) -> Vec<f64> {
        let o = (n - 1) / 2;
        let mut y = vec![0f64; c * o * o];
        for ch in 0..c {
            for r in 0..o {
                for q in 0..o {
                    let mut m = 0f64;
                    for i in 2 * r..(2 * r + 3).min(n) {
                        for j in 2 * q..(2 * q + 3).min(n) {
                            let v = x[ch * n * n + i * n + j];
                            if m < v {
                                m = v;
                            }
                        }
                    }
                    y[ch * o * o + r * o + q] = m;
                }
            }
        }
        y
    }
}
