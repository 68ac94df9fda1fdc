//! `locus repro coda`: the evaluation of CODA (Kim et al., TACO 2018; spec coda.md §6):
//! Fig. 5 (page sharing), Fig. 9 (speedup of CGP-Only, CGP-Only + FTA and CODA over
//! FGP-Only), Fig. 10 (local/remote accesses), Fig. 11 (remote bandwidth), Fig. 12 (PageRank
//! on graphs of rising irregularity), Fig. 14 (centralized GPU, 128 B vs 4 KB), Fig. 15
//! (affinity alone) and the migration-based first touch, each with the paper's number
//! beside ours. Parameters are the presets' (Table 1) for every benchmark: nothing is tuned
//! per benchmark.
//!
//! Issue 13: CODA runs the paper's literal rules (Eqs. 2-3 with `min(4 KB, ·)` rounded up to
//! pages, the first kernel decides, Algorithm 1 w.r.t. `blockIdx.x`); the other readings are
//! named options run beside it (`coda-ppm`, `coda-alt`), and the balanced Eq. 1 variant
//! (`coda-bal`) is measured on the benchmarks and on the traces in `../shared/traces`;
//! FGP-Only, CODA and FGP-Only + affinity run again with a hashed L2 set index
//! (`fgp-l2xor`, `coda-l2xor`, `fgp-aff-l2xor`: `l2.set_index = "xor"`, beyond the
//! paper). The
//! verdict rules are declared in [`claims`] before any run; every sentence of the report's
//! explanations is computed from the runs and appears only when the runs support it, and
//! every number and comparison it prints is recorded for [`super::audit`].

use super::experiment::{self, Claim};
use super::{execute, RunResult, RunSpec};
use crate::plot;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

/// The 20 benchmarks of Table 2 with the paper's category, and the parameters of `--quick`.
/// (benchmark, paper category, `--quick` parameters).
type Bench = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const BENCHES: &[Bench] = &[
    ("bfs", "BE", &[("scale", "12"), ("edge_factor", "8")]),
    ("dc", "BE", &[("scale", "12"), ("edge_factor", "8")]),
    (
        "pr",
        "BE",
        &[("scale", "12"), ("edge_factor", "8"), ("iters", "2")],
    ),
    ("sssp", "BE", &[("scale", "12"), ("edge_factor", "8")]),
    ("bc", "BE", &[("scale", "12"), ("edge_factor", "8")]),
    (
        "gc",
        "BE",
        &[("scale", "12"), ("edge_factor", "8"), ("rounds", "3")],
    ),
    ("nw", "BE", &[("n", "512")]),
    ("km", "CE", &[("npoints", "16k"), ("iterations", "1")]),
    ("ge", "CE", &[("n", "512"), ("steps", "1")]),
    ("nn", "CE", &[("records", "512k")]),
    ("cfd", "CE", &[]),
    ("spmv", "CE", &[("rows", "24576")]),
    ("sad", "CE", &[]),
    ("mm", "CE", &[("m", "512"), ("n", "512")]),
    ("cc", "BM", &[("scale", "12")]),
    ("mg", "CM", &[]),
    ("dwt", "CM", &[]),
    ("tc", "Sharing", &[("n", "4k")]),
    (
        "hs3d",
        "Sharing",
        &[("nx", "512"), ("ny", "64"), ("iterations", "2")],
    ),
    ("hs", "Sharing", &[]),
];

/// Benchmarks used by `--quick`.
const QUICK: &[&str] = &["bfs", "pr", "km", "nn", "sad", "hs3d"];

/// Configurations: key, preset, overrides.
const CONFIGS: &[(&str, &str, &[&str])] = &[
    ("fgp", "coda-4gpu", &[]),
    ("cgp", "coda-4gpu", &["placement.policy=cgp"]),
    ("fta", "coda-4gpu", &["placement.policy=first-touch"]),
    ("mig", "coda-4gpu", &["placement.policy=migrate"]),
    ("coda", "coda-4gpu-coda", &[]),
    // not the paper's rule: per-page majority against the exact span (spec A2)
    (
        "coda-ppm",
        "coda-4gpu-coda",
        &["placement.rounding=per-page-majority"],
    ),
    // the reading this reproduction used before issue 13: per-page majority, objects one
    // chunk would hold (and, before session 36, objects the first kernel touched outside
    // its sampled blocks) deferred to a later kernel, 2-D objects placed by grid rows
    (
        "coda-alt",
        "coda-4gpu-coda",
        &[
            "placement.rounding=per-page-majority",
            "placement.defer_whole_object=true",
            "placement.defer_unsampled=true",
            "placement.rows_2d=true",
        ],
    ),
    // beyond the paper: a hashed L2 set index (the paper's machine does not say; Locus's
    // default indexes sets by the low line bits)
    ("fgp-l2xor", "coda-4gpu", &["l2.set_index=xor"]),
    ("coda-l2xor", "coda-4gpu-coda", &["l2.set_index=xor"]),
    (
        "fgp-aff-l2xor",
        "coda-4gpu",
        &["scheduling.policy=affinity", "l2.set_index=xor"],
    ),
    // beyond the paper: N_bpg capped at ceil(blocks / GPUs)
    (
        "coda-bal",
        "coda-4gpu-coda",
        &["scheduling.affinity_balanced=true"],
    ),
    ("fgp-aff", "coda-4gpu", &["scheduling.policy=affinity"]),
    ("fgp-32", "coda-4gpu", &["interconnect.link_gbps=32"]),
    ("coda-32", "coda-4gpu-coda", &["interconnect.link_gbps=32"]),
    ("fgp-64", "coda-4gpu", &["interconnect.link_gbps=64"]),
    ("coda-64", "coda-4gpu-coda", &["interconnect.link_gbps=64"]),
    (
        "central-fgp",
        "coda-centralized",
        &["memory.stack_interleave_bytes=128"],
    ),
    (
        "central-cgp",
        "coda-centralized",
        &["memory.stack_interleave_bytes=4096"],
    ),
];

/// Accel-Sim traces the balanced variant is also measured on (skipped when absent).
const TRACES: &[&str] = &[
    "../shared/traces/vectoradd",
    "../shared/traces/backprop-h100",
];

/// Configurations run on the traces.
const TRACE_CONFIGS: &[&str] = &["fgp", "coda", "coda-bal"];

/// Fig. 12 graphs: (label, CV of the edges per block, neighbours close in id?). Spec §5:
/// the most regular graph is mesh/road-like (neighbours near in id); the others draw their
/// neighbours at random, so their irregularity is real and not only in the degrees.
const PR_GRAPHS: &[(&str, &str, bool)] = &[
    ("cv0.05", "0.05", true),
    ("cv0.3", "0.3", false),
    ("cv1", "1.0", false),
    ("cv3", "3.0", false),
];

fn available(name: &str) -> bool {
    locus_workload::registry::find(name).is_some()
}

fn params(quick: bool, p: &[(&str, &str)]) -> Vec<(String, String)> {
    if quick {
        p.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    } else {
        Vec::new()
    }
}

fn spec(
    key: String,
    bench: &str,
    params: Vec<(String, String)>,
    preset: &str,
    sets: &[&str],
) -> RunSpec {
    RunSpec {
        key,
        bench: bench.to_string(),
        params,
        preset: preset.to_string(),
        sets: sets.iter().map(|s| s.to_string()).collect(),
        sharing: false,
        apps: Vec::new(),
        trace: None,
    }
}

/// Fig. 13 mixes: "each benchmark is chosen randomly from each category" (§6.5): one
/// benchmark from each of four categories (block-exclusive, core-exclusive, majority =
/// block- or core-majority, sharing; spec A18), drawn with a fixed seed *without
/// replacement* within a category, so no two mixes repeat a benchmark until a category is
/// exhausted (majority and sharing have three each: mix 3 reuses one of each).
fn mixes(quick: bool) -> Vec<Vec<&'static str>> {
    let pick = |cat: &[&str]| -> Vec<&'static str> {
        BENCHES
            .iter()
            .filter(|b| {
                cat.contains(&b.1)
                    && available(b.0)
                    && (!quick || QUICK.contains(&b.0) || b.0 == "cc")
            })
            .map(|b| b.0)
            .collect()
    };
    let mut cats = [
        pick(&["BE"]),
        pick(&["CE"]),
        pick(&["BM", "CM"]),
        pick(&["Sharing"]),
    ];
    let mut rng = locus_workload::gen::rng::Rng::new(13);
    for c in cats.iter_mut() {
        for i in (1..c.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            c.swap(i, j);
        }
    }
    let n = if quick { 1 } else { 4 };
    (0..n)
        .map(|m| {
            cats.iter()
                .filter(|c| !c.is_empty())
                .map(|c| c[m % c.len()])
                .collect()
        })
        .collect()
}

/// Everything the reproduction runs.
fn plan(quick: bool) -> (Vec<RunSpec>, Vec<(&'static str, &'static str)>) {
    let mut specs = Vec::new();
    let benches: Vec<(&'static str, &'static str)> = BENCHES
        .iter()
        .filter(|(b, _, _)| available(b) && (!quick || QUICK.contains(b)))
        .map(|(b, c, _)| (*b, *c))
        .collect();
    for (b, _, qp) in BENCHES
        .iter()
        .filter(|(b, _, _)| benches.iter().any(|x| x.0 == *b))
    {
        let p = params(quick, qp);
        let mut s = spec(format!("sharing-{b}"), b, p.clone(), "coda-4gpu", &[]);
        s.sharing = true;
        specs.push(s);
        for (ck, preset, sets) in CONFIGS {
            if quick
                && (ck.ends_with("-32")
                    || ck.ends_with("-l2xor")
                    || ck.starts_with("central")
                    || *ck == "coda-alt"
                    || *ck == "coda-bal")
                && !["bfs", "km", "nn"].contains(b)
            {
                continue;
            }
            specs.push(spec(format!("{b}-{ck}"), b, p.clone(), preset, sets));
        }
    }
    if available("pr") {
        for (g, cv, local) in PR_GRAPHS {
            let mut p = vec![
                ("graph".to_string(), "regular".to_string()),
                ("cv".to_string(), cv.to_string()),
                ("run".to_string(), "1024".to_string()),
                (
                    "local".to_string(),
                    if *local { "1" } else { "0" }.to_string(),
                ),
            ];
            if quick {
                p.push(("n".into(), "16k".into()));
                p.push(("iters".into(), "2".into()));
            }
            specs.push(spec(
                format!("pr-{g}-fgp"),
                "pr",
                p.clone(),
                "coda-4gpu",
                &[],
            ));
            specs.push(spec(format!("pr-{g}-coda"), "pr", p, "coda-4gpu-coda", &[]));
        }
    }
    for (m, mix) in mixes(quick).into_iter().enumerate() {
        let apps: Vec<(String, Vec<(String, String)>)> = mix
            .iter()
            .map(|b| {
                let qp = BENCHES
                    .iter()
                    .find(|x| x.0 == *b)
                    .map(|x| x.2)
                    .unwrap_or(&[]);
                (b.to_string(), params(quick, qp))
            })
            .collect();
        for (ck, pol) in [("fgp", "fgp"), ("cgp", "first-touch")] {
            let mut s = spec(
                format!("mix{m}-{ck}"),
                "single-load",
                Vec::new(),
                "coda-4gpu",
                &[],
            );
            s.sets = vec![format!("placement.policy={pol}")];
            s.apps = apps.clone();
            specs.push(s);
        }
    }
    if !quick {
        for t in TRACES {
            if !Path::new(t).join("kernelslist.g").exists() {
                continue;
            }
            let name = trace_name(t);
            for ck in TRACE_CONFIGS {
                let (_, preset, sets) = CONFIGS.iter().find(|c| c.0 == *ck).expect("config");
                let mut s = spec(
                    format!("trace-{name}-{ck}"),
                    "trace",
                    Vec::new(),
                    preset,
                    sets,
                );
                s.trace = Some(t.to_string());
                specs.push(s);
            }
        }
    }
    (specs, benches)
}

/// The short name of a trace folder.
fn trace_name(t: &str) -> &str {
    t.rsplit('/').next().unwrap_or(t)
}

/// The headline claims of spec §6 with their verdict rules, declared from the plan alone,
/// before any run (issue 7 §6, issue 13): every rule is "within 10 percentage points of the
/// paper" on a ratio, except the two directional claims (SAD slower with affinity alone;
/// node-local CGP faster than FGP-Only in every multiprogrammed mix). The metric and the
/// mean are part of each claim's name. The remote-traffic claim is the one first declared
/// (all remote accesses of all benchmarks together, as "-38% remote traffic" reads); the
/// mean over benchmarks is reported beside it without a verdict, never chosen by outcome.
fn claims(benches: &[(&'static str, &'static str)], mixes: usize) -> Vec<Claim> {
    use experiment::{Mean as M, Quantity as Q, Rule, Unit};
    let speedups = |base: &str, x: &str, cat: Option<&str>| -> Vec<Q> {
        benches
            .iter()
            .filter(|(_, c)| cat.is_none_or(|k| *c == k))
            .map(|(b, _)| Q::speedup(format!("{b}-{base}"), format!("{b}-{x}")))
            .collect()
    };
    let within = |name: &str, paper_text: &str, paper: f64, q: Q, unit: Unit| Claim {
        name: name.into(),
        paper_text: paper_text.into(),
        paper: Some(paper),
        quantity: q,
        unit,
        rule: Rule::WithinAbs(0.10),
    };
    let remote_sum = |cfg: &str| -> Q {
        Q::Sum(
            benches
                .iter()
                .map(|(b, _)| Q::run(format!("{b}-{cfg}"), "remote"))
                .collect(),
        )
    };
    let fgp_remote: Vec<Q> = benches
        .iter()
        .map(|(b, _)| Q::run(format!("{b}-fgp"), "remote_fraction"))
        .collect();
    let mix_means: Vec<Q> = (0..mixes)
        .map(|m| {
            Q::Mean(
                M::Arithmetic,
                (0..4)
                    .map(|a| {
                        Q::Ratio(
                            Box::new(Q::run(format!("mix{m}-fgp"), &format!("app_finish.{a}.1"))),
                            Box::new(Q::run(format!("mix{m}-cgp"), &format!("app_finish.{a}.1"))),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    vec![
        within(
            "CODA mean speedup over FGP-Only (arithmetic, spec A20)",
            "+31%",
            1.31,
            Q::Mean(M::Arithmetic, speedups("fgp", "coda", None)),
            Unit::Gain,
        ),
        within(
            "CODA mean speedup over FGP-Only (geometric, spec A20)",
            "+31%",
            1.31,
            Q::Mean(M::Geometric, speedups("fgp", "coda", None)),
            Unit::Gain,
        ),
        within(
            "CODA remote-access reduction (all remote accesses of all benchmarks together)",
            "-38%",
            0.38,
            Q::Reduction(Box::new(remote_sum("coda")), Box::new(remote_sum("fgp"))),
            Unit::Fall,
        ),
        within(
            "block-exclusive speedup (arithmetic mean)",
            "1.56x",
            1.56,
            Q::Mean(M::Arithmetic, speedups("fgp", "coda", Some("BE"))),
            Unit::Times,
        ),
        within(
            "core-exclusive speedup (arithmetic mean)",
            "1.13x",
            1.13,
            Q::Mean(M::Arithmetic, speedups("fgp", "coda", Some("CE"))),
            Unit::Times,
        ),
        within(
            "CGP-Only vs FGP-Only (arithmetic mean)",
            "about 1.0x",
            1.0,
            Q::Mean(M::Arithmetic, speedups("fgp", "cgp", None)),
            Unit::Times,
        ),
        within(
            "CGP-Only + ideal first touch (arithmetic mean)",
            "+19%",
            1.19,
            Q::Mean(M::Arithmetic, speedups("fgp", "fta", None)),
            Unit::Gain,
        ),
        within(
            "migration-based first touch (arithmetic mean)",
            "+7%",
            1.07,
            Q::Mean(M::Arithmetic, speedups("fgp", "mig", None)),
            Unit::Gain,
        ),
        within(
            "FGP-Only remote fraction (arithmetic mean)",
            "about 75%",
            0.75,
            Q::Mean(M::Arithmetic, fgp_remote),
            Unit::Percent,
        ),
        within(
            "CODA gain at 256 GB/s aggregate (arithmetic mean)",
            "+8%",
            1.08,
            Q::Mean(M::Arithmetic, speedups("fgp-64", "coda-64", None)),
            Unit::Gain,
        ),
        within(
            "regular graph (PR, lowest CV)",
            "+55%",
            1.55,
            Q::speedup(
                format!("pr-{}-fgp", PR_GRAPHS[0].0),
                format!("pr-{}-coda", PR_GRAPHS[0].0),
            ),
            Unit::Gain,
        ),
        within(
            "irregular graph (PR, highest CV)",
            "+5%",
            1.05,
            Q::speedup(
                format!("pr-{}-fgp", PR_GRAPHS[PR_GRAPHS.len() - 1].0),
                format!("pr-{}-coda", PR_GRAPHS[PR_GRAPHS.len() - 1].0),
            ),
            Unit::Gain,
        ),
        within(
            "centralized GPU (coda-centralized), FGP over CGP (geometric mean)",
            "1.48x",
            1.48,
            Q::Mean(M::Geometric, speedups("central-cgp", "central-fgp", None)),
            Unit::Times,
        ),
        Claim {
            name: "SAD with affinity alone".into(),
            paper_text: "slower".into(),
            paper: None,
            quantity: Q::speedup("sad-fgp", "sad-fgp-aff"),
            unit: Unit::Times,
            rule: Rule::Below(1.0),
        },
        Claim {
            name: "multiprogrammed: node-local CGP beats FGP (smallest mix mean)".into(),
            paper_text: "every mix".into(),
            paper: None,
            quantity: Q::Min(mix_means),
            unit: Unit::Times,
            rule: Rule::Above(1.0),
        },
    ]
}

fn mean(v: &[f64]) -> f64 {
    experiment::Mean::Arithmetic.of(v)
}

fn geomean(v: &[f64]) -> f64 {
    experiment::Mean::Geometric.of(v)
}

/// Short category name of a sharing report.
fn short_cat(c: &str) -> &'static str {
    match c {
        "block-exclusive" => "BE",
        "core-exclusive" => "CE",
        "block-majority" => "BM",
        "core-majority" => "CM",
        _ => "Sharing",
    }
}

/// The remote share of the accesses to the objects run `k` placed CGP in chunks of at
/// most `page` bytes (`sim.objects[].placement` "cgp span N B"), accesses weighted, with
/// the number of such objects; `None` without such an object or accesses to it.
fn page_chunked_remote(runs: &experiment::Runs, k: &str, page: u64) -> Option<(f64, usize)> {
    let objs = runs.record(k)?.pointer("/sim/objects")?.as_array()?;
    let (mut remote, mut all, mut n) = (0.0, 0.0, 0);
    for o in objs {
        let span = o
            .get("placement")
            .and_then(|p| p.as_str())
            .and_then(|p| p.strip_prefix("cgp span "))
            .and_then(|p| p.strip_suffix(" B"))
            .and_then(|p| p.parse::<u64>().ok());
        let count = |f: &str| o.get(f).and_then(|v| v.as_f64()).unwrap_or(0.0);
        let (r, l) = (count("remote_accesses"), count("local_accesses"));
        if span.is_some_and(|s| s <= page) && r + l > 0.0 {
            (remote, all, n) = (remote + r, all + r + l, n + 1);
        }
    }
    (all > 0.0).then(|| (remote / all, n))
}

/// The number of kernels run `k` executed.
fn kernel_count(runs: &experiment::Runs, k: &str) -> Option<u64> {
    let a = runs.record(k)?.pointer("/sim/kernels")?.as_array()?;
    Some(a.len() as u64)
}

/// Fig. 10's reason for a benchmark whose remote accesses CODA did not reduce although
/// most of its pages are CGP (the rule was written in session 37, after the runs had been
/// seen, for the three benchmarks the other rules left unexplained; it explains, it does
/// not predict): the objects CODA placed CGP in one-page chunks take their accesses remote
/// within [`TOL`] as often as pages dealt round robin over `nodes` GPUs do (1 - 1/nodes),
/// so the blocks that access a chunk are no more often on its GPU than chance. Where
/// CODA's run executed a different number of kernels than FGP-Only's (a data-dependent
/// iteration count: the racy updates of a graph kernel land in another order when blocks
/// run on other GPUs), that is said too, since it moves the access counts.
fn page_chunk_reason(
    runs: &experiment::Runs,
    led: &super::ledger::Ledger,
    b: &str,
    nodes: u32,
    page: u64,
) -> Option<String> {
    let k = format!("{b}-coda");
    let (frac, n) = page_chunked_remote(runs, &k, page)?;
    let chance = 1.0 - 1.0 / f64::from(nodes.max(1));
    if (frac - chance).abs() > TOL {
        return None;
    }
    let mut why = format!(
        "measured: the {} object(s) CODA placed CGP in one-page chunks take {} of their accesses remote, as pages dealt round robin over {} GPUs do ({}): the blocks that access a chunk are no more often on its GPU than chance",
        led.int(n as u64, &format!("{k} objects cgp span <= page")),
        led.pct(frac, &format!("{k} objects cgp remote share")),
        led.int(u64::from(nodes), "config system.nodes"),
        led.pct(chance, "1 - 1/system.nodes")
    );
    let fk = format!("{b}-fgp");
    if let (Some(c), Some(f)) = (kernel_count(runs, &k), kernel_count(runs, &fk)) {
        if c != f {
            why += &format!(
                "; CODA's run executed {} kernels against FGP-Only's {}, which moves the access counts",
                led.int(c, &format!("{k} kernels")),
                led.int(f, &format!("{fk} kernels"))
            );
        }
    }
    Some(why + " (a rule written after the runs were seen)")
}

/// Threshold, declared here before the runs, below which a remote-access reduction is not
/// "significant" (Fig. 10: "significantly reduces remote accesses in every benchmark except
/// GE"), and the tolerance for "virtually unaffected" by affinity alone (Fig. 15) and for a
/// disagreement with the paper: 10 percentage points.
const TOL: f64 = 0.10;

/// Run the reproduction into `out`.
pub fn run(out: &Path, quick: bool, jobs: usize, quiet: bool, base: &[String]) -> Result<()> {
    let (mut specs, benches) = plan(quick);
    super::apply_base_sets(&mut specs, base, out)?;
    let claims = claims(&benches, mixes(quick).len());
    let reused = specs
        .iter()
        .filter(|s| out.join("runs").join(format!("{}.json", s.key)).exists())
        .count();
    let t0 = std::time::Instant::now();
    let res = execute(&specs, out, jobs, quiet)?;
    let secs = t0.elapsed().as_secs_f64();
    let led = super::ledger::Ledger::default();
    let runs = experiment::Runs::new(&res);
    let val = |k: &str, path: &str| runs.value(k, path);
    let get = |k: String| -> Option<&RunResult> { res.get(&k) };
    let sp = |b: &str, base: &str, x: &str| -> f64 {
        let a = val(&format!("{b}-{base}"), "cycles");
        let c = val(&format!("{b}-{x}"), "cycles");
        if c > 0.0 {
            a / c
        } else {
            f64::NAN
        }
    };
    let red = |b: &str, base: &str, x: &str| -> f64 {
        let f = val(&format!("{b}-{base}"), "remote");
        let c = val(&format!("{b}-{x}"), "remote");
        if f > 0.0 {
            1.0 - c / f
        } else {
            f64::NAN
        }
    };
    // per-GPU imbalance of a run: busiest GPU's warp instructions over the mean
    let imbalance = |k: &str| -> f64 {
        let v: Vec<f64> = (0..64)
            .map(|i| val(k, &format!("sim.nodes.{i}.warp_insts")))
            .take_while(|x| x.is_finite())
            .collect();
        let m = mean(&v);
        if m > 0.0 {
            v.iter().copied().fold(0.0, f64::max) / m
        } else {
            f64::NAN
        }
    };
    let fgp_page_share = |k: &str| -> f64 {
        let (f, m) = (
            val(k, "sim.placement.pages_fgp"),
            val(k, "sim.placement.pages_mapped"),
        );
        if m > 0.0 {
            f / m
        } else {
            f64::NAN
        }
    };
    let names: Vec<String> = benches.iter().map(|b| b.0.to_string()).collect();
    let base_cfg = locus_sim::preset::load(Some("coda-4gpu"), None, &[])?;
    let cent_cfg = locus_sim::preset::load(Some("coda-centralized"), None, &[])?;
    let sys = &base_cfg.system;
    let mut md = String::new();
    writeln!(
        md,
        "# CODA reproduction{}\n",
        if quick {
            " (quick: reduced inputs and benchmark subset)"
        } else {
            ""
        }
    )?;
    writeln!(
        md,
        "Locus `repro coda`, {} runs ({} reused from an earlier invocation) in {} s on {} worker(s). Machine: preset `coda-4gpu` (Table 1: {} GPUs x {} SMs at {} GHz, {} B L2 per GPU, {} GB/s per GPU port into the hub, {} B pages) and `coda-4gpu-coda` (CODA's placement and Eq. 1 scheduling). The same parameters for every benchmark; inputs are the suites' defaults scaled by the one rule of `crates/workload/src/scale.rs`. Speedups are FGP-Only cycles / configuration cycles.\n",
        led.int(specs.len() as u64, "runs planned"),
        led.int(reused as u64, "runs reused"),
        led.f(secs, 0, "host seconds"),
        led.int(jobs as u64, "--jobs"),
        led.int(sys.nodes as u64, "config system.nodes"),
        led.int(sys.sms_per_node as u64, "config system.sms_per_node"),
        led.f(sys.sm_clock_ghz, 1, "config system.sm_clock_ghz"),
        led.int(base_cfg.l2.bytes_per_node, "config l2.bytes_per_node"),
        led.f(base_cfg.interconnect.link_gbps, 0, "config interconnect.link_gbps"),
        led.int(sys.page_bytes, "config system.page_bytes"),
    )?;
    md += &super::experiment::set_index_sentence(&base_cfg);
    md += "\n";
    writeln!(
        md,
        "CODA's rules, as run: the paper's literal Eqs. 2-3 by default (`placement.rounding = \"paper-roundup\"`: chunk = min(page, B x N_bpg) rounded up to whole pages, so with {} B pages every chunk is one page), the first kernel that uses an object decides it, and Algorithm 1 differentiates w.r.t. `blockIdx.x`. Readings that are not the paper's are named options run beside it: `coda-ppm` (per-page majority against the exact span, spec A2), `coda-alt` (the reading this reproduction used before: per-page majority, an object one chunk would hold or one the first kernel touched outside its sampled blocks deferred to a later kernel, 2-D objects placed by grid rows) and `coda-bal` (beyond the paper: Eq. 1's N_bpg capped at ceil(blocks / GPUs)).\n",
        led.int(sys.page_bytes, "config system.page_bytes"),
    )?;
    // objects the first kernel touched outside its sampled blocks (spec A11): fixed
    // fine-grained under `coda`, left to a later kernel under `coda-alt`
    let unsampled: Vec<String> = benches
        .iter()
        .filter_map(|b| {
            let k = format!("{}-coda", b.0);
            let n = val(&k, "sim.placement.coda_unsampled_objects");
            (n > 0.0).then(|| {
                format!(
                    "{} ({})",
                    b.0,
                    led.f(n, 0, &format!("{k} coda_unsampled_objects"))
                )
            })
        })
        .collect();
    if !unsampled.is_empty() {
        writeln!(
            md,
            "Objects the first kernel that touched them touched only outside its sampled blocks (or with a grid too small to sample), so that CODA saw no stride and fixed them fine-grained at their first page (spec A11; `coda-alt` leaves them to a later kernel): {}.\n",
            unsampled.join(", ")
        )?;
    }

    // ---- Fig. 5: sharing
    let mut sec5 = String::new();
    writeln!(
        sec5,
        "## Fig. 5 and Table 2: page sharing and categories (measured; the paper's beside it)\n"
    )?;
    writeln!(sec5, "| benchmark | paper category | measured | pages of one TB | pages of one GPU | accesses to one-GPU pages |\n|---|---|---|---|---|---|")?;
    let mut cat_differs: Vec<(String, String, String, f64, f64)> = Vec::new();
    let mut fig5 = String::from("bench,1,2,3-4,5-8,9-16,17-64,>64\n");
    let mut match_count = 0u64;
    for (b, cat) in &benches {
        let Some(s) = get(format!("sharing-{b}")).and_then(|r| r.sharing.clone()) else {
            continue;
        };
        let short = short_cat(&s.category);
        if short == *cat {
            match_count += 1;
        } else {
            cat_differs.push((
                b.to_string(),
                cat.to_string(),
                short.to_string(),
                s.frac_one_block,
                s.frac_one_gpu,
            ));
        }
        writeln!(
            sec5,
            "| {b} | {cat} | {short} | {} | {} | {} |",
            led.pct(s.frac_one_block, &format!("sharing-{b}")),
            led.pct(s.frac_one_gpu, &format!("sharing-{b}")),
            led.pct(s.access_frac_one_gpu, &format!("sharing-{b}")),
        )?;
        let tot = s.pages.max(1) as f64;
        let _ = writeln!(
            fig5,
            "{b},{}",
            s.by_blocks
                .iter()
                .map(|x| format!("{:.4}", *x as f64 / tot))
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    writeln!(
        sec5,
        "\n{} of {} benchmarks measure in the paper's category. Categories are measured, never tuned: inputs follow the suites' defaults.\n",
        led.int(match_count, "count of sharing runs"),
        led.int(benches.len() as u64, "benchmarks")
    )?;
    std::fs::write(out.join("fig5_sharing.csv"), &fig5)?;
    {
        let mut parts: Vec<(String, Vec<f64>)> = locus_workload::sharing::BUCKETS
            .iter()
            .map(|(n, _, _)| (format!("{n} TBs"), Vec::new()))
            .collect();
        for (b, _) in &benches {
            let s = get(format!("sharing-{b}")).and_then(|r| r.sharing.clone());
            for (i, p) in parts.iter_mut().enumerate() {
                p.1.push(
                    s.as_ref()
                        .map(|s| s.by_blocks[i] as f64 / s.pages.max(1) as f64)
                        .unwrap_or(f64::NAN),
                );
            }
        }
        plot::stacked_bars(
            &out.join("fig5_sharing"),
            "Fig. 5: pages by number of thread blocks (paper: bucket values not in the text)",
            "fraction of pages",
            &names,
            &parts,
        )?;
    }

    // ---- Fig. 9, 10, 15
    let cols = [
        "cgp", "fta", "mig", "coda", "coda-ppm", "coda-alt", "coda-bal", "fgp-aff",
    ];
    let col = |c: &str| -> Vec<f64> { benches.iter().map(|(b, _)| sp(b, "fgp", c)).collect() };
    let mut sec9 = String::new();
    writeln!(
        sec9,
        "## Fig. 9: speedup over FGP-Only (and Fig. 15: FGP-Only + affinity)\n"
    )?;
    writeln!(sec9, "| benchmark | cat | CGP-Only | CGP+FTA | migration | CODA (paper rules) | CODA per-page | CODA earlier reading | CODA balanced | FGP+affinity |\n|---|---|---|---|---|---|---|---|---|---|")?;
    let mut csv = String::from("bench,category,cgp,fta,mig,coda,coda_ppm,coda_alt,coda_bal,fgp_aff,remote_fgp,remote_coda,remote_reduction\n");
    for (b, cat) in &benches {
        let row: Vec<f64> = cols.iter().map(|c| sp(b, "fgp", c)).collect();
        writeln!(
            sec9,
            "| {b} | {cat} | {} |",
            row.iter()
                .zip(cols)
                .map(|(v, c)| led.f(*v, 2, &format!("{b}-fgp/{b}-{c} cycles")))
                .collect::<Vec<_>>()
                .join(" | ")
        )?;
        let _ = writeln!(
            csv,
            "{b},{cat},{},{:.4},{:.4},{:.4}",
            row.iter()
                .map(|v| format!("{v:.4}"))
                .collect::<Vec<_>>()
                .join(","),
            val(&format!("{b}-fgp"), "remote_fraction"),
            val(&format!("{b}-coda"), "remote_fraction"),
            red(b, "fgp", "coda")
        );
    }
    std::fs::write(out.join("fig9_fig10_fig15.csv"), &csv)?;
    writeln!(
        sec9,
        "\n| mean over benchmarks | arithmetic | geometric |\n|---|---|---|"
    )?;
    for (c, label) in [
        ("cgp", "CGP-Only"),
        ("fta", "CGP-Only + FTA"),
        ("mig", "migration first touch"),
        ("coda", "CODA (paper rules)"),
        ("coda-ppm", "CODA per-page majority"),
        ("coda-alt", "CODA earlier reading"),
        ("coda-bal", "CODA balanced"),
        ("fgp-aff", "FGP + affinity"),
    ] {
        let v = col(c);
        writeln!(
            sec9,
            "| {label} | {} | {} |",
            led.f(mean(&v), 3, &format!("mean {c}")),
            led.f(geomean(&v), 3, &format!("geomean {c}"))
        )?;
    }
    // the rounding difference, explained from the runs
    {
        let (a, p) = (mean(&col("coda")), mean(&col("coda-ppm")));
        let mut diffs: Vec<(f64, &str, f64, f64)> = benches
            .iter()
            .map(|(b, _)| {
                let (x, y) = (sp(b, "fgp", "coda"), sp(b, "fgp", "coda-ppm"));
                ((y - x).abs(), *b, x, y)
            })
            .filter(|d| d.0.is_finite() && d.0 > TOL)
            .collect();
        diffs.sort_by(|x, y| y.0.total_cmp(&x.0));
        if let Some(c) = led.cmp(
            a,
            p,
            &format!(
                "the mean speedup under the paper's literal Eq. 2 ({})",
                led.f(a, 3, "mean coda")
            ),
            &format!("the per-page reading's ({})", led.f(p, 3, "mean coda-ppm")),
        ) {
            writeln!(sec9, "\nRounding: {c}.")?;
            if !diffs.is_empty() {
                writeln!(
                    sec9,
                    "Benchmarks that move by more than {} between the two: {}. With {} B pages the literal chunk is one page, so consecutive pages of an object go to consecutive GPUs whatever B x N_bpg is; the per-page reading keeps a GPU's whole batch span together.",
                    led.f(TOL, 2, "declared tolerance"),
                    diffs
                        .iter()
                        .map(|(_, b, x, y)| format!(
                            "{b} ({} paper rule, {} per-page)",
                            led.x(*x, &format!("{b} coda")),
                            led.x(*y, &format!("{b} coda-ppm"))
                        ))
                        .collect::<Vec<_>>()
                        .join(", "),
                    led.int(sys.page_bytes, "config system.page_bytes")
                )?;
            }
        }
    }
    let paper_f9 = |c: &str| -> f64 {
        match c {
            "BE mean" => 1.56,
            "CE mean" => 1.13,
            "all mean" => 1.31,
            _ => f64::NAN,
        }
    };
    {
        let mut cats9 = names.clone();
        cats9.extend(["BE mean", "CE mean", "all mean"].map(String::from));
        let ext = |c: &str| -> Vec<f64> {
            let mut v = col(c);
            let by = |k: &str| {
                mean(
                    &benches
                        .iter()
                        .filter(|b| b.1 == k)
                        .map(|(b, _)| sp(b, "fgp", c))
                        .collect::<Vec<_>>(),
                )
            };
            v.extend([by("BE"), by("CE"), mean(&col(c))]);
            v
        };
        plot::grouped_bars_log(
            &out.join("fig9_speedup"),
            "Fig. 9: speedup over FGP-Only (log axis; paper: category means only)",
            "speedup (log scale)",
            &cats9,
            &[
                ("CGP-Only".into(), ext("cgp")),
                ("CGP-Only+FTA".into(), ext("fta")),
                ("CODA (paper rules)".into(), ext("coda")),
                ("CODA per-page".into(), ext("coda-ppm")),
                (
                    "paper CODA".into(),
                    cats9.iter().map(|c| paper_f9(c)).collect(),
                ),
            ],
            Some(1.0),
        )?;
        let mut f15 = col("fgp-aff");
        f15.push(mean(&f15.clone()));
        let mut c15 = names.clone();
        c15.push("all mean".into());
        plot::grouped_bars_log(
            &out.join("fig15_affinity"),
            "Fig. 15: FGP-Only + affinity (paper: about 1.0 except SAD, which is slower)",
            "speedup over FGP-Only (log scale)",
            &c15,
            &[
                ("FGP+affinity".into(), f15),
                (
                    "paper (1.0 = unaffected; SAD slower, value not given)".into(),
                    c15.iter()
                        .map(|c| if c == "sad" { f64::NAN } else { 1.0 })
                        .collect(),
                ),
            ],
            Some(1.0),
        )?;
    }

    // ---- Fig. 10
    let mut sec10 = String::new();
    writeln!(
        sec10,
        "\n## Fig. 10: local and remote memory accesses (L2 misses and write-backs, spec A8)\n"
    )?;
    writeln!(
        sec10,
        "| category | remote reduction, mean over benchmarks (ours) | paper |\n|---|---|---|"
    )?;
    let mut red_cats = Vec::new();
    let mut red_paper = Vec::new();
    let mut red_ours = Vec::new();
    for (cat, paper) in [
        ("BE", Some(0.47)),
        ("CE", Some(0.34)),
        ("Sharing", Some(0.32)),
        ("BM", None),
        ("CM", None),
    ] {
        let v: Vec<f64> = benches
            .iter()
            .filter(|b| b.1 == cat)
            .map(|(b, _)| red(b, "fgp", "coda"))
            .collect();
        if v.is_empty() {
            continue;
        }
        let m = mean(&v);
        red_cats.push(cat.to_string());
        red_ours.push(m);
        red_paper.push(paper.unwrap_or(f64::NAN));
        writeln!(
            sec10,
            "| {cat} | {} | {} |",
            led.pct(-m, &format!("mean reduction {cat}")),
            paper
                .map(|p| led.pct(-p, "paper §6.2"))
                .unwrap_or_else(|| "not given".into())
        )?;
    }
    let all_red_mean = mean(
        &benches
            .iter()
            .map(|(b, _)| red(b, "fgp", "coda"))
            .collect::<Vec<_>>(),
    );
    writeln!(
        sec10,
        "\nMean over benchmarks (no verdict; the verdict is on all accesses together, declared first): {}.",
        led.pct(-all_red_mean, "mean reduction all")
    )?;
    red_cats.push("all".into());
    red_ours.push(all_red_mean);
    red_paper.push(0.38);
    plot::grouped_bars(
        &out.join("fig10_reduction"),
        "Fig. 10: CODA's remote-access reduction by category, ours and the paper's",
        "remote accesses removed (fraction of FGP-Only's)",
        &red_cats,
        &[("ours".into(), red_ours), ("paper".into(), red_paper)],
        None,
    )?;
    {
        let mut loc_f = Vec::new();
        let mut rem_f = Vec::new();
        let mut loc_c = Vec::new();
        let mut rem_c = Vec::new();
        for (b, _) in &benches {
            let f = get(format!("{b}-fgp"));
            let c = get(format!("{b}-coda"));
            let base = f
                .map(|r| (r.local + r.remote) as f64)
                .unwrap_or(f64::NAN)
                .max(1.0);
            loc_f.push(f.map(|r| r.local as f64 / base).unwrap_or(f64::NAN));
            rem_f.push(f.map(|r| r.remote as f64 / base).unwrap_or(f64::NAN));
            loc_c.push(c.map(|r| r.local as f64 / base).unwrap_or(f64::NAN));
            rem_c.push(c.map(|r| r.remote as f64 / base).unwrap_or(f64::NAN));
        }
        plot::grouped_bars(
            &out.join("fig10_local_remote"),
            "Fig. 10: memory accesses normalised to FGP-Only (paper: FGP remote about 0.75)",
            "accesses / FGP-Only total",
            &names,
            &[
                ("FGP local".into(), loc_f),
                ("FGP remote".into(), rem_f),
                ("CODA local".into(), loc_c),
                ("CODA remote".into(), rem_c),
            ],
            Some(0.75),
        )?;
    }

    // ---- Fig. 11
    let mut sec11 = String::new();
    writeln!(
        sec11,
        "\n## Fig. 11: CODA speedup over FGP-Only versus aggregate remote bandwidth\n"
    )?;
    writeln!(
        sec11,
        "| aggregate remote bandwidth | CODA mean speedup (ours) | paper |\n|---|---|---|"
    )?;
    let mut f11 = Vec::new();
    let link = base_cfg.interconnect.link_gbps;
    let nodes = sys.nodes as f64;
    let f11_x: Vec<f64> = [1.0, 2.0, 4.0].iter().map(|m| m * link * nodes).collect();
    let f11_paper = [1.374, 1.152, 1.08];
    for ((sfx, agg), paper) in [("", f11_x[0]), ("-32", f11_x[1]), ("-64", f11_x[2])]
        .into_iter()
        .zip(f11_paper)
    {
        let v: Vec<f64> = benches
            .iter()
            .map(|(b, _)| sp(b, &format!("fgp{sfx}"), &format!("coda{sfx}")))
            .collect();
        let m = mean(&v);
        f11.push(m);
        writeln!(
            sec11,
            "| {} GB/s | {} ({} benchmarks) | {} |",
            led.f(agg, 0, "config link_gbps x nodes"),
            led.x(m, &format!("mean coda{sfx}")),
            led.int(
                v.iter().filter(|x| x.is_finite()).count() as u64,
                "benchmarks with data"
            ),
            led.x(paper, "paper §6.4")
        )?;
    }
    plot::lines(
        &out.join("fig11_remote_bw"),
        "Fig. 11: CODA speedup vs remote bandwidth, ours and the paper's",
        "aggregate remote bandwidth (GB/s)",
        "mean speedup over FGP-Only",
        &f11_x,
        &[
            ("ours".into(), f11.clone()),
            ("paper".into(), f11_paper.to_vec()),
        ],
    )?;

    // ---- Fig. 12
    let mut sec12 = String::new();
    writeln!(
        sec12,
        "\n## Fig. 12: PageRank on graphs of rising irregularity\n"
    )?;
    writeln!(sec12, "| graph | neighbours | CODA speedup | paper | remote fraction FGP / CODA | CODA's edge-array decision |\n|---|---|---|---|---|---|")?;
    let mut f12 = Vec::new();
    let mut f12p = Vec::new();
    for (i, (g, cv, local)) in PR_GRAPHS.iter().enumerate() {
        let s = sp(&format!("pr-{g}"), "fgp", "coda");
        f12.push(s);
        let paper = if i == 0 {
            1.55
        } else if i + 1 == PR_GRAPHS.len() {
            1.05
        } else {
            f64::NAN
        };
        f12p.push(paper);
        let k = format!("pr-{g}-coda");
        // the profiler's CV of the edges per block, as CODA measured it
        let cvs: Vec<f64> = (0..16)
            .map(|d| val(&k, &format!("sim.coda_decisions.{d}.reason.Profiled.cv")))
            .filter(|x| x.is_finite())
            .collect();
        let tcv: Vec<f64> = (0..16)
            .map(|d| {
                val(
                    &k,
                    &format!("sim.coda_decisions.{d}.reason.TooIrregular.cv"),
                )
            })
            .filter(|x| x.is_finite())
            .collect();
        let dec = if let Some(c) = cvs.first() {
            format!(
                "CGP, profiled CV {}",
                led.f(*c, 2, &format!("{k} decision"))
            )
        } else if let Some(c) = tcv.first() {
            format!(
                "FGP, profiled CV {}",
                led.f(*c, 2, &format!("{k} decision"))
            )
        } else {
            "none recorded".into()
        };
        writeln!(
            sec12,
            "| CV {} | {} | {} | {} | {} / {} | {dec} |",
            led.put(cv.to_string(), "plan: graph parameter cv"),
            if *local {
                "near in id (mesh-like)"
            } else {
                "random"
            },
            led.x(s, &format!("pr-{g}")),
            if paper.is_finite() {
                led.x(paper, "paper §6.3")
            } else {
                "not given".into()
            },
            led.pct(
                val(&format!("pr-{g}-fgp"), "remote_fraction"),
                "remote_fraction"
            ),
            led.pct(val(&k, "remote_fraction"), "remote_fraction"),
        )?;
    }
    writeln!(
        sec12,
        "\nPaper: regular graphs {}, irregular {}, CODA never below FGP-Only.",
        led.x(1.55, "paper §6.3"),
        led.x(1.05, "paper §6.3")
    )?;
    plot::grouped_bars(
        &out.join("fig12_pagerank"),
        "Fig. 12: PageRank, CODA over FGP-Only, ours and the paper's",
        "speedup",
        &PR_GRAPHS
            .iter()
            .map(|g| g.0.to_string())
            .collect::<Vec<_>>(),
        &[("ours".into(), f12.clone()), ("paper".into(), f12p)],
        Some(1.0),
    )?;

    // ---- Fig. 14
    let mut sec14 = String::new();
    writeln!(
        sec14,
        "\n## Fig. 14: centralized GPU (preset `coda-centralized`), {} B versus {} B interleaving across stacks\n",
        led.int(128, "plan: central-fgp memory.stack_interleave_bytes"),
        led.int(4096, "plan: central-cgp memory.stack_interleave_bytes"),
    )?;
    let f14: Vec<f64> = benches
        .iter()
        .map(|(b, _)| sp(b, "central-cgp", "central-fgp"))
        .collect();
    let f14m = geomean(&f14);
    writeln!(
        sec14,
        "Machine: {} SMs, {} HBM stacks, memory-side L2 of {} B in {} slices. FGP over CGP: geometric mean {}, arithmetic {} over {} benchmarks (paper: {}).",
        led.int(cent_cfg.system.sms_per_node as u64, "config coda-centralized sms_per_node"),
        led.int(cent_cfg.memory.stacks_per_node as u64, "config coda-centralized stacks_per_node"),
        led.int(cent_cfg.l2.bytes_per_node, "config coda-centralized l2.bytes_per_node"),
        led.int(cent_cfg.l2.slices_per_node as u64, "config coda-centralized l2.slices_per_node"),
        led.x(f14m, "geomean central"),
        led.x(mean(&f14), "mean central"),
        led.int(f14.iter().filter(|x| x.is_finite()).count() as u64, "benchmarks with data"),
        led.x(1.48, "paper §6.3")
    )?;
    {
        let mut c14 = names.clone();
        c14.push("geomean".into());
        let mut v14 = f14.clone();
        v14.push(f14m);
        let mut p14 = vec![f64::NAN; names.len()];
        p14.push(1.48);
        plot::grouped_bars(
            &out.join("fig14_centralized"),
            "Fig. 14: coda-centralized, FGP (128 B) over CGP (4 KB), ours and the paper's",
            "speedup",
            &c14,
            &[("ours".into(), v14), ("paper".into(), p14)],
            Some(1.0),
        )?;
    }

    // ---- Fig. 13
    let mut sec13 = String::new();
    writeln!(sec13, "\n## Fig. 13: multiprogrammed mixes, one application per GPU, node-local CGP over FGP-Only\n")?;
    writeln!(
        sec13,
        "One benchmark per category (BE, CE, majority, sharing), drawn without replacement with a fixed seed.\n\n| mix | applications | per-application speedup | mean |\n|---|---|---|---|"
    )?;
    let mut f13 = Vec::new();
    let mut m = 0;
    while let (Some(f), Some(c)) = (get(format!("mix{m}-fgp")), get(format!("mix{m}-cgp"))) {
        let spd: Vec<f64> = f
            .app_finish
            .iter()
            .zip(&c.app_finish)
            .map(|(a, b)| {
                if b.1 == 0 {
                    f64::NAN
                } else {
                    a.1 as f64 / b.1 as f64
                }
            })
            .collect();
        let apps: Vec<String> = f.app_finish.iter().map(|a| a.0.clone()).collect();
        let mean_sp = mean(&spd);
        f13.push(mean_sp);
        writeln!(
            sec13,
            "| mix{m} | {} | {} | {} |",
            apps.join(", "),
            spd.iter()
                .map(|x| led.f(*x, 2, &format!("mix{m}")))
                .collect::<Vec<_>>()
                .join(", "),
            led.f(mean_sp, 2, &format!("mix{m} mean"))
        )?;
        m += 1;
    }
    writeln!(
        sec13,
        "\nPaper: CGP-Only (node-local) beats FGP-Only in all four mixes (values not given)."
    )?;
    if !f13.is_empty() {
        plot::grouped_bars(
            &out.join("fig13_multiprogrammed"),
            "Fig. 13: node-local CGP over FGP-Only per mix (paper: above 1 in all, values not given)",
            "mean per-application speedup",
            &(0..f13.len())
                .map(|i| format!("mix{i}"))
                .collect::<Vec<_>>(),
            &[("CGP (node-local)".into(), f13.clone())],
            Some(1.0),
        )?;
    }

    // ---- balanced variant (beyond the paper)
    let mut secb = String::new();
    writeln!(
        secb,
        "\n## Beyond the paper: Eq. 1 with N_bpg capped at ceil(blocks / GPUs)\n"
    )?;
    writeln!(
        secb,
        "Eq. 1 gives each GPU a batch of N_bpg consecutive blocks, so a kernel with fewer blocks than N_bpg runs on one GPU. The balanced variant caps N_bpg at ceil(blocks / GPUs) for both the schedule and the placement.\n\n| workload | CODA (paper rules) | CODA balanced | busiest GPU's warp instructions / mean, paper rules | balanced |\n|---|---|---|---|---|"
    )?;
    let mut bal_rows: Vec<(String, f64, f64)> = Vec::new();
    let trace_names: Vec<&str> = TRACES.iter().map(|t| trace_name(t)).collect();
    for w in names
        .iter()
        .map(|s| s.as_str())
        .chain(trace_names.iter().copied())
    {
        let key = if names.iter().any(|n| n == w) {
            w.to_string()
        } else {
            format!("trace-{w}")
        };
        let (a, b) = (sp(&key, "fgp", "coda"), sp(&key, "fgp", "coda-bal"));
        if !a.is_finite() && !b.is_finite() {
            continue;
        }
        bal_rows.push((w.to_string(), a, b));
        writeln!(
            secb,
            "| {w} | {} | {} | {} | {} |",
            led.x(a, &format!("{key} coda")),
            led.x(b, &format!("{key} coda-bal")),
            led.f(
                imbalance(&format!("{key}-coda")),
                2,
                &format!("{key}-coda nodes")
            ),
            led.f(
                imbalance(&format!("{key}-coda-bal")),
                2,
                &format!("{key}-coda-bal nodes")
            ),
        )?;
    }
    {
        // the means compare the same workloads: those with both runs
        let both: Vec<&(String, f64, f64)> = bal_rows
            .iter()
            .filter(|r| r.1.is_finite() && r.2.is_finite())
            .collect();
        let a: Vec<f64> = both.iter().map(|r| r.1).collect();
        let b: Vec<f64> = both.iter().map(|r| r.2).collect();
        let losers: Vec<&(String, f64, f64)> = bal_rows.iter().filter(|r| r.1 < 1.0).collect();
        let rescued: Vec<String> = losers
            .iter()
            .filter(|r| r.2 >= 1.0)
            .map(|r| r.0.clone())
            .collect();
        writeln!(
            secb,
            "\nGeometric mean over the workloads with both runs: paper rule {}, balanced {}. Slower than FGP-Only under the paper's rule: {}; of these, at least as fast as FGP-Only when balanced: {}.",
            led.x(geomean(&a), "geomean coda rows"),
            led.x(geomean(&b), "geomean coda-bal rows"),
            if losers.is_empty() {
                "none".to_string()
            } else {
                losers.iter().map(|r| r.0.clone()).collect::<Vec<_>>().join(", ")
            },
            if rescued.is_empty() {
                "none".to_string()
            } else {
                rescued.join(", ")
            }
        )?;
        plot::grouped_bars_log(
            &out.join("fig_balanced"),
            "Eq. 1 balanced (beyond the paper): CODA over FGP-Only",
            "speedup (log scale)",
            &bal_rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>(),
            &[("paper rule".into(), a), ("balanced N_bpg".into(), b)],
            Some(1.0),
        )?;
    }

    // ---- hashed L2 set index (beyond the paper)
    let mut secx = String::new();
    writeln!(
        secx,
        "\n## Beyond the paper: a hashed L2 set index (`l2.set_index = \"xor\"`)\n"
    )?;
    writeln!(
        secx,
        "Every run above indexes an L2 slice's sets with the low bits of the physical line number (`l2.set_index = \"linear\"`, Locus's default; the paper does not describe its L2 index). A stride of a multiple of a power of two lines then lands in few sets (a column walk over a row-major matrix whose rows are such a multiple uses a fraction of a slice's sets). `xor` folds the next two fields of set bits into the index, as hashed L2 indices do. FGP-Only, CODA and FGP-Only with Eq. 1's affinity scheduling (`scheduling.policy = \"affinity\"`) again with it, every benchmark, nothing else changed:\n\n| benchmark | CODA over FGP-Only, linear | xor | FGP-Only + affinity over FGP-Only, xor | FGP-Only L2 hit rate, linear | xor | CODA L2 hit rate, linear | xor |\n|---|---|---|---|---|---|---|---|"
    )?;
    let mut xor_rows: Vec<(String, f64, f64)> = Vec::new();
    // FGP-Only + affinity scheduling over FGP-Only, both hashed (same rows)
    let mut aff_rows: Vec<f64> = Vec::new();
    for b in &names {
        let (a, x) = (sp(b, "fgp", "coda"), sp(b, "fgp-l2xor", "coda-l2xor"));
        if !a.is_finite() || !x.is_finite() {
            continue;
        }
        let hit = |k: &str| {
            led.pct(
                val(&format!("{b}-{k}"), "l2_hit_rate"),
                &format!("{b}-{k} l2_hit_rate"),
            )
        };
        let aff = sp(b, "fgp-l2xor", "fgp-aff-l2xor");
        writeln!(
            secx,
            "| {b} | {} | {} | {} | {} | {} | {} | {} |",
            led.x(a, &format!("{b} coda")),
            led.x(x, &format!("{b} coda-l2xor over fgp-l2xor")),
            led.x(aff, &format!("{b} fgp-aff-l2xor over fgp-l2xor")),
            hit("fgp"),
            hit("fgp-l2xor"),
            hit("coda"),
            hit("coda-l2xor"),
        )?;
        xor_rows.push((b.clone(), a, x));
        aff_rows.push(aff);
    }
    if !xor_rows.is_empty() {
        let a: Vec<f64> = xor_rows.iter().map(|r| r.1).collect();
        let x: Vec<f64> = xor_rows.iter().map(|r| r.2).collect();
        let moved = xor_rows
            .iter()
            .max_by(|p, q| (p.2 - p.1).abs().total_cmp(&(q.2 - q.1).abs()))
            .expect("rows");
        writeln!(
            secx,
            "\nCODA over FGP-Only, arithmetic mean over the {} benchmarks with all four runs: linear {}, xor {} ({} points); geometric: linear {}, xor {}. The largest move: {} ({} linear, {} xor).",
            led.int(xor_rows.len() as u64, "benchmarks with l2xor runs"),
            led.gain(mean(&a), "mean coda rows (l2xor table)"),
            led.gain(mean(&x), "mean coda-l2xor rows"),
            led.f(100.0 * (mean(&x) - mean(&a)), 1, "l2xor - linear mean, points"),
            led.gain(geomean(&a), "geomean coda rows (l2xor table)"),
            led.gain(geomean(&x), "geomean coda-l2xor rows"),
            moved.0,
            led.x(moved.1, &format!("{} coda (largest l2xor move)", moved.0)),
            led.x(moved.2, &format!("{} coda-l2xor (largest l2xor move)", moved.0)),
        )?;
        // where hashed CODA's gain is mostly Eq. 1's schedule: affinity alone, on FGP-Only's
        // placement, reaches within TOL of it
        let sched: Vec<String> = xor_rows
            .iter()
            .zip(&aff_rows)
            .filter(|(r, &f)| r.2 > 1.0 + TOL && f.is_finite() && (f - r.2).abs() <= TOL * r.2)
            .map(|(r, &f)| {
                format!(
                    "{} (CODA {}, FGP-Only + affinity {})",
                    r.0,
                    led.x(r.2, &format!("{} coda-l2xor over fgp-l2xor", r.0)),
                    led.x(f, &format!("{} fgp-aff-l2xor over fgp-l2xor", r.0))
                )
            })
            .collect();
        if !sched.is_empty() {
            writeln!(
                secx,
                "\nWith the hashed index, affinity scheduling alone on FGP-Only's placement comes within {} of CODA's speedup (both over FGP-Only, CODA's above {}) on: {}; there CODA's gain is its Eq. 1 schedule, not its placement.",
                led.pct(TOL, "declared tolerance"),
                led.x(1.0 + TOL, "1 + declared tolerance"),
                sched.join(", ")
            )?;
        }
    }

    // ---- headline table
    let verdicts: Vec<_> = claims.iter().map(|c| c.evaluate(&runs)).collect();
    let head = led.headline(
        "Each rule below (metric and mean in the result's name, tolerance in the rule) was declared in code with the experiment before any run (`claims` in crates/cli/src/repro/coda.rs) and is never chosen by outcome; `inputs` counts the benchmarks (or runs) with data.",
        &verdicts,
    );
    std::fs::write(out.join("headline.csv"), experiment::verdict_csv(&verdicts))?;

    // ---- disagreements with the paper, each with a measured reason or "unexplained"
    let mut dis = String::new();
    writeln!(
        dis,
        "\n### Where Locus and the paper disagree (direction, or more than {} apart), and the measured reason\n",
        led.pct(TOL, "declared tolerance")
    )?;
    let mut n_dis = 0;
    let be_access = mean(
        &benches
            .iter()
            .filter(|b| b.1 == "BE")
            .filter_map(|(b, _)| {
                get(format!("sharing-{b}"))
                    .and_then(|r| r.sharing.as_ref().map(|s| s.access_frac_one_gpu))
            })
            .collect::<Vec<_>>(),
    );
    for (c, v) in claims.iter().zip(&verdicts) {
        let Some(p) = c.paper else { continue };
        if !v.ours.is_finite() {
            continue;
        }
        let dir_differs = (p - 1.0) * (v.ours - 1.0) < 0.0
            && matches!(c.unit, experiment::Unit::Gain | experiment::Unit::Times);
        if (v.ours - p).abs() <= TOL && !dir_differs {
            continue;
        }
        n_dis += 1;
        let mut reason = String::from("unexplained");
        if v.name.starts_with("block-exclusive") && be_access < 1.0 - TOL {
            reason = format!(
                "measured: only {} of the BE benchmarks' line accesses go to pages of one GPU (sharing analysis, mean), so placement alone cannot localise the rest",
                led.pct(be_access, "mean BE access_frac_one_gpu")
            );
        }
        if v.name.starts_with("migration") {
            let mig: Vec<f64> = benches
                .iter()
                .map(|(b, _)| {
                    let (n, cyc) = (
                        val(&format!("{b}-mig"), "migrations"),
                        val(&format!("{b}-fgp"), "cycles"),
                    );
                    n * base_cfg.placement.migration_cycles as f64
                        / (cyc * (sys.nodes * sys.sms_per_node) as f64)
                })
                .collect();
            let share = mean(&mig);
            if share > TOL {
                reason = format!(
                    "measured: migrations x `placement.migration_cycles` ({} cycles each) amount to {} of the FGP-Only run time of all SMs (mean over benchmarks)",
                    led.int(base_cfg.placement.migration_cycles as u64, "config placement.migration_cycles"),
                    led.pct(share, "migration fault share")
                );
            }
        }
        if reason == "unexplained" {
            if let Some(o) = c.carried_by(&runs) {
                reason = experiment::carried_reason(&o, c, &runs, &led, &names);
            }
        }
        writeln!(
            dis,
            "- {}: paper {}, Locus {}. Reason: {reason}.",
            v.name, v.paper_text, v.ours_text
        )?;
    }
    // per benchmark: CODA slower than FGP-Only (paper: CODA >= FGP-Only almost everywhere)
    for (b, _) in &benches {
        let s = sp(b, "fgp", "coda");
        if !s.is_finite() || s >= 1.0 - TOL {
            continue;
        }
        n_dis += 1;
        let mut why = Vec::new();
        let bal = sp(b, "fgp", "coda-bal");
        if bal.is_finite() && bal > s * (1.0 + TOL) {
            why.push(format!(
                "Eq. 1 load imbalance: the busiest GPU issues {} the mean warp instructions, and the balanced variant runs it at {}",
                led.x(imbalance(&format!("{b}-coda")), &format!("{b}-coda nodes")),
                led.x(bal, &format!("{b} coda-bal"))
            ));
        }
        let aff = sp(b, "fgp", "fgp-aff");
        if aff < 1.0 - TOL {
            why.push(format!(
                "affinity scheduling alone gives {}",
                led.x(aff, &format!("{b} fgp-aff"))
            ));
        }
        let (wc, wf) = (
            val(&format!("{b}-coda"), "sim.total.counters.warp_insts"),
            val(&format!("{b}-fgp"), "sim.total.counters.warp_insts"),
        );
        if wf > 0.0 && wc > wf * (1.0 + TOL) {
            // (a rule written in session 37, after the runs were seen)
            why.push(format!(
                "CODA's run executes {} FGP-Only's warp instructions ({} kernels against {}: an iterative algorithm stops when its data settle, and the order in which its blocks update shared data is the scheduler's)",
                led.x(wc / wf, &format!("{b} coda/fgp warp_insts")),
                led.int(kernel_count(&runs, &format!("{b}-coda")).unwrap_or(0), &format!("{b}-coda kernels")),
                led.int(kernel_count(&runs, &format!("{b}-fgp")).unwrap_or(0), &format!("{b}-fgp kernels"))
            ));
        }
        let r = red(b, "fgp", "coda");
        if r < TOL {
            why.push(format!(
                "remote accesses fall by only {}",
                led.pct(r, &format!("{b} reduction"))
            ));
        }
        writeln!(
            dis,
            "- {b}: CODA {} of FGP-Only (paper: CODA at least as fast on almost every benchmark). Reason: {}.",
            led.x(s, &format!("{b} coda")),
            if why.is_empty() {
                "unexplained".to_string()
            } else {
                format!("measured: {}", why.join("; "))
            }
        )?;
    }
    // Fig. 15: affinity alone moves a benchmark other than SAD
    for (b, _) in benches.iter().filter(|b| b.0 != "sad") {
        let s = sp(b, "fgp", "fgp-aff");
        if !s.is_finite() || (s - 1.0).abs() <= TOL {
            continue;
        }
        n_dis += 1;
        let (hf, ha) = (
            val(&format!("{b}-fgp"), "l2_hit_rate"),
            val(&format!("{b}-fgp-aff"), "l2_hit_rate"),
        );
        let (ia, ifg) = (
            imbalance(&format!("{b}-fgp-aff")),
            imbalance(&format!("{b}-fgp")),
        );
        let mut why = Vec::new();
        if (ha - hf).abs() > TOL / 2.0 {
            why.push(format!(
                "the L2 hit rate moves from {} to {} (blocks that share lines run on one GPU, or no longer do)",
                led.pct(hf, &format!("{b}-fgp l2_hit_rate")),
                led.pct(ha, &format!("{b}-fgp-aff l2_hit_rate"))
            ));
        }
        if ia > ifg * (1.0 + TOL) {
            why.push(format!(
                "the busiest GPU issues {} the mean warp instructions ({} under FRR)",
                led.x(ia, &format!("{b}-fgp-aff nodes")),
                led.x(ifg, &format!("{b}-fgp nodes"))
            ));
        }
        writeln!(
            dis,
            "- {b}: FGP-Only + affinity {} (paper: only SAD changes). Reason: {}.",
            led.x(s, &format!("{b} fgp-aff")),
            if why.is_empty() {
                "unexplained".to_string()
            } else {
                format!("measured: {}", why.join("; "))
            }
        )?;
    }
    // Fig. 10: remote accesses not reduced significantly in a benchmark other than GE
    for (b, _) in benches.iter().filter(|b| b.0 != "ge") {
        let r = red(b, "fgp", "coda");
        if !r.is_finite() || r > TOL {
            continue;
        }
        n_dis += 1;
        let share = fgp_page_share(&format!("{b}-coda"));
        let (rc, rg) = (
            val(&format!("{b}-coda"), "remote"),
            val(&format!("{b}-cgp"), "remote"),
        );
        let like_cgp = rg > 0.0 && ((rc - rg) / rg).abs() <= TOL;
        let why = if like_cgp && share <= 0.5 {
            format!(
                "measured: CODA's remote accesses are within {} of CGP-Only's ({} of its pages are CGP): the paper's one-page chunks (Eq. 2's min with the page) round-robin an object's pages over GPUs as CGP-Only does",
                led.pct(((rc - rg) / rg).abs(), &format!("{b} coda vs cgp remote")),
                led.pct(1.0 - share, &format!("{b}-coda pages_cgp"))
            )
        } else if share > 0.5 {
            format!(
                "measured: {} of the pages CODA mapped stayed FGP (shared, irregular or too small by its analysis)",
                led.pct(share, &format!("{b}-coda pages_fgp"))
            )
        } else if let Some(why) = page_chunk_reason(&runs, &led, b, sys.nodes, sys.page_bytes) {
            why
        } else if share.is_finite() {
            format!(
                "unexplained ({} of its pages are CGP, yet their accesses stay remote)",
                led.pct(1.0 - share, &format!("{b}-coda pages_cgp"))
            )
        } else {
            "unexplained".into()
        };
        writeln!(
            dis,
            "- {b}: remote accesses fall by {} (paper: significantly in every benchmark but GE). Reason: {why}.",
            led.pct(r, &format!("{b} reduction"))
        )?;
    }
    for (b, paper, ours, fb, fg) in &cat_differs {
        n_dis += 1;
        writeln!(
            dis,
            "- {b}: measured category {ours}, paper {paper}. Reason: measured page fractions, one TB {} and one GPU {}, under the classification rules of spec §5.",
            led.pct(*fb, &format!("sharing-{b}")),
            led.pct(*fg, &format!("sharing-{b}"))
        )?;
    }
    if n_dis == 0 {
        writeln!(dis, "- none")?;
    }

    // ---- measured context: conditional sentences only
    let mut ctx = String::new();
    let fgp_util = mean(
        &benches
            .iter()
            .map(|(b, _)| val(&format!("{b}-fgp"), "max_remote_link_util"))
            .collect::<Vec<_>>(),
    );
    let gm_c = geomean(&col("coda"));
    let am_c = mean(&col("coda"));
    writeln!(ctx, "\n### Measured context\n")?;
    if fgp_util > 0.5 {
        writeln!(
            ctx,
            "- The busiest hub port of an FGP-Only run is {} utilised (mean over benchmarks): FGP-Only is bound by the remote network here.",
            led.pct(fgp_util, "mean fgp max_remote_link_util")
        )?;
    }
    if let Some(c) = led.cmp(
        am_c,
        gm_c,
        &format!(
            "CODA's arithmetic-mean speedup ({})",
            led.x(am_c, "mean coda")
        ),
        &format!("its geometric mean ({})", led.x(gm_c, "geomean coda")),
    ) {
        let top = benches
            .iter()
            .map(|(b, _)| (sp(b, "fgp", "coda"), *b))
            .filter(|x| x.0.is_finite())
            .fold((f64::NAN, ""), |a, x| {
                if a.0.is_nan() || x.0 > a.0 {
                    x
                } else {
                    a
                }
            });
        writeln!(
            ctx,
            "- {c}; the largest single speedup is {} ({}).",
            top.1,
            led.x(top.0, &format!("{} coda", top.1))
        )?;
    }

    let report = format!(
        "{}\n{head}{dis}{ctx}\n{}{sec5}{sec9}{sec10}{sec11}{sec12}{sec14}{sec13}{secb}{secx}",
        md.lines().take(2).collect::<Vec<_>>().join("\n"),
        md.lines().skip(2).collect::<Vec<_>>().join("\n") + "\n",
    );
    let path = out.join("report.md");
    std::fs::write(&path, &report).with_context(|| format!("cannot write {}", path.display()))?;
    std::fs::write(out.join("numbers.txt"), led.numbers_txt())?;
    std::fs::write(out.join("checks.txt"), led.checks_txt())?;
    let problems = super::audit::audit(&report, &led.numbers_txt(), &led.checks_txt());
    if !problems.is_empty() {
        anyhow::bail!(
            "the report fails its audit (a number or claim its data do not support):\n  {}",
            problems.join("\n  ")
        );
    }
    if !quiet {
        println!("{head}{dis}");
        println!("report: {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn mixes_draw_each_category_without_replacement() {
        let m = mixes(false);
        assert_eq!(m.len(), 4);
        for slot in 0..m[0].len() {
            let mut seen: Vec<&str> = m.iter().map(|x| x[slot]).collect();
            let n = seen.len();
            seen.sort_unstable();
            seen.dedup();
            let cat_size = BENCHES
                .iter()
                .filter(|b| {
                    let c = BENCHES.iter().find(|x| x.0 == m[0][slot]).unwrap().1;
                    let maj = |k: &str| k == "BM" || k == "CM";
                    b.1 == c || (maj(b.1) && maj(c))
                })
                .count();
            assert_eq!(seen.len(), n.min(cat_size), "slot {slot}: {m:?}");
        }
    }

    /// A run whose objects are given as (placement, local, remote) and kernels as a count.
    fn run_with(key: &str, objs: &[(Option<&str>, u64, u64)], kernels: usize) -> RunResult {
        let objects: Vec<serde_json::Value> = objs
            .iter()
            .map(|(p, l, r)| {
                serde_json::json!({"placement": p, "local_accesses": l, "remote_accesses": r})
            })
            .collect();
        RunResult {
            key: key.into(),
            sim: Some(serde_json::json!({"objects": objects, "kernels": vec![0; kernels]})),
            ..Default::default()
        }
    }

    /// Fig. 10's one-page-chunk reason: only objects placed CGP in chunks of at most a page
    /// count (an FGP object and a wider chunk are left out, access-weighted); the reason is
    /// given when their remote share is within `TOL` of 1 - 1/nodes and not otherwise, and
    /// names a kernel count that differs from FGP-Only's.
    #[test]
    fn page_chunk_reason_reads_the_page_chunked_objects() {
        let mut m = BTreeMap::new();
        let objs = [
            (Some("cgp span 4096 B"), 30, 90),
            (Some("cgp span 4096 B"), 20, 60),
            (Some("fgp"), 0, 1000),
            (Some("cgp span 65536 B"), 1000, 0),
            (None, 0, 500),
        ];
        m.insert("x-coda".to_string(), run_with("x-coda", &objs, 41));
        m.insert("x-fgp".to_string(), run_with("x-fgp", &[], 33));
        let local = [(Some("cgp span 4096 B"), 90, 30)];
        m.insert("y-coda".to_string(), run_with("y-coda", &local, 5));
        m.insert("y-fgp".to_string(), run_with("y-fgp", &[], 5));
        let runs = experiment::Runs::new(&m);
        assert_eq!(page_chunked_remote(&runs, "x-coda", 4096), Some((0.75, 2)));
        assert_eq!(page_chunked_remote(&runs, "y-coda", 4096), Some((0.25, 1)));
        assert_eq!(page_chunked_remote(&runs, "y-coda", 2048), None);
        let led = super::super::ledger::Ledger::default();
        let why = page_chunk_reason(&runs, &led, "x", 4, 4096).unwrap();
        assert!(
            why.contains("75.0%") && why.contains("41 kernels against FGP-Only's 33"),
            "{why}"
        );
        assert!(page_chunk_reason(&runs, &led, "y", 4, 4096).is_none());
        // two GPUs: chance is 50 %, 0.75 is more than TOL away
        assert!(page_chunk_reason(&runs, &led, "x", 2, 4096).is_none());
    }

    #[test]
    fn committed_report_passes_its_audit() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let report = std::fs::read_to_string(root.join("docs/repro-coda-report.md")).unwrap();
        let nums = std::fs::read_to_string(root.join("docs/figures/coda-numbers.txt")).unwrap();
        let checks = std::fs::read_to_string(root.join("docs/figures/coda-checks.txt")).unwrap();
        let p = super::super::audit::audit(&report, &nums, &checks);
        assert!(p.is_empty(), "{}", p.join("\n"));
    }
}
