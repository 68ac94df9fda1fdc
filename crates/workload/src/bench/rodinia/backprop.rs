//! Rodinia `backprop` (cuda/backprop): one training step of a 3-layer perceptron with `in`
//! input units, 16 hidden units and one output. Two kernels on a grid of `in/16` blocks of
//! 16x16 threads (`dim3 grid(1, in/16)`, `dim3 threads(16, 16)`):
//!
//! - `bpnn_layerforward_CUDA`: block `by` stages 16 input units (`tx == 0` threads) and its
//!   16x16 tile of `input_hidden_cuda` (row `ty + 1 + 16 by`, column `tx + 1` of the
//!   `(in+1) x 17` weight matrix) in shared memory, multiplies, reduces the 16 rows by a
//!   4-step tree (`ty % 2^i == 0`), writes the tile back and stores the 16 column sums in
//!   `hidden_partial_sum[by * 16 + ty]`;
//! - the host sums the partial sums, squashes the hidden layer, runs the output layer and
//!   the error terms on the CPU, copies the original weights back into `input_hidden_cuda`
//!   (as `bpnn_train_cuda` does) and launches
//! - `bpnn_adjust_weights_cuda`: `w += ETA*delta*ly + MOMENTUM*oldw` and the same into
//!   `oldw`, then one row (`ty == 0 && by == 0`) updates the bias weights.
//!
//! Inputs: NDP §5.4 Table 1 runs BPROP with 512K input points (NUBA §6.3 lists 75 MB, the
//! same problem: `in = 524288` gives 75.5 MB); Rodinia's default run is 65536. Every object
//! grows with `in`, so rule 1 of [`crate::scale`] shrinks `in` alone (d = 1) to the 32 MiB
//! cap, rounded to the 16-row tile: `in = 233_008`.

use crate::bench::dense::common::{bad, entry, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "backprop",
    suite: "Rodinia",
    category: "-",
    about: "Rodinia backprop: bpnn_layerforward_CUDA (16x16 tile, shared-memory tree \
            reduction) + bpnn_adjust_weights_cuda, host error terms in between",
    params: &[ParamSpec {
        name: "in",
        default: "233008",
        help: "input units (multiple of 16); NDP's 512K scaled to the 32 MiB cap",
    }],
    build,
};

/// `HEIGHT = WIDTH = 16` and the hidden layer size of Rodinia's `facetrain`.
const H: u64 = 16;
/// `ETA` and `MOMENTUM` of backprop.h.
const ETA: f64 = 0.3;
const MOMENTUM: f64 = 0.3;

/// The NDP input (§5.4): 512K input units.
pub const PAPER_IN: u64 = 512 << 10;

/// Bytes of the device objects for `n` input units.
pub fn footprint(n: u64) -> u64 {
    let w = (n + 1) * (H + 1) * 4;
    (n + 1) * 4 + 2 * w + (n / H) * H * 4 + 2 * (H + 1) * 4
}

/// The default `in` by rule 1 (d = 1, tile 16).
pub fn default_in() -> u64 {
    scale::dim(PAPER_IN, scale::linear_factor(footprint(PAPER_IN), 1), H)
}

/// `bpnn_layerforward_CUDA`: phases 0 stage the input unit, 1 stage the weight, 2 multiply,
/// 3..=6 the four reduction steps, 7 write the tile back, 8 the partial sums.
struct LayerForward {
    input: ObjId,
    input_hidden: ObjId,
    partial: ObjId,
    blocks: u32,
}

/// Shared memory: `input_node[16]` at word 0, `weight_matrix[16][16]` at word 16.
const SH_W: u32 = 16;

impl Kernel for LayerForward {
    fn info(&self) -> KernelInfo {
        kinfo(
            "bpnn_layerforward_CUDA",
            Dim3::new(1, self.blocks, 1),
            Dim3::new(16, 16, 1),
            22,
            (16 + 256) * 4,
        )
    }
    fn phases(&self) -> u32 {
        9
    }
    /// Per thread (sm_70-class SASS, issue 7 §1 counting). Phase 0: entry `MOV; S2R` x3,
    /// the two indices `index`, `index_in` (4 `IMAD`/`IADD3`, 1 `ULDC`), the shared
    /// addresses (1), `ISETP tx == 0` and its branch; `tx == 0` lanes: `IMAD.WIDE`, `LDG`,
    /// `STS`. Phase 1: `IMAD.WIDE`, `LDG`, `STS`. Phase 2: `LDS` x2, `FMUL`, `STS`, then
    /// `MUFU.LG2` of `__log2f(16)` and the loop entry compare. Each reduction step: `I2F`,
    /// `FMUL`, `MUFU.EX2` (`__powf(2, i)`), `F2I`, the signed `ty % power_two` (`IABS`,
    /// `I2F.RP`, `MUFU.RCP`, `F2I`, 6 `IMAD`/`ISETP`/`LOP3`: 9 int + 1 sfu), the predicate
    /// and its branch; active lanes: the neighbour's shared address, `LDS` x2, `FADD`,
    /// `STS`; the loop step (`IADD3`, `I2F`, `FSETP`, `BRA`). Phase 7: `LDS`, `STG`.
    /// Phase 8: `ISETP`, branch, `tx == 0`: the index (`IMAD`, `IMAD.WIDE`), `LDS`, `STG`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let (tx, ty, by) = (t.tid.x as u64, t.tid.y as u64, t.block.y as u64);
        let index = (H + 1) * H * by + (H + 1) * ty + tx + 1 + (H + 1);
        let sw = SH_W + (ty * H + tx) as u32;
        match phase {
            0 => {
                entry(t, 3, 6);
                t.alu(1);
                t.branch(1);
                if tx == 0 {
                    t.alu(1);
                    let v: f32 = t.ld(self.input, H * by + ty + 1);
                    t.sh_st_f32(ty as u32, v);
                }
            }
            1 => {
                t.alu(1);
                let w: f32 = t.ld(self.input_hidden, index);
                t.sh_st_f32(sw, w);
            }
            2 => {
                let w = t.sh_ld_f32(sw);
                let x = t.sh_ld_f32(ty as u32);
                t.fp(1);
                t.sh_st_f32(sw, w * x);
                t.sfu(1);
                t.alu(1);
                t.branch(1);
            }
            3..=6 => {
                let i = phase - 2;
                let p2 = 1u64 << i;
                t.sfu(1);
                t.fp(1);
                t.sfu(1);
                t.sfu(1);
                t.alu(20);
                t.alu(1);
                t.branch(1);
                if ty.is_multiple_of(p2) {
                    t.alu(1);
                    let a = t.sh_ld_f32(sw);
                    let b = t.sh_ld_f32(SH_W + ((ty + p2 / 2) * H + tx) as u32);
                    t.fp(1);
                    t.sh_st_f32(sw, a + b);
                }
                t.alu(2);
                t.fp(1);
                t.branch(1);
            }
            7 => {
                let v = t.sh_ld_f32(sw);
                t.st(self.input_hidden, index, v);
            }
            _ => {
                t.alu(1);
                t.branch(1);
                if tx == 0 {
                    t.alu(2);
                    let v = t.sh_ld_f32(SH_W + ty as u32);
                    t.st(self.partial, by * H + ty, v);
                }
            }
        }
    }
}

/// `bpnn_adjust_weights_cuda`: phase 0 updates the thread's weight, phase 1 (after the
/// `__syncthreads()`) the bias row.
struct AdjustWeights {
    delta: ObjId,
    ly: ObjId,
    w: ObjId,
    oldw: ObjId,
    blocks: u32,
}

/// One `ETA * delta * ly + MOMENTUM * oldw` in double precision as nvcc compiles it
/// (`ETA`, `MOMENTUM` are double literals): `F2F.F64.F32` x3, `DMUL` x2, `DFMA`, `F2F.F32`
/// (conversions count 1 sfu each, docs/workloads.md).
fn adjust(t: &mut Thread<'_>, d: f32, ly: f32, old: f32) -> f32 {
    t.sfu(3);
    t.fp(3);
    t.sfu(1);
    (ETA * d as f64 * ly as f64 + MOMENTUM * old as f64) as f32
}

impl Kernel for AdjustWeights {
    fn info(&self) -> KernelInfo {
        kinfo(
            "bpnn_adjust_weights_cuda",
            Dim3::new(1, self.blocks, 1),
            Dim3::new(16, 16, 1),
            24,
            0,
        )
    }
    fn phases(&self) -> u32 {
        2
    }
    /// Per thread: entry `MOV; S2R` x3 and the indices `index`, `index_y`, `index_x`
    /// (3 int + `ULDC` + 3 `IMAD.WIDE` for the addresses = 7); `LDG` delta, ly, oldw; the
    /// double update ([`adjust`], 7); `LDG w`, `FADD`, `STG w`. The pointers are not
    /// `__restrict__`, so after the store to `w` nvcc reloads delta, ly and oldw for the
    /// second statement: `LDG` x3, [`adjust`], `STG oldw`. Phase 1: `ISETP` x2 and the
    /// branch; the bias row repeats the pattern with `ly` = 1 (`LDG` delta, oldw, w, update,
    /// `STG`, reload delta, oldw, update, `STG`).
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let (tx, ty, by) = (t.tid.x as u64, t.tid.y as u64, t.block.y as u64);
        let index = (H + 1) * H * by + (H + 1) * ty + tx + 1 + (H + 1);
        let index_y = H * by + ty + 1;
        let index_x = tx + 1;
        if phase == 0 {
            entry(t, 3, 7);
            // NDP offload block 0 (spec ndp.md Table 1 BPROP "29, 23", §6.4): the whole
            // update, 7 loads, 2 stores and the double-precision arithmetic on the NSU, no
            // live-in or live-out; every instance reads `delta` (17 floats, the paper's
            // "small constant 68-byte structure") that the GPU caches hold. Our count is
            // 24 NSU instructions (SASS: `F2F` conversions as 1 each; the paper's 29 is its
            // compiler's), block 1 (the bias row, taken by the 16 lanes of `ty == 0` in
            // block 0) 22 against 23.
            t.ofld_begin(0, 0, 24);
            let d: f32 = t.ld(self.delta, index_x);
            let ly: f32 = t.ld(self.ly, index_y);
            let old: f32 = t.ld(self.oldw, index);
            let upd = adjust(t, d, ly, old);
            let w: f32 = t.ld(self.w, index);
            t.fp(1);
            t.st(self.w, index, w + upd);
            let d: f32 = t.ld(self.delta, index_x);
            let ly: f32 = t.ld(self.ly, index_y);
            let old: f32 = t.ld(self.oldw, index);
            let upd = adjust(t, d, ly, old);
            t.st(self.oldw, index, upd);
            t.ofld_end(0);
        } else {
            t.alu(2);
            t.branch(1);
            if ty == 0 && by == 0 {
                t.ofld_begin(1, 0, 22);
                let d: f32 = t.ld(self.delta, index_x);
                let old: f32 = t.ld(self.oldw, index_x);
                let upd = adjust(t, d, 1.0, old);
                let w: f32 = t.ld(self.w, index_x);
                t.fp(1);
                t.st(self.w, index_x, w + upd);
                let d: f32 = t.ld(self.delta, index_x);
                let old: f32 = t.ld(self.oldw, index_x);
                let upd = adjust(t, d, 1.0, old);
                t.st(self.oldw, index_x, upd);
                t.ofld_end(0);
            }
        }
    }
}

fn squash(x: f32) -> f32 {
    (1.0 / (1.0 + (-x as f64).exp())) as f32
}

/// The host side of `bpnn_train_cuda` between the two kernels: hidden layer from the
/// partial sums, output layer, output and hidden error terms (backprop.c). Returns the
/// hidden deltas (index 0 unused, as in Rodinia).
fn host_hidden_delta(
    partial: &[f32],
    bias_w: &[f32],
    hidden_w: &[[f32; 2]],
    target: f32,
) -> Vec<f32> {
    let blocks = partial.len() / H as usize;
    let mut hidden = vec![0f32; H as usize + 1];
    hidden[0] = 1.0;
    for j in 1..=H as usize {
        let mut sum = 0f32;
        for k in 0..blocks {
            sum += partial[k * H as usize + j - 1];
        }
        sum += bias_w[j];
        hidden[j] = squash(sum);
    }
    // output layer (one unit) and its error
    let mut s = 0f32;
    for j in 0..=H as usize {
        s += hidden_w[j][1] * hidden[j];
    }
    let o = squash(s);
    let out_delta = o * (1.0 - o) * (target - o);
    let mut hd = vec![0f32; H as usize + 1];
    for j in 1..=H as usize {
        let h = hidden[j];
        hd[j] = h * (1.0 - h) * (out_delta * hidden_w[j][1]);
    }
    hd
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("in", default_in())?;
    if n == 0 || n % H != 0 {
        return Err(bad(format!(
            "backprop: `in` = {n} must be a positive multiple of 16 (one 16x16 block per 16 input units)"
        )));
    }
    let blocks = (n / H) as u32;
    let mut rng = Rng::new(p.seed);
    // bpnn_create + load(): random input units and weights, zero previous weights
    let mut input = vec![0f32; n as usize + 1];
    for v in input.iter_mut().skip(1) {
        *v = rng.f32();
    }
    let weights: Vec<f32> = (0..(n + 1) * (H + 1)).map(|_| rng.f32()).collect();
    let hidden_w: Vec<[f32; 2]> = (0..=H).map(|_| [rng.f32(), rng.f32()]).collect();
    let mut mem = Memory::new();
    let input_o = mem.alloc_from("input_cuda", &input, true);
    let _output_hidden = mem.alloc::<f32>("output_hidden_cuda", H + 1, false);
    let input_hidden = mem.alloc_from("input_hidden_cuda", &weights, false);
    let partial = mem.alloc::<f32>("hidden_partial_sum", blocks as u64 * H, false);
    let delta = mem.alloc::<f32>("hidden_delta_cuda", H + 1, true);
    let oldw = mem.alloc::<f32>("input_prev_weights_cuda", (n + 1) * (H + 1), false);
    let mut step = 0;
    let host = crate::bench::dense::common::host(move |m: &mut Memory| {
        step += 1;
        match step {
            1 => Some(Box::new(LayerForward {
                input: input_o,
                input_hidden,
                partial,
                blocks,
            }) as Box<dyn Kernel>),
            2 => {
                let ps: Vec<f32> = m.to_vec(partial);
                let bias: Vec<f32> = weights[..=H as usize].to_vec();
                let hd = host_hidden_delta(&ps, &bias, &hidden_w, 0.1);
                for (j, v) in hd.iter().enumerate() {
                    m.set(delta, j as u64, *v);
                }
                // cudaMemcpy(input_hidden_cuda, input_weights_one_dim): the original weights
                for (i, v) in weights.iter().enumerate() {
                    m.set(input_hidden, i as u64, *v);
                }
                Some(Box::new(AdjustWeights {
                    delta,
                    ly: input_o,
                    w: input_hidden,
                    oldw,
                    blocks,
                }))
            }
            _ => None,
        }
    });
    Ok(ModelWorkload::new("backprop", mem, host))
}

/// Host reference of the two kernels (tests): the partial sums of the forward kernel and
/// the adjusted `(w, oldw)` from the original weights, the hidden deltas and the inputs.
#[cfg(test)]
pub(crate) fn reference(
    input: &[f32],
    weights: &[f32],
    hd: &[f32],
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let n = input.len() as u64 - 1;
    let blocks = n / H;
    let hh = H as usize;
    let mut partial = vec![0f32; (blocks * H) as usize];
    for by in 0..blocks as usize {
        for tx in 0..hh {
            // the tree reduction's order: pairwise sums with growing stride
            let mut col: Vec<f32> = (0..hh)
                .map(|ty| {
                    let idx = (hh + 1) * hh * by + (hh + 1) * ty + tx + 1 + (hh + 1);
                    weights[idx] * input[hh * by + ty + 1]
                })
                .collect();
            let mut s = 1;
            while s < hh {
                for ty in (0..hh).step_by(2 * s) {
                    col[ty] += col[ty + s];
                }
                s *= 2;
            }
            partial[by * hh + tx] = col[0];
        }
    }
    let mut w = weights.to_vec();
    let mut oldw = vec![0f32; weights.len()];
    for by in 0..blocks as usize {
        for ty in 0..hh {
            for tx in 0..hh {
                let idx = (hh + 1) * hh * by + (hh + 1) * ty + tx + 1 + (hh + 1);
                let u = (ETA * hd[tx + 1] as f64 * input[hh * by + ty + 1] as f64
                    + MOMENTUM * oldw[idx] as f64) as f32;
                w[idx] += u;
                oldw[idx] = u;
            }
        }
    }
    for tx in 0..hh {
        let u = (ETA * hd[tx + 1] as f64 + MOMENTUM * oldw[tx + 1] as f64) as f32;
        w[tx + 1] += u;
        oldw[tx + 1] = u;
    }
    (partial, w, oldw)
}
