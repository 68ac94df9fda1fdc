//! 2-D mesh: node `i` sits at column `i % cols`, row `i / cols`, with links to its four
//! neighbours. Dimension-order (XY) routing: first along the row to the target column,
//! then along the column; minimal (Manhattan distance) and deadlock-free.

use super::Graph;

/// Columns of the mesh: `cols`, or when 0 the smallest power of two >= sqrt(n).
pub fn columns(n: usize, cols: usize) -> usize {
    if cols != 0 {
        return cols;
    }
    let mut c = 1;
    while c * c < n {
        c *= 2;
    }
    c
}

/// A mesh of `n` nodes in `cols` columns (0 = automatic), links of `gbps` GB/s and
/// `latency` cycles per hop.
pub fn build(n: usize, cols: usize, gbps: f64, latency: u32) -> Result<Graph, String> {
    let c = columns(n, cols);
    if c == 0 || c > n || !n.is_multiple_of(c) {
        return Err(format!(
            "interconnect.mesh_cols = {cols}: must divide system.nodes ({n}) (rows = nodes / cols)"
        ));
    }
    let rows = n / c;
    let mut g = Graph::new(n);
    for y in 0..rows {
        for x in 0..c {
            let v = (y * c + x) as u32;
            if x + 1 < c {
                g.add_pair(v, v + 1, gbps, latency);
            }
            if y + 1 < rows {
                g.add_pair(v, v + c as u32, gbps, latency);
            }
        }
    }
    let c = c as u32;
    g.route_by("interconnect.mesh_cols", |s, t, out| {
        let (mut x, mut y) = (s % c, s / c);
        let (tx, ty) = (t % c, t / c);
        while x != tx {
            if x < tx {
                x += 1
            } else {
                x -= 1
            }
            out.push(y * c + x);
        }
        while y != ty {
            if y < ty {
                y += 1
            } else {
                y -= 1
            }
            out.push(y * c + x);
        }
    })
}
