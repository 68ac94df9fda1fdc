//! Tango SqueezeNet (`GPU/SqueezeNet/squeezenet.cu`), registry name `tango-squeezenet`:
//! SqueezeNet v1.0 inference of one 227 x 227 RGB image in double precision, launched as
//! Tango's host does (30 launches): `ExecuteFirstLayer` (96 7 x 7 / 2 filters over the int
//! R, G, B planes, 111 x 111 outputs, grid 111 x block 111), `pooling1` (3 x 3 / 2 max,
//! 55 x 55), fire2..fire4 (each `Executefire*squeeze1x1`, `Executefire*expand1x1`,
//! `Executefire*expand3x3` on a 55-column grid of 55-row blocks; the two expand launches
//! write the two halves of one concatenated tensor), `pooling4` (27 x 27), fire5..fire8,
//! `pooling8` (13 x 13), fire9, `ExecuteTenthLayer` (1000 1 x 1 filters on a 15 x 15 grid
//! whose border threads idle) and `global_pooling` (one block of 1000 threads). Squeeze
//! widths 16, 16, 32, 32, 48, 48, 64, 64 and expand widths four times those (SqueezeNet
//! v1.0); fire8's squeeze adds a bias after its ReLU (Tango reads 64 more weights for it).
//! Layer kernels: [`super::pixel`] (one thread per output pixel looping over every output
//! channel).
//!
//! Differences from Tango's source: `ExecuteFirstLayer`'s GPGPU-Sim harness (a `%smid`
//! test that idles blocks on SMs above 8 and a `globaltimer` loop that repeats the layer
//! for `-t` seconds) is left out: the layer runs once on every block. The image and the
//! weights (Tango reads `cat.txt` and the trained weights) are seeded: grey levels
//! `0..=255` per channel, weights uniform in `[-a, a)` with `a = sqrt(3 / fan_in)`.
//!
//! Input: NUBA (§6.3 Table 2) runs Tango's default and lists 1 MB for SN, far below the
//! network's own weights (10 MB of doubles). Tango's default (227 image, widths above,
//! 1000 classes) is about 52 MB here (every buffer the host allocates), so rule 1 of
//! [`crate::scale`] applies: the widths (conv1 filters, the squeeze base width that sets
//! every fire module's widths, the classes) shrink by one common factor
//! (`linear_factor(F, 2)`, then by 1% steps until the whole footprint fits); the image,
//! the map sizes, the loops and the launch shapes stay Tango's: c1 67, squeeze 11, 703
//! classes (33.4 MB). Rule 2 then applies: that input ran past 140 s of CPU time on
//! `coda-4gpu` (and 4 GB of host memory: every thread's loop over all output channels makes
//! long block programs of uncoalesced loads) before it was stopped, so the widths halve once:
//! c1 33, squeeze 5, 351 classes.

use super::pixel::{fire, Conv1x1, Fire, FirstConv, GlobalAvgPool, MaxPool};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload};
use crate::program::WorkloadError;
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "tango-squeezenet",
    suite: "Tango",
    category: "-",
    about: "Tango SqueezeNet v1.0 inference (doubles, one thread per output pixel looping \
            over the output channels): ExecuteFirstLayer, pooling1/4/8, \
            Executefire2..9squeeze1x1/expand1x1/expand3x3, ExecuteTenthLayer, global_pooling",
    params: &[
        ParamSpec {
            name: "image",
            default: "227",
            help: "input image side (odd, >= 35: conv1 7x7/2 then three 3x3/2 pools)",
        },
        ParamSpec {
            name: "c1",
            default: "33",
            help: "conv1 filters (Tango 96; rule 1 then rule 2)",
        },
        ParamSpec {
            name: "squeeze",
            default: "5",
            help: "fire2 squeeze width; fire k squeezes (1,1,2,2,3,3,4,4) times it and \
                   expands 4 times its squeeze (Tango 16; rule 1 then rule 2)",
        },
        ParamSpec {
            name: "classes",
            default: "351",
            help: "conv10 filters and outputs (Tango 1000; rule 1 then rule 2)",
        },
    ],
    build,
};

/// Squeeze width multipliers of fire2..fire9.
pub const FIRE_MULT: [u32; 8] = [1, 1, 2, 2, 3, 3, 4, 4];

/// The network's dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub image: u32,
    pub c1: u32,
    pub squeeze: u32,
    pub classes: u32,
}

/// Tango's SqueezeNet.
pub const PAPER: Dims = Dims {
    image: 227,
    c1: 96,
    squeeze: 16,
    classes: 1000,
};

/// First-layer window.
const K1: u32 = 7;

impl Dims {
    /// Map sides: conv1 output, pool1, pool4, pool8.
    pub fn maps(&self) -> [u32; 4] {
        let o1 = (self.image - K1) / 2 + 1;
        let p1 = MaxPool::out_side(o1);
        let p4 = MaxPool::out_side(p1);
        let p8 = MaxPool::out_side(p4);
        [o1, p1, p4, p8]
    }

    /// (side, input channels, squeeze, expand) of fire2..fire9.
    pub fn fires(&self) -> [(u32, u32, u32, u32); 8] {
        let [_, p1, p4, p8] = self.maps();
        let mut v = [(0, 0, 0, 0); 8];
        let mut cin = self.c1;
        for (k, m) in FIRE_MULT.iter().enumerate() {
            let side = match k {
                0..=2 => p1,
                3..=6 => p4,
                _ => p8,
            };
            let s = self.squeeze * m;
            v[k] = (side, cin, s, 4 * s);
            cin = 8 * s;
        }
        v
    }

    /// Bytes of every buffer Tango's host allocates (doubles; the image as three int
    /// planes; one padding element after conv10's maps).
    pub fn footprint(&self) -> u64 {
        let [o1, p1, p4, p8] = self.maps().map(|v| v as u64);
        let (c1, cl) = (self.c1 as u64, self.classes as u64);
        let img = self.image as u64;
        let mut doubles = c1 * 3 * (K1 * K1) as u64 + c1 * o1 * o1 + c1 * p1 * p1;
        let mut last = 0u64;
        for (k, &(side, cin, s, e)) in self.fires().iter().enumerate() {
            let (side, cin, s, e) = (side as u64, cin as u64, s as u64, e as u64);
            doubles += s * cin + e * s + e * s * 9 + s * side * side + 2 * e * side * side;
            if k == 6 {
                doubles += s;
            }
            last = 2 * e;
        }
        let e4 = 2 * self.fires()[2].3 as u64;
        let e8 = 2 * self.fires()[6].3 as u64;
        doubles += e4 * p4 * p4 + e8 * p8 * p8;
        let s10 = p8 + 2;
        doubles += cl * last + cl * s10 * s10 + 1 + cl;
        doubles * 8 + 3 * img * img * 4
    }

    /// Rule 1 of `scale.rs` on the widths (see the module doc), before rule 2.
    pub fn rule1() -> Dims {
        let mut f = crate::scale::linear_factor(PAPER.footprint(), 2);
        loop {
            let d = Dims {
                image: PAPER.image,
                c1: crate::scale::dim(PAPER.c1 as u64, f, 1) as u32,
                squeeze: crate::scale::dim(PAPER.squeeze as u64, f, 1) as u32,
                classes: crate::scale::dim(PAPER.classes as u64, f, 1) as u32,
            };
            if d.footprint() <= crate::scale::FOOTPRINT_CAP_BYTES {
                return d;
            }
            f *= 0.99;
        }
    }

    /// The default: rule 1, then rule 2 (the widths halve once; see the module doc).
    pub fn scaled_default() -> Dims {
        let d = Self::rule1();
        Dims {
            c1: d.c1 / 2,
            squeeze: d.squeeze / 2,
            classes: d.classes / 2,
            ..d
        }
    }
}

/// Seeded double weights in `[-a, a)`, `a = sqrt(3 / fan_in)`.
fn weights(rng: &mut Rng, n: u64, fan_in: u64) -> Vec<f64> {
    let a = (3.0 / fan_in.max(1) as f64).sqrt();
    (0..n).map(|_| (rng.f64() * 2.0 - 1.0) * a).collect()
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let d = Dims {
        image: p.u64("image", 227)? as u32,
        c1: p.u64("c1", 33)? as u32,
        squeeze: p.u64("squeeze", 5)? as u32,
        classes: p.u64("classes", 351)? as u32,
    };
    if d.image < 35 || d.image > 1023 || d.image.is_multiple_of(2) {
        return Err(WorkloadError::Msg(format!(
            "tango-squeezenet: image = {} must be odd and in 35..=1023 (conv1 7x7/2 and \
             three 3x3/2 pools leave at least one pixel)",
            d.image
        )));
    }
    if d.c1 == 0 || d.squeeze == 0 || d.classes == 0 {
        return Err(WorkloadError::Msg(
            "tango-squeezenet: c1, squeeze and classes must be >= 1".into(),
        ));
    }
    if d.c1 > 4096 || d.squeeze > 256 || d.classes > 65536 {
        return Err(WorkloadError::Msg(
            "tango-squeezenet: widths too large (c1 <= 4096, squeeze <= 256, classes <= 65536)"
                .into(),
        ));
    }
    let (mem, kernels) = network(&d, p.seed);
    Ok(ModelWorkload::new(
        "tango-squeezenet",
        mem,
        super::layers::seq(kernels),
    ))
}

/// Allocate and initialise the network and return Tango's launch sequence.
pub fn network(d: &Dims, seed: u64) -> (Memory, Vec<Box<dyn Kernel>>) {
    let mut rng = Rng::new(seed);
    let mut m = Memory::new();
    let [o1, p1, p4, p8] = d.maps();
    let img = d.image as u64;
    let sq = |v: u32| v as u64 * v as u64;
    let plane =
        |rng: &mut Rng| -> Vec<i32> { (0..img * img).map(|_| rng.below(256) as i32).collect() };
    let (rv, gv, bv) = (plane(&mut rng), plane(&mut rng), plane(&mut rng));
    let r = m.alloc_from("Data_Layer_GPU_R", &rv, true);
    let g = m.alloc_from("Data_Layer_GPU_G", &gv, true);
    let b = m.alloc_from("Data_Layer_GPU_B", &bv, true);
    let fan1 = 3 * (K1 * K1) as u64;
    // the pixels are 0..255: scale the first layer's weights so its outputs stay O(1)
    let w1: Vec<f64> = weights(&mut rng, d.c1 as u64 * fan1, fan1)
        .into_iter()
        .map(|w| w / 128.0)
        .collect();
    let w1 = m.alloc_from("Layer1_Weights_GPU", &w1, true);
    let l1 = m.alloc::<f64>("Layer1_Features", d.c1 as u64 * sq(o1), false);
    let pool1 = m.alloc::<f64>("Pool_Layer_Features", d.c1 as u64 * sq(p1), false);
    let mut ks: Vec<Box<dyn Kernel>> = vec![
        Box::new(FirstConv {
            r,
            g,
            b,
            weights: w1,
            output: l1,
            side: d.image,
            out_side: o1,
            k: K1,
            out_c: d.c1,
        }),
        Box::new(MaxPool {
            name: "pooling1",
            input: l1,
            output: pool1,
            n: o1,
            channels: d.c1,
        }),
    ];
    let mut cur = pool1;
    for (k, &(side, cin, s, e)) in d.fires().iter().enumerate() {
        let id = k as u32 + 2;
        let bias = id == 8;
        let mut sw = weights(&mut rng, s as u64 * cin as u64, cin as u64);
        if bias {
            sw.extend((0..s).map(|_| (rng.f64() - 0.5) * 0.1));
        }
        let squeeze_w = m.alloc_from(&format!("fire{id}squeeze1x1_Weights_GPU"), &sw, true);
        let e1 = weights(&mut rng, e as u64 * s as u64, s as u64);
        let expand1_w = m.alloc_from(&format!("fire{id}expand1x1_Weights_GPU"), &e1, true);
        let e3 = weights(&mut rng, e as u64 * s as u64 * 9, s as u64 * 9);
        let expand3_w = m.alloc_from(&format!("fire{id}expand3x3_Weights_GPU"), &e3, true);
        let squeeze_out = m.alloc::<f64>(
            &format!("fire{id}squeeze1x1_Features"),
            s as u64 * sq(side),
            false,
        );
        let output = m.alloc::<f64>(
            &format!("fire{id}_Features"),
            2 * e as u64 * sq(side),
            false,
        );
        ks.extend(fire(&Fire {
            id,
            input: cur,
            squeeze_w,
            squeeze_out,
            expand1_w,
            expand3_w,
            output,
            side,
            in_c: cin,
            squeeze: s,
            expand: e,
            squeeze_bias: bias,
        }));
        cur = output;
        if id == 4 || id == 8 {
            let (name, obj, ps) = if id == 4 {
                ("pooling4", "Pool_Layer4_Features", p4)
            } else {
                ("pooling8", "Pool_Layer8_Features", p8)
            };
            let pooled = m.alloc::<f64>(obj, 2 * e as u64 * sq(ps), false);
            ks.push(Box::new(MaxPool {
                name,
                input: cur,
                output: pooled,
                n: side,
                channels: 2 * e,
            }));
            cur = pooled;
        }
    }
    let last = 2 * d.fires()[7].3;
    let s10 = p8 + 2;
    let w10 = weights(&mut rng, d.classes as u64 * last as u64, last as u64);
    let w10 = m.alloc_from("Layer10_Weights_GPU", &w10, true);
    let l10 = m.alloc::<f64>("Layer10_Features", d.classes as u64 * sq(s10) + 1, false);
    let out = m.alloc::<f64>("output_GPU", d.classes as u64, false);
    ks.push(Box::new(Conv1x1 {
        name: "ExecuteTenthLayer",
        input: cur,
        weights: w10,
        output: l10,
        h: p8,
        w: p8,
        in_c: last,
        out_c: d.classes,
        dst_off: 0,
        bias: None,
        border: true,
    }));
    ks.push(Box::new(GlobalAvgPool {
        input: l10,
        output: out,
        classes: d.classes,
        side: s10,
    }));
    (m, ks)
}
