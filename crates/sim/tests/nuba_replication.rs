//! NUBA §7.9's second alternative to LAB, Carrefour-style page replication
//! (`placement.migration = "carrefour"`, nuba.md A23), on a synthetic kernel whose outcome
//! is known in advance: every page lives on partition 7, each page is read by one block
//! only, and a later kernel writes every page.

mod common;
use common::pages::{Pass, BLOCKS, PAGE, PAGES_PER_BLOCK};
use common::{cfg, Seq};

use locus_sim::{Config, Report, System};
use locus_workload::model::{Kernel, ModelWorkload};
use locus_workload::Memory;

/// 8 partitions of `frames` 4 KB frames each, every page pinned on partition 7, no MDR,
/// counting intervals of 2000 cycles.
fn config(migration: &str, frames: u64, min_free: f64) -> Config {
    cfg(
        "nuba",
        &[
            "system.nodes=8",
            "interconnect.group_size=4",
            "replication.kind=none",
            "placement.policy=node",
            "placement.node=7",
            "placement.first_touch_fault_cycles=0",
            &format!("memory.bytes_per_node={}", frames * 4096),
            &format!("placement.migration={migration}"),
            "placement.migration_interval_cycles=2000",
            &format!("placement.replication_min_free={min_free}"),
        ],
    )
}

/// Kernel 1 reads each block's pages many times (several intervals), kernel 2 reads them
/// once more, kernel 3 writes them, kernel 4 reads them again.
fn simulate(c: &Config) -> (Report, System) {
    let mut m = Memory::new();
    let data = m.alloc::<u32>("data", BLOCKS * PAGES_PER_BLOCK * PAGE, false);
    let pass = |name, reps, write| -> Box<dyn Kernel> {
        Box::new(Pass {
            name,
            reps,
            write,
            data,
        })
    };
    let ks = vec![
        pass("long", 40, false),
        pass("again", 1, false),
        pass("write", 1, true),
        pass("after", 1, false),
    ];
    let mut w = ModelWorkload::new("pinned", m, Box::new(Seq(ks)));
    let mut s = System::new(c);
    let r = s.run(&mut w, &mut |_| {}).unwrap();
    (r, s)
}

/// A page read only from one other partition gets a replica there at the end of the first
/// interval (the home's 7 partitions of readers each get their own pages, the home's own
/// blocks read locally and make none), so the next kernel's L1 misses are all served by
/// the reader's own partition; the write kernel collapses every replica (frames freed, one
/// collapse per page, the writer pays the shootdown), after which the reads go to the
/// home again and no read was ever served by a stale replica. Without replication the
/// same reads stay remote (the checks can fail).
#[test]
fn read_pages_are_replicated_where_read_and_a_write_collapses_them() {
    let c = config("carrefour", 256, 0.1);
    let (r, _s) = simulate(&c);
    let pages = BLOCKS * PAGES_PER_BLOCK;
    let k = |i: usize| &r.sim.kernels[i].summary.counters;
    assert!(
        r.sim.kernels[0].summary.cycles > 3 * c.placement.migration_interval_cycles,
        "kernel 1 spans several intervals"
    );
    let rep = r.sim.placement.replicas.expect("carrefour on");
    assert_eq!(r.sim.placement.pages_mapped, pages);
    // every page read by a block outside partition 7 (the 4 blocks there read locally)
    let remote_pages = pages - 4 * PAGES_PER_BLOCK;
    assert_eq!(rep.made, remote_pages, "{rep:?}");
    assert_eq!(rep.peak_frames, remote_pages);
    assert_eq!(rep.copied_bytes, remote_pages * c.system.page_bytes);
    // kernel 2: every L1 miss is served by the requester's own partition (its replica)
    assert!(k(1).l1_misses > 0);
    assert_eq!(k(1).l1_miss_remote, 0, "{:?}", k(1));
    assert!(rep.replica_reads >= k(1).l1_misses);
    // the writes collapsed every replicated page, once, and freed the frames
    assert_eq!(rep.collapses, remote_pages);
    assert_eq!(rep.dropped, remote_pages);
    assert_eq!(rep.frames_now, 0);
    assert_eq!(rep.stale_reads, 0);
    // kernel 4: the reads go to partition 7 again (7 of 8 partitions remote) and no page
    // is replicated twice (written pages never are)
    assert!(k(3).l1_miss_remote > 3 * k(3).l1_miss_local, "{:?}", k(3));

    // without replication: kernel 2's reads stay remote
    let (r0, _) = simulate(&config("none", 256, 0.1));
    assert!(r0.sim.placement.replicas.is_none());
    let k2 = &r0.sim.kernels[1].summary.counters;
    assert!(k2.l1_miss_remote > 3 * k2.l1_miss_local, "{k2:?}");
}

/// Replicas count against their partition's memory: with 64 frames per partition (all of
/// partition 7's taken by the data) and `placement.replication_min_free = 0.9`, a reading
/// partition takes replicas while its free fraction `1 - k/64` is above 0.9, i.e. k = 0..6:
/// 7 of the 8 pages each wants; with the default 0.1 it takes all 8.
#[test]
fn replication_stops_at_the_free_memory_threshold() {
    let frames = 64u64;
    let want = PAGES_PER_BLOCK * 4; // pages read by each partition's 4 blocks
    for (min_free, each) in [(0.9, 7u64), (0.1, want)] {
        let closed = (0..want)
            .filter(|&k| 1.0 - k as f64 / frames as f64 > min_free)
            .count() as u64;
        assert_eq!(closed, each);
        let (r, _) = simulate(&config("carrefour", frames, min_free));
        let rep = r.sim.placement.replicas.unwrap();
        assert_eq!(rep.made, 7 * each, "min_free {min_free}: {rep:?}");
        assert_eq!(rep.peak_frames, 7 * each);
    }
}

/// Bad Carrefour parameters are refused with an error naming the key.
#[test]
fn bad_replication_parameters_are_refused() {
    for (set, key) in [
        (
            "placement.replication_min_free=1",
            "placement.replication_min_free",
        ),
        (
            "placement.replication_min_free=-0.1",
            "placement.replication_min_free",
        ),
        ("placement.migration=carrefours", "placement.migration"),
    ] {
        let sets = vec!["placement.migration=carrefour".to_string(), set.to_string()];
        let e = match locus_sim::preset::load(Some("nuba"), None, &sets) {
            Ok(_) => panic!("{set} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(key), "{set}: {e}");
    }
}
