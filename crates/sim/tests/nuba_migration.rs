//! NUBA §7.9's first alternative to LAB, Griffin-style page migration
//! (`placement.migration = "griffin"`, nuba.md A23), on a synthetic kernel whose outcome is
//! known in advance: every page lives on one partition that never touches it, and each
//! page is read by one block only.

mod common;
use common::pages::{Pass, BLOCKS, PAGE, PAGES_PER_BLOCK};
use common::{cfg, Seq};

use locus_sim::{Config, Report, System};
use locus_workload::model::{Kernel, ModelWorkload};
use locus_workload::Memory;

/// 8 partitions, every page pinned on partition 7, no replication, Griffin intervals of
/// 2000 cycles.
fn config(migration: &str) -> Config {
    cfg(
        "nuba",
        &[
            "system.nodes=8",
            "interconnect.group_size=4",
            "replication.kind=none",
            "placement.policy=node",
            "placement.node=7",
            "placement.first_touch_fault_cycles=0",
            &format!("placement.migration={migration}"),
            "placement.migration_interval_cycles=2000",
        ],
    )
}

/// Kernel 1 reads each block's pages many times (it spans several intervals); kernel 2
/// reads them once more.
fn simulate(c: &Config) -> (Report, System) {
    let mut m = Memory::new();
    let data = m.alloc::<u32>("data", BLOCKS * PAGES_PER_BLOCK * PAGE, false);
    let ks: Vec<Box<dyn Kernel>> = vec![
        Box::new(Pass {
            write: false,
            name: "long",
            reps: 40,
            data,
        }),
        Box::new(Pass {
            write: false,
            name: "again",
            reps: 1,
            data,
        }),
    ];
    let mut w = ModelWorkload::new("pinned", m, Box::new(Seq(ks)));
    let mut s = System::new(c);
    let r = s.run(&mut w, &mut |_| {}).unwrap();
    (r, s)
}

/// A page accessed only from another partition moves there at the end of the first
/// interval (it has remote accesses and no local one, so remote >= 2 x local), as a whole
/// page copied from its old home (page + header bytes), exactly once (afterwards it is
/// only accessed locally); the next kernel's L1 misses are then all local. Without
/// migration the same run's misses stay remote (the check can fail).
#[test]
fn a_page_used_only_remotely_moves_once_and_is_then_local() {
    let (r, s) = simulate(&config("griffin"));
    let c = config("griffin");
    let pages = BLOCKS * PAGES_PER_BLOCK;
    let k1 = &r.sim.kernels[0].summary;
    let k2 = &r.sim.kernels[1].summary;
    assert!(
        k1.cycles > 3 * c.placement.migration_interval_cycles,
        "kernel 1 spans several intervals: {} cycles",
        k1.cycles
    );
    let t = &r.sim.total.counters;
    // the blocks of partition 7 read local pages; every other page moves, once, in the
    // first interval (each page's block reads it from its start)
    assert_eq!(r.sim.placement.pages_mapped, pages);
    assert!(t.migrations > 0 && t.migrations < pages, "{}", t.migrations);
    assert_eq!(k1.counters.migrations, t.migrations, "all in kernel 1");
    assert_eq!(k2.counters.migrations, 0);
    assert_eq!(
        t.migrated_bytes,
        t.migrations * (c.system.page_bytes + c.interconnect.header_bytes as u64),
        "one whole-page copy per move"
    );
    // the first epoch decided them all: later epochs found nothing remote
    assert!(s.epochs_fired()[0] >= 3, "{:?}", s.epochs_fired());
    // kernel 2: every L1 miss is served by the requester's own partition
    assert!(k2.counters.l1_misses > 0);
    assert_eq!(k2.counters.l1_miss_remote, 0, "{:?}", k2.counters);
    assert!(k2.counters.l1_miss_local > 0);

    // without migration: the same pages stay on partition 7
    let (r0, _) = simulate(&config("none"));
    let t0 = &r0.sim.total.counters;
    assert_eq!(t0.migrations, 0);
    let k2 = &r0.sim.kernels[1].summary.counters;
    assert!(
        k2.l1_miss_remote > 3 * k2.l1_miss_local,
        "7 of 8 partitions read remotely: {} remote, {} local",
        k2.l1_miss_remote,
        k2.l1_miss_local
    );
    assert_eq!(
        r0.sim.total.counters.l1_miss_remote + r0.sim.total.counters.l1_miss_local,
        r0.sim.total.counters.l1_misses
    );
}

/// `placement.migration` is refused with a clear error when its parameters are not
/// usable.
#[test]
fn bad_migration_parameters_are_refused() {
    for (set, key) in [
        (
            "placement.migration_interval_cycles=0",
            "placement.migration_interval_cycles",
        ),
        ("placement.migration_ratio=0", "placement.migration_ratio"),
        ("placement.migration_ratio=-1", "placement.migration_ratio"),
    ] {
        let sets = vec!["placement.migration=griffin".to_string(), set.to_string()];
        let e = match locus_sim::preset::load(Some("nuba"), None, &sets) {
            Ok(_) => panic!("{set} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(key), "{set}: {e}");
    }
}
