//! BFS over a 2-D grid (`bfs-grid`): the same GraphBIG topology-driven BFS as
//! [`super::bfs`] on the regular, road-like input of spec §7 (degree 2-4, neighbour ids
//! within one row, CV of edges per block near 0). A grid BFS has about `side` levels (from
//! the centre), so each run is many cheap launches with a thin diagonal frontier.
//!
//! Input: the mesh of coda.md's Fig. 12 substitute graphs ("CV about 0.05 (mesh/road-like)
//! ... Sizes 64K-1M vertices"), the same `side` 512 (262,144 vertices) as the mesh
//! `pr --param graph=grid` runs; its input origin is CODA's (`scale::InputOrigin::CodaA28`).
//!
//! Not a paper benchmark (category "-"). Measured by the per-(launch, page) rule it is
//! core-exclusive, not block-exclusive: each launch touches every `level` page but only a
//! few edge pages (the frontier is a thin diamond), and the frontier's up/down neighbours
//! read `level` pages of the adjacent thread blocks (same GPU under affinity).

use super::bfs::bfs_workload;
use super::common::root_from_params;
use crate::gen::graph;
use crate::model::ModelWorkload;
use crate::program::WorkloadError;
use crate::registry::{BenchSpec, ParamSpec, Params};

/// `bfs-grid`: BFS over a `side` x `side` 4-neighbour mesh.
pub const SPEC: BenchSpec = BenchSpec {
    name: "bfs-grid",
    suite: "GraphBIG",
    category: "-",
    about: "level-synchronous BFS, one thread per vertex (GraphBIG topo thread-centric), 2-D grid input",
    params: &[
        ParamSpec { name: "side", default: "512", help: "vertices per grid side (side x side mesh)" },
        ParamSpec { name: "root", default: "center", help: "source vertex id, center, or auto (largest degree)" },
    ],
    build,
};

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let side = p.u64("side", 512)?;
    if !(2..=8192).contains(&side) {
        return Err(WorkloadError::Msg(format!(
            "bfs-grid: need 2 <= side <= 8192 (got {side})"
        )));
    }
    let g = graph::grid(side, side);
    let root = root_from_params(p, &g, "center")?;
    Ok(bfs_workload("bfs-grid", &g, root))
}

#[cfg(test)]
mod tests {
    use super::super::bfs::cpu_bfs;
    use super::super::common::testutil::{build, run};
    use super::*;
    use crate::sharing::coda_default_sharing;

    #[test]
    fn levels_match_cpu_bfs() {
        let mut w = build("bfs-grid", &[("side", "40")], 1);
        let st = run(&mut w);
        let g = graph::grid(40, 40);
        let want = cpu_bfs(&g, 20 * 40 + 20);
        assert_eq!(w.memory().to_vec::<u32>(2), want);
        // centre of a 40 x 40 grid: farthest corner (0, 0) is 40 steps away
        assert_eq!(st.launches.len(), 1 + 40 + 1);
    }

    #[test]
    fn pages_are_core_exclusive_thin_frontier() {
        // measured, see the module doc: thin frontiers leave `level` pages (shared with the
        // neighbouring rows' blocks) as a large share of each launch's pages
        let mut w = build("bfs-grid", &[("side", "128")], 1);
        let r = coda_default_sharing(&mut w, 10_000).unwrap();
        eprintln!("bfs-grid sharing: {r:?}");
        assert_eq!(
            r.category,
            crate::sharing::classify(r.frac_one_block, r.frac_one_gpu),
            "{r:?}"
        ); // measured, not pinned to the paper (issue 13)
    }
}
