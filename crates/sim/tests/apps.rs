//! `--apps` with a single application (issue 14): it runs every launch on node 0 alone.

use locus_sim::preset;
use locus_workload::{registry, Workload};
use std::collections::BTreeMap;

/// A multi-kernel application alone through `run_multi` finishes every launch (it used to
/// stop after the first: "application bfs stalled before finishing"), on node 0 only, and
/// runs exactly the launches and blocks the same workload runs through `run`.
#[test]
fn one_application_runs_every_launch_on_node_0() {
    let c = preset::load(Some("coda-4gpu"), None, &[]).unwrap();
    let p: BTreeMap<String, String> = [("scale", "10"), ("edge_factor", "8")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut alone = registry::build("bfs", &p, 1).unwrap();
    let whole = locus_sim::simulate(&c, &mut alone).unwrap();
    assert!(
        whole.sim.kernels.len() > 1,
        "bfs must have several launches"
    );

    let mut a =
        locus_workload::offset::Offset::new(Box::new(registry::build("bfs", &p, 1).unwrap()), 0, 0);
    let mut ws: Vec<&mut dyn Workload> = vec![&mut a];
    let r = locus_sim::System::new(&c)
        .run_multi(&mut ws, &mut |_| {})
        .unwrap();
    assert_eq!(r.sim.kernels.len(), whole.sim.kernels.len());
    assert_eq!(r.sim.apps.len(), 1);
    assert_eq!(r.sim.apps[0].kernels as usize, whole.sim.kernels.len());
    assert_eq!(r.sim.total.counters.blocks, whole.sim.total.counters.blocks);
    assert_eq!(
        r.sim.total.counters.warp_insts,
        whole.sim.total.counters.warp_insts
    );
    assert_eq!(r.sim.nodes[0].blocks, r.sim.total.counters.blocks);
    assert!(
        r.sim.nodes[1..].iter().all(|n| n.blocks == 0),
        "nodes other than 0 stay idle"
    );
}
