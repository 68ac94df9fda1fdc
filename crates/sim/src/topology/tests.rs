use super::*;
use crate::config::{LinkCfg, Topology};

fn cfg(topo: Topology, nodes: u32, sets: impl FnOnce(&mut Config)) -> Config {
    let mut c = Config::default();
    c.system.nodes = nodes;
    c.interconnect.topology = topo;
    sets(&mut c);
    c
}

const ALL: [Topology; 7] = [
    Topology::Hub,
    Topology::AllToAll,
    Topology::Ring,
    Topology::Mesh,
    Topology::Hypercube,
    Topology::HierXbar,
    Topology::TwoLevel,
];

/// Every route is a connected walk from `s` to `t` whose length is the BFS distance.
fn check_routes(g: &Graph) {
    let n = g.nodes() as u32;
    for s in 0..n {
        let d = g.distances(s);
        for t in 0..n {
            let r = g.route(s, t);
            assert_eq!(r.len() as u32, d[t as usize], "route {s}->{t} not shortest");
            let mut v = s;
            for &l in r {
                let k = g.links()[l as usize];
                assert_eq!(k.from, v, "route {s}->{t} is not a walk");
                v = k.to;
            }
            assert_eq!(v, t, "route {s}->{t} ends elsewhere");
        }
    }
}

#[test]
fn every_route_is_a_shortest_walk_on_every_topology() {
    for topo in ALL {
        for n in [2, 4, 8, 16, 64] {
            let g = build(&cfg(topo, n, |_| {})).unwrap();
            check_routes(&g);
        }
    }
}

#[test]
fn routes_are_deterministic() {
    for topo in ALL {
        let c = cfg(topo, 16, |_| {});
        let (a, b) = (build(&c).unwrap(), build(&c).unwrap());
        for s in 0..16 {
            for t in 0..16 {
                assert_eq!(a.route(s, t), b.route(s, t));
            }
        }
    }
}

#[test]
fn hypercube_of_eight_is_the_ndp_cube() {
    let g = build(&cfg(Topology::Hypercube, 8, |_| {})).unwrap();
    // 12 bidirectional links, stack i linked to i^1, i^2, i^4
    assert_eq!(g.links().len(), 24);
    for s in 0..8u32 {
        for t in 0..8u32 {
            let hops = g.route(s, t).len() as u32;
            assert_eq!(hops, (s ^ t).count_ones(), "{s}->{t}");
            assert!(hops <= 3);
        }
    }
    // e-cube: the lowest differing dimension first (0 -> 7 = 0,1,3,7)
    let path: Vec<u32> = g
        .route(0, 7)
        .iter()
        .map(|&l| g.links()[l as usize].to)
        .collect();
    assert_eq!(path, [1, 3, 7]);
}

#[test]
fn mesh_routes_are_manhattan_and_xy() {
    let g = build(&cfg(Topology::Mesh, 16, |_| {})).unwrap(); // 4 x 4
    for s in 0..16u32 {
        for t in 0..16u32 {
            let man = (s % 4).abs_diff(t % 4) + (s / 4).abs_diff(t / 4);
            assert_eq!(g.route(s, t).len() as u32, man, "{s}->{t}");
        }
    }
    // XY: 0 (0,0) -> 15 (3,3) moves along the row first
    let path: Vec<u32> = g
        .route(0, 15)
        .iter()
        .map(|&l| g.links()[l as usize].to)
        .collect();
    assert_eq!(path, [1, 2, 3, 7, 11, 15]);
    // a 2 x 4 mesh from explicit columns
    let g = build(&cfg(Topology::Mesh, 8, |c| c.interconnect.mesh_cols = 2)).unwrap();
    assert_eq!(g.route(0, 7).len(), 1 + 3);
}

#[test]
fn ring_distance_is_the_shorter_way_round() {
    let g = build(&cfg(Topology::Ring, 8, |_| {})).unwrap();
    assert_eq!(g.links().len(), 16);
    for s in 0..8u32 {
        for t in 0..8u32 {
            let d = s.abs_diff(t);
            assert_eq!(g.route(s, t).len() as u32, d.min(8 - d));
        }
    }
}

#[test]
fn hub_and_all_to_all_keep_their_ports() {
    let g = build(&cfg(Topology::Hub, 4, |_| {})).unwrap();
    let names: Vec<String> = (0..g.links().len()).map(|l| g.link_name(l)).collect();
    assert_eq!(names[0], "node0->hub");
    assert_eq!(names[4], "hub->node0");
    // the traversal latency sits on the egress port only (CODA spec A5)
    let lat: u32 = g
        .route(1, 2)
        .iter()
        .map(|&l| g.links()[l as usize].latency)
        .sum();
    assert_eq!(lat, 100);
    let g = build(&cfg(Topology::AllToAll, 4, |_| {})).unwrap();
    assert_eq!(g.links().len(), 12, "no self-links");
    assert!((0..4).all(|s| (0..4).all(|t| g.route(s, t).len() == usize::from(s != t))));
}

#[test]
fn hier_xbar_and_two_level_hops() {
    // 16 nodes in groups of 4: 2 links inside a group, 4 between groups
    let g = build(&cfg(Topology::HierXbar, 16, |c| {
        c.interconnect.group_size = 4
    }))
    .unwrap();
    assert_eq!(g.route(0, 3).len(), 2);
    assert_eq!(g.route(0, 4).len(), 4);
    let lat: u32 = g
        .route(0, 4)
        .iter()
        .map(|&l| g.links()[l as usize].latency)
        .sum();
    assert_eq!(lat, 2 * 20 + 100, "local + global + local switch");
    // NUBA's two stages: group switches joined directly, 3 links between groups
    let g = build(&cfg(Topology::HierXbar, 64, |c| {
        c.interconnect.group_size = 8;
        c.interconnect.global_switch = false;
    }))
    .unwrap();
    check_routes(&g);
    assert_eq!(g.route(0, 7).len(), 2);
    assert_eq!(g.route(0, 8).len(), 3);
    assert_eq!(g.links().len(), 2 * 64 + 8 * 7);
    let lat: u32 = g
        .route(0, 8)
        .iter()
        .map(|&l| g.links()[l as usize].latency)
        .sum();
    assert_eq!(lat, 20 + 100, "local switch + direct global link");
    let g = build(&cfg(Topology::TwoLevel, 16, |c| {
        c.interconnect.group_size = 4
    }))
    .unwrap();
    assert_eq!(g.route(0, 3).len(), 1);
    assert_eq!(g.route(0, 4).len(), 3);
    let ls = g.links();
    let gb: Vec<f64> = g.route(0, 4).iter().map(|&l| ls[l as usize].gbps).collect();
    assert_eq!(gb, [64.0, 16.0, 64.0], "local, inter-package, local");
}

#[test]
fn custom_links_are_the_network() {
    // a line 0 - 1 - 2 - 3 through a switch between 1 and 2
    let link = |from, to| LinkCfg {
        from,
        to,
        gbps: 10.0,
        latency: 5,
        bidirectional: true,
    };
    let c = cfg(Topology::Custom, 4, |c| {
        c.interconnect.links = vec![link(0, 1), link(1, 4), link(4, 2), link(2, 3)]
    });
    c.validate().unwrap();
    let g = build(&c).unwrap();
    check_routes(&g);
    assert_eq!(g.route(0, 3).len(), 4);
    assert_eq!(g.vertex_name(4), "sw4");
    // one direction only: 3 cannot reach 0
    let c = cfg(Topology::Custom, 4, |c| {
        c.interconnect.links = vec![link(0, 1), link(1, 2), link(2, 3)];
        c.interconnect.links[2].bidirectional = false;
    });
    let e = c.validate().unwrap_err();
    assert!(
        e.contains("interconnect.links") && e.contains("node0 cannot be reached from node3"),
        "{e}"
    );
    // no links at all
    let e = cfg(Topology::Custom, 2, |_| {}).validate().unwrap_err();
    assert!(e.contains("interconnect.links"), "{e}");
}

#[test]
fn bad_interconnect_settings_are_refused_by_key() {
    let bad = |f: fn(&mut Config), key: &str| {
        let mut c = Config::default();
        f(&mut c);
        let e = c.validate().unwrap_err();
        assert!(e.contains(key), "{key}: {e}");
    };
    bad(
        |c| c.interconnect.local_gbps = 0.0,
        "interconnect.local_gbps",
    );
    bad(
        |c| c.interconnect.link_gbps = f64::NAN,
        "interconnect.link_gbps",
    );
    bad(
        |c| c.interconnect.link_gbps = 0.001,
        "interconnect.link_gbps",
    );
    bad(|c| c.interconnect.link_gbps = 2e6, "interconnect.link_gbps");
    bad(
        |c| c.noc.sm_l2_request_gbps = -1.0,
        "noc.sm_l2_request_gbps",
    );
    bad(
        |c| {
            c.interconnect.topology = Topology::Custom;
            c.interconnect.links = vec![LinkCfg {
                from: 0,
                to: 1,
                gbps: f64::INFINITY,
                latency: 1,
                bidirectional: true,
            }];
        },
        "interconnect.links[0].gbps",
    );
    bad(
        |c| {
            c.interconnect.topology = Topology::Mesh;
            c.interconnect.mesh_cols = 3;
        },
        "interconnect.mesh_cols",
    );
    bad(
        |c| {
            c.interconnect.topology = Topology::HierXbar;
            c.interconnect.group_size = 3;
        },
        "interconnect.group_size",
    );
}
