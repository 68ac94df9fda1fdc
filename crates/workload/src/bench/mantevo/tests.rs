//! Tests of the Mantevo models: results against a plain host implementation of the same
//! computation, the launch sequence of the host code and the access shapes of the kernels.

use super::minife::{assemble, default_dims, footprint, rule1_dims, COLS_PER_ROW};
use crate::bench::testing::{each_block, obj};
use crate::memory::Elem;
use crate::model::ModelWorkload;
use crate::program::{InstClass, Space};
use crate::registry;
use crate::scale::FOOTPRINT_CAP_BYTES;
use std::collections::BTreeMap;

fn build(name: &str, kv: &[(&str, &str)]) -> ModelWorkload {
    let ov: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    registry::build(name, &ov, 1).unwrap()
}

fn get<T: Elem>(w: &ModelWorkload, name: &str) -> Vec<T> {
    w.memory().to_vec(obj(w, name))
}

/// Plain CG of `cg_solve.hpp` on the ELL system, `iters` iterations: returns x and the
/// residual norms at the start of each iteration.
fn host_cg(nx: u64, ny: u64, nz: u64, iters: u64) -> (Vec<f64>, Vec<f64>) {
    let e = assemble(nx, ny, nz);
    let n = e.n as usize;
    let matvec = |v: &[f64]| -> Vec<f64> {
        (0..n)
            .map(|r| {
                let mut s = 0.0;
                for j in 0..COLS_PER_ROW as usize {
                    let o = j * e.pitch as usize + r;
                    if e.cols[o] != -1 {
                        s += e.coefs[o] * v[e.cols[o] as usize];
                    }
                }
                s
            })
            .collect()
    };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let mut x = vec![0.0; n];
    let mut p = x.clone();
    let ap = matvec(&p);
    let mut r: Vec<f64> = (0..n).map(|i| e.b[i] - ap[i]).collect();
    let mut rtrans = dot(&r, &r);
    let mut norms = Vec::new();
    for k in 1..=iters {
        if k == 1 {
            p.clone_from(&r);
        } else {
            let old = rtrans;
            rtrans = dot(&r, &r);
            let beta = rtrans / old;
            for i in 0..n {
                p[i] = r[i] + beta * p[i];
            }
        }
        norms.push(rtrans.sqrt());
        let ap = matvec(&p);
        let alpha = rtrans / dot(&ap, &p);
        for i in 0..n {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
    }
    (x, norms)
}

#[test]
fn minife_matrix_is_the_symmetric_27_point_stencil_with_dirichlet_rows() {
    let (nx, ny, nz) = (4u64, 3, 2);
    let e = assemble(nx, ny, nz);
    let (ax, ay) = (nx + 1, ny + 1);
    assert_eq!(e.n, 5 * 4 * 3);
    assert_eq!(e.pitch, 64);
    let at = |r: u64, c: u64| -> f64 {
        (0..COLS_PER_ROW)
            .map(|j| (j * e.pitch + r) as usize)
            .find(|&o| e.cols[o] == c as i32)
            .map_or(0.0, |o| e.coefs[o])
    };
    let id = |x: u64, y: u64, z: u64| x + ax * (y + ay * z);
    for r in 0..e.n {
        let (x, y, z) = (r % ax, (r / ax) % ay, r / (ax * ay));
        // entries: the in-box neighbours, ascending, then -1 padding
        let count = |c: u64, m: u64| if c == 0 || c == m { 2 } else { 3 };
        let want = count(x, nx) * count(y, ny) * count(z, nz);
        let row: Vec<i32> = (0..COLS_PER_ROW)
            .map(|j| e.cols[(j * e.pitch + r) as usize])
            .collect();
        assert!(row[..want as usize].windows(2).all(|w| w[0] < w[1]));
        assert!(row[want as usize..].iter().all(|&c| c == -1));
        if x == 0 || x == nx {
            // identity row with the prescribed value
            assert_eq!(at(r, r), 1.0);
            assert_eq!(e.b[r as usize], if x == 0 { 0.0 } else { 1.0 });
        } else {
            for c in 0..e.n {
                assert_eq!(at(r, c), at(c, r), "row {r} col {c}");
            }
        }
    }
    // an interior node: 8/3 on the diagonal, 0 to face neighbours, -1/6 along edges,
    // -1/12 to corners
    let c = id(2, 1, 1);
    assert!((at(c, c) - 8.0 / 3.0).abs() < 1e-15);
    assert_eq!(at(c, id(2, 2, 1)), 0.0);
    assert!((at(c, id(2, 2, 0)) + 1.0 / 6.0).abs() < 1e-15);
    assert!((at(c, id(3, 2, 0)) + 1.0 / 12.0).abs() < 1e-15);
    // the column next to the x = nx face moved its coupling into b
    assert!(e.b[id(3, 1, 1) as usize] > 0.0);
}

#[test]
fn minife_cg_matches_the_host_solve_and_launches_as_cg_solve() {
    let (nx, ny, nz, iters) = (6u64, 3, 3, 6u64);
    let mut w = build(
        "minife",
        &[("nx", "6"), ("ny", "3"), ("nz", "3"), ("max_iter", "6")],
    );
    let names = each_block(&mut w, |_, _| {});
    // 6 launches before the loop, 7 in iteration 1, 10 in each later one
    assert_eq!(names.len() as u64, 6 + 7 + 10 * (iters - 1));
    let dot = ["cudaMemset_kernel", "dot_kernel", "dot_final_reduce_kernel"];
    assert_eq!(
        names[..3],
        ["waxpby_kernel", "matvec_ell_kernel", "waxpby_kernel"]
    );
    assert_eq!(names[3..6], dot);
    assert_eq!(names[6..8], ["waxpby_kernel", "matvec_ell_kernel"]);
    assert_eq!(names[13..16], dot);
    assert_eq!(names[16..18], ["waxpby_kernel", "matvec_ell_kernel"]);
    let (want, norms) = host_cg(nx, ny, nz, iters);
    // CG makes progress (a broken matvec or dot would not)
    assert!(norms[iters as usize - 1] < 0.5 * norms[0]);
    let got: Vec<f64> = get(&w, "x");
    let scale = want.iter().fold(0f64, |m, v| m.max(v.abs()));
    assert!(scale > 0.1);
    for (i, (g, h)) in got.iter().zip(&want).enumerate() {
        assert!((g - h).abs() <= 1e-9 * scale, "x[{i}]: {g} vs {h}");
    }
}

#[test]
fn minife_dot_reduces_every_partial_sum_through_the_shared_tree() {
    // one iteration over a 1,331-row system: 3 blocks of dot_kernel, their partials in d
    let mut w = build(
        "minife",
        &[("nx", "10"), ("ny", "10"), ("nz", "10"), ("max_iter", "1")],
    );
    let d = obj(&w, "d");
    let mut shared_st = 0u64;
    let mut finals = 0u64;
    each_block(&mut w, |name, bp| {
        if name == "dot_final_reduce_kernel" {
            finals += 1;
            for wp in &bp.warps {
                shared_st += wp
                    .insts
                    .iter()
                    .filter(|i| i.class == InstClass::Store && i.space == Space::Shared)
                    .count() as u64;
            }
        }
    });
    assert_eq!(finals, 2);
    // per final reduce: 32 warps store red[tid]; barrier steps 512..64 use 16+8+4+2 warps;
    // the warp tail stores 5 times (offsets 32..2; 1 only adds)
    assert_eq!(shared_st, 2 * (32 + 16 + 8 + 4 + 2 + 5));
    // d[0] is the last p.Ap, equal to the host's within rounding
    let e = assemble(10, 10, 10);
    let r: Vec<f64> = e.b.clone();
    let n = e.n as usize;
    let ap: Vec<f64> = (0..n)
        .map(|row| {
            (0..COLS_PER_ROW as usize)
                .map(|j| j * e.pitch as usize + row)
                .filter(|&o| e.cols[o] != -1)
                .map(|o| e.coefs[o] * r[e.cols[o] as usize])
                .sum()
        })
        .collect();
    let pap: f64 = ap.iter().zip(&r).map(|(a, b)| a * b).sum();
    let got: f64 = w.memory().get(d, 0);
    assert!((got - pap).abs() <= 1e-12 * pap.abs(), "{got} vs {pap}");
}

#[test]
fn minife_matvec_reads_each_slot_coalesced_and_gathers_x_through_the_read_only_path() {
    let mut w = build(
        "minife",
        &[("nx", "15"), ("ny", "7"), ("nz", "7"), ("max_iter", "1")],
    );
    let cols = obj(&w, "A.cols");
    let coefs = obj(&w, "A.coefs");
    let p = obj(&w, "p");
    let (mut cols_loads, mut cols_lines, mut tex_loads) = (0u64, 0u64, 0u64);
    let mut coefs_lines_max = 0u16;
    each_block(&mut w, |name, bp| {
        if name != "matvec_ell_kernel" {
            return;
        }
        for wp in &bp.warps {
            for inst in &wp.insts {
                if inst.class != InstClass::Load || inst.nlines == 0 {
                    continue;
                }
                let lines = &wp.lines[inst.first_line as usize..][..inst.nlines as usize];
                if lines[0].obj == cols && inst.lanes == 32 {
                    cols_loads += 1;
                    cols_lines += inst.nlines as u64;
                }
                if lines[0].obj == coefs && inst.lanes == 32 {
                    coefs_lines_max = coefs_lines_max.max(inst.nlines);
                }
                if lines[0].obj == p {
                    assert_eq!(inst.space, Space::Texture);
                    tex_loads += 1;
                }
            }
        }
    });
    // 32 ints of one slot of 32 consecutive rows: one 128-byte line (pitch is a multiple
    // of 32 words); 32 doubles: two lines
    assert!(cols_loads > 0);
    assert_eq!(cols_lines, cols_loads);
    assert_eq!(coefs_lines_max, 2);
    assert!(tex_loads > 0);
}

#[test]
fn minife_default_follows_the_scale_rule() {
    assert_eq!(rule1_dims(), (70, 35, 35));
    assert!(footprint(70, 35, 35) <= FOOTPRINT_CAP_BYTES);
    // the paper input does not fit, and one more element in every dimension would not
    assert!(footprint(128, 64, 64) > FOOTPRINT_CAP_BYTES);
    assert!(footprint(71, 36, 36) > FOOTPRINT_CAP_BYTES);
    assert_eq!(default_dims(), (70, 35, 35));
    assert_eq!(
        super::minife::PAPER_MAX_ITER >> super::minife::ITER_HALVINGS,
        50
    );
    let spec = registry::find("minife").unwrap();
    for (k, v) in [("nx", "70"), ("ny", "35"), ("nz", "35"), ("max_iter", "50")] {
        assert_eq!(spec.params.iter().find(|p| p.name == k).unwrap().default, v);
    }
}

#[test]
fn minife_bad_input_names_the_parameters() {
    let ov: BTreeMap<String, String> = [("nx".to_string(), "0".to_string())].into();
    let e = registry::build("minife", &ov, 1).err().unwrap();
    assert!(format!("{e}").contains("`nx`"));
    let big = |n: &str| -> String {
        let ov: BTreeMap<String, String> = ["nx", "ny", "nz"]
            .iter()
            .map(|k| (k.to_string(), n.to_string()))
            .collect();
        format!("{}", registry::build("minife", &ov, 1).err().unwrap())
    };
    assert!(big("2000").contains("overflow"));
    assert!(big("400").contains("limit"));
}

/// The default input (rule 1's grid and miniFE's iteration count): the CG iterate equals
/// the host CG's.
#[test]
#[ignore]
fn minife_default_cg_matches_the_host_solve() {
    let d = |p| crate::bench::heteromark::tests::default_u64("minife", p);
    let (nx, ny, nz, iters) = (d("nx"), d("ny"), d("nz"), d("max_iter"));
    let mut w = build("minife", &[]);
    each_block(&mut w, |_, _| {});
    let (want, _) = host_cg(nx, ny, nz, iters);
    let got: Vec<f64> = get(&w, "x");
    let scale = want.iter().fold(0f64, |m, v| m.max(v.abs()));
    assert!(scale > 0.0);
    for (i, (g, h)) in got.iter().zip(&want).enumerate() {
        assert!((g - h).abs() <= 1e-9 * scale, "x[{i}]: {g} vs {h}");
    }
}
