//! Graph inputs for the GraphBIG-style benchmarks (spec §7 "Graph inputs"): a CSR type laid
//! out the way GraphBIG's `cudaGraph` is (u64 row offsets `vlist` of |V|+1 entries, u64
//! column ids `elist`, optional u32 edge properties) and generators that are pure functions
//! of their parameters and seed:
//!
//! - [`rmat`]: Graph500 R-MAT (a = 0.57, b = c = 0.19), symmetrised, self-loops and duplicate
//!   edges removed, vertex ids randomly relabelled: the skewed, irregular input.
//! - [`grid`]: a 2-D 4-neighbour mesh with row-major ids: the regular, road-like input whose
//!   neighbours are close in id space.
//! - [`regular`]: a configuration-model graph whose degree coefficient of variation is
//!   chosen, with local or random neighbours: the knob of the paper's Fig. 12 study.
//!
//! [`tb_profile`] computes the CODA profiler estimate of spec §3.7 (mean and CV of edges per
//! thread block over windows of `threads_per_block` consecutive vertices).

use super::rng::Rng;

/// A graph in compressed sparse row form, as GraphBIG's `cudaGraph` stores it on the device.
///
/// Undirected graphs are stored symmetrically (both directions of every edge), with each
/// adjacency list sorted by id unless [`Csr::shuffle_adjacency`] was applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    /// Row offsets: the edges of vertex `v` are `elist[vlist[v]..vlist[v + 1]]` (|V|+1 entries).
    pub vlist: Vec<u64>,
    /// Destination vertex of every edge (|E| entries).
    pub elist: Vec<u64>,
    /// Optional per-edge u32 property (SSSP weights), aligned with `elist`.
    pub weights: Option<Vec<u32>>,
}

impl Csr {
    /// Build an undirected CSR on `n` vertices from an edge list: every pair is inserted in
    /// both directions, self-loops and duplicates are dropped, adjacency lists are sorted.
    /// Requires `n < 2^32` (edges are packed into one u64 for sorting).
    pub fn from_undirected(n: u64, edges: impl IntoIterator<Item = (u64, u64)>) -> Csr {
        assert!(n < (1 << 32), "graph too large for packed sorting");
        let mut packed: Vec<u64> = Vec::new();
        for (u, v) in edges {
            if u == v || u >= n || v >= n {
                continue;
            }
            packed.push((u << 32) | v);
            packed.push((v << 32) | u);
        }
        packed.sort_unstable();
        packed.dedup();
        let mut vlist = vec![0u64; n as usize + 1];
        for &p in &packed {
            vlist[(p >> 32) as usize + 1] += 1;
        }
        for i in 0..n as usize {
            vlist[i + 1] += vlist[i];
        }
        let elist = packed.iter().map(|p| p & 0xffff_ffff).collect();
        Csr {
            vlist,
            elist,
            weights: None,
        }
    }

    /// Number of vertices |V|.
    pub fn num_vertices(&self) -> u64 {
        self.vlist.len().saturating_sub(1) as u64
    }

    /// Number of (directed) edge entries |E|; twice the undirected edge count.
    pub fn num_edges(&self) -> u64 {
        self.elist.len() as u64
    }

    /// Out-degree of `v`.
    pub fn degree(&self, v: u64) -> u64 {
        self.vlist[v as usize + 1] - self.vlist[v as usize]
    }

    /// The adjacency list of `v`.
    pub fn neighbors(&self, v: u64) -> &[u64] {
        &self.elist[self.vlist[v as usize] as usize..self.vlist[v as usize + 1] as usize]
    }

    /// The degree sequence.
    pub fn degrees(&self) -> Vec<u64> {
        self.vlist.windows(2).map(|w| w[1] - w[0]).collect()
    }

    /// Largest degree.
    pub fn max_degree(&self) -> u64 {
        self.vlist
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    /// Mean degree |E| / |V|.
    pub fn mean_degree(&self) -> f64 {
        self.num_edges() as f64 / self.num_vertices().max(1) as f64
    }

    /// The vertex of largest degree (lowest id among ties): the default traversal root, so a
    /// BFS from it covers the giant component rather than an isolated R-MAT vertex.
    pub fn max_degree_vertex(&self) -> u64 {
        let mut best = (0u64, 0u64);
        for v in 0..self.num_vertices() {
            let d = self.degree(v);
            if d > best.0 {
                best = (d, v);
            }
        }
        best.1
    }

    /// Attach symmetric u32 edge weights in `1..=max_w`: the weight of {u, v} is a hash of the
    /// unordered pair and the seed, so both directions agree (undirected SSSP input).
    pub fn with_weights(mut self, max_w: u32, seed: u64) -> Csr {
        let max_w = max_w.max(1) as u64;
        let mut w = Vec::with_capacity(self.elist.len());
        for v in 0..self.num_vertices() {
            for &u in self.neighbors(v) {
                let (a, b) = if u < v { (u, v) } else { (v, u) };
                let h =
                    Rng::new(seed ^ (a << 32 | b).wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64();
                w.push((h % max_w) as u32 + 1);
            }
        }
        self.weights = Some(w);
        self
    }

    /// Shuffle every adjacency list in place (weights move with their edges), so a kernel that
    /// sorts them first (triangle counting's step 1) has real work to do.
    pub fn shuffle_adjacency(&mut self, seed: u64) {
        let mut rng = Rng::new(seed);
        for v in 0..self.num_vertices() as usize {
            let (s, e) = (self.vlist[v] as usize, self.vlist[v + 1] as usize);
            for i in (s + 1..e).rev() {
                let j = s + rng.below((i - s + 1) as u64) as usize;
                self.elist.swap(i, j);
                if let Some(w) = self.weights.as_mut() {
                    w.swap(i, j);
                }
            }
        }
    }

    /// Check the CSR invariants: offsets start at 0, are monotone and end at |E|; every id is
    /// a vertex; no self-loops; weights (if any) align with edges.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.num_vertices();
        if self.vlist.first() != Some(&0) {
            return Err("vlist[0] != 0".into());
        }
        if self.vlist.windows(2).any(|w| w[1] < w[0]) {
            return Err("vlist not monotone".into());
        }
        if *self.vlist.last().unwrap() != self.num_edges() {
            return Err("vlist[|V|] != |E|".into());
        }
        for v in 0..n {
            for &u in self.neighbors(v) {
                if u >= n {
                    return Err(format!("edge {v}->{u} out of range"));
                }
                if u == v {
                    return Err(format!("self-loop at {v}"));
                }
            }
        }
        if let Some(w) = &self.weights {
            if w.len() != self.elist.len() {
                return Err("weights misaligned".into());
            }
        }
        Ok(())
    }

    /// Whether every edge u->v has its reverse v->u (adjacency lists must be sorted).
    pub fn is_symmetric(&self) -> bool {
        (0..self.num_vertices()).all(|v| {
            self.neighbors(v)
                .iter()
                .all(|&u| self.neighbors(u).binary_search(&v).is_ok())
        })
    }
}

/// Graph500 R-MAT generator: `2^scale` vertices, `edge_factor * 2^scale` generated edges with
/// quadrant probabilities a = 0.57, b = c = 0.19, d = 0.05, vertex ids randomly permuted,
/// then symmetrised with self-loops and duplicates removed (so |E| < 2 · edge_factor · |V|).
pub fn rmat(scale: u32, edge_factor: u64, seed: u64) -> Csr {
    assert!((1..32).contains(&scale), "R-MAT scale must be in 1..32");
    let n = 1u64 << scale;
    let mut rng = Rng::new(seed ^ 0x5245_4D41_5400_0000);
    let (a, ab, abc) = (0.57, 0.57 + 0.19, 0.57 + 0.19 + 0.19);
    let m = n * edge_factor;
    let mut edges = Vec::with_capacity(m as usize);
    for _ in 0..m {
        let (mut u, mut v) = (0u64, 0u64);
        for bit in (0..scale).rev() {
            // quadrant a: neither bit; b: v's; c: u's; d: both. Branch-free: the draws
            // are random, so branches on them mispredicted often (half of bfs's input
            // generation, 0.22 -> 0.11 s)
            let r = rng.f64();
            let ub = (r >= ab) as u64;
            let vb = ((r >= a) & (r < ab) | (r >= abc)) as u64;
            u |= ub << bit;
            v |= vb << bit;
        }
        edges.push((u, v));
    }
    let mut perm: Vec<u64> = (0..n).collect();
    rng.shuffle(&mut perm);
    Csr::from_undirected(
        n,
        edges
            .into_iter()
            .map(|(u, v)| (perm[u as usize], perm[v as usize])),
    )
}

/// A `rows` x `cols` 2-D mesh: vertex `r * cols + c` is joined to its up/down/left/right
/// neighbours, so degrees are 2 (corners), 3 (sides) or 4 and neighbour ids are within
/// `cols` of the vertex (the road-like, low-CV input of spec §7).
pub fn grid(rows: u64, cols: u64) -> Csr {
    let n = rows * cols;
    let mut edges = Vec::with_capacity(2 * n as usize);
    for r in 0..rows {
        for c in 0..cols {
            let v = r * cols + c;
            if c + 1 < cols {
                edges.push((v, v + 1));
            }
            if r + 1 < rows {
                edges.push((v, v + cols));
            }
        }
    }
    Csr::from_undirected(n, edges)
}

/// Id span within which [`Neighbours::Local`] pairs stubs.
pub const LOCAL_SPAN: u64 = 128;

/// How a [`regular`] graph picks neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Neighbours {
    /// Neighbours are close in id space (stubs paired inside a sliding window): mesh-like.
    Local,
    /// Neighbours are uniformly random vertices.
    Random,
}

/// A configuration-model graph on `n` vertices whose degrees have mean `mean_degree` and
/// coefficient of variation about `cv` (log-normal draws rounded to the nearest integer;
/// `cv = 0` gives a regular graph). One degree is drawn per run of `run` consecutive vertices
/// (`run = 1`: independent degrees; `run = threads_per_block`: whole thread blocks share a
/// degree, so the per-TB CV of spec §3.7 approaches the degree CV). Stubs are paired randomly
/// or locally; self-loops and duplicate pairs are then dropped, which lowers the largest
/// degrees a little.
pub fn regular(n: u64, mean_degree: f64, cv: f64, nb: Neighbours, run: u64, seed: u64) -> Csr {
    assert!(n >= 2 && mean_degree > 0.0 && cv >= 0.0);
    let mut rng = Rng::new(seed ^ 0x5245_4755_4C41_5200);
    let s2 = (1.0 + cv * cv).ln();
    let (mu, sigma) = (mean_degree.ln() - s2 / 2.0, s2.sqrt());
    let run = run.max(1);
    let mut deg = vec![0u64; n as usize];
    let mut cur = 0u64;
    for (i, d) in deg.iter_mut().enumerate() {
        if (i as u64).is_multiple_of(run) {
            let x = if cv == 0.0 {
                mean_degree
            } else {
                // Box-Muller normal deviate
                let (u1, u2) = (1.0 - rng.f64(), rng.f64());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                (mu + sigma * z).exp()
            };
            cur = (x.round() as u64).min(n - 1);
        }
        *d = cur;
    }
    let total: u64 = deg.iter().sum();
    if total % 2 == 1 {
        let v = rng.below(n) as usize;
        deg[v] += 1;
    }
    let mut stubs: Vec<u64> = Vec::with_capacity(total as usize + 1);
    for (v, &d) in deg.iter().enumerate() {
        stubs.extend(std::iter::repeat_n(v as u64, d as usize));
    }
    match nb {
        Neighbours::Random => rng.shuffle(&mut stubs),
        Neighbours::Local => {
            // jitter every stub's position by up to LOCAL_SPAN vertices and pair neighbours
            // in that order, so partners are at most about LOCAL_SPAN ids apart
            let mut keyed: Vec<(u64, u64)> = stubs
                .iter()
                .map(|&v| (v * 1024 + rng.below(LOCAL_SPAN * 1024), v))
                .collect();
            keyed.sort_unstable();
            stubs = keyed.into_iter().map(|(_, v)| v).collect();
        }
    }
    Csr::from_undirected(n, stubs.chunks_exact(2).map(|p| (p[0], p[1])))
}

/// Mean, standard deviation and coefficient of variation of a sample.
fn mean_cv(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut n, mut s, mut s2) = (0f64, 0f64, 0f64);
    for x in xs {
        n += 1.0;
        s += x;
        s2 += x * x;
    }
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = s / n;
    let var = (s2 / n - mean * mean).max(0.0);
    (mean, if mean > 0.0 { var.sqrt() / mean } else { 0.0 })
}

/// Coefficient of variation (σ/μ) of the degree sequence.
pub fn degree_cv(g: &Csr) -> f64 {
    mean_cv(g.vlist.windows(2).map(|w| (w[1] - w[0]) as f64)).1
}

/// The CODA profiler estimate of spec §3.7 for edge-indexed arrays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TbProfile {
    /// Mean edges per thread block (μ).
    pub mean_edges: f64,
    /// Coefficient of variation σ/μ of edges per thread block.
    pub cv: f64,
    /// Number of windows measured.
    pub windows: u64,
}

/// Edges per thread block over windows of `threads_per_block` consecutive vertices (one
/// thread per vertex, topology-driven): mean and CV. Only full windows count unless the graph
/// is smaller than one window, so a short last block does not inflate the CV.
pub fn tb_profile(g: &Csr, threads_per_block: u64) -> TbProfile {
    let n = g.num_vertices();
    let tpb = threads_per_block.max(1);
    let full = n / tpb;
    let windows = if full == 0 { 1 } else { full };
    let (mean, cv) = mean_cv((0..windows).map(|w| {
        let s = (w * tpb).min(n) as usize;
        let e = ((w + 1) * tpb).min(n) as usize;
        (g.vlist[e] - g.vlist[s]) as f64
    }));
    TbProfile {
        mean_edges: mean,
        cv,
        windows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmat_is_valid_symmetric_and_skewed() {
        let g = rmat(12, 16, 1);
        g.validate().unwrap();
        assert!(g.is_symmetric());
        assert_eq!(g.num_vertices(), 4096);
        assert!(
            g.num_edges() > 4096 * 16 && g.num_edges() < 4096 * 32,
            "{}",
            g.num_edges()
        );
        let mean = g.mean_degree();
        assert!(
            g.max_degree() as f64 > 20.0 * mean,
            "max {} mean {mean}",
            g.max_degree()
        );
        assert!(degree_cv(&g) > 1.0, "cv {}", degree_cv(&g));
        // random relabelling: the hubs are not all at low ids
        let top = g.max_degree_vertex();
        assert_ne!(top, 0);
    }

    #[test]
    fn rmat_is_deterministic_per_seed() {
        assert_eq!(rmat(10, 8, 5), rmat(10, 8, 5));
        assert_ne!(rmat(10, 8, 5), rmat(10, 8, 6));
    }

    #[test]
    fn grid_degrees_and_locality() {
        let g = grid(50, 40);
        g.validate().unwrap();
        assert!(g.is_symmetric());
        let d = g.degrees();
        assert!(d.iter().all(|&x| (2..=4).contains(&x)));
        assert_eq!(d.iter().filter(|&&x| x == 2).count(), 4);
        assert_eq!(g.num_edges(), 2 * (50 * 39 + 49 * 40));
        assert!(degree_cv(&g) < 0.15, "{}", degree_cv(&g));
        for v in 0..g.num_vertices() {
            assert!(g.neighbors(v).iter().all(|&u| u.abs_diff(v) <= 40));
        }
        let p = tb_profile(&g, 1000);
        assert!(
            p.cv < 0.01 && (p.mean_edges - 4.0 * 1000.0).abs() < 100.0,
            "{p:?}"
        );
    }

    #[test]
    fn regular_reaches_requested_cv() {
        for (cv, nb) in [
            (0.0, Neighbours::Random),
            (0.3, Neighbours::Local),
            (1.0, Neighbours::Random),
        ] {
            let g = regular(1 << 15, 16.0, cv, nb, 1, 3);
            g.validate().unwrap();
            assert!(g.is_symmetric());
            let got = degree_cv(&g);
            assert!((got - cv).abs() < 0.1 * cv + 0.05, "want {cv} got {got}");
            assert!(
                (g.mean_degree() - 16.0).abs() < 1.5,
                "mean {}",
                g.mean_degree()
            );
        }
        let loc = regular(1 << 14, 8.0, 0.3, Neighbours::Local, 1, 3);
        let far = (0..loc.num_vertices())
            .flat_map(|v| loc.neighbors(v).iter().map(move |&u| u.abs_diff(v)))
            .filter(|&d| d > 2 * LOCAL_SPAN)
            .count();
        assert!(
            far < loc.num_edges() as usize / 100,
            "local neighbours stay close"
        );
    }

    #[test]
    fn degree_runs_make_tb_cv_follow_degree_cv() {
        let iid = regular(1 << 16, 16.0, 1.0, Neighbours::Random, 1, 9);
        let runs = regular(1 << 16, 16.0, 1.0, Neighbours::Random, 1024, 9);
        let (pi, pr) = (tb_profile(&iid, 1024), tb_profile(&runs, 1024));
        assert_eq!(pi.windows, 64);
        assert!(pi.cv < 0.1, "{pi:?}");
        assert!(pr.cv > 0.5, "{pr:?}");
        assert!((pi.mean_edges - 1024.0 * iid.mean_degree()).abs() < 1.0);
    }

    #[test]
    fn weights_are_symmetric_and_shuffle_keeps_sets() {
        let g = rmat(8, 4, 2).with_weights(10, 4);
        let w = g.weights.clone().unwrap();
        for v in 0..g.num_vertices() {
            for (k, &u) in g.neighbors(v).iter().enumerate() {
                let back = g.neighbors(u).binary_search(&v).unwrap();
                let wu = w[(g.vlist[u as usize] as usize) + back];
                assert_eq!(w[g.vlist[v as usize] as usize + k], wu);
                assert!((1..=10).contains(&wu));
            }
        }
        let mut s = g.clone();
        s.shuffle_adjacency(1);
        assert_ne!(s.elist, g.elist);
        for v in 0..g.num_vertices() {
            let mut a = s.neighbors(v).to_vec();
            a.sort_unstable();
            assert_eq!(a, g.neighbors(v));
        }
    }
}
