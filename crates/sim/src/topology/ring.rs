//! Bidirectional ring (NUBA A21: MCM modules "in a ring"): node `i` links to `i +- 1 mod n`
//! in both directions; packets take the shorter way round (breadth-first shortest path,
//! the lower vertex id winning the tie at distance n/2).

use super::Graph;

/// A ring of `n` nodes with links of `gbps` GB/s and `latency` cycles per hop.
pub fn build(n: usize, gbps: f64, latency: u32) -> Result<Graph, String> {
    let mut g = Graph::new(n);
    match n {
        0 | 1 => {}
        2 => g.add_pair(0, 1, gbps, latency),
        _ => {
            for i in 0..n as u32 {
                g.add_pair(i, (i + 1) % n as u32, gbps, latency);
            }
        }
    }
    g.route_shortest("interconnect.topology")
}
