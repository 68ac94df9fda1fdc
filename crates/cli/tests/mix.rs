//! `locus analyze mix`: the instruction counts of a timing run, without timing.

use std::process::Command;

#[test]
fn mix_json_equals_the_timing_runs_counts() {
    let exe = env!("CARGO_BIN_EXE_locus");
    let out = Command::new(exe)
        .args([
            "analyze",
            "mix",
            "-w",
            "vectoradd",
            "--param",
            "n=50000",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let total = &v[0]["total"];
    let dir = std::env::temp_dir().join(format!("locus-mix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stats = dir.join("s.json");
    let run = Command::new(exe)
        .args([
            "run",
            "-q",
            "-p",
            "single-gpu",
            "-w",
            "vectoradd",
            "--param",
            "n=50000",
        ])
        .arg("--stats-json")
        .arg(&stats)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let c = &s["sim"]["total"]["counters"];
    assert_eq!(total["warp_insts"], c["warp_insts"]);
    assert_eq!(total["mem_insts"], c["mem_insts"]);
    std::fs::remove_dir_all(&dir).ok();
}
