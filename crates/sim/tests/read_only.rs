//! The per-kernel read-only bit known before a kernel runs (issue 7 §4):
//! `System::object_read_only_in_kernel` from the launch's start, reported per kernel as
//! `may_write_objects`, checked against what the kernel then wrote.

mod common;
use common::cfg;

use locus_sim::{Report, System};
use locus_workload::model::{Host, Kernel, ModelWorkload, Thread};
use locus_workload::{registry, Dim3, KernelInfo, Memory, ObjId};
use std::collections::BTreeMap;

fn run_with(w: &mut dyn locus_workload::Workload, probe: bool) -> Result<Report, String> {
    let c = cfg("coda-4gpu", &[]);
    let mut s = System::new(&c);
    s.compute_read_only_bits(probe);
    s.run(w, &mut |_| {}).map_err(|e| e.to_string())
}

/// For vectoradd, hs and bfs, the objects each kernel may write as known before its first
/// block (the dry run) are exactly those it then wrote; every other statistic equals a run
/// without the probe; without it the bit is unknown (no `may_write_objects`).
#[test]
fn read_only_bits_before_the_kernel_equal_what_it_wrote() {
    for (name, params) in [
        ("vectoradd", &[("n", "20000")][..]),
        ("hs", &[("n", "8k")][..]),
        ("bfs", &[("scale", "10")][..]),
    ] {
        let p: BTreeMap<String, String> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut w = registry::build(name, &p, 7).unwrap();
        let with = run_with(&mut w, true).unwrap();
        let mut w = registry::build(name, &p, 7).unwrap();
        let without = run_with(&mut w, false).unwrap();
        assert!(with.sim.kernels.len() >= 2 || name == "vectoradd");
        for k in &with.sim.kernels {
            assert_eq!(
                k.may_write_objects.as_ref(),
                Some(&k.written_objects),
                "{name}: kernel {} {}",
                k.index,
                k.name
            );
        }
        assert!(with
            .sim
            .kernels
            .iter()
            .any(|k| !k.written_objects.is_empty()));
        let mut stripped = with.sim.clone();
        for k in &mut stripped.kernels {
            k.may_write_objects = None;
        }
        assert!(without
            .sim
            .kernels
            .iter()
            .all(|k| k.may_write_objects.is_none()));
        assert_eq!(
            serde_json::to_string(&stripped).unwrap(),
            serde_json::to_string(&without.sim).unwrap(),
            "{name}: the probe changes no statistic"
        );
    }
}

/// A kernel that declares its writes: read `a`, write `b`, declared `decl`.
struct K {
    a: ObjId,
    b: ObjId,
    decl: Vec<ObjId>,
}
impl Kernel for K {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "k".into(),
            grid: Dim3::x(4),
            block: Dim3::x(64),
            regs_per_thread: 8,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let v: u32 = t.ld(self.a, t.gid());
        t.st(self.b, t.gid(), v + 1);
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(self.decl.clone())
    }
}
struct Once(Option<Box<dyn Kernel>>);
impl Host for Once {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        self.0.take()
    }
}
fn declared(decl: &[u16]) -> (ModelWorkload, ObjId, ObjId) {
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", 256, false);
    let b = m.alloc::<u32>("b", 256, false);
    let _c = m.alloc::<u32>("c", 256, false);
    let k = K {
        a,
        b,
        decl: decl.to_vec(),
    };
    (
        ModelWorkload::new("t", m, Box::new(Once(Some(Box::new(k))))),
        a,
        b,
    )
}

/// A declaration is used as given, without the probe (a superset is fine: `c` declared,
/// never written); a kernel that writes an object it declared read-only fails the run,
/// naming the kernel and the object.
#[test]
fn declared_writes_are_used_and_a_wrong_declaration_fails_the_run() {
    let (mut w, _, _) = declared(&[2, 1]);
    let r = run_with(&mut w, false).unwrap();
    let k = &r.sim.kernels[0];
    assert_eq!(k.may_write_objects, Some(vec!["b".into(), "c".into()]));
    assert_eq!(k.written_objects, vec!["b".to_string()]);
    let (mut w, _, _) = declared(&[0]);
    let e = run_with(&mut w, false).unwrap_err();
    assert!(
        e.contains("kernel k wrote object b") && e.contains("declared read-only"),
        "{e}"
    );
}

/// The bit itself, as a policy reads it: set when a launch begins (before its first
/// block) and kept until the next launch begins, so after a one-kernel run it is that
/// kernel's.
#[test]
fn object_read_only_in_kernel_answers_from_the_declaration() {
    let (mut w, a, b) = declared(&[1]);
    let c = cfg("coda-4gpu", &[]);
    let mut s = System::new(&c);
    s.run(&mut w, &mut |_| {}).unwrap();
    assert!(s.object_read_only_in_kernel(a));
    assert!(!s.object_read_only_in_kernel(b));
    assert!(s.object_read_only_in_kernel(2));
    // unknown (a model without a declaration, no probe): nothing is read-only
    let mut v = registry::build("vectoradd", &BTreeMap::new(), 7).unwrap();
    let mut s = System::new(&c);
    s.run(&mut v, &mut |_| {}).unwrap();
    assert!((0..3).all(|o| !s.object_read_only_in_kernel(o)));
}
