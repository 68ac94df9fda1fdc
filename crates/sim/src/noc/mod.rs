//! Interconnect: every bandwidth-limited hop is a [`Port`] in one flat arena, addressed by
//! small ids. Between nodes: one port per directed link of the network graph
//! ([`crate::topology`]: hub, all-to-all, ring, mesh, hypercube, hierarchical crossbar,
//! two-level or a custom link list), kind [`PortKind::InterNode`]. Inside a node: a
//! crossbar port per memory channel in each direction (CODA's "Local" network, 32 GB/s
//! each), a data port per L2 slice towards the SMs and a request port per L2 slice from
//! the SMs (issue 7 §3: requests are bandwidth-limited too).
//!
//! A packet's trip reserves every port on its path at send time and records a receipt per
//! segment; the receiver redeems the receipts when the packet arrives, so "bytes sent equal
//! bytes received on every link" is a real check on the request path. A remote segment's
//! receipt is its (from, to) pair: routing is deterministic, so the route's links are
//! looked up again on arrival, and a route of any length fits in one receipt.

use crate::config::Config;
use crate::topology::Graph;
use locus_engine::{Clock, Port, Ps};

/// What a packet carries: every hop counts packets and bytes per kind (issue 7 §3), so
/// coherence, offload and migration traffic can be told apart from reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Msg {
    /// A read request (header only).
    Read,
    /// A write or write-back carrying data.
    Write,
    /// Data returned for a read (or an atomic's result).
    Response,
    /// A write acknowledgement.
    Ack,
    /// An atomic carried to the data's home.
    Atomic,
    /// A coherence invalidation.
    Invalidation,
    /// An offload command or its acknowledgement (near-data processing).
    Offload,
    /// Page data moved by migration.
    Migration,
}

impl Msg {
    /// Number of kinds.
    pub const COUNT: usize = 8;
    /// Every kind, by index.
    pub const ALL: [Msg; Msg::COUNT] = [
        Msg::Read,
        Msg::Write,
        Msg::Response,
        Msg::Ack,
        Msg::Atomic,
        Msg::Invalidation,
        Msg::Offload,
        Msg::Migration,
    ];
    /// Name used in statistics.
    pub fn name(self) -> &'static str {
        match self {
            Msg::Read => "read",
            Msg::Write => "write",
            Msg::Response => "response",
            Msg::Ack => "ack",
            Msg::Atomic => "atomic",
            Msg::Invalidation => "invalidation",
            Msg::Offload => "offload",
            Msg::Migration => "migration",
        }
    }
}

/// What part of the machine a port belongs to: the energy model prices a bit by the kind of
/// wire it crosses, and reports group links by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortKind {
    /// Between nodes (GPU-GPU links, hub ports, memory-network links).
    InterNode,
    /// Inside a node between the L2 / network ingress and a memory channel.
    Crossbar,
    /// Inside a node between an L2 slice and the SMs.
    SmL2,
}

impl PortKind {
    /// Name used in statistics.
    pub fn name(self) -> &'static str {
        match self {
            PortKind::InterNode => "inter-node",
            PortKind::Crossbar => "crossbar",
            PortKind::SmL2 => "sm-l2",
        }
    }
}

/// Packets and bytes one port carried, per [`Msg`] kind.
#[derive(Clone, Copy, Debug, Default)]
pub struct MsgCounts {
    pub packets: [u64; Msg::COUNT],
    pub bytes: [u64; Msg::COUNT],
}

/// Receipts of a packet in flight, redeemed on arrival: up to [`Receipts::CAP`] segments,
/// each one port (id, bytes) or one whole inter-node route ((from, to), bytes). Compact and
/// `Copy`, so a request carries its receipts in its slab entry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Receipts {
    ids: [u32; Receipts::CAP],
    bytes: [u32; Receipts::CAP],
    n: u8,
}

/// Tag of a route segment in [`Receipts`]: the id holds `from << 15 | to`.
const ROUTE: u32 = 1 << 31;
/// With [`ROUTE`]: the route was taken on the reply network.
const REPLY: u32 = 1 << 30;

impl Receipts {
    /// Segments one packet may hold before it arrives (a trip is at most a route plus a
    /// local port; overflowing is a bug in the caller and panics, never drops silently).
    pub const CAP: usize = 3;

    #[inline]
    fn push(&mut self, id: u32, bytes: u32) {
        let i = self.n as usize;
        assert!(
            i < Self::CAP,
            "a packet holds more than {} receipt segments",
            Self::CAP
        );
        self.ids[i] = id;
        self.bytes[i] = bytes;
        self.n += 1;
    }
    /// Nothing in flight.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

/// All ports of the system.
pub struct Network {
    pub ports: Vec<Port>,
    pub names: Vec<String>,
    /// Per port, what part of the machine it belongs to.
    pub kinds: Vec<PortKind>,
    /// Per port, what it carried by message kind.
    pub msgs: Vec<MsgCounts>,
    /// End-to-end inter-node messages by kind, counted once per message whatever its
    /// route's length (REC Fig. 14's inter-GPU transactions).
    pub transactions: MsgCounts,
    /// The inter-node network; its link `l` is port `inter_base + l`.
    graph: Graph,
    /// First port of the reply network's copy of the links (`interconnect.reply_network`):
    /// link `l` of the reply network is port `reply_base + l`.
    reply_base: Option<usize>,
    channels: usize,
    slices: usize,
    inter_base: usize,
    chan_req_base: usize,
    chan_resp_base: usize,
    slice_base: usize,
    slice_req_base: usize,
    /// First SM input port and the SM count (`noc.sm_port_gbps`), if modelled; the output
    /// ports follow the input ports.
    sm_base: Option<(usize, usize)>,
    pub header_bytes: u32,
}

impl Network {
    /// The ports of the machine `cfg` (which [`Config::validate`] accepted).
    pub fn new(cfg: &Config, clk: Clock) -> Network {
        let n = cfg.system.nodes as usize;
        let ch = cfg.memory.channels_per_node as usize;
        let sl = cfg.l2.slices_per_node as usize;
        let graph = crate::topology::build(cfg)
            .unwrap_or_else(|e| panic!("invalid interconnect (Config::validate refuses it): {e}"));
        let mut ports = Vec::new();
        let mut names = Vec::new();
        let inter_base = 0;
        let link_port = |gbps: f64, lat: u32| {
            let p = Port::new(gbps, clk.cycles(lat as u64));
            if cfg.interconnect.fill_gaps {
                p.filling_gaps()
            } else {
                p
            }
        };
        for (l, link) in graph.links().iter().enumerate() {
            ports.push(link_port(link.gbps, link.latency));
            names.push(graph.link_name(l));
        }
        let reply_base = cfg.interconnect.reply_network.then(|| {
            let base = ports.len();
            for (l, link) in graph.links().iter().enumerate() {
                ports.push(link_port(link.gbps, link.latency));
                names.push(format!("{} (reply)", graph.link_name(l)));
            }
            base
        });
        let xlat = clk.cycles(cfg.noc.xbar_latency as u64);
        let chan_req_base = ports.len();
        for i in 0..n {
            for c in 0..ch {
                ports.push(Port::new(cfg.noc.channel_port_gbps, xlat));
                names.push(format!("node{i}.xbar->ch{c}"));
            }
        }
        let chan_resp_base = ports.len();
        for i in 0..n {
            for c in 0..ch {
                ports.push(Port::new(cfg.noc.channel_port_gbps, xlat));
                names.push(format!("node{i}.ch{c}->xbar"));
            }
        }
        let slat = clk.cycles(cfg.noc.sm_l2_latency as u64);
        let slice_base = ports.len();
        for i in 0..n {
            for s in 0..sl {
                ports.push(Port::new(cfg.l2.slice_gbps, slat));
                names.push(format!("node{i}.l2s{s}->sm"));
            }
        }
        let slice_req_base = ports.len();
        for i in 0..n {
            for s in 0..sl {
                ports.push(Port::new(cfg.noc.sm_l2_request_gbps, slat));
                names.push(format!("node{i}.sm->l2s{s}"));
            }
        }
        let sm_base = (cfg.noc.sm_port_gbps > 0.0).then(|| {
            let base = ports.len();
            let sms: u32 = cfg.sms_of_nodes().iter().sum();
            for i in 0..sms {
                ports.push(Port::new(cfg.noc.sm_port_gbps, 0));
                names.push(format!("sm{i}.in"));
            }
            for i in 0..sms {
                ports.push(Port::new(cfg.noc.sm_port_gbps, 0));
                names.push(format!("sm{i}.out"));
            }
            (base, sms as usize)
        });
        let mut kinds = vec![PortKind::InterNode; chan_req_base];
        kinds.resize(slice_base, PortKind::Crossbar);
        kinds.resize(ports.len(), PortKind::SmL2);
        Network {
            kinds,
            msgs: vec![MsgCounts::default(); ports.len()],
            transactions: MsgCounts::default(),
            ports,
            names,
            graph,
            reply_base,
            channels: ch,
            slices: sl,
            inter_base,
            chan_req_base,
            chan_resp_base,
            slice_base,
            slice_req_base,
            sm_base,
            header_bytes: cfg.interconnect.header_bytes,
        }
    }

    #[inline]
    fn hop(&mut self, id: usize, now: Ps, bytes: u32, msg: Msg, rx: &mut Receipts) -> Ps {
        rx.push(id as u32, bytes);
        count(&mut self.msgs[id], msg, bytes);
        self.ports[id].send(now, bytes)
    }

    /// The inter-node network graph (routes, link parameters).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Send `bytes` from node `from` to node `to` over the inter-node network, through every
    /// link of its route (none when `from == to`); returns the arrival time.
    #[inline]
    pub fn remote(
        &mut self,
        now: Ps,
        from: u32,
        to: u32,
        bytes: u32,
        msg: Msg,
        rx: &mut Receipts,
    ) -> Ps {
        let Network {
            graph,
            ports,
            msgs,
            inter_base,
            reply_base,
            transactions,
            ..
        } = self;
        let route = graph.route(from, to);
        if route.is_empty() {
            return now;
        }
        count(transactions, msg, bytes);
        let (base, tag) = match reply_base {
            Some(b) if matches!(msg, Msg::Response | Msg::Ack) => (*b, REPLY),
            _ => (*inter_base, 0),
        };
        rx.push(ROUTE | tag | from << 15 | to, bytes);
        let mut t = now;
        for &l in route {
            let id = base + l as usize;
            count(&mut msgs[id], msg, bytes);
            t = ports[id].send(t, bytes);
        }
        t
    }

    /// Crossbar towards memory channel `chan` of `node`.
    #[inline]
    pub fn to_channel(
        &mut self,
        now: Ps,
        node: u32,
        chan: u32,
        bytes: u32,
        msg: Msg,
        rx: &mut Receipts,
    ) -> Ps {
        let id = self.chan_req_base + node as usize * self.channels + chan as usize;
        self.hop(id, now, bytes, msg, rx)
    }

    /// Crossbar from memory channel `chan` of `node` back.
    #[inline]
    pub fn from_channel(
        &mut self,
        now: Ps,
        node: u32,
        chan: u32,
        bytes: u32,
        msg: Msg,
        rx: &mut Receipts,
    ) -> Ps {
        let id = self.chan_resp_base + node as usize * self.channels + chan as usize;
        self.hop(id, now, bytes, msg, rx)
    }

    /// L2 slice data port towards the SMs.
    #[inline]
    pub fn slice_to_sm(
        &mut self,
        now: Ps,
        node: u32,
        slice: u32,
        bytes: u32,
        rx: &mut Receipts,
    ) -> Ps {
        let id = self.slice_base + node as usize * self.slices + slice as usize;
        self.hop(id, now, bytes, Msg::Response, rx)
    }

    /// The input port of SM `sm` (global id), when `noc.sm_port_gbps` models it: data
    /// towards the SM passes it last. Without it the data arrives at `now`.
    #[inline]
    pub fn into_sm(&mut self, now: Ps, sm: u32, bytes: u32, rx: &mut Receipts) -> Ps {
        match self.sm_base {
            Some((b, _)) => self.hop(b + sm as usize, now, bytes, Msg::Response, rx),
            None => now,
        }
    }

    /// The output port of SM `sm` (global id), when `noc.sm_port_gbps` models it: requests
    /// and store data leave the SM through it first.
    #[inline]
    pub fn from_sm(&mut self, now: Ps, sm: u32, bytes: u32, msg: Msg, rx: &mut Receipts) -> Ps {
        match self.sm_base {
            Some((b, n)) => self.hop(b + n + sm as usize, now, bytes, msg, rx),
            None => now,
        }
    }

    /// SM request port into L2 slice `slice` of `node` (SM -> L2 direction): a read's
    /// header or a write's or atomic's header + data.
    #[inline]
    pub fn sm_to_slice(
        &mut self,
        now: Ps,
        node: u32,
        slice: u32,
        bytes: u32,
        msg: Msg,
        rx: &mut Receipts,
    ) -> Ps {
        let id = self.slice_req_base + node as usize * self.slices + slice as usize;
        self.hop(id, now, bytes, msg, rx)
    }

    /// Redeem the receipts of an arrived packet.
    #[inline]
    pub fn arrive(&mut self, rx: &mut Receipts) {
        for i in 0..rx.n as usize {
            let (id, bytes) = (rx.ids[i], rx.bytes[i]);
            if id & ROUTE != 0 {
                let (from, to) = ((id & !(ROUTE | REPLY)) >> 15, id & 0x7fff);
                let base = match self.reply_base {
                    Some(b) if id & REPLY != 0 => b,
                    _ => self.inter_base,
                };
                for &l in self.graph.route(from, to) {
                    self.ports[base + l as usize].receive(bytes);
                }
            } else {
                self.ports[id as usize].receive(bytes);
            }
        }
        rx.n = 0;
    }

    /// Ids of the inter-node ports (for reports).
    pub fn inter_ports(&self) -> std::ops::Range<usize> {
        self.inter_base..self.chan_req_base
    }
}

#[inline]
fn count(m: &mut MsgCounts, msg: Msg, bytes: u32) {
    m.packets[msg as usize] += 1;
    m.bytes[msg as usize] += bytes as u64;
}

pub mod power;

#[cfg(test)]
mod tests;
