//! Tests of the AMD APP SDK models against host references on small inputs.

use super::simpleconv;
use crate::bench::heteromark::tests::{build, get, listed_default, run};
use crate::program::{BlockProgram, InstClass, Workload};

#[test]
fn simpleconv_matches_the_host_reference_with_clamped_borders() {
    let (w, h, mw) = (48u64, 32u64, 5u64);
    let mut wl = build(
        "simpleconv",
        &[("width", "48"), ("height", "32"), ("mask", "5")],
        2,
    );
    let input: Vec<u32> = get(&wl, "inputBuffer");
    let mask: Vec<f32> = get(&wl, "maskBuffer");
    let r = run(&mut wl);
    assert_eq!(r.kernels, ["simpleConvolution"]);
    assert!(r.lines > 0);
    let got: Vec<u32> = get(&wl, "outputBuffer");
    assert_eq!(got, simpleconv::reference(&input, &mask, w, h, mw));
    // clamped window: a warp of row 0 (3 rows of window) issues fewer loads than a warp of
    // row 10 (5 rows), lanes of one warp share their row
    let mut wl = build(
        "simpleconv",
        &[("width", "64"), ("height", "16"), ("mask", "5")],
        2,
    );
    let mut bp = BlockProgram::default();
    let mut l = wl.next_launch().unwrap().unwrap();
    l.block(0, false, 128, &mut bp).unwrap();
    let loads = |bp: &BlockProgram, w: usize| {
        bp.warps[w]
            .insts
            .iter()
            .filter(|i| i.class == InstClass::Load)
            .map(|i| i.lanes as u64)
            .sum::<u64>()
    };
    // warp 0 = row 0, x 0..32: sum over lanes of 2 * cols(x) * 3 rows
    let cols = |x: u64| (x + 2).min(63) - x.saturating_sub(2) + 1;
    let want0: u64 = (0..32).map(|x| 2 * cols(x) * 3).sum();
    assert_eq!(loads(&bp, 0), want0);
    // warp 5 = row 2, x 32..64: five rows
    let want5: u64 = (32..64).map(|x| 2 * cols(x) * 5).sum();
    assert_eq!(loads(&bp, 5), want5);
}

#[test]
fn simpleconv_rows_of_a_warp_coalesce_and_mask_loads_broadcast() {
    let mut wl = build("simpleconv", &[("width", "256"), ("height", "16")], 1);
    let mut bp = BlockProgram::default();
    let mut l = wl.next_launch().unwrap().unwrap();
    assert_eq!(l.info().block.x, 256);
    l.block(5, false, 128, &mut bp).unwrap();
    // row 5, warp 1 (x 32..64, interior): 9 pixel loads of one line each (32 consecutive
    // u32 shifted by -1..1 straddle at most two lines), 9 mask loads of one address
    let loads: Vec<_> = bp.warps[1]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load)
        .collect();
    assert_eq!(loads.len(), 18);
    for (k, i) in loads.iter().enumerate() {
        if k % 2 == 1 {
            assert_eq!(i.nlines, 1, "mask value: one address per warp");
        } else {
            assert!((1..=2).contains(&i.nlines));
        }
    }
}

#[test]
fn simpleconv_default_input_follows_the_scale_rule() {
    let s = simpleconv::default_side();
    assert_eq!(s, 2032);
    assert_eq!(listed_default("simpleconv", "width"), s.to_string());
    let w = build("simpleconv", &[], 1);
    assert!(w.memory().footprint() <= crate::scale::FOOTPRINT_CAP_BYTES);
}

/// simpleConvolution on its default input against the clamped host convolution.
#[test]
#[ignore]
fn simpleconv_default_matches_the_host_reference() {
    let d = |p| crate::bench::heteromark::tests::default_u64("simpleconv", p);
    let mut wl = build("simpleconv", &[], 2);
    let input: Vec<u32> = get(&wl, "inputBuffer");
    let mask: Vec<f32> = get(&wl, "maskBuffer");
    run(&mut wl);
    let got: Vec<u32> = get(&wl, "outputBuffer");
    assert_eq!(
        got,
        simpleconv::reference(&input, &mask, d("width"), d("height"), d("mask"))
    );
}
