//! The HMS memory spaces on the simulated K80 (spec hms-placement-model.md §2, §3.2.4,
//! §6.6): shared bank-conflict replays, constant broadcast and divergence replays, the
//! texture path's 2-D tiles, the placement override and its refusals, determinism.

mod common;
use common::cfg;

use locus_sim::spaces::SpaceCounters;
use locus_sim::{Report, System};
use locus_workload::model::{Host, Kernel, ModelWorkload, Thread};
use locus_workload::{Dim3, KernelInfo, Memory, ObjId};

/// What each of the 32 threads of the one warp does, `reps` times.
#[derive(Clone, Copy)]
enum Pat {
    /// `sh_ld(tid * stride)`; stride 0 = every lane the same word.
    Shared(u32),
    /// `ld_const(obj, tid % distinct)`.
    Const(u64),
    /// `ld(obj, y * width + tid)` for y = rep (a column walk of a 2-D array).
    Column(u64),
    /// `ld(obj, tid)`: a plain global read.
    Global,
}

struct K {
    obj: ObjId,
    pat: Pat,
    reps: u64,
}

impl Kernel for K {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "probe".into(),
            grid: Dim3::x(1),
            block: Dim3::x(32),
            regs_per_thread: 16,
            smem_per_block: 4096,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.tid.x as u64;
        for r in 0..self.reps {
            match self.pat {
                Pat::Shared(s) => {
                    t.sh_ld(tid as u32 * s);
                }
                Pat::Const(d) => {
                    let _: f32 = t.ld_const(self.obj, tid % d);
                }
                Pat::Column(w) => {
                    let _: f32 = t.ld(self.obj, r * w + tid);
                }
                Pat::Global => {
                    let _: f32 = t.ld(self.obj, tid);
                }
            }
            t.alu(1);
        }
    }
}

struct Once(Option<Box<dyn Kernel>>);
impl Host for Once {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        self.0.take()
    }
}

fn workload(pat: Pat, reps: u64) -> ModelWorkload {
    let mut m = Memory::new();
    let obj = m.alloc_from::<f32>("table", &vec![1.0; 256 * 64], true);
    let out = m.alloc::<f32>("out", 64, false);
    let _ = out;
    ModelWorkload::new(
        "probe",
        m,
        Box::new(Once(Some(Box::new(K { obj, pat, reps })))),
    )
}

fn run(pat: Pat, reps: u64, sets: &[&str]) -> Result<Report, String> {
    let c = locus_sim::preset::load(
        Some("k80"),
        None,
        &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    )
    .map_err(|e| e.to_string())?;
    let mut w = workload(pat, reps);
    System::new(&c)
        .run(&mut w, &mut |_| {})
        .map_err(|e| e.to_string())
}

fn spaces(r: &Report) -> SpaceCounters {
    r.sim.kernels[0].spaces.expect("k80 reports the spaces")
}

/// Bank-conflict replays against hand-derived cases (32 banks of 4 B): stride 1 none,
/// stride 2 one per access (2-way), stride 32 thirty-one (every lane in bank 0),
/// broadcast none; each adds its replays to the kernel's time.
#[test]
fn shared_bank_conflict_replays_hand_derived() {
    let reps = 10;
    let mut cycles = Vec::new();
    for (stride, per_access) in [(1, 0), (2, 1), (32, 31), (0, 0)] {
        let r = run(Pat::Shared(stride), reps, &[]).unwrap();
        let s = spaces(&r);
        assert_eq!(s.shared_insts, reps, "stride {stride}");
        assert_eq!(
            s.replays_shared_bank_conflict,
            per_access * reps,
            "stride {stride}"
        );
        assert_eq!(
            s.shared_conflicted_insts,
            if per_access > 0 { reps } else { 0 }
        );
        assert_eq!(s.replays(), s.replays_shared_bank_conflict);
        assert_eq!(
            s.issued_insts,
            r.sim.kernels[0].summary.counters.warp_insts + per_access * reps
        );
        cycles.push(r.sim.kernels[0].summary.cycles);
    }
    // replays cost issue cycles: stride 32 is slowest, stride 1 and broadcast equal
    assert!(cycles[2] > cycles[1] && cycles[1] > cycles[0], "{cycles:?}");
    assert_eq!(cycles[0], cycles[3]);
}

/// Constant memory: a warp-uniform index is one broadcast (no divergence replay);
/// `d` distinct addresses cost `d - 1` replays per access; only the first access of a
/// line misses (one cause-(2) replay).
#[test]
fn constant_divergence_replays_distinct_minus_one() {
    let reps = 8;
    for d in [1u64, 4, 32] {
        let r = run(Pat::Const(d), reps, &[]).unwrap();
        let s = spaces(&r);
        assert_eq!(s.replays_const_divergence, (d - 1) * reps, "{d} distinct");
        // d floats from index 0 span ceil(4d / 64) lines, each missing once
        let lines = (4 * d).div_ceil(64);
        assert_eq!(s.const_misses, lines, "{d} distinct");
        assert_eq!(s.replays_const_miss, lines);
        assert_eq!(s.const_requests, lines * reps);
        assert_eq!(s.const_hits, lines * (reps - 1));
        assert_eq!(s.tex_requests, 0);
    }
}

/// The texture path's 2-D tiles: a warp walking down the columns of a 2-D array (row y,
/// then y + 1) finds in tex2d the rows y + 1 already in the 4 x 2 tiles row y brought, so
/// every other access hits; in tex1d each row is new (0 hits). Exact counts: 32 floats are
/// 4 lines of 32 B per access in tex1d, 8 tiles of 4 x 2 floats in tex2d.
#[test]
fn tex2d_tiles_hit_a_2d_neighbourhood_that_tex1d_misses() {
    let reps = 16;
    let t1 = spaces(&run(Pat::Column(256), reps, &["place.table=tex1d"]).unwrap());
    let t2 = spaces(&run(Pat::Column(256), reps, &["place.table=\"tex2d:256\""]).unwrap());
    assert_eq!(
        (t1.tex_requests, t1.tex_hits, t1.tex_misses),
        (4 * reps, 0, 4 * reps)
    );
    assert_eq!(
        (t2.tex_requests, t2.tex_hits, t2.tex_misses),
        (8 * reps, 8 * reps / 2, 8 * reps / 2)
    );
    assert_eq!(t1.placed_insts, reps);
    assert_eq!(t2.placed_insts, reps);
    assert!(t2.tex_hits > t1.tex_hits);
}

/// `[place]` changes the space of every access to the object: the same global loads as
/// constant loads are counted in the constant space and use the constant cache; as
/// global they use neither cache.
#[test]
fn placement_moves_every_access_of_the_object() {
    let g = run(Pat::Global, 4, &[]).unwrap();
    let c = run(Pat::Global, 4, &["place.table=const"]).unwrap();
    let k = |r: &Report| r.sim.kernels[0].summary.mem_insts_by_space.clone();
    assert_eq!(k(&g)["global"].load, 4);
    assert!(!k(&g).contains_key("constant"));
    assert_eq!(k(&c)["constant"].load, 4);
    assert!(!k(&c).contains_key("global"));
    let (sg, sc) = (spaces(&g), spaces(&c));
    assert_eq!(sg.const_requests + sg.tex_requests, 0);
    assert_eq!(sc.placed_insts, 4);
    // 32 distinct consecutive floats: 31 divergence replays per access, 2 lines
    assert_eq!(sc.replays_const_divergence, 31 * 4);
    assert_eq!(sc.const_misses, 2);
    // back to global by name: no change
    let back = run(Pat::Global, 4, &["place.table=global"]).unwrap();
    assert_eq!(
        serde_json::to_string(&back.sim.kernels).unwrap(),
        serde_json::to_string(&g.sim.kernels).unwrap()
    );
}

/// The kernels of [`two_kernels`]: `reader` loads `buf` and stores `out`; `writer` loads
/// `buf` and stores it back, plus one.
struct RW {
    buf: ObjId,
    out: ObjId,
    writer: bool,
    declare: bool,
}

impl Kernel for RW {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: if self.writer { "writer" } else { "reader" }.into(),
            grid: Dim3::x(2),
            block: Dim3::x(64),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.gid();
        let v: f32 = t.ld(self.buf, i);
        if self.writer {
            t.st(self.buf, i, v + 1.0);
        } else {
            t.st(self.out, i, v);
        }
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        self.declare
            .then(|| vec![if self.writer { self.buf } else { self.out }])
    }
}

struct Seq(Vec<Box<dyn Kernel>>);
impl Host for Seq {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        (!self.0.is_empty()).then(|| self.0.remove(0))
    }
}

/// reader, writer, reader over `buf` (128 floats, allocated writable).
fn two_kernels(declare: bool) -> ModelWorkload {
    let mut m = Memory::new();
    let buf = m.alloc_from::<f32>("buf", &[1.0; 128], false);
    let out = m.alloc::<f32>("out", 128, false);
    let k = |writer| -> Box<dyn Kernel> {
        Box::new(RW {
            buf,
            out,
            writer,
            declare,
        })
    };
    ModelWorkload::new("rw", m, Box::new(Seq(vec![k(false), k(true), k(false)])))
}

/// Texture and constant memory are read-only in a kernel (spec §2.2), not in the program:
/// an object some kernel writes, placed in texture, is read through the texture path by
/// the kernels that only read it and stays global, reported, in the kernel that writes it
/// (whose texture reads could be stale). Declared writes and the dry run agree.
#[test]
fn read_only_placement_applies_per_kernel() {
    let c = locus_sim::preset::load(Some("k80"), None, &["place.buf=tex1d".to_string()]).unwrap();
    let g = locus_sim::preset::load(Some("k80"), None, &[]).unwrap();
    let mut last = None;
    for declare in [true, false] {
        let r = System::new(&c)
            .run(&mut two_kernels(declare), &mut |_| {})
            .unwrap();
        let ks = &r.sim.kernels;
        let names: Vec<&str> = ks.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["reader", "writer", "reader"]);
        for k in [&ks[0], &ks[2]] {
            let by = &k.summary.mem_insts_by_space;
            assert_eq!(
                by["texture"].load, 4,
                "{declare}: 4 warps read buf by texture"
            );
            assert_eq!(by["global"].load, 0);
            assert!(k.place_not_applied.is_empty());
            assert_eq!(k.spaces.unwrap().placed_insts, 4);
        }
        let w = &ks[1];
        assert_eq!(w.summary.mem_insts_by_space["global"].load, 4);
        assert!(!w.summary.mem_insts_by_space.contains_key("texture"));
        assert_eq!(w.place_not_applied, ["buf"]);
        assert_eq!(w.spaces.unwrap().placed_insts, 0);
        // the writer's launch is timed as with no placement at all
        let plain = System::new(&g)
            .run(&mut two_kernels(declare), &mut |_| {})
            .unwrap();
        assert_eq!(
            serde_json::to_string(&plain.sim.kernels[1].summary.counters).unwrap(),
            serde_json::to_string(&w.summary.counters).unwrap()
        );
        let json = serde_json::to_string(&ks[1..=1]).unwrap();
        assert!(json.contains("\"place_not_applied\":[\"buf\"]"), "{json}");
        // timing does not depend on how the writes became known
        let now =
            serde_json::to_string(&ks.iter().map(|k| &k.summary).collect::<Vec<_>>()).unwrap();
        if let Some(prev) = last.replace(now.clone()) {
            assert_eq!(prev, now);
        }
    }
}

/// Illegal placements are refused before the run, naming the object and the rule.
#[test]
fn illegal_placements_are_refused() {
    let e = run(Pat::Global, 1, &["place.nothing=const"]).unwrap_err();
    assert!(e.contains("no object") && e.contains("table"), "{e}");
    let e = run(
        Pat::Global,
        1,
        &["place.table=\"tex2d:256\"", "spaces.tex2d_max_side=100"],
    )
    .unwrap_err();
    assert!(e.contains("tex2d_max_side"), "{e}");
    let e = run(
        Pat::Global,
        1,
        &["place.table=shared", "spaces.shared_bytes_per_block=1024"],
    )
    .unwrap_err();
    assert!(
        e.contains("table") && e.contains("shared_bytes_per_block"),
        "{e}"
    );
    let e = run(Pat::Global, 1, &["place.table=registers"]).unwrap_err();
    assert!(e.contains("unknown space"), "{e}");
    // a placement needs the spaces model
    let e = locus_sim::preset::load(Some("coda-4gpu"), None, &["place.a=const".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("spaces.enabled"), "{e}");
}

/// Equal inputs give byte-identical statistics with the spaces on.
#[test]
fn deterministic() {
    let a = run(Pat::Column(256), 8, &["place.table=tex2d"]).unwrap();
    let b = run(Pat::Column(256), 8, &["place.table=tex2d"]).unwrap();
    assert_eq!(
        serde_json::to_string(&a.sim).unwrap(),
        serde_json::to_string(&b.sim).unwrap()
    );
}

/// Presets without the spaces report no `spaces` and time exactly as with the section
/// explicitly off; the K80 preset runs a real benchmark with a placement.
#[test]
fn other_presets_unchanged_and_k80_runs_neuralnet() {
    let p = [("images", "1"), ("inputs", "64")];
    let base = common::run(&cfg("coda-4gpu", &[]), "shoc-neuralnet", &p);
    let off = common::run(
        &cfg("coda-4gpu", &["spaces.enabled=false"]),
        "neuralnet",
        &p,
    );
    assert!(base.sim.kernels.iter().all(|k| k.spaces.is_none()));
    assert_eq!(
        serde_json::to_string(&base.sim).unwrap(),
        serde_json::to_string(&off.sim).unwrap()
    );
    let g = common::run(&cfg("k80", &[]), "neuralnet", &p);
    let c = common::run(&cfg("k80", &["place.weights=const"]), "neuralnet", &p);
    let sum = |r: &Report, f: fn(&SpaceCounters) -> u64| -> u64 {
        r.sim.kernels.iter().map(|k| f(&k.spaces.unwrap())).sum()
    };
    assert_eq!(sum(&g, |s| s.const_requests), 0);
    assert!(sum(&c, |s| s.const_requests) > 0);
    // kernelFeedForward1 reads the weights with per-lane rows: divergent in constant
    assert!(sum(&c, |s| s.replays_const_divergence) > 0);
}

/// A block of 32 warps, each issuing `reps` shared loads back to back (`sh_ld(tid *
/// stride)`, no use in between), then one integer instruction.
struct ManyWarps {
    reps: u32,
    stride: u32,
}

impl Kernel for ManyWarps {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "shared-port".into(),
            grid: Dim3::x(1),
            block: Dim3::x(1024),
            regs_per_thread: 16,
            smem_per_block: 4096,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let lane = t.tid.x % 32;
        for _ in 0..self.reps {
            t.sh_ld(lane * self.stride);
        }
        t.alu(1);
    }
}

fn shared_port_cycles(preset: &str, stride: u32, sets: &[&str]) -> u64 {
    let c = cfg(preset, sets);
    let mut w = ModelWorkload::new(
        "shared-port",
        Memory::new(),
        Box::new(Once(Some(Box::new(ManyWarps { reps: 8, stride })))),
    );
    let r = System::new(&c).run(&mut w, &mut |_| {}).unwrap();
    r.sim.kernels[0].summary.cycles
}

/// `sm.shared_uses_lsu`: each shared access holds the SM's load/store data path one cycle
/// per wavefront, so 32 warps x 8 loads on one SM take at least 256 cycles (512 with a
/// 2-way bank conflict on the K80's spaces path: 1 + 1 replay each), and at most that plus
/// the latency and a small issue overhead; off, conflict-free loads cost issue slots only
/// (every preset issues more than one warp instruction per cycle), so the kernel is
/// shorter, while conflicting ones are bound by their replays either way. Fails if the
/// path is not held, held twice, or held when the option is off.
#[test]
fn shared_accesses_hold_the_lsu_path_one_cycle_per_wavefront() {
    let accesses = 32 * 8;
    for (preset, stride, wavefronts) in [("h100", 1, 1), ("k80", 1, 1), ("k80", 2, 2)] {
        // without h100's launch cost (the path's cycles alone)
        let no_launch = "system.kernel_launch_ns=0";
        let on = shared_port_cycles(preset, stride, &["sm.shared_uses_lsu=true", no_launch]);
        let off = shared_port_cycles(preset, stride, &["sm.shared_uses_lsu=false", no_launch]);
        let lat = cfg(preset, &[]).sm.smem_latency as u64;
        let busy = accesses * wavefronts;
        assert!(on >= busy, "{preset} stride {stride}: {on} < {busy}");
        assert!(
            on <= busy + lat + 64,
            "{preset} stride {stride}: {on} > {busy} + {lat} + 64"
        );
        // without conflicts only the path bounds it; with them the spaces' replays
        // already hold issue one cycle per replay, so the path adds nothing
        if wavefronts == 1 {
            assert!(off < on, "{preset} stride {stride}: off {off}, on {on}");
        } else {
            assert!(
                off >= busy,
                "{preset} stride {stride}: replays hold issue: {off}"
            );
        }
    }
}

/// The kernels of [`staging_program`]: `user` reads `tab[gid % n]` into `out[gid]` (and
/// with `write` also stores `tab[gid % n]` back, plus one); `other` touches only `out`.
struct Stage {
    tab: ObjId,
    out: ObjId,
    n: u64,
    user: bool,
    write: bool,
}

impl Kernel for Stage {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: if self.user { "user" } else { "other" }.into(),
            grid: Dim3::x(4),
            block: Dim3::x(64),
            regs_per_thread: 16,
            smem_per_block: if self.user { 4096 } else { 0 },
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.gid();
        if self.user {
            let v: f32 = t.ld(self.tab, i % self.n);
            t.st(self.out, i, v);
            if self.write {
                t.st(self.tab, i % self.n, v + 1.0);
            }
        } else {
            let v: f32 = t.ld(self.out, i);
            t.st(self.out, i, v * 2.0);
        }
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(if self.write {
            vec![self.tab, self.out]
        } else {
            vec![self.out]
        })
    }
}

/// `user` (4 KB of shared memory of its own) then `other` over a table of `n` floats.
fn staging_program(n: u64, write: bool) -> ModelWorkload {
    let mut m = Memory::new();
    let tab = m.alloc_from::<f32>("tab", &vec![1.0; n as usize], !write);
    let out = m.alloc::<f32>("out", 256, false);
    let k = |user| -> Box<dyn Kernel> {
        Box::new(Stage {
            tab,
            out,
            n,
            user,
            write,
        })
    };
    ModelWorkload::new("stage", m, Box::new(Seq(vec![k(true), k(false)])))
}

/// An object placed in shared memory is copied there by each block that uses it, as the
/// program the placement stands for does (spec §3.5 / §7 #17, `staging.rs`): warp `w` of a
/// 64-thread block copies elements `64 r + 32 w + lane`, four instructions an iteration
/// (two integer, the global load, the shared store) and a branch per four iterations (the
/// loop unrolled by four), then a barrier; a written
/// object is copied back the same way at the end. The staged bytes count against the
/// block's shared memory (the K80's 112 KB per SM hold two 40 KB tables beside the
/// kernel's 4 KB: 2 blocks per SM, 16 without the placement). A kernel that never reads the table stages nothing. Fails if
/// the copy is missing, sized or counted wrong, skips the write-back, or is paid by a
/// kernel that does not use the object.
#[test]
fn shared_placement_stages_the_object_in_each_block() {
    let n = 10_000u64;
    let iters = |w: u64| (n - 32 * w).div_ceil(64);
    let per_block_iters = iters(0) + iters(1);
    // groups of up to four iterations (the loop unrolled by four), one branch each
    let groups = iters(0).div_ceil(4) + iters(1).div_ceil(4);
    for write in [false, true] {
        let c =
            locus_sim::preset::load(Some("k80"), None, &["place.tab=shared".to_string()]).unwrap();
        let g = locus_sim::preset::load(Some("k80"), None, &[]).unwrap();
        let r = System::new(&c)
            .run(&mut staging_program(n, write), &mut |_| {})
            .unwrap();
        let plain = System::new(&g)
            .run(&mut staging_program(n, write), &mut |_| {})
            .unwrap();
        let (user, other) = (&r.sim.kernels[0], &r.sim.kernels[1]);
        let copies = if write { 2 } else { 1 };
        let s = user.spaces.unwrap();
        // per block: 4 per iteration, a branch per group and a barrier per warp and copy
        assert_eq!(
            s.staged_insts,
            4 * copies * (4 * per_block_iters + groups + 2),
            "write {write}"
        );
        assert_eq!(s.staged_bytes, 4 * copies * n * 4);
        let by = &user.summary.mem_insts_by_space;
        let by0 = &plain.sim.kernels[0].summary.mem_insts_by_space;
        // the kernel's own table reads are shared loads (8 warps); the copy adds a global
        // load and a shared store per iteration, the copy back a shared load and a
        // global store
        assert_eq!(by["shared"].load, 8 + (copies - 1) * 4 * per_block_iters);
        assert_eq!(
            by["shared"].store,
            4 * per_block_iters + if write { 8 } else { 0 }
        );
        assert_eq!(by["global"].load, 4 * per_block_iters);
        assert_eq!(
            by["global"].store,
            by0["global"].store - if write { 8 } else { 0 } + (copies - 1) * 4 * per_block_iters
        );
        assert_eq!(
            user.summary.counters.warp_insts,
            plain.sim.kernels[0].summary.counters.warp_insts + s.staged_insts
        );
        assert_eq!(
            (user.blocks_per_sm, plain.sim.kernels[0].blocks_per_sm),
            (2, 16)
        );
        // `other` never reads the table: no copy, its occupancy and timing unchanged
        assert_eq!(other.spaces.unwrap().staged_insts, 0);
        assert_eq!(other.blocks_per_sm, 16);
        assert_eq!(
            other.summary.counters.warp_insts,
            plain.sim.kernels[1].summary.counters.warp_insts
        );
        assert!(user.summary.cycles > plain.sim.kernels[0].summary.cycles);
    }
}

/// Placed objects that, beside the kernel's own shared memory, exceed what a block may hold
/// are refused at the launch, naming the key: with 40,000 B per block, 8,976 floats (35,904
/// B) fit beside `user`'s 4,096 B and 8,977 do not (though the table alone fits, so the
/// placement itself is accepted).
#[test]
fn staged_objects_beyond_a_blocks_shared_memory_are_refused() {
    let c = locus_sim::preset::load(
        Some("k80"),
        None,
        &[
            "place.tab=shared".to_string(),
            "spaces.shared_bytes_per_block=40000".to_string(),
        ],
    )
    .unwrap();
    assert!(System::new(&c)
        .run(&mut staging_program(8_976, false), &mut |_| {})
        .is_ok());
    let e = System::new(&c)
        .run(&mut staging_program(8_977, false), &mut |_| {})
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("spaces.shared_bytes_per_block"), "{e}");
    assert!(e.contains("35908 B") && e.contains("own 4096 B"), "{e}");
}

/// `spaces.shared_stage = "block-range"` (a named reading beside the spec's whole-array
/// rule): each block copies only the range of the object its own accesses span. A table of
/// 20,000 floats (80 KB, refused whole: a block holds 48 KB) read at `tab[gid]` by 4 blocks
/// of 64 threads: block b copies floats 64 b .. 64 b + 64 (256 B), one iteration per warp
/// (4 instructions, a branch and a barrier: 12 per block), and the 256 B join the kernel's 4 KB for
/// occupancy (still 16 blocks per SM). Fails if the range is the whole object, another
/// block's, or the element grid is lost.
#[test]
fn block_range_staging_copies_what_each_block_reads() {
    let n = 20_000u64;
    let whole =
        locus_sim::preset::load(Some("k80"), None, &["place.tab=shared".to_string()]).unwrap();
    let e = System::new(&whole)
        .run(&mut staging_program(n, false), &mut |_| {})
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("shared_stage"), "{e}");
    let c = locus_sim::preset::load(
        Some("k80"),
        None,
        &[
            "place.tab=shared".to_string(),
            "spaces.shared_stage=\"block-range\"".to_string(),
        ],
    )
    .unwrap();
    let r = System::new(&c)
        .run(&mut staging_program(n, false), &mut |_| {})
        .unwrap();
    let user = &r.sim.kernels[0];
    let s = user.spaces.unwrap();
    assert_eq!(s.staged_insts, 4 * 12);
    assert_eq!(s.staged_bytes, 4 * 256);
    let by = &user.summary.mem_insts_by_space;
    assert_eq!(by["global"].load, 4 * 2);
    assert_eq!(by["shared"].store, 4 * 2);
    assert_eq!(by["shared"].load, 8);
    assert_eq!(user.blocks_per_sm, 16);
    assert_eq!(r.sim.kernels[1].spaces.unwrap().staged_insts, 0);
}

/// The copy loop is issued unrolled by four, its loads ahead of its stores: a warp's four
/// iterations wait for memory about once, not four times. Copying 256 floats (four
/// iterations a warp) takes less than one more unloaded DRAM load than copying 64 (one
/// iteration: the single-load kernel's latency on the same preset bounds it). Fails if
/// each store waited for every load before it or the loads were issued one per group.
#[test]
fn staging_loads_of_a_group_overlap() {
    let c = locus_sim::preset::load(Some("k80"), None, &["place.tab=shared".to_string()]).unwrap();
    let cycles = |n: u64| {
        let r = System::new(&c)
            .run(&mut staging_program(n, false), &mut |_| {})
            .unwrap();
        r.sim.kernels[0].summary.cycles
    };
    let (one, four) = (cycles(64), cycles(256));
    let load = {
        let g = locus_sim::preset::load(Some("k80"), None, &[]).unwrap();
        let mut w = locus_workload::registry::build("single-load", &Default::default(), 1).unwrap();
        System::new(&g)
            .run(&mut w, &mut |_| {})
            .unwrap()
            .sim
            .kernels[0]
            .summary
            .cycles
    };
    assert!(four > one, "{four} <= {one}");
    assert!(
        four - one < load,
        "4 iterations {four}, 1 iteration {one}, one load {load}"
    );
}
