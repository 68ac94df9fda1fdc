//! Tango ResNet (`GPU/ResNet/rn_host.cu`, `rn_kernel.cu`): ResNet-50 inference on one
//! 224 x 224 image as Tango's host launches it. Every convolution
//! (`execute3DconvolutionCuda`, or `execute3DconvolutionCuda_split` with `tfactor` outputs
//! per thread and dimension on maps larger than 32) has no bias and is followed by its own
//! batch-norm (`executeBnNormLayerCUDA(_split)`) and scale (`executeScaleLayerCUDA(_split)`)
//! launches, in place, and a ReLU launch (`executeReLULayerCUDA(_split)`) where the network
//! has one; each bottleneck ends with `executeEltWiseLayerCUDA(_split)` (the residual sum)
//! and a ReLU. conv1 7x7/2, max pool 3x3/2, stages of 3, 4, 6, 3 bottlenecks (1x1, 3x3,
//! 1x1; the first block of a stage has a 1x1 projection, strides in its 1x1 convolutions as
//! in Caffe's ResNet-50), average pool 7x7 (`poolingAverageCUDA`, one thread per channel)
//! and `executeFCLayerCUDA`. Layer kernels: [`super::layers`].
//!
//! Input: NUBA (§6.3) runs Tango's default (ResNet-50, widths 64..2048, 1000 classes) and
//! lists a 4 MB footprint, far below the network's own weights. Rule 1 of [`crate::scale`]:
//! the footprint (one buffer per layer output, as the host allocates them) grows with the
//! square of the widths, so the base width `w` (64; stage widths `w, 2w, 4w, 8w`, outputs 4x)
//! and the classes shrink by one common factor until it fits (w 21, 340 classes). Rule 2
//! then applies: 4.1 G multiply-adds times the factor squared is about 110 M warp
//! instructions for the convolutions alone (8 per multiply-add and lane), above AlexNet's
//! whole default (103 M), plus 171 element-wise launches; the widths halve once: `w` = 10,
//! 170 classes, 76 M warp instructions (the image, the maps and the launch shapes stay
//! Tango's). Its timed default run on `coda-4gpu` did not complete on the loaded host, so
//! whether a second halving is needed is not verified.

use super::alexnet::{biases, weights};
use super::layers::{seq, Conv, EltOp, Eltwise, Fc, Pool};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload};
use crate::program::{ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "resnet",
    suite: "Tango",
    category: "-",
    about: "Tango ResNet-50 inference: execute3DconvolutionCuda(_split), \
            executeBnNormLayerCUDA, executeScaleLayerCUDA, executeReLULayerCUDA, \
            executeEltWiseLayerCUDA, executepoolingCuda, poolingAverageCUDA, executeFCLayerCUDA",
    params: &[
        ParamSpec {
            name: "image",
            default: "224",
            help: "input image side (multiple of 32)",
        },
        ParamSpec {
            name: "w",
            default: "10",
            help: "base width: conv1 and stage-1 channels (Tango 64)",
        },
        ParamSpec {
            name: "classes",
            default: "170",
            help: "fc outputs (Tango 1000)",
        },
    ],
    build,
};

/// ResNet-50's bottlenecks per stage.
pub const BLOCKS: [u32; 4] = [3, 4, 6, 3];

/// The network's dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub image: u32,
    pub w: u32,
    pub classes: u32,
}

/// Tango's ResNet-50.
pub const PAPER: Dims = Dims {
    image: 224,
    w: 64,
    classes: 1000,
};

/// One layer of the plan (for the footprint and the launches).
#[derive(Clone, Copy, Debug)]
struct ConvShape {
    cin: u32,
    cout: u32,
    k: u32,
    stride: u32,
    pad: u32,
    ih: u32,
    oh: u32,
}

/// The convolutions in order: conv1, then per bottleneck (projection if any), 2a, 2b, 2c.
fn convs(d: &Dims) -> Vec<(String, ConvShape)> {
    let mut v = Vec::new();
    let s1 = d.image / 2;
    v.push((
        "conv1".to_string(),
        ConvShape {
            cin: 3,
            cout: d.w,
            k: 7,
            stride: 2,
            pad: 3,
            ih: d.image,
            oh: s1,
        },
    ));
    let mut f = s1 / 2;
    let mut cin = d.w;
    for (s, &n) in BLOCKS.iter().enumerate() {
        let mid = d.w << s;
        let out = 4 * mid;
        for b in 0..n {
            let stride = if b == 0 && s > 0 { 2 } else { 1 };
            let of = f / stride;
            let tag = format!("res{}{}", s + 2, (b'a' + b as u8) as char);
            let c = |cin, cout, k, stride, pad, ih, oh| ConvShape {
                cin,
                cout,
                k,
                stride,
                pad,
                ih,
                oh,
            };
            if b == 0 {
                v.push((format!("{tag}_branch1"), c(cin, out, 1, stride, 0, f, of)));
            }
            v.push((format!("{tag}_branch2a"), c(cin, mid, 1, stride, 0, f, of)));
            v.push((format!("{tag}_branch2b"), c(mid, mid, 3, 1, 1, of, of)));
            v.push((format!("{tag}_branch2c"), c(mid, out, 1, 1, 0, of, of)));
            cin = out;
            f = of;
        }
    }
    v
}

impl Dims {
    /// Bytes of every buffer: image, weights, BN/scale parameters, one output per
    /// convolution and residual sum, pools, FC.
    pub fn footprint(&self) -> u64 {
        let mut floats = 3 * (self.image as u64).pow(2);
        let mut blocks = 0u64;
        let mut last_c = 0;
        for (name, c) in convs(self) {
            floats += (c.cout * c.cin * c.k * c.k) as u64 + 4 * c.cout as u64;
            floats += c.cout as u64 * (c.oh as u64).pow(2);
            if name.ends_with("2c") {
                blocks += 1;
                floats += c.cout as u64 * (c.oh as u64).pow(2);
            }
            if name == "conv1" {
                floats += c.cout as u64 * (c.oh as u64 / 2).pow(2);
            }
            last_c = c.cout;
        }
        debug_assert_eq!(blocks, 16);
        floats += last_c as u64 + last_c as u64 * self.classes as u64 + self.classes as u64;
        floats * 4
    }

    /// Rule 1 of `scale.rs` on the widths (see the module doc), before rule 2.
    pub fn rule1() -> Dims {
        let mut f = crate::scale::linear_factor(PAPER.footprint(), 2);
        loop {
            let d = Dims {
                image: PAPER.image,
                w: crate::scale::dim(PAPER.w as u64, f, 1) as u32,
                classes: crate::scale::dim(PAPER.classes as u64, f, 1) as u32,
            };
            if d.footprint() <= crate::scale::FOOTPRINT_CAP_BYTES {
                return d;
            }
            f *= 0.99;
        }
    }

    /// The default: rule 1, then rule 2 (the widths halve once).
    pub fn scaled_default() -> Dims {
        let d = Self::rule1();
        Dims {
            w: d.w / 2,
            classes: d.classes / 2,
            ..d
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let d = Dims {
        image: p.u64("image", 224)? as u32,
        w: p.u64("w", 10)? as u32,
        classes: p.u64("classes", 170)? as u32,
    };
    if d.image < 32 || !d.image.is_multiple_of(32) || d.image > 1024 {
        return Err(WorkloadError::Msg(format!(
            "resnet: image = {} must be a multiple of 32 in 32..=1024 (five halvings)",
            d.image
        )));
    }
    if d.w == 0 || d.w > 256 || d.classes == 0 || d.classes > 1 << 16 {
        return Err(WorkloadError::Msg(
            "resnet: need 1 <= w <= 256 and 1 <= classes <= 65536".into(),
        ));
    }
    let (mem, ks) = network(&d, p.seed);
    Ok(ModelWorkload::new("resnet", mem, seq(ks)))
}

/// Tango's `tfactor` for an `f` x `f` map: outputs per thread and dimension so that a
/// block has at most 32 x 32 threads.
fn tfactor(f: u32) -> u32 {
    f.div_ceil(32).next_power_of_two()
}

/// Allocate and initialise the network; the launch sequence.
pub fn network(d: &Dims, seed: u64) -> (Memory, Vec<Box<dyn Kernel>>) {
    let mut rng = Rng::new(seed);
    let mut m = Memory::new();
    let img = d.image as u64;
    let x: Vec<f32> = (0..3 * img * img).map(|_| rng.f32()).collect();
    let input = m.alloc_from("Layer1_Neurons", &x, true);
    let mut ks: Vec<Box<dyn Kernel>> = Vec::new();
    // conv + BN + scale (+ ReLU), returning the output buffer
    let conv_bn = |m: &mut Memory,
                   ks: &mut Vec<Box<dyn Kernel>>,
                   rng: &mut Rng,
                   name: &str,
                   c: ConvShape,
                   src: ObjId,
                   relu: bool|
     -> ObjId {
        let fan = (c.cin * c.k * c.k) as u64;
        let w = m.alloc_from(
            &format!("{name}_weights"),
            &weights(rng, c.cout as u64 * fan, fan),
            true,
        );
        let out = m.alloc::<f32>(name, c.cout as u64 * (c.oh as u64).pow(2), false);
        let mean = m.alloc_from(
            &format!("bn_{name}_mean"),
            &biases(rng, c.cout as u64),
            true,
        );
        let var: Vec<f32> = (0..c.cout).map(|_| 0.5 + rng.f32()).collect();
        let var = m.alloc_from(&format!("bn_{name}_var"), &var, true);
        let sc: Vec<f32> = (0..c.cout).map(|_| 0.5 + rng.f32()).collect();
        let sc = m.alloc_from(&format!("scale_{name}_scale"), &sc, true);
        let sb = m.alloc_from(
            &format!("scale_{name}_bias"),
            &biases(rng, c.cout as u64),
            true,
        );
        let tf = tfactor(c.oh);
        let side = c.oh.div_ceil(tf);
        ks.push(Box::new(Conv {
            name: if tf > 1 {
                "execute3DconvolutionCuda_split"
            } else {
                "execute3DconvolutionCuda"
            },
            input: src,
            weights: w,
            bias: None,
            output: out,
            ih: c.ih,
            iw: c.ih,
            oh: c.oh,
            ow: c.oh,
            k: c.k,
            stride: c.stride,
            pad: c.pad,
            in_c: c.cin,
            in_off: 0,
            out_c: c.cout,
            out_off: 0,
            dst_off: 0,
            relu: false,
            tile: (0, 0, side, side),
            tf,
        }));
        let split = tf > 1;
        let elt = |name_plain, name_split, op| -> Box<dyn Kernel> {
            Box::new(Eltwise {
                name: if split { name_split } else { name_plain },
                op,
                channels: c.cout,
                f: c.oh,
                tf,
            })
        };
        ks.push(elt(
            "executeBnNormLayerCUDA",
            "executeBnNormLayerCUDA_split",
            EltOp::Bn { x: out, mean, var },
        ));
        ks.push(elt(
            "executeScaleLayerCUDA",
            "executeScaleLayerCUDA_split",
            EltOp::Scale {
                x: out,
                scale: sc,
                bias: sb,
            },
        ));
        if relu {
            ks.push(elt(
                "executeReLULayerCUDA",
                "executeReLULayerCUDA_split",
                EltOp::Relu { x: out },
            ));
        }
        out
    };
    let plan = convs(d);
    let mut it = plan.into_iter();
    let (n1, c1) = it.next().unwrap();
    let conv1 = conv_bn(&mut m, &mut ks, &mut rng, &n1, c1, input, true);
    let f = c1.oh / 2;
    let pool1 = m.alloc::<f32>("pool1", c1.cout as u64 * (f as u64).pow(2), false);
    let tf = tfactor(f);
    ks.push(Box::new(Pool {
        name: "executepoolingCuda",
        input: conv1,
        output: pool1,
        ih: c1.oh,
        iw: c1.oh,
        oh: f,
        ow: f,
        k: 3,
        stride: 2,
        pad: 1,
        channels: c1.cout,
        avg: false,
        tile: (0, 0, f.div_ceil(tf), f.div_ceil(tf)),
        tf,
    }));
    let mut cur = pool1;
    let mut last = c1;
    let plan: Vec<(String, ConvShape)> = it.collect();
    let mut i = 0;
    while i < plan.len() {
        let proj = plan[i].0.ends_with("branch1");
        let shortcut = if proj {
            let (n, c) = &plan[i];
            i += 1;
            conv_bn(&mut m, &mut ks, &mut rng, n, *c, cur, false)
        } else {
            cur
        };
        let (na, ca) = &plan[i];
        let a = conv_bn(&mut m, &mut ks, &mut rng, na, *ca, cur, true);
        let (nb, cb) = &plan[i + 1];
        let b = conv_bn(&mut m, &mut ks, &mut rng, nb, *cb, a, true);
        let (nc, cc) = &plan[i + 2];
        let c = conv_bn(&mut m, &mut ks, &mut rng, nc, *cc, b, false);
        i += 3;
        let tag = &nc[..nc.len() - "_branch2c".len()];
        let sum = m.alloc::<f32>(tag, cc.cout as u64 * (cc.oh as u64).pow(2), false);
        let tf = tfactor(cc.oh);
        let split = tf > 1;
        ks.push(Box::new(Eltwise {
            name: if split {
                "executeEltWiseLayerCUDA_split"
            } else {
                "executeEltWiseLayerCUDA"
            },
            op: EltOp::Add {
                a: shortcut,
                b: c,
                out: sum,
            },
            channels: cc.cout,
            f: cc.oh,
            tf,
        }));
        ks.push(Box::new(Eltwise {
            name: if split {
                "executeReLULayerCUDA_split"
            } else {
                "executeReLULayerCUDA"
            },
            op: EltOp::Relu { x: sum },
            channels: cc.cout,
            f: cc.oh,
            tf,
        }));
        cur = sum;
        last = *cc;
    }
    let pool5 = m.alloc::<f32>("pool5", last.cout as u64, false);
    ks.push(Box::new(Pool {
        name: "poolingAverageCUDA",
        input: cur,
        output: pool5,
        ih: last.oh,
        iw: last.oh,
        oh: 1,
        ow: 1,
        k: last.oh,
        stride: 1,
        pad: 0,
        channels: last.cout,
        avg: true,
        tile: (0, 0, 1, 1),
        tf: 1,
    }));
    let fan = last.cout as u64;
    let wfc = m.alloc_from(
        "fc1000_weights",
        &weights(&mut rng, d.classes as u64 * fan, fan),
        true,
    );
    let out = m.alloc::<f32>("fc1000", d.classes as u64, false);
    ks.push(Box::new(Fc {
        name: "executeFCLayerCUDA",
        input: pool5,
        weights: wfc,
        bias: None,
        output: out,
        inputs: last.cout,
        outputs: d.classes,
        relu: false,
    }));
    (m, ks)
}
