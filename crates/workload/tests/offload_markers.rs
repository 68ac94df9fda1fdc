//! NDP offload-block markers (spec ndp.md §3.3-§3.4) of the kernel models: each marked
//! instance spans the instructions of its static block, carries the block's operands, and
//! recording them changes no instruction.

use locus_workload::program::{BlockProgram, InstClass, Space};
use locus_workload::registry::build;
use locus_workload::Workload;
use std::collections::BTreeMap;

/// Generate block `b` of the `launch`-th launch of `name` with and without markers.
fn gen(name: &str, params: &[(&str, &str)], launch: usize, b: u64) -> (BlockProgram, BlockProgram) {
    let o: BTreeMap<String, String> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut out = Vec::new();
    for markers in [true, false] {
        let mut w = build(name, &o, 1).unwrap();
        for _ in 0..launch {
            w.begin_launch().unwrap().unwrap();
        }
        w.begin_launch().unwrap().unwrap();
        let mut bp = BlockProgram {
            offload_markers: markers,
            ..Default::default()
        };
        w.gen_block(b, false, 128, &mut bp).unwrap();
        out.push(bp);
    }
    let off = out.pop().unwrap();
    (out.pop().unwrap(), off)
}

/// A marked span's (class, space) list and its live-ins, live-outs and NSU instructions.
type Span = (Vec<(InstClass, Space)>, u8, u8, u8);

/// Classes of every marked span of every warp, plus the marks' operands.
fn spans(bp: &BlockProgram) -> Vec<Span> {
    bp.warps
        .iter()
        .flat_map(|w| {
            w.offload.iter().map(|m| {
                let cl = w.insts[m.begin as usize..m.end as usize]
                    .iter()
                    .map(|i| (i.class, i.space))
                    .collect();
                (cl, m.live_ins, m.live_outs, m.nsu_insts)
            })
        })
        .collect()
}

#[test]
fn bicg_blocks_are_ld_ld_ffma_st_with_the_accumulator() {
    for launch in 0..2 {
        let (on, off) = gen("bicg", &[("nx", "256"), ("ny", "256")], launch, 0);
        for (a, b) in on.warps.iter().zip(&off.warps) {
            assert_eq!(a.insts, b.insts, "markers change no instruction");
            assert!(b.offload.is_empty());
        }
        let s = spans(&on);
        assert_eq!(s.len(), 8 * 256, "one instance per warp and column/row");
        use InstClass::*;
        use Space::Global;
        for (cl, li, lo, n) in s {
            assert_eq!(
                cl,
                [
                    (Load, Global),
                    (Load, Global),
                    (Fp, Global),
                    (Store, Global)
                ]
            );
            assert_eq!((li, lo, n), (1, 1, 4), "Table 1: BICG blocks of 4");
        }
    }
}

/// km's block is one iteration of `kmeansPoint`'s feature loop (spec ndp.md §3.3: no block
/// spans basic blocks; Table 1 KMN: 3 NSU instructions): per warp one instance per
/// (cluster, feature), each span holding exactly one texture load (the centre a constant,
/// no block load) and no store, with the loop-carried sum in and out; consecutive
/// instances are separated by the loop control, which stays outside the block.
#[test]
fn kmeans_point_block_is_one_feature_iteration() {
    let p = [
        ("npoints", "512"),
        ("nfeatures", "40"),
        ("nclusters", "3"),
        ("iterations", "1"),
        // without markers the feature loop is unrolled as nvcc compiles it; with them, or
        // under `loops=rolled`, one iteration at a time: the streams then compare
        ("loops", "rolled"),
    ];
    // launch 0 is invert_mapping, launch 1 kmeansPoint
    let (on, off) = gen("km", &p, 1, 0);
    for (a, b) in on.warps.iter().zip(&off.warps) {
        assert_eq!(a.insts, b.insts);
    }
    for w in &on.warps {
        assert_eq!(
            w.offload.len(),
            3 * 40,
            "one instance per cluster and feature"
        );
        for m in &w.offload {
            let span = &w.insts[m.begin as usize..m.end as usize];
            let count = |c: InstClass, sp: Space| {
                span.iter()
                    .filter(|i| (i.class, i.space) == (c, sp))
                    .count()
            };
            assert_eq!(count(InstClass::Load, Space::Texture), 1);
            assert_eq!(count(InstClass::Load, Space::Global), 0);
            assert!(span.iter().all(|i| i.class != InstClass::Store));
            assert_eq!(m.iters, 1);
            assert_eq!(
                (m.nsu_insts, m.live_ins, m.live_outs),
                (3, 1, 1),
                "Table 1: KMN block of 3"
            );
        }
        for p in w.offload.windows(2) {
            assert!(p[0].end < p[1].begin, "the loop control lies between");
        }
    }
}

/// The markers of FWT, SP, STCL, BPROP, BFS, MiniFE and STN (spec ndp.md Table 1): over the first
/// launches, markers change no instruction, and the marked spans carry exactly the
/// expected static blocks (NSU instructions, live-ins, live-outs) with their loads and
/// stores: FWT's radix-4 butterfly (4 loads, 4 stores, 16 instructions) and its
/// modulation (`rcpN` live-in), SP `LD; LD; FMUL` (1 live-out), STCL's distance
/// block.
#[test]
fn fwt_sp_stcl_blocks() {
    type Want = (u8, u8, u8, usize, usize); // nsu insts, live-ins, live-outs, loads, stores
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [Want]);
    let cases: [Case; 7] = [
        (
            "fwt",
            &[("log2data", "14"), ("log2kernel", "7")],
            &[(16, 0, 0, 4, 4), (5, 1, 0, 2, 1)],
        ),
        (
            "scalarprod",
            // rolled: the stream without markers is then the one with them
            &[("vectors", "4"), ("elements", "4096"), ("loops", "rolled")],
            &[(3, 0, 1, 2, 0)],
        ),
        (
            "streamcluster",
            &[("n", "1024"), ("dim", "8"), ("kmin", "2"), ("kmax", "3")],
            // Table 1 "3, 9, 1, 1": the distance, the saving's update (ours 5), the two
            // single indirect loads (equal shapes: one entry)
            &[(3, 0, 1, 2, 0), (5, 2, 0, 1, 2), (1, 0, 1, 1, 0)],
        ),
        // Table 1 BPROP "29, 23": ours 24 and 22 (SASS counting, backprop.rs)
        (
            "backprop",
            &[("in", "4096")],
            &[(24, 0, 0, 7, 2), (22, 0, 0, 5, 2)],
        ),
        // Table 1 BFS "1, 1, 16": the single indirect loads `edges[i]`, `visited[id]`
        // (equal shapes: one entry) and the unvisited neighbour's update (ours 7: 3 loads,
        // 2 stores, the reloaded loop bound out)
        (
            "rodinia-bfs",
            &[("nodes", "2048")],
            &[(1, 0, 1, 1, 0), (7, 0, 1, 3, 2)],
        ),
        // Table 1 MiniFE "3": matvec's `LD A; LD x[c]; DFMA`, the double sum in and out
        (
            "minife",
            &[("nx", "8"), ("ny", "8"), ("nz", "8"), ("max_iter", "2")],
            &[(3, 2, 2, 2, 0)],
        ),
        // Table 1 STN "15": cuda_base's 7-point update
        (
            "parboil-stencil",
            &[
                ("nx", "64"),
                ("ny", "8"),
                ("nz", "6"),
                ("iterations", "2"),
                ("kernel", "naive"),
            ],
            &[(15, 0, 0, 7, 1)],
        ),
    ];
    for (name, params, want) in cases {
        let mut seen: Vec<Want> = Vec::new();
        for launch in 0..12 {
            let o: BTreeMap<String, String> = params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let mut ws = [build(name, &o, 1).unwrap(), build(name, &o, 1).unwrap()];
            let mut info = None;
            for w in &mut ws {
                for _ in 0..launch {
                    w.begin_launch().unwrap();
                }
                info = w.begin_launch().unwrap();
            }
            let Some(info) = info else { break };
            let blocks = info.num_blocks().min(8);
            for blk in 0..blocks {
                let mut bps = [true, false].map(|m| BlockProgram {
                    offload_markers: m,
                    ..Default::default()
                });
                for (w, bp) in ws.iter_mut().zip(&mut bps) {
                    w.gen_block(blk, false, 128, bp).unwrap();
                }
                for (a, b) in bps[0].warps.iter().zip(&bps[1].warps) {
                    // the same instructions (in divergent code the block's lanes' first)
                    let key = |i: &locus_workload::WarpInst| {
                        (i.pc, i.class as u8, i.space as u8, i.lanes, i.nlines)
                    };
                    let mut x: Vec<_> = a.insts.iter().map(key).collect();
                    let mut y: Vec<_> = b.insts.iter().map(key).collect();
                    x.sort();
                    y.sort();
                    assert_eq!(x, y, "{name}: markers change no instruction");
                    for m in &a.offload {
                        let span = &a.insts[m.begin as usize..m.end as usize];
                        let count = |c| span.iter().filter(|i| i.class == c).count();
                        let k = (
                            m.nsu_insts,
                            m.live_ins,
                            m.live_outs,
                            count(InstClass::Load),
                            count(InstClass::Store),
                        );
                        if !seen.contains(&k) {
                            seen.push(k);
                        }
                    }
                }
            }
        }
        seen.sort();
        let mut want = want.to_vec();
        want.sort();
        assert_eq!(seen, want, "{name}");
    }
}
