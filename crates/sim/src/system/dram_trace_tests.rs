//! The post-L2 DRAM trace recorder (`System::record_dram_trace`, for the HMS model's
//! sample profile): it records every DRAM request once, in arrival order, and changes no
//! statistic.

use super::System;
use crate::preset;
use locus_workload::registry;
use std::collections::BTreeMap;

fn run(record: bool) -> (Vec<super::DramRecord>, crate::Report) {
    let c = preset::load(Some("coda-4gpu"), None, &[]).unwrap();
    let p: BTreeMap<String, String> = [("n".to_string(), "8k".to_string())].into();
    let mut w = registry::build("hs", &p, 7).unwrap();
    let mut s = System::new(&c);
    s.record_dram_trace(record);
    let r = s.run(&mut w, &mut |_| {}).unwrap();
    (s.take_dram_trace(), r)
}

/// On: one record per DRAM read and write the statistics count, times non-decreasing,
/// reads and writes split as counted; off: nothing; the statistics are identical.
#[test]
fn dram_trace_counts_every_dram_request_and_changes_nothing() {
    let (off, a) = run(false);
    let (on, b) = run(true);
    assert!(off.is_empty());
    assert_eq!(
        serde_json::to_string(&a.sim).unwrap(),
        serde_json::to_string(&b.sim).unwrap()
    );
    let reads: u64 = b.sim.nodes.iter().map(|n| n.dram.reads).sum();
    let writes: u64 = b.sim.nodes.iter().map(|n| n.dram.writes).sum();
    assert!(reads > 100);
    assert_eq!(on.iter().filter(|r| !r.write).count() as u64, reads);
    assert_eq!(on.iter().filter(|r| r.write).count() as u64, writes);
    assert!(on.windows(2).all(|w| w[0].ps <= w[1].ps));
}
