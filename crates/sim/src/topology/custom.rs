//! An explicit link list, `[[interconnect.links]]` in TOML: the network as data. Vertex ids
//! below `system.nodes` are the nodes; higher ids are switch vertices named `sw<id>`.
//! Routes are breadth-first shortest paths (lowest vertex id, then link id, wins ties).
//!
//! ```toml
//! [interconnect]
//! topology = "custom"
//! [[interconnect.links]]
//! from = 0
//! to = 1
//! gbps = 20.0
//! latency = 10
//! bidirectional = true
//! ```

use super::Graph;
use crate::config::LinkCfg;

/// Most vertices a custom network may name (nodes and switches).
pub const MAX_VERTICES: u32 = 4096;

/// The network of `n` nodes and the links of `links`, no route passing through a vertex of
/// `no_transit` (`interconnect.no_transit`); refuses self-links, vertex ids of
/// [`MAX_VERTICES`] or more and graphs that do not connect every node.
pub fn build(n: usize, links: &[LinkCfg], no_transit: &[u32]) -> Result<Graph, String> {
    let mut top = n as u32;
    for (i, l) in links.iter().enumerate() {
        for (k, v) in [("from", l.from), ("to", l.to)] {
            if v >= MAX_VERTICES {
                return Err(format!(
                    "interconnect.links[{i}].{k} = {v}: vertex ids must be below {MAX_VERTICES}"
                ));
            }
        }
        if l.from == l.to {
            return Err(format!(
                "interconnect.links[{i}]: from = to = {}: a link must join two vertices",
                l.from
            ));
        }
        top = top.max(l.from + 1).max(l.to + 1);
    }
    let mut g = Graph::new(n);
    for v in n as u32..top {
        g.add_vertex(format!("sw{v}"));
    }
    for l in links {
        if l.bidirectional {
            g.add_pair(l.from, l.to, l.gbps, l.latency);
        } else {
            g.add_link(l.from, l.to, l.gbps, l.latency);
        }
    }
    for (i, &v) in no_transit.iter().enumerate() {
        if v as usize >= n {
            return Err(format!(
                "interconnect.no_transit[{i}] = {v}: must be a node id below system.nodes ({n})"
            ));
        }
        g.forbid_transit(v);
    }
    g.route_shortest("interconnect.links")
}
