//! Heterogeneous machines (issue 7 §4): node kinds with their own SM count (0 = memory
//! only), SM clock and cache sizes, `[[node_kinds]]` + `system.node_kinds`.

mod common;
use common::{cfg, run};

use locus_sim::{preset, Report};

/// Kinds `gpu` (the preset's node) and `stack` (no SMs), `nodes` as given.
const KINDS: &str = "node_kinds=[{name=\"gpu\"},{name=\"stack\",sms=0}]";

fn err(sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    preset::load(Some("coda-4gpu"), None, &sets)
        .unwrap_err()
        .to_string()
}

/// A 2-node machine whose node 1 is a memory-only stack: every block runs on node 0, and
/// node 1's memory is served remotely. Closed form for a read-only stream under
/// fine-grain interleaving: the accesses counted local are exactly node 0's DRAM reads and
/// those counted remote exactly node 1's (every request to node 1's memory is remote);
/// node 1 issues nothing and its L2 is never looked up (requester-side L2, no requester).
#[test]
fn sm_less_node_runs_no_blocks_and_its_memory_is_remote() {
    let c = cfg(
        "coda-4gpu",
        &[
            "system.nodes=2",
            "system.node_kinds=[\"gpu\",\"stack\"]",
            KINDS,
        ],
    );
    let r = run(&c, "stream", &[("n", "16k"), ("block", "128")]);
    let (n0, n1) = (&r.sim.nodes[0], &r.sim.nodes[1]);
    let t = &r.sim.total.counters;
    assert_eq!(n0.blocks, t.blocks);
    assert!(t.blocks > 1);
    assert_eq!(
        (n1.blocks, n1.warp_insts, n1.l1_hits + n1.l1_misses),
        (0, 0, 0)
    );
    assert_eq!(n1.l2_hits + n1.l2_misses, 0);
    assert_eq!((n1.sms, n0.sms), (Some(0), Some(4)));
    assert_eq!(n1.kind.as_deref(), Some("stack"));
    assert!(n1.dram.reads > 0 && n0.dram.reads > 0);
    assert_eq!(t.local_accesses, n0.dram.reads);
    assert_eq!(t.remote_accesses, n1.dram.reads);
    // the same with every page on the stack: all remote
    let c = cfg(
        "coda-4gpu",
        &[
            "system.nodes=2",
            "system.node_kinds=[\"gpu\",\"stack\"]",
            KINDS,
            "placement.policy=node",
            "placement.node=1",
        ],
    );
    let r = run(&c, "stream", &[("n", "16k"), ("block", "128")]);
    let t = &r.sim.total.counters;
    assert_eq!(t.local_accesses, 0);
    assert_eq!(t.remote_accesses, r.sim.nodes[1].dram.reads);
    assert_eq!(r.sim.nodes[1].blocks, 0);
}

/// Every scheduling policy keeps blocks off SM-less nodes, on a 4-node machine whose nodes
/// 1 and 2 are stacks: under FRR, chunks and CODA affinity (with and without stealing)
/// the blocks all run on nodes 0 and 3, and the same blocks finish.
#[test]
fn every_scheduling_policy_skips_sm_less_nodes() {
    for (policy, steal) in [
        ("frr", false),
        ("chunk", false),
        ("chunk", true),
        ("affinity", false),
        ("affinity", true),
    ] {
        let c = cfg(
            "coda-4gpu",
            &[
                "system.node_kinds=[\"gpu\",\"stack\",\"stack\",\"gpu\"]",
                KINDS,
                &format!("scheduling.policy={policy}"),
                &format!("scheduling.work_stealing={steal}"),
            ],
        );
        let r = run(&c, "vectoradd", &[("n", "16k")]);
        let n = &r.sim.nodes;
        assert_eq!(n[1].blocks + n[2].blocks, 0, "{policy} {steal}");
        assert_eq!(n[1].warp_insts + n[2].warp_insts, 0, "{policy} {steal}");
        assert!(n[0].blocks > 0 && n[3].blocks > 0, "{policy} {steal}");
        assert_eq!(
            n[0].blocks + n[3].blocks,
            r.sim.total.counters.blocks,
            "{policy} {steal}"
        );
    }
}

fn chain_ps(kinds: &str, ops: &str) -> u64 {
    let c = cfg(
        "coda-4gpu",
        &[
            "system.nodes=2",
            "system.sms_per_node=1",
            &format!("system.node_kinds={kinds}"),
            "node_kinds=[{name=\"fast\"},{name=\"slow\",sm_clock_ghz=1}]",
        ],
    );
    let r: Report = run(&c, "chain", &[("ops", ops)]);
    assert_eq!(r.sim.nodes[0].warp_insts, r.sim.total.counters.warp_insts);
    // cycles are reference (system.sm_clock_ghz = 2 GHz) cycles of 500 ps
    r.sim.total.cycles * 500
}

/// A clock domain per kind: the one-warp dependent ALU chain (it touches no memory, so
/// every step is an SM cycle) takes exactly twice as long on a node whose SMs run at
/// half the clock (FRR puts the only block on node 0), and 100 more dependent
/// instructions cost 100 x `sm.int_latency` cycles of that node's clock.
#[test]
fn half_clock_node_runs_a_dependent_chain_in_twice_the_time() {
    let fast = chain_ps("[\"fast\",\"slow\"]", "100");
    let slow = chain_ps("[\"slow\",\"fast\"]", "100");
    assert_eq!(slow, 2 * fast);
    let c = cfg("coda-4gpu", &[]);
    let lat = c.sm.int_latency as u64;
    let slow200 = chain_ps("[\"slow\",\"fast\"]", "200");
    assert_eq!(slow200 - slow, 100 * lat * 1000, "1 GHz: 1000 ps cycles");
    let fast200 = chain_ps("[\"fast\",\"slow\"]", "200");
    assert_eq!(fast200 - fast, 100 * lat * 500);
    // and a homogeneous machine times the chain as the fast kind does
    let c = cfg("coda-4gpu", &["system.nodes=2", "system.sms_per_node=1"]);
    assert_eq!(
        run(&c, "chain", &[("ops", "100")]).sim.total.cycles * 500,
        fast
    );
}

/// Naming the preset's own node as the kind of every node changes nothing: the same
/// statistics as the homogeneous machine (only the per-node kind fields are added).
#[test]
fn kinds_equal_to_the_default_node_change_nothing() {
    let plain = cfg("coda-4gpu", &[]);
    let kinds = cfg(
        "coda-4gpu",
        &[
            "system.node_kinds=[\"gpu\",\"gpu\",\"gpu\",\"gpu\"]",
            "node_kinds=[{name=\"gpu\",sms=4,sm_clock_ghz=2,l1_bytes=32768,l2_bytes=1048576}]",
        ],
    );
    let a = run(&plain, "hs", &[("n", "8k")]);
    let mut b = run(&kinds, "hs", &[("n", "8k")]);
    for n in &mut b.sim.nodes {
        assert_eq!(n.kind.as_deref(), Some("gpu"));
        (n.kind, n.sms, n.sm_clock_ghz) = (None, None, None);
    }
    assert_eq!(
        serde_json::to_string(&a.sim).unwrap(),
        serde_json::to_string(&b.sim).unwrap()
    );
}

/// Per-kind cache sizes: a kind with a 1 KB L1 misses more than the default 32 KB L1 on
/// the same blocks (two 1-node runs, identical but for the kind's `l1_bytes`).
#[test]
fn a_kinds_l1_size_is_used() {
    let l1 = |bytes: &str| {
        let c = cfg(
            "coda-4gpu",
            &[
                "system.nodes=1",
                "system.node_kinds=[\"g\"]",
                &format!("node_kinds=[{{name=\"g\",l1_bytes={bytes}}}]"),
            ],
        );
        let r = run(&c, "hs", &[("n", "8k")]);
        (r.sim.nodes[0].l1_hits, r.sim.nodes[0].l1_misses)
    };
    let (big, small) = (l1("32768"), l1("1024"));
    assert!(small.1 > big.1, "1 KB L1 {small:?} vs 32 KB {big:?}");
}

/// Bad kinds are refused, naming the key and the fix.
#[test]
fn bad_node_kinds_are_refused_with_the_key() {
    let m = err(&[
        "system.nodes=2",
        "system.node_kinds=[\"gpu\",\"stak\"]",
        KINDS,
    ]);
    assert!(
        m.contains("system.node_kinds[1] = \"stak\"")
            && m.contains("did you mean `stack`")
            && m.contains("[[node_kinds]]"),
        "{m}"
    );
    let m = err(&[
        "system.nodes=2",
        "system.node_kinds=[\"stack\",\"stack\"]",
        KINDS,
    ]);
    assert!(m.contains("every node has 0 SMs"), "{m}");
    let m = err(&["system.node_kinds=[\"gpu\",\"stack\"]", KINDS]);
    assert!(
        m.contains("system.node_kinds has 2 entries for system.nodes = 4"),
        "{m}"
    );
    let m = err(&["node_kinds=[{name=\"a\"},{name=\"a\"}]"]);
    assert!(
        m.contains("node_kinds[1].name") && m.contains("twice"),
        "{m}"
    );
    let m = err(&["node_kinds=[{name=\"a\",sm_clock_ghz=0}]"]);
    assert!(m.contains("node_kinds[0].sm_clock_ghz"), "{m}");
    let m = err(&["node_kinds=[{name=\"a\",l1_bytes=1000}]"]);
    assert!(m.contains("node_kinds[0].l1_bytes = 1000"), "{m}");
    let m = err(&["node_kinds=[{name=\"a\",l2_bytes=3}]"]);
    assert!(m.contains("node_kinds[0].l2_bytes = 3"), "{m}");
    let m = err(&["node_kinds=[{name=\"a\",sms=5000}]"]);
    assert!(m.contains("node_kinds[0].sms = 5000"), "{m}");
    let m = err(&["node_kinds=[{name=\"a\",smz=1}]"]);
    assert!(
        m.contains("smz") && m.contains("each kind is a table"),
        "{m}"
    );
    let m = err(&["system.node_kinds=gpu"]);
    assert!(m.contains("expected a list of kind names"), "{m}");
}

/// Multiprogrammed runs put application i on the i-th node with SMs.
#[test]
fn co_running_applications_skip_sm_less_nodes() {
    let c = cfg(
        "coda-4gpu",
        &[
            "system.node_kinds=[\"stack\",\"gpu\",\"stack\",\"gpu\"]",
            KINDS,
        ],
    );
    let mut a = locus_workload::registry::build("vectoradd", &Default::default(), 7).unwrap();
    let mut b = locus_workload::registry::build("vectoradd", &Default::default(), 8).unwrap();
    let mut s = locus_sim::System::new(&c);
    let r = s.run_multi(&mut [&mut a, &mut b], &mut |_| {}).unwrap();
    let n = &r.sim.nodes;
    assert_eq!(n[0].blocks + n[2].blocks, 0);
    assert!(n[1].blocks > 0 && n[3].blocks > 0);
    assert_eq!((r.sim.apps[0].first_sm, r.sim.apps[1].first_sm), (0, 4));
    let mut x = locus_workload::registry::build("vectoradd", &Default::default(), 9).unwrap();
    let e = locus_sim::System::new(&c)
        .run_multi(&mut [&mut a, &mut b, &mut x], &mut |_| {})
        .unwrap_err();
    assert!(e.to_string().contains("nodes with SMs"), "{e}");
}

/// CODA on a machine with a memory-only node (issue 7 §4): Eq. 3 places chunks where the
/// affinity scheduler runs the blocks that use them, so a block-strided stream whose
/// objects all go coarse-grained puts no page on the SM-less node and every access is
/// local; Eq. 3 as printed (mod N) would give node 1 half of the pages, all remote.
#[test]
fn coda_places_no_chunk_on_an_sm_less_node() {
    let c = cfg(
        "coda-4gpu-coda",
        &[
            "system.nodes=2",
            "system.node_kinds=[\"gpu\",\"stack\"]",
            KINDS,
        ],
    );
    let r = run(&c, "vectoradd", &[("n", "64k")]);
    let t = &r.sim.total.counters;
    assert!(r.sim.placement.pages_cgp > 0, "{:?}", r.sim.placement);
    assert_eq!(r.sim.placement.pages_fgp, 0, "{:?}", r.sim.placement);
    assert_eq!(r.sim.nodes[1].dram.reads + r.sim.nodes[1].dram.writes, 0);
    assert_eq!(t.remote_accesses, 0, "{t:?}");
    assert!(t.local_accesses > 0);
}
