//! Every numeric configuration key set to an absurd value: refused before the run (exit 2,
//! the key named) or run to completion (exit 0), never a panic, an abort or a hang.
//!
//! The guide's standard ("a 1e-9 GB/s link gets a clear error and exit 2 before the run,
//! never a panic, a hang or a silent wrong answer") checked over the whole key space rather
//! than one hand-picked key per class (`cli.rs`): a new key whose zero divides, or whose
//! tiny value makes every cycle a million events, fails here. Session 21 ran this sweep by
//! hand and found `ndp.nsu_clock_ghz = 1e-9` accepted (2.3e11 cycles for a 3,750-cycle run).
//!
//! The key list is read from the run's own configuration echo (`--stats-json`), so keys
//! added later are swept without editing this file.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Host time after which a run counts as hung: the runs here are a few thousand simulated
/// cycles and take well under a second (debug build); a value that makes the run hang
/// (a vanishing clock or bandwidth) runs for hours.
const HANG_AFTER: Duration = Duration::from_secs(120);

/// The values each key is set to: zero, vanishing, beyond any machine, negative.
const ABSURD: [&str; 4] = ["0", "1e-9", "1e15", "-1"];

/// Run `locus` with `args`; `(exit code, stderr)`, or `None` when it ran past [`HANG_AFTER`]
/// (killed).
fn run_guarded(args: &[String]) -> Option<(i32, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_locus"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start locus");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for locus") {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .expect("stderr piped")
                .read_to_string(&mut err)
                .expect("read stderr");
            return Some((status.code().unwrap_or(-1), err));
        }
        if start.elapsed() > HANG_AFTER {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `locus run` of a 1,024-element vectorAdd on `preset`, quiet.
fn small_run(preset: &str) -> Vec<String> {
    [
        "run",
        "-p",
        preset,
        "-w",
        "vectoradd",
        "--param",
        "n=1024",
        "-q",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The dotted names of every numeric leaf of the configuration echo of `preset`.
fn numeric_keys(preset: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("locus-absurd-{}-{preset}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("s.json");
    let mut args = small_run(preset);
    args.extend(["--stats-json".to_string(), json.display().to_string()]);
    let (code, err) = run_guarded(&args).expect("the default run finishes");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).expect("stats JSON");
    let _ = std::fs::remove_dir_all(&dir);
    let mut keys = Vec::new();
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&p, x, out);
                }
            }
            serde_json::Value::Number(_) => out.push(prefix.to_string()),
            _ => {}
        }
    }
    walk("", &v["config"], &mut keys);
    keys
}

/// Sweep the keys of `sections` (all when empty) on `preset` with the extra settings
/// `sets`; every failure is collected, then reported together.
fn sweep(preset: &str, sets: &[&str], sections: &[&str], failures: &mut Vec<String>) -> usize {
    let keys: Vec<String> = numeric_keys(preset)
        .into_iter()
        .filter(|k| sections.is_empty() || sections.iter().any(|s| k.starts_with(s)))
        .collect();
    for key in &keys {
        for v in ABSURD {
            let mut args = small_run(preset);
            args.extend(["--set".to_string(), "run.max_warp_insts=200000".to_string()]);
            for s in sets {
                args.extend(["--set".to_string(), s.to_string()]);
            }
            args.extend(["--set".to_string(), format!("{key}={v}")]);
            let what = format!("-p {preset} {sets:?} --set {key}={v}");
            match run_guarded(&args) {
                None => failures.push(format!("{what}: still running after {HANG_AFTER:?}")),
                Some((0, _)) => {}
                Some((2, err)) => {
                    if err.contains("panicked") || !err.contains("error") {
                        failures.push(format!("{what}: exit 2 without a clear error: {err}"));
                    }
                }
                Some((code, err)) => failures.push(format!(
                    "{what}: exit {code} (only 0 or 2 allowed): {}",
                    err.lines().take(3).collect::<Vec<_>>().join(" | ")
                )),
            }
        }
    }
    keys.len()
}

#[test]
fn every_numeric_key_at_an_absurd_value_is_refused_or_runs() {
    let mut failures = Vec::new();
    // every key on the default machine, then the sections that act only where their
    // policy is on: NDP offload, NUBA replication and migration, the HMS memory spaces
    let all = sweep("coda-4gpu", &[], &[], &mut failures);
    assert!(all > 100, "only {all} numeric keys found in the echo");
    sweep("ndp-8hmc", &["ndp.offload=dyn"], &["ndp."], &mut failures);
    sweep(
        "nuba",
        &["placement.migration=griffin"],
        &["replication.", "placement."],
        &mut failures,
    );
    sweep("k80", &[], &["spaces."], &mut failures);
    assert!(
        failures.is_empty(),
        "{} absurd settings misbehaved:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
