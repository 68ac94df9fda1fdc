//! The `locus` command as a user runs it: exit codes, error messages, outputs.

use std::path::PathBuf;
use std::process::Command;

#[allow(dead_code)]
#[path = "../src/repro/audit.rs"]
mod audit;

fn locus(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_locus"))
        .args(args)
        .output()
        .expect("run locus");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("locus-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn bad_input_exits_2_with_a_message_that_names_the_problem() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "-p", "coda4gpu"], "did you mean `coda-4gpu`"),
        (&["run", "-w", "bfss"], "did you mean `bfs`"),
        (
            &["run", "-w", "bfs", "--param", "scal=3"],
            "no parameter `scal`",
        ),
        (
            &["run", "-w", "bfs", "--set", "l2.bites_per_node=1"],
            "l2.bites_per_node",
        ),
        (
            &["run", "-w", "bfs", "--set", "system.nodes=3"],
            "system.nodes",
        ),
        (
            &["run", "-w", "bfs", "--set", "energy.l1_access_pj=-1"],
            "energy.l1_access_pj",
        ),
        (
            &["run", "-w", "bfs", "--set", "run.sample_cycles=-5"],
            "run.sample_cycles",
        ),
        (
            &["run", "--trace", "/nonexistent/trace"],
            "/nonexistent/trace",
        ),
        (
            &["trace", "stat", "/nonexistent/trace"],
            "/nonexistent/trace",
        ),
    ];
    for (args, needle) in cases {
        let (code, _, err) = locus(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(needle),
            "{args:?}: `{err}` should mention `{needle}`"
        );
    }
    let d = tmp("badtoml");
    let f = d.join("bad.toml");
    std::fs::write(&f, "[l2\nways = 3\n").unwrap();
    let (code, _, err) = locus(&["run", "-w", "single-load", "-c", f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.toml"), "{err}");
}

#[test]
fn run_reports_energy_by_part_and_the_timeline() {
    let (code, out, err) = locus(&[
        "run",
        "-w",
        "vectoradd",
        "--param",
        "n=64k",
        "--set",
        "run.sample_cycles=500",
    ]);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("energy "))
        .unwrap_or_else(|| panic!("no energy line in {out}"));
    for part in [
        "mJ",
        "W mean",
        "links",
        "caches",
        "DRAM",
        "instructions",
        "static",
    ] {
        assert!(line.contains(part), "{line}");
    }
    assert!(out.contains("link energy     inter-node"), "{out}");
    assert!(out.contains("samples every 500 cycles"), "{out}");
}

#[test]
fn run_writes_identical_json_twice_and_csv() {
    let d = tmp("run");
    let (a, b, c) = (d.join("a.json"), d.join("b.json"), d.join("k.csv"));
    for p in [&a, &b] {
        let (code, _, err) = locus(&[
            "run",
            "-w",
            "vectoradd",
            "--param",
            "n=64k",
            "-q",
            "--no-host",
            "--stats-json",
            p.to_str().unwrap(),
            "--stats-csv",
            c.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let ja = std::fs::read(&a).unwrap();
    assert_eq!(ja, std::fs::read(&b).unwrap(), "byte-identical statistics");
    let v: serde_json::Value = serde_json::from_slice(&ja).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert!(
        v["sim"]["total"]["counters"]["l1_requests"]
            .as_u64()
            .unwrap()
            > 0
    );
    let csv = std::fs::read_to_string(&c).unwrap();
    assert!(
        csv.starts_with("kernel,name,") && csv.lines().count() == 2,
        "{csv}"
    );
}

#[test]
fn repro_coda_quick_writes_report_csv_and_figures_and_resumes() {
    let d = tmp("repro");
    let out = d.join("out");
    let (code, _, err) = locus(&[
        "repro",
        "coda",
        "--quick",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for fig in [
        "Fig. 5", "Fig. 9", "Fig. 10", "Fig. 11", "Fig. 12", "Fig. 13", "Fig. 14", "Headline",
    ] {
        assert!(report.contains(fig), "report lacks {fig}");
    }
    for f in [
        "fig9_speedup.png",
        "fig9_speedup.svg",
        "fig11_remote_bw.png",
        "fig9_fig10_fig15.csv",
        "fig5_sharing.csv",
    ] {
        assert!(
            std::fs::metadata(out.join(f))
                .map(|m| m.len() > 0)
                .unwrap_or(false),
            "{f} missing"
        );
    }
    // issue 13: the report prints only numbers from its data and comparisons that hold
    let nums = std::fs::read_to_string(out.join("numbers.txt")).unwrap();
    let checks = std::fs::read_to_string(out.join("checks.txt")).unwrap();
    let problems = audit::audit(&report, &nums, &checks);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(!report.contains("NaN"), "NaN in the quick report");
    let runs = std::fs::read_dir(out.join("runs")).unwrap().count();
    assert!(runs > 50);
    // a finished run is kept and reused: delete one, rerun, only that one is redone
    let one = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::remove_file(&one).unwrap();
    let (code, _, err) = locus(&[
        "repro",
        "coda",
        "--quick",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(one.exists());
    assert_eq!(std::fs::read_dir(out.join("runs")).unwrap().count(), runs);
}

/// Physically absurd values are refused before the run (exit 2, the key named), one case
/// per class: each of these used to run for more than ten minutes or forever (issue 7).
#[test]
fn absurd_physical_values_are_refused_before_the_run_naming_the_key() {
    let cases: &[(&str, &str)] = &[
        // bandwidth: zero, vanishing, beyond any machine
        ("interconnect.link_gbps=0", "interconnect.link_gbps"),
        ("interconnect.link_gbps=1e-9", "interconnect.link_gbps"),
        ("noc.channel_port_gbps=1e9", "noc.channel_port_gbps"),
        ("l2.slice_gbps=-5", "l2.slice_gbps"),
        // clocks: SM and DRAM
        ("system.sm_clock_ghz=1e-6", "system.sm_clock_ghz"),
        ("system.sm_clock_ghz=1000", "system.sm_clock_ghz"),
        ("dram.tck_ps=1", "dram.tck_ps"),
        // the NSU clock of the NDP stacks (accepted down to any positive value until
        // session 21: 1e-9 GHz turned a 3,750-cycle run into 2.3e11 cycles)
        ("ndp.nsu_clock_ghz=1e-9", "ndp.nsu_clock_ghz"),
        // latencies in cycles and DRAM timings in ns
        ("interconnect.latency=4000000000", "interconnect.latency"),
        ("tlb.walk_latency=2000000", "tlb.walk_latency"),
        ("dram.tcl_ns=1e8", "dram.tcl_ns"),
        // refresh so frequent it would be every event of the run
        ("dram.trefi_ns=1", "dram.trefi_ns"),
        // per-cycle widths and packet sizes
        ("sm.issue_width=100000", "sm.issue_width"),
        (
            "interconnect.header_bytes=1000000",
            "interconnect.header_bytes",
        ),
    ];
    for (set, key) in cases {
        let (code, out, err) = locus(&["run", "-w", "vectoradd", "-q", "--set", set]);
        assert_eq!(code, 2, "--set {set}: {err}");
        assert!(
            err.contains(key),
            "--set {set}: `{err}` should name `{key}`"
        );
        assert!(out.is_empty(), "--set {set}: refused before running: {out}");
    }
}

/// `--apps` with one application runs it (alone on node 0); the summary says "1 kernel",
/// not "1 kernels", and "no inter-node traffic" instead of "0.0% (0 bytes)".
#[test]
fn one_application_runs_and_the_summary_reads_well() {
    let (code, out, err) = locus(&[
        "run",
        "--apps",
        "vectoradd",
        "--set",
        "placement.policy=first-touch",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("locus: vectoradd on coda-4gpu (placement.policy=first-touch), 1 kernel\n"),
        "{out}"
    );
    assert!(
        out.contains("app vectoradd") && out.contains("(1 kernel)"),
        "{out}"
    );
    assert!(out.contains("no inter-node traffic"), "{out}");
    assert!(
        !out.contains("(0 bytes)") && !out.contains("1 kernels"),
        "{out}"
    );
}

/// NDP issue 11's own command form: a paper abbreviation as the workload (`vadd`), and a
/// summary that says what was offloaded: every one of vectorAdd's 256 warp instances at
/// n = 8192 under naive offload, its one `@NSU` FADD each a NOP on the GPU; no NDP lines
/// on a run that does not offload.
#[test]
fn ndp_run_by_paper_abbreviation_summarises_the_offload() {
    let (code, out, err) = locus(&[
        "run",
        "-p",
        "ndp-8hmc",
        "-w",
        "vadd",
        "--param",
        "n=8192",
        "--set",
        "ndp.offload=naive",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("locus: vectoradd on ndp-8hmc"), "{out}");
    assert!(
        out.contains("naive: 256 of 256 block instances offloaded (0 suppressed"),
        "{out}"
    );
    assert!(out.contains("256 GPU ALU instructions as NOPs"), "{out}");
    let (code, out, err) = locus(&["run", "-p", "ndp-8hmc", "-w", "vadd", "--param", "n=8192"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("NDP ") && !out.contains("NSUs "), "{out}");
}

/// The header echoes every override in force: --set keys and workload parameters.
#[test]
fn run_header_echoes_the_overrides() {
    let (code, out, err) = locus(&[
        "run",
        "-w",
        "vectoradd",
        "--param",
        "n=64k",
        "--set",
        "placement.policy=first-touch",
        "--set",
        "interconnect.link_gbps = 32",
    ]);
    assert_eq!(code, 0, "{err}");
    let first = out.lines().next().unwrap_or("");
    assert_eq!(
        first,
        "locus: vectoradd on coda-4gpu (placement.policy=first-touch, interconnect.link_gbps=32, --param n=64k), 1 kernel"
    );
}

/// Mistakes found by a new user (issue 14) are refused at once with exit 2 and words that
/// say what to do; none of them runs a simulation first (stdout stays empty).
#[test]
fn new_user_mistakes_exit_2_before_running() {
    let d = tmp("mistakes");
    let file = d.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let under_file = file.join("out");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["analyze", "sharing", "--apps", "km,bfs"], "not --apps"),
        (
            vec!["run", "-w", "pr", "--param", "cv=abc"],
            "cv=abc does not apply",
        ),
        (
            vec![
                "run",
                "-w",
                "pr",
                "--param",
                "graph=regular",
                "--param",
                "cv=abc",
            ],
            "not a number",
        ),
        (
            vec!["run", "-w", "pr", "--param", "dampng=0.5"],
            "did you mean `damping`",
        ),
        (
            vec!["run", "--stats-json", "/nonexistent/x.json"],
            "/nonexistent",
        ),
        (
            vec!["run", "--stats-csv", "/nonexistent/x.csv"],
            "/nonexistent",
        ),
        (
            vec![
                "repro",
                "coda",
                "--quick",
                "-o",
                under_file.to_str().unwrap(),
            ],
            "cannot create the output folder",
        ),
        (
            vec!["run", "--set", "system.nodes=abc"],
            "system.nodes = abc: expected a whole number",
        ),
        (
            vec!["run", "--set", "placement.policy=nearest"],
            "expected one of fgp, cgp",
        ),
        (vec!["run", "--apps", "bfs,km,nn,hs3d,sad"], "give 1 to 4"),
    ];
    for (args, needle) in &cases {
        let (code, out, err) = locus(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(needle),
            "{args:?}: `{err}` should say `{needle}`"
        );
        assert!(
            !err.contains("invalid type"),
            "{args:?}: serde wording: {err}"
        );
        assert!(out.is_empty(), "{args:?} ran before refusing: {out}");
    }
}

/// `presets --show NAME` prints every section (defaults included) and feeding it back with
/// `--config` over any other preset gives exactly the preset's configuration.
#[test]
fn presets_show_round_trips_to_the_same_config() {
    let d = tmp("show");
    let sections: Vec<String> = match toml::Value::try_from(locus_sim::Config::default()).unwrap() {
        // sections are the tables (`node_kinds` is a list of tables, empty by default)
        toml::Value::Table(t) => t
            .iter()
            .filter(|(_, v)| v.is_table())
            .map(|(k, _)| k.clone())
            .collect(),
        _ => unreachable!(),
    };
    for p in locus_sim::preset::PRESETS {
        let (code, out, err) = locus(&["presets", "--show", p.name]);
        assert_eq!(code, 0, "{err}");
        for s in &sections {
            assert!(
                out.contains(&format!("[{s}]")),
                "{}: section [{s}] missing",
                p.name
            );
        }
        let f = d.join(format!("{}.toml", p.name));
        std::fs::write(&f, &out).unwrap();
        let want = locus_sim::preset::load(Some(p.name), None, &[]).unwrap();
        let other = if p.name == "single-gpu" {
            "coda-4gpu"
        } else {
            "single-gpu"
        };
        let got =
            locus_sim::preset::load(Some(other), Some((f.to_str().unwrap(), &out)), &[]).unwrap();
        assert_eq!(
            serde_json::to_value(&got).unwrap(),
            serde_json::to_value(&want).unwrap(),
            "{}",
            p.name
        );
    }
}

/// `run --help` points to `presets --keys`, which lists each policy's accepted values;
/// `validate dram --help` says it needs the dramsim3 feature, cmake and a C++ compiler.
#[test]
fn help_points_to_policy_values_and_feature_needs() {
    let (_, out, _) = locus(&["run", "--help"]);
    assert!(out.contains("locus presets --keys"), "{out}");
    let (code, keys, err) = locus(&["presets", "--keys"]);
    assert_eq!(code, 0, "{err}");
    for (key, value) in [
        ("placement.policy", "first-touch"),
        ("scheduling.policy", "affinity"),
        ("interconnect.topology", "all-to-all"),
        ("sm.warp_scheduler", "lrr"),
    ] {
        let line = keys
            .lines()
            .find(|l| l.starts_with(&format!("{key} =")))
            .unwrap_or_else(|| panic!("{key} missing: {keys}"));
        assert!(line.contains("one of:") && line.contains(value), "{line}");
    }
    let (_, out, _) = locus(&["validate", "dram", "--help"]);
    assert!(
        out.contains("dramsim3") && out.contains("cmake") && out.contains("C++"),
        "{out}"
    );
}

/// `workloads -v`: every parameter's help starts in the same column.
#[test]
fn workloads_verbose_columns_are_aligned() {
    let (code, out, err) = locus(&["workloads", "-v"]);
    assert_eq!(code, 0, "{err}");
    let cols: Vec<usize> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("--param "))
        .map(|l| {
            let indent = l.len() - l.trim_start().len();
            let after = &l[indent + "--param ".len()..];
            let value_end = after.find(' ').unwrap();
            let rest = &after[value_end..];
            indent + "--param ".len() + value_end + (rest.len() - rest.trim_start().len())
        })
        .collect();
    assert!(cols.len() > 30, "{out}");
    assert!(cols.iter().all(|c| *c == cols[0]), "help columns {cols:?}");
}

/// README's preset list (`locus presets  # machines: ...`) names exactly the built-in presets.
#[test]
fn readme_preset_list_matches_the_presets() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with("locus presets ") && l.contains("# machines:"))
        .expect("README has the `locus presets  # machines: ...` line");
    let mut listed: Vec<&str> = line
        .split("# machines:")
        .nth(1)
        .unwrap()
        .split(',')
        .map(str::trim)
        .collect();
    let mut real: Vec<&str> = locus_sim::preset::PRESETS.iter().map(|p| p.name).collect();
    listed.sort_unstable();
    real.sort_unstable();
    assert_eq!(listed, real);
}

/// `locus analyze rec-storage` prints REC Table 1 and the §5.5 points.
/// `repro rec --quick` on one small benchmark writes the report, every figure and the
/// CSVs, and the report passes its audit: a NaN, a number not in the ledger, or an
/// unchecked comparison fails here (issue 9).
#[test]
fn repro_rec_quick_report_passes_its_audit() {
    let d = tmp("repro-rec");
    let out = d.join("out");
    let (code, _, err) = locus(&[
        "repro",
        "rec",
        "--quick",
        "--workloads",
        "atax",
        "--warp-insts",
        "20000",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for part in [
        "Headline results",
        "Where Locus and the paper disagree",
        "Qualitative shapes",
        "Fig. 1:",
        "Fig. 5:",
        "Fig. 11:",
        "Fig. 12:",
        "Fig. 17(b):",
        "Fig. 19:",
        "Fig. 20:",
        "Fig. 21:",
        "Fig. 22:",
        "Fig. 23:",
        "Fig. 24:",
        "The cap's effect",
        "Table 1:",
        "+32.7%",
        "remote lines touched per home",
        "Second reading: `capacity-scaled`",
        "`live-entries`",
        "Third reading: `mgpusim-unified`",
    ] {
        assert!(report.contains(part), "report lacks {part}");
    }
    let nums = std::fs::read_to_string(out.join("numbers.txt")).unwrap();
    let checks = std::fs::read_to_string(out.join("checks.txt")).unwrap();
    let problems = audit::audit(&report, &nums, &checks);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(!report.contains("NaN") && !report.contains("inf"));
    // a typed number would be caught by the same audit
    let forged = report.replacen("Headline results", "Headline results over 977 runs", 1);
    assert!(!audit::audit(&forged, &nums, &checks).is_empty());
    for f in [
        "figures/rec-fig11-performance.png",
        "figures/rec-fig11-performance.svg",
        "figures/rec-fig12-histogram.png",
        "figures/rec-fig22-gpus.svg",
        "figures/rec-fig23-nvidia.png",
        "figures/rec-fig17b-entries.png",
        "figures/rec-fig20-bandwidth.svg",
        "figures/rec-fig21-sas.png",
        "figures/rec-fig24-dnn.png",
        "fig12_histogram.csv",
        "runs.csv",
        "verdicts.csv",
    ] {
        assert!(
            std::fs::metadata(out.join(f))
                .map(|m| m.len() > 0)
                .unwrap_or(false),
            "{f} missing"
        );
    }
    // one row per run: 7 configurations + 33 sweep points on the one benchmark (no DNN
    // runs and no cap check with --quick), the capacity-scaled reading's 5
    // configurations + 3 REC ranges, and the mgpusim-unified reading's 5 configurations
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 7 + 33 + 5 + 3 + 5);
    let _ = std::fs::remove_dir_all(&d);
}

/// `repro nuba --quick` on one small benchmark writes the report, the figures and the
/// CSVs, and the report passes its audit (a NaN, a number not in the ledger or an
/// unchecked comparison fails here).
#[test]
fn repro_nuba_quick_report_passes_its_audit() {
    let d = tmp("repro-nuba");
    let out = d.join("out");
    let (code, _, err) = locus(&[
        "repro",
        "nuba",
        "--quick",
        "--workloads",
        "atax",
        "--warp-insts",
        "20000",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for part in [
        "Headline results",
        "Where Locus and the paper disagree",
        "Fig. 3:",
        "Fig. 7:",
        "Figs. 8-9:",
        "Fig. 10:",
        "Fig. 11:",
        "Fig. 12:",
        "Fig. 14:",
        "§7.9: alternatives to LAB",
        "+23.1%",
        "Run time",
    ] {
        assert!(report.contains(part), "report lacks {part}");
    }
    let nums = std::fs::read_to_string(out.join("numbers.txt")).unwrap();
    let checks = std::fs::read_to_string(out.join("checks.txt")).unwrap();
    let problems = audit::audit(&report, &nums, &checks);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let forged = report.replacen("Headline results", "Headline results over 977 runs", 1);
    assert!(!audit::audit(&forged, &nums, &checks).is_empty());
    for f in [
        "figures/nuba-fig3-sharing.png",
        "figures/nuba-fig7-speedup.svg",
        "figures/nuba-fig10-noc.png",
        "figures/nuba-fig12-replication.svg",
        "fig7_speedup.csv",
        "runs.csv",
        "verdicts.csv",
    ] {
        assert!(
            std::fs::metadata(out.join(f))
                .map(|m| m.len() > 0)
                .unwrap_or(false),
            "{f} missing"
        );
    }
    // one row per run: 11 configurations (§7.9's two Griffin and two Carrefour runs) + 23 sweep
    // points on the one benchmark + the Fig. 9 check (ATAX with a CTA on every partition)
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 11 + 23 + 1);
    let _ = std::fs::remove_dir_all(&d);
}

/// `repro ndp --quick` on one small workload (capped) writes the report, the figures and
/// the CSVs, the report passes its audit, and a second invocation reuses every run.
#[test]
fn repro_ndp_quick_report_passes_its_audit_and_resumes() {
    let d = tmp("repro-ndp");
    let out = d.join("out");
    let args = [
        "repro",
        "ndp",
        "--quick",
        "--workloads",
        "vectoradd",
        "--warp-insts",
        "20000",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ];
    let (code, _, err) = locus(&args);
    assert_eq!(code, 0, "{err}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for part in [
        "Headline results",
        "Where Locus and the paper disagree",
        "Offload coverage",
        "Offload blocks against Table 1",
        "Fig. 5:",
        "Fig. 7:",
        "Fig. 8:",
        "Fig. 9:",
        "Fig. 10:",
        "Fig. 11",
        "§7.6:",
        "+17.9%",
        "stops at 20000 warp instructions",
        "Run time",
    ] {
        assert!(report.contains(part), "report lacks {part}");
    }
    let nums = std::fs::read_to_string(out.join("numbers.txt")).unwrap();
    let checks = std::fs::read_to_string(out.join("checks.txt")).unwrap();
    let problems = audit::audit(&report, &nums, &checks);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    for f in [
        "figures/ndp-fig5-target.png",
        "figures/ndp-fig7-naive.svg",
        "figures/ndp-fig9-static.png",
        "figures/ndp-fig10-energy.svg",
        "figures/ndp-fig11-nsu.png",
        "fig9_static.csv",
        "runs.csv",
        "verdicts.csv",
    ] {
        assert!(
            std::fs::metadata(out.join(f))
                .map(|m| m.len() > 0)
                .unwrap_or(false),
            "{f} missing"
        );
    }
    // one row per run: Baseline, NaiveNDP, NaiveNDP with `ndp.nsu_marker_insts=end-only`,
    // Fig. 8's static-0 split, 2 static ratios, Dyn, Dyn_Cache, both again with Algorithm 1's
    // IPC counted at issue (`ndp.hill_ipc=issue`) and holding at IPC 0
    // (`ndp.hill_hold_idle=true`), Dyn with Algorithm 1 as printed, Dyn_Cache with the
    // per-warp benefit, MoreCore and the 3 study runs
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 15 + 3);
    // resumable: the second invocation reuses all 18 runs
    let (code, _, err) = locus(&args);
    assert_eq!(code, 0, "{err}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("(18 reused"), "{report}");
    // `--set` on the folder of runs made without it is refused (its records would be
    // reused as if they had the override); a key that does not exist is refused by name
    let with = |o: &str, set: &str| {
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        a.truncate(a.len() - 1);
        a.extend([o.to_string(), "--set".into(), set.into()]);
        a
    };
    fn refs(v: &[String]) -> Vec<&str> {
        v.iter().map(|s| s.as_str()).collect()
    }
    let a = with(out.to_str().unwrap(), "l2.set_index=xor");
    let (code, _, err) = locus(&refs(&a));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("overrides.txt") && err.contains("none"),
        "{err}"
    );
    let out2 = d.join("out-xor");
    let a = with(out2.to_str().unwrap(), "l2.no_such_key=1");
    let (code, _, err) = locus(&refs(&a));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no_such_key"), "{err}");
    // the whole reproduction with the hashed index, then compared with the linear one
    let a = with(out2.to_str().unwrap(), "l2.set_index=xor");
    let (code, _, err) = locus(&refs(&a));
    assert_eq!(code, 0, "{err}");
    let report = std::fs::read_to_string(out2.join("report.md")).unwrap();
    assert!(
        report.contains("took the override(s) `l2.set_index=xor`"),
        "{report}"
    );
    let nums = std::fs::read_to_string(out2.join("numbers.txt")).unwrap();
    let checks = std::fs::read_to_string(out2.join("checks.txt")).unwrap();
    let problems = audit::audit(&report, &nums, &checks);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let (code, cmp, err) = locus(&[
        "repro",
        "compare",
        out.to_str().unwrap(),
        out2.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        cmp.contains("B: `") && cmp.contains("`--set l2.set_index=xor`"),
        "{cmp}"
    );
    assert!(cmp.contains("18 runs in both (A has 18, B 18)"), "{cmp}");
    let (code, _, err) = locus(&[
        "repro",
        "ndp",
        "--workloads",
        "nosuch",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("nosuch"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn rec_storage_reproduces_table_1() {
    let (code, out, err) = locus(&["analyze", "rec-storage"]);
    assert_eq!(code, 0, "{err}");
    let bits = |name: &str| -> u32 {
        let l = out.lines().find(|l| l.starts_with(name)).unwrap();
        let f: Vec<&str> = l[22..].split_whitespace().collect();
        f[7].parse().unwrap()
    };
    assert_eq!(bits("baseline (64 B) "), 52);
    assert_eq!(bits("rec 128 B "), 50);
    assert_eq!(bits("rec 256 B "), 57);
    assert_eq!(bits("rec 1 KB  "), 103);
    assert_eq!(bits("rec 4 KB  "), 293);
    assert_eq!(bits("baseline 8 GPUs"), 56);
    assert_eq!(bits("rec 1 KB 8 GPUs"), 167);
    assert_eq!(bits("baseline 16 GPUs"), 64);
    assert_eq!(bits("rec 1 KB 16 GPUs"), 295);
    let (code, _, err) = locus(&["analyze", "rec-storage", "--l2-bytes", "0"]);
    assert_eq!(code, 2, "bad input exits 2: {err}");
}

/// `locus analyze classify`: REC's 12 benchmarks are all modelled and each default
/// footprint is the paper's scaled down (never up, scale.rs); NUBA's sharing run measures
/// a class from the page-sharing statistic and names a benchmark not modelled yet; an
/// unknown benchmark exits 2.
#[test]
fn analyze_classify_measures_footprints_and_sharing_beside_the_papers() {
    let (code, out, err) = locus(&["analyze", "classify", "--paper", "rec", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 12);
    for r in rows {
        assert_eq!(r["modelled"], true, "{r}");
        let (ours, paper) = (
            r["footprint_mb"].as_f64().unwrap(),
            r["paper_footprint_mb"].as_f64().unwrap(),
        );
        assert!(ours > 0.0 && ours <= paper, "{r}");
    }
    let (code, out, err) = locus(&[
        "analyze",
        "classify",
        "--paper",
        "nuba",
        "-p",
        "single-gpu",
        "--only",
        "nw,gesummv",
        "--max-warp-insts",
        "200000",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    for r in rows.as_array().unwrap() {
        let single = r["single_sm_fraction"].as_f64().unwrap();
        let class = if single > 0.8 { "low" } else { "high" };
        assert_eq!(r["class"], class, "{r}");
        let pages: u64 = r["pages_by_sharers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert!(pages > 0, "{r}");
    }
    let (code, _, err) = locus(&["analyze", "classify", "--paper", "nuba", "--only", "nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope"), "{err}");
}

/// HMS placement (issue 12): `--place` on the k80 preset runs with a legal placement and
/// refuses an illegal one with exit 2, naming the object and the rule.
#[test]
fn place_runs_on_k80_and_refuses_illegal_placements() {
    let small = ["--param", "inputs=64", "--param", "images=1", "-q"];
    let mut args = vec![
        "run",
        "-p",
        "k80",
        "-w",
        "neuralnet",
        "--place",
        "weights=const",
    ];
    args.extend(small);
    let (code, _, err) = locus(&args);
    assert_eq!(code, 0, "{err}");
    // the default network's weights (95280 B) exceed the 64 KB of constant memory
    let (code, _, err) = locus(&[
        "run",
        "-p",
        "k80",
        "-w",
        "neuralnet",
        "--place",
        "weights=const",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("D__WEIGHTS") && err.contains("spaces.const_bytes"),
        "{err}"
    );
    // texture is read-only in a kernel, not in the program: a written object may be
    // placed there, and the kernels that write it keep it global, named in a warning
    let mut args = vec![
        "run",
        "-p",
        "k80",
        "-w",
        "neuralnet",
        "--place",
        "activations1=tex1d",
        "--param",
        "inputs=64",
        "--param",
        "images=1",
    ];
    let (code, out, err) = locus(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "warning: place.activations1: not applied in 1 of 4 launches (kernels kernelFeedForward2)"
        ),
        "{out}"
    );
    args[6] = "weights=tex1d";
    let (code, out, err) = locus(&args);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("place."), "{out}");
    // the summary's spaces lines: a shared placement's copies (staging.rs) are counted
    let (code, out, err) = locus(&[
        "run",
        "-p",
        "k80",
        "-w",
        "neuralnet",
        "--param",
        "inputs=64",
        "--param",
        "images=1",
        "--place",
        "weights=shared",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  spaces ") && out.contains("bank conflict"),
        "{out}"
    );
    let place = out.lines().find(|l| l.starts_with("  place ")).unwrap();
    assert!(
        place.contains("B copied between global and shared memory") && !place.contains(" 0 B"),
        "{place}"
    );
    // a shared array is no data object: the refusal names the parameter that moves it
    let (code, _, err) = locus(&[
        "run",
        "-p",
        "k80",
        "-w",
        "shoc-sort",
        "--param",
        "n=8192",
        "--place",
        "sBlockOffsets=global",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--param sblockoffsets_space=global"), "{err}");
    // placements need the spaces model
    let (code, _, err) = locus(&["run", "-w", "neuralnet", "--place", "weights=const"]);
    assert_eq!(code, 2);
    assert!(err.contains("spaces.enabled"), "{err}");
    let (code, _, err) = locus(&["run", "-p", "k80", "-w", "neuralnet", "--place", "weights"]);
    assert_eq!(code, 2);
    assert!(err.contains("OBJ=SPACE"), "{err}");
}

/// `repro hms --quick` on two benchmarks (neuralnet's five test placements, matmul's eight
/// training placements) writes the report with every section, the CSVs and the figures;
/// training and test cases stay apart (the report's test table holds no training
/// benchmark), the report passes its audit (a NaN, a number not in the ledger or an
/// unchecked comparison fails here), and `model rank --check` prints simulated truth and a
/// rank correlation.
#[test]
fn repro_hms_quick_writes_report_and_rank_check_works() {
    let d = tmp("repro-hms");
    let out = d.join("out");
    let (code, _, err) = locus(&[
        "repro",
        "hms",
        "--quick",
        "--workloads",
        "shoc-neuralnet,matmul,shoc-triad",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for part in [
        "## Claims",
        "## Fig. 5",
        "## Fig. 6",
        "## Figs. 7-9",
        "## Table I",
        "## Fig. 4",
        "weights(G→C)",
        "mean-error",
        "## Model terms against the simulator's own counters",
        "ours+replay-issue",
        "## Eq. 12 as printed and clamped",
        "ours+overlap-clamp",
        "ours+mwp-uncoalesced",
        "## Error decomposition of the sample placements",
    ] {
        assert!(report.contains(part), "report lacks {part}");
    }
    assert!(!report.contains("NaN"), "NaN in the report");
    // the report passes its audit: every number in the ledger, every comparison checked
    let nums = std::fs::read_to_string(out.join("numbers.txt")).unwrap();
    let checks = std::fs::read_to_string(out.join("checks.txt")).unwrap();
    let problems = audit::audit(&report, &nums, &checks);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // the machine line is the preset's (read from presets/k80.toml here), and the
    // mean-error sentence is a checked comparison
    let preset = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../presets/k80.toml"),
    )
    .unwrap();
    let key = |k: &str| {
        preset
            .lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.trim_start().strip_prefix('='))
            .map(|v| v.split('#').next().unwrap().trim().to_string())
            .unwrap_or_else(|| panic!("{k} not in presets/k80.toml"))
    };
    let machine = format!("{} SMs at {} GHz", key("sms_per_node"), key("sm_clock_ghz"));
    assert!(report.contains(&machine), "report lacks `{machine}`");
    assert!(checks
        .lines()
        .any(|c| c.ends_with("\tless than") || c.ends_with("\tgreater than")));
    // a typed number or an unchecked comparison would be caught by the same audit
    let forged = report.replacen("## Claims", "## Claims over 977 runs", 1);
    assert!(!audit::audit(&forged, &nums, &checks).is_empty());
    let forged = report.replacen("## Claims", "## Claims: ours is lower than the paper", 1);
    assert!(!audit::audit(&forged, &nums, &checks).is_empty());
    let fig5 = report.split("## Fig. 5").nth(1).unwrap();
    let fig5 = fig5.split("## Fig. 6").next().unwrap();
    assert!(
        !fig5.contains("matrixMul"),
        "a training case in the test table"
    );
    let cases = std::fs::read_to_string(out.join("cases.csv")).unwrap();
    assert_eq!(cases.lines().filter(|l| l.starts_with("test,")).count(), 5);
    assert_eq!(
        cases.lines().filter(|l| l.starts_with("training,")).count(),
        10
    );
    // triad B(G→S) is refused by the spec's whole-array rule (listed, not predicted) and
    // run under the named reading `block-range` on its own
    let triad = cases.lines().find(|l| l.contains("B(G→S)")).unwrap();
    assert!(triad.contains("the model refuses the placement"), "{triad}");
    assert!(report.contains("## The named reading `block-range`"));
    let br = std::fs::read_to_string(out.join("block-range.csv")).unwrap();
    let row = br.lines().nth(1).unwrap();
    assert!(row.starts_with("training,triad,triad,\"B(G→S)\","), "{row}");
    assert!(row.ends_with(",\"\""), "not skipped: {row}");
    // the error decomposition (issue 12): each row's factors rebuild its T / T_sim, which
    // holds only if T_mem is requests x AMAT / (active SMs x ITMLP) as Eq. 4 with Eq. 17
    let dec = std::fs::read_to_string(out.join("decomposition.csv")).unwrap();
    let head: Vec<&str> = dec.lines().next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let mut rows = 0;
    for line in dec.lines().skip(1) {
        if line.contains('"') {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let v = |n: &str| f[col(n)].parse::<f64>().unwrap();
        let want = v("model_cycles") / v("sim_cycles");
        let (tc, tm, to, ti) = (v("t_comp"), v("t_mem"), v("t_overlap"), v("t_init"));
        let a = v("amat_model") / v("amat_sim");
        let q = v("itmlp_implied") / v("itmlp_model");
        let got = (tc + ti) / v("sim_cycles") + a * q * (1.0 - to / tm);
        assert!(
            (got - want).abs() < 2e-3 * want.abs().max(1.0),
            "{line}: {got} vs {want}"
        );
        assert!(
            (v("rebuilt_ratio") - want).abs() < 2e-3 * want.abs().max(1.0),
            "{line}"
        );
        rows += 1;
    }
    assert!(rows >= 2, "decomposition.csv has {rows} rows");
    // the per-term comparison: every expressible case, each term of hms::TERMS
    let terms = std::fs::read_to_string(out.join("terms.csv")).unwrap();
    assert!(terms
        .lines()
        .any(|l| l.starts_with("test,neuralnet,weights(G→C),replays_const_div,")));
    for f in [
        "verdicts.csv",
        "table1.csv",
        "fig4.csv",
        "ablations.csv",
        "coefs-ours.json",
        "figures/hms-fig5-accuracy.svg",
        "figures/hms-fig6-neuralnet.png",
        "figures/hms-fig7-9-ablations.svg",
        "figures/hms-fig4-ca.svg",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let (code, stdout, err) = locus(&[
        "model",
        "rank",
        "-w",
        "neuralnet",
        "--param",
        "inputs=256",
        "--param",
        "images=2",
        "--objects",
        "weights",
        "--check",
        "--coefs",
        out.join("coefs-ours.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let checked = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("simulated "))
        .count();
    assert_eq!(checked, 5, "{stdout}");
    assert!(stdout.contains("rank correlation (Spearman)"), "{stdout}");
    // a named shared array moved to global is simulated through its workload's
    // `<array>_space=global` (sort's sBlockOffsets); one without such a parameter is not
    let (code, stdout, err) = locus(&[
        "model",
        "rank",
        "-w",
        "shoc-sort",
        "--param",
        "n=8192",
        "--kernel",
        "reorderData",
        "--max-launches",
        "2",
        "--objects",
        "sBlockOffsets,sKeys2",
        "--check",
    ]);
    assert_eq!(code, 0, "{err}");
    let block = |name: &str| {
        // the placement that moves this array alone
        let i = stdout.find(&format!(". {name}(S→G) ")).expect(name);
        stdout[i..].lines().nth(1).unwrap_or("").to_string()
    };
    assert!(block("sBlockOffsets").contains("simulated "), "{stdout}");
    assert!(
        block("sKeys2").contains("no workload parameter moves it"),
        "{stdout}"
    );
}

/// `locus validate gpu` on the checked-in H100 measurements, transpose only: the model's
/// global and shared loads and stores equal Nsight Compute's counts exactly (the tile
/// transpose has no predicated or divergent memory instruction), the report and CSV are
/// written, and a missing measurement folder is an error naming it.
#[test]
fn validate_gpu_compares_the_transpose_model_with_the_h100_counts() {
    let out = tmp("validate-gpu");
    let measured = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../validation/gpu/h100");
    let (code, _, err) = locus(&[
        "validate",
        "gpu",
        "--measured",
        measured.to_str().unwrap(),
        "-p",
        "h100",
        "--only",
        "transpose",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let csv = std::fs::read_to_string(out.join("gpu-compare.csv")).unwrap();
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[1], "transposeNoBankConflicts");
    for q in [
        "global_loads",
        "global_stores",
        "shared_loads",
        "shared_stores",
    ] {
        let i = head
            .iter()
            .position(|h| *h == format!("{q}_ratio"))
            .unwrap();
        assert_eq!(row[i], "1.0000", "{q}: {csv}");
    }
    let md = std::fs::read_to_string(out.join("gpu-compare.md")).unwrap();
    assert!(md.contains("## Disagreements") && md.contains("static SASS instructions"));
    let (code, _, err) = locus(&["validate", "gpu", "--measured", "/nonexistent/m"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/m/manifest.tsv"), "{err}");
}
