//! Tests of the Tango networks: whole-network outputs against host references on small
//! configurations, launch sequences, the scale rule of the defaults and access shapes.

use super::alexnet::{self, Dims};
use super::layers::reference as r;
use crate::model::ModelWorkload;
use crate::program::{BlockProgram, InstClass, ObjId, Workload};
use crate::registry;
use std::collections::BTreeMap;

pub(super) fn build(name: &str, kv: &[(&str, &str)], seed: u64) -> ModelWorkload {
    let ov: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    registry::build(name, &ov, seed).unwrap()
}

/// Run every launch functionally; the kernel names in launch order.
pub(super) fn run(w: &mut ModelWorkload) -> Vec<String> {
    crate::bench::testing::launches(w)
}

pub(super) fn obj(w: &ModelWorkload, name: &str) -> ObjId {
    crate::bench::testing::obj(w, name)
}

pub(super) fn get(w: &ModelWorkload, name: &str) -> Vec<f32> {
    w.memory().to_vec(obj(w, name))
}

pub(super) fn close(a: &[f32], b: &[f32], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let scale = b.iter().fold(1e-3f32, |m, v| m.max(v.abs()));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-4 * scale,
            "{what}[{i}]: model {x} vs host {y}"
        );
    }
}

/// Tango's first layer on the interleaved RGB image, as a plain loop.
fn conv_rgb(
    x: &[f32],
    img: usize,
    w: &[f32],
    b: &[f32],
    co: usize,
    k: usize,
    s: usize,
) -> Vec<f32> {
    let o = (img - k) / s + 1;
    let mut y = vec![0.0f32; co * o * o];
    for c in 0..co {
        for row in 0..o {
            for col in 0..o {
                let mut p = 0.0f32;
                for i in 0..k {
                    for j in 0..k {
                        let base = ((row * s + i) * img + col * s + j) * 3;
                        let wb = c * k * k * 3 + i * k + j;
                        p += x[base] * w[wb]
                            + x[base + 1] * w[wb + k * k]
                            + x[base + 2] * w[wb + 2 * k * k];
                    }
                }
                y[c * o * o + row * o + col] = (p + b[c]).max(0.0);
            }
        }
    }
    y
}

const TINY: &[(&str, &str)] = &[
    ("image", "139"),
    ("c1", "4"),
    ("c2", "6"),
    ("c3", "8"),
    ("c4", "6"),
    ("c5", "4"),
    ("fc", "24"),
    ("classes", "10"),
];

/// The whole network (image 139: a 33 x 33 conv1 map, so four tiles like Tango's 55 x 55)
/// against a host implementation of the same layers; fails if any layer's indexing, tiling,
/// grouping, padding or launch order is wrong.
#[test]
fn alexnet_matches_host_reference() {
    alexnet_check(TINY);
}

/// The default network (rule 1's widths on Tango's 227 x 227 image).
#[test]
#[ignore]
fn alexnet_default_matches_host_reference() {
    alexnet_check(&[]);
}

fn alexnet_check(kv: &[(&str, &str)]) {
    let p = crate::bench::heteromark::tests::params("alexnet", kv, 3);
    let d = |k| p.u64(k, 0).unwrap() as usize;
    let (img, fc, classes) = (d("image"), d("fc"), d("classes"));
    let c = [d("c1"), d("c2"), d("c3"), d("c4"), d("c5")];
    let mut w = build("alexnet", kv, 3);
    let x = get(&w, "Layer1_Neurons");
    let ws: Vec<Vec<f32>> = (1..=8)
        .map(|l| get(&w, &format!("Layer{l}_Weights")))
        .collect();
    let bs: Vec<Vec<f32>> = (1..=8)
        .map(|l| get(&w, &format!("Layer{l}_bias")))
        .collect();
    run(&mut w);
    let a1 = conv_rgb(&x, img, &ws[0], &bs[0], c[0], 11, 4);
    let o1 = (img - 11) / 4 + 1;
    close(&get(&w, "Layer1_Norm"), &a1, "conv1");
    let l1 = r::lrn(&a1, c[0], o1, o1, 0.0001, 0.75, 5);
    let (q1, p1, _) = r::pool(&l1, c[0], o1, o1, 3, 2, false);
    let (a2, _, _) = r::conv(&q1, c[0], p1, p1, &ws[1], &bs[1], c[1], 5, 1, 2, 2, true);
    close(&get(&w, "Layer2_Norm"), &a2, "conv2");
    let l2 = r::lrn(&a2, c[1], p1, p1, 0.0001, 0.75, 5);
    let (q2, p2, _) = r::pool(&l2, c[1], p1, p1, 3, 2, false);
    let (a3, _, _) = r::conv(&q2, c[1], p2, p2, &ws[2], &bs[2], c[2], 3, 1, 1, 1, true);
    let (a4, _, _) = r::conv(&a3, c[2], p2, p2, &ws[3], &bs[3], c[3], 3, 1, 1, 2, true);
    let (a5, _, _) = r::conv(&a4, c[3], p2, p2, &ws[4], &bs[4], c[4], 3, 1, 1, 2, true);
    close(&get(&w, "Layer5_pool"), &a5, "conv5");
    let (q5, _, _) = r::pool(&a5, c[4], p2, p2, 3, 2, false);
    let f6 = r::fc(&q5, &ws[5], &bs[5], fc, true);
    let f7 = r::fc(&f6, &ws[6], &bs[6], fc, true);
    let f8 = r::fc(&f7, &ws[7], &bs[7], classes, false);
    let out = get(&w, "Layer9_Neurons");
    close(&out, &f8, "fc8");
    assert!(
        out.iter().any(|v| *v != 0.0),
        "the network produced all zeros"
    );
}

/// Tango's host launches 22 kernels for the 227 x 227 network: conv1 and LRN1 in four tiles
/// each, conv2/4/5 in two groups.
#[test]
fn alexnet_launch_sequence_is_tangos() {
    let d = Dims::scaled_default();
    let (_, ks) = alexnet::network(&d, 1);
    let names: Vec<String> = ks.iter().map(|k| k.info().name).collect();
    assert_eq!(names.len(), 22, "{names:?}");
    assert!(names[..4].iter().all(|n| n == "executeFirstLayer"));
    assert_eq!(
        names
            .iter()
            .filter(|n| *n == "execute3Dconvolutiongroup2Cuda")
            .count(),
        3
    );
    assert_eq!(names.iter().filter(|n| *n == "executeFCLayer").count(), 3);
    let shapes: Vec<(u32, u32)> = ks[..4]
        .iter()
        .map(|k| (k.info().block.x, k.info().block.y))
        .collect();
    assert_eq!(shapes, vec![(32, 32), (32, 23), (23, 32), (23, 23)]);
    let fc = ks[21].info();
    assert_eq!((fc.grid.x, fc.block.count()), (d.classes, 1));
}

/// The registry defaults are rule 1 of scale.rs applied to Tango's AlexNet.
#[test]
fn alexnet_defaults_follow_the_scale_rule() {
    let d = Dims::scaled_default();
    assert!(alexnet::PAPER.footprint() > crate::scale::FOOTPRINT_CAP_BYTES);
    assert!(d.footprint() <= crate::scale::FOOTPRINT_CAP_BYTES);
    assert_eq!(d.maps(), [55, 27, 13, 6]);
    let spec = registry::find("alexnet").unwrap();
    let def = |n: &str| {
        spec.params
            .iter()
            .find(|p| p.name == n)
            .unwrap()
            .default
            .parse::<u32>()
            .unwrap()
    };
    assert_eq!([def("c1"), def("c2"), def("c3"), def("c4"), def("c5")], d.c);
    assert_eq!(
        (def("fc"), def("classes"), def("image")),
        (d.fc, d.classes, d.image)
    );
    let w = build("alexnet", &[], 1);
    assert_eq!(w.memory().footprint(), d.footprint());
}

/// One thread per output element with `threadIdx.x` = row: a warp's activation loads touch
/// many lines (uncoalesced, as in Tango), its weight loads one (all lanes share the filter).
#[test]
fn conv_lanes_walk_rows_and_share_weights() {
    let mut w = build("alexnet", TINY, 1);
    let mut bp = BlockProgram::default();
    // skip conv1 tiles, lrn tiles and pool1 to reach the first conv2 launch
    let mut n = 0;
    loop {
        let mut l = w.next_launch().unwrap().unwrap();
        if l.info().name == "execute3DconvolutionCuda" {
            l.block(0, false, 128, &mut bp).unwrap();
            break;
        }
        n += 1;
        assert!(n < 20);
    }
    let loads: Vec<_> = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load && i.lanes == 32)
        .collect();
    // first full-warp window element: activation then weight
    let (act, wt) = (loads[0], loads[1]);
    assert!(act.nlines >= 4, "activations: {} lines", act.nlines);
    assert_eq!(wt.nlines, 1, "weights are a broadcast");
}

/// Max pooling with zero-padding trimmed at the borders (ResNet's pool1).
fn maxpool_pad(
    x: &[f32],
    c: usize,
    ih: usize,
    k: usize,
    s: usize,
    pad: usize,
) -> (Vec<f32>, usize) {
    let oh = (ih + 2 * pad - k) / s + 1;
    let mut y = vec![0.0f32; c * oh * oh];
    for ch in 0..c {
        for r in 0..oh {
            for q in 0..oh {
                let mut m = 0.0f32;
                for i in 0..k {
                    let yy = (r * s + i) as i64 - pad as i64;
                    if yy < 0 || yy >= ih as i64 {
                        continue;
                    }
                    for j in 0..k {
                        let xx = (q * s + j) as i64 - pad as i64;
                        if xx < 0 || xx >= ih as i64 {
                            continue;
                        }
                        let v = x[ch * ih * ih + yy as usize * ih + xx as usize];
                        if m < v {
                            m = v;
                        }
                    }
                }
                y[ch * oh * oh + r * oh + q] = m;
            }
        }
    }
    (y, oh)
}

/// The whole ResNet-50 structure (image 96: a 48 x 48 conv1 map in `_split` form; width 2) against a host implementation: conv,
/// BN, scale, ReLU, projections, residual sums, pools and FC in Tango's order. Fails if a
/// stride, a projection, a `_split` thread mapping or a launch is wrong.
#[test]
fn resnet_matches_host_reference() {
    resnet_check(&[("image", "96"), ("w", "2"), ("classes", "5")]);
}

/// The default network (rule 1 then rule 2's widths on Tango's 224 x 224 image).
#[test]
#[ignore]
fn resnet_default_matches_host_reference() {
    resnet_check(&[]);
}

fn resnet_check(kv: &[(&str, &str)]) {
    use super::resnet::BLOCKS;
    let p = crate::bench::heteromark::tests::params("resnet", kv, 4);
    let d = |k| p.u64(k, 0).unwrap() as usize;
    let (image, wd, classes) = (d("image"), d("w"), d("classes"));
    let mut w = build("resnet", kv, 4);
    let names = run(&mut w);
    assert!(names.iter().any(|n| n == "execute3DconvolutionCuda_split"));
    let g = |n: &str| get(&w, n);
    let conv_bn = |name: &str,
                   x: &[f32],
                   ci: usize,
                   ih: usize,
                   co: usize,
                   k: usize,
                   s: usize,
                   p: usize,
                   relu: bool| {
        let zero = vec![0.0f32; co];
        let (mut y, oh, _) = r::conv(
            x,
            ci,
            ih,
            ih,
            &g(&format!("{name}_weights")),
            &zero,
            co,
            k,
            s,
            p,
            1,
            false,
        );
        let (mean, var) = (g(&format!("bn_{name}_mean")), g(&format!("bn_{name}_var")));
        let (sc, sb) = (
            g(&format!("scale_{name}_scale")),
            g(&format!("scale_{name}_bias")),
        );
        for (i, v) in y.iter_mut().enumerate() {
            let c = i / (oh * oh);
            *v = (*v - mean[c]) / (var[c] + 1e-5).sqrt();
            *v = *v * sc[c] + sb[c];
            if relu && *v < 0.0 {
                *v = 0.0;
            }
        }
        (y, oh)
    };
    let x = g("Layer1_Neurons");
    let (a, o1) = conv_bn("conv1", &x, 3, image, wd, 7, 2, 3, true);
    close(&g("conv1"), &a, "conv1");
    let (mut cur, mut f) = maxpool_pad(&a, wd, o1, 3, 2, 1);
    let mut cin = wd;
    for (s, &n) in BLOCKS.iter().enumerate() {
        let (mid, out) = (wd << s, (4 * wd) << s);
        for b in 0..n {
            let stride = if b == 0 && s > 0 { 2 } else { 1 };
            let tag = format!("res{}{}", s + 2, (b'a' + b as u8) as char);
            let short = if b == 0 {
                conv_bn(
                    &format!("{tag}_branch1"),
                    &cur,
                    cin,
                    f,
                    out,
                    1,
                    stride,
                    0,
                    false,
                )
                .0
            } else {
                cur.clone()
            };
            let (y, of) = conv_bn(
                &format!("{tag}_branch2a"),
                &cur,
                cin,
                f,
                mid,
                1,
                stride,
                0,
                true,
            );
            let (y, _) = conv_bn(&format!("{tag}_branch2b"), &y, mid, of, mid, 3, 1, 1, true);
            let (y, _) = conv_bn(&format!("{tag}_branch2c"), &y, mid, of, out, 1, 1, 0, false);
            cur = short
                .iter()
                .zip(&y)
                .map(|(p, q)| (p + q).max(0.0))
                .collect();
            close(&g(&tag), &cur, &tag);
            cin = out;
            f = of;
        }
    }
    let (p5, _, _) = r::pool(&cur, cin, f, f, f, 1, true);
    let zero = vec![0.0f32; classes];
    let out = r::fc(&p5, &g("fc1000_weights"), &zero, classes, false);
    close(&g("fc1000"), &out, "fc1000");
}

/// The registry defaults are rule 1 then rule 2 of scale.rs on Tango's ResNet-50.
#[test]
fn resnet_defaults_follow_the_scale_rules() {
    use super::resnet::{Dims, PAPER};
    assert!(PAPER.footprint() > crate::scale::FOOTPRINT_CAP_BYTES);
    let r1 = Dims::rule1();
    eprintln!("resnet rule 1: {r1:?} {} bytes", r1.footprint());
    assert!(r1.footprint() <= crate::scale::FOOTPRINT_CAP_BYTES);
    let d = Dims::scaled_default();
    let spec = registry::find("resnet").unwrap();
    let def = |n: &str| {
        spec.params
            .iter()
            .find(|p| p.name == n)
            .unwrap()
            .default
            .parse::<u32>()
            .unwrap()
    };
    assert_eq!(
        (def("image"), def("w"), def("classes")),
        (d.image, d.w, d.classes)
    );
    let w = build("resnet", &[], 1);
    assert_eq!(w.memory().footprint(), d.footprint());
}

/// The registry defaults of SqueezeNet are rule 1 then rule 2 of scale.rs on Tango's widths.
#[test]
fn squeezenet_defaults_follow_the_scale_rule() {
    use super::squeezenet::{Dims, PAPER};
    assert!(PAPER.footprint() > crate::scale::FOOTPRINT_CAP_BYTES);
    assert_eq!(PAPER.maps(), [111, 55, 27, 13]);
    let r1 = Dims::rule1();
    assert!(r1.footprint() <= crate::scale::FOOTPRINT_CAP_BYTES);
    assert_eq!((r1.c1, r1.squeeze, r1.classes), (67, 11, 703));
    let d = Dims::scaled_default();
    assert_eq!((d.c1, d.squeeze, d.classes), (33, 5, 351));
    let spec = registry::find("tango-squeezenet").unwrap();
    let def = |n: &str| {
        spec.params
            .iter()
            .find(|p| p.name == n)
            .unwrap()
            .default
            .parse::<u32>()
            .unwrap()
    };
    assert_eq!(
        (def("image"), def("c1"), def("squeeze"), def("classes")),
        (d.image, d.c1, d.squeeze, d.classes)
    );
    let w = build("tango-squeezenet", &[], 1);
    assert_eq!(w.memory().footprint(), d.footprint());
}

/// The whole SqueezeNet (image 35: 15 x 15 conv1 maps, 7, 3 and 1 after the pools) against
/// a host implementation of the same layers in the same order: conv1, the pools, every
/// fire module (squeeze, the two expands concatenated), fire8's squeeze bias, conv10 on
/// its bordered grid and the global average with Tango's over-read. Fails if an index, a
/// concatenation offset, a width or a launch is wrong.
#[test]
fn squeezenet_matches_host_reference() {
    use super::squeezenet::Dims;
    let kv = [
        ("image", "35"),
        ("c1", "4"),
        ("squeeze", "2"),
        ("classes", "5"),
    ];
    let d = Dims {
        image: 35,
        c1: 4,
        squeeze: 2,
        classes: 5,
    };
    squeezenet_check(&kv, d, 7);
}

/// The same check on the registry's default network (slow in a debug build: run with
/// `--ignored`, preferably `--release`).
#[test]
#[ignore]
fn squeezenet_default_matches_host_reference() {
    squeezenet_check(&[], super::squeezenet::Dims::scaled_default(), 1);
}

fn squeezenet_check(kv: &[(&str, &str)], d: super::squeezenet::Dims, seed: u64) {
    use super::pixel::reference as p;
    use super::squeezenet::FIRE_MULT;
    let mut w = build("tango-squeezenet", kv, seed);
    let gi = |w: &ModelWorkload, n: &str| -> Vec<i32> { w.memory().to_vec(obj(w, n)) };
    let gd = |w: &ModelWorkload, n: &str| -> Vec<f64> { w.memory().to_vec(obj(w, n)) };
    let (r, g, b) = (
        gi(&w, "Data_Layer_GPU_R"),
        gi(&w, "Data_Layer_GPU_G"),
        gi(&w, "Data_Layer_GPU_B"),
    );
    let wts: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> = (2..=9)
        .map(|k| {
            (
                gd(&w, &format!("fire{k}squeeze1x1_Weights_GPU")),
                gd(&w, &format!("fire{k}expand1x1_Weights_GPU")),
                gd(&w, &format!("fire{k}expand3x3_Weights_GPU")),
            )
        })
        .collect();
    let w1 = gd(&w, "Layer1_Weights_GPU");
    let w10 = gd(&w, "Layer10_Weights_GPU");
    let names = run(&mut w);
    assert_eq!(names.len(), 30);
    assert_eq!(names[0], "ExecuteFirstLayer");
    assert_eq!(names[names.len() - 1], "global_pooling");
    let dclose = |a: &[f64], b: &[f64], what: &str| {
        assert_eq!(a.len(), b.len(), "{what}: lengths");
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
                "{what}[{i}]: {x} vs {y}"
            );
        }
    };
    let [o1, p1, p4, p8] = d.maps().map(|v| v as usize);
    let (c1, cl, sq) = (d.c1 as usize, d.classes as usize, d.squeeze as usize);
    let a1 = p::first_conv(&r, &g, &b, d.image as usize, &w1, 7, c1);
    dclose(&gd(&w, "Layer1_Features"), &a1, "conv1");
    let mut cur = p::max_pool(&a1, c1, o1);
    let mut cin = c1;
    for (k, m) in FIRE_MULT.iter().enumerate() {
        let id = k + 2;
        let side = match k {
            0..=2 => p1,
            3..=6 => p4,
            _ => p8,
        };
        let (s, e) = (sq * *m as usize, 4 * sq * *m as usize);
        let (sw, e1, e3) = &wts[k];
        let bias = (id == 8).then(|| &sw[s * cin..]);
        let sqz = p::conv1x1(&cur, cin, side * side, sw, s, bias);
        dclose(
            &gd(&w, &format!("fire{id}squeeze1x1_Features")),
            &sqz,
            "squeeze",
        );
        let mut out = p::conv1x1(&sqz, s, side * side, e1, e, None);
        out.extend(p::conv3x3(&sqz, s, side, side, e3, e));
        dclose(
            &gd(&w, &format!("fire{id}_Features")),
            &out,
            &format!("fire{id}"),
        );
        cur = out;
        cin = 2 * e;
        if id == 4 || id == 8 {
            cur = p::max_pool(&cur, cin, side);
        }
    }
    // conv10 on the bordered grid: the interior is computed, the border stays zero
    let c10 = p::conv1x1(&cur, cin, p8 * p8, &w10, cl, None);
    let l10 = gd(&w, "Layer10_Features");
    let s10 = p8 + 2;
    for f in 0..cl {
        for x in 0..s10 {
            for y in 0..s10 {
                let v = l10[f * s10 * s10 + x * s10 + y];
                if x == 0 || y == 0 || x == s10 - 1 || y == s10 - 1 {
                    assert_eq!(v, 0.0, "border untouched");
                } else {
                    assert_eq!(v, c10[f * p8 * p8 + (x - 1) * p8 + y - 1], "conv10[{f}]");
                }
            }
        }
    }
    // Tango's `j <= side` over-read adds the next row's (border) first element
    let out = gd(&w, "output_GPU");
    let host: Vec<f64> = (0..cl)
        .map(|f| {
            let mut a = 0f64;
            for i in 0..s10 {
                for j in 0..=s10 {
                    a += l10[f * s10 * s10 + i * s10 + j];
                }
            }
            a / (s10 * s10) as f64
        })
        .collect();
    assert_eq!(out, host, "global pooling");
    assert!(out.iter().any(|&v| v != 0.0), "all-zero output");
}

/// SqueezeNet's threads are pixels of one column per block: a warp's activation load reads
/// 32 rows of a column (one line per lane: uncoalesced), its weight load one address.
#[test]
fn squeezenet_lanes_walk_a_column() {
    let mut w = build(
        "tango-squeezenet",
        &[
            ("image", "35"),
            ("c1", "4"),
            ("squeeze", "2"),
            ("classes", "5"),
        ],
        7,
    );
    let mut bp = BlockProgram::default();
    loop {
        let mut l = w.next_launch().unwrap().unwrap();
        if l.info().name == "Executefire2squeeze1x1" {
            assert_eq!((l.info().grid.x, l.info().block.x), (7, 7));
            l.block(0, false, 128, &mut bp).unwrap();
            break;
        }
    }
    let loads: Vec<_> = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load)
        .collect();
    // 7 lanes, rows 7 doubles (56 B) apart: 4 lines of 128 B for the activations
    assert_eq!(loads[0].lanes, 7);
    assert!(
        loads[0].nlines >= 3,
        "activations: {} lines",
        loads[0].nlines
    );
    assert_eq!(loads[1].nlines, 1, "weights are a broadcast");
    // one phase per output channel: a barrier between the squeeze's 2 channels
    let bars = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Barrier)
        .count();
    assert_eq!(bars, 1);
}

/// Tango GRU on `units` units for `steps` steps against [`r::gru_step`] chained from a zero
/// state; fails if the cell's indexing (`threadIdx.x * blockDim.x + threadIdx.y`), a gate,
/// the reset-gate staging in shared memory, the race resolution (every unit must read
/// h(t-1)) or the host's per-step input copy is wrong.
fn gru_check(units: u64, steps: u32, seed: u64) {
    let kv = [("units", units.to_string()), ("steps", steps.to_string())];
    let kv: Vec<(&str, &str)> = kv.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut w = build("tango-gru", &kv, seed);
    let g = |n: &str| get(&w, n);
    let kernel = [
        g("GPU_kernel_h_w"),
        g("GPU_kernel_r_w"),
        g("GPU_kernel_z_w"),
    ];
    let bias = [g("GPU_bias_h"), g("GPU_bias_r"), g("GPU_bias_z")];
    let rec = [g("GPU_rec_h_w"), g("GPU_rec_r_w"), g("GPU_rec_z_w")];
    let names = run(&mut w);
    assert_eq!(names.len(), steps as usize, "one launch per time step");
    assert!(names.iter().all(|n| n == "GPU_forward_pass_gru"));
    let mut h = vec![0.0f32; units as usize];
    for x in super::gru::inputs(steps, seed) {
        h = r::gru_step(
            x,
            &h,
            [&kernel[0], &kernel[1], &kernel[2]],
            [&bias[0], &bias[1], &bias[2]],
            [&rec[0], &rec[1], &rec[2]],
        );
    }
    assert!(h.iter().any(|v| v.abs() > 1e-3), "state moved");
    close(&get(&w, "GPU_states"), &h, "h(t)");
    assert_eq!(
        get(&w, "GPU_x"),
        vec![*super::gru::inputs(steps, seed).last().unwrap()]
    );
}

#[test]
fn gru_matches_host_reference() {
    gru_check(16, 3, 5);
}

/// Tango's default (100 units, 2 steps); fast, so not ignored.
#[test]
fn gru_default_matches_host_reference() {
    gru_check(100, 2, 1);
}

/// The default is Tango's hard-coded size (rule 1 of scale.rs leaves it: 121 KB).
#[test]
fn gru_default_is_tangos_size() {
    let spec = registry::find("tango-gru").unwrap();
    let d = |n: &str| spec.params.iter().find(|p| p.name == n).unwrap().default;
    assert_eq!((d("units"), d("steps")), ("100", "2"));
    let f = super::gru::footprint(100);
    assert!(f < crate::scale::FOOTPRINT_CAP_BYTES && f > 120_000, "{f}");
    let w = build("tango-gru", &[], 1);
    let bytes: u64 = w.objects().iter().map(|o| o.bytes).sum();
    assert_eq!(bytes, f, "footprint() counts every buffer");
    for bad in ["0", "50", "1089"] {
        let ov: BTreeMap<String, String> = [("units".to_string(), bad.to_string())].into();
        assert!(
            registry::build("tango-gru", &ov, 1).is_err(),
            "units = {bad}"
        );
    }
}

/// Tango's 10 x 10 block with `index = threadIdx.x * 10 + threadIdx.y`: warp 0's lanes
/// (x fastest) own units 0, 10, .., 90, 1, 11, ..: a recurrent-weight load of loop 1
/// touches the units of 32 scattered columns, 4-byte elements 10 apart, so it spans
/// several 128-byte lines (a contiguous mapping would need one or two); every lane reads
/// the same `GPU_states[i]` (one line); the reset gate goes through shared memory; one
/// block of 4 warps (the last one 4 lanes) and 3 phases (2 barriers per warp).
#[test]
fn gru_lanes_take_units_ten_apart() {
    let mut w = build("tango-gru", &[("steps", "1")], 1);
    let states = obj(&w, "GPU_states");
    let rec_z = obj(&w, "GPU_rec_z_w");
    let (mut state_lines, mut rec_lines, mut shared, mut blocks) = (vec![], vec![], 0, 0);
    let mut lanes = vec![];
    crate::bench::testing::each_block(&mut w, |_, bp| {
        blocks += 1;
        lanes = bp
            .warps
            .iter()
            .map(|wp| wp.insts.iter().map(|i| i.lanes).max().unwrap_or(0))
            .collect();
        let wp = &bp.warps[0];
        for i in &wp.insts {
            if i.space == crate::program::Space::Shared {
                shared += 1;
            }
            if i.class != InstClass::Load || i.space != crate::program::Space::Global {
                continue;
            }
            let o = wp.lines_of(i)[0].obj;
            if o == states {
                state_lines.push(i.nlines);
            } else if o == rec_z {
                rec_lines.push(i.nlines);
            }
        }
    });
    assert_eq!(blocks, 1);
    assert_eq!(lanes, vec![32, 32, 32, 4]);
    // loops 1 and 2: one broadcast line each; the final GPU_states[index] read is scattered
    assert_eq!(state_lines.len(), 201);
    assert!(
        state_lines[..200].iter().all(|&n| n == 1),
        "{state_lines:?}"
    );
    assert!(state_lines[200] >= 3, "{state_lines:?}");
    assert!(
        !rec_lines.is_empty() && rec_lines.iter().all(|&n| n >= 3),
        "{rec_lines:?}"
    );
    assert!(
        shared > 100,
        "update_gate staged in shared memory: {shared}"
    );
}
