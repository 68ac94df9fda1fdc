//! The NDP machine (`preset ndp-8hmc`, spec ndp.md §2) run as a baseline GPU: pages on the
//! eight stacks only, every byte over the GPU's direct links, none through the hypercube,
//! the GPU node or the padding nodes; deterministic.

mod common;
use common::{cfg, run};

/// A vectoradd on the GPU of ndp-8hmc: blocks run on node 0 only; DRAM traffic is spread
/// over the 8 stacks and nowhere else; only GPU<->stack links carry bytes (a baseline
/// needs no memory network, §2.1), and what they carry is conserved (sent = received).
#[test]
fn baseline_uses_only_the_gpu_links_and_the_stacks() {
    let c = cfg("ndp-8hmc", &[]);
    let r = run(&c, "vectoradd", &[("n", "32k")]);
    let nodes = &r.sim.nodes;
    let t = &r.sim.total.counters;
    assert_eq!(nodes[0].blocks, t.blocks);
    assert_eq!(
        nodes[0].dram.reads + nodes[0].dram.writes,
        0,
        "no page on the GPU"
    );
    for n in &nodes[9..] {
        assert_eq!(n.dram.reads + n.dram.writes, 0, "padding node used");
    }
    // 32K floats x 3 vectors = 384 KB = 96 pages over 8 stacks: every stack has some
    for n in &nodes[1..=8] {
        assert!(n.dram.reads + n.dram.writes > 0, "a stack unused");
    }
    let mut gpu_link_bytes = 0;
    for l in r.sim.links.iter().filter(|l| l.kind == "inter-node") {
        assert_eq!(l.bytes_sent, l.bytes_received, "{}", l.name);
        let (a, b) = l.name.split_once("->").unwrap();
        let touches_gpu = a == "node0" || b == "node0";
        if touches_gpu {
            gpu_link_bytes += l.bytes_sent;
        } else {
            assert_eq!(l.bytes_sent, 0, "{} carried baseline traffic", l.name);
        }
    }
    // at least every line read (2 x 32K x 4 B) and written once crosses a GPU link
    assert!(gpu_link_bytes >= 3 * 32 * 1024 * 4, "{gpu_link_bytes}");
}

/// Equal configuration, workload and seed give byte-identical statistics.
#[test]
fn ndp_machine_is_deterministic() {
    let c = cfg("ndp-8hmc", &[]);
    let a = run(&c, "vectoradd", &[("n", "16k")]);
    let b = run(&c, "vectoradd", &[("n", "16k")]);
    assert_eq!(
        serde_json::to_string(&a.sim).unwrap(),
        serde_json::to_string(&b.sim).unwrap()
    );
    // another placement seed moves pages: the per-stack DRAM reads differ
    let d = run(
        &cfg("ndp-8hmc", &["placement.seed=2"]),
        "vectoradd",
        &[("n", "16k")],
    );
    let reads =
        |r: &locus_sim::Report| -> Vec<u64> { r.sim.nodes.iter().map(|n| n.dram.reads).collect() };
    assert_ne!(reads(&a), reads(&d));
}
