//! `locus repro coda`: the evaluation of CODA (Kim et al., TACO 2018; spec coda.md §6):
//! Fig. 5 (page sharing), Fig. 9 (speedup of CGP-Only, CGP-Only + FTA and CODA over
//! FGP-Only), Fig. 10 (local/remote accesses), Fig. 11 (remote bandwidth), Fig. 12 (PageRank
//! on graphs of rising irregularity), Fig. 14 (centralized GPU, 128 B vs 4 KB), Fig. 15
//! (affinity alone) and the migration-based first touch, each with the paper's number
//! beside ours. Parameters are the presets' (Table 1) for every benchmark: nothing is tuned
//! per benchmark.

use super::experiment::{self, Claim};
use super::{execute, RunResult, RunSpec};
use crate::plot;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
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
    ("fgp-aff", "coda-4gpu", &["scheduling.policy=affinity"]),
    ("fgp-32", "coda-4gpu", &["interconnect.link_gbps=32"]),
    ("coda-32", "coda-4gpu-coda", &["interconnect.link_gbps=32"]),
    ("fgp-64", "coda-4gpu", &["interconnect.link_gbps=64"]),
    ("coda-64", "coda-4gpu-coda", &["interconnect.link_gbps=64"]),
    (
        "central-fgp",
        "single-gpu",
        &[
            "memory.stacks_per_node=4",
            "memory.stack_interleave_bytes=128",
        ],
    ),
    (
        "central-cgp",
        "single-gpu",
        &[
            "memory.stacks_per_node=4",
            "memory.stack_interleave_bytes=4096",
        ],
    ),
];

/// Fig. 12 graphs: (label, CV of edges per block) as spec §5 suggests.
const PR_GRAPHS: &[(&str, &str)] = &[
    ("cv0.05", "0.05"),
    ("cv0.3", "0.3"),
    ("cv1", "1.0"),
    ("cv3", "3.0"),
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
    }
}

/// Fig. 13 mixes: one benchmark from each of four categories (block-exclusive,
/// core-exclusive, majority = block- or core-majority, sharing), drawn with a fixed seed
/// (spec A18).
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
    let cats = [
        pick(&["BE"]),
        pick(&["CE"]),
        pick(&["BM", "CM"]),
        pick(&["Sharing"]),
    ];
    let mut rng = locus_workload::gen::rng::Rng::new(13);
    let n = if quick { 1 } else { 4 };
    (0..n)
        .map(|_| {
            cats.iter()
                .filter(|c| !c.is_empty())
                .map(|c| c[rng.below(c.len() as u64) as usize])
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
                && (ck.ends_with("-32") || ck.starts_with("central"))
                && !["bfs", "km", "nn"].contains(b)
            {
                continue;
            }
            specs.push(spec(format!("{b}-{ck}"), b, p.clone(), preset, sets));
        }
    }
    if available("pr") {
        for (g, cv) in PR_GRAPHS {
            let mut p = vec![
                ("graph".to_string(), "regular".to_string()),
                ("cv".to_string(), cv.to_string()),
                ("run".to_string(), "1024".to_string()),
                ("local".to_string(), "1".to_string()),
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
    (specs, benches)
}

/// The headline claims of spec §6 with their verdict rules, declared from the plan alone,
/// before any run (issue 7 §6, issue 13): every rule is "within 10 percentage points of the
/// paper" on a ratio, except the two directional claims (SAD slower with affinity alone;
/// node-local CGP faster than FGP-Only in every multiprogrammed mix).
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
    let reductions: Vec<Q> = benches
        .iter()
        .map(|(b, _)| {
            Q::Reduction(
                Box::new(Q::run(format!("{b}-coda"), "remote")),
                Box::new(Q::run(format!("{b}-fgp"), "remote")),
            )
        })
        .collect();
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
            "CODA remote-access reduction (mean over benchmarks)",
            "-38%",
            0.38,
            Q::Mean(M::Arithmetic, reductions),
            Unit::Fall,
        ),
        within(
            "block-exclusive speedup",
            "1.56x",
            1.56,
            Q::Mean(M::Arithmetic, speedups("fgp", "coda", Some("BE"))),
            Unit::Times,
        ),
        within(
            "core-exclusive speedup",
            "1.13x",
            1.13,
            Q::Mean(M::Arithmetic, speedups("fgp", "coda", Some("CE"))),
            Unit::Times,
        ),
        within(
            "CGP-Only vs FGP-Only",
            "about 1.0x",
            1.0,
            Q::Mean(M::Arithmetic, speedups("fgp", "cgp", None)),
            Unit::Times,
        ),
        within(
            "CGP-Only + ideal first touch",
            "+19%",
            1.19,
            Q::Mean(M::Arithmetic, speedups("fgp", "fta", None)),
            Unit::Gain,
        ),
        within(
            "migration-based first touch",
            "+7%",
            1.07,
            Q::Mean(M::Arithmetic, speedups("fgp", "mig", None)),
            Unit::Gain,
        ),
        within(
            "FGP-Only remote fraction",
            "about 75%",
            0.75,
            Q::Mean(M::Arithmetic, fgp_remote),
            Unit::Percent,
        ),
        within(
            "CODA gain at 256 GB/s aggregate",
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
            "centralized GPU, FGP over CGP (geometric mean)",
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
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn geomean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
    }
}

/// Run the reproduction into `out`.
pub fn run(out: &Path, quick: bool, jobs: usize, quiet: bool) -> Result<()> {
    let (specs, benches) = plan(quick);
    let claims = claims(&benches, mixes(quick).len());
    let reused = specs
        .iter()
        .filter(|s| out.join("runs").join(format!("{}.json", s.key)).exists())
        .count();
    let t0 = std::time::Instant::now();
    let res = execute(&specs, out, jobs, quiet)?;
    let secs = t0.elapsed().as_secs_f64();
    let get = |k: String| -> Option<&RunResult> { res.get(&k) };
    let speedup = |b: &str, base: &str, x: &str| -> Option<f64> {
        let a = get(format!("{b}-{base}"))?;
        let c = get(format!("{b}-{x}"))?;
        (c.cycles > 0).then(|| a.cycles as f64 / c.cycles as f64)
    };
    let names: Vec<String> = benches.iter().map(|b| b.0.to_string()).collect();
    let mut md = String::new();
    let mut csv = String::from(
        "bench,category,cgp,fta,mig,coda,fgp_aff,remote_fgp,remote_coda,remote_reduction\n",
    );
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
        "Locus `repro coda`, {} runs ({reused} reused from an earlier invocation) in {:.0} s on {} worker(s). Machine: presets `coda-4gpu` (Table 1: 4 GPUs x 4 SMs at 2 GHz, 32 KB L1, 1 MB L2 per GPU, 8 HBM2 channels = 256 GB/s per GPU, 16 GB/s per GPU port into the hub) and `coda-4gpu-coda`. The same parameters for every benchmark. Speedups are FGP-Only cycles / configuration cycles.\n",
        specs.len(),
        secs,
        jobs
    )?;

    // ---- Fig. 5: sharing
    writeln!(md, "## Fig. 5 and Table 2: page sharing and categories\n")?;
    writeln!(md, "| benchmark | paper category | measured | pages 1 TB | pages 1 GPU | accesses to 1-GPU pages |\n|---|---|---|---|---|---|")?;
    let mut match_count = 0;
    let mut fig5 = String::from("bench,1,2,3-4,5-8,9-16,17-64,>64\n");
    for (b, cat) in &benches {
        let Some(s) = get(format!("sharing-{b}")).and_then(|r| r.sharing.clone()) else {
            continue;
        };
        let short = match s.category.as_str() {
            "block-exclusive" => "BE",
            "core-exclusive" => "CE",
            "block-majority" => "BM",
            "core-majority" => "CM",
            _ => "Sharing",
        };
        if short == *cat {
            match_count += 1;
        }
        writeln!(
            md,
            "| {b} | {cat} | {short}{} | {:.1}% | {:.1}% | {:.1}% |",
            if short == *cat { "" } else { " (differs)" },
            100.0 * s.frac_one_block,
            100.0 * s.frac_one_gpu,
            100.0 * s.access_frac_one_gpu
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
        md,
        "\n{match_count} of {} benchmarks land in the paper's category (issue target: 16 of 20).\n",
        benches.len()
    )?;
    std::fs::write(out.join("fig5_sharing.csv"), &fig5)?;
    {
        let mut parts: Vec<(String, Vec<f64>)> = locus_workload::sharing::BUCKETS
            .iter()
            .map(|(n, _, _)| (format!("{n} TBs"), Vec::new()))
            .collect();
        for (b, _) in &benches {
            if let Some(s) = get(format!("sharing-{b}")).and_then(|r| r.sharing.clone()) {
                for (i, p) in parts.iter_mut().enumerate() {
                    p.1.push(s.by_blocks[i] as f64 / s.pages.max(1) as f64);
                }
            } else {
                for p in parts.iter_mut() {
                    p.1.push(f64::NAN);
                }
            }
        }
        plot::stacked_bars(
            &out.join("fig5_sharing"),
            "Fig. 5: pages by number of thread blocks",
            "fraction of pages",
            &names,
            &parts,
        )?;
    }

    // ---- Fig. 9 and 10
    let cols = ["cgp", "fta", "mig", "coda", "fgp-aff"];
    let mut series: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut by_cat: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut red_by_cat: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut remote_fgp_all = Vec::new();
    let (mut rem_fgp_sum, mut rem_coda_sum) = (0u64, 0u64);
    writeln!(
        md,
        "## Fig. 9: speedup over FGP-Only (and Fig. 15: FGP-Only + affinity)\n"
    )?;
    writeln!(md, "| benchmark | cat | CGP-Only | CGP+FTA | migration | CODA | FGP+affinity |\n|---|---|---|---|---|---|---|")?;
    for (b, cat) in &benches {
        let row: Vec<f64> = cols
            .iter()
            .map(|c| speedup(b, "fgp", c).unwrap_or(f64::NAN))
            .collect();
        for (c, v) in cols.iter().zip(&row) {
            series.entry(c).or_default().push(*v);
        }
        if row[3].is_finite() {
            by_cat.entry(cat).or_default().push(row[3]);
        }
        let (rf, rc) = match (get(format!("{b}-fgp")), get(format!("{b}-coda"))) {
            (Some(f), Some(c)) => (f.remote, c.remote),
            _ => (0, 0),
        };
        let red = if rf == 0 {
            f64::NAN
        } else {
            1.0 - rc as f64 / rf as f64
        };
        if red.is_finite() {
            red_by_cat.entry(cat).or_default().push(red);
        }
        rem_fgp_sum += rf;
        rem_coda_sum += rc;
        if let Some(f) = get(format!("{b}-fgp")) {
            remote_fgp_all.push(f.remote_fraction);
        }
        writeln!(
            md,
            "| {b} | {cat} | {} |",
            row.iter()
                .map(|v| format!("{v:.2}"))
                .collect::<Vec<_>>()
                .join(" | ")
        )?;
        let rfrac = |k: &str| {
            get(format!("{b}-{k}"))
                .map(|r| r.remote_fraction)
                .unwrap_or(f64::NAN)
        };
        let _ = writeln!(
            csv,
            "{b},{cat},{},{:.4},{:.4},{red:.4}",
            row.iter()
                .map(|v| format!("{v:.4}"))
                .collect::<Vec<_>>()
                .join(","),
            rfrac("fgp"),
            rfrac("coda")
        );
    }
    std::fs::write(out.join("fig9_fig10_fig15.csv"), &csv)?;
    let fin = |v: &[f64]| -> Vec<f64> { v.iter().copied().filter(|x| x.is_finite()).collect() };
    let am = |c: &str| mean(&fin(series.get(c).map(|v| v.as_slice()).unwrap_or(&[])));
    let gm = |c: &str| geomean(&fin(series.get(c).map(|v| v.as_slice()).unwrap_or(&[])));
    writeln!(md, "\n| mean | arithmetic | geometric |\n|---|---|---|")?;
    for (c, label) in [
        ("cgp", "CGP-Only"),
        ("fta", "CGP-Only + FTA"),
        ("mig", "migration first touch"),
        ("coda", "CODA"),
        ("fgp-aff", "FGP + affinity"),
    ] {
        writeln!(md, "| {label} | {:.3} | {:.3} |", am(c), gm(c))?;
    }
    plot::grouped_bars(
        &out.join("fig9_speedup"),
        "Fig. 9: speedup over FGP-Only",
        "speedup",
        &names,
        &[
            ("CGP-Only".into(), series["cgp"].clone()),
            ("CGP-Only+FTA".into(), series["fta"].clone()),
            ("CODA".into(), series["coda"].clone()),
        ],
        Some(1.0),
    )?;
    plot::grouped_bars(
        &out.join("fig15_affinity"),
        "Fig. 15: FGP-Only + affinity scheduling",
        "speedup over FGP-Only",
        &names,
        &[("FGP+affinity".into(), series["fgp-aff"].clone())],
        Some(1.0),
    )?;

    writeln!(
        md,
        "\n## Fig. 10: local and remote memory accesses (L2 misses and write-backs, spec A8)\n"
    )?;
    writeln!(
        md,
        "| category | remote reduction (ours) | paper |\n|---|---|---|"
    )?;
    for (cat, paper) in [
        ("BE", "-47%"),
        ("CE", "-34%"),
        ("Sharing", "-32%"),
        ("BM", "-"),
        ("CM", "-"),
    ] {
        if let Some(v) = red_by_cat.get(cat) {
            writeln!(md, "| {cat} | -{:.0}% | {paper} |", 100.0 * mean(v))?;
        }
    }
    let overall_red = if rem_fgp_sum == 0 {
        f64::NAN
    } else {
        1.0 - rem_coda_sum as f64 / rem_fgp_sum as f64
    };
    writeln!(
        md,
        "\nFGP-Only remote fraction: mean {:.1}% (paper: about 75% = (N-1)/N on every benchmark).",
        100.0 * mean(&remote_fgp_all)
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
            "Fig. 10: memory accesses normalised to FGP-Only",
            "accesses / FGP-Only total",
            &names,
            &[
                ("FGP local".into(), loc_f),
                ("FGP remote".into(), rem_f),
                ("CODA local".into(), loc_c),
                ("CODA remote".into(), rem_c),
            ],
            None,
        )?;
    }

    // ---- Fig. 11
    writeln!(
        md,
        "\n## Fig. 11: CODA speedup over FGP-Only versus aggregate remote bandwidth\n"
    )?;
    writeln!(
        md,
        "| aggregate remote bandwidth | CODA mean speedup (ours) | paper |\n|---|---|---|"
    )?;
    let mut f11 = Vec::new();
    for (sfx, agg, paper) in [
        (
            "",
            64.0,
            "+37.4% (likely the per-category mean; +31% per benchmark)",
        ),
        ("-32", 128.0, "+15.2%"),
        ("-64", 256.0, "+8% (up to +23%)"),
    ] {
        let v: Vec<f64> = benches
            .iter()
            .filter_map(|(b, _)| speedup(b, &format!("fgp{sfx}"), &format!("coda{sfx}")))
            .collect();
        let m = mean(&v);
        f11.push(m);
        writeln!(
            md,
            "| {agg} GB/s | {:+.1}% ({} benchmarks) | {paper} |",
            100.0 * (m - 1.0),
            v.len()
        )?;
    }
    plot::lines(
        &out.join("fig11_remote_bw"),
        "Fig. 11: CODA speedup vs remote bandwidth",
        "aggregate remote bandwidth (GB/s)",
        "mean speedup over FGP-Only",
        &[64.0, 128.0, 256.0],
        &[("CODA".into(), f11.clone())],
    )?;

    // ---- Fig. 12
    writeln!(
        md,
        "\n## Fig. 12: PageRank on graphs of rising irregularity\n"
    )?;
    writeln!(md, "| graph (CV of edges per block) | CODA speedup | remote fraction FGP / CODA |\n|---|---|---|")?;
    let mut f12 = Vec::new();
    for (g, cv) in PR_GRAPHS {
        let s = speedup(&format!("pr-{g}"), "fgp", "coda").unwrap_or(f64::NAN);
        f12.push(s);
        let rf = get(format!("pr-{g}-fgp"))
            .map(|r| r.remote_fraction)
            .unwrap_or(f64::NAN);
        let rc = get(format!("pr-{g}-coda"))
            .map(|r| r.remote_fraction)
            .unwrap_or(f64::NAN);
        writeln!(
            md,
            "| regular, CV {cv} | {s:.2} | {:.0}% / {:.0}% |",
            100.0 * rf,
            100.0 * rc
        )?;
    }
    writeln!(
        md,
        "\nPaper: regular graphs +55%, irregular +5%, CODA never below FGP-Only."
    )?;
    plot::grouped_bars(
        &out.join("fig12_pagerank"),
        "Fig. 12: PageRank, CODA over FGP-Only",
        "speedup",
        &PR_GRAPHS
            .iter()
            .map(|g| g.0.to_string())
            .collect::<Vec<_>>(),
        &[("CODA".into(), f12.clone())],
        Some(1.0),
    )?;

    // ---- Fig. 14
    writeln!(
        md,
        "\n## Fig. 14: centralized 16-SM GPU, 128 B versus 4 KB interleaving across 4 stacks\n"
    )?;
    let f14: Vec<f64> = benches
        .iter()
        .map(|(b, _)| speedup(b, "central-cgp", "central-fgp").unwrap_or(f64::NAN))
        .collect();
    let f14m = geomean(&fin(&f14));
    writeln!(md, "FGP over CGP: geometric mean {f14m:.2}x, arithmetic {:.2}x over {} benchmarks (paper: 1.48x).", mean(&fin(&f14)), fin(&f14).len())?;
    plot::grouped_bars(
        &out.join("fig14_centralized"),
        "Fig. 14: centralized GPU, FGP (128 B) over CGP (4 KB)",
        "speedup",
        &names,
        &[("FGP over CGP".into(), f14.clone())],
        Some(1.0),
    )?;

    // ---- Fig. 13
    writeln!(md, "\n## Fig. 13: multiprogrammed mixes, one application per GPU, node-local CGP over FGP-Only\n")?;
    writeln!(
        md,
        "| mix | applications | per-application speedup | mean |\n|---|---|---|---|"
    )?;
    let mut f13 = Vec::new();
    let mut m = 0;
    while let (Some(f), Some(c)) = (get(format!("mix{m}-fgp")), get(format!("mix{m}-cgp"))) {
        let sp: Vec<f64> = f
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
        let names: Vec<String> = f.app_finish.iter().map(|a| a.0.clone()).collect();
        let mean_sp = mean(&sp);
        f13.push(mean_sp);
        writeln!(
            md,
            "| {m} | {} | {} | {mean_sp:.2} |",
            names.join(", "),
            sp.iter()
                .map(|x| format!("{x:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        m += 1;
    }
    writeln!(
        md,
        "\nPaper: CGP-Only (node-local) beats FGP-Only in all four mixes."
    )?;
    if !f13.is_empty() {
        plot::grouped_bars(
            &out.join("fig13_multiprogrammed"),
            "Fig. 13: node-local CGP over FGP-Only, per mix",
            "mean per-application speedup",
            &(0..f13.len())
                .map(|i| format!("mix{i}"))
                .collect::<Vec<_>>(),
            &[("CGP (node-local)".into(), f13.clone())],
            Some(1.0),
        )?;
    }

    // ---- headline table
    let mut head = String::new();
    writeln!(head, "## Headline results: paper versus Locus\n")?;
    writeln!(
        head,
        "Each rule below was declared in code with the experiment before any run (`claims` in crates/cli/src/repro/coda.rs); `inputs` counts the benchmarks (or runs) with data.\n"
    )?;
    let runs = experiment::Runs::new(&res);
    let verdicts: Vec<_> = claims.iter().map(|c| c.evaluate(&runs)).collect();
    head += &experiment::verdict_table(&verdicts);
    std::fs::write(out.join("headline.csv"), experiment::verdict_csv(&verdicts))?;
    writeln!(
        head,
        "\nFor reference (no verdict): remote accesses of all benchmarks together fall by {:.0}%; CODA's arithmetic-mean speedup by category is BE {:.2}x, CE {:.2}x.",
        100.0 * overall_red,
        by_cat.get("BE").map(|v| mean(v)).unwrap_or(f64::NAN),
        by_cat.get("CE").map(|v| mean(v)).unwrap_or(f64::NAN)
    )?;
    // ---- why the numbers differ, from the measurements
    let fgp_runs: Vec<&RunResult> = benches
        .iter()
        .filter_map(|(b, _)| get(format!("{b}-fgp")))
        .collect();
    let link_util = mean(
        &fgp_runs
            .iter()
            .map(|r| r.max_remote_link_util)
            .collect::<Vec<_>>(),
    );
    let ipm = mean(
        &fgp_runs
            .iter()
            .filter(|r| r.mem_insts > 0)
            .map(|r| r.warp_insts as f64 / r.mem_insts as f64)
            .collect::<Vec<_>>(),
    );
    let excl: Vec<f64> = benches
        .iter()
        .filter(|b| b.1 == "BE")
        .filter_map(|(b, _)| {
            get(format!("sharing-{b}"))
                .and_then(|r| r.sharing.as_ref().map(|s| s.access_frac_one_gpu))
        })
        .collect();
    let mig: Vec<(u64, u64)> = benches
        .iter()
        .filter_map(|(b, _)| {
            get(format!("{b}-mig")).map(|r| {
                (
                    r.migrations,
                    get(format!("{b}-fgp")).map(|f| f.cycles).unwrap_or(0),
                )
            })
        })
        .collect();
    let mig_share = mean(
        &mig.iter()
            .filter(|m| m.1 > 0)
            .map(|(n, c)| (*n as f64 * 5000.0) / (*c as f64 * 16.0))
            .collect::<Vec<_>>(),
    );
    writeln!(
        head,
        "\n### Where Locus differs, and why (from these runs)\n"
    )?;
    writeln!(head, "- FGP-Only is bound by the remote network: the busiest hub port of an FGP-Only run is {:.0}% utilised on average. What a kernel loses to 75% remote traffic therefore shows in full, and CODA's gains are larger than the paper's where a benchmark streams (NN {:.1}x, SPMV {:.1}x). The arithmetic mean is pulled up by these; the geometric mean CODA speedup is {:+.1}%.", 100.0 * link_util, speedup("nn", "fgp", "coda").unwrap_or(f64::NAN), speedup("spmv", "fgp", "coda").unwrap_or(f64::NAN), 100.0 * (gm("coda") - 1.0))?;
    writeln!(head, "- The kernel models issue {ipm:.1} warp instructions per memory instruction in these FGP-Only runs (mean over benchmarks), each model following its compiled kernel's instruction count (docs/workloads.md); compute instructions take the preset's Fermi-class latencies in dependency chains.")?;
    writeln!(head, "- Block-exclusive graph codes gain less than the paper's 1.56x because only {:.0}% of their line accesses (mean over the BE benchmarks) go to pages of one GPU: the neighbour-indexed vertex arrays (atomics and reads through `elist`) stay fine-grained and remote, as spec §3.7 prescribes.", 100.0 * mean(&excl))?;
    writeln!(head, "- Migration-based first touch pays 5,000 cycles per page (spec A16) on runs of about a million cycles: the fault time alone is {:.0}% of the FGP-Only run time per SM on average, so migration loses here; the paper's longer runs amortise it (+7%).", 100.0 * mig_share)?;
    writeln!(head, "- The centralized GPU (Fig. 14) has 1 TB/s of local bandwidth for 16 SMs; no benchmark concentrates enough concurrent traffic on one stack for 4 KB interleaving to lose (the paper's 1.48x); Locus models a per-stack memory-side L2 and crossbar port but no further stack-level contention.\n")?;
    let report = format!(
        "{}\n{}\n{}",
        md.lines().take(2).collect::<Vec<_>>().join("\n"),
        head,
        md.lines().skip(2).collect::<Vec<_>>().join("\n")
    );
    let path = out.join("report.md");
    std::fs::write(&path, report).with_context(|| format!("cannot write {}", path.display()))?;
    if !quiet {
        println!("{head}");
        println!("report: {}", path.display());
    }
    Ok(())
}
