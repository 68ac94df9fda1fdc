//! Tests of the SHOC models: results against host references on small inputs, the
//! mechanisms the public code implies (coalescing, shared-memory staging, launch sequences,
//! memory spaces) and the default inputs' sizes under the rule of `scale.rs`.

use crate::memory::Elem;
use crate::model::ModelWorkload;
use crate::program::{BlockProgram, InstClass, ObjId, Space, Workload};
use crate::registry;
use crate::scale::FOOTPRINT_CAP_BYTES;
use std::collections::BTreeMap;

pub(super) fn build(name: &str, kv: &[(&str, &str)], seed: u64) -> ModelWorkload {
    let ov: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    registry::build(name, &ov, seed).unwrap()
}

pub(super) fn build_err(name: &str, kv: &[(&str, &str)]) -> String {
    let ov: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match registry::build(name, &ov, 1) {
        Ok(_) => panic!("{name} {kv:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

/// Per-run totals by class and space, and the launches.
#[derive(Debug, Default)]
pub(super) struct Run {
    pub kernels: Vec<String>,
    pub lines: u64,
    /// Warp-level memory instructions per "space class" (e.g. "Texture Load").
    pub mem: BTreeMap<String, u64>,
    pub insts: u64,
    pub barriers: u64,
}

pub(super) fn run(w: &mut ModelWorkload) -> Run {
    let mut bp = BlockProgram::default();
    let mut r = Run::default();
    while let Some(mut l) = w.next_launch().unwrap() {
        r.kernels.push(l.info().name.clone());
        for b in 0..l.info().num_blocks() {
            l.block(b, false, 128, &mut bp).unwrap();
            for wp in &bp.warps {
                for i in &wp.insts {
                    r.insts += 1;
                    if i.class == InstClass::Barrier {
                        r.barriers += 1;
                    }
                    if i.class.is_mem() {
                        *r.mem
                            .entry(format!("{:?} {:?}", i.space, i.class))
                            .or_default() += 1;
                    }
                }
                r.lines += wp.lines.len() as u64;
            }
        }
    }
    r
}

pub(super) fn obj(w: &ModelWorkload, name: &str) -> ObjId {
    crate::bench::testing::obj(w, name)
}

pub(super) fn get<T: Elem>(w: &ModelWorkload, name: &str) -> Vec<T> {
    w.memory().to_vec(obj(w, name))
}

pub(super) fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// Footprint of a model's default input.
fn default_footprint(name: &str) -> u64 {
    build(name, &[], 1).memory().footprint()
}

#[test]
fn stencil2d_equals_host_stencil_over_iterations() {
    let (rows, cols) = (24usize, 64usize);
    for space in ["global", "texture"] {
        let kv = [
            ("rows", "24"),
            ("cols", "64"),
            ("lcols", "32"),
            ("iterations", "3"),
            ("data_space", space),
        ];
        let init: Vec<f32> = get(&build("shoc-stencil2d", &kv, 7), "data_a");
        let mut w = build("shoc-stencil2d", &kv, 7);
        let r = run(&mut w);
        assert_eq!(r.kernels, ["StencilKernel"; 3]);
        // 3 launches: the result is in data_b (odd count of swaps)
        let out: Vec<f32> = get(&w, "data_b");
        let want = super::stencil2d::host_stencil(&init, rows, cols, 3);
        for (i, (a, b)) in out.iter().zip(&want).enumerate() {
            assert!(close(*a, *b, 1e-5), "{space}: cell {i}: {a} vs {b}");
        }
        let (sp, other) = if space == "global" {
            ("Global Load", "Texture Load")
        } else {
            ("Texture Load", "Global Load")
        };
        assert!(r.mem[sp] > 0, "{space}: source reads through {sp}");
        assert!(!r.mem.contains_key(other), "{space}: no {other}");
    }
}

#[test]
fn stencil2d_stages_a_shared_tile_with_halo_and_coalesces() {
    // 2 row strips of 8 x 2 column blocks of 64 threads, one launch
    let kv = [
        ("rows", "16"),
        ("cols", "128"),
        ("lcols", "64"),
        ("iterations", "1"),
    ];
    let mut w = build("shoc-stencil2d", &kv, 1);
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    assert_eq!((l.info().grid.x, l.info().grid.y), (2, 2));
    assert_eq!((l.info().block.x, l.info().block.y), (1, 64));
    l.block(0, false, 128, &mut bp).unwrap();
    let w0 = &bp.warps[0];
    let count = |cls: InstClass, sp: Space| {
        w0.insts
            .iter()
            .filter(|i| i.class == cls && i.space == sp)
            .map(|i| i.lanes as u64)
            .sum::<u64>()
    };
    // per lane: 10 strip loads; lane 0 (the block's first column) also 10 halo loads
    assert_eq!(count(InstClass::Load, Space::Global), 32 * 10 + 10);
    assert_eq!(count(InstClass::Store, Space::Shared), 32 * 10 + 10);
    // 8 output rows of 9 shared reads each, 8 global stores
    assert_eq!(count(InstClass::Load, Space::Shared), 32 * 8 * 9);
    assert_eq!(count(InstClass::Store, Space::Global), 32 * 8);
    assert_eq!(
        w0.insts
            .iter()
            .filter(|i| i.class == InstClass::Barrier)
            .count(),
        1
    );
    // a strip row of 32 consecutive floats: 32 x 4 B spans at most 2 lines of 128 B
    for i in w0
        .insts
        .iter()
        .filter(|i| i.space == Space::Global && i.lanes == 32)
    {
        assert!(i.nlines <= 2, "coalesced row access");
    }
    // the halo-column copy of lane 0 is its own, one-lane instruction
    assert!(w0
        .insts
        .iter()
        .any(|i| i.class == InstClass::Load && i.space == Space::Global && i.lanes == 1));
}

#[test]
fn stencil2d_default_follows_rec_scaled_by_rule_1() {
    let (r, c) = super::stencil2d::default_dims();
    assert_eq!((r, c), (2040, 1792));
    assert!(super::stencil2d::footprint(4096, 4096) > 128 << 20);
    assert!(super::stencil2d::footprint(r, c) <= FOOTPRINT_CAP_BYTES);
    assert_eq!(
        default_footprint("shoc-stencil2d"),
        super::stencil2d::footprint(r, c)
    );
    let e = build_err("shoc-stencil2d", &[("data_space", "constant")]);
    assert!(e.contains("data_space"), "{e}");
    let e = build_err("shoc-stencil2d", &[("cols", "100")]);
    assert!(e.contains("lcols"), "{e}");
}

#[test]
fn triad_equals_host_triad_per_chunk_and_alternates_buffer_sets() {
    for b_space in ["global", "texture", "shared"] {
        let kv = [("chunk", "512"), ("chunks", "3"), ("b_space", b_space)];
        let mut w = build("shoc-triad", &kv, 3);
        let r = run(&mut w);
        assert_eq!(r.kernels, ["triad"; 3]);
        // chunk 2 went to set 0, chunk 1 to set 1
        for s in 0..2 {
            let (a, b, c): (Vec<f32>, Vec<f32>, Vec<f32>) = (
                get(&w, &format!("d_memA{s}")),
                get(&w, &format!("d_memB{s}")),
                get(&w, &format!("d_memC{s}")),
            );
            for i in 0..512 {
                assert_eq!(c[i], a[i] + 1.75 * b[i], "{b_space} set {s} [{i}]");
                assert!(c[i] != 0.0 || a[i] == 0.0);
            }
        }
        let a0: Vec<f32> = get(&w, "d_memA0");
        let a1: Vec<f32> = get(&w, "d_memA1");
        assert_ne!(a0, a1, "the two sets hold different chunks");
        // 3 launches x 512 threads / 32: one warp instruction per access kind
        let warps = 3 * 512 / 32;
        match b_space {
            "global" => assert_eq!(r.mem["Global Load"], 2 * warps),
            "texture" => {
                assert_eq!(r.mem["Global Load"], warps);
                assert_eq!(r.mem["Texture Load"], warps);
            }
            _ => {
                assert_eq!(r.mem["Global Load"], 2 * warps);
                assert_eq!(r.mem["Shared Store"], warps);
                assert_eq!(r.mem["Shared Load"], warps);
            }
        }
        // fully coalesced: 3 lines of 128 B per warp (A, B, C), plus none for shared
        assert_eq!(r.lines, 3 * warps);
    }
}

#[test]
fn triad_default_is_shocs_largest_chunk_scaled_to_the_cap() {
    let n = super::triad::default_chunk();
    assert_eq!(n, 2_796_160);
    const { assert!(3 * 4 * (4u64 << 20) > FOOTPRINT_CAP_BYTES) };
    assert!(default_footprint("shoc-triad") <= FOOTPRINT_CAP_BYTES);
    assert!(default_footprint("shoc-triad") > FOOTPRINT_CAP_BYTES - 3 * 4 * 128);
    let e = build_err("shoc-triad", &[("b_space", "constant")]);
    assert!(e.contains("b_space"), "{e}");
}

#[test]
fn reduction_partial_sums_equal_the_host_sum() {
    for sdata in ["shared", "global"] {
        // 8 blocks x 512 per grid step; 4096 elements: each thread 1 step... use 3 steps
        let kv = [
            ("n", "12288"),
            ("blocks", "8"),
            ("iterations", "2"),
            ("sdata_space", sdata),
        ];
        let mut w = build("shoc-reduction", &kv, 1);
        let r = run(&mut w);
        assert_eq!(r.kernels, ["reduce"; 2]);
        let input: Vec<f32> = get(&w, "d_idata");
        let part: Vec<f32> = get(&w, "d_odata");
        assert_eq!(part.len(), 8);
        let want: f32 = input.iter().sum();
        assert_eq!(part.iter().sum::<f32>(), want, "{sdata}");
        // block b's partial: its grid-strided pairs
        for (b, p) in part.iter().enumerate() {
            let mut s = 0f32;
            let mut i = b * 512;
            while i < 12288 {
                s += input[i..i + 512].iter().sum::<f32>();
                i += 8 * 512;
            }
            assert_eq!(*p, s, "{sdata} block {b}");
        }
        // 3 barriers per block (4 phases)
        assert_eq!(r.barriers, 2 * 8 * 8 * 3);
        if sdata == "shared" {
            assert!(r.mem["Shared Load"] > 0);
            assert_eq!(r.mem["Global Store"], 2 * 8, "one partial per block");
        } else {
            assert!(!r.mem.contains_key("Shared Load"));
            assert!(r.mem["Global Store"] > 2 * 8, "sdata stores are global");
        }
    }
}

#[test]
fn scan_equals_host_inclusive_scan() {
    for space in ["global", "texture"] {
        // 4 blocks, region of 640 float4s = 3 windows (the last one partial)
        let kv = [
            ("n", "10240"),
            ("blocks", "4"),
            ("iterations", "2"),
            ("idata_space", space),
        ];
        let mut w = build("shoc-scan", &kv, 1);
        let r = run(&mut w);
        assert_eq!(
            r.kernels,
            ["reduce", "scan_single_block", "bottom_scan"].repeat(2)
        );
        let input: Vec<f32> = get(&w, "d_idata");
        let out: Vec<f32> = get(&w, "d_odata");
        let want = super::scan::host_scan(&input);
        assert_eq!(out, want, "{space}");
        let sums: Vec<f32> = get(&w, "d_block_sums");
        // exclusive scan of the block sums (2560 elements per block, half of them 1)
        assert_eq!(sums, [0.0, 1280.0, 2560.0, 3840.0]);
        if space == "texture" {
            assert!(r.mem["Texture Load"] > 0);
        }
    }
}

#[test]
fn md_forces_equal_host_forces_and_list_is_the_nearest() {
    use crate::bench::dense::hs::F4;
    let (n, k) = (512usize, 16usize);
    for (ps, ns) in [("texture", "global"), ("global", "texture")] {
        let kv = [
            ("atoms", "512"),
            ("neighbors", "16"),
            ("position_space", ps),
            ("neighlist_space", ns),
        ];
        let mut w = build("shoc-md", &kv, 9);
        let r = run(&mut w);
        assert_eq!(r.kernels, ["compute_lj_force"]);
        let pos: Vec<F4> = get(&w, "d_position");
        let list: Vec<i32> = get(&w, "d_neighborList");
        // the list: each atom's k nearest others, nearest first (brute force)
        for i in (0..n).step_by(37) {
            let d = |j: usize| {
                let (p, q) = (pos[i].0, pos[j].0);
                (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)
            };
            let mut all: Vec<usize> = (0..n).filter(|&j| j != i).collect();
            all.sort_by(|&a, &b| d(a).total_cmp(&d(b)).then(a.cmp(&b)));
            let got: Vec<usize> = (0..k).map(|j| list[j * n + i] as usize).collect();
            assert_eq!(got, all[..k], "atom {i}");
        }
        let f: Vec<f32> = get(&w, "d_force");
        let want = super::md::host_forces(&pos, &list, k);
        assert!(want.iter().any(|&x| x != 0.0));
        for (i, (a, b)) in f.iter().zip(&want).enumerate() {
            assert!(close(*a, *b, 1e-5), "{ps}: force {i}: {a} vs {b}");
        }
        // per warp and neighbour one list load and one position fetch in their spaces
        let warps = (n / 32) as u64;
        let tex = r.mem.get("Texture Load").copied().unwrap_or(0);
        let glob = r.mem["Global Load"];
        // either way one of the two per-neighbour loads goes through the texture
        // (positions by default, the list when moved) and the other plus the own position
        // through global memory
        assert_eq!(tex, warps * k as u64);
        assert_eq!(glob, warps * (k as u64 + 1));
        assert_eq!(r.mem["Global Store"], 3 * warps);
    }
}

#[test]
fn md_neighbor_list_reads_coalesce_and_gathers_scatter() {
    let mut w = build("shoc-md", &[("atoms", "1024"), ("neighbors", "8")], 2);
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    l.block(0, false, 128, &mut bp).unwrap();
    let w0 = &bp.warps[0];
    let nl: Vec<_> = w0
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load && i.space == Space::Global && i.lanes == 32)
        .skip(1)
        .collect();
    assert_eq!(nl.len(), 8);
    assert!(
        nl.iter().all(|i| i.nlines == 1),
        "column-major list: one line"
    );
    let tex: Vec<_> = w0
        .insts
        .iter()
        .filter(|i| i.space == Space::Texture)
        .collect();
    assert!(
        tex.iter().map(|i| i.nlines as u64).sum::<u64>() > 8 * 8,
        "random neighbours: scattered position fetches"
    );
}

#[test]
fn spmv_equals_host_csr_product() {
    for (vs, rs, cs) in [
        ("texture", "global", "global"),
        ("global", "constant", "texture"),
        ("constant", "texture", "global"),
    ] {
        let kv = [
            ("dim", "200"),
            ("density_pct", "7"),
            ("iterations", "2"),
            ("vec_space", vs),
            ("rowd_space", rs),
            ("cols_space", cs),
        ];
        let mut w = build("shoc-spmv", &kv, 4);
        let r = run(&mut w);
        assert_eq!(r.kernels, ["spmv_csr_vector_kernel"; 2]);
        let (val, cols, rowd, x): (Vec<f32>, Vec<i32>, Vec<i32>, Vec<f32>) = (
            get(&w, "d_val"),
            get(&w, "d_cols"),
            get(&w, "d_rowDelimiters"),
            get(&w, "d_vec"),
        );
        assert_eq!(*rowd.last().unwrap() as usize, 200 * 200 * 7 / 100);
        let out: Vec<f32> = get(&w, "d_out");
        for i in 0..200 {
            let e: f32 = (rowd[i]..rowd[i + 1])
                .map(|j| val[j as usize] * x[cols[j as usize] as usize])
                .sum();
            assert!(close(out[i], e, 1e-5), "row {i}: {} vs {e}", out[i]);
        }
        let sp = |s: &str| match s {
            "texture" => "Texture Load",
            "constant" => "Constant Load",
            _ => "Global Load",
        };
        for s in [vs, rs, cs] {
            assert!(r.mem[sp(s)] > 0, "{s}");
        }
    }
    let e = build_err("shoc-spmv", &[("vec_space", "constant"), ("dim", "20000")]);
    assert!(e.contains("vec_space") && e.contains("64 KiB"), "{e}");
}

#[test]
fn spmv_one_warp_per_row_broadcasts_the_row_bounds() {
    let mut w = build("shoc-spmv", &[("dim", "64"), ("density_pct", "50")], 1);
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    assert_eq!(l.info().num_blocks(), 16, "4 rows per 128-thread block");
    l.block(0, false, 128, &mut bp).unwrap();
    assert_eq!(bp.warps.len(), 4);
    let first = bp.warps[0]
        .insts
        .iter()
        .find(|i| i.class == InstClass::Load)
        .unwrap();
    assert_eq!((first.lanes, first.nlines), (32, 1), "rowDelimiters[myRow]");
    // lane 0 alone stores the row's sum
    let st: Vec<_> = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Store && i.space == Space::Global)
        .collect();
    assert_eq!(st.len(), 1);
    assert_eq!(st[0].lanes, 1);
}

#[test]
fn bfs_levels_equal_host_bfs_and_launches_follow_the_flag() {
    for es in ["global", "texture"] {
        let kv = [
            ("vertices", "300"),
            ("degree", "3"),
            ("block", "64"),
            ("edge_space", es),
        ];
        let mut w = build("shoc-bfs", &kv, 1);
        let r = run(&mut w);
        let (off, list): (Vec<u32>, Vec<u32>) = (get(&w, "d_edgeArray"), get(&w, "d_edgeArrayAux"));
        assert_eq!(off, super::bfs::kway_graph(300, 3).0);
        let want = super::bfs::host_levels(&off, &list);
        let got: Vec<u32> = get(&w, "d_costArray");
        assert_eq!(got, want);
        // one launch per level plus the last one that finds nothing
        let depth = *want.iter().max().unwrap() as usize;
        assert_eq!(r.kernels.len(), depth + 1);
        assert_eq!(r.kernels[0], "BFS_kernel_warp");
        if es == "texture" {
            assert!(r.mem["Texture Load"] > 0);
        } else {
            assert!(!r.mem.contains_key("Texture Load"));
        }
    }
}

#[test]
fn bfs_warp_reads_each_owned_vertex_level_as_one_broadcast() {
    let mut w = build("shoc-bfs", &[("vertices", "1000")], 1);
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    assert_eq!(l.info().num_blocks(), 1);
    l.block(0, false, 128, &mut bp).unwrap();
    // warp 0 owns vertices 0..32: warp-wide loads of levels[v], one line each (after the
    // root's neighbour loop, run by lanes 0 and 1, the model's positional merge keeps
    // those two lanes apart from the other 30: no reconvergence, see the report)
    let lv: Vec<_> = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load && i.lanes >= 30)
        .collect();
    assert!(lv.len() >= 32, "{}", lv.len());
    assert!(lv.iter().all(|i| i.nlines == 1));
    // the root's two children are discovered by lanes 0 and 1 only
    let st: Vec<_> = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Store)
        .collect();
    assert!(!st.is_empty() && st.iter().all(|i| i.lanes <= 2));
}

#[test]
fn fft512_equals_host_dft() {
    use super::fft::F2;
    for sm in ["shared", "global"] {
        let kv = [("ffts", "3"), ("smem_space", sm)];
        let input: Vec<F2> = get(&build("shoc-fft", &kv, 5), "work");
        let mut w = build("shoc-fft", &kv, 5);
        let r = run(&mut w);
        assert_eq!(r.kernels, ["FFT512_device"]);
        assert_eq!(r.barriers, 3 * 2 * 7, "7 __syncthreads per warp");
        let out: Vec<F2> = get(&w, "work");
        for f in 0..3 {
            let want = super::fft::dft512(&input[f * 512..(f + 1) * 512]);
            for k in 0..512 {
                let (g, e) = (out[f * 512 + k].0, want[k]);
                let err = ((g[0] as f64 - e[0]).powi(2) + (g[1] as f64 - e[1]).powi(2)).sqrt();
                assert!(err < 1e-3 * 23.0, "{sm} fft {f} bin {k}: {g:?} vs {e:?}");
            }
        }
        if sm == "shared" {
            // per warp 4 exchanges of 16 shared accesses: 32 stores and 32 loads
            assert_eq!(r.mem["Shared Store"], 3 * 2 * 32);
            assert_eq!(r.mem["Shared Load"], 3 * 2 * 32);
            assert_eq!(r.mem["Global Load"], 3 * 2 * 8);
        } else {
            assert!(!r.mem.contains_key("Shared Load"));
            assert_eq!(r.mem["Global Load"], 3 * 2 * (8 + 32));
        }
    }
}

#[test]
fn sort_reorder_passes_sort_keys_with_their_values() {
    for sb in ["shared", "global"] {
        let kv = [("n", "2048"), ("sblockoffsets_space", sb)];
        let orig: Vec<u32> = get(&build("shoc-sort", &kv, 3), "d_keys");
        let mut w = build("shoc-sort", &kv, 3);
        let r = run(&mut w);
        assert_eq!(r.kernels, ["reorderData"; 8], "8 passes of 4 bits");
        let keys: Vec<u32> = get(&w, "d_keys");
        let vals: Vec<u32> = get(&w, "d_vals");
        let mut want = orig.clone();
        want.sort();
        assert_eq!(keys, want);
        for (k, v) in keys.iter().zip(&vals) {
            assert_eq!(*k, orig[*v as usize], "value follows its key");
        }
        // stable: equal keys keep their original order
        for j in 1..keys.len() {
            if keys[j] == keys[j - 1] {
                assert!(vals[j] > vals[j - 1]);
            }
        }
        if sb == "global" {
            assert!(r.mem["Global Store"] > 8 * 4 * 8 * 2);
        }
    }
}

#[test]
fn md5hash_finds_the_searched_key() {
    use super::md5hash::{index_to_key, md5_2words};
    // SHOC's digest function is its own (every round updates `a`), deterministic and
    // sensitive to every key byte
    let k = index_to_key(1234567, 10);
    assert_eq!(k, [7, 6, 5, 4, 3, 2, 1, 0]);
    assert_ne!(md5_2words(&k, 7), md5_2words(&index_to_key(1234568, 10), 7));
    assert_ne!(md5_2words(&k, 7), md5_2words(&k, 6));
    for seed in [1, 2] {
        let kv = [
            ("byte_length", "4"),
            ("vals_per_byte", "8"),
            ("keyspace", "4000"),
        ];
        let mut w = build("shoc-md5hash", &kv, seed);
        let r = run(&mut w);
        assert_eq!(r.kernels, ["FindKeyWithDigest_Kernel"]);
        let idx: Vec<i32> = get(&w, "d_foundIndex");
        assert!(idx[0] >= 0 && idx[0] < 4000);
        let key: Vec<u8> = get(&w, "d_foundKey");
        assert_eq!(key, index_to_key(idx[0] as u64, 8));
        let dg: Vec<u32> = get(&w, "d_foundDigest");
        assert_eq!(dg, md5_2words(&index_to_key(idx[0] as u64, 8), 4));
        // one thread stores: 13 one-lane stores, no loads
        assert_eq!(r.mem["Global Store"], 13);
        assert!(!r.mem.contains_key("Global Load"));
        // 500 threads of 8 keys: compute only, thousands of instructions per warp
        assert!(r.insts > 16 * 8 * 300);
    }
}

#[test]
fn s3d_gr_base_equals_host_concentrations() {
    for ys in ["global", "texture"] {
        let mut w = build(
            "shoc-s3d",
            &[("side", "8"), ("y_space", ys), ("p_space", ys)],
            1,
        );
        let r = run(&mut w);
        assert_eq!(r.kernels, ["gr_base"]);
        let n = 512usize;
        let (p, t, y): (Vec<f32>, Vec<f32>, Vec<f32>) =
            (get(&w, "gpu_p"), get(&w, "gpu_t"), get(&w, "gpu_y"));
        let c: Vec<f32> = get(&w, "gpu_c");
        for i in [0usize, 77, 511] {
            let yy: Vec<f32> = (0..22).map(|k| y[k * n + i]).collect();
            let want = super::s3d::gr_point(p[i], t[i], &yy);
            for k in 0..22 {
                assert_eq!(c[k * n + i], want[k], "{ys} point {i} species {k}");
            }
        }
        // species 4 (index 3): 0.218 / 31.999 g/mol scaled by P / (sum T R)
        assert!(c[3 * n] > c[0] * 1e6);
        // per warp: 22 Y loads, 44 C stores, each one line (SoA, coalesced)
        let warps = (n / 32) as u64;
        if ys == "texture" {
            assert_eq!(r.mem["Texture Load"], warps * 23, "P and Y");
            assert_eq!(r.mem["Global Load"], warps, "T");
        } else {
            assert_eq!(r.mem["Global Load"], warps * 24);
        }
        assert_eq!(r.mem["Global Store"], warps * 44);
        assert_eq!(r.lines, warps * (24 + 44));
    }
}

#[test]
fn neuralnet_feed_forward_equals_host_network() {
    for ws in ["global", "texture", "constant"] {
        let kv = [
            ("inputs", "100"),
            ("hidden", "40"),
            ("outputs", "10"),
            ("images", "3"),
            ("weights_space", ws),
        ];
        let mut w = build("shoc-neuralnet", &kv, 2);
        let r = run(&mut w);
        assert_eq!(
            r.kernels,
            ["kernelFeedForward1", "kernelFeedForward2"].repeat(6)
        );
        let (wt, b, x): (Vec<f32>, Vec<f32>, Vec<f32>) = (
            get(&w, "D__WEIGHTS"),
            get(&w, "D__BIASES"),
            get(&w, "training_data_x"),
        );
        let out: Vec<f32> = get(&w, "activations2");
        for img in 0..3 {
            let want =
                super::neuralnet::host_forward(&[100, 40, 10], &wt, &b, &x[img * 100..][..100]);
            for j in 0..10 {
                assert!(
                    close(out[img * 10 + j], want[j], 1e-5),
                    "{ws} image {img} out {j}"
                );
            }
        }
        let key = match ws {
            "global" => "Global Load",
            "texture" => "Texture Load",
            _ => "Constant Load",
        };
        // weights: per image 100 steps x 2 warps (40 threads) + 40 steps x 1 warp
        if ws == "global" {
            // plus the activations (as many) and kernelFeedForward2's zs and bias loads
            assert_eq!(r.mem[key], 3 * (2 * 240 + 2 * 2 + 2));
        } else {
            assert_eq!(r.mem[key], 3 * 240);
            assert_eq!(r.mem["Global Load"], 3 * (240 + 2 * 2 + 2));
        }
    }
    let e = build_err("shoc-neuralnet", &[("weights_space", "constant")]);
    assert!(e.contains("64 KiB"), "{e}");
}

#[test]
fn neuralnet_weight_rows_are_uncoalesced() {
    let mut w = build("shoc-neuralnet", &[("images", "1")], 1);
    let mut bp = BlockProgram::default();
    let mut l = w.next_launch().unwrap().unwrap();
    assert_eq!(l.info().block.x, 30);
    l.block(0, false, 128, &mut bp).unwrap();
    let loads: Vec<_> = bp.warps[0]
        .insts
        .iter()
        .filter(|i| i.class == InstClass::Load)
        .collect();
    // alternating weight (30 lanes, rows 784 floats apart: 30 lines) and activation
    // (broadcast: 1 line) loads
    assert_eq!(loads.len(), 2 * 784);
    assert!(loads.iter().step_by(2).all(|i| i.nlines == 30));
    assert!(loads.iter().skip(1).step_by(2).all(|i| i.nlines == 1));
}

/// A default parameter of a SHOC model as a number.
fn dflt(name: &str, p: &str) -> u64 {
    crate::bench::heteromark::tests::default_u64(name, p)
}

/// Stencil2D on its default input (REC's size under rule 1) against the host stencil.
#[test]
#[ignore]
fn stencil2d_default_equals_host_stencil() {
    let name = "shoc-stencil2d";
    let (rows, cols, iters) = (
        dflt(name, "rows") as usize,
        dflt(name, "cols") as usize,
        dflt(name, "iterations") as usize,
    );
    let init: Vec<f32> = get(&build(name, &[], 7), "data_a");
    let mut w = build(name, &[], 7);
    let r = run(&mut w);
    assert_eq!(r.kernels.len(), iters);
    let out: Vec<f32> = get(&w, if iters % 2 == 1 { "data_b" } else { "data_a" });
    let want = super::stencil2d::host_stencil(&init, rows, cols, iters);
    for (i, (a, b)) in out.iter().zip(&want).enumerate() {
        assert!(close(*a, *b, 1e-5), "cell {i}: {a} vs {b}");
    }
}

/// Triad on its default input: the last two chunks (one per buffer set) are `A + s B`.
#[test]
#[ignore]
fn triad_default_equals_host_triad() {
    let mut w = build("shoc-triad", &[], 3);
    let chunk = dflt("shoc-triad", "chunk") as usize;
    let chunks = dflt("shoc-triad", "chunks") as usize;
    let r = run(&mut w);
    assert_eq!(r.kernels.len(), chunks);
    for s in 0..chunks.min(2) {
        let (a, b, c): (Vec<f32>, Vec<f32>, Vec<f32>) = (
            get(&w, &format!("d_memA{s}")),
            get(&w, &format!("d_memB{s}")),
            get(&w, &format!("d_memC{s}")),
        );
        for i in 0..chunk {
            assert_eq!(c[i], a[i] + 1.75 * b[i], "set {s} [{i}]");
        }
    }
}

/// Reduction on its default input: each block's partial is the sum of its grid-strided
/// 512-element slices and the partials add up to the host sum.
#[test]
#[ignore]
fn reduction_default_partial_sums_equal_the_host_sum() {
    let mut w = build("shoc-reduction", &[], 1);
    let (n, blocks) = (
        dflt("shoc-reduction", "n") as usize,
        dflt("shoc-reduction", "blocks") as usize,
    );
    run(&mut w);
    let input: Vec<f32> = get(&w, "d_idata");
    let part: Vec<f32> = get(&w, "d_odata");
    assert_eq!(part.len(), blocks);
    let mut total = 0f64;
    for (b, p) in part.iter().enumerate() {
        let mut s = 0f64;
        let mut i = b * 512;
        while i < n {
            s += input[i..(i + 512).min(n)]
                .iter()
                .map(|&v| v as f64)
                .sum::<f64>();
            i += blocks * 512;
        }
        assert!(close(*p, s as f32, 1e-5), "block {b}: {p} vs {s}");
        total += s;
    }
    let want: f64 = input.iter().map(|&v| v as f64).sum();
    assert!((total - want).abs() <= 1e-9 * want.abs().max(1.0));
}

/// Scan on its default input against the host inclusive scan.
#[test]
#[ignore]
fn scan_default_equals_host_inclusive_scan() {
    let mut w = build("shoc-scan", &[], 1);
    run(&mut w);
    let input: Vec<f32> = get(&w, "d_idata");
    let out: Vec<f32> = get(&w, "d_odata");
    let want = super::scan::host_scan(&input);
    assert_eq!(out.len(), want.len());
    for (i, (a, b)) in out.iter().zip(&want).enumerate() {
        assert!(close(*a, *b, 1e-6), "[{i}]: {a} vs {b}");
    }
}

/// SpMV (CSR vector kernel) on its default matrix against the host product.
#[test]
#[ignore]
fn spmv_default_equals_host_csr_product() {
    let mut w = build("shoc-spmv", &[], 4);
    run(&mut w);
    let (val, cols, rowd, x): (Vec<f32>, Vec<i32>, Vec<i32>, Vec<f32>) = (
        get(&w, "d_val"),
        get(&w, "d_cols"),
        get(&w, "d_rowDelimiters"),
        get(&w, "d_vec"),
    );
    let out: Vec<f32> = get(&w, "d_out");
    let rows = dflt("shoc-spmv", "dim") as usize;
    for i in 0..rows {
        let e: f32 = (rowd[i]..rowd[i + 1])
            .map(|j| val[j as usize] * x[cols[j as usize] as usize])
            .sum();
        assert!(close(out[i], e, 1e-5), "row {i}: {} vs {e}", out[i]);
    }
}

/// BFS (warp kernel) on its default graph against the host levels.
#[test]
#[ignore]
fn bfs_default_levels_equal_host_bfs() {
    let mut w = build("shoc-bfs", &[], 1);
    let r = run(&mut w);
    let (off, list): (Vec<u32>, Vec<u32>) = (get(&w, "d_edgeArray"), get(&w, "d_edgeArrayAux"));
    let want = super::bfs::host_levels(&off, &list);
    assert_eq!(get::<u32>(&w, "d_costArray"), want);
    assert_eq!(r.kernels.len(), *want.iter().max().unwrap() as usize + 1);
}

/// FFT512 on its default batch against the host DFT of every transform.
#[test]
#[ignore]
fn fft512_default_equals_host_dft() {
    use super::fft::F2;
    let input: Vec<F2> = get(&build("shoc-fft", &[], 5), "work");
    let mut w = build("shoc-fft", &[], 5);
    run(&mut w);
    let out: Vec<F2> = get(&w, "work");
    for f in 0..input.len() / 512 {
        let want = super::fft::dft512(&input[f * 512..(f + 1) * 512]);
        for k in 0..512 {
            let (g, e) = (out[f * 512 + k].0, want[k]);
            let err = ((g[0] as f64 - e[0]).powi(2) + (g[1] as f64 - e[1]).powi(2)).sqrt();
            assert!(err < 1e-3 * 23.0, "fft {f} bin {k}: {g:?} vs {e:?}");
        }
    }
}

/// Radix sort (reorderData passes) on its default keys: sorted, stable, values follow.
#[test]
#[ignore]
fn sort_default_sorts_keys_with_their_values() {
    let orig: Vec<u32> = get(&build("shoc-sort", &[], 3), "d_keys");
    let mut w = build("shoc-sort", &[], 3);
    run(&mut w);
    let keys: Vec<u32> = get(&w, "d_keys");
    let vals: Vec<u32> = get(&w, "d_vals");
    let mut want = orig.clone();
    want.sort();
    assert_eq!(keys, want);
    for (k, v) in keys.iter().zip(&vals) {
        assert_eq!(*k, orig[*v as usize], "value follows its key");
    }
    for j in 1..keys.len() {
        if keys[j] == keys[j - 1] {
            assert!(vals[j] > vals[j - 1]);
        }
    }
}

/// MD5Hash on its default key space: the reported key hashes to the reported digest.
#[test]
#[ignore]
fn md5hash_default_finds_the_searched_key() {
    use super::md5hash::{index_to_key, md5_2words};
    let (len, vals) = (
        dflt("shoc-md5hash", "byte_length"),
        dflt("shoc-md5hash", "vals_per_byte"),
    );
    let space = dflt("shoc-md5hash", "keyspace") as i64;
    let mut w = build("shoc-md5hash", &[], 1);
    run(&mut w);
    let idx: Vec<i32> = get(&w, "d_foundIndex");
    assert!(idx[0] >= 0 && (idx[0] as i64) < space);
    let key: Vec<u8> = get(&w, "d_foundKey");
    assert_eq!(key, index_to_key(idx[0] as u64, vals));
    let dg: Vec<u32> = get(&w, "d_foundDigest");
    assert_eq!(
        dg,
        md5_2words(&index_to_key(idx[0] as u64, vals), len as u32)
    );
}

/// S3D gr_base on its default grid: every point's 22 concentrations equal the host's.
#[test]
#[ignore]
fn s3d_default_equals_host_concentrations() {
    let mut w = build("shoc-s3d", &[], 1);
    run(&mut w);
    let (p, t, y): (Vec<f32>, Vec<f32>, Vec<f32>) =
        (get(&w, "gpu_p"), get(&w, "gpu_t"), get(&w, "gpu_y"));
    let c: Vec<f32> = get(&w, "gpu_c");
    let n = p.len();
    assert_eq!(n as u64, dflt("shoc-s3d", "side").pow(3));
    for i in 0..n {
        let yy: Vec<f32> = (0..22).map(|k| y[k * n + i]).collect();
        let want = super::s3d::gr_point(p[i], t[i], &yy);
        for k in 0..22 {
            assert_eq!(c[k * n + i], want[k], "point {i} species {k}");
        }
    }
}

/// NeuralNet on its default network and images against the host forward pass.
#[test]
#[ignore]
fn neuralnet_default_feed_forward_equals_host_network() {
    let d = |p| dflt("shoc-neuralnet", p) as usize;
    let (ni, nh, no, images) = (d("inputs"), d("hidden"), d("outputs"), d("images"));
    let mut w = build("shoc-neuralnet", &[], 2);
    run(&mut w);
    let (wt, b, x): (Vec<f32>, Vec<f32>, Vec<f32>) = (
        get(&w, "D__WEIGHTS"),
        get(&w, "D__BIASES"),
        get(&w, "training_data_x"),
    );
    let out: Vec<f32> = get(&w, "activations2");
    for img in 0..images {
        let want = super::neuralnet::host_forward(
            &[ni as u64, nh as u64, no as u64],
            &wt,
            &b,
            &x[img * ni..][..ni],
        );
        for j in 0..no {
            assert!(
                close(out[img * no + j], want[j], 1e-5),
                "image {img} out {j}"
            );
        }
    }
}

/// MD (compute_lj_force) on its default atoms: the forces equal the host's over the
/// model's neighbour list.
#[test]
#[ignore]
fn md_default_forces_equal_host_forces() {
    use crate::bench::dense::hs::F4;
    let k = dflt("shoc-md", "neighbors") as usize;
    let mut w = build("shoc-md", &[], 9);
    run(&mut w);
    let pos: Vec<F4> = get(&w, "d_position");
    let list: Vec<i32> = get(&w, "d_neighborList");
    let f: Vec<f32> = get(&w, "d_force");
    let want = super::md::host_forces(&pos, &list, k);
    for (i, (a, b)) in f.iter().zip(&want).enumerate() {
        assert!(close(*a, *b, 1e-5), "force {i}: {a} vs {b}");
    }
}
