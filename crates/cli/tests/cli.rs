//! The `locus` command as a user runs it: exit codes, error messages, outputs.

use std::path::PathBuf;
use std::process::Command;

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
