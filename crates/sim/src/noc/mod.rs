//! Interconnect: every bandwidth-limited hop is a [`Port`] in one flat arena, addressed by
//! small ids. Inside a node: a crossbar port per memory channel in each direction (CODA's
//! "Local" network, 32 GB/s each) and a data port per L2 slice towards the SMs. Between
//! nodes: a processor-centric hub (one egress and one ingress port per node, CODA spec A5)
//! or all-to-all links.
//!
//! A packet's trip reserves every port on its path at send time and records a receipt per
//! port; the receiver redeems the receipts when the packet arrives, so "bytes sent equal
//! bytes received on every link" is a real check on the request path.

use crate::config::{Config, Topology};
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

/// Receipts of a packet in flight: (port id, bytes), redeemed on arrival.
#[derive(Clone, Copy, Debug, Default)]
pub struct Receipts {
    ids: [u32; 3],
    bytes: [u32; 3],
    n: u8,
}

impl Receipts {
    #[inline]
    fn push(&mut self, id: usize, bytes: u32) {
        let i = self.n as usize;
        debug_assert!(i < 3);
        if i < 3 {
            self.ids[i] = id as u32;
            self.bytes[i] = bytes;
            self.n += 1;
        }
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
    topo: Topology,
    nodes: usize,
    channels: usize,
    slices: usize,
    inter_base: usize,
    chan_req_base: usize,
    chan_resp_base: usize,
    slice_base: usize,
    pub header_bytes: u32,
}

impl Network {
    pub fn new(cfg: &Config, clk: Clock) -> Network {
        let n = cfg.system.nodes as usize;
        let ch = cfg.memory.channels_per_node as usize;
        let sl = cfg.l2.slices_per_node as usize;
        let mut ports = Vec::new();
        let mut names = Vec::new();
        let lat = clk.cycles(cfg.interconnect.latency as u64);
        let bw = cfg.interconnect.link_gbps;
        let inter_base = 0;
        if n > 1 {
            match cfg.interconnect.topology {
                Topology::Hub => {
                    for i in 0..n {
                        ports.push(Port::new(bw, lat));
                        names.push(format!("node{i}->hub"));
                    }
                    for i in 0..n {
                        ports.push(Port::new(bw, 0));
                        names.push(format!("hub->node{i}"));
                    }
                }
                Topology::AllToAll => {
                    for i in 0..n {
                        for j in 0..n {
                            ports.push(Port::new(bw, lat));
                            names.push(format!("node{i}->node{j}"));
                        }
                    }
                }
            }
        }
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
        let mut kinds = vec![PortKind::InterNode; chan_req_base];
        kinds.resize(slice_base, PortKind::Crossbar);
        kinds.resize(ports.len(), PortKind::SmL2);
        Network {
            kinds,
            msgs: vec![MsgCounts::default(); ports.len()],
            ports,
            names,
            topo: cfg.interconnect.topology,
            nodes: n,
            channels: ch,
            slices: sl,
            inter_base,
            chan_req_base,
            chan_resp_base,
            slice_base,
            header_bytes: cfg.interconnect.header_bytes,
        }
    }

    #[inline]
    fn hop(&mut self, id: usize, now: Ps, bytes: u32, msg: Msg, rx: &mut Receipts) -> Ps {
        rx.push(id, bytes);
        let m = &mut self.msgs[id];
        m.packets[msg as usize] += 1;
        m.bytes[msg as usize] += bytes as u64;
        self.ports[id].send(now, bytes)
    }

    /// Send `bytes` from node `from` to node `to` (from != to) over the inter-node network.
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
        let (f, t) = (from as usize, to as usize);
        match self.topo {
            Topology::Hub => {
                let t1 = self.hop(self.inter_base + f, now, bytes, msg, rx);
                self.hop(self.inter_base + self.nodes + t, t1, bytes, msg, rx)
            }
            Topology::AllToAll => {
                self.hop(self.inter_base + f * self.nodes + t, now, bytes, msg, rx)
            }
        }
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

    /// Redeem the receipts of an arrived packet.
    #[inline]
    pub fn arrive(&mut self, rx: &mut Receipts) {
        for i in 0..rx.n as usize {
            self.ports[rx.ids[i] as usize].receive(rx.bytes[i]);
        }
        rx.n = 0;
    }

    /// Ids of the inter-node ports (for reports).
    pub fn inter_ports(&self) -> std::ops::Range<usize> {
        self.inter_base..self.chan_req_base
    }
}
