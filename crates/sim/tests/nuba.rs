//! NUBA (nuba.md): the partitioned machine (`nuba` preset), LAB placement and the
//! replication station (`replication.kind = none | full | mdr`), on synthetic kernels whose
//! outcome is known in advance.

mod common;
use common::{cfg, run, Seq};

use locus_sim::{Config, Report, System};
use locus_workload::model::{Kernel, ModelWorkload, Thread};
use locus_workload::{Dim3, KernelInfo, Memory, ObjId};

/// 4 B elements per 4 KB page.
const PAGE: u64 = 1024;

/// A generic synthetic kernel: `blocks` blocks of 128 threads. For `reps` rounds every
/// block reads its own `private_pages` pages of `private` (page `b * private_pages + i`)
/// and, interleaved, `shared_lines` lines of `shared` from line
/// `round * per_round + block * per_block + shift`; it
/// finally writes one word of `out` per thread (its own page per block) and, when
/// `write_shared`, the words of `shared` it read.
#[derive(Clone)]
struct Synth {
    name: &'static str,
    blocks: u32,
    reps: u64,
    private: ObjId,
    private_pages: u64,
    shared: ObjId,
    shared_lines: u64,
    /// Line offset of the shared lines of (round, block): `round * per_round + block * per_block`.
    per_round: u64,
    per_block: u64,
    /// Added to every shared line offset.
    shift: u64,
    out: ObjId,
    write_shared: bool,
}

impl Synth {
    /// A kernel of `blocks` blocks running `reps` rounds over the objects of `o` that reads
    /// and writes nothing but its output: set the fields a test needs with `..`.
    fn plain(name: &'static str, o: &Objs, blocks: u32, reps: u64) -> Synth {
        Synth {
            name,
            blocks,
            reps,
            private: o.private,
            private_pages: 0,
            shared: o.shared,
            shared_lines: 0,
            per_round: 0,
            per_block: 0,
            shift: 0,
            out: o.out,
            write_shared: false,
        }
    }
}

impl Kernel for Synth {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: self.name.into(),
            grid: Dim3::x(self.blocks),
            block: Dim3::x(128),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let b = t.block_id();
        let l = t.local_id();
        let n_shared = t.len::<u32>(self.shared);
        let mut acc = 0u32;
        for r in 0..self.reps {
            // private and shared reads interleaved, so every phase of a round mixes them
            let start = (r * self.per_round + b * self.per_block + self.shift) * 32;
            let (np, ns) = (self.private_pages * PAGE, self.shared_lines * 32);
            for i in (l..np.max(ns)).step_by(128) {
                if i < np {
                    let v: u32 = t.ld(self.private, b * np + i);
                    acc = acc.wrapping_add(v);
                }
                if i < ns {
                    let idx = (start + i) % n_shared;
                    acc = acc.wrapping_add(t.ld::<u32>(self.shared, idx));
                    if self.write_shared {
                        t.st(self.shared, idx, acc);
                    }
                }
            }
        }
        t.st(self.out, b * PAGE + l, acc);
    }
}

struct Objs {
    private: ObjId,
    shared: ObjId,
    out: ObjId,
}

fn memory(blocks: u64, private_pages: u64, shared_pages: u64) -> (Memory, Objs) {
    let mut m = Memory::new();
    let private = m.alloc::<u32>("private", (blocks * private_pages).max(1) * PAGE, false);
    let shared = m.alloc::<u32>("shared", shared_pages * PAGE, false);
    let out = m.alloc::<u32>("out", blocks * PAGE, false);
    (
        m,
        Objs {
            private,
            shared,
            out,
        },
    )
}

fn simulate(c: &Config, kernels: Vec<Synth>, m: Memory) -> (Report, System) {
    let ks: Vec<Box<dyn Kernel>> = kernels
        .into_iter()
        .map(|k| Box::new(k) as Box<dyn Kernel>)
        .collect();
    let mut w = ModelWorkload::new("synth", m, Box::new(Seq(ks)));
    let mut s = System::new(c);
    let r = s.run(&mut w, &mut |_| {}).unwrap();
    (r, s)
}

fn inter_node_bytes(r: &Report) -> u64 {
    r.sim
        .links
        .iter()
        .filter(|l| l.kind == "inter-node")
        .map(|l| l.bytes_sent)
        .sum()
}

/// NUBA with every SM's data in its own partition (first touch; each block reads and
/// writes only its own pages; contiguous blocks per partition) sends no L1 miss over the
/// NoC: every access is local (nuba.md §3.4, home local), whatever the replication.
#[test]
fn private_data_never_crosses_the_noc() {
    for rep in ["none", "mdr", "full"] {
        let c = cfg(
            "nuba",
            &["placement.policy=ft", &format!("replication.kind={rep}")],
        );
        let blocks = 64u64; // two per partition (chunk scheduling)
        let (m, o) = memory(blocks, 2, 1);
        let k = Synth {
            private_pages: 2,
            ..Synth::plain("private", &o, blocks as u32, 2)
        };
        let (r, _) = simulate(&c, vec![k], m);
        let t = &r.sim.total.counters;
        assert!(t.l1_misses > 1000, "{rep}: {}", t.l1_misses);
        assert_eq!(t.remote_accesses, 0, "{rep}");
        assert!(t.local_accesses > 0, "{rep}");
        assert_eq!(inter_node_bytes(&r), 0, "{rep}: no byte on the NoC");
        if rep != "none" {
            let s = r.sim.replication.as_ref().unwrap();
            assert_eq!(
                s.replica_lookups + s.replica_fills,
                0,
                "{rep}: nothing to replicate"
            );
        }
    }
    // the same kernel under round-robin placement does cross it (the check can fail)
    let c = cfg("nuba", &["placement.policy=rr"]);
    let (m, o) = memory(64, 2, 1);
    let k = Synth {
        private_pages: 2,
        ..Synth::plain("private", &o, 64, 1)
    };
    let (r, _) = simulate(&c, vec![k], m);
    assert!(inter_node_bytes(&r) > 0);
}

/// A smaller NUBA (8 partitions) for the replication tests.
fn small(sets: &[&str]) -> Config {
    let mut v = vec!["system.nodes=8", "interconnect.group_size=4"];
    v.extend_from_slice(sets);
    cfg("nuba", &v)
}

/// Full replication makes replicas only of lines read-only in the kernel: kernel 1 reads
/// and writes `shared` (no replica of it) and reads `private` (replicated: read-only, and
/// mostly remote under round-robin pages); kernel 2 only reads `shared` (replicated);
/// kernel 3 writes it again; kernel 4 reads it again. Replicas are gone after every
/// kernel (none left at the end; flushed ones counted and charged) and the coherence
/// checker sees no stale replica in kernel 4 (it would, were kernel 2's replicas kept).
#[test]
fn replicas_are_read_only_lines_and_die_with_the_kernel() {
    let c = small(&[
        "replication.kind=full",
        "placement.policy=rr",
        "coherence.check=true",
        "l1.enabled=false",
    ]);
    let blocks = 16u64;
    let (m, o) = memory(blocks, 1, 4);
    let base = Synth {
        name: "k",
        blocks: blocks as u32,
        reps: 2,
        private: o.private,
        private_pages: 1,
        shared: o.shared,
        shared_lines: 32,
        per_round: 0,
        per_block: 8,
        shift: 0,
        out: o.out,
        write_shared: false,
    };
    let k1 = Synth {
        name: "rw",
        write_shared: true,
        ..base.clone()
    };
    let k2 = Synth {
        name: "ro",
        ..base.clone()
    };
    let k3 = Synth {
        name: "rw2",
        write_shared: true,
        ..base.clone()
    };
    let k4 = Synth {
        name: "ro2",
        ..base.clone()
    };
    // kernel 1 alone: `shared` is read and written there, so never replicated; the
    // read-only `private` pages of other partitions are
    let (m1, _) = memory(blocks, 1, 4);
    let (r1, _) = simulate(&c, vec![k1.clone()], m1);
    let f1 = &r1.sim.replication.as_ref().unwrap().replica_fills_by_object;
    assert_eq!(f1.get("shared"), None, "{f1:?}");
    assert!(f1.get("private").copied().unwrap_or(0) > 0, "{f1:?}");
    let (r, s) = simulate(&c, vec![k1, k2, k3, k4], m);
    let rep = r.sim.replication.as_ref().unwrap();
    let fills = &rep.replica_fills_by_object;
    assert!(fills.get("shared").copied().unwrap_or(0) > 0, "{fills:?}");
    assert!(fills.get("private").copied().unwrap_or(0) > 0, "{fills:?}");
    assert_eq!(
        fills.get("out"),
        None,
        "a written object is never replicated"
    );
    assert!(rep.replica_hits > 0);
    assert!(rep.flushed_replicas > 0 && rep.flushed_replicas <= rep.replica_fills);
    assert!(rep.flush_cycles > 0);
    assert_eq!(s.remote_lines_in_l2(), 0, "no replica survives the kernel");
    let chk = r.sim.coherence.as_ref().unwrap().checker.as_ref().unwrap();
    assert_eq!(chk.violations, 0, "{:?}", chk.examples);
}

/// With replication off the same run makes no replica, and its L1 misses to remote homes
/// all cross the NoC.
#[test]
fn no_replication_makes_no_replica() {
    let c = small(&["replication.kind=none", "placement.policy=rr"]);
    let (m, o) = memory(16, 1, 4);
    let k = Synth {
        name: "ro",
        blocks: 16,
        reps: 2,
        private: o.private,
        private_pages: 1,
        shared: o.shared,
        shared_lines: 32,
        per_round: 0,
        per_block: 8,
        shift: 0,
        out: o.out,
        write_shared: false,
    };
    let (r, s) = simulate(&c, vec![k], m);
    assert!(r.sim.replication.is_none());
    assert_eq!(s.remote_lines_in_l2(), 0);
    assert!(inter_node_bytes(&r) > 0);
}

/// MDR with no capacity pressure: every block reads the same small read-only set again
/// and again; most of it is remote (round-robin pages). Replicas would all hit, so MDR
/// adopts replication after its first epoch, and replicas then serve reads.
#[test]
fn mdr_replicates_without_capacity_pressure() {
    let c = small(&[
        "replication.kind=mdr",
        "replication.epoch_cycles=2000",
        "placement.policy=rr",
        "l1.enabled=false",
    ]);
    let (m, o) = memory(16, 1, 8);
    let k = Synth {
        shared_lines: 256, // the whole 32 KB set each round
        ..Synth::plain("hot", &o, 16, 24)
    };
    let (r, _) = simulate(&c, vec![k], m);
    let rep = r.sim.replication.as_ref().unwrap();
    assert!(rep.epochs >= 3, "{rep:?}");
    assert!(
        rep.epochs_replicating * 2 >= rep.epochs,
        "mostly replicating: {rep:?}"
    );
    assert!(rep.replica_hits > rep.replica_fills, "{rep:?}");
}

/// A read that finds its slice's MSHRs full waits there and looks the slice up again; the
/// replica statistics and MDR's profile count it once (its first look-up), so every
/// look-up has exactly one outcome: `replica_lookups = replica_hits + replica_misses`,
/// with one MSHR per slice (reads wait) as with 64. Fails if a retried look-up is counted
/// again (it was, and sampled again by MDR, until session 34).
#[test]
fn a_read_retried_on_full_mshrs_is_looked_up_once() {
    let run = |mshrs: &str| {
        let c = small(&[
            "replication.kind=full",
            "placement.policy=rr",
            "l1.enabled=false",
            mshrs,
        ]);
        let (m, o) = memory(16, 1, 8);
        let k = Synth {
            shared_lines: 256,
            ..Synth::plain("hot", &o, 16, 4)
        };
        let (r, _) = simulate(&c, vec![k], m);
        (r.sim.replication.clone().unwrap(), r.sim.total.cycles)
    };
    let (wide, t_wide) = run("l2.mshrs_per_slice=64");
    let (narrow, t_narrow) = run("l2.mshrs_per_slice=1");
    assert!(
        t_narrow > t_wide,
        "one MSHR per slice stalls reads: {t_narrow} vs {t_wide}"
    );
    for rep in [wide, narrow] {
        assert!(rep.replica_misses > 0 && rep.replica_hits > 0, "{rep:?}");
        assert_eq!(
            rep.replica_lookups,
            rep.replica_hits + rep.replica_misses,
            "{rep:?}"
        );
    }
}

/// MDR with only capacity pressure: each partition re-reads a private set that fills half
/// of its LLC (local: first touched by kernel 1) and streams read-only data homed in the
/// next partition that is never reused. Replicas of the stream would evict the private
/// set (the shadow directory sees it), so MDR keeps replication off, but for a few noisy
/// epochs. (L1s off, so the LLC sees every access.)
#[test]
fn mdr_refuses_replication_under_capacity_pressure() {
    // 8 partitions x 2 slices x 16 KB (8 ways x 16 sets)
    let c = small(&[
        "replication.kind=mdr",
        "replication.epoch_cycles=5000",
        "placement.policy=ft",
        "l2.bytes_per_node=32768",
        "l2.ways=8",
        "l1.enabled=false",
    ]);
    let blocks = 16u64; // two per partition
    let pp = 2u64; // 8 KB per block: 16 KB of the partition's 32 KB
    let region = 2048u64; // stream lines per block (64 pages)
    let (m, o) = memory(blocks, pp, blocks * region / 32);
    // kernel 1: each block first-touches its private pages and its stream region
    let init = Synth {
        name: "init",
        blocks: blocks as u32,
        reps: 1,
        private: o.private,
        private_pages: pp,
        shared: o.shared,
        shared_lines: region,
        per_round: 0,
        per_block: region,
        shift: 0,
        out: o.out,
        write_shared: true,
    };
    // kernel 2: per round, block b reads its private set, then 64 new lines of the
    // region of block b + 2 (homed in the next partition)
    let main = Synth {
        name: "pressure",
        blocks: blocks as u32,
        reps: 32,
        private: o.private,
        private_pages: pp,
        shared: o.shared,
        shared_lines: 64,
        per_round: 64,
        per_block: region,
        shift: 2 * region,
        out: o.out,
        write_shared: false,
    };
    let (r, _) = simulate(&c, vec![init, main], m);
    let rep = r.sim.replication.as_ref().unwrap();
    assert!(rep.epochs >= 10, "{rep:?}");
    // set sampling is noisy: an epoch whose samples miss the stream (or a cold one) may
    // pick replication, but the model refuses it in the large majority of epochs, and
    // the replicas made meanwhile never served a hit (pure pressure)
    assert!(rep.epochs_replicating * 5 < rep.epochs, "{rep:?}");
    assert_eq!(rep.replica_hits, 0, "{rep:?}");
    assert!(rep.ro_remote_bypassed > rep.replica_lookups, "{rep:?}");
}

/// MDR's epochs count from each kernel's start (nuba.md A7): with an epoch one cycle
/// longer than the longest of three kernels, no epoch ends inside any kernel, so MDR
/// decides nothing, although the run is longer than an epoch (a timer counted from time 0
/// would end one inside the run). Fails if the launch does not restart the epoch timer.
#[test]
fn mdr_epochs_count_from_each_kernel_start() {
    let three = || {
        let (m, o) = memory(16, 1, 8);
        let k = Synth {
            shared_lines: 64,
            ..Synth::plain("k", &o, 16, 4)
        };
        (vec![k.clone(), k.clone(), k], m)
    };
    let sets = ["replication.kind=mdr", "placement.policy=rr"];
    let (ks, m) = three();
    let (r, _) = simulate(
        &small(&[sets[0], sets[1], "replication.epoch_cycles=100000000"]),
        ks,
        m,
    );
    let cycles: Vec<u64> = r.sim.kernels.iter().map(|k| k.summary.cycles).collect();
    let epoch = cycles.iter().max().unwrap() + 2;
    assert!(
        cycles.len() == 3 && cycles.iter().sum::<u64>() > epoch,
        "{cycles:?}"
    );
    let e = format!("replication.epoch_cycles={epoch}");
    let (ks, m) = three();
    let (r2, s) = simulate(&small(&[sets[0], sets[1], &e]), ks, m);
    let cycles2: Vec<u64> = r2.sim.kernels.iter().map(|k| k.summary.cycles).collect();
    assert_eq!(cycles, cycles2, "no decision, so the same run");
    assert_eq!(r2.sim.replication.as_ref().unwrap().epochs, 0);
    assert_eq!(s.epochs_fired(), vec![0]);
}

/// Equal configuration and workload give byte-identical statistics (MDR included).
#[test]
fn nuba_is_deterministic() {
    let c = small(&["replication.kind=mdr", "replication.epoch_cycles=2000"]);
    let a = run(&c, "stream", &[("n", "64k"), ("block", "128")]);
    let b = run(&c, "stream", &[("n", "64k"), ("block", "128")]);
    assert_eq!(
        serde_json::to_string(&a.sim).unwrap(),
        serde_json::to_string(&b.sim).unwrap()
    );
}

/// The core's coherence checker passes on the SM-side UBA (two LLC partitions caching all
/// memory, directory write-invalidate between them) with writers of shared data (BFS
/// writes its frontier and costs, read by other SMs of both partitions, in each kernel).
#[test]
fn sm_side_uba_is_coherent_with_writers() {
    let c = cfg(
        "nuba-sm-uba",
        &["coherence.check=true", "system.sms_per_node=8"],
    );
    let r = run(&c, "bfs", &[("scale", "11")]);
    let coh = r.sim.coherence.as_ref().unwrap();
    assert!(coh.invalidations_sent > 0, "the writers do invalidate");
    let chk = coh.checker.as_ref().unwrap();
    assert!(chk.checks > 10_000);
    assert_eq!(chk.violations, 0, "{:?}", chk.examples);
    // without the directory the same run reads stale data (the check can fail)
    let c = cfg(
        "nuba-sm-uba",
        &[
            "coherence.check=true",
            "system.sms_per_node=8",
            "coherence.protocol=none",
        ],
    );
    let r = run(&c, "bfs", &[("scale", "11")]);
    let chk = r.sim.coherence.as_ref().unwrap().checker.as_ref().unwrap();
    assert!(chk.violations > 0);
}

/// LAB on the machine: a low-sharing kernel (each block its own pages) gets nearly all
/// pages local, as first touch; round-robin gets about 1/n local.
#[test]
fn lab_places_low_sharing_pages_locally() {
    let blocks = 16u64;
    let mk = |policy: &str| {
        let c = small(&[&format!("placement.policy={policy}")]);
        let (m, o) = memory(blocks, 32, 1);
        let k = Synth {
            private_pages: 32,
            ..Synth::plain("private", &o, blocks as u32, 1)
        };
        let (r, _) = simulate(&c, vec![k], m);
        let t = &r.sim.total.counters;
        t.local_accesses as f64 / (t.local_accesses + t.remote_accesses) as f64
    };
    let (lab, rr) = (mk("lab"), mk("rr"));
    // (start-up least-first placements make a few pages remote, §4.4)
    assert!(lab > 0.75, "LAB local share {lab}");
    assert!(rr < 0.3, "RR local share {rr}");
}

/// `noc.sm_port_gbps`: off by default (no SM ports; presets without it keep their link
/// list); on, every SM gets an input and an output port, read data enters through the
/// input port in whole 128 B lines, requests and store data leave through the output
/// port, and a narrower port slows a bandwidth-bound stream down.
#[test]
fn sm_ports_carry_the_sms_traffic() {
    let plain = cfg("coda-4gpu", &[]);
    let r = run(&plain, "stream", &[("n", "16k"), ("block", "128")]);
    assert!(!r.sim.links.iter().any(|l| l.name.starts_with("sm")));
    let go = |gbps: &str| {
        let c = cfg(
            "nuba-mem-uba",
            &["system.sms_per_node=8", &format!("noc.sm_port_gbps={gbps}")],
        );
        run(&c, "stream", &[("n", "256k"), ("block", "128")])
    };
    let r = go("22.4");
    let ins: Vec<_> = r
        .sim
        .links
        .iter()
        .filter(|l| l.name.ends_with(".in"))
        .collect();
    let outs: Vec<_> = r
        .sim
        .links
        .iter()
        .filter(|l| l.name.ends_with(".out"))
        .collect();
    assert_eq!((ins.len(), outs.len()), (8, 8));
    let bytes_in: u64 = ins.iter().map(|l| l.bytes_sent).sum();
    let t = &r.sim.total.counters;
    assert_eq!(
        bytes_in,
        128 * (t.l1_misses - t.l1_mshr_merges),
        "one line per fill"
    );
    let reads_out: u64 = outs
        .iter()
        .map(|l| l.by_kind.get("read").map_or(0, |m| m.packets))
        .sum();
    assert_eq!(
        reads_out,
        t.l1_misses - t.l1_mshr_merges,
        "one request per miss"
    );
    let slow = go("2.8");
    assert!(slow.sim.total.cycles > r.sim.total.cycles * 3 / 2);
}

/// The coherence checker on the SM-side UBA (requester-side L2s, ideal directory,
/// write-through remote) with blocks on both nodes reading and writing overlapping words
/// of `shared`: no stale read. It failed (2 false violations) while the checker relabelled
/// a writer's L2 copy back to an older version when a later write had already passed
/// through it (`home_write` now keeps the later label). With channel-bound slices
/// (`l2.slices_per_channel = 2`, the preset's) it found 9 real stale reads while an
/// invalidation looked its line up in channel 0's slice instead of the line's.
#[test]
fn sm_side_uba_synthetic_writers_race() {
    // the preset's channel-bound slices (§2.3), and slices hashed over the partition
    for spc in ["l2.slices_per_channel=2", "l2.slices_per_channel=0"] {
        sm_side_uba_writers_race_with(spc);
    }
}

fn sm_side_uba_writers_race_with(spc: &str) {
    let c = cfg(
        "nuba-sm-uba",
        &["coherence.check=true", "system.sms_per_node=8", spc],
    );
    let (m, o) = memory(32, 1, 4);
    let k = Synth {
        name: "rw",
        blocks: 32,
        reps: 3,
        private: o.private,
        private_pages: 1,
        shared: o.shared,
        shared_lines: 32,
        per_round: 5,
        per_block: 3,
        shift: 0,
        out: o.out,
        write_shared: true,
    };
    let (r, _) = simulate(&c, vec![k.clone(), k], m);
    let chk = r.sim.coherence.as_ref().unwrap().checker.as_ref().unwrap();
    assert_eq!(chk.violations, 0, "{spc}: {:?}", chk.examples);
}

/// A run stopped by `run.max_warp_insts` leaves packets reserved on NUBA's saturated
/// inter-switch links past its end; a link's utilisation still never exceeds 1 (it was
/// `busy / end`, and 2mm's capped run reported 104.7%). The first assertion shows the run
/// does reserve past its end (a link's serialisation time exceeds the run), so the second
/// fails with the old formula.
#[test]
fn link_utilisation_of_a_capped_run_never_exceeds_one() {
    let c = cfg("nuba", &["run.max_warp_insts=244140"]);
    let r = run(&c, "2mm", &[("n", "320")]);
    assert!(r.sim.stopped_by_limit);
    let end_ns = r.sim.total.ns;
    let links: Vec<_> = r
        .sim
        .links
        .iter()
        .filter(|l| l.kind == "inter-node")
        .collect();
    assert!(
        links
            .iter()
            .any(|l| l.bytes_sent as f64 / l.gbps > end_ns * 1.001),
        "no link reserved past the end: the test no longer exercises the capped tail"
    );
    for l in &links {
        assert!(l.utilization <= 1.0, "{} at {}", l.name, l.utilization);
    }
    // and it still measures the load: the busiest link was nearly saturated
    let max = links.iter().map(|l| l.utilization).fold(0.0, f64::max);
    assert!(max > 0.8, "busiest link {max}");
}
