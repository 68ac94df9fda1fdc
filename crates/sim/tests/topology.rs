//! The network as data (issue 7 §3): closed-form latency of multi-hop routes, conservation
//! on every topology, runs on every topology, TOML link lists, and bandwidth-limited
//! SM -> L2 requests.

mod common;
use common::{dram_read, run};

use locus_engine::{Clock, Port};
use locus_sim::{preset, Config, Report};

fn cfg(sets: &[&str]) -> Config {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    preset::load(Some("coda-4gpu"), None, &sets).unwrap()
}

/// An unloaded remote load over a route of `hops` equal links (each `interconnect.latency`
/// and `interconnect.link_gbps`) each way: L1, SM -> L2 request port, L2 tag, `hops` x
/// (serialisation + latency) of the header, crossbar, DRAM, crossbar, `hops` x
/// (serialisation + latency) of header + line, L2 slice port, L2 -> SM.
fn expected_remote(c: &Config, hops: u64) -> u64 {
    let clk = Clock::ghz(c.system.sm_clock_ghz);
    let h = c.interconnect.header_bytes;
    let line = c.system.line_bytes;
    let req = Port::new(c.noc.sm_l2_request_gbps, 0);
    let chan = Port::new(c.noc.channel_port_gbps, 0);
    let link = Port::new(c.interconnect.link_gbps, 0);
    let slice = Port::new(c.l2.slice_gbps, 0);
    let xbar = clk.cycles(c.noc.xbar_latency as u64);
    let lat = clk.cycles(c.interconnect.latency as u64);
    let mut t = clk.cycles((c.l1.hit_latency + c.noc.sm_l2_latency + c.l2.hit_latency) as u64);
    t += req.ser(h);
    t += hops * (link.ser(h) + lat);
    t += chan.ser(h) + xbar;
    t += dram_read(c, t);
    t += chan.ser(h + line) + xbar;
    t += hops * (link.ser(h + line) + lat);
    t += slice.ser(line) + clk.cycles(c.noc.sm_l2_latency as u64);
    t
}

fn single_remote_load(topo: &str, nodes: u32, home: u32, extra: &[&str]) -> (Config, u64) {
    let (n, h, t) = (
        format!("system.nodes={nodes}"),
        format!("placement.node={home}"),
        format!("interconnect.topology={topo}"),
    );
    let mut sets = vec![n.as_str(), "placement.policy=node", h.as_str(), t.as_str()];
    sets.extend_from_slice(extra);
    let c = cfg(&sets);
    // the only block runs on node 0 (FRR)
    let r = run(&c, "single-load", &[]);
    let k = &r.sim.total.counters;
    assert_eq!((k.loads_completed, k.remote_accesses), (1, 1));
    check_conservation(&r);
    (c, k.load_latency_ps)
}

#[test]
fn unloaded_load_over_a_ring_costs_each_hop() {
    // ring of 8: node 0 -> node 3 is 3 hops each way
    let (c, lat) = single_remote_load("ring", 8, 3, &[]);
    assert_eq!(lat, expected_remote(&c, 3));
    // node 0 -> node 5 goes the other way round: 3 hops too
    let (c, lat) = single_remote_load("ring", 8, 5, &[]);
    assert_eq!(lat, expected_remote(&c, 3));
}

#[test]
fn unloaded_load_over_a_mesh_costs_its_manhattan_distance() {
    // 16 nodes in a 4 x 4 mesh: node 0 (0,0) -> node 14 (2,3) is 5 hops (more than the
    // three receipts a packet once held)
    let (c, lat) = single_remote_load("mesh", 16, 14, &[]);
    assert_eq!(lat, expected_remote(&c, 5));
    // and on a hypercube of 16: Hamming distance of 0 and 14 = 3
    let (c, lat) = single_remote_load("hypercube", 16, 14, &[]);
    assert_eq!(lat, expected_remote(&c, 3));
}

fn check_conservation(r: &Report) {
    let k = &r.sim.total.counters;
    assert_eq!(k.reqs_created, k.reqs_retired, "every request completes");
    assert_eq!(k.load_insts, k.loads_completed, "every load completes");
    for l in &r.sim.links {
        assert_eq!(l.bytes_sent, l.bytes_received, "link {}", l.name);
        let by_kind: u64 = l.by_kind.values().map(|m| m.bytes).sum();
        assert_eq!(by_kind, l.bytes_sent, "link {} counts by kind", l.name);
    }
}

#[test]
fn ring_conserves_bytes_on_every_port() {
    let c = cfg(&["system.nodes=8", "interconnect.topology=ring"]);
    for (w, p) in [("vectoradd", ("n", "256k")), ("random", ("threads", "4k"))] {
        let r = run(&c, w, &[p]);
        check_conservation(&r);
        // packets really crossed multi-hop routes: some ring link carried traffic
        let ring: u64 = r
            .sim
            .links
            .iter()
            .filter(|l| l.kind == "inter-node")
            .map(|l| l.bytes_sent)
            .sum();
        assert!(ring > 0);
    }
}

const CUSTOM: &str = r#"
[interconnect]
topology = "custom"
# a star around switch 4, plus a direct link 0 <-> 1
[[interconnect.links]]
from = 0
to = 4
gbps = 16.0
latency = 50
bidirectional = true
[[interconnect.links]]
from = 1
to = 4
gbps = 16.0
latency = 50
bidirectional = true
[[interconnect.links]]
from = 2
to = 4
gbps = 16.0
latency = 50
bidirectional = true
[[interconnect.links]]
from = 3
to = 4
gbps = 16.0
latency = 50
bidirectional = true
[[interconnect.links]]
from = 0
to = 1
gbps = 32.0
latency = 20
bidirectional = true
"#;

#[test]
fn a_run_completes_on_every_topology() {
    let mut cs: Vec<(String, Config)> = [
        "hub",
        "all-to-all",
        "ring",
        "mesh",
        "hypercube",
        "hier-xbar",
        "two-level",
    ]
    .iter()
    .map(|t| {
        let s = format!("interconnect.topology={t}");
        (t.to_string(), cfg(&["system.nodes=8", &s]))
    })
    .collect();
    let custom = preset::load(Some("coda-4gpu"), Some(("custom.toml", CUSTOM)), &[]).unwrap();
    cs.push(("custom".into(), custom.clone()));
    cs.push((
        "hier-xbar, direct".into(),
        cfg(&[
            "system.nodes=8",
            "interconnect.topology=hier-xbar",
            "interconnect.global_switch=false",
        ]),
    ));
    for (name, c) in &cs {
        let r = run(c, "vectoradd", &[("n", "64k")]);
        check_conservation(&r);
        assert!(r.sim.total.cycles > 0, "{name}");
        assert!(r.sim.total.counters.remote_accesses > 0, "{name}");
    }
    // the custom network is the one in the file: its links, named by vertex
    let r = run(&custom, "vectoradd", &[("n", "64k")]);
    let names: Vec<&str> = r.sim.links.iter().map(|l| l.name.as_str()).collect();
    assert!(names.contains(&"node0->sw4") && names.contains(&"node1->node0"));
    let direct = r
        .sim
        .links
        .iter()
        .find(|l| l.name == "node0->node1")
        .unwrap();
    assert!(direct.bytes_sent > 0 && (direct.gbps - 32.0).abs() < 1e-6);
}

#[test]
fn a_disconnected_custom_network_is_refused_by_key() {
    let text = "[interconnect]\ntopology = \"custom\"\n[[interconnect.links]]\nfrom = 0\nto = 1\ngbps = 16.0\nlatency = 10\nbidirectional = true\n";
    let e = preset::load(Some("coda-4gpu"), Some(("x.toml", text)), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("interconnect.links") && e.contains("cannot be reached"),
        "{e}"
    );
}

#[test]
fn sm_to_l2_requests_are_bandwidth_limited() {
    // with the request ports narrowed to 2 GB/s, request headers and write data queue
    let wide = cfg(&[]);
    let narrow = cfg(&["noc.sm_l2_request_gbps=2"]);
    let a = run(&wide, "vectoradd", &[("n", "64k")]);
    let b = run(&narrow, "vectoradd", &[("n", "64k")]);
    check_conservation(&b);
    assert!(
        b.sim.total.cycles > a.sim.total.cycles,
        "{} vs {}",
        b.sim.total.cycles,
        a.sim.total.cycles
    );
    // every L1 miss and every store crossed a request port: reads carry a header, writes
    // header + line
    let k = &a.sim.total.counters;
    let (mut reads, mut writes) = (0, 0);
    for l in a.sim.links.iter().filter(|l| l.name.contains(".sm->l2s")) {
        assert_eq!(l.kind, "sm-l2");
        reads += l.by_kind.get("read").map_or(0, |m| m.packets);
        writes += l.by_kind.get("write").map_or(0, |m| m.bytes);
    }
    assert_eq!(reads, k.l1_misses - k.l1_mshr_merges);
    let h = wide.interconnect.header_bytes as u64;
    assert_eq!(writes % (h + 128), 0);
    assert!(writes > 0);
}

/// 64 or more nodes (issue 7 §4; NUBA's MCM has 128 partitions): a 128-node machine of
/// one SM each on a two-level network runs a kernel to completion, every byte sent is
/// received, and its data spread over all 128 nodes' memories.
#[test]
fn a_128_node_machine_runs() {
    let c = common::cfg(
        "coda-4gpu",
        &[
            "system.nodes=128",
            "system.sms_per_node=1",
            "interconnect.topology=two-level",
            "memory.bytes_per_node=268435456",
        ],
    );
    let r = run(&c, "vectoradd", &[("n", "64k")]);
    let k = &r.sim.total.counters;
    assert_eq!(k.reqs_created, k.reqs_retired);
    assert!(
        k.remote_accesses > k.local_accesses,
        "most data is remote on 128 nodes"
    );
    for l in &r.sim.links {
        assert_eq!(l.bytes_sent, l.bytes_received, "{}", l.name);
    }
    let with_dram = r.sim.nodes.iter().filter(|n| n.dram.reads > 0).count();
    assert_eq!(r.sim.nodes.len(), 128);
    assert_eq!(with_dram, 128, "FGP pages stripe over every node");
}
