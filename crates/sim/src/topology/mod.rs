//! The inter-node network as data (issue 7 §3): a [`Graph`] of vertices (the `system.nodes`
//! endpoint nodes — GPUs, GPU partitions or memory stacks — plus optional switch vertices)
//! and directed links, each with a bandwidth (GB/s) and a latency (SM cycles).
//!
//! Routing is deterministic and computed once, when the graph is built: shortest paths by
//! breadth-first search with the lowest vertex id (then lowest link id) winning ties, or
//! dimension order for the mesh (XY) and the hypercube (e-cube). Every route is a shortest
//! path, of any length. [`Graph::route`] returns a route's link ids as a slice of one flat
//! table, so a packet costs no allocation. A graph in which some node cannot reach another
//! is refused with a message naming the configuration key.
//!
//! One file per topology builder: [`hub`] (CODA), [`all_to_all`] (REC), [`ring`] and
//! [`two_level`] (NUBA's MCM modules), [`mesh`], [`hypercube`] (NDP's memory network),
//! [`hier_xbar`] (NUBA's partition crossbar), [`custom`] (an explicit link list).
//!
//! Latency convention of switched topologies: a link carries the latency of the switch it
//! enters, and a link out of a switch into a node carries none, so a hub traversal costs
//! `interconnect.latency` once (CODA spec A5).

pub mod all_to_all;
pub mod custom;
pub mod hier_xbar;
pub mod hub;
pub mod hypercube;
pub mod mesh;
pub mod ring;
pub mod two_level;

use crate::config::{Config, Topology};
use std::collections::VecDeque;

/// One directed link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Source vertex.
    pub from: u32,
    /// Destination vertex.
    pub to: u32,
    /// Bandwidth, GB/s.
    pub gbps: f64,
    /// Latency, SM cycles.
    pub latency: u32,
}

/// The network: vertices `0..nodes` are the endpoint nodes, higher ids switches.
#[derive(Clone, Debug)]
pub struct Graph {
    nodes: usize,
    names: Vec<String>,
    links: Vec<Link>,
    /// Per vertex, outgoing link ids sorted by (destination, link id).
    out: Vec<Vec<u32>>,
    /// Route of (from, to) = `route_links[route_start[from * nodes + to]..][..next]`.
    route_start: Vec<u32>,
    route_links: Vec<u32>,
    /// Per vertex: routes may end here but not pass through (empty = none such).
    no_transit: Vec<bool>,
}

impl Graph {
    /// A graph of `nodes` endpoint vertices (named `node<i>`) and no links yet.
    pub fn new(nodes: usize) -> Graph {
        Graph {
            nodes,
            names: (0..nodes).map(|i| format!("node{i}")).collect(),
            links: Vec::new(),
            out: Vec::new(),
            route_start: Vec::new(),
            route_links: Vec::new(),
            no_transit: Vec::new(),
        }
    }

    /// Forbid routes through vertex `v` (they may still start or end there): an endpoint
    /// without a router, e.g. the GPU among NDP's routing memory stacks (ndp.md §3.1).
    pub fn forbid_transit(&mut self, v: u32) {
        if self.no_transit.len() < self.names.len() {
            self.no_transit.resize(self.names.len(), false);
        }
        self.no_transit[v as usize] = true;
    }

    /// May a route pass through vertex `v`?
    fn transit(&self, v: usize) -> bool {
        !self.no_transit.get(v).copied().unwrap_or(false)
    }

    /// Add a switch vertex; returns its id.
    pub fn add_vertex(&mut self, name: String) -> u32 {
        self.names.push(name);
        (self.names.len() - 1) as u32
    }

    /// Add a directed link; returns its id.
    pub fn add_link(&mut self, from: u32, to: u32, gbps: f64, latency: u32) -> u32 {
        debug_assert!((from as usize) < self.names.len() && (to as usize) < self.names.len());
        self.links.push(Link {
            from,
            to,
            gbps,
            latency,
        });
        (self.links.len() - 1) as u32
    }

    /// Add a link in each direction (`a -> b` first).
    pub fn add_pair(&mut self, a: u32, b: u32, gbps: f64, latency: u32) {
        self.add_link(a, b, gbps, latency);
        self.add_link(b, a, gbps, latency);
    }

    /// Number of endpoint nodes.
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// Number of vertices (nodes and switches).
    pub fn vertices(&self) -> usize {
        self.names.len()
    }

    /// Every link, by id.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Name of vertex `v`.
    pub fn vertex_name(&self, v: u32) -> &str {
        &self.names[v as usize]
    }

    /// Name of link `l`, e.g. `node0->node1` or `node2->hub`.
    pub fn link_name(&self, l: usize) -> String {
        let k = &self.links[l];
        format!(
            "{}->{}",
            self.names[k.from as usize], self.names[k.to as usize]
        )
    }

    /// The link ids of the route from node `from` to node `to` (empty when equal).
    #[inline]
    pub fn route(&self, from: u32, to: u32) -> &[u32] {
        let i = from as usize * self.nodes + to as usize;
        let (a, b) = (
            self.route_start[i] as usize,
            self.route_start[i + 1] as usize,
        );
        &self.route_links[a..b]
    }

    /// The lowest-id link from `a` to `b`, if any.
    pub fn link_between(&self, a: u32, b: u32) -> Option<u32> {
        self.out[a as usize]
            .iter()
            .copied()
            .find(|&l| self.links[l as usize].to == b)
    }

    /// Hop counts of the shortest paths from vertex `src` to every vertex (`u32::MAX` where
    /// unreachable), by breadth-first search (never through a no-transit vertex).
    pub fn distances(&self, src: u32) -> Vec<u32> {
        let mut d = vec![u32::MAX; self.vertices()];
        let mut q = VecDeque::new();
        d[src as usize] = 0;
        q.push_back(src);
        while let Some(v) = q.pop_front() {
            if v != src && !self.transit(v as usize) {
                continue;
            }
            for &l in &self.out[v as usize] {
                let w = self.links[l as usize].to as usize;
                if d[w] == u32::MAX {
                    d[w] = d[v as usize] + 1;
                    q.push_back(w as u32);
                }
            }
        }
        d
    }

    fn index(&mut self) {
        let mut out = vec![Vec::new(); self.vertices()];
        for (i, l) in self.links.iter().enumerate() {
            out[l.from as usize].push(i as u32);
        }
        for o in &mut out {
            o.sort_by_key(|&l| (self.links[l as usize].to, l));
        }
        self.out = out;
    }

    /// Refuse a graph in which some node cannot reach another; `key` names the setting.
    fn check_connected(&self, key: &str) -> Result<(), String> {
        for s in 0..self.nodes as u32 {
            let d = self.distances(s);
            if let Some(t) = (0..self.nodes).find(|&t| d[t] == u32::MAX) {
                return Err(format!(
                    "{key}: node{t} cannot be reached from node{s}; the network must connect every node to every other (add links)"
                ));
            }
        }
        Ok(())
    }

    /// Compute shortest-path routes by breadth-first search from every node, the lowest
    /// vertex id (then link id) winning ties; refuses a disconnected graph naming `key`.
    pub fn route_shortest(mut self, key: &str) -> Result<Graph, String> {
        self.index();
        self.check_connected(key)?;
        let n = self.nodes;
        let mut parent = vec![u32::MAX; self.vertices()];
        let mut seen = vec![false; self.vertices()];
        let mut q = VecDeque::new();
        let mut path = Vec::new();
        self.route_start = Vec::with_capacity(n * n + 1);
        for s in 0..n {
            parent.fill(u32::MAX);
            seen.fill(false);
            seen[s] = true;
            q.push_back(s as u32);
            while let Some(v) = q.pop_front() {
                if v as usize != s && !self.transit(v as usize) {
                    continue;
                }
                for &l in &self.out[v as usize] {
                    let w = self.links[l as usize].to as usize;
                    if !seen[w] {
                        seen[w] = true;
                        parent[w] = l;
                        q.push_back(w as u32);
                    }
                }
            }
            for t in 0..n {
                self.route_start.push(self.route_links.len() as u32);
                path.clear();
                let mut v = t;
                while v != s {
                    let l = parent[v];
                    path.push(l);
                    v = self.links[l as usize].from as usize;
                }
                self.route_links.extend(path.iter().rev());
            }
        }
        self.route_start.push(self.route_links.len() as u32);
        Ok(self)
    }

    /// Compute routes from an explicit vertex sequence per (from, to) pair (dimension
    /// order); `path(from, to, out)` appends the vertices after `from`, ending at `to`.
    pub fn route_by(
        mut self,
        key: &str,
        mut path: impl FnMut(u32, u32, &mut Vec<u32>),
    ) -> Result<Graph, String> {
        self.index();
        self.check_connected(key)?;
        let n = self.nodes as u32;
        let mut verts = Vec::new();
        self.route_start = Vec::with_capacity((n * n) as usize + 1);
        for s in 0..n {
            for t in 0..n {
                self.route_start.push(self.route_links.len() as u32);
                verts.clear();
                if s != t {
                    path(s, t, &mut verts);
                }
                let mut v = s;
                for &w in &verts {
                    let l = self.link_between(v, w).ok_or_else(|| {
                        format!("{key}: internal: no link {v}->{w} on the route {s}->{t}")
                    })?;
                    self.route_links.push(l);
                    v = w;
                }
            }
        }
        self.route_start.push(self.route_links.len() as u32);
        Ok(self)
    }
}

/// The largest power of two <= sqrt(n) (automatic group size).
fn auto_group(n: usize) -> usize {
    let mut g = 1;
    while (g * 2) * (g * 2) <= n {
        g *= 2;
    }
    g
}

/// Build the network of `cfg` (`interconnect.*`). With one node there is no network
/// (except a `custom` link list, which is still checked).
pub fn build(cfg: &Config) -> Result<Graph, String> {
    let ic = &cfg.interconnect;
    let n = cfg.system.nodes as usize;
    if n <= 1 && ic.topology != Topology::Custom {
        return Graph::new(n).route_shortest("interconnect.topology");
    }
    let group = |what: &str| -> Result<usize, String> {
        let g = if ic.group_size == 0 {
            auto_group(n)
        } else {
            ic.group_size as usize
        };
        if g == 0 || !n.is_multiple_of(g) {
            return Err(format!(
                "interconnect.group_size = {}: must divide system.nodes ({n}) into {what}",
                ic.group_size
            ));
        }
        Ok(g)
    };
    match ic.topology {
        Topology::Hub => hub::build(n, ic.link_gbps, ic.latency),
        Topology::AllToAll => all_to_all::build(n, ic.link_gbps, ic.latency),
        Topology::Ring => ring::build(n, ic.link_gbps, ic.latency),
        Topology::Mesh => mesh::build(n, ic.mesh_cols as usize, ic.link_gbps, ic.latency),
        Topology::Hypercube => hypercube::build(n, ic.link_gbps, ic.latency),
        Topology::HierXbar => hier_xbar::build(
            n,
            group("local crossbar groups")?,
            (ic.local_gbps, ic.local_latency),
            (ic.link_gbps, ic.latency),
            ic.global_switch,
        ),
        Topology::TwoLevel => two_level::build(
            n,
            group("packages")?,
            (ic.local_gbps, ic.local_latency),
            (ic.link_gbps, ic.latency),
        ),
        Topology::Custom => custom::build(n, &ic.links, &ic.no_transit),
    }
}

#[cfg(test)]
mod tests;
