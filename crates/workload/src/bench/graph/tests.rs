//! Cross-benchmark checks of the graph suite, plus an ignored report that measures every
//! benchmark's default run (line requests, footprint, page sharing) for documentation:
//! `cargo test -p locus-workload --lib graph_report -- --ignored --nocapture`.

use super::common::testutil::{build, run};
use crate::program::Workload;
use crate::sharing::coda_default_sharing;

#[test]
fn every_spec_builds_small_and_rejects_bad_params() {
    for s in super::SPECS {
        let small: &[(&str, &str)] = match s.name {
            "bfs-grid" => &[("side", "16")],
            "tc" => &[("graph", "rmat"), ("scale", "6")],
            _ => &[("scale", "6")],
        };
        let mut w = build(s.name, small, 1);
        let st = run(&mut w);
        assert!(st.lines > 0 && st.launches.len() >= 2, "{}", s.name);
        assert!(s.params.iter().all(|p| !p.help.is_empty()));
        let ov = [("scale", "x"), ("graph", "rmat")]
            .iter()
            .filter(|(k, _)| s.params.iter().any(|p| p.name == *k))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if s.params.iter().any(|p| p.name == "scale") {
            assert!(crate::registry::build(s.name, &ov, 1).is_err());
        }
    }
}

fn report(name: &str, kv: &[(&str, &str)]) {
    let t0 = std::time::Instant::now();
    let mut w = build(name, kv, 1);
    let foot: u64 = w.objects().iter().map(|o| o.bytes).sum();
    let st = run(&mut w);
    let mut w = build(name, kv, 1);
    let r = coda_default_sharing(&mut w, 100_000).unwrap();
    println!(
        "{name:9} {kv:?}: footprint {:.1} MB, launches {}, line requests {}, 1-TB {:.3}, 1-GPU {:.3}, acc-1-GPU {:.3}, {} ({:.1}s)",
        foot as f64 / 1e6,
        st.launches.len(),
        st.lines,
        r.frac_one_block,
        r.frac_one_gpu,
        r.access_frac_one_gpu,
        r.category,
        t0.elapsed().as_secs_f64()
    );
}

#[test]
#[ignore]
fn graph_report() {
    let only = std::env::var("GRAPH_REPORT").unwrap_or_default();
    for s in super::SPECS {
        if only.is_empty() || only.split(',').any(|x| x == s.name) {
            report(s.name, &[]);
        }
    }
}

#[test]
#[ignore]
fn graph_report_custom() {
    // GRAPH_CUSTOM="cc:scale=14,edge_factor=8"
    let spec = std::env::var("GRAPH_CUSTOM").unwrap_or_default();
    for item in spec.split(';').filter(|s| !s.is_empty()) {
        let (name, rest) = item.split_once(':').unwrap_or((item, ""));
        let kv: Vec<(&str, &str)> = rest
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|p| p.split_once('=').unwrap())
            .collect();
        report(name, &kv);
    }
}
