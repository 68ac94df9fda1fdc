//! Hierarchical crossbar (NUBA §2.1 / §3.2: the inter-partition LLC network, a 64x64
//! crossbar built from small switches): groups of `group` nodes share a local crossbar
//! switch `xbar<g>`; the group switches are joined by a `global` switch. A packet inside a
//! group crosses its local switch (2 links), between groups local, global and local
//! switches (4 links). Each link carries the latency of the switch it enters.

use super::Graph;

/// `n` nodes in groups of `group`; `local` = (GB/s, cycles) of node <-> local switch links
/// and of the local switch, `global` = those of local <-> global switch links and of the
/// global switch. With a single group there is no global switch.
pub fn build(
    n: usize,
    group: usize,
    local: (f64, u32),
    global: (f64, u32),
) -> Result<Graph, String> {
    let groups = n / group;
    let mut g = Graph::new(n);
    let sw: Vec<u32> = (0..groups)
        .map(|k| g.add_vertex(format!("xbar{k}")))
        .collect();
    for i in 0..n {
        let s = sw[i / group];
        g.add_link(i as u32, s, local.0, local.1);
        g.add_link(s, i as u32, local.0, 0);
    }
    if groups > 1 {
        let top = g.add_vertex("global".into());
        for &s in &sw {
            g.add_link(s, top, global.0, global.1);
            g.add_link(top, s, global.0, local.1);
        }
    }
    g.route_shortest("interconnect.group_size")
}
