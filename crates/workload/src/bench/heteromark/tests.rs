//! Tests of the Hetero-Mark models (results against host references on small inputs,
//! launch sequences, coalescing) and the helpers the other new suites' tests share.

use super::{fir, pagerank};
use crate::memory::Elem;
use crate::model::ModelWorkload;
use crate::program::{BlockProgram, InstClass, ObjId, Space, Workload};
use crate::registry::{self, Params};
use std::collections::{BTreeMap, HashMap};

/// Build registry workload `name` with parameters `kv` and `seed`.
pub(crate) fn build(name: &str, kv: &[(&str, &str)], seed: u64) -> ModelWorkload {
    let ov: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    registry::build(name, &ov, seed).unwrap()
}

/// Resolved parameters of `name` with `kv`.
pub(crate) fn params(name: &str, kv: &[(&str, &str)], seed: u64) -> Params {
    let ov: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Params::resolve(registry::find(name).unwrap(), &ov, seed).unwrap()
}

/// Counts of a complete functional run.
#[derive(Debug, Default)]
pub(crate) struct Run {
    /// Kernel names in launch order.
    pub kernels: Vec<String>,
    /// Warp instructions by class over the run.
    pub by_class: HashMap<InstClass, u64>,
    /// Memory warp instructions by space.
    pub by_space: HashMap<Space, u64>,
    /// Line requests of global/texture/constant instructions.
    pub lines: u64,
    /// Global/texture/constant memory warp instructions.
    pub mem_insts: u64,
}

/// Run every launch of `w` to completion.
pub(crate) fn run(w: &mut ModelWorkload) -> Run {
    let mut bp = BlockProgram::default();
    let mut r = Run::default();
    while let Some(mut l) = w.next_launch().unwrap() {
        r.kernels.push(l.info().name.clone());
        for b in 0..l.info().num_blocks() {
            l.block(b, false, 128, &mut bp).unwrap();
            for wp in &bp.warps {
                for inst in &wp.insts {
                    *r.by_class.entry(inst.class).or_default() += 1;
                    if inst.class.is_mem() {
                        *r.by_space.entry(inst.space).or_default() += 1;
                        if inst.space != Space::Shared {
                            r.mem_insts += 1;
                            r.lines += inst.nlines as u64;
                        }
                    }
                }
            }
        }
    }
    r
}

/// Object id of `name`.
pub(crate) fn obj(w: &ModelWorkload, name: &str) -> ObjId {
    crate::bench::testing::obj(w, name)
}

/// Contents of object `name`.
pub(crate) fn get<T: Elem>(w: &ModelWorkload, name: &str) -> Vec<T> {
    w.memory().to_vec(obj(w, name))
}

/// `a` and `b` equal within a relative tolerance.
pub(crate) fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// The default of parameter `p` in `name`'s registry entry, parsed.
pub(crate) fn listed_default(name: &str, p: &str) -> String {
    registry::find(name)
        .unwrap()
        .params
        .iter()
        .find(|x| x.name == p)
        .unwrap()
        .default
        .to_string()
}

#[test]
fn fir_blocks_with_history_equal_the_whole_signal_filter() {
    // 4 data blocks of 256 samples, 16 taps: every block boundary reads the history
    let kv = [("npb", "256"), ("nblocks", "4")];
    let (mut w, out) = fir::build_with_output(&params("fir", &kv, 1)).unwrap();
    let r = run(&mut w);
    assert_eq!(r.kernels, ["fir_cuda"; 4], "one launch per data block");
    let signal: Vec<f32> = (0..1024).map(|i| i as f32).collect();
    let coeff: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let want = fir::reference(&signal, &coeff);
    let got = out.lock().unwrap().clone();
    assert_eq!(
        got, want,
        "the kernel's order of operations gives identical floats"
    );
    // a boundary sample really needed the history: output 256 includes input 255
    assert!(got[256] > 0.0 && got[256] != coeff[0] * 256.0);
    // per warp 16 taps x 2 loads + 1 store; in warp 0 of each launch the lanes with
    // tid < i read the history at taps 1..15: two more (diverged) loads per such tap
    assert_eq!(r.mem_insts, 4 * ((256 / 32) * 33 + 15 * 2));
    assert_eq!(r.by_class[&InstClass::Store], 4 * 8);
}

#[test]
fn fir_coefficient_loads_broadcast_and_input_loads_coalesce() {
    let mut w = build("fir", &[("npb", "128"), ("taps", "4")], 1);
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    assert_eq!(l.info().block.x, 64);
    assert_eq!(l.info().num_blocks(), 2);
    l.block(1, false, 128, &mut bp).unwrap();
    // block 1 (tid 64..128): no history; per tap a coeff load (1 line, same address) and
    // an input load of 32 consecutive floats (one or two lines)
    let loads: Vec<_> = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load)
        .collect();
    assert_eq!(loads.len(), 8);
    for (k, i) in loads.iter().enumerate() {
        if k % 2 == 0 {
            assert_eq!(i.nlines, 1, "coeff[i] is one address for the warp");
        } else {
            assert!((1..=2).contains(&i.nlines), "input[tid - i]: {}", i.nlines);
        }
    }
}

#[test]
fn fir_default_input_follows_the_scale_rule() {
    assert_eq!(fir::default_npb(), (4 << 20) - 64);
    assert_eq!(listed_default("fir", "npb"), fir::default_npb().to_string());
    let w = build("fir", &[], 1);
    let fp = w.memory().footprint();
    assert!(fp <= crate::scale::FOOTPRINT_CAP_BYTES, "{fp}");
    assert!(fp > crate::scale::FOOTPRINT_CAP_BYTES / 2);
}

#[test]
fn hm_pagerank_matches_the_host_power_iteration() {
    let kv = [("nodes", "512"), ("sparsity", "0.02"), ("iters", "3")];
    let mut w = build("hm-pagerank", &kv, 7);
    let offsets: Vec<u32> = get(&w, "device_row_offsets");
    let cols: Vec<u32> = get(&w, "device_column_numbers");
    let vals: Vec<f32> = get(&w, "device_values");
    let n = 512usize;
    assert_eq!(offsets.len(), n + 1);
    assert_eq!(cols.len(), (512.0f64 * 512.0 * 0.02) as usize);
    // the generator: sorted distinct columns per row, columns normalised to 1
    let mut colsum = vec![0.0f32; n];
    for r in 0..n {
        let row = &cols[offsets[r] as usize..offsets[r + 1] as usize];
        assert!(row.windows(2).all(|p| p[0] < p[1]));
        for j in offsets[r] as usize..offsets[r + 1] as usize {
            colsum[cols[j] as usize] += vals[j];
        }
    }
    assert!(colsum.iter().all(|&s| s == 0.0 || close(s, 1.0, 1e-4)));
    let m = pagerank::Csr {
        offsets,
        cols,
        vals,
    };
    let r = run(&mut w);
    assert_eq!(r.kernels, ["pr_cuda"; 3]);
    let want = pagerank::reference(&m, 3);
    // 3 iterations: mtx_1 -> mtx_2 -> mtx_1 -> mtx_2
    let got: Vec<f32> = get(&w, "device_mtx_2");
    assert_eq!(got, want, "same order of operations, identical floats");
    // rank mass is conserved by a column-stochastic matrix (no empty columns here)
    let total: f32 = got.iter().sum();
    assert!(close(total, 1.0, 1e-3), "{total}");
}

#[test]
fn hm_pagerank_one_thread_per_row_loads_scatter() {
    // one thread per row: a warp's column-number loads at the first entry hit 32 rows far
    // apart (about 20 entries each), so nearly one line per lane
    let mut w = build(
        "hm-pagerank",
        &[("nodes", "4096"), ("sparsity", "0.005"), ("iters", "1")],
        3,
    );
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    assert_eq!(l.info().num_blocks(), 64);
    l.block(5, false, 128, &mut bp).unwrap();
    let loads: Vec<_> = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load)
        .collect();
    assert_eq!(loads[0].nlines, 1, "row_offsets[tid]: consecutive");
    assert!(
        loads[2].nlines >= 16,
        "column_numbers[j]: {}",
        loads[2].nlines
    );
}

#[test]
fn hm_pagerank_default_input_follows_the_scale_rule() {
    let n = pagerank::default_nodes();
    assert_eq!(listed_default("hm-pagerank", "nodes"), n.to_string());
    assert_eq!(n % 64, 0);
    assert_eq!(n, 64_000);
    assert!(pagerank::footprint(n, 0.001) <= crate::scale::FOOTPRINT_CAP_BYTES);
    assert!(pagerank::footprint(n + 64, 0.001) > crate::scale::FOOTPRINT_CAP_BYTES);
    assert_eq!(
        listed_default("hm-pagerank", "iters"),
        (pagerank::PAPER_ITERS >> pagerank::ITER_HALVINGS).to_string()
    );
}

/// A default parameter of `name` as a number (suffixes as the CLI reads them).
pub(crate) fn default_u64(name: &str, p: &str) -> u64 {
    params(name, &[], 1).u64(p, 0).unwrap()
}

/// FIR on its default input against the host filter of the whole signal.
#[test]
#[ignore]
fn fir_default_equals_the_whole_signal_filter() {
    let (mut w, out) = fir::build_with_output(&params("fir", &[], 1)).unwrap();
    let total = default_u64("fir", "npb") * default_u64("fir", "nblocks");
    let taps = default_u64("fir", "taps");
    run(&mut w);
    let signal: Vec<f32> = (0..total).map(|i| i as f32).collect();
    let coeff: Vec<f32> = (0..taps).map(|i| i as f32).collect();
    assert_eq!(*out.lock().unwrap(), fir::reference(&signal, &coeff));
}

/// Hetero-Mark PageRank on its default input against the host power iteration (the last
/// iteration writes `device_mtx_2` when the count is odd, `device_mtx_1` when even).
#[test]
#[ignore]
fn hm_pagerank_default_matches_the_host_power_iteration() {
    let mut w = build("hm-pagerank", &[], 7);
    let m = pagerank::Csr {
        offsets: get(&w, "device_row_offsets"),
        cols: get(&w, "device_column_numbers"),
        vals: get(&w, "device_values"),
    };
    let iters = default_u64("hm-pagerank", "iters");
    run(&mut w);
    let last = if iters % 2 == 1 {
        "device_mtx_2"
    } else {
        "device_mtx_1"
    };
    let got: Vec<f32> = get(&w, last);
    assert_eq!(got, pagerank::reference(&m, iters));
}
