//! `run.gen_limit` (issue 9: a capped run generated its whole first wave): a block's warps
//! are generated only up to the limit, the statistics never change, and a run in which a
//! warp needs more fails with `SimError::GenLimit`, which `simulate_exact` answers by
//! running again without the limit.

use locus_sim::{preset, SimError};
use locus_workload::{registry, BlockProgram, Workload};
use std::collections::BTreeMap;

fn gemm() -> Box<dyn Workload> {
    let p: BTreeMap<String, String> = [("ni", "256"), ("nj", "256"), ("nk", "256")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Box::new(registry::build("gemm", &p, 1).unwrap())
}

/// The statistics of a run, without the host figures and the configuration echo.
fn stats(r: &locus_sim::Report) -> String {
    serde_json::to_string(&r.sim).unwrap()
}

/// A truncated block program is exactly the first `max_warp_insts` instructions of the
/// full one (line requests included), marked truncated; a shorter warp is whole.
#[test]
fn a_truncated_warp_is_the_full_programs_prefix() {
    let (mut full, mut cut) = (gemm(), gemm());
    let info = full.begin_launch().unwrap().unwrap();
    cut.begin_launch().unwrap().unwrap();
    let (mut a, mut b) = (BlockProgram::default(), BlockProgram::default());
    b.max_warp_insts = 40;
    for block in 0..info.grid.count().min(4) {
        full.gen_block(block, false, 128, &mut a).unwrap();
        cut.gen_block(block, false, 128, &mut b).unwrap();
        for (x, y) in a.warps.iter().zip(&b.warps) {
            assert!(x.insts.len() > 40, "gemm's warps are longer than the limit");
            assert!(y.truncated && !x.truncated);
            assert_eq!(y.insts[..], x.insts[..40]);
            for i in &y.insts {
                assert_eq!(y.lines_of(i), x.lines_of(i));
            }
        }
    }
    // the limit above every warp's length changes nothing
    b.max_warp_insts = u32::MAX;
    full.gen_block(info.grid.count() - 1, false, 128, &mut a)
        .unwrap();
    cut.gen_block(info.grid.count() - 1, false, 128, &mut b)
        .unwrap();
    for (x, y) in a.warps.iter().zip(&b.warps) {
        assert!(!y.truncated);
        assert_eq!(x.insts, y.insts);
    }
}

/// A capped run under a limit its warps stay within has the unlimited run's statistics; a
/// limit they pass fails with `GenLimit`, and `simulate_exact` then gives the unlimited
/// run's statistics again.
#[test]
fn the_limit_changes_no_statistic_and_a_short_one_is_redone() {
    let mut c = preset::load(Some("rec-4gpu"), None, &["run.max_warp_insts=20000".into()]).unwrap();
    let whole = locus_sim::simulate(&c, &mut *gemm()).unwrap();
    assert!(whole.sim.stopped_by_limit);

    c.run.gen_limit = 4096;
    let limited = locus_sim::simulate(&c, &mut *gemm()).unwrap();
    assert_eq!(stats(&limited), stats(&whole));

    c.run.gen_limit = 4;
    match locus_sim::simulate(&c, &mut *gemm()) {
        Err(SimError::GenLimit(4)) => {}
        other => panic!(
            "expected GenLimit(4), got {:?}",
            other.map(|r| r.sim.total.cycles)
        ),
    }
    let exact = locus_sim::simulate_exact(&c, &mut *gemm(), &mut || Ok(gemm())).unwrap();
    assert_eq!(stats(&exact), stats(&whole));
    assert_eq!(exact.host.as_ref().map(|h| h.gen_reruns), Some(1));
}
