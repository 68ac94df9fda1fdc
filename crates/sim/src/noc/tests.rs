use super::*;
use crate::config::Topology;

fn ring(nodes: u32) -> (Config, Network) {
    let mut c = Config::default();
    c.system.nodes = nodes;
    c.system.page_bytes = 1 << 16; // room for the FGP stripe over 64 nodes
    c.interconnect.topology = Topology::Ring;
    c.validate().unwrap();
    let net = Network::new(&c, Clock::ghz(c.system.sm_clock_ghz));
    (c, net)
}

#[test]
fn receipts_stay_compact() {
    // a request carries its receipts in its slab entry: routes must not grow them
    assert!(std::mem::size_of::<Receipts>() <= 28);
}

#[test]
fn a_long_route_is_one_receipt_and_every_hop_is_redeemed() {
    // ring of 64: node 0 -> node 32 is 32 hops, then a crossbar port: two receipts
    let (c, mut net) = ring(64);
    let clk = Clock::ghz(c.system.sm_clock_ghz);
    let mut rx = Receipts::default();
    let bytes = 144;
    let t = net.remote(1000, 0, 32, bytes, Msg::Response, &mut rx);
    let link = Port::new(c.interconnect.link_gbps, 0);
    let hop = link.ser(bytes) + clk.cycles(c.interconnect.latency as u64);
    assert_eq!(t, 1000 + 32 * hop, "unloaded: the sum of the hops");
    net.to_channel(t, 32, 0, bytes, Msg::Response, &mut rx);
    assert_eq!(rx.n, 2);
    let route: Vec<usize> = net
        .graph()
        .route(0, 32)
        .iter()
        .map(|&l| l as usize)
        .collect();
    assert_eq!(route.len(), 32);
    for &l in &route {
        let s = net.ports[l].stats();
        assert_eq!((s.bytes_sent, s.bytes_received), (bytes as u64, 0));
        assert_eq!(net.msgs[l].packets[Msg::Response as usize], 1);
    }
    net.arrive(&mut rx);
    assert!(rx.is_empty());
    for (i, p) in net.ports.iter().enumerate() {
        let s = p.stats();
        assert_eq!(s.bytes_sent, s.bytes_received, "port {}", net.names[i]);
    }
    // a second packet on the same route queues behind the first on its first link only
    let t2 = net.remote(1000, 0, 32, bytes, Msg::Response, &mut rx);
    assert_eq!(t2, t + link.ser(bytes));
}

#[test]
#[should_panic(expected = "receipt segments")]
fn receipt_overflow_is_loud() {
    let (_, mut net) = ring(4);
    let mut rx = Receipts::default();
    for _ in 0..=Receipts::CAP {
        net.to_channel(0, 0, 0, 16, Msg::Read, &mut rx);
    }
}

/// `interconnect.reply_network` (NUBA §2.1 [S]: separate request and reply networks): a
/// response sent right after a write on the same route does not queue behind it, and it is
/// redeemed on the reply copy of the links. Without it the response waits for the write's
/// serialisation (the shared network); fails if replies take the request links.
#[test]
fn replies_travel_on_their_own_network() {
    for split in [false, true] {
        let mut c = Config::default();
        c.system.nodes = 4;
        c.interconnect.topology = Topology::Ring;
        c.interconnect.reply_network = split;
        c.validate().unwrap();
        let mut net = Network::new(&c, Clock::ghz(c.system.sm_clock_ghz));
        let links = net.graph().links().len();
        let (mut a, mut b) = (Receipts::default(), Receipts::default());
        let w = net.remote(1000, 0, 1, 136, Msg::Write, &mut a);
        let r = net.remote(1000, 0, 1, 136, Msg::Response, &mut b);
        let ser = Port::new(c.interconnect.link_gbps, 0).ser(136);
        if split {
            assert_eq!(r, w, "the reply does not see the write");
            assert_eq!(net.inter_ports().len(), 2 * links);
            let l = net.graph().route(0, 1)[0] as usize;
            assert_eq!(net.ports[links + l].stats().bytes_sent, 136);
            assert_eq!(net.ports[l].stats().bytes_sent, 136);
        } else {
            assert_eq!(r, w + ser, "one network: the reply queues behind the write");
            assert_eq!(net.inter_ports().len(), links);
        }
        net.arrive(&mut a);
        net.arrive(&mut b);
        for (i, p) in net.ports.iter().enumerate() {
            let s = p.stats();
            assert_eq!(s.bytes_sent, s.bytes_received, "port {}", net.names[i]);
        }
    }
}
