//! Tango AlexNet (`GPU/AlexNet/alexnet_host.cu`, `an_kernel.cu`): inference of one 227 x 227
//! RGB image through five convolutions (conv2, conv4, conv5 in two channel groups, each group
//! its own launch of `execute3DconvolutionCuda` / `execute3Dconvolutiongroup2Cuda`), two
//! LRNs, three max-pools and three fully connected layers, launched exactly as Tango's host
//! does: 55 x 55 maps as four 32 x 32 / 32 x 23 / 23 x 32 / 23 x 23 tiles, 27 x 27 and
//! 13 x 13 maps as one block per channel, FC layers as one single-thread block per neuron
//! (22 launches). Layer kernels: [`super::layers`].
//!
//! Input: NUBA (§6.3, Table 2) runs Tango's default input and lists a 1 MB footprint, far
//! below the default network's own weights, so the suite default is the paper input:
//! image 227, channels 96/256/384/384/256, FC 4096/4096/1000 (238 MB, 95% of it FC
//! weights). Rule 1 of [`crate::scale`] applies: the footprint grows with the square of the
//! layer widths, so every width (channels, FC neurons, classes) shrinks by one common factor
//! (`linear_factor(F, 2)`, then by 1% steps until the whole footprint, activations included,
//! fits; channels rounded to even numbers for the two groups); the image and so every map
//! size, the loops and the launch shapes stay Tango's. Defaults: widths 34/90/136/136/90,
//! FC 1457, 355 classes, 31.5 MiB. Rule 2 not applied: the default run on `coda-4gpu`
//! (103 M warp instructions, 86 M L1 requests) took 220 s of wall time on a host loaded
//! about 17 on 2 cores; its CPU time was not recorded, so whether it stays under a minute
//! on an idle host is not verified.

use super::layers::{out_dim, seq, tiles, Conv, ConvRgb, Fc, Lrn, Pool};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload};
use crate::program::WorkloadError;
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "alexnet",
    suite: "Tango",
    category: "-",
    about: "Tango AlexNet inference: executeFirstLayer, executelrnNormCuda(_split), \
            executepoolingCuda, execute3DconvolutionCuda(+group2), executeFCLayer",
    params: &[
        ParamSpec {
            name: "image",
            default: "227",
            help: "input image side (conv1 11x11 stride 4)",
        },
        ParamSpec {
            name: "c1",
            default: "34",
            help: "conv1 channels (even; Tango 96)",
        },
        ParamSpec {
            name: "c2",
            default: "90",
            help: "conv2 channels (even; Tango 256)",
        },
        ParamSpec {
            name: "c3",
            default: "136",
            help: "conv3 channels (even; Tango 384)",
        },
        ParamSpec {
            name: "c4",
            default: "136",
            help: "conv4 channels (even; Tango 384)",
        },
        ParamSpec {
            name: "c5",
            default: "90",
            help: "conv5 channels (even; Tango 256)",
        },
        ParamSpec {
            name: "fc",
            default: "1457",
            help: "fc6/fc7 neurons (Tango 4096)",
        },
        ParamSpec {
            name: "classes",
            default: "355",
            help: "fc8 outputs (Tango 1000)",
        },
    ],
    build,
};

/// The network's widths and image size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub image: u32,
    pub c: [u32; 5],
    pub fc: u32,
    pub classes: u32,
}

/// Tango's AlexNet.
pub const PAPER: Dims = Dims {
    image: 227,
    c: [96, 256, 384, 384, 256],
    fc: 4096,
    classes: 1000,
};

impl Dims {
    /// Map sides: conv1 output, pool1, pool2, pool3.
    pub fn maps(&self) -> [u32; 4] {
        let o1 = out_dim(self.image, 11, 4, 0);
        let p1 = out_dim(o1, 3, 2, 0);
        let p2 = out_dim(p1, 3, 2, 0);
        let p3 = out_dim(p2, 3, 2, 0);
        [o1, p1, p2, p3]
    }

    /// Bytes of every buffer Tango's host allocates.
    pub fn footprint(&self) -> u64 {
        let [o1, p1, p2, p3] = self.maps().map(|v| v as u64);
        let [c1, c2, c3, c4, c5] = self.c.map(|v| v as u64);
        let (fc, cl, img) = (self.fc as u64, self.classes as u64, self.image as u64);
        let floats = img * img * 3
            + c1 * 363
            + c1
            + 2 * c1 * o1 * o1
            + c1 * p1 * p1
            + c2 * (c1 / 2) * 25
            + c2
            + 2 * c2 * p1 * p1
            + c2 * p2 * p2
            + c3 * c2 * 9
            + c3
            + c3 * p2 * p2
            + c4 * (c3 / 2) * 9
            + c4
            + c4 * p2 * p2
            + c5 * (c4 / 2) * 9
            + c5
            + c5 * p2 * p2
            + c5 * p3 * p3
            + fc * c5 * p3 * p3
            + 2 * fc
            + fc * fc
            + 2 * fc
            + cl * fc
            + 2 * cl;
        floats * 4
    }

    /// The default input: rule 1 of `scale.rs` on the widths (see the module doc).
    pub fn scaled_default() -> Dims {
        let mut f = crate::scale::linear_factor(PAPER.footprint(), 2);
        loop {
            let d = Dims {
                image: PAPER.image,
                c: PAPER.c.map(|c| crate::scale::dim(c as u64, f, 2) as u32),
                fc: crate::scale::dim(PAPER.fc as u64, f, 1) as u32,
                classes: crate::scale::dim(PAPER.classes as u64, f, 1) as u32,
            };
            if d.footprint() <= crate::scale::FOOTPRINT_CAP_BYTES {
                return d;
            }
            f *= 0.99;
        }
    }
}

/// Seeded weights in `[-a, a)` with `a = sqrt(3 / fan_in)`, so activations neither vanish
/// nor explode through the layers.
pub(crate) fn weights(rng: &mut Rng, n: u64, fan_in: u64) -> Vec<f32> {
    let a = (3.0 / fan_in.max(1) as f64).sqrt() as f32;
    (0..n).map(|_| (rng.f32() * 2.0 - 1.0) * a).collect()
}

/// Small seeded biases.
pub(crate) fn biases(rng: &mut Rng, n: u64) -> Vec<f32> {
    (0..n).map(|_| (rng.f32() - 0.5) * 0.1).collect()
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let d = Dims {
        image: p.u64("image", 227)? as u32,
        c: [
            p.u64("c1", 34)? as u32,
            p.u64("c2", 90)? as u32,
            p.u64("c3", 136)? as u32,
            p.u64("c4", 136)? as u32,
            p.u64("c5", 90)? as u32,
        ],
        fc: p.u64("fc", 1457)? as u32,
        classes: p.u64("classes", 355)? as u32,
    };
    if d.image < 11 + 4 * 14 {
        return Err(WorkloadError::Msg(format!(
            "alexnet: image = {} is too small: three 3x3/2 pools after conv1 need image >= 67",
            d.image
        )));
    }
    if d.c.iter().any(|&c| c < 2 || c % 2 != 0) || d.fc == 0 || d.classes == 0 {
        return Err(WorkloadError::Msg(
            "alexnet: c1..c5 must be even and >= 2 (two channel groups), fc and classes >= 1"
                .into(),
        ));
    }
    if d.classes > 1 << 20 || d.fc > 1 << 16 || d.c.iter().any(|&c| c > 4096) {
        return Err(WorkloadError::Msg(
            "alexnet: widths too large (c <= 4096, fc <= 65536)".into(),
        ));
    }
    let (mem, kernels) = network(&d, p.seed);
    Ok(ModelWorkload::new("alexnet", mem, seq(kernels)))
}

/// Allocate and initialise the network and return Tango's launch sequence.
pub fn network(d: &Dims, seed: u64) -> (Memory, Vec<Box<dyn Kernel>>) {
    let mut rng = Rng::new(seed);
    let mut m = Memory::new();
    let [o1, p1, p2, p3] = d.maps();
    let [c1, c2, c3, c4, c5] = d.c;
    let (img, fc, cl) = (d.image as u64, d.fc, d.classes);
    let sq = |v: u32| (v as u64) * (v as u64);
    let x: Vec<f32> = (0..img * img * 3).map(|_| rng.f32()).collect();
    let input = m.alloc_from("Layer1_Neurons", &x, true);
    let w1 = m.alloc_from(
        "Layer1_Weights",
        &weights(&mut rng, c1 as u64 * 363, 363),
        true,
    );
    let b1 = m.alloc_from("Layer1_bias", &biases(&mut rng, c1 as u64), true);
    let conv1 = m.alloc::<f32>("Layer1_Norm", c1 as u64 * sq(o1), false);
    let lrn1 = m.alloc::<f32>("Layer1_pool", c1 as u64 * sq(o1), false);
    let pool1 = m.alloc::<f32>("Layer2_Neurons", c1 as u64 * sq(p1), false);
    let fan2 = (c1 / 2) as u64 * 25;
    let w2 = m.alloc_from(
        "Layer2_Weights",
        &weights(&mut rng, c2 as u64 * fan2, fan2),
        true,
    );
    let b2 = m.alloc_from("Layer2_bias", &biases(&mut rng, c2 as u64), true);
    let conv2 = m.alloc::<f32>("Layer2_Norm", c2 as u64 * sq(p1), false);
    let lrn2 = m.alloc::<f32>("Layer2_pool", c2 as u64 * sq(p1), false);
    let pool2 = m.alloc::<f32>("Layer3_Neurons", c2 as u64 * sq(p2), false);
    let fan3 = c2 as u64 * 9;
    let w3 = m.alloc_from(
        "Layer3_Weights",
        &weights(&mut rng, c3 as u64 * fan3, fan3),
        true,
    );
    let b3 = m.alloc_from("Layer3_bias", &biases(&mut rng, c3 as u64), true);
    let conv3 = m.alloc::<f32>("Layer4_Neurons", c3 as u64 * sq(p2), false);
    let fan4 = (c3 / 2) as u64 * 9;
    let w4 = m.alloc_from(
        "Layer4_Weights",
        &weights(&mut rng, c4 as u64 * fan4, fan4),
        true,
    );
    let b4 = m.alloc_from("Layer4_bias", &biases(&mut rng, c4 as u64), true);
    let conv4 = m.alloc::<f32>("Layer5_Neurons", c4 as u64 * sq(p2), false);
    let fan5 = (c4 / 2) as u64 * 9;
    let w5 = m.alloc_from(
        "Layer5_Weights",
        &weights(&mut rng, c5 as u64 * fan5, fan5),
        true,
    );
    let b5 = m.alloc_from("Layer5_bias", &biases(&mut rng, c5 as u64), true);
    let conv5 = m.alloc::<f32>("Layer5_pool", c5 as u64 * sq(p2), false);
    let pool5 = m.alloc::<f32>("Layer6_Neurons", c5 as u64 * sq(p3), false);
    let fan6 = c5 as u64 * sq(p3);
    let w6 = m.alloc_from(
        "Layer6_Weights",
        &weights(&mut rng, fc as u64 * fan6, fan6),
        true,
    );
    let b6 = m.alloc_from("Layer6_bias", &biases(&mut rng, fc as u64), true);
    let fc6 = m.alloc::<f32>("Layer7_Neurons", fc as u64, false);
    let w7 = m.alloc_from(
        "Layer7_Weights",
        &weights(&mut rng, fc as u64 * fc as u64, fc as u64),
        true,
    );
    let b7 = m.alloc_from("Layer7_bias", &biases(&mut rng, fc as u64), true);
    let fc7 = m.alloc::<f32>("Layer8_Neurons", fc as u64, false);
    let w8 = m.alloc_from(
        "Layer8_Weights",
        &weights(&mut rng, cl as u64 * fc as u64, fc as u64),
        true,
    );
    let b8 = m.alloc_from("Layer8_bias", &biases(&mut rng, cl as u64), true);
    let fc8 = m.alloc::<f32>("Layer9_Neurons", cl as u64, false);

    let mut ks: Vec<Box<dyn Kernel>> = Vec::new();
    for t in tiles(o1, o1) {
        ks.push(Box::new(ConvRgb {
            name: "executeFirstLayer",
            input,
            weights: w1,
            bias: b1,
            output: conv1,
            iw: d.image,
            ow: o1,
            k: 11,
            stride: 4,
            out_c: c1,
            tile: t,
        }));
    }
    let lrn = |name, i, o, c, h, t| -> Box<dyn Kernel> {
        Box::new(Lrn {
            name,
            input: i,
            output: o,
            channels: c,
            h,
            w: h,
            alpha: 0.0001,
            beta: 0.75,
            local: 5,
            tile: t,
        })
    };
    for t in tiles(o1, o1) {
        ks.push(lrn("executelrnNormCuda_split", conv1, lrn1, c1, o1, t));
    }
    let pool = |i, o, c, ih, oh| -> Box<dyn Kernel> {
        Box::new(Pool {
            name: "executepoolingCuda",
            input: i,
            output: o,
            ih,
            iw: ih,
            oh,
            ow: oh,
            k: 3,
            stride: 2,
            pad: 0,
            channels: c,
            avg: false,
            tile: (0, 0, oh, oh),
            tf: 1,
        })
    };
    ks.push(pool(lrn1, pool1, c1, o1, p1));
    // conv2..conv5: 3D convolutions, two groups as two launches where Tango groups
    #[allow(clippy::too_many_arguments)]
    let conv = |ks: &mut Vec<Box<dyn Kernel>>, i, w, b, o, h, k, pad, cin, cout, groups| {
        let (cig, cog) = (cin / groups, cout / groups);
        for g in 0..groups {
            for t in tiles(h, h) {
                ks.push(Box::new(Conv {
                    name: if g == 0 {
                        "execute3DconvolutionCuda"
                    } else {
                        "execute3Dconvolutiongroup2Cuda"
                    },
                    input: i,
                    weights: w,
                    bias: Some(b),
                    output: o,
                    ih: h,
                    iw: h,
                    oh: h,
                    ow: h,
                    k,
                    stride: 1,
                    pad,
                    in_c: cig,
                    in_off: g * cig,
                    out_c: cog,
                    out_off: g * cog,
                    dst_off: 0,
                    relu: true,
                    tile: t,
                    tf: 1,
                }));
            }
        }
    };
    conv(&mut ks, pool1, w2, b2, conv2, p1, 5, 2, c1, c2, 2);
    for t in tiles(p1, p1) {
        ks.push(lrn("executelrnNormCuda", conv2, lrn2, c2, p1, t));
    }
    ks.push(pool(lrn2, pool2, c2, p1, p2));
    conv(&mut ks, pool2, w3, b3, conv3, p2, 3, 1, c2, c3, 1);
    conv(&mut ks, conv3, w4, b4, conv4, p2, 3, 1, c3, c4, 2);
    conv(&mut ks, conv4, w5, b5, conv5, p2, 3, 1, c4, c5, 2);
    ks.push(pool(conv5, pool5, c5, p2, p3));
    let fcl = |i, w, b, o, n, outs, relu| -> Box<dyn Kernel> {
        Box::new(Fc {
            name: "executeFCLayer",
            input: i,
            weights: w,
            bias: Some(b),
            output: o,
            inputs: n,
            outputs: outs,
            relu,
        })
    };
    ks.push(fcl(pool5, w6, b6, fc6, (fan6) as u32, fc, true));
    ks.push(fcl(fc6, w7, b7, fc7, fc, fc, true));
    ks.push(fcl(fc7, w8, b8, fc8, fc, cl, false));
    (m, ks)
}
