//! Tests of the dense benchmarks: functional results against host references, coalescing
//! shapes implied by the public code, launch sequences, determinism and CODA page-sharing
//! categories (spec Table 2) on moderately small instances.

use crate::memory::Elem;
use crate::model::ModelWorkload;
use crate::program::{BlockProgram, InstClass, ObjId, Space, Workload};
use crate::registry;
use crate::sharing::{coda_default_sharing, SharingReport};
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

pub(super) fn build(name: &str, kv: &[(&str, &str)], seed: u64) -> ModelWorkload {
    let ov: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    registry::build(name, &ov, seed).unwrap()
}

/// Summary of a complete functional run.
#[derive(Debug)]
pub(super) struct Run {
    pub kernels: Vec<String>,
    pub lines: u64,
    pub hash: u64,
}

pub(super) fn run(w: &mut ModelWorkload) -> Run {
    let mut bp = BlockProgram::default();
    let mut h = DefaultHasher::new();
    let (mut kernels, mut lines) = (Vec::new(), 0u64);
    while let Some(mut l) = w.next_launch().unwrap() {
        kernels.push(l.info().name.clone());
        for b in 0..l.info().num_blocks() {
            l.block(b, false, 128, &mut bp).unwrap();
            for wp in &bp.warps {
                for inst in &wp.insts {
                    (inst.class as u8, inst.lanes, inst.nlines).hash(&mut h);
                }
                for lr in &wp.lines {
                    (lr.addr, lr.bytes, lr.obj).hash(&mut h);
                }
                lines += wp.lines.len() as u64;
            }
        }
    }
    Run {
        kernels,
        lines,
        hash: h.finish(),
    }
}

pub(super) fn obj(w: &ModelWorkload, name: &str) -> ObjId {
    crate::bench::testing::obj(w, name)
}

pub(super) fn get<T: Elem>(w: &ModelWorkload, name: &str) -> Vec<T> {
    w.memory().to_vec(obj(w, name))
}

pub(super) fn sharing(name: &str, kv: &[(&str, &str)]) -> SharingReport {
    let mut w = build(name, kv, 1);
    let r = coda_default_sharing(&mut w, 100_000).unwrap();
    eprintln!(
        "{name}: {} pages, one-block {:.3}, one-gpu {:.3}, access one-gpu {:.3} -> {}",
        r.pages, r.frac_one_block, r.frac_one_gpu, r.access_frac_one_gpu, r.category
    );
    r
}

/// Issue 13: a category is measured and shown beside the paper's in the CODA report, never
/// asserted to equal it. What a test can check is that the analysis ran and that the
/// category follows the classification rules (spec §5) from the measured page fractions.
pub(super) fn measured(r: SharingReport) {
    assert!(r.pages > 0, "{r:?}");
    for f in [r.frac_one_block, r.frac_one_gpu, r.access_frac_one_gpu] {
        assert!((0.0..=1.0).contains(&f), "{r:?}");
    }
    assert!(
        r.frac_one_gpu >= r.frac_one_block,
        "one block is on one GPU: {r:?}"
    );
    assert_eq!(
        r.category,
        crate::sharing::classify(r.frac_one_block, r.frac_one_gpu),
        "{r:?}"
    );
}

pub(super) fn deterministic(name: &str, kv: &[(&str, &str)]) {
    let a = run(&mut build(name, kv, 5));
    let b = run(&mut build(name, kv, 5));
    assert_eq!(
        a.hash, b.hash,
        "{name}: equal seeds give equal LineReq streams"
    );
    assert_eq!(a.lines, b.lines);
    let c = run(&mut build(name, kv, 6));
    assert!(a.lines > 0 && c.lines > 0);
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn kmeans_transpose_is_the_host_transpose_and_coalesces_as_fig1() {
    let (np, nf) = (1024u64, 34u64);
    let mut w = build("kmeans-transpose", &[("npoints", "1024")], 3);
    let input: Vec<f32> = get(&w, "feature_flipped_d");
    // coalescing of block 0: per feature step, the AoS load of a warp touches 32 lines
    // (stride 136 B), the SoA store one line.
    let mut bp = BlockProgram::default();
    {
        let mut l = w.next_launch().unwrap().unwrap();
        assert_eq!(l.info().block.x, 256);
        assert_eq!(l.info().num_blocks(), 4);
        l.block(0, false, 128, &mut bp).unwrap();
        let loads: Vec<_> = bp.warps[0]
            .insts
            .iter()
            .filter(|i| i.class == InstClass::Load)
            .collect();
        let stores: Vec<_> = bp.warps[0]
            .insts
            .iter()
            .filter(|i| i.class == InstClass::Store)
            .collect();
        assert_eq!(loads.len(), nf as usize);
        assert_eq!(stores.len(), nf as usize);
        assert!(
            loads.iter().all(|i| i.nlines == 32),
            "AoS read: 32 lines per feature step"
        );
        assert!(
            stores.iter().all(|i| i.nlines == 1),
            "SoA write: one line per warp"
        );
        for b in 1..4 {
            l.block(b, false, 128, &mut bp).unwrap();
        }
    }
    assert!(w.next_launch().unwrap().is_none(), "one launch");
    let out: Vec<f32> = get(&w, "feature_d");
    for p in 0..np {
        for f in 0..nf {
            assert_eq!(out[(f * np + p) as usize], input[(p * nf + f) as usize]);
        }
    }
}

#[test]
fn km_memberships_match_host_nearest_centre() {
    let kv = [("npoints", "3000"), ("iterations", "2")];
    let mut w = build("km", &kv, 4);
    let r = run(&mut w);
    assert_eq!(r.kernels, ["invert_mapping", "kmeansPoint", "kmeansPoint"]);
    let (np, nf) = (3000usize, 34usize);
    let aos: Vec<f32> = get(&w, "feature_flipped_d");
    let soa: Vec<f32> = get(&w, "feature_d");
    let cl: Vec<f32> = get(&w, "c_clusters");
    let memb: Vec<i32> = get(&w, "membership_d");
    assert_eq!(soa[7 * np + 3], aos[3 * nf + 7], "SoA transpose");
    for p in 0..np {
        let d = |c: usize| -> f32 {
            (0..nf)
                .map(|f| (aos[p * nf + f] - cl[c * nf + f]).powi(2))
                .sum()
        };
        let best = (0..5)
            .min_by(|&a, &b| d(a).partial_cmp(&d(b)).unwrap())
            .unwrap();
        assert!(close(d(memb[p] as usize), d(best), 1e-5), "point {p}");
    }
}

/// `layout=point-major` (CCWS / Rodinia OpenMP, spec ndp.md §5.4 KMN): no transpose, the
/// same memberships as the feature-major (Rodinia CUDA) run on the same data, and a warp's
/// feature load is a global load touching one line per lane (stride 136 B >= 128 B), where
/// the feature-major one is a texture load of one line (4096 points: each feature row
/// starts on a line).
#[test]
fn km_point_major_equals_feature_major_and_reads_one_line_per_lane() {
    let kv = |l: &'static str| [("npoints", "4096"), ("iterations", "3"), ("layout", l)];
    let mut fm = build("km", &kv("feature-major"), 4);
    let mut pm = build("km", &kv("point-major"), 4);
    // the feature loads of block 0, warp 0 in the first kmeansPoint launch
    let loads = |w: &mut ModelWorkload, skip: usize| {
        for _ in 0..skip {
            w.next_launch().unwrap().unwrap();
        }
        let mut l = w.next_launch().unwrap().unwrap();
        assert_eq!(l.info().name, "kmeansPoint");
        assert_eq!(l.info().block.x, 256);
        let mut bp = BlockProgram::default();
        l.block(0, false, 128, &mut bp).unwrap();
        bp.warps[0]
            .insts
            .iter()
            .filter(|i| i.class == InstClass::Load && i.space != Space::Constant)
            .map(|i| (i.space, i.nlines))
            .collect::<Vec<_>>()
    };
    let (lf, lp) = (loads(&mut fm, 1), loads(&mut pm, 0));
    assert_eq!(lf.len(), 5 * 34);
    assert_eq!(lp.len(), lf.len());
    assert!(lf.iter().all(|&l| l == (Space::Texture, 1)), "{:?}", lf[0]);
    assert!(lp.iter().all(|&l| l == (Space::Global, 32)), "{:?}", lp[0]);
    let mut fm = build("km", &kv("feature-major"), 4);
    let mut pm = build("km", &kv("point-major"), 4);
    let (rf, rp) = (run(&mut fm), run(&mut pm));
    assert_eq!(&rf.kernels[1..], &rp.kernels[..]);
    assert_eq!(rp.kernels, ["kmeansPoint"; 3]);
    let (mf, mp): (Vec<i32>, Vec<i32>) = (get(&fm, "membership_d"), get(&pm, "membership_d"));
    assert_eq!(mf, mp);
    assert!(mp.iter().all(|&c| (0..5).contains(&c)));
    assert_eq!(get::<f32>(&fm, "c_clusters"), get::<f32>(&pm, "c_clusters"));
    let e = registry::build("km", &[("layout".to_string(), "soa".to_string())].into(), 1)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("layout=soa"), "{e}");
}

#[test]
fn matmul_equals_host_matmul() {
    let (m, k, n) = (48usize, 32usize, 64usize);
    let mut w = build("matmul", &[("m", "48"), ("k", "32"), ("n", "64")], 2);
    let r = run(&mut w);
    assert_eq!(r.kernels.len(), 1);
    let (a, b, c): (Vec<f32>, Vec<f32>, Vec<f32>) = (get(&w, "A"), get(&w, "B"), get(&w, "C"));
    for i in 0..m {
        for j in 0..n {
            let e: f32 = (0..k).map(|q| a[i * k + q] * b[q * n + j]).sum();
            assert!(
                close(c[i * n + j], e, 1e-4),
                "C[{i}][{j}] = {} vs {e}",
                c[i * n + j]
            );
        }
    }
}

#[test]
fn mm_equals_host_sgemm_nt() {
    let (m, n, k) = (256usize, 32usize, 24usize);
    let mut w = build("mm", &[("m", "256"), ("n", "32"), ("k", "24")], 2);
    let mut bp = BlockProgram::default();
    {
        let mut l = w.next_launch().unwrap().unwrap();
        assert_eq!((l.info().grid.x, l.info().grid.y), (2, 2));
        assert_eq!(l.info().block.count(), 128);
        l.block(0, false, 128, &mut bp).unwrap();
        // A row of 32 consecutive m per warp: one line per A load
        let a_loads: Vec<_> = bp.warps[0]
            .insts
            .iter()
            .filter(|i| i.class == InstClass::Load && i.space == Space::Global && i.nlines == 1)
            .collect();
        assert!(a_loads.len() >= 8 * 3);
    }
    drop(bp);
    let mut w = build("mm", &[("m", "256"), ("n", "32"), ("k", "24")], 2);
    run(&mut w);
    let (a, b, c): (Vec<f32>, Vec<f32>, Vec<f32>) = (get(&w, "A"), get(&w, "B"), get(&w, "C"));
    for i in 0..m {
        for j in 0..n {
            // A column-major (lda = m), B^T stored k x n (ldb = n), C column-major (ldc = m)
            let e: f32 = (0..k).map(|q| a[i + q * m] * b[j + q * n]).sum();
            assert!(close(c[i + j * m], e, 1e-4), "C[{i}][{j}]");
        }
    }
}

#[test]
fn stencil2d_equals_host_jacobi() {
    let n = 48usize;
    let mut w = build("stencil2d", &[("n", "48"), ("iterations", "3")], 9);
    let mut g: Vec<f32> = get(&w, "grid_a");
    let r = run(&mut w);
    assert_eq!(r.kernels.len(), 3);
    for _ in 0..3 {
        g = super::stencil2d::jacobi_ref(&g, n);
    }
    let out: Vec<f32> = get(&w, "grid_b"); // odd number of sweeps ends in grid_b
    for i in 0..n * n {
        assert!(close(out[i], g[i], 1e-5), "cell {i}");
    }
}

fn csr_of(w: &ModelWorkload) -> crate::gen::matrix::Csr {
    let row_ptr: Vec<u32> = get(w, "row_ptr");
    crate::gen::matrix::Csr {
        n: row_ptr.len() - 1,
        row_ptr,
        col: get(w, "col_idx"),
        val: get(w, "val"),
    }
}

#[test]
fn spmv_csr_equals_host_spmv() {
    let mut w = build("spmv-csr", &[("rows", "3000"), ("nnz", "8")], 3);
    let a = csr_of(&w);
    let x: Vec<f32> = get(&w, "x");
    run(&mut w);
    let y: Vec<f32> = get(&w, "y");
    for (i, e) in a.spmv(&x).iter().enumerate() {
        assert!(close(y[i], *e, 1e-4), "row {i}");
    }
}

#[test]
fn spmv_jds_equals_host_spmv() {
    use crate::gen::matrix::{banded_random, MatrixSpec};
    let s = MatrixSpec {
        n: 5000,
        nnz_per_row: 10,
        spread: 3,
        band: 64,
        random_frac: 0.1,
    };
    let kv = [
        ("rows", "5000"),
        ("nnz", "10"),
        ("spread", "3"),
        ("band", "64"),
        ("random", "0.1"),
    ];
    let mut w = build("spmv", &kv, 7);
    let a = banded_random(s, 7);
    let x: Vec<f32> = get(&w, "x_vec");
    let r = run(&mut w);
    assert_eq!(r.kernels, ["spmv_jds"]);
    let y: Vec<f32> = get(&w, "dst_vector");
    for (i, e) in a.spmv(&x).iter().enumerate() {
        assert!(close(y[i], *e, 1e-4), "row {i}: {} vs {e}", y[i]);
    }
}

#[test]
fn nw_score_matrix_equals_host_dp() {
    let (n, pen) = (64usize, 10i32);
    let mut w = build("nw", &[("n", "64")], 4);
    let reference: Vec<i32> = get(&w, "referrence_cuda");
    let mut dp: Vec<i32> = get(&w, "matrix_cuda");
    let r = run(&mut w);
    assert_eq!(r.kernels.len(), 2 * 4 - 1, "2*B-1 diagonal launches");
    assert_eq!(r.kernels[0], "needle_cuda_shared_1");
    assert_eq!(r.kernels[6], "needle_cuda_shared_2");
    let c = n + 1;
    for i in 1..c {
        for j in 1..c {
            dp[i * c + j] = (dp[(i - 1) * c + j - 1] + reference[i * c + j])
                .max(dp[i * c + j - 1] - pen)
                .max(dp[(i - 1) * c + j] - pen);
        }
    }
    assert_eq!(get::<i32>(&w, "matrix_cuda"), dp);
}

#[test]
fn ge_full_run_solves_the_system() {
    let n = 40usize;
    let mut w = build("ge", &[("n", "40"), ("steps", "1000")], 8);
    let (a0, b0): (Vec<f32>, Vec<f32>) = (get(&w, "a_cuda"), get(&w, "b_cuda"));
    let r = run(&mut w);
    assert_eq!(r.kernels.len(), 2 * (n - 1));
    assert_eq!(&r.kernels[..2], ["Fan1", "Fan2"]);
    let (a, b): (Vec<f32>, Vec<f32>) = (get(&w, "a_cuda"), get(&w, "b_cuda"));
    for i in 1..n {
        for j in 0..i {
            assert!(a[i * n + j].abs() < 1e-4, "a[{i}][{j}] eliminated");
        }
    }
    let x = super::ge::back_sub(&a, &b, n);
    for i in 0..n {
        let ax: f32 = (0..n).map(|j| a0[i * n + j] * x[j]).sum();
        assert!(close(ax, b0[i], 1e-3), "row {i}: {ax} vs {}", b0[i]);
    }
}

#[test]
fn nn_distances_are_euclidean() {
    let mut w = build(
        "nn",
        &[("records", "10000"), ("lat", "10"), ("lng", "20")],
        2,
    );
    let loc: Vec<f32> = get(&w, "d_locations");
    let mut bp = BlockProgram::default();
    {
        let mut l = w.next_launch().unwrap().unwrap();
        l.block(0, false, 128, &mut bp).unwrap();
        let mem: Vec<_> = bp.warps[0]
            .insts
            .iter()
            .filter(|i| i.class.is_mem())
            .collect();
        assert_eq!(mem.iter().map(|i| i.nlines).collect::<Vec<_>>(), [2, 2, 1]);
        for b in 1..l.info().num_blocks() {
            l.block(b, false, 128, &mut bp).unwrap();
        }
    }
    let d: Vec<f32> = get(&w, "d_distances");
    for i in 0..10000 {
        let e = ((10.0 - loc[2 * i]).powi(2) + (20.0 - loc[2 * i + 1]).powi(2)).sqrt();
        assert!(close(d[i], e, 1e-5));
    }
}

#[test]
fn deterministic_streams() {
    deterministic("kmeans-transpose", &[("npoints", "2000")]);
    deterministic("km", &[("npoints", "2000"), ("iterations", "2")]);
    deterministic("matmul", &[("m", "64"), ("k", "32"), ("n", "64")]);
    deterministic("mm", &[("m", "256"), ("n", "32"), ("k", "16")]);
    deterministic("stencil2d", &[("n", "64"), ("iterations", "2")]);
    deterministic("spmv-csr", &[("rows", "2000")]);
    deterministic("spmv", &[("rows", "2000")]);
    deterministic("nw", &[("n", "64")]);
    deterministic("ge", &[("n", "64"), ("steps", "2")]);
    deterministic("nn", &[("records", "5000")]);
}

#[test]
fn categories_core_exclusive() {
    measured(sharing("kmeans-transpose", &[("npoints", "64k")]));
    measured(sharing("km", &[("npoints", "32k"), ("iterations", "2")]));
    measured(sharing("mm", &[("m", "1024"), ("n", "1024"), ("k", "32")]));
    measured(sharing("ge", &[("n", "512"), ("steps", "2")]));
    measured(sharing("nn", &[("records", "256k")]));
    measured(sharing("spmv", &[("rows", "24576")]));
}

#[test]
fn category_nw_measured() {
    measured(sharing("nw", &[("n", "512")]));
}

#[test]
fn report_other_categories() {
    // not in CODA Table 2; printed for the record, checked only for being analysable
    for (n, kv) in [
        ("matmul", &[("m", "256"), ("k", "64"), ("n", "256")][..]),
        ("stencil2d", &[("n", "512"), ("iterations", "2")][..]),
        ("spmv-csr", &[("rows", "32k")][..]),
    ] {
        assert!(sharing(n, kv).pages > 0);
    }
}

#[test]
fn sad_equals_host_sads_and_has_61_blocks() {
    use super::sad::{geometry, MAX_POS, MPP};
    let mut w = build("sad", &[], 3);
    let g = geometry(244, 16);
    let reference: Vec<u16> = get(&w, "ref_image");
    let cur: Vec<u16> = get(&w, "cur_image");
    {
        let l = w.next_launch().unwrap().unwrap();
        assert_eq!(l.info().num_blocks(), 61, "CODA §6.3: 61 thread blocks");
        assert_eq!(l.info().block.x, 244);
    }
    let mut w = build("sad", &[], 3);
    let r = run(&mut w);
    assert_eq!(
        r.kernels,
        ["mb_sad_calc", "larger_sad_calc_8", "larger_sad_calc_16"]
    );
    let out: Vec<u16> = get(&w, "d_sads");
    let pitch = (g.mbw * 16) as i64;
    let mut exp = vec![0u16; out.len()];
    let mbs = g.mbw * g.mbh;
    // 4x4 SADs
    for by in 0..g.h / 4 {
        for bx in 0..g.w / 4 {
            for pos in 0..MAX_POS {
                let (dx, dy) = ((pos % 33) as i64 - 16, (pos / 33) as i64 - 16);
                let mut s = 0i32;
                for i in 0..16i64 {
                    let (x, y) = (bx as i64 * 4 + i % 4, by as i64 * 4 + i / 4);
                    let rx = (x + dx).clamp(0, g.w as i64 - 1);
                    let ry = (y + dy).clamp(0, g.h as i64 - 1);
                    s += (cur[(y * pitch + x) as usize] as i32
                        - reference[(ry * pitch + rx) as usize] as i32)
                        .abs();
                }
                exp[(g.row4x4(bx, by) * MPP + pos) as usize] = s as u16;
            }
        }
    }
    // larger shapes from the 4x4 SADs: rows of each macroblock in blk_sad
    let row =
        |base: u64, per_mb: u64, mbi: u64, k: u64| ((base * mbs + mbi * per_mb + k) * MPP) as usize;
    for mbi in 0..mbs {
        for pos in 0..MPP as usize {
            for q in 0..4u64 {
                let (tx, ty) = (q & 1, q >> 1);
                let base = ty * 8 + tx * 2;
                let b4 = |k: u64| exp[row(25, 16, mbi, base + k) + pos] as u32;
                let (i00, i01, i10, i11) = (b4(0), b4(1), b4(4), b4(5));
                exp[row(17, 8, mbi, ty * 4 + tx * 2) + pos] = (i00 + i10) as u16;
                exp[row(17, 8, mbi, ty * 4 + tx * 2 + 1) + pos] = (i01 + i11) as u16;
                exp[row(9, 8, mbi, ty * 4 + tx) + pos] = (i00 + i01) as u16;
                exp[row(9, 8, mbi, ty * 4 + tx + 2) + pos] = (i10 + i11) as u16;
                exp[row(5, 4, mbi, ty * 2 + tx) + pos] = (i00 + i01 + i10 + i11) as u16;
            }
            let b8 = |k: u64| exp[row(5, 4, mbi, k) + pos] as u32;
            let (i00, i01, i10, i11) = (b8(0), b8(1), b8(2), b8(3));
            let _ = &b8;
            exp[row(3, 2, mbi, 0) + pos] = (i00 + i10) as u16;
            exp[row(3, 2, mbi, 1) + pos] = (i01 + i11) as u16;
            exp[row(1, 2, mbi, 0) + pos] = (i00 + i01) as u16;
            exp[row(1, 2, mbi, 1) + pos] = (i10 + i11) as u16;
            exp[row(0, 1, mbi, 0) + pos] = (i00 + i01 + i10 + i11) as u16;
        }
    }
    // the larger kernels cover positions 0..1090 (545 ushort2 pairs); compare those
    for (i, (a, e)) in out.iter().zip(&exp).enumerate() {
        if (i as u64 % MPP) < 1090 {
            assert_eq!(
                a,
                e,
                "blk_sad[{i}] (row {}, pos {})",
                i as u64 / MPP,
                i as u64 % MPP
            );
        }
    }
}

#[test]
fn cfd_equals_host_euler_steps() {
    cfd_check(&[("elements", "1000"), ("iterations", "1")], 5);
}

/// The same check on the registry's default input (the missile mesh's element count; slow
/// in a debug build: `cargo test --release -p locus-workload -- --ignored cfd_default`).
#[test]
#[ignore]
fn cfd_default_equals_host_euler_steps() {
    cfd_check(&[], 1);
}

/// cfd against the host Euler solver on the model's mesh: per iteration the step factors,
/// then per Runge-Kutta stage every element's flux (own state, 4 neighbours, wing and far
/// field faces) and the update from the iteration's old variables. Fails if a SoA index, a
/// neighbour read, the stage factor or the launch order is wrong.
fn cfd_check(kv: &[(&str, &str)], seed: u64) {
    use super::cfd::{flux, St};
    let p = crate::bench::heteromark::tests::params("cfd", kv, seed);
    let nel = p.u64("elements", 0).unwrap() as usize;
    let iterations = p.u64("iterations", 0).unwrap() as usize;
    let nelr = nel.div_ceil(192) * 192; // padded to whole 192-thread blocks
    let mut w = build("cfd", kv, seed);
    let ese: Vec<i32> = get(&w, "elements_surrounding_elements");
    let nrm: Vec<f32> = get(&w, "normals");
    let areas: Vec<f32> = get(&w, "areas");
    let mut vars: Vec<f32> = get(&w, "variables");
    assert_eq!(vars.len(), 5 * nelr);
    let init = vars.clone();
    let r = run(&mut w);
    assert_eq!(r.kernels.len(), 7 * iterations);
    for it in r.kernels.chunks(7) {
        assert_eq!(it[0], "cuda_compute_step_factor");
        for stage in it[1..].chunks(2) {
            assert_eq!(stage, ["cuda_compute_flux", "cuda_time_step"]);
        }
    }
    let st = |v: &[f32], i: usize| {
        St::new(
            v[i],
            [v[i + nelr], v[i + 2 * nelr], v[i + 3 * nelr]],
            v[i + 4 * nelr],
        )
    };
    for _ in 0..iterations {
        let old = vars.clone();
        let sf: Vec<f32> = (0..nelr)
            .map(|i| {
                let s = st(&old, i);
                0.5 / (areas[i].sqrt() * (s.speed_sqd_pub().sqrt() + s.c_pub()))
            })
            .collect();
        for j in 0..3 {
            let fl: Vec<[f32; 5]> = (0..nelr)
                .map(|i| {
                    let nbs: Vec<_> = (0..4)
                        .map(|k| {
                            let nb = ese[i + k * nelr];
                            let n = [
                                nrm[i + k * nelr],
                                nrm[i + (k + 4) * nelr],
                                nrm[i + (k + 8) * nelr],
                            ];
                            (nb, n, (nb >= 0).then(|| st(&vars, nb as usize)))
                        })
                        .collect();
                    flux(&st(&vars, i), &nbs)
                })
                .collect();
            for i in 0..nelr {
                for v in 0..5 {
                    vars[i + v * nelr] = old[i + v * nelr] + sf[i] / (3 + 1 - j) as f32 * fl[i][v];
                }
            }
        }
    }
    // bit for bit: the kernel and the host evaluate the same f32 expressions in one order
    let got: Vec<f32> = get(&w, "variables");
    if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != vars[i].to_bits()) {
        panic!("variables[{i}]: {} vs host {}", got[i], vars[i]);
    }
    assert!(
        (0..got.len()).any(|i| got[i] != init[i]),
        "the state evolved"
    );
}

#[test]
fn hs3d_equals_host_sweeps_in_both_rasters() {
    let (nx, ny, nz) = (128usize, 8usize, 4usize);
    for raster in ["paper", "rodinia"] {
        let kv = [
            ("nx", "128"),
            ("ny", "8"),
            ("nz", "4"),
            ("iterations", "2"),
            ("raster", raster),
        ];
        let mut w = build("hs3d", &kv, 2);
        let p: Vec<f32> = get(&w, "p");
        let t0: Vec<f32> = get(&w, "tIn");
        let r = run(&mut w);
        assert_eq!(r.kernels, ["hotspotOpt1", "hotspotOpt1"]);
        let t1 = super::hs3d::hs3d_ref(&p, &t0, nx, ny, nz);
        let t2 = super::hs3d::hs3d_ref(&p, &t1, nx, ny, nz);
        let got: Vec<f32> = get(&w, "tIn"); // two sweeps end back in tIn
        for i in 0..got.len() {
            assert!(close(got[i], t2[i], 1e-5), "{raster} cell {i}");
        }
    }
}

#[test]
fn deterministic_streams_2() {
    deterministic("sad", &[]);
    deterministic("cfd", &[("elements", "3000")]);
    deterministic(
        "hs3d",
        &[("nx", "128"), ("ny", "8"), ("nz", "4"), ("iterations", "2")],
    );
}

#[test]
fn categories_2() {
    measured(sharing("sad", &[]));
    measured(sharing("cfd", &[("elements", "49152")]));
    let kv = [
        ("nx", "2048"),
        ("ny", "32"),
        ("nz", "4"),
        ("iterations", "1"),
    ];
    measured(sharing("hs3d", &kv));
    let mut kv2 = kv.to_vec();
    kv2.push(("raster", "paper"));
    measured(sharing("hs3d", &kv2));
    let missile = sharing("cfd", &[("elements", "48000"), ("far", "0.03")]);
    measured(missile);
    // Rodinia's 512-wide plane: pages stay on one GPU (spec A14), unless rastered as the paper
    let narrow = [
        ("nx", "512"),
        ("ny", "64"),
        ("nz", "4"),
        ("iterations", "1"),
    ];
    measured(sharing("hs3d", &narrow));
    let mut narrow_paper = narrow.to_vec();
    narrow_paper.push(("raster", "paper"));
    measured(sharing("hs3d", &narrow_paper));
}

/// Default-size runs: line requests, footprint and page sharing (slow; `--ignored`).
#[test]
#[ignore]
fn default_runs_report() {
    for s in super::SPECS {
        let mut w = build(s.name, &[], 1);
        let fp = w.memory().footprint();
        let t = std::time::Instant::now();
        let r = run(&mut w);
        let sh = sharing(s.name, &[]);
        eprintln!(
            "DEFAULT {}: {} launches, {} line reqs, {:.1} MB, {:.1}s; one-block {:.3} one-gpu {:.3} -> {}",
            s.name,
            r.kernels.len(),
            r.lines,
            fp as f64 / 1e6,
            t.elapsed().as_secs_f64(),
            sh.frac_one_block,
            sh.frac_one_gpu,
            sh.category
        );
    }
}

#[test]
fn hs_output_is_sorted_permutation_of_input() {
    let mut w = build("hs", &[("n", "20000")], 3);
    let mut input: Vec<f32> = get(&w, "d_input");
    input.truncate(20000);
    let r = run(&mut w);
    let passes = r.kernels.iter().filter(|k| *k == "mergeSortPass").count();
    assert_eq!(
        &r.kernels[..5],
        [
            "histogram1024Kernel",
            "bucketcount",
            "bucketprefixoffset",
            "bucketsort",
            "mergeSortFirst"
        ]
    );
    assert!(passes >= 2, "nrElems doubles until one thread per division");
    assert_eq!(r.kernels.last().unwrap(), "mergepack");
    assert_eq!(r.kernels.len(), 6 + passes);
    // mergeSortFirst writes d_input, each pass flips, mergepack writes the other buffer
    let last_written = if passes % 2 == 1 {
        "d_output"
    } else {
        "d_input"
    };
    let fin = if last_written == "d_input" {
        "d_output"
    } else {
        "d_input"
    };
    let got: Vec<f32> = get(&w, fin);
    let got = &got[..20000];
    assert!(got.windows(2).all(|p| p[0] <= p[1]), "sorted");
    let mut e = input.clone();
    e.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(got, &e[..], "a permutation of the input");
}

#[test]
fn hs_bucket_phase_coalescing() {
    let mut w = build("hs", &[("n", "65536")], 1);
    let mut bp = BlockProgram::default();
    let l = w.next_launch().unwrap().unwrap();
    assert_eq!((l.info().grid.x, l.info().block.x), (64, 96));
    drop(l);
    let mut l = w.next_launch().unwrap().unwrap();
    assert_eq!(l.info().name, "bucketcount");
    assert_eq!(l.info().grid.x, 16, "65536 / (32 x BUCKET_BAND)");
    l.block(0, false, 128, &mut bp).unwrap();
    // grid-stride: one input line per step, 128 steps; pivot search through texture
    let ins = &bp.warps[0].insts;
    let gl = ins
        .iter()
        .filter(|i| i.class == InstClass::Load && i.space == Space::Global)
        .count();
    assert_eq!(gl, 128);
    assert!(ins.iter().any(|i| i.space == Space::Texture));
}

#[test]
fn dwt_equals_host_fdwt53() {
    let (sx, sy) = (96usize, 40usize);
    let mut w = build(
        "dwt",
        &[("width", "96"), ("height", "40"), ("levels", "2")],
        4,
    );
    let src: Vec<u8> = get(&w, "d_src");
    let r = run(&mut w);
    let mut exp = vec!["c_CopySrcToComponents".to_string()];
    exp.extend(std::iter::repeat_n("fdwt53Kernel".to_string(), 6));
    assert_eq!(r.kernels, exp);
    for (k, name) in ["c_r_out", "c_g_out", "c_b_out"].iter().enumerate() {
        let plane: Vec<i32> = (0..sx * sy).map(|i| src[3 * i + k] as i32 - 128).collect();
        let e = super::dwt::fdwt53_ref(&plane, sx, sy, 2);
        let got: Vec<i32> = get(&w, name);
        assert_eq!(got, e, "{name}");
    }
}

#[test]
fn dwt_multi_step_windows_equal_host() {
    // 256 rows: steps = 3, so each block slides its window and the halo rows of the next
    // strip row come from the neighbouring tile; 1 level
    let (sx, sy) = (128usize, 256usize);
    let mut w = build(
        "dwt",
        &[("width", "128"), ("height", "256"), ("levels", "1")],
        7,
    );
    let src: Vec<u8> = get(&w, "d_src");
    let mut bp = BlockProgram::default();
    {
        w.next_launch().unwrap().unwrap();
    }
    {
        let mut l = w.next_launch().unwrap().unwrap();
        assert_eq!((l.info().grid.x, l.info().grid.y), (2, 11));
        assert_eq!(l.info().block.x, 64);
        l.block(0, true, 128, &mut bp).unwrap();
        // a row of 32 int columns is one line; thread 0-2 halo columns add lines
        let first = bp.warps[0]
            .insts
            .iter()
            .find(|i| i.class == InstClass::Load)
            .unwrap();
        assert_eq!(first.nlines, 1);
    }
    let mut w = build(
        "dwt",
        &[("width", "128"), ("height", "256"), ("levels", "1")],
        7,
    );
    run(&mut w);
    let plane: Vec<i32> = (0..sx * sy).map(|i| src[3 * i] as i32 - 128).collect();
    let e = super::dwt::fdwt53_ref(&plane, sx, sy, 1);
    assert_eq!(get::<i32>(&w, "c_r_out"), e);
}

#[test]
fn mg_matches_equal_naive_matcher() {
    let kv = [
        ("ref", "3000"),
        ("queries", "300"),
        ("min_len", "22"),
        ("max_len", "30"),
        ("min_match", "20"),
        ("error", "0.1"),
    ];
    let mut w = build("mg", &kv, 2);
    let text: Vec<u8> = get(&w, "ref");
    let q: Vec<u8> = get(&w, "queries");
    let addrs: Vec<i32> = get(&w, "queryAddrs");
    let lens: Vec<i32> = get(&w, "queryLengths");
    let r = run(&mut w);
    assert_eq!(r.kernels, ["mummergpuKernel"]);
    let res: Vec<u64> = get(&w, "match_coords");
    let mut k = 0usize;
    let mut long = 0;
    for (qa, ql) in addrs.iter().zip(&lens) {
        let qs_all = &q[*qa as usize..(*qa + *ql) as usize];
        for qs in 0..=(*ql as usize - 20) {
            let s = &qs_all[qs..];
            let best = (0..text.len())
                .map(|p| s.iter().zip(&text[p..]).take_while(|(a, b)| a == b).count())
                .max()
                .unwrap();
            assert_eq!(
                (res[k] & 0xFFFF_FFFF) as usize,
                best,
                "query at {qa}, start {qs}"
            );
            long += (best >= 12) as u32;
            k += 1;
        }
    }
    assert_eq!(k, res.len());
    assert!(long > 100, "reads sampled from the reference match long");
}

#[test]
fn mg_suffix_tree_is_a_suffix_tree() {
    let text = b"ACGTACGAACGTTGCA$";
    let t = super::mg::SuffixTree::build(text);
    // leaves = suffixes, every internal node (but the root) branches
    let leaves = (2..t.nodes.len())
        .filter(|&i| t.children[i].iter().all(|&c| c == 0))
        .count();
    assert_eq!(leaves, text.len());
    for i in 2..t.nodes.len() {
        let kids = t.children[i].iter().filter(|&&c| c != 0).count();
        assert!(kids == 0 || kids >= 2, "node {i}");
    }
}

#[test]
fn deterministic_streams_3() {
    deterministic("hs", &[("n", "8192")]);
    deterministic("dwt", &[("width", "64"), ("height", "32"), ("levels", "2")]);
    deterministic("mg", &[("ref", "4096"), ("queries", "512")]);
}

#[test]
fn categories_3() {
    // HS: CODA's "sharing" is not reproduced by the faithful kernels (see hs.rs): each
    // input page is one aligned Eq. 1 window of 32 bucket blocks; only the bucketsort
    // scatter target and the small tables span GPUs.
    let hs = sharing("hs", &[("n", "256k")]);
    measured(hs.clone());
    assert!(hs.frac_one_gpu > 0.6);
    let dwt = sharing(
        "dwt",
        &[("width", "1024"), ("height", "1024"), ("levels", "2")],
    );
    measured(dwt);
    // 16k reads (64 blocks over 3 GPUs): read and result pages stay with their blocks, tree
    // pages are read from every GPU
    let mg = sharing("mg", &[]);
    measured(mg);
}

/// Default-size runs of hs, dwt and mg (slow; `--ignored`).
#[test]
#[ignore]
fn default_runs_report_3() {
    for name in ["hs", "dwt", "mg"] {
        let mut w = build(name, &[], 1);
        let fp = w.memory().footprint();
        let t = std::time::Instant::now();
        let r = run(&mut w);
        let sh = sharing(name, &[]);
        eprintln!(
            "DEFAULT {name}: {} launches, {} line reqs, {:.1} MB, {:.1}s; one-block {:.3} one-gpu {:.3} -> {}",
            r.kernels.len(),
            r.lines,
            fp as f64 / 1e6,
            t.elapsed().as_secs_f64(),
            sh.frac_one_block,
            sh.frac_one_gpu,
            sh.category
        );
    }
}

/// Warp instructions and memory instructions of warp `warp` of block `block` of the first
/// launch of `name`, and that launch's kernel name.
fn first_launch_warp(
    name: &str,
    kv: &[(&str, &str)],
    block: u64,
    warp: usize,
) -> (usize, usize, String) {
    let mut w = build(name, kv, 1);
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    let kernel = l.info().name.clone();
    l.block(block, false, 128, &mut bp).unwrap();
    let insts = &bp.warps[warp].insts;
    let mem = insts.iter().filter(|i| i.class.is_mem()).count();
    (insts.len(), mem, kernel)
}

/// The models record per thread the SASS-level counts derived in their doc comments (issue 7
/// §1): a full, non-divergent warp issues exactly that many instructions (the merger adds
/// `BAR` and the final `EXIT`). Fails if a model drops or duplicates address arithmetic,
/// loop control or bound tests, or if the merger splits a uniform warp.
#[test]
fn warps_issue_their_compiled_instruction_counts() {
    // invert_mapping (nvcc's sm_90 schedule, the model's doc): entry 9, trip count 6, the
    // unrolled part's set-up 11 (+1 before chunks of 16), chunks of 16 (57) and of 8 (32),
    // a test of 2 after each size and 2 before the remainder, the remainder's set-up 6 and
    // 8 per feature, the merge's EXIT. 10 features: 9+6+11+2+32+2+2+6+2*8+1 = 87; 34 (the
    // SASS's 170 counted by hand in validation/gpu/h200/sass.txt): 9+6+11+1+2*57+2+2+2+6
    // +2*8+1. Memory: a load and a store per feature.
    for (nf, want) in [(10u64, 87), (34, 170)] {
        let s = nf.to_string();
        let (n, m, k) = first_launch_warp(
            "kmeans-transpose",
            &[("npoints", "1024"), ("nfeatures", &s)],
            0,
            0,
        );
        assert_eq!(k, "invert_mapping");
        assert_eq!((n, m), (want, 2 * nf as usize));
        // `loops=rolled`: one feature at a time, 9 + 7 per feature
        let (n, m, _) = first_launch_warp(
            "kmeans-transpose",
            &[("npoints", "1024"), ("nfeatures", &s), ("loops", "rolled")],
            0,
            0,
        );
        assert_eq!((n, m), (9 + 7 * nf as usize, 2 * nf as usize));
    }
    let (n, m, k) = first_launch_warp("nn", &[("records", "4096")], 0, 0);
    assert_eq!((k.as_str(), n, m), ("euclid", 21, 3));
    let (n, m, k) = first_launch_warp("ge", &[("n", "64"), ("steps", "1")], 0, 0);
    assert_eq!((k.as_str(), n, m), ("Fan1", 23, 3));
    // an interior 16x16 block of the 5-point sweep: 29 instructions, 6 memory
    let (n, m, k) = first_launch_warp("stencil2d", &[("n", "64"), ("iterations", "1")], 5, 0);
    assert_eq!((k.as_str(), n, m), ("jacobi5", 29, 6));
    let (n, m, k) = first_launch_warp("cfd", &[("elements", "1920")], 0, 0);
    assert_eq!((k.as_str(), n, m), ("cuda_compute_step_factor", 63, 7));
}

/// The registry defaults of `name`, resolved as the CLI does.
fn defaults(name: &str) -> crate::registry::Params {
    crate::registry::Params::resolve(registry::find(name).unwrap(), &BTreeMap::new(), 1).unwrap()
}

/// matrixMul on its default input against the host product.
#[test]
#[ignore]
fn matmul_default_equals_host_matmul() {
    let p = defaults("matmul");
    let d = |k| p.u64(k, 0).unwrap() as usize;
    let (m, k, n) = (d("m"), d("k"), d("n"));
    let mut w = build("matmul", &[], 2);
    run(&mut w);
    let (a, b, c): (Vec<f32>, Vec<f32>, Vec<f32>) = (get(&w, "A"), get(&w, "B"), get(&w, "C"));
    for i in 0..m {
        for j in 0..n {
            let e: f32 = (0..k).map(|q| a[i * k + q] * b[q * n + j]).sum();
            assert!(close(c[i * n + j], e, 1e-4), "C[{i}][{j}]");
        }
    }
}

/// Parboil sgemm (NT) on its default input against the host product.
#[test]
#[ignore]
fn mm_default_equals_host_sgemm_nt() {
    let p = defaults("mm");
    let d = |k| p.u64(k, 0).unwrap() as usize;
    let (m, n, k) = (d("m"), d("n"), d("k"));
    let mut w = build("mm", &[], 2);
    run(&mut w);
    let (a, b, c): (Vec<f32>, Vec<f32>, Vec<f32>) = (get(&w, "A"), get(&w, "B"), get(&w, "C"));
    for i in 0..m {
        for j in 0..n {
            let e: f32 = (0..k).map(|q| a[i + q * m] * b[j + q * n]).sum();
            assert!(close(c[i + j * m], e, 1e-4), "C[{i}][{j}]");
        }
    }
}

/// Parboil spmv (JDS) on its default matrix against the host CSR product.
#[test]
#[ignore]
fn spmv_jds_default_equals_host_spmv() {
    let p = defaults("spmv");
    let s = super::spmv_csr::matrix_spec(&p, 147456, 24, 2, 64, 0.1).unwrap();
    let a = crate::gen::matrix::banded_random(s, 7);
    let mut w = build("spmv", &[], 7);
    let x: Vec<f32> = get(&w, "x_vec");
    run(&mut w);
    let y: Vec<f32> = get(&w, "dst_vector");
    for (i, e) in a.spmv(&x).iter().enumerate() {
        assert!(close(y[i], *e, 1e-4), "row {i}: {} vs {e}", y[i]);
    }
}

/// Needleman-Wunsch on its default input against the host dynamic program.
#[test]
#[ignore]
fn nw_default_score_matrix_equals_host_dp() {
    let p = defaults("nw");
    let (n, pen) = (
        p.u64("n", 0).unwrap() as usize,
        p.u64("penalty", 0).unwrap() as i32,
    );
    let mut w = build("nw", &[], 4);
    let reference: Vec<i32> = get(&w, "referrence_cuda");
    let mut dp: Vec<i32> = get(&w, "matrix_cuda");
    run(&mut w);
    let c = n + 1;
    for i in 1..c {
        for j in 1..c {
            dp[i * c + j] = (dp[(i - 1) * c + j - 1] + reference[i * c + j])
                .max(dp[i * c + j - 1] - pen)
                .max(dp[(i - 1) * c + j] - pen);
        }
    }
    assert_eq!(get::<i32>(&w, "matrix_cuda"), dp);
}

/// K-means on its default input: every point's membership is a nearest centre.
#[test]
#[ignore]
fn km_default_memberships_match_host_nearest_centre() {
    let p = defaults("km");
    let d = |k| p.u64(k, 0).unwrap() as usize;
    let (np, nf, nc) = (d("npoints"), d("nfeatures"), d("nclusters"));
    let mut w = build("km", &[], 4);
    run(&mut w);
    let aos: Vec<f32> = get(&w, "feature_flipped_d");
    let cl: Vec<f32> = get(&w, "c_clusters");
    let memb: Vec<i32> = get(&w, "membership_d");
    for q in 0..np {
        let dist = |c: usize| -> f32 {
            (0..nf)
                .map(|f| (aos[q * nf + f] - cl[c * nf + f]).powi(2))
                .sum()
        };
        let best = (0..nc)
            .min_by(|&a, &b| dist(a).partial_cmp(&dist(b)).unwrap())
            .unwrap();
        assert!(close(dist(memb[q] as usize), dist(best), 1e-5), "point {q}");
    }
}

/// dwt2d on its default image against the host 5/3 transform of each plane.
#[test]
#[ignore]
fn dwt_default_equals_host_fdwt53() {
    let p = defaults("dwt");
    let d = |k| p.u64(k, 0).unwrap() as usize;
    let (sx, sy, levels) = (d("width"), d("height"), d("levels"));
    let mut w = build("dwt", &[], 4);
    let src: Vec<u8> = get(&w, "d_src");
    run(&mut w);
    for (k, name) in ["c_r_out", "c_g_out", "c_b_out"].iter().enumerate() {
        let plane: Vec<i32> = (0..sx * sy).map(|i| src[3 * i + k] as i32 - 128).collect();
        let e = super::dwt::fdwt53_ref(&plane, sx, sy, levels as u32);
        let got: Vec<i32> = get(&w, name);
        assert_eq!(got, e, "{name}");
    }
}

/// The longest run of consecutive loads in warp 0 of block 0 of `w`'s launch after
/// skipping `skip`, with offload markers recorded or not, and the warp's instruction count.
fn longest_load_run(w: &mut ModelWorkload, skip: usize, marks: bool) -> (usize, usize) {
    for _ in 0..skip {
        w.next_launch().unwrap().unwrap();
    }
    let mut l = w.next_launch().unwrap().unwrap();
    let mut bp = BlockProgram {
        offload_markers: marks,
        ..BlockProgram::default()
    };
    l.block(0, false, 128, &mut bp).unwrap();
    let insts = &bp.warps[0].insts;
    let (mut best, mut run) = (0, 0);
    for i in insts {
        run = if i.class == InstClass::Load {
            run + 1
        } else {
            0
        };
        best = best.max(run);
    }
    (best, insts.len())
}

/// kmeansPoint as nvcc compiles it (`loops=unrolled`, the default): each chunk of four
/// features issues its four texture fetches and four constant loads together before the
/// arithmetic that uses them (8 loads in a row), 1,403 warp instructions per warp with 5
/// clusters of 34 features (the count the model's doc derives from the sm_90 SASS, the
/// merge's `EXIT` added); `loops=rolled`, and any run that records NDP offload markers,
/// issue one feature at a time (2 loads in a row: the texture fetch and its centre). The
/// memberships are the same either way. Fails if the hoisting, the count or the rolled
/// form under markers is lost.
#[test]
fn km_unrolls_its_feature_loop_unless_rolled_or_marked() {
    let kv = |loops: &'static str| [("npoints", "4096"), ("iterations", "1"), ("loops", loops)];
    let (r, n) = longest_load_run(&mut build("km", &kv("unrolled"), 1), 1, false);
    assert_eq!((r, n), (8, 1404));
    let (r, _) = longest_load_run(&mut build("km", &kv("rolled"), 1), 1, false);
    assert_eq!(r, 2);
    let (r, _) = longest_load_run(&mut build("km", &kv("unrolled"), 1), 1, true);
    assert_eq!(r, 2, "offload markers: one iteration per block");
    let memb = |loops| {
        let mut w = build("km", &kv(loops), 1);
        run(&mut w);
        get::<i32>(&w, "membership_d")
    };
    assert_eq!(memb("unrolled"), memb("rolled"));
    let e = registry::build("km", &[("loops".to_string(), "x".to_string())].into(), 1)
        .err()
        .expect("loops=x is refused");
    assert!(e.to_string().contains("loops=x"), "{e}");
}

/// nvcc's chunking of an unrolled loop's iterations (a multiple of 4): 16s while more
/// than 12 remain, an 8 if more than 4 remain, then 4s; every iteration in exactly one
/// chunk.
#[test]
fn unrolled_chunks_follow_nvccs_thresholds() {
    use super::common::Unrolled;
    let u = |s, e, f| Unrolled {
        sixteens: s,
        eight: e,
        fours: f,
    };
    for (left, want) in [
        (0, u(0, false, 0)),
        (4, u(0, false, 1)),
        (8, u(0, true, 0)),
        (12, u(0, true, 1)),
        (16, u(1, false, 0)),
        (28, u(1, true, 1)),
        (32, u(2, false, 0)),
    ] {
        assert_eq!(Unrolled::of(left), want, "{left}");
    }
    for left in (0..400).step_by(4) {
        let c = Unrolled::of(left);
        assert_eq!(16 * c.sixteens + 8 * c.eight as u64 + 4 * c.fours, left);
    }
}
