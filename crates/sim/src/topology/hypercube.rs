//! Hypercube (NDP §2.1: the 8 memory stacks joined in a 3-D hypercube, stack `i` linked to
//! `i^1`, `i^2` and `i^4`). E-cube routing: correct the differing address bits from the
//! lowest dimension up; minimal (Hamming distance hops) and deadlock-free.

use super::Graph;

/// A hypercube of `n` (a power of two) nodes, links of `gbps` GB/s and `latency` cycles.
pub fn build(n: usize, gbps: f64, latency: u32) -> Result<Graph, String> {
    if !n.is_power_of_two() {
        return Err(format!(
            "interconnect.topology = \"hypercube\" needs a power-of-two system.nodes, not {n}"
        ));
    }
    let dims = n.trailing_zeros();
    let mut g = Graph::new(n);
    for i in 0..n as u32 {
        for k in 0..dims {
            let j = i ^ (1 << k);
            if i < j {
                g.add_pair(i, j, gbps, latency);
            }
        }
    }
    g.route_by("interconnect.topology", |s, t, out| {
        let mut v = s;
        for k in 0..dims {
            if (v ^ t) & (1 << k) != 0 {
                v ^= 1 << k;
                out.push(v);
            }
        }
    })
}
