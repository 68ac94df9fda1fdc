//! Two-level network of chiplets in packages (multi-chip-module GPUs, NUBA §7.8 / A21):
//! the `group` chiplets of a package are joined all-to-all by fast local links; each
//! package has a switch `pkg<p>` reached from its chiplets over local links, and the
//! package switches are joined all-to-all by slower inter-package links. Inside a package
//! a packet takes one local link; between packages chiplet -> own package switch -> other
//! package switch -> chiplet (3 links).

use super::Graph;

/// `n` chiplets, `group` per package; `local` = (GB/s, cycles) of links inside a package,
/// `global` = those of the links between package switches.
pub fn build(
    n: usize,
    group: usize,
    local: (f64, u32),
    global: (f64, u32),
) -> Result<Graph, String> {
    let packages = n / group;
    let mut g = Graph::new(n);
    for p in 0..packages {
        for a in p * group..(p + 1) * group {
            for b in p * group..(p + 1) * group {
                if a != b {
                    g.add_link(a as u32, b as u32, local.0, local.1);
                }
            }
        }
    }
    if packages > 1 {
        let sw: Vec<u32> = (0..packages)
            .map(|p| g.add_vertex(format!("pkg{p}")))
            .collect();
        for i in 0..n {
            let s = sw[i / group];
            g.add_link(i as u32, s, local.0, local.1);
            g.add_link(s, i as u32, local.0, 0);
        }
        for &a in &sw {
            for &b in &sw {
                if a != b {
                    g.add_link(a, b, global.0, global.1);
                }
            }
        }
    }
    g.route_shortest("interconnect.group_size")
}
