//! Processor-centric hub (CODA §2.2, spec A5): every node has one full-duplex port into a
//! non-blocking hub (the CPU). A remote packet crosses the sender's egress port, which
//! carries the traversal latency, and the receiver's ingress port (no latency).
//! Links are added egress ports first, then ingress ports, named `node<i>->hub` and
//! `hub->node<i>`, as the CODA statistics have always listed them.

use super::Graph;

/// A hub joining `n` nodes with ports of `gbps` GB/s and a traversal of `latency` cycles.
pub fn build(n: usize, gbps: f64, latency: u32) -> Result<Graph, String> {
    let mut g = Graph::new(n);
    let hub = g.add_vertex("hub".into());
    for i in 0..n as u32 {
        g.add_link(i, hub, gbps, latency);
    }
    for i in 0..n as u32 {
        g.add_link(hub, i, gbps, 0);
    }
    g.route_shortest("interconnect.topology")
}
