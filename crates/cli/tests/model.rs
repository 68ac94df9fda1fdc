//! `locus model`: the HMS placement model's commands end to end.

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

const NN: [&str; 6] = [
    "-w",
    "neuralnet",
    "--param",
    "inputs=64",
    "--param",
    "images=2",
];

/// `rank --objects weights` lists the sample and the four legal moves of the weights (the
/// paper's five neuralnet placements), each once; `predict` prints the terms.
#[test]
fn rank_and_predict_neuralnet_weights() {
    let mut a = vec!["model", "rank"];
    a.extend(NN);
    a.extend(["--objects", "weights"]);
    let (code, out, err) = locus(&a);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("5 legal placements"), "{out}");
    assert!(out.contains("5 placements predicted in"), "{out}");
    for p in [
        "sample",
        "D__WEIGHTS(G→C)",
        "D__WEIGHTS(G→S)",
        "D__WEIGHTS(G→T)",
        "D__WEIGHTS(G→2T)",
    ] {
        assert_eq!(out.matches(&format!(" {p} ")).count(), 1, "{p} in\n{out}");
    }
    let mut a = vec!["model", "predict"];
    a.extend(NN);
    a.extend(["--target", "weights=const"]);
    let (code, out, err) = locus(&a);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("(3) const divergence")
            && out.contains("AMAT")
            && out.contains("the target predicted in"),
        "{out}"
    );
    // an array read in two components: named in the one most of its accesses use, the
    // others counted (SHOC md: each thread's own position from global, 8 neighbours'
    // through the texture)
    let (code, out, err) = locus(&[
        "model",
        "predict",
        "-w",
        "shoc-md",
        "--param",
        "atoms=1024",
        "--param",
        "neighbors=8",
        "--target",
        "d_position=global",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("d_position T (288, 32 of them in G)") && out.contains("d_position(T→G)"),
        "{out}"
    );
}

/// Bad input exits 2 with a message naming the problem and the fix.
#[test]
fn bad_targets_are_refused() {
    let mut a = vec!["model", "predict"];
    a.extend(NN);
    a.extend(["--target", "nosuch=const"]);
    let (code, _, err) = locus(&a);
    assert_eq!(code, 2);
    assert!(
        err.contains("no object `nosuch`") && err.contains("D__WEIGHTS"),
        "{err}"
    );
    let mut a = vec!["model", "predict"];
    a.extend(NN);
    a.extend(["--target", "zs1=const"]);
    let (code, _, err) = locus(&a);
    assert_eq!(code, 2);
    assert!(err.contains("`zs1` is written"), "{err}");
    let mut a = vec!["model", "predict"];
    a.extend(NN);
    a.extend(["--target", "weights=l3"]);
    let (code, _, err) = locus(&a);
    assert_eq!(code, 2);
    assert!(err.contains("not a memory component"), "{err}");
}

/// Algorithm 1 against the default machine's DRAM recovers its configured mapping.
#[test]
fn detect_recovers_the_mapping() {
    let (code, out, err) = locus(&["model", "detect"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("recovered exactly: yes"), "{out}");
}
