//! SHOC NeuralNet (level 1, `NeuralNet.cu`), the feed-forward kernels
//! `kernelFeedForward1` and `kernelFeedForward2` over SHOC's 784-30-10 network.
//!
//! Which version: the HMS paper evaluates `kernelFeedForward1` (weights G→C, S, T, 2T).
//! In every public SHOC version (github.com/vetter/shoc, master and the hip, mic, openacc
//! branches, 2014-2021) `kernelFeedForward1` is defined in `NeuralNet.cu` but never
//! launched: the feed-forward runs through `cublasSgemm` plus `kernelFeedForward3`. The
//! model therefore launches the kernel as its code implies (it indexes by `threadIdx.x`
//! only): `kernelFeedForward1<<<1, SIZES[k]>>>(zs, SIZES[k - 1], weights, w_off,
//! activations)` and `kernelFeedForward2<<<1, SIZES[k]>>>` (bias and sigmoid) per layer and
//! per image, the per-image path SHOC's test loop would take without cuBLAS. Thread `j` of
//! layer `k` computes `zs[j] = Σ_i weights[w_off + j * SIZES[k - 1] + i] * a[i]`: lanes
//! read weights `SIZES[k - 1]` floats apart (one line each) and the activation as a
//! broadcast; `zs` is not `__restrict__`, so the running sum is stored every step.
//!
//! Inputs: HMS Table IV gives no size; SHOC's network (784, 30, 10) and its mini-batch of
//! 10 images (`MINI_BATCH_SIZE`); pixel values uniform in [0, 1), weights and biases
//! standard-normal-like (SHOC draws them from a Gaussian). Footprint 0.1 MB (rule 1 keeps it).
//!
//! Placement: `--param weights_space=texture|constant` reads the weights through the
//! texture path or constant memory (HMS `weights(G→T)`, `(G→C)`; constant needs the
//! weights to fit in 64 KiB, so a smaller network: `inputs`, `hidden`). Shared placement
//! (`G→S`) is not modelled.

use super::common::{addr_ld, bad, entry, host, kinfo, loop_step, MemSpace};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-neuralnet",
    suite: "SHOC",
    category: "-",
    about: "SHOC NeuralNet kernelFeedForward1 + kernelFeedForward2 per layer and image (784-30-10), weights read row per thread",
    params: &[
        ParamSpec {
            name: "inputs",
            default: "784",
            help: "input layer size (SHOC IMAGE_SIZE)",
        },
        ParamSpec {
            name: "hidden",
            default: "30",
            help: "hidden layer size (SHOC SIZES[1])",
        },
        ParamSpec {
            name: "outputs",
            default: "10",
            help: "output layer size (SHOC SIZES[2])",
        },
        ParamSpec {
            name: "images",
            default: "10",
            help: "images fed forward (SHOC MINI_BATCH_SIZE)",
        },
        ParamSpec {
            name: "weights_space",
            default: "global",
            help: "space of the weights: global | texture | constant (HMS weights(G→T), (G→C))",
        },
    ],
    build,
};

/// `kernelFeedForward1`: `zs[j] = Σ_i w[w_off + j * bound + i] * a[i]`.
struct FeedForward1 {
    zs: ObjId,
    weights: ObjId,
    act: ObjId,
    act_off: u64,
    w_off: u64,
    bound: u64,
    width: u32,
    space: MemSpace,
}

impl Kernel for FeedForward1 {
    fn info(&self) -> KernelInfo {
        kinfo("kernelFeedForward1", Dim3::x(1), Dim3::x(self.width), 16, 0)
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): `MOV; S2R`, the `zs[j]` address
    /// (`IMAD.WIDE`), `STG` of zero, the weight row base (`IMAD`), loop entry `ISETP; BRA`;
    /// per input the weight address (none through a texture), its load, the activation
    /// address and load (a broadcast), `FFMA`, `STG` of the running sum (`zs` may alias the
    /// inputs), loop control.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let j = t.tid.x as u64;
        entry(t, 1, 1, false);
        t.st(self.zs, j, 0f32);
        t.alu(2);
        t.branch(1);
        let mut z = 0f32;
        for i in 0..self.bound {
            let w: f32 = addr_ld(t, self.space, self.weights, self.w_off + j * self.bound + i);
            t.alu(1);
            let a: f32 = t.ld(self.act, self.act_off + i);
            t.fp(1);
            z += w * a;
            t.st(self.zs, j, z);
            loop_step(t);
        }
    }
}

/// `kernelFeedForward2`: `zs[j] += b[b_off + j]; a[j] = 1 / (1 + exp(-zs[j]))`.
struct FeedForward2 {
    zs: ObjId,
    biases: ObjId,
    act: ObjId,
    b_off: u64,
    width: u32,
}

impl Kernel for FeedForward2 {
    fn info(&self) -> KernelInfo {
        kinfo("kernelFeedForward2", Dim3::x(1), Dim3::x(self.width), 16, 0)
    }
    /// Per thread: `MOV; S2R`, the addresses (3), `LDG` x2, `FADD`, `STG`, `expf` (1 sfu +
    /// 2 fp), `FADD`, the division (`MUFU.RCP` + 4 fp), `STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let j = t.tid.x as u64;
        entry(t, 1, 3, false);
        let z: f32 = t.ld(self.zs, j);
        let b: f32 = t.ld(self.biases, self.b_off + j);
        t.fp(1);
        let z = z + b;
        t.st(self.zs, j, z);
        t.sfu(1);
        t.fp(3);
        t.sfu(1);
        t.fp(4);
        t.st(self.act, j, sigmoid(z));
    }
}

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

/// Host reference: the network's output for one image.
#[cfg(test)]
pub(crate) fn host_forward(sizes: &[u64], w: &[f32], b: &[f32], x: &[f32]) -> Vec<f32> {
    let (mut a, mut wo, mut bo) = (x.to_vec(), 0usize, 0usize);
    for k in 1..sizes.len() {
        let (n, m) = (sizes[k] as usize, sizes[k - 1] as usize);
        a = (0..n)
            .map(|j| {
                let z: f32 = (0..m).fold(0f32, |s, i| s + w[wo + j * m + i] * a[i]);
                sigmoid(z + b[bo + j])
            })
            .collect();
        wo += n * m;
        bo += n;
    }
    a
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let sizes = [
        p.u64("inputs", 784)?,
        p.u64("hidden", 30)?,
        p.u64("outputs", 10)?,
    ];
    let images = p.u64("images", 10)?;
    let space = MemSpace::param(
        p,
        "weights_space",
        MemSpace::Global,
        &[MemSpace::Global, MemSpace::Texture, MemSpace::Constant],
    )?;
    if sizes.contains(&0) || sizes[1] > 1024 || sizes[2] > 1024 || images == 0 {
        return Err(bad(
            "shoc-neuralnet: layer sizes >= 1 (hidden and outputs at most 1024), images >= 1"
                .into(),
        ));
    }
    let nw = sizes[0] * sizes[1] + sizes[1] * sizes[2];
    if space == MemSpace::Constant && nw * 4 > 64 << 10 {
        return Err(bad(format!(
            "parameter `weights_space` = `constant`: the weights ({} B) exceed the 64 KiB constant memory; shrink `inputs`/`hidden`",
            nw * 4
        )));
    }
    let mut rng = Rng::new(p.seed);
    // a Gaussian by the sum of 12 uniforms (SHOC draws weights and biases from N(0, 1))
    let mut gauss = || (0..12).map(|_| rng.f32()).sum::<f32>() - 6.0;
    let wv: Vec<f32> = (0..nw).map(|_| gauss()).collect();
    let bv: Vec<f32> = (0..sizes[1] + sizes[2]).map(|_| gauss()).collect();
    let mut rng2 = Rng::new(p.seed ^ 0x5eed);
    let xv: Vec<f32> = (0..images * sizes[0]).map(|_| rng2.f32()).collect();
    let mut m = Memory::new();
    let weights = m.alloc_from("D__WEIGHTS", &wv, true);
    let biases = m.alloc_from("D__BIASES", &bv, true);
    let x = m.alloc_from("training_data_x", &xv, true);
    let zs = [
        m.alloc::<f32>("zs1", sizes[1], false),
        m.alloc::<f32>("zs2", sizes[2], false),
    ];
    let acts = [
        m.alloc::<f32>("activations1", sizes[1], false),
        m.alloc::<f32>("activations2", images * sizes[2], false),
    ];
    let mut step = 0u64;
    let h = host(move |_m: &mut Memory| {
        if step >= images * 4 {
            return None;
        }
        let (img, layer, second) = (step / 4, ((step % 4) / 2) as usize, step % 2 == 1);
        step += 1;
        let k = layer + 1;
        let w_off = if layer == 0 { 0 } else { sizes[0] * sizes[1] };
        let b_off = if layer == 0 { 0 } else { sizes[1] };
        let width = sizes[k] as u32;
        // the last layer's activations are kept per image
        let out_off = if layer == 1 { img * sizes[2] } else { 0 };
        Some(if !second {
            let (act, act_off) = if layer == 0 {
                (x, img * sizes[0])
            } else {
                (acts[0], 0)
            };
            Box::new(FeedForward1 {
                zs: zs[layer],
                weights,
                act,
                act_off,
                w_off,
                bound: sizes[k - 1],
                width,
                space,
            }) as Box<dyn Kernel>
        } else {
            Box::new(FeedForward2Out {
                inner: FeedForward2 {
                    zs: zs[layer],
                    biases,
                    act: acts[layer],
                    b_off,
                    width,
                },
                out_off,
            })
        })
    });
    Ok(ModelWorkload::new("shoc-neuralnet", m, h))
}

/// `kernelFeedForward2` writing its activations at `out_off` (SHOC passes
/// `&activations[I * SIZES[k]]`).
struct FeedForward2Out {
    inner: FeedForward2,
    out_off: u64,
}

impl Kernel for FeedForward2Out {
    fn info(&self) -> KernelInfo {
        self.inner.info()
    }
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let k = &self.inner;
        if self.out_off == 0 {
            return k.thread(t, phase);
        }
        let j = t.tid.x as u64;
        entry(t, 1, 3, false);
        let z: f32 = t.ld(k.zs, j);
        let b: f32 = t.ld(k.biases, k.b_off + j);
        t.fp(1);
        let z = z + b;
        t.st(k.zs, j, z);
        t.sfu(1);
        t.fp(3);
        t.sfu(1);
        t.fp(4);
        t.st(k.act, self.out_off + j, sigmoid(z));
    }
}
