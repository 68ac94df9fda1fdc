//! Hierarchical crossbar (NUBA §2.1 / §3.2: the inter-partition LLC network, a 64x64
//! crossbar built from small switches): groups of `group` nodes share a local crossbar
//! switch `xbar<g>`. The group switches are joined either by a `global` switch (a packet
//! between groups crosses local, global and local switch: 4 links) or directly, one link
//! from each group switch to each other (NUBA's two stages of 8x8 switches, each
//! first-stage switch with an output to each second-stage switch: 3 links, two switches).
//! Inside a group a packet crosses its local switch (2 links). Each link carries the
//! latency of the switch it enters; a direct group-to-group link carries the global
//! latency.

use super::Graph;

/// `n` nodes in groups of `group`; `local` = (GB/s, cycles) of node <-> local switch links
/// and of the local switch, `global` = those of local <-> global switch links and of the
/// global switch (or of the direct group-to-group links when `global_switch` is false).
/// With a single group there is nothing between groups.
pub fn build(
    n: usize,
    group: usize,
    local: (f64, u32),
    global: (f64, u32),
    global_switch: bool,
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
    if groups > 1 && !global_switch {
        for &a in &sw {
            for &b in &sw {
                if a != b {
                    g.add_link(a, b, global.0, global.1);
                }
            }
        }
    } else if groups > 1 {
        let top = g.add_vertex("global".into());
        for &s in &sw {
            g.add_link(s, top, global.0, global.1);
            g.add_link(top, s, global.0, local.1);
        }
    }
    g.route_shortest("interconnect.group_size")
}
