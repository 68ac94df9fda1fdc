//! CODA paper-derived checks (spec §8.2 and issue 3): the toy examples of Figs. 2, 3 and 6,
//! the K-means placement, and the whole-system invariants of CODA and migration.

use locus_sim::mapping::{DualModeMap, Mode};
use locus_sim::placement::coda::{analyze, eq3_node, Reason};
use locus_sim::placement::ObjPlacement;
use locus_sim::scheduling::frr::Frr;
use locus_sim::scheduling::queues::affinity;
use locus_sim::scheduling::Layout;
use locus_sim::{preset, Report};
use locus_workload::{registry, Workload};
use std::collections::BTreeMap;

/// GPU of each of `n` blocks under fair round-robin with one slot per SM, 4 GPUs x 4 SMs.
fn frr_gpus(n: u64) -> Vec<u32> {
    let mut f = Frr::new(n, &Layout::uniform(4, 4));
    let mut free = vec![1u32; 16];
    let mut out = Vec::new();
    f.dispatch(&mut free, &mut out);
    let mut g = vec![0; n as usize];
    for (b, sm) in out {
        g[b as usize] = (sm / 4) as u32;
    }
    g
}

/// Fig. 2: 256 B interleaving, 64 B lines, 2 lines per block, 8 blocks under FRR: only
/// blocks 0 and 7 are fully local; affinity with N_bpg = 2 makes all 8 local.
#[test]
fn fig2_toy() {
    let map = DualModeMap::new(4, 4096, 256);
    let home = |line: u64| map.route(line * 64, Mode::Fgp).0;
    let local = |gpu_of: &dyn Fn(u64) -> u32| -> Vec<u64> {
        (0..8u64)
            .filter(|&b| (2 * b..2 * b + 2).all(|l| home(l) == gpu_of(b)))
            .collect()
    };
    let frr = frr_gpus(8);
    assert_eq!(local(&|b| frr[b as usize]), vec![0, 7]);
    assert_eq!(
        home(8),
        2,
        "lines 8 and 9 live on GPU 2 while FRR runs TB 4 on GPU 0"
    );
    assert_eq!(frr[4], 0);
    assert_eq!(local(&|b| affinity(b, 2, 4)).len(), 8);
}

/// Fig. 3: with 3 lines per block no schedule makes block 2 local (lines 6-7 on GPU 1,
/// line 8 on GPU 2); Fig. 6: CODA's chunks of 12 lines (B = 3 lines, N_bpg = 4) with
/// affinity make every access local.
#[test]
fn fig3_and_fig6_toys() {
    let map = DualModeMap::new(4, 4096, 256);
    let home = |line: u64| map.route(line * 64, Mode::Fgp).0;
    let homes: Vec<u32> = (6..9).map(home).collect();
    assert_eq!(homes, vec![1, 1, 2]);
    for b in 0..16u64 {
        let g = affinity(b, 4, 4);
        for l in 3 * b..3 * b + 3 {
            assert_eq!(eq3_node(l * 64, 12 * 64, 4), g, "block {b} line {l}");
        }
    }
}

/// K-means (spec §3.6): the AoS input gets B = blockDim x nfeatures x 4 bytes = 34,816 B,
/// the SoA output B = blockDim x 4 bytes = 1 KB, both CGP.
#[test]
fn kmeans_arrays_are_placed_by_their_block_stride() {
    let mut p = BTreeMap::new();
    p.insert("npoints".to_string(), "8k".to_string());
    let mut w = registry::build("kmeans-transpose", &p, 1).unwrap();
    let objs = w.objects().to_vec();
    let info = w.begin_launch().unwrap().unwrap();
    // the per-page reading (spec A2, a named option) keeps the exact span B x N_bpg; the
    // paper's literal Eq. 2 caps the chunk at one page
    let cfg = locus_sim::config::PlacementCfg {
        rounding: locus_sim::config::CodaRounding::PerPageMajority,
        ..Default::default()
    };
    let ds = analyze(
        &mut w,
        &info,
        &objs,
        &vec![true; objs.len()],
        24,
        4096,
        128,
        &cfg,
    )
    .unwrap();
    let by_name = |n: &str| ds.iter().find(|d| objs[d.obj as usize].name == n).unwrap();
    let input = by_name("feature_flipped_d");
    assert_eq!(input.reason, Reason::Stride { b: 256 * 34 * 4 });
    assert!(matches!(input.placement, ObjPlacement::Cgp { span, .. } if span == 24 * 34816));
    let output = by_name("feature_d");
    assert_eq!(output.reason, Reason::Stride { b: 1024 });
}

fn run(bench: &str, params: &[(&str, &str)], preset_name: &str, sets: &[&str]) -> Report {
    let p: BTreeMap<String, String> = params
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let c = preset::load(Some(preset_name), None, &sets).unwrap();
    let mut w = registry::build(bench, &p, 3).unwrap();
    locus_sim::simulate(&c, &mut w).unwrap()
}

/// CODA never issues more remote accesses than FGP-Only on a block-exclusive workload.
#[test]
fn coda_never_more_remote_than_fgp_on_block_exclusive() {
    for (b, p) in [
        ("bfs", vec![("scale", "11")]),
        ("nw", vec![("n", "256")]),
        ("dc", vec![("scale", "11")]),
    ] {
        let f = run(b, &p, "coda-4gpu", &[]);
        let c = run(b, &p, "coda-4gpu-coda", &[]);
        let (rf, rc) = (
            f.sim.total.counters.remote_accesses,
            c.sim.total.counters.remote_accesses,
        );
        assert!(rc <= rf, "{b}: CODA {rc} remote accesses > FGP-Only {rf}");
        assert!(
            f.sim.total.remote_fraction > 0.6,
            "{b}: FGP-Only is mostly remote"
        );
    }
}

/// Migration-based first touch never loses a page or a write: every touched page ends up
/// mapped (migrated once, coarse-grained), and every request, stores included, completes.
#[test]
fn migration_never_loses_a_page_or_a_write() {
    let r = run(
        "vectoradd",
        &[("n", "128k")],
        "coda-4gpu",
        &["placement.policy=migrate"],
    );
    let c = &r.sim.total.counters;
    let pl = &r.sim.placement;
    assert!(c.migrations > 0);
    assert_eq!(
        c.migrations, pl.pages_mapped,
        "every page migrated exactly once"
    );
    assert_eq!(pl.pages_cgp, pl.pages_mapped);
    assert_eq!(c.reqs_created, c.reqs_retired);
    assert_eq!(c.load_insts, c.loads_completed);
    // 3 arrays of 512 KB: 96 K line requests = 2 loads + 1 store per warp-line
    assert_eq!(c.l1_requests, 3 * 128 * 1024 * 4 / 128);
    for l in &r.sim.links {
        assert_eq!(l.bytes_sent, l.bytes_received, "{}", l.name);
    }
}

/// Real migration (issue 13): a page starts fine-grained and moves on its first touch, and
/// every access to a page in flight waits for the copy. With a 20,000-cycle fault and every
/// page first touched at the start, no read and no write may reach DRAM before the fault
/// ends; if accesses to a migrating page did not wait, the other warps' loads and the
/// stores (written to the new frame before the copy lands, and so overwritten by it) would
/// reach DRAM at once. Every store completes after its page has moved, so no write is lost.
#[test]
fn accesses_and_writes_to_a_page_in_migration_wait_for_the_copy() {
    let r = run(
        "vectoradd",
        &[("n", "16k")],
        "coda-4gpu",
        &[
            "placement.policy=migrate",
            "placement.migration_cycles=20000",
            "run.sample_cycles=1000",
        ],
    );
    let c = &r.sim.total.counters;
    assert_eq!(c.migrations, 3 * 16, "3 arrays x 16 pages, each moved once");
    assert_eq!(r.sim.placement.pages_cgp, 48);
    assert_eq!(r.sim.placement.pages_fgp, 0);
    // the copy crosses the links: (N-1)/N of every page plus headers
    assert!(c.migrated_bytes >= 48 * 3 * 1024);
    let early: Vec<_> = r
        .sim
        .timeline
        .iter()
        .filter(|s| s.cycle < 20_000 && (s.dram_reads > 0 || s.dram_writes > 0))
        .collect();
    assert!(
        early.is_empty(),
        "DRAM touched before the fault ended: {early:?}"
    );
    assert!(r.sim.timeline.iter().any(|s| s.cycle < 20_000));
    assert_eq!(c.reqs_created, c.reqs_retired);
    assert_eq!(c.load_insts, c.loads_completed);
}

/// Real migration keeps every written value (issue 13). The coherence checker's shadow
/// versions stand in for the data: each write performed at a home bumps its line's version,
/// a page's versions move with its migration copy, and a write performed at the new frame
/// before the copy lands is lost (the copy overwrites it). vectorAdd's stores are issued
/// while their pages migrate (a 20,000-cycle fault, every page first touched at the start);
/// each of C's 512 lines must end at its final home holding exactly its one write. If
/// accesses to a migrating page did not wait, the stores would reach the new frames first
/// and be lost, and loads would read frames before their data arrived.
#[test]
fn every_value_written_during_migration_survives_the_copy() {
    let r = run(
        "vectoradd",
        &[("n", "16k")],
        "coda-4gpu",
        &[
            "placement.policy=migrate",
            "placement.migration_cycles=20000",
            "coherence.check=true",
        ],
    );
    let c = &r.sim.total.counters;
    assert_eq!(c.migrations, 48);
    let chk = r.sim.coherence.as_ref().unwrap().checker.as_ref().unwrap();
    // 16 K floats of C = 512 lines of 128 B, each stored once by one warp
    assert_eq!(chk.writes_performed, 512, "{chk:?}");
    assert_eq!(chk.lost_writes, 0, "{chk:?}");
    assert_eq!(chk.surviving_writes, 512, "{chk:?}");
    assert_eq!(chk.early_reads, 0, "{chk:?}");
    assert_eq!(chk.violations, 0, "{chk:?}");
    assert!(chk.checks > 0);
}

/// Write-backs are memory accesses (spec A8): Fig. 10 counts L2 misses *and* write-backs as
/// local or remote. vectorAdd writes 4 MB of C through 1 MB L2s, so dirty lines are evicted;
/// every memory access (each DRAM read of a load miss, each DRAM write of a write-back;
/// stores allocate in the L2 without a fetch) is counted exactly once as local or remote.
#[test]
fn writebacks_are_counted_as_local_or_remote_accesses() {
    let r = run("vectoradd", &[("n", "1M")], "coda-4gpu", &[]);
    let c = &r.sim.total.counters;
    assert!(c.l2_writebacks > 0, "{c:?}");
    assert_eq!(
        c.local_accesses + c.remote_accesses,
        c.dram_reads + c.dram_writes,
        "{c:?}"
    );
    assert_eq!(c.dram_writes, c.l2_writebacks, "{c:?}");
}

/// Eq. 1 with N_bpg >= blocks puts a small kernel on one GPU; the balanced variant (beyond
/// the paper, `scheduling.affinity_balanced`) caps N_bpg at ceil(blocks / GPUs) = 2 for
/// vectorAdd's 8 blocks, so every GPU runs 2.
#[test]
fn balanced_affinity_spreads_a_small_kernel_over_every_gpu() {
    let blocks = |sets: &[&str]| -> Vec<u64> {
        let r = run("vectoradd", &[("n", "2048")], "coda-4gpu-coda", sets);
        r.sim.nodes.iter().map(|n| n.blocks).collect()
    };
    assert_eq!(blocks(&[]), vec![8, 0, 0, 0], "the paper's Eq. 1");
    assert_eq!(
        blocks(&["scheduling.affinity_balanced=true"]),
        vec![2, 2, 2, 2]
    );
}

/// Multiprogrammed: each application runs only on its own node, and node-local placement
/// (first touch) makes every access local.
#[test]
fn multiprogrammed_apps_stay_on_their_nodes() {
    let c = preset::load(
        Some("coda-4gpu"),
        None,
        &["placement.policy=first-touch".to_string()],
    )
    .unwrap();
    let mut p = BTreeMap::new();
    p.insert("n".to_string(), "64k".to_string());
    let mut a = locus_workload::offset::Offset::new(
        Box::new(registry::build("vectoradd", &p, 1).unwrap()),
        0,
        0,
    );
    let mut b = locus_workload::offset::Offset::new(
        Box::new(registry::build("stream", &p, 1).unwrap()),
        1,
        3,
    );
    let mut ws: Vec<&mut dyn Workload> = vec![&mut a, &mut b];
    let r = locus_sim::System::new(&c)
        .run_multi(&mut ws, &mut |_| {})
        .unwrap();
    assert_eq!(r.sim.total.counters.remote_accesses, 0);
    assert_eq!(r.sim.apps.len(), 2);
    assert!(
        r.sim.nodes[2].blocks == 0 && r.sim.nodes[3].blocks == 0,
        "nodes without an application stay idle"
    );
    assert!(r.sim.nodes[0].blocks > 0 && r.sim.nodes[1].blocks > 0);
}

/// NW's blocks walk the score matrix upwards (negative stride): CODA measures its chunks
/// from the object's end (spec §3.4) and so, with the per-page reading's spans (the
/// paper's literal one-page chunks make the direction irrelevant), more than halves the
/// remote accesses. NW's first kernel is one block, too few to sample, so the matrix is
/// left to the next kernel (`placement.defer_unsampled`; the paper's rule fixes it
/// fine-grained).
#[test]
fn negative_stride_is_placed_from_the_end() {
    let f = run("nw", &[("n", "1024")], "coda-4gpu", &[]);
    let c = run(
        "nw",
        &[("n", "1024")],
        "coda-4gpu-coda",
        &[
            "placement.rounding=per-page-majority",
            "placement.defer_unsampled=true",
        ],
    );
    let (rf, rc) = (
        f.sim.total.counters.remote_accesses,
        c.sim.total.counters.remote_accesses,
    );
    assert!(2 * rc < rf, "CODA {rc} vs FGP-Only {rf}");
}

/// Two kernels over one 64 KB array `x`: `init` (one block, too few to sample) writes its
/// first 256 floats; `scan` (64 blocks) reads 1 KB per block.
struct TwoKernels {
    x: locus_workload::ObjId,
    next: u32,
}

struct Grid {
    x: locus_workload::ObjId,
    blocks: u32,
}

impl locus_workload::Kernel for Grid {
    fn info(&self) -> locus_workload::KernelInfo {
        locus_workload::KernelInfo {
            name: if self.blocks == 1 { "init" } else { "scan" }.into(),
            grid: locus_workload::Dim3::x(self.blocks),
            block: locus_workload::Dim3::x(256),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut locus_workload::Thread<'_>, _phase: u32) {
        let i = t.gid();
        if self.blocks == 1 {
            t.st(self.x, i, 1.0f32);
        } else {
            let v: f32 = t.ld(self.x, i);
            t.fp(1);
            let _ = v;
        }
    }
}

impl locus_workload::Host for TwoKernels {
    fn next_kernel(
        &mut self,
        _m: &mut locus_workload::Memory,
    ) -> Option<Box<dyn locus_workload::Kernel>> {
        self.next += 1;
        let blocks = match self.next {
            1 => 1,
            2 => 64,
            _ => return None,
        };
        Some(Box::new(Grid { x: self.x, blocks }))
    }
}

/// `x`'s CODA decisions after [`TwoKernels`] on `coda-4gpu-coda` with `sets`.
fn decisions_of_x(sets: &[&str]) -> Vec<locus_sim::placement::coda::Decision> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let c = preset::load(Some("coda-4gpu-coda"), None, &sets).unwrap();
    let mut m = locus_workload::Memory::new();
    let x = m.alloc::<f32>("x", 16 * 1024, false);
    let mut w =
        locus_workload::ModelWorkload::new("two_kernels", m, Box::new(TwoKernels { x, next: 0 }));
    let r = locus_sim::simulate(&c, &mut w).unwrap();
    r.sim
        .coda_decisions
        .iter()
        .filter(|d| d.obj == x)
        .copied()
        .collect()
}

/// Spec A11: the first kernel that accesses an object decides it, and CODA never
/// re-places. `init` touches `x` with a grid too small to sample, so its analysis sees no
/// stride: `x` is fixed fine-grained when its first page maps (reason `NotSampled`) and
/// `scan`'s 1 KB stride does not place its remaining pages coarse-grained (before the fix
/// `scan` decided `x` anew: pages 1-15 CGP beside page 0 FGP, which option
/// `placement.defer_unsampled` keeps).
#[test]
fn the_first_kernel_to_touch_an_object_decides_it_even_unsampled() {
    let ds = decisions_of_x(&[]);
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(
        (ds[0].reason, ds[0].placement),
        (Reason::NotSampled, ObjPlacement::Fgp)
    );
    // option `placement.defer_unsampled`, which `defer_whole_object` implies (the objects
    // it defers are undecided at their first touch): `scan` decides it
    for opt in [
        "placement.defer_unsampled=true",
        "placement.defer_whole_object=true",
    ] {
        let ds = decisions_of_x(&[opt]);
        assert_eq!(ds.len(), 1, "{opt}: {ds:?}");
        assert_eq!(ds[0].reason, Reason::Stride { b: 1024 }, "{opt}");
    }
}
