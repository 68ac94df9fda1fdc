//! Fully connected nodes: a dedicated link for every ordered pair (REC §2: GPUs joined by
//! NVLink-like links in a fully connected, DGX-1-like system; NUBA A21: MCM modules fully
//! connected). Every route is one hop.

use super::Graph;

/// `n` nodes, a link of `gbps` GB/s and `latency` cycles from each node to each other.
pub fn build(n: usize, gbps: f64, latency: u32) -> Result<Graph, String> {
    let mut g = Graph::new(n);
    for i in 0..n as u32 {
        for j in 0..n as u32 {
            if i != j {
                g.add_link(i, j, gbps, latency);
            }
        }
    }
    g.route_shortest("interconnect.topology")
}
