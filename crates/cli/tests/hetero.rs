//! Heterogeneous machines from the command line (issue 7 §4): bad node kinds exit 2 with
//! the key named before anything runs; a machine with a memory-only node runs.

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

const KINDS: &str = "node_kinds=[{name=\"gpu\"},{name=\"stack\",sms=0}]";

#[test]
fn sm_less_machines_and_undefined_kinds_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "run",
                "-w",
                "vectoradd",
                "--set",
                "system.nodes=2",
                "--set",
                "system.node_kinds=[\"stack\",\"stack\"]",
                "--set",
                KINDS,
            ],
            "every node has 0 SMs",
        ),
        (
            &[
                "run",
                "-w",
                "vectoradd",
                "--set",
                "system.nodes=2",
                "--set",
                "system.node_kinds=[\"gpu\",\"memory\"]",
                "--set",
                KINDS,
            ],
            "system.node_kinds[1] = \"memory\": no [[node_kinds]] table has that name",
        ),
        (
            &[
                "run",
                "-w",
                "vectoradd",
                "--set",
                "system.nodes=2",
                "--set",
                "system.node_kinds=[\"gpu\",\"gpu\"]",
            ],
            "system.node_kinds[0] = \"gpu\"",
        ),
    ];
    for (args, needle) in cases {
        let (code, _, err) = locus(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn a_machine_with_a_memory_stack_runs() {
    let (code, out, err) = locus(&[
        "run",
        "-w",
        "vectoradd",
        "--param",
        "n=4096",
        "--set",
        "system.nodes=2",
        "--set",
        "system.node_kinds=[\"gpu\",\"stack\"]",
        "--set",
        KINDS,
    ]);
    assert_eq!(code, 0, "{out}{err}");
}
