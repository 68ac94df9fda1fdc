//! Issue 7 §4: per-lane addresses on request (`BlockProgram::record_lanes`) and the objects
//! a launch may write, known before it runs (`Kernel::writes`, `Workload::launch_writes`).

use locus_workload::model::{Host, Kernel, ModelWorkload, Thread};
use locus_workload::{
    coalesce, registry, BlockProgram, Dim3, KernelInfo, LineReq, Memory, ObjId, Space, Workload,
};
use std::collections::BTreeMap;

fn build(name: &str, params: &[(&str, &str)]) -> locus_workload::ModelWorkload {
    let p: BTreeMap<String, String> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    registry::build(name, &p, 3).unwrap()
}

/// Every memory instruction's recorded lane addresses coalesce to exactly its line
/// requests (same lines, same bytes, same order), one entry per active lane on distinct
/// lanes; other instructions have none; and recording changes nothing else in the
/// generated program. Models with shared memory, divergence and irregular accesses.
#[test]
fn lane_addresses_coalesce_to_the_instructions_lines() {
    for (name, params) in [
        ("vectoradd", &[("n", "5000")][..]),
        ("hs", &[("n", "8k")][..]),
        ("bfs", &[("scale", "10")][..]),
        ("mm", &[][..]),
    ] {
        let mut w = build(name, params);
        let info = w.begin_launch().unwrap().unwrap();
        let blocks = info.num_blocks().min(6);
        let (mut plain, mut rec) = (BlockProgram::default(), BlockProgram::default());
        rec.record_lanes = true;
        let mut checked = 0;
        for b in 0..blocks {
            w.gen_block(b, true, 128, &mut plain).unwrap();
            w.gen_block(b, true, 128, &mut rec).unwrap();
            for (wp, wr) in plain.warps.iter().zip(&rec.warps) {
                assert_eq!(wp.insts, wr.insts, "{name}: recording changed the program");
                assert_eq!(wp.lines, wr.lines, "{name}");
                assert_eq!(wp.lanes_of(0), None, "{name}: nothing recorded when off");
                assert_eq!(wr.lane_at.len(), wr.insts.len() + 1, "{name}");
                for (i, inst) in wr.insts.iter().enumerate() {
                    let lanes = wr.lanes_of(i).unwrap();
                    if !inst.class.is_mem() {
                        assert!(lanes.is_empty(), "{name}: {inst:?}");
                        continue;
                    }
                    assert_eq!(lanes.len(), inst.lanes as usize, "{name}: {inst:?}");
                    let mut seen = 0u64;
                    for l in lanes {
                        assert!(l.lane < 32 && seen & (1 << l.lane) == 0, "{name}");
                        seen |= 1 << l.lane;
                    }
                    if inst.space == Space::Shared {
                        continue;
                    }
                    let want = wr.lines_of(inst);
                    let addrs: Vec<(u64, u32)> =
                        lanes.iter().map(|l| (l.addr, l.bytes as u32)).collect();
                    let mut got: Vec<LineReq> = Vec::new();
                    coalesce(&addrs, 128, want[0].obj, &mut got);
                    assert_eq!(got, want, "{name} block {b} inst {i}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 0, "{name}: no memory instruction checked");
    }
}

/// The dry run's answer equals what the launch then writes, launch by launch, for
/// vectoradd, hs (ping-pong buffers) and bfs (several kernels per level, host control
/// flow): `launch_writes(true)` before the blocks, compared with the objects of the
/// stores and atomics of every block generated afterwards in order.
#[test]
fn dry_run_writes_equal_the_launches_writes() {
    for (name, params) in [
        ("vectoradd", &[("n", "5000")][..]),
        ("hs", &[("n", "8k")][..]),
        ("bfs", &[("scale", "9")][..]),
    ] {
        let mut w = build(name, params);
        let mut bp = BlockProgram::default();
        let mut launches = 0;
        while let Some(info) = w.begin_launch().unwrap() {
            assert_eq!(
                w.launch_writes(false),
                None,
                "{name}: undeclared, not computed"
            );
            let before = w.launch_writes(true).unwrap();
            let mut wrote = vec![false; w.objects().len()];
            for b in 0..info.num_blocks() {
                w.gen_block(b, false, 128, &mut bp).unwrap();
                for wp in &bp.warps {
                    for inst in &wp.insts {
                        if matches!(
                            inst.class,
                            locus_workload::InstClass::Store | locus_workload::InstClass::Atomic
                        ) && inst.space != Space::Shared
                        {
                            for l in wp.lines_of(inst) {
                                wrote[l.obj as usize] = true;
                            }
                        }
                    }
                }
            }
            let after: Vec<ObjId> = (0..wrote.len() as ObjId)
                .filter(|&o| wrote[o as usize])
                .collect();
            assert_eq!(before, after, "{name} launch {launches} ({})", info.name);
            launches += 1;
        }
        assert!(launches > 0);
    }
}

/// A kernel that declares its writes answers without a dry run (and a declaration may
/// name more than it writes).
struct Declared {
    a: ObjId,
    b: ObjId,
}
impl Kernel for Declared {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "declared".into(),
            grid: Dim3::x(1),
            block: Dim3::x(32),
            regs_per_thread: 8,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let v: u32 = t.ld(self.a, t.gid());
        t.st(self.b, t.gid(), v + 1);
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.b, self.a, self.b])
    }
}
struct Once(Option<Box<dyn Kernel>>);
impl Host for Once {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        self.0.take()
    }
}

#[test]
fn declared_writes_are_used_as_given() {
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", 32, false);
    let b = m.alloc::<u32>("b", 32, false);
    let mut w = ModelWorkload::new("t", m, Box::new(Once(Some(Box::new(Declared { a, b })))));
    w.begin_launch().unwrap().unwrap();
    assert_eq!(
        w.launch_writes(false),
        Some(vec![a, b]),
        "sorted, deduplicated"
    );
    assert_eq!(w.launch_writes(true), Some(vec![a, b]));
}
