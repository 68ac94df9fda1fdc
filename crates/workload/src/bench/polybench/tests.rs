//! Tests of the PolyBench/GPU models: each against a host implementation of the same
//! computation on a small input, its default size against `crate::scale`'s rules, and the
//! mechanism that defines it (coalescing of its accesses, its launch sequence).

use super::common::{matvec_ref, scaled, MatVecRef};
use crate::memory::Elem;
use crate::model::ModelWorkload;
use crate::program::{BlockProgram, InstClass, ObjId, Space, Workload};
use crate::registry;
use std::collections::BTreeMap;

fn build(name: &str, kv: &[(&str, &str)]) -> ModelWorkload {
    let ov: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    registry::build(name, &ov, 3).unwrap()
}

/// Run every launch to completion; returns the kernel names in launch order.
fn run(w: &mut ModelWorkload) -> Vec<String> {
    crate::bench::testing::launches(w)
}

fn obj(w: &ModelWorkload, name: &str) -> ObjId {
    crate::bench::testing::obj(w, name)
}

fn get<T: Elem>(w: &ModelWorkload, name: &str) -> Vec<T> {
    w.memory().to_vec(obj(w, name))
}

/// Equal to f32 accuracy; infinities and NaNs (the suite's LU data is singular, so its
/// pivots run into them) must match exactly.
fn close(a: f32, b: f32) -> bool {
    if a == b || (a.is_nan() && b.is_nan()) {
        return true;
    }
    (a - b).abs() <= 1e-5 * (1.0 + a.abs().max(b.abs()))
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, e)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *e), "{what}[{i}] = {g}, host reference {e}");
    }
}

/// Lines per global load of warp 0 of block 0 of the current launch, by program order.
fn load_lines(w: &mut ModelWorkload) -> Vec<u32> {
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    l.block(0, false, 128, &mut bp).unwrap();
    bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load && i.space == Space::Global)
        .map(|i| i.nlines as u32)
        .collect()
}

/// A default parameter of `name` as a size.
fn spec_default(name: &str, p: &str) -> usize {
    let s = registry::find(name).unwrap();
    let v = s.params.iter().find(|q| q.name == p).unwrap().default;
    v.parse().unwrap()
}

/// Build `name` with the `(param, size)` pairs.
fn build_sizes(name: &str, kv: &[(&str, usize)]) -> ModelWorkload {
    let s: Vec<(&str, String)> = kv.iter().map(|(k, v)| (*k, v.to_string())).collect();
    let kv: Vec<(&str, &str)> = s.iter().map(|(k, v)| (*k, v.as_str())).collect();
    build(name, &kv)
}

#[test]
fn default_sizes_follow_the_scale_rule() {
    use super::*;
    let fp = |f: u64| f;
    // rule 1 only
    let n = scaled(
        atax::PAPER_N,
        fp(atax::footprint(atax::PAPER_N, atax::PAPER_N)),
        2,
        256,
        0,
    );
    assert_eq!(n, 2816);
    assert!(atax::footprint(n, n) <= crate::scale::FOOTPRINT_CAP_BYTES);
    let n = scaled(
        conv2d::PAPER_N,
        conv2d::footprint(conv2d::PAPER_N, conv2d::PAPER_N),
        2,
        32,
        0,
    );
    assert_eq!(n, 2048);
    assert_eq!(
        scaled(
            gemver::PAPER_N,
            gemver::footprint(gemver::PAPER_N),
            2,
            256,
            0
        ),
        1792
    );
    // rule 1 then rule 2's halvings
    let j = scaled(
        jacobi2d::PAPER_N,
        jacobi2d::footprint(jacobi2d::PAPER_N),
        2,
        32,
        jacobi2d::HALVINGS,
    );
    let g = scaled(
        gemm::PAPER_N,
        gemm::footprint(gemm::PAPER_N),
        2,
        32,
        gemm::HALVINGS,
    );
    let l = scaled(lu::PAPER_N, lu::footprint(lu::PAPER_N), 2, 32, lu::HALVINGS);
    let m2 = scaled(
        mm2::PAPER_N,
        mm2::footprint(mm2::PAPER_N),
        2,
        32,
        mm2::HALVINGS,
    );
    let m3 = scaled(
        mm3::PAPER_N,
        mm3::footprint(mm3::PAPER_N),
        2,
        32,
        mm3::HALVINGS,
    );
    let spec_default = |name: &str, p: &str| -> u64 {
        let s = registry::find(name).unwrap();
        s.params
            .iter()
            .find(|q| q.name == p)
            .unwrap()
            .default
            .parse()
            .unwrap()
    };
    assert_eq!(spec_default("atax", "nx"), 2816);
    assert_eq!(spec_default("2dconv", "ni"), 2048);
    assert_eq!(spec_default("gemver", "n"), 1792);
    assert_eq!(spec_default("jacobi2d", "n"), j);
    assert_eq!(spec_default("gemm", "ni"), g);
    assert_eq!(spec_default("gemm", "nk"), g);
    assert_eq!(spec_default("lu", "n"), l);
    assert_eq!(spec_default("2mm", "n"), m2);
    assert_eq!(spec_default("3mm", "n"), m3);
}

/// ATAX's outputs against the host's two matrix-vector products (and, at three columns,
/// the plain definition `y = A^T (A x)` in double precision).
fn atax_check(nx: usize, ny: usize) {
    let mut w = build_sizes("atax", &[("nx", nx), ("ny", ny)]);
    let a: Vec<f32> = get(&w, "A");
    let x: Vec<f32> = get(&w, "x");
    assert_eq!(run(&mut w), ["atax_kernel1", "atax_kernel2"]);
    let mut tmp = vec![0f32; nx];
    matvec_ref(
        &MatVecRef {
            threads: nx,
            len: ny,
            stride: ny,
            m: &a,
            column: false,
            v: &x,
            zero_first: false,
            scale: None,
            add_after: None,
        },
        &mut tmp,
    );
    let mut y = vec![0f32; ny];
    matvec_ref(
        &MatVecRef {
            threads: ny,
            len: nx,
            stride: ny,
            m: &a,
            column: true,
            v: &tmp,
            zero_first: false,
            scale: None,
            add_after: None,
        },
        &mut y,
    );
    assert_close(&get::<f32>(&w, "tmp"), &tmp, "tmp");
    assert_close(&get::<f32>(&w, "y"), &y, "y");
    for j in [0, 7, ny - 1] {
        let e: f64 = (0..nx)
            .map(|i| {
                let t: f64 = (0..ny).map(|q| a[i * ny + q] as f64 * x[q] as f64).sum();
                a[i * ny + j] as f64 * t
            })
            .sum();
        assert!(
            ((y[j] as f64 - e) / e.abs().max(1.0)).abs() < 1e-3,
            "y[{j}]"
        );
    }
}

#[test]
fn atax_equals_host_and_kernel1_is_uncoalesced() {
    let ny = 256usize;
    let mut w = build("atax", &[("nx", "512"), ("ny", "256")]);
    // kernel1: per column j, LDG tmp once, then A (one row per lane: 32 lines), x (one line)
    let lines = load_lines(&mut w);
    assert_eq!(lines[0], 1, "tmp[i]");
    assert!(
        lines[1..].chunks(2).all(|c| c == [32, 1]),
        "{:?}",
        &lines[..9]
    );
    assert_eq!(lines.len(), 1 + 2 * ny);
    atax_check(512, 256);
}

#[test]
#[ignore]
fn atax_default_equals_host() {
    atax_check(spec_default("atax", "nx"), spec_default("atax", "ny"));
}

#[test]
fn atax_kernel2_is_coalesced() {
    let mut w = build("atax", &[("nx", "256"), ("ny", "256")]);
    let mut bp = BlockProgram::default();
    {
        let mut l = w.next_launch().unwrap().unwrap();
        l.block(0, false, 128, &mut bp).unwrap();
    }
    let lines = load_lines(&mut w);
    assert!(
        lines.iter().all(|&n| n == 1),
        "column walk: one line per warp load"
    );
}

fn conv2d_check(ni: usize, nj: usize) {
    let mut w = build_sizes("2dconv", &[("ni", ni), ("nj", nj)]);
    let a: Vec<f32> = get(&w, "A");
    assert_eq!(run(&mut w), ["Convolution2D_kernel"]);
    assert_close(
        &get::<f32>(&w, "B"),
        &super::conv2d::reference(&a, ni, nj),
        "B",
    );
}

#[test]
fn conv2d_equals_host() {
    conv2d_check(40, 64);
}

#[test]
#[ignore]
fn conv2d_default_equals_host() {
    conv2d_check(spec_default("2dconv", "ni"), spec_default("2dconv", "nj"));
}

#[test]
fn conv2d_taps_touch_three_rows() {
    let mut w = build("2dconv", &[("ni", "64"), ("nj", "256")]);
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    // block (1, 1): interior, 9 loads; column offsets -1/+1 straddle a line boundary
    l.block(l.info().grid.x as u64 + 1, false, 128, &mut bp)
        .unwrap();
    let lines: Vec<u32> = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load)
        .map(|i| i.nlines as u32)
        .collect();
    assert_eq!(lines, [2, 1, 2, 2, 1, 2, 2, 1, 2]);
}

fn gemm_check(ni: usize, nj: usize, nk: usize) {
    let mut w = build_sizes("gemm", &[("ni", ni), ("nj", nj), ("nk", nk)]);
    let (a, b, mut c): (Vec<f32>, Vec<f32>, Vec<f32>) = (get(&w, "A"), get(&w, "B"), get(&w, "C"));
    assert_eq!(run(&mut w), ["gemm_kernel"]);
    super::gemm::gemm_ref(
        ni,
        nj,
        nk,
        &a,
        &b,
        &mut c,
        Some(super::gemm::ALPHA),
        Some(super::gemm::BETA),
    );
    assert_close(&get::<f32>(&w, "C"), &c, "C");
}

#[test]
fn gemm_equals_host_and_stores_every_k() {
    let nk = 20usize;
    let mut w = build("gemm", &[("ni", "24"), ("nj", "64"), ("nk", "20")]);
    let mut bp = BlockProgram::default();
    {
        let mut l = w.next_launch().unwrap().unwrap();
        l.block(0, false, 128, &mut bp).unwrap();
        let st = bp.warps[0]
            .insts
            .iter()
            .filter(|i| i.class == InstClass::Store)
            .count();
        assert_eq!(st, 1 + nk, "BETA store + one store per k (no __restrict__)");
    }
    gemm_check(24, 64, 20);
}

#[test]
#[ignore]
fn gemm_default_equals_host() {
    let d = |p| spec_default("gemm", p);
    gemm_check(d("ni"), d("nj"), d("nk"));
}

fn mm2_check(n: usize) {
    use super::gemm::gemm_ref;
    let mut w = build_sizes("2mm", &[("n", n)]);
    let (a, b, mut c, d): (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) =
        (get(&w, "A"), get(&w, "B"), get(&w, "C"), get(&w, "D"));
    assert_eq!(run(&mut w), ["mm2_kernel1", "mm2_kernel2"]);
    gemm_ref(n, n, n, &a, &b, &mut c, None, None);
    let mut e = vec![0f32; n * n];
    gemm_ref(n, n, n, &c, &d, &mut e, None, None);
    assert_close(&get::<f32>(&w, "C"), &c, "C");
    assert_close(&get::<f32>(&w, "E"), &e, "E");
}

fn mm3_check(n: usize) {
    use super::gemm::gemm_ref;
    let mut w = build_sizes("3mm", &[("n", n)]);
    let (a, b, c, d): (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) =
        (get(&w, "A"), get(&w, "B"), get(&w, "C"), get(&w, "D"));
    assert_eq!(run(&mut w), ["mm3_kernel1", "mm3_kernel2", "mm3_kernel3"]);
    let (mut e, mut f, mut g) = (vec![0f32; n * n], vec![0f32; n * n], vec![0f32; n * n]);
    gemm_ref(n, n, n, &a, &b, &mut e, None, None);
    gemm_ref(n, n, n, &c, &d, &mut f, None, None);
    gemm_ref(n, n, n, &e, &f, &mut g, None, None);
    assert_close(&get::<f32>(&w, "G"), &g, "G");
}

#[test]
fn mm2_and_mm3_equal_host() {
    mm2_check(32);
    mm3_check(64);
}

#[test]
#[ignore]
fn mm2_default_equals_host() {
    mm2_check(spec_default("2mm", "n"));
}

#[test]
#[ignore]
fn mm3_default_equals_host() {
    mm3_check(spec_default("3mm", "n"));
}

fn gemver_check(n: usize) {
    let mut w = build_sizes("gemver", &[("n", n)]);
    let mut a: Vec<f32> = get(&w, "A");
    let f = |name| get::<f32>(&w, name);
    let (u1, u2, v1, v2, y, z) = (f("u1"), f("u2"), f("v1"), f("v2"), f("y"), f("z"));
    assert_eq!(
        u2[n - 1],
        0.5,
        "C integer division: (i+1)/N is 1 only at i = N-1"
    );
    assert_eq!(u2[n - 2], 0.0);
    assert_eq!(
        run(&mut w),
        ["gemver_kernel1", "gemver_kernel2", "gemver_kernel3"]
    );
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
        }
    }
    let mut x = vec![0f32; n];
    let base = |column, v, scale, add_after| MatVecRef {
        threads: n,
        len: n,
        stride: n,
        m: &a,
        column,
        v,
        zero_first: false,
        scale,
        add_after,
    };
    matvec_ref(&base(true, &y, Some(super::gemver::BETA), Some(&z)), &mut x);
    let mut wv = vec![0f32; n];
    matvec_ref(&base(false, &x, Some(super::gemver::ALPHA), None), &mut wv);
    assert_close(&get::<f32>(&w, "A"), &a, "A");
    assert_close(&get::<f32>(&w, "x"), &x, "x");
    assert_close(&get::<f32>(&w, "w"), &wv, "w");
    assert!(
        get::<f32>(&w, "B").iter().all(|&v| v == 0.0),
        "B is never touched"
    );
}

#[test]
fn gemver_equals_host() {
    gemver_check(256);
}

#[test]
#[ignore]
fn gemver_default_equals_host() {
    gemver_check(spec_default("gemver", "n"));
}

fn jacobi2d_check(n: usize, tsteps: usize) {
    let mut w = build_sizes("jacobi2d", &[("n", n), ("tsteps", tsteps)]);
    let (mut a, mut b): (Vec<f32>, Vec<f32>) = (get(&w, "A"), get(&w, "B"));
    let names = run(&mut w);
    assert_eq!(names.len(), 2 * tsteps);
    assert!(names
        .chunks(2)
        .all(|c| c == ["runJacobiCUDA_kernel1", "runJacobiCUDA_kernel2"]));
    for _ in 0..tsteps {
        super::jacobi2d::step_ref(&mut a, &mut b, n);
    }
    assert_close(&get::<f32>(&w, "A"), &a, "A");
    assert_close(&get::<f32>(&w, "B"), &b, "B");
}

#[test]
fn jacobi2d_equals_host_with_two_launches_per_step() {
    jacobi2d_check(64, 3);
}

#[test]
#[ignore]
fn jacobi2d_default_equals_host() {
    let d = |p| spec_default("jacobi2d", p);
    jacobi2d_check(d("n"), d("tsteps"));
}

/// LU as the suite launches it against the host reference of the same launches.
fn lu_check(n: usize) {
    let mut w = build_sizes("lu", &[("n", n)]);
    let mut a: Vec<f32> = get(&w, "A");
    let a0 = a.clone();
    let names = run(&mut w);
    assert_eq!(names.len(), 2 * (n - 1), "two launches per k < N-1");
    assert_eq!(&names[..2], ["lu_kernel1", "lu_kernel2"]);
    super::lu::reference(&mut a, n);
    let got: Vec<f32> = get(&w, "A");
    assert_close(&got, &a, "A");
    // the first steps are a true LU: row 0 scaled, the trailing matrix updated once
    assert!(close(got[1], a0[1] / a0[0]));
}

#[test]
#[ignore]
fn lu_default_equals_host() {
    lu_check(spec_default("lu", "n"));
}

#[test]
fn lu_equals_what_the_suite_launches() {
    let n = 96usize;
    lu_check(n);
    // the suite's grids stop covering the trailing matrix past k ~ N/2: the stores of each
    // launch are exactly the covered updates, none in the late launches
    let mut w = build("lu", &[("n", "96")]);
    let mut bp = BlockProgram::default();
    let (mut launch, mut idle) = (0usize, 0usize);
    while let Some(mut l) = w.next_launch().unwrap() {
        let (k, row) = (launch / 2, launch % 2 == 0);
        let mut stores = 0u64;
        for b in 0..l.info().num_blocks() {
            l.block(b, false, 128, &mut bp).unwrap();
            for wp in &bp.warps {
                for i in wp.insts.iter().filter(|i| i.class == InstClass::Store) {
                    stores += i.lanes as u64;
                }
            }
        }
        let rest = n - (k + 1);
        let span = |blk: usize| (n.min(rest.div_ceil(blk) * blk)).saturating_sub(k + 1) as u64;
        let want = if row { span(256) } else { span(32) * span(8) };
        assert_eq!(stores, want, "launch {launch} (k = {k})");
        if !row && stores == 0 {
            idle += 1;
        }
        launch += 1;
    }
    assert!(
        idle >= n / 4,
        "{idle} trailing updates launched with no thread in range"
    );
}

#[test]
fn lu_grids_shrink_with_k() {
    let mut w = build("lu", &[("n", "64")]);
    let mut g = Vec::new();
    while let Some(l) = w.next_launch().unwrap() {
        g.push((l.info().grid.x, l.info().grid.y));
    }
    assert_eq!(g[0], (1, 1), "kernel1, k = 0: ceil(63/256)");
    assert_eq!(g[1], (2, 8), "kernel2, k = 0: ceil(63/32) x ceil(63/8)");
    assert_eq!(
        g[2 * 40 + 1],
        (1, 3),
        "kernel2, k = 40: ceil(23/32) x ceil(23/8)"
    );
}

#[test]
fn default_sizes_follow_the_scale_rule_second_five() {
    use super::*;
    let spec_default = |name: &str, p: &str| -> u64 {
        let s = registry::find(name).unwrap();
        s.params
            .iter()
            .find(|q| q.name == p)
            .unwrap()
            .default
            .parse()
            .unwrap()
    };
    let b = scaled(
        bicg::PAPER_N,
        bicg::footprint(bicg::PAPER_N, bicg::PAPER_N),
        2,
        256,
        0,
    );
    assert_eq!(spec_default("bicg", "nx"), b);
    assert_eq!(spec_default("bicg", "ny"), b);
    let g = scaled(
        gesummv::PAPER_N,
        gesummv::footprint(gesummv::PAPER_N),
        2,
        256,
        0,
    );
    assert_eq!(spec_default("gesummv", "n"), g);
    let m = scaled(mvt::PAPER_N, mvt::footprint(mvt::PAPER_N), 2, 256, 0);
    assert_eq!(spec_default("mvt", "n"), m);
    let c = scaled(
        conv3d::PAPER_N,
        conv3d::footprint(conv3d::PAPER_N),
        3,
        32,
        0,
    );
    assert_eq!(spec_default("3dconv", "n"), c);
    assert!(conv3d::footprint(c) <= crate::scale::FOOTPRINT_CAP_BYTES);
    let f = scaled(
        fdtd2d::PAPER_N,
        fdtd2d::footprint(fdtd2d::PAPER_N, fdtd2d::PAPER_N, fdtd2d::PAPER_TMAX),
        2,
        32,
        0,
    );
    assert_eq!(spec_default("fdtd2d", "nx"), f);
    assert_eq!(
        spec_default("fdtd2d", "tmax"),
        fdtd2d::PAPER_TMAX >> fdtd2d::TMAX_HALVINGS
    );
}

fn bicg_check(nx: usize, ny: usize) {
    let mut w = build_sizes("bicg", &[("nx", nx), ("ny", ny)]);
    let (a, r, p): (Vec<f32>, Vec<f32>, Vec<f32>) = (get(&w, "A"), get(&w, "r"), get(&w, "p"));
    assert_eq!(run(&mut w), ["bicg_kernel1", "bicg_kernel2"]);
    let mut s = vec![7f32; ny];
    let mk = |threads, len, column, v| MatVecRef {
        threads,
        len,
        stride: ny,
        m: &a,
        column,
        v,
        zero_first: true,
        scale: None,
        add_after: None,
    };
    matvec_ref(&mk(ny, nx, true, &r), &mut s);
    let mut q = vec![7f32; nx];
    matvec_ref(&mk(nx, ny, false, &p), &mut q);
    assert_close(&get::<f32>(&w, "s"), &s, "s");
    assert_close(&get::<f32>(&w, "q"), &q, "q");
}

#[test]
#[ignore]
fn bicg_default_equals_host() {
    bicg_check(spec_default("bicg", "nx"), spec_default("bicg", "ny"));
}

#[test]
fn bicg_equals_host_and_kernel2_is_uncoalesced() {
    let kv = [("nx", "256"), ("ny", "512")];
    bicg_check(256, 512);
    // kernel1 walks columns (one line per warp load of A), kernel2 rows (32 lines)
    let mut w = build("bicg", &kv);
    let l1 = load_lines(&mut w);
    assert!(l1.iter().all(|&n| n == 1), "{:?}", &l1[..4]);
    let l2 = load_lines(&mut w);
    assert!(l2.chunks(2).all(|c| c == [32, 1]), "{:?}", &l2[..4]);
}

fn mvt_check(n: usize) {
    let mut w = build_sizes("mvt", &[("n", n)]);
    let f = |name| get::<f32>(&w, name);
    let (a, y1, y2, mut x1, mut x2) = (f("a"), f("y_1"), f("y_2"), f("x1"), f("x2"));
    assert_eq!(run(&mut w), ["mvt_kernel1", "mvt_kernel2"]);
    let mk = |column, v| MatVecRef {
        threads: n,
        len: n,
        stride: n,
        m: &a,
        column,
        v,
        zero_first: false,
        scale: None,
        add_after: None,
    };
    matvec_ref(&mk(false, &y1), &mut x1);
    matvec_ref(&mk(true, &y2), &mut x2);
    assert_close(&get::<f32>(&w, "x1"), &x1, "x1");
    assert_close(&get::<f32>(&w, "x2"), &x2, "x2");
}

#[test]
fn mvt_equals_host() {
    mvt_check(256);
}

#[test]
#[ignore]
fn mvt_default_equals_host() {
    mvt_check(spec_default("mvt", "n"));
}

#[test]
fn gesummv_equals_host_and_reloads_after_each_store() {
    let n = 256usize;
    let mut w = build("gesummv", &[("n", "256")]);
    let lines = load_lines(&mut w);
    // per j: tmp[i], a row, x[j], y[i], b row, x[j] (no __restrict__), then tmp[i] once
    assert_eq!(lines.len(), 6 * n + 1);
    assert_eq!(&lines[..6], [1, 32, 1, 1, 32, 1]);
    gesummv_check(n);
}

fn gesummv_check(n: usize) {
    let mut w = build_sizes("gesummv", &[("n", n)]);
    let (a, b, x): (Vec<f32>, Vec<f32>, Vec<f32>) = (get(&w, "A"), get(&w, "B"), get(&w, "x"));
    let (tmp, y) = super::gesummv::reference(&a, &b, &x, n);
    assert_eq!(run(&mut w), ["gesummv_kernel"]);
    assert_close(&get::<f32>(&w, "tmp"), &tmp, "tmp");
    assert_close(&get::<f32>(&w, "y"), &y, "y");
}

#[test]
#[ignore]
fn gesummv_default_equals_host() {
    gesummv_check(spec_default("gesummv", "n"));
}

fn conv3d_check(n: usize) {
    let mut w = build_sizes("3dconv", &[("n", n)]);
    let a: Vec<f32> = get(&w, "A");
    let names = run(&mut w);
    assert_eq!(names.len(), n - 2, "planes 1 .. NI-2");
    assert_close(&get::<f32>(&w, "B"), &super::conv3d::reference(&a, n), "B");
}

#[test]
#[ignore]
fn conv3d_default_equals_host() {
    conv3d_check(spec_default("3dconv", "n"));
}

#[test]
fn conv3d_equals_host_with_one_launch_per_plane() {
    conv3d_check(32);
    // 11 distinct loads per interior thread
    let mut w = build("3dconv", &[("n", "64")]);
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    l.block(l.info().grid.x as u64 + 1, false, 128, &mut bp)
        .unwrap();
    let loads = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load)
        .count();
    assert_eq!(loads, 11);
}

fn fdtd2d_check(nx: usize, ny: usize, tmax: usize) {
    let mut w = build_sizes("fdtd2d", &[("nx", nx), ("ny", ny), ("tmax", tmax)]);
    let (f, mut ex, mut ey, mut hz): (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) = (
        get(&w, "_fict_"),
        get(&w, "ex"),
        get(&w, "ey"),
        get(&w, "hz"),
    );
    assert_eq!(ex.len(), nx * (ny + 1));
    assert_eq!(ey.len(), (nx + 1) * ny);
    let names = run(&mut w);
    assert_eq!(names.len(), 3 * tmax);
    assert!(names.chunks(3).all(|c| c
        == [
            "fdtd_step1_kernel",
            "fdtd_step2_kernel",
            "fdtd_step3_kernel"
        ]));
    super::fdtd2d::reference(&f, &mut ex, &mut ey, &mut hz, nx, ny);
    assert_close(&get::<f32>(&w, "ex"), &ex, "ex");
    assert_close(&get::<f32>(&w, "ey"), &ey, "ey");
    assert_close(&get::<f32>(&w, "hz"), &hz, "hz");
}

#[test]
fn fdtd2d_equals_host_with_three_launches_per_step() {
    fdtd2d_check(24, 64, 4);
}

#[test]
#[ignore]
fn fdtd2d_default_equals_host() {
    let d = |p| spec_default("fdtd2d", p);
    fdtd2d_check(d("nx"), d("ny"), d("tmax"));
}

/// Each `about` ends with the default input's footprint (`locus workloads` shows it), equal
/// to the bytes the default build allocates, and within rule 1's cap.
#[test]
fn about_states_the_default_footprint() {
    let mut wrong = Vec::new();
    for s in super::SPECS {
        let w = registry::build(s.name, &BTreeMap::new(), 1).unwrap();
        let bytes: u64 = w.objects().iter().map(|o| o.bytes).sum();
        assert!(bytes <= crate::scale::FOOTPRINT_CAP_BYTES, "{}", s.name);
        let want = format!("; footprint {:.1} MiB", bytes as f64 / (1u64 << 20) as f64);
        if !s.about.ends_with(&want) {
            wrong.push(format!("{}: about should end with `{want}`", s.name));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
