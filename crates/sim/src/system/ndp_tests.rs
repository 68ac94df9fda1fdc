//! Partitioned execution end to end (ndp.md §3-§4) on `ndp-8hmc` with small inputs.

use crate::ndp::packets::Packet;
use crate::ndp::NdpStats;
use crate::preset;
use crate::stats::Report;
use crate::system::System;
use locus_workload::{
    Dim3, Host, Kernel, KernelInfo, Memory, ModelWorkload, ObjId, Thread, Workload,
};
use std::collections::BTreeMap;

fn system(sets: &[&str]) -> System {
    let s: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    System::new(&preset::load(Some("ndp-8hmc"), None, &s).unwrap())
}

fn vadd(n: u64) -> ModelWorkload {
    let o = BTreeMap::from([("n".to_string(), n.to_string())]);
    locus_workload::registry::build("vectoradd", &o, 1).unwrap()
}

fn run(sets: &[&str], w: &mut ModelWorkload) -> (System, Report) {
    let mut s = system(sets);
    let r = s.run(w, &mut |_| {}).unwrap();
    (s, r)
}

fn ndp(r: &Report) -> &NdpStats {
    r.sim.ndp.as_ref().expect("ndp statistics")
}

/// (packets, bytes, GPU-link bytes) of packet kind `p`.
fn kind(s: &NdpStats, p: Packet) -> (u64, u64, u64) {
    let k = s.packets.iter().find(|k| k.kind == p.name()).unwrap();
    (k.packets, k.bytes, k.gpu_link_bytes)
}

fn obj(w: &ModelWorkload, name: &str) -> ObjId {
    w.objects().iter().position(|o| o.name == name).unwrap() as ObjId
}

/// vectorAdd with every instance offloaded (NaiveNDP, spec §3.2 / Fig. 2(b)): per
/// instance of a full warp exactly one command (16 B), 2 RDFs (16 B), 2 RDF responses
/// (144 B), a WTA (16 B), an NSU write (144 B), its write ack (16 B), an invalidation
/// (16 B) and the offload ack (16 B); the GPU links carry 96 B per instance, the closed
/// form of `ndp::offload` (and of `ndp::traffic`), and nothing else: the bytes the ports
/// carried equal the bytes of the packets sent. Every DRAM access is the NSUs'.
#[test]
fn vectoradd_naive_messages_sizes_and_conservation() {
    let n = 8192u64;
    let warps = n / 32;
    let (sys, r) = run(&["ndp.offload=naive"], &mut vadd(n));
    let s = ndp(&r);
    assert_eq!(s.instances_offloaded, warps);
    // the one static block as its markers and instructions give it (Table 1: VADD, 4)
    assert_eq!(s.blocks.len(), 1);
    let b = &s.blocks[0];
    assert_eq!(
        (b.loads, b.stores, b.live_ins, b.live_outs, b.nsu_insts),
        (2, 1, 0, 0, 4)
    );
    assert_eq!((b.iters, b.instances), (1, warps));
    assert_eq!(s.instances_on_gpu, 0);
    assert_eq!(s.credit_violations, 0);
    let want = [
        (Packet::OffloadCmd, 1, 16, true),
        (Packet::Rdf, 2, 16, true),
        (Packet::RdfResp, 2, 144, false),
        (Packet::Wta, 1, 16, true),
        (Packet::NsuWrite, 1, 144, false),
        (Packet::WriteAck, 1, 16, false),
        (Packet::Inval, 1, 16, true),
        (Packet::OffloadAck, 1, 16, true),
        (Packet::ReadReq, 0, 0, false),
    ];
    for (p, per, size, gpu) in want {
        let (pk, b, g) = kind(s, p);
        assert_eq!(pk, per * warps, "{}", p.name());
        assert_eq!(b, per * size * warps, "{}", p.name());
        assert_eq!(g, if gpu { b } else { 0 }, "{}", p.name());
    }
    // credits ride on the acks (§3.8); the few freed after an NSU's last ack leave alone
    // after 100 NSU cycles, 1 FLIT each over the GPU link
    let (cp, cb, cg) = kind(s, Packet::Credit);
    assert!(
        cp <= 8,
        "at most one standalone credit packet per NSU here: {cp}"
    );
    assert_eq!((cb, cg), (16 * cp, 16 * cp));
    assert_eq!(s.ndp_gpu_link_bytes, 96 * warps + cb);
    // the same closed form from the traffic analysis without timing
    let cfg = preset::load(Some("ndp-8hmc"), None, &[]).unwrap();
    let t = crate::ndp::traffic::analyze(&cfg, &mut vadd(n), 0).unwrap();
    assert_eq!(t.gpu_link + cb, s.ndp_gpu_link_bytes);
    // conservation: what the GPU links' ports carried is exactly the NDP packets
    assert_eq!(s.gpu_link_bytes, s.ndp_gpu_link_bytes);
    assert_eq!(sys.counters().dram_reads, 2 * warps);
    assert_eq!(sys.counters().dram_writes, warps);
    assert_eq!(sys.live_requests(), 0);
    // no live-in, no live-out registers in vectorAdd's block
    assert_eq!(s.live_ins_per_thread + s.live_outs_per_thread, 0.0);
    assert!(s.nsu_occupancy > 0.0);
    // the NSUs ran per instance the NSU code of Fig. 3(b): OFLD.BEG, the block's 4
    // instructions (LD, LD, FADD, ST) and OFLD.END
    assert_eq!(s.nsus.iter().map(|u| u.insts).sum::<u64>(), 6 * warps);
    assert_eq!(s.instance_time.nsu_insts_per_instance, 6.0);
    // the other reading: OFLD.BEG folded into the spawn
    let (_, r1) = run(
        &["ndp.offload=naive", "ndp.nsu_marker_insts=end-only"],
        &mut vadd(n),
    );
    assert_eq!(ndp(&r1).instance_time.nsu_insts_per_instance, 5.0);
}

/// The offloaded instances' timeline (issue 11): the eight phases add up to the total,
/// which is the GPU's part plus the time blocked at `OFLD.END`; every instance is counted;
/// the NSU issue-port utilisation is the NSU instructions over NSU cycles, at most 1; and
/// with one warp the NSU spawns its command at the next clock edge and issues the block's
/// instructions back to back.
#[test]
fn instance_timeline_adds_up() {
    let n = 8192u64;
    let (_, r) = run(&["ndp.offload=naive"], &mut vadd(n));
    let t = ndp(&r).instance_time;
    assert_eq!(t.instances, n / 32);
    let sum = t.to_grant_ns
        + t.command_transit_ns
        + t.command_queue_ns
        + t.data_wait_ns
        + t.nsu_issue_ns
        + t.write_ack_ns
        + t.ack_transit_ns
        + t.invalidation_wait_ns;
    assert!((sum - t.total_ns).abs() < 1e-6 * t.total_ns, "{t:?}");
    assert!((t.gpu_part_ns + t.blocked_ns - t.total_ns).abs() < 1e-6 * t.total_ns);
    assert!(t.blocked_ns > 0.0 && t.command_transit_ns > 0.0 && t.data_wait_ns > 0.0);
    assert!(t.nsu_issue_utilisation > 0.0 && t.nsu_issue_utilisation <= 1.0);
    assert!((t.nsu_cycle_ns - 2.857).abs() < 1e-9, "350 MHz");
    // one warp: after its last data arrived, the NSU issues what is left of LD, LD,
    // FADD, ST (1 to 4 instructions), the ST waiting L - 1 cycles more for the FADD
    // (ALU latency L: 1 = none, the default 9 = 18 SM cycles at half the clock), plus up
    // to a cycle to the clock edge
    for (set, lat) in [
        ("ndp.nsu_alu_latency=1", 1.0),
        ("ndp.nsu_alu_latency=0", 9.0),
    ] {
        let (_, r1) = run(&["ndp.offload=naive", set], &mut vadd(32));
        let t1 = ndp(&r1).instance_time;
        assert_eq!(t1.instances, 1);
        assert!(
            t1.command_queue_ns < t1.nsu_cycle_ns,
            "spawned at the next NSU edge"
        );
        assert!(
            t1.nsu_issue_ns >= lat * t1.nsu_cycle_ns
                && t1.nsu_issue_ns <= (4.0 + lat) * t1.nsu_cycle_ns,
            "{set}: {t1:?}"
        );
    }
}

/// One warp of vectorAdd end to end: the System sends exactly the messages of
/// `ndp::offload::offloaded` for the block (Fig. 2(b)), in its order (command, RDF A,
/// RDF B, WTA C, the two vault responses, the NSU write, its ack, the invalidation, the
/// offload ack) and sizes.
#[test]
fn vectoradd_one_warp_messages_in_fig2_order() {
    use crate::ndp::offload::{offloaded, LineAccess, MemInst, Sizes};
    use crate::ndp::select::BlockDesc;
    // without NSU ALU latency (ndp.nsu_alu_latency = 1) the credits of the consumed
    // entries ride on the offload ack; with the default latency (9 NSU cycles) the
    // instance outlives CREDIT_WAIT and they leave first in a credit packet (§3.8), the
    // other messages unchanged
    let (sys, _) = run(
        &["ndp.offload=naive", "ndp.nsu_alu_latency=1"],
        &mut vadd(32),
    );
    let got = &sys.ndp.as_ref().unwrap().log;
    let (sys9, _) = run(&["ndp.offload=naive"], &mut vadd(32));
    let got9: Vec<(Packet, u32)> = sys9
        .ndp
        .as_ref()
        .unwrap()
        .log
        .iter()
        .copied()
        .filter(|m| m.0 != Packet::Credit)
        .collect();
    let l = |stack| LineAccess {
        stack,
        active: 32,
        aligned: true,
        gpu_hit: false,
    };
    let (a, b, c) = ([l(0)], [l(1)], [l(0)]);
    let insts = [
        MemInst {
            store: false,
            lines: &a,
        },
        MemInst {
            store: false,
            lines: &b,
        },
        MemInst {
            store: true,
            lines: &c,
        },
    ];
    let d = BlockDesc {
        loads: 2,
        stores: 1,
        live_ins: 0,
        live_outs: 0,
        nsu_insts: 4,
    };
    let z = Sizes {
        line_bytes: 128,
        flit: 16,
        stacks: 8,
    };
    let mut want = Vec::new();
    offloaded(&d, 32, &insts, z, &mut want);
    let want: Vec<(Packet, u32)> = want.iter().map(|m| (m.packet, m.bytes)).collect();
    assert_eq!(got, &want);
    assert_eq!(got9, want);
}

/// §3.8's credit rule, literally: a freed entry's credit rides on the NSU's next packet
/// to the GPU (an offload ack) or, when none has left within `CREDIT_WAIT` (100) NSU
/// cycles of its freeing, leaves alone in a 1-FLIT credit packet. The wait counts from
/// the oldest credit the packet carries: every standalone credit packet of a run leaves
/// exactly 100 NSU cycles after it, and none leaves when the acks come sooner (no ALU
/// latency on one warp: its read credits ride on its ack, the previous test's case).
#[test]
fn credit_packet_leaves_credit_wait_cycles_after_the_oldest_credit() {
    let (sys, r) = run(&["ndp.offload=naive"], &mut vadd(4096));
    let n = sys.ndp.as_ref().unwrap();
    let period = n.nsu_clk.period;
    let (cp, _, _) = kind(ndp(&r), Packet::Credit);
    assert!(cp > 0, "the ALU latency lets some credits outwait an ack");
    assert_eq!(n.credit_log.len() as u64, cp);
    for &(s, since, sent) in &n.credit_log {
        assert_eq!(
            sent - since,
            super::CREDIT_WAIT * period,
            "NSU {s}: freed at {since} ps, sent at {sent} ps"
        );
    }
    let (sys1, r1) = run(
        &["ndp.offload=naive", "ndp.nsu_alu_latency=1"],
        &mut vadd(32),
    );
    assert_eq!(kind(ndp(&r1), Packet::Credit).0, 0);
    assert!(sys1.ndp.as_ref().unwrap().credit_log.is_empty());
}

/// The functional results of an offloaded run equal the GPU run's (C = A + B), and the
/// baseline run has no NDP section and no NDP event.
#[test]
fn offloaded_results_equal_the_gpu_run() {
    let n = 4096;
    let mut base = vadd(n);
    let (_, rb) = run(&[], &mut base);
    assert!(rb.sim.ndp.is_none());
    assert!(!rb.sim.events_by_kind.contains_key("ndp_packet"));
    let mut off = vadd(n);
    let (_, ro) = run(&["ndp.offload=naive"], &mut off);
    assert_eq!(ndp(&ro).instances_offloaded, n / 32);
    let (a, b, c) = (obj(&off, "A"), obj(&off, "B"), obj(&off, "C"));
    for i in 0..n {
        let want: f32 = off.memory().get::<f32>(a, i) + off.memory().get::<f32>(b, i);
        assert_eq!(off.memory().get::<f32>(c, i), want, "C[{i}]");
        assert_eq!(
            off.memory().get::<f32>(c, i),
            base.memory().get::<f32>(c, i)
        );
    }
    // the offloaded run is slower or faster, but it is a different run
    assert_ne!(ro.sim.total.cycles, rb.sim.total.cycles);
}

/// One warp slot, one command entry and the smallest legal read/write buffers: every
/// NSU buffer runs full, reservations are denied and retried, and the run completes
/// with every instance acknowledged (no deadlock, §3.8).
#[test]
fn no_deadlock_with_one_entry_nsu_buffers() {
    let n = 8192u64;
    let (_, r) = run(
        &[
            "ndp.offload=naive",
            "ndp.nsu_warps=1",
            "ndp.cmd_entries=1",
            "ndp.read_entries=32",
            "ndp.write_entries=32",
        ],
        &mut vadd(n),
    );
    let s = ndp(&r);
    assert_eq!(s.instances_offloaded, n / 32);
    assert_eq!(kind(s, Packet::OffloadAck).0, n / 32);
    assert_eq!(s.credit_violations, 0);
    assert!(s.credit_denials > 0, "reservations had to wait");
    assert!(s.peak_pending_packets > 0);
    assert!(s.nsus.iter().any(|u| u.peak_cmd == 1));
    assert!(s.nsus.iter().all(|u| u.peak_cmd <= 1));
}

/// `dyn`: Algorithm 1 moves the ratio at every epoch (short epochs here), and both kinds
/// of instances occur.
#[test]
fn dyn_ratio_changes_per_epoch() {
    let (_, r) = run(
        &["ndp.offload=dyn", "ndp.epoch_cycles=300"],
        &mut vadd(16384),
    );
    let s = ndp(&r);
    let mut seen: Vec<u64> = s.ratio_per_epoch.iter().map(|r| (r * 1e6) as u64).collect();
    seen.sort();
    seen.dedup();
    assert!(
        s.ratio_per_epoch.len() >= 4 && seen.len() >= 3,
        "{:?}",
        s.ratio_per_epoch
    );
    // the first epoch moves from 0.1 by the initial step 0.15
    assert!((s.ratio_per_epoch[0] - 0.25).abs() < 1e-9);
    assert!(s.instances_offloaded > 0 && s.instances_on_gpu > 0);
}

/// Algorithm 1's IPC readings (`ndp.hill_ipc`, spec §7 decision 3): under NaiveNDP (the
/// reading moves no ratio, so both runs are the same run) `retire` counts every instance
/// once it retired, its block's warp instructions x 32 active threads (vectorAdd's warps
/// are full), and `issue` counts each block warp instruction as it issues: the totals
/// differ by exactly 32, and `issue`'s is a whole number of instances' spans. Under `dyn`,
/// the epochs' IPCs never count more than the run's total.
#[test]
fn hill_ipc_counts_at_retirement_or_at_issue() {
    let (_, a) = run(
        &["ndp.offload=naive", "ndp.hill_ipc=retire"],
        &mut vadd(16384),
    );
    let (_, b) = run(
        &["ndp.offload=naive", "ndp.hill_ipc=issue"],
        &mut vadd(16384),
    );
    let (sa, sb) = (ndp(&a), ndp(&b));
    assert_eq!(a.sim.total.cycles, b.sim.total.cycles, "no ratio moves");
    let inst = sb.instances_offloaded;
    assert_eq!(inst, 16384 / 32);
    assert!(
        sb.hill_insts > 0 && sb.hill_insts % inst == 0,
        "{}",
        sb.hill_insts
    );
    assert_eq!(sa.hill_insts, 32 * sb.hill_insts);
    let (_, d) = run(
        &["ndp.offload=dyn", "ndp.epoch_cycles=300"],
        &mut vadd(16384),
    );
    let sd = ndp(&d);
    assert_eq!(sd.ipc_per_epoch.len(), sd.ratio_per_epoch.len());
    let counted: f64 = sd.ipc_per_epoch.iter().map(|x| x * 300.0).sum();
    assert!(counted > 0.0 && counted <= sd.hill_insts as f64 + 1e-6);
}

/// A kernel with two offload blocks of two loads and one live-out each, run `ITERS` times
/// per thread: block 0 reads 64 floats every warp shares (`hot`: in the GPU caches after
/// the first round), block 1 streams (`a`, `b`: never reused). With `reuse = false`,
/// block 0 streams too.
struct TwoBlocks {
    hot: ObjId,
    a: ObjId,
    b: ObjId,
    out: ObjId,
    n: u64,
    reuse: bool,
}

const ITERS: u64 = 8;

impl Kernel for TwoBlocks {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "two_blocks".into(),
            grid: Dim3::x((self.n / 256) as u32),
            block: Dim3::x(256),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.gid();
        let mut acc = 0.0f32;
        for r in 0..ITERS {
            let s = r * self.n + i;
            let (j, k) = if self.reuse {
                (i % 32, 32 + i % 32)
            } else {
                (s, ITERS * self.n + s)
            };
            t.ofld_begin(0, 0, 3);
            let x: f32 = t.ld(self.hot, j);
            let y: f32 = t.ld(self.hot, k);
            t.fp(1);
            t.ofld_end(1);
            t.ofld_begin(1, 0, 3);
            let u: f32 = t.ld(self.a, s);
            let v: f32 = t.ld(self.b, s);
            t.fp(1);
            t.ofld_end(1);
            t.fp(1);
            acc += x + y + u + v;
        }
        t.st(self.out, i, acc);
    }
}

struct Once(Option<Box<dyn Kernel>>);
impl Host for Once {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        self.0.take()
    }
}

fn two_blocks(n: u64, reuse: bool) -> ModelWorkload {
    let mut m = Memory::new();
    let hv: Vec<f32> = (0..2 * ITERS * n).map(|i| i as f32).collect();
    let hot = m.alloc_from("hot", &hv, true);
    let a = m.alloc_from("a", &hv[..(ITERS * n) as usize], true);
    let b = m.alloc_from("b", &hv[..(ITERS * n) as usize], true);
    let out = m.alloc::<f32>("out", n, false);
    let k = TwoBlocks {
        hot,
        a,
        b,
        out,
        n,
        reuse,
    };
    ModelWorkload::new("two_blocks", m, Box::new(Once(Some(Box::new(k)))))
}

/// `dyn-cache` (§4.4) with the spec's per-warp benefit suppresses the block whose lines hit
/// in the GPU caches (its score 2 lines x 128 B - 1 live-out x 128 B turns negative) and
/// keeps offloading the streaming block; when nothing is reused nothing is suppressed, and
/// `dyn` alone never suppresses. The printed benefit (the default) weighs an expected
/// missing line at 128 B x 32, so a block is suppressed only when no line at all is
/// expected to miss: the cumulative statistics keep the first instances' cold misses, the
/// expected missing lines round up to one, and 4096 B outweigh the block's one live-out
/// (128 B), so the block the per-warp benefit suppresses never is.
#[test]
fn dyn_cache_suppresses_blocks_whose_data_hit() {
    let n = 4096;
    let sets = [
        "ndp.offload=dyn-cache",
        "ndp.init_ratio=0.5",
        "ndp.paper_literal_benefit=false",
    ];
    let (_, r) = run(&sets, &mut two_blocks(n, true));
    let s = ndp(&r);
    let instances = 2 * ITERS * n / 32;
    assert_eq!(s.instances_offloaded + s.instances_on_gpu, instances);
    assert!(
        s.suppressed_by_cache_check > instances / 8,
        "most of block 0's instances are suppressed: {}",
        s.suppressed_by_cache_check
    );
    assert!(
        s.suppressed_by_cache_check < instances / 2,
        "block 1 never is"
    );
    assert!(s.instances_offloaded > 0);
    let (_, r) = run(&sets[..2], &mut two_blocks(n, true));
    assert_eq!(ndp(&r).suppressed_by_cache_check, 0, "printed benefit");
    let (_, r) = run(&sets, &mut two_blocks(n, false));
    assert_eq!(ndp(&r).suppressed_by_cache_check, 0);
    let (_, r) = run(
        &["ndp.offload=dyn", "ndp.init_ratio=0.5"],
        &mut two_blocks(n, true),
    );
    assert_eq!(ndp(&r).suppressed_by_cache_check, 0);
}

/// Two runs of the same configuration give identical statistics.
#[test]
fn determinism() {
    for mode in ["ndp.offload=dyn-cache", "ndp.offload=static"] {
        let sets = [mode, "ndp.epoch_cycles=2000"];
        let (_, a) = run(&sets, &mut two_blocks(2048, true));
        let (_, b) = run(&sets, &mut two_blocks(2048, true));
        assert_eq!(
            serde_json::to_string(&a.sim).unwrap(),
            serde_json::to_string(&b.sim).unwrap(),
            "{mode}"
        );
    }
}

fn build(name: &str, params: &[(&str, &str)]) -> ModelWorkload {
    let o: BTreeMap<String, String> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    locus_workload::registry::build(name, &o, 1).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every marked kernel model (spec ndp.md Table 1's workloads) runs with every instance
/// offloaded: instances are offloaded (the divergent ones of BFS, MiniFE, STN and BPROP's
/// bias row included), all complete (no stall, no request left, no credit broken, no NSU
/// buffer entry left) and the
/// functional outputs, every data object byte for byte, equal the run without offload.
#[test]
fn every_marked_workload_offloads_and_keeps_its_results() {
    let cases: [(&str, &[(&str, &str)]); 10] = [
        ("vectoradd", &[("n", "4096")]),
        ("bicg", &[("nx", "256"), ("ny", "256")]),
        (
            "km",
            &[
                ("npoints", "2048"),
                ("nfeatures", "40"),
                ("iterations", "1"),
                // the run without offload the same code as the marked one (as NDP's
                // reproduction runs them): the loop rolled
                ("loops", "rolled"),
            ],
        ),
        (
            "scalarprod",
            &[("vectors", "4"), ("elements", "4096"), ("loops", "rolled")],
        ),
        ("fwt", &[("log2data", "12"), ("log2kernel", "6")]),
        (
            "streamcluster",
            &[("n", "1024"), ("dim", "8"), ("kmin", "2"), ("kmax", "3")],
        ),
        ("backprop", &[("in", "4096")]),
        ("rodinia-bfs", &[("nodes", "4096")]),
        (
            "minife",
            &[("nx", "8"), ("ny", "8"), ("nz", "8"), ("max_iter", "2")],
        ),
        (
            "parboil-stencil",
            &[
                ("nx", "64"),
                ("ny", "8"),
                ("nz", "6"),
                ("iterations", "2"),
                ("kernel", "naive"),
            ],
        ),
    ];
    for (name, params) in cases {
        let mut base = build(name, params);
        let (sb, _) = run(&[], &mut base);
        let mut off = build(name, params);
        let (sys, ro) = run(&["ndp.offload=naive"], &mut off);
        let s = ndp(&ro);
        assert!(s.instances_offloaded > 0, "{name}: nothing offloaded");
        assert_eq!(s.not_offloadable, 0, "{name}: a marked span is not a block");
        assert_eq!(s.credit_violations, 0, "{name}");
        assert_eq!(
            kind(s, Packet::OffloadAck).0,
            s.instances_offloaded,
            "{name}: every instance acknowledged"
        );
        assert_eq!(sys.live_requests(), 0, "{name}");
        // every NSU buffer entry was taken by its instruction (a store's WTAs of several
        // lines are one entry; taking it at the first left the others behind)
        assert_eq!(
            sys.ndp_buffered(),
            [0; 3],
            "{name}: NSU buffer entries left"
        );
        assert_eq!(
            sys.counters().warp_insts,
            sb.counters().warp_insts,
            "{name}: the same warp instructions issue"
        );
        for (k, o) in base.objects().iter().enumerate() {
            let k = k as ObjId;
            assert_eq!(
                base.memory().to_vec::<u8>(k),
                off.memory().to_vec::<u8>(k),
                "{name}: {}",
                o.name
            );
        }
    }
}

/// `chain` dependent FP instructions per thread, `blocks` blocks of `threads` threads.
struct AluChain {
    blocks: u32,
    threads: u32,
    chain: u32,
    out: ObjId,
}

impl Kernel for AluChain {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "alu_chain".into(),
            grid: Dim3::x(self.blocks),
            block: Dim3::x(self.threads),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        // every compute instruction reads the previous one's result (model.rs)
        t.fp(self.chain);
        let i = t.gid();
        t.st(self.out, i, i as f32);
    }
}

fn alu_chain(blocks: u32, threads: u32, chain: u32) -> ModelWorkload {
    let mut m = Memory::new();
    let out = m.alloc::<f32>("out", (blocks * threads) as u64, false);
    let k = AluChain {
        blocks,
        threads,
        chain,
        out,
    };
    ModelWorkload::new("alu_chain", m, Box::new(Once(Some(Box::new(k)))))
}

/// Fig. 8's no-issue split (§6.3) with NDP on and nothing offloaded: the four classes add
/// up to SMs x cycles; one warp per SM running a dependent FP chain spends most cycles in
/// dependency stalls (each instruction waits for the previous one's latency) and none in a
/// busy unit; one warp on the whole GPU leaves 63 of the 64 SMs idle all the time.
#[test]
fn no_issue_split_dependency_and_idle() {
    let sets = ["ndp.offload=static", "ndp.static_ratio=0"];
    let (sys, r) = run(&sets, &mut alu_chain(64, 32, 400));
    let z = ndp(&r).no_issue;
    let sms = sys.sms.len() as u64;
    let cycles = r.sim.total.cycles;
    let sum = z.exec_busy + z.dependency + z.idle + z.issue;
    assert!(
        sum.abs_diff(sms * cycles) <= sms,
        "{z:?} vs {sms} x {cycles}"
    );
    assert_eq!(z.exec_busy, 0, "{z:?}");
    assert!(z.dependency > 2 * z.issue, "FP latency > 2 cycles: {z:?}");
    assert!(z.dependency > z.idle, "{z:?}");
    let (_, r) = run(&sets, &mut alu_chain(1, 32, 400));
    let z = ndp(&r).no_issue;
    assert!(z.idle >= 63 * r.sim.total.cycles, "{z:?}");
    assert!(z.dependency > 0);
}

/// Under NaiveNDP warps wait at `OFLD.END` for the NSUs' acks: warp-idle cycles rise
/// sharply against the same run with nothing offloaded (§6.3: "warp idle rises").
#[test]
fn naive_offload_raises_warp_idle() {
    let n = 16384;
    let (_, base) = run(&["ndp.offload=static", "ndp.static_ratio=0"], &mut vadd(n));
    let (_, naive) = run(&["ndp.offload=naive"], &mut vadd(n));
    let (b, v) = (ndp(&base).no_issue, ndp(&naive).no_issue);
    assert_eq!(ndp(&base).instances_offloaded, 0);
    assert!(v.idle > 2 * b.idle, "{b:?} -> {v:?}");
    assert!(v.idle > v.dependency, "{v:?}");
}

/// NaiveNDP with one NSU warp slot and one command entry: reservations wait, so the SM's
/// pending buffer fills (the setting of the pending-buffer tests).
const TIGHT_NSU: [&str; 5] = [
    "ndp.offload=naive",
    "ndp.nsu_warps=1",
    "ndp.cmd_entries=1",
    "ndp.read_entries=32",
    "ndp.write_entries=32",
];

/// The SM's pending packet buffer (§3.8, Table 2: 300) caps new offloads: with room for
/// 4 packets and NSU buffers that keep reservations waiting, warps are held at `OFLD.BEG`
/// while it is full, the buffer's peak stays far below the uncapped run's, and every
/// instance still completes. The uncapped run (the default 300) never hits the cap here.
#[test]
fn full_pending_buffer_stalls_new_offloads() {
    let n = 8192u64;
    let tight = TIGHT_NSU;
    let (_, r) = run(&tight, &mut vadd(n));
    let free = ndp(&r);
    assert_eq!(free.pending_full_stalls, 0);
    assert!(
        free.peak_pending_packets > 10,
        "{}",
        free.peak_pending_packets
    );
    let mut capped = tight.to_vec();
    capped.push("ndp.pending_entries=4");
    let (sys, r) = run(&capped, &mut vadd(n));
    let s = ndp(&r);
    assert!(s.pending_full_stalls > 0);
    assert_eq!(s.instances_offloaded, n / 32);
    assert_eq!(kind(s, Packet::OffloadAck).0, n / 32);
    assert_eq!(sys.live_requests(), 0);
    // an instance begins only below the cap and adds its command and 2 RDFs at most
    assert!(
        s.peak_pending_packets <= 4 + 3 * 2,
        "{}",
        s.peak_pending_packets
    );
    assert!(s.no_issue.exec_busy > 0, "a held OFLD.BEG is a busy unit");
}

/// Fig. 8's two readings of a buffer-held cycle (`ndp.pending_stall_as`, §6.3): with a
/// pending buffer of 4 that keeps warps at `OFLD.BEG`, the literal reading counts those
/// cycles as ExecUnitBusy, the other moves them to the warp-idle / dependency buckets.
/// Timing is the same under both (the option only reads the cycles); each reading's split
/// plus the issuing cycles adds up to SMs x cycles; both runs report both readings, equal;
/// what leaves ExecUnitBusy arrives in the other two buckets. With the default 300 entries
/// nothing is held and the readings agree.
#[test]
fn pending_stall_reading_moves_held_cycles() {
    let n = 8192u64;
    let tight = TIGHT_NSU;
    let mut lit = tight.to_vec();
    lit.push("ndp.pending_entries=4");
    let mut other = lit.clone();
    other.push("ndp.pending_stall_as=warp-idle");
    let (sys, a) = run(&lit, &mut vadd(n));
    let (_, b) = run(&other, &mut vadd(n));
    let (za, zb) = (ndp(&a).no_issue, ndp(&b).no_issue);
    assert!(ndp(&a).pending_full_stalls > 0);
    assert_eq!(a.sim.total.cycles, b.sim.total.cycles, "statistics only");
    assert_eq!(za.by_reading, zb.by_reading);
    assert_eq!(
        (za.pending_stall_as, zb.pending_stall_as),
        ("exec-unit-busy", "warp-idle")
    );
    let (e, w) = (za.by_reading.exec_unit_busy, za.by_reading.warp_idle);
    assert_eq!(
        (za.exec_busy, za.dependency, za.idle),
        (e.exec_busy, e.dependency, e.idle)
    );
    assert_eq!(
        (zb.exec_busy, zb.dependency, zb.idle),
        (w.exec_busy, w.dependency, w.idle)
    );
    let sms = sys.sms.len() as u64;
    let cycles = a.sim.total.cycles;
    for s in [e, w] {
        let sum = s.total() + za.issue;
        assert!(
            sum.abs_diff(sms * cycles) <= sms,
            "{s:?} + {} vs {sms} x {cycles}",
            za.issue
        );
    }
    assert_eq!(
        e.total(),
        w.total(),
        "the same no-issue cycles, classed two ways"
    );
    assert!(e.exec_busy > w.exec_busy, "{e:?} vs {w:?}");
    assert!(
        w.idle > e.idle,
        "held cycles become warp idle: {e:?} vs {w:?}"
    );
    assert!(w.dependency >= e.dependency);
    assert_eq!(
        e.exec_busy - w.exec_busy,
        (w.idle - e.idle) + (w.dependency - e.dependency)
    );
    // nothing held: one split
    let (_, r) = run(&tight, &mut vadd(n));
    let s = ndp(&r);
    assert_eq!((s.pending_full_stalls, s.ready_full_stalls), (0, 0));
    assert_eq!(
        s.no_issue.by_reading.exec_unit_busy,
        s.no_issue.by_reading.warp_idle
    );
}

/// The SM's ready packet buffer (§3.8, Table 2: 64) is a bounded stage: with one entry
/// every packet waits for the one before it to leave over its GPU link, so offloaded
/// memory instructions are held at issue (back-pressure), the buffer never holds more
/// than its entry, the run is slower, and every instance still completes with the same
/// packets. With the default 64 the buffer holds more than one packet at a time here.
#[test]
fn full_ready_buffer_holds_offloaded_memory_instructions() {
    let n = 8192u64;
    let (_, free) = run(&["ndp.offload=naive"], &mut vadd(n));
    let f = ndp(&free);
    assert!(
        f.peak_ready_packets > 1 && f.peak_ready_packets <= 64,
        "{}",
        f.peak_ready_packets
    );
    let (sys, tight) = run(&["ndp.offload=naive", "ndp.ready_entries=1"], &mut vadd(n));
    let t = ndp(&tight);
    assert!(t.ready_full_stalls > 0);
    assert_eq!(t.peak_ready_packets, 1);
    assert_eq!(t.instances_offloaded, n / 32);
    assert_eq!(kind(t, Packet::OffloadAck).0, n / 32);
    for p in [Packet::OffloadCmd, Packet::Rdf, Packet::Wta] {
        assert_eq!(kind(t, p), kind(f, p), "{}", p.name());
    }
    assert_eq!(sys.live_requests(), 0);
    assert!(tight.sim.total.cycles > free.sim.total.cycles);
    // the held cycles are ExecUnitBusy under the literal reading only
    let z = t.no_issue.by_reading;
    assert!(z.exec_unit_busy.exec_busy > z.warp_idle.exec_busy, "{z:?}");
}

/// A held SM sleeps (`System::ndp_sleep`, issue 11) and resumes issuing on the cycle a
/// pending slot frees, as the ticking SM does: with a pending buffer of 4 and NSU buffers
/// that keep reservations waiting, every grant that gives room to an SM holding warps at
/// `OFLD.BEG` is followed by a tick of that SM at the first cycle edge at or after the
/// grant (one later only when the grant came at the very edge of the SM's last tick,
/// after it), and that tick issues. Sleeping and ticking give the same grants, the same
/// resumes and the same statistics but the event counts; sleeping skips most ticks and
/// is deterministic.
#[test]
fn held_sm_resumes_on_the_cycle_a_slot_frees_asleep_or_ticking() {
    let mut sets = TIGHT_NSU.to_vec();
    sets.push("ndp.pending_entries=4");
    let go = |sleep: bool| {
        let mut s = system(&sets);
        s.ndp.as_deref_mut().unwrap().sleep_held = sleep;
        let r = s.run(&mut vadd(4096), &mut |_| {}).unwrap();
        let log = std::mem::take(&mut s.ndp.as_deref_mut().unwrap().resume_log);
        (s, r, log)
    };
    let (sys, asleep, slog) = go(true);
    let (_, ticking, tlog) = go(false);
    let (_, again, _) = go(true);
    assert_eq!(
        serde_json::to_string(&asleep.sim).unwrap(),
        serde_json::to_string(&again.sim).unwrap(),
        "deterministic, event counts included"
    );
    assert!(ndp(&asleep).pending_full_stalls > 0);
    assert!(slog.len() > 10, "{}", slog.len());
    let cyc = sys.sms[0].clk.period;
    for &(sm, t, tick, issued) in &slog {
        let edge = t.div_ceil(cyc) * cyc;
        assert!(
            tick == edge || (t % cyc == 0 && tick == t + cyc),
            "SM {sm}: grant at {t} ps, next tick at {tick} ps (cycle {cyc} ps)"
        );
        assert!(
            issued,
            "SM {sm}: the tick at {tick} ps after the grant issued nothing"
        );
    }
    assert_eq!(slog, tlog, "the same grants and resumes");
    let strip = |r: &Report| {
        let mut v = serde_json::to_value(&r.sim).unwrap();
        let o = v.as_object_mut().unwrap();
        let e = [o.remove("events"), o.remove("events_by_kind")];
        (v, e)
    };
    let ((a, ea), (b, eb)) = (strip(&asleep), strip(&ticking));
    assert_eq!(a, b, "statistics but the event counts");
    let ticks = |e: &[Option<serde_json::Value>; 2]| e[1].as_ref().unwrap()["sm_tick"].as_u64();
    assert!(
        ticks(&ea) < ticks(&eb),
        "sleeping skips ticks: {ea:?} vs {eb:?}"
    );
}

/// The NSUs in the energy model and Fig. 11's I-cache use (ndp.md §5.3, §7.5), on vectorAdd
/// with every instance offloaded: each instance's one `@NSU` FADD issues on the GPU as a
/// NOP, priced as `inst other` and not `inst fp`; the NSUs' warp instructions are `inst
/// nsu`; the 8 NSUs draw static power; an NSU that ran the block holds its code, (4 + 2) x
/// 8 B (Table 1's VADD body and the two markers). With nothing offloaded (static ratio 0)
/// the NSUs are power-gated and hold no code. Fails if the NOPs are priced twice or not
/// moved, if the NSUs' instructions or static power are left out or drawn while gated, or
/// if the I-cache misses a block or counts one twice.
#[test]
fn nsu_energy_and_icache_use() {
    use crate::energy::EnergyCounts;
    let n = 8192u64;
    let warps = n / 32;
    let (sys, r) = run(&["ndp.offload=naive"], &mut vadd(n));
    let s = ndp(&r);
    assert_eq!(s.gpu_alu_nops, [0, warps, 0, 0, 0]);
    let raw = EnergyCounts::insts_from(&sys.c);
    let c = sys.energy_counts();
    assert_eq!(raw[1] - c.insts[1], warps);
    assert_eq!(c.insts[4] - raw[4], warps);
    let nsu: u64 = s.nsus.iter().map(|u| u.insts).sum();
    assert!(nsu >= 4 * warps, "{nsu}");
    assert_eq!((c.nsu_insts, c.nsus), (nsu, 8));
    let part = |r: &Report, name: &str| {
        let p = r.sim.energy.parts.iter().find(|p| p.name == name).unwrap();
        (p.count, p.joules)
    };
    assert_eq!(part(&r, "inst nsu").0, nsu);
    assert_eq!(part(&r, "static nsu").0, 8);
    let mut ran = 0;
    for u in &s.nsus {
        if u.insts > 0 {
            ran += 1;
            assert_eq!(u.code_bytes, 6 * 8, "stack {}", u.stack);
            assert_eq!(u.icache_use, 48.0 / 4096.0);
        } else {
            assert_eq!(u.code_bytes, 0);
        }
    }
    assert!(ran > 1, "pages are spread over the stacks");
    let mean = s.nsus.iter().map(|u| u.icache_use).sum::<f64>() / 8.0;
    assert_eq!(s.nsu_icache_use, mean);
    // nothing offloaded: gated, no code, nothing moved
    let (sys0, r0) = run(&["ndp.offload=static", "ndp.static_ratio=0"], &mut vadd(n));
    let c0 = sys0.energy_counts();
    assert_eq!((c0.nsu_insts, c0.nsus), (0, 0));
    assert_eq!(c0.insts, EnergyCounts::insts_from(&sys0.c));
    assert_eq!(ndp(&r0).gpu_alu_nops, [0; 5]);
    assert!(ndp(&r0).nsus.iter().all(|u| u.code_bytes == 0));
    assert_eq!(part(&r0, "static nsu"), (0, 0.0));
}

/// How the lanes of [`Shaped`]'s load pick their word.
#[derive(Clone, Copy)]
enum Pick {
    /// `a[i]`: lane `k` reads word `k` of the warp's line.
    Own,
    /// `a[i ^ 1]`: the lanes swap neighbouring words (one line, a permutation).
    Swap,
    /// `a[warp base]`: every lane reads the warp's first word (a broadcast).
    Bcast,
}

/// One offload block per thread: `out[i] = a[pick(i)]`.
struct Shaped {
    a: ObjId,
    out: ObjId,
    n: u64,
    pick: Pick,
}

impl Kernel for Shaped {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "shaped".into(),
            grid: Dim3::x(self.n.div_ceil(256) as u32),
            block: Dim3::x(256),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.gid();
        if i >= self.n {
            return;
        }
        let j = match self.pick {
            Pick::Own => i,
            Pick::Swap => i ^ 1,
            Pick::Bcast => i / 32 * 32,
        };
        t.ofld_begin(0, 0, 2);
        let x: f32 = t.ld(self.a, j);
        t.st(self.out, i, x);
        t.ofld_end(0);
    }
}

fn shaped(n: u64, pick: Pick) -> ModelWorkload {
    let mut m = Memory::new();
    let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let a = m.alloc_from("a", &v, true);
    let out = m.alloc::<f32>("out", n, false);
    let k = Shaped { a, out, n, pick };
    ModelWorkload::new("shaped", m, Box::new(Once(Some(Box::new(k)))))
}

/// RDF / WTA alignment is §3.5's per-lane rule: lane `i` reads `line base + 4 i`. A
/// permutation inside one line or a broadcast is misaligned (32 offsets of 5 bits: 1 + 2
/// FLITs, 48 B) though its lanes use the whole line; a partial warp whose lanes sit at
/// their own words is aligned (1 FLIT) though it uses half the line. The simulator and the
/// traffic analysis agree.
#[test]
fn rdf_and_wta_alignment_follows_the_lanes() {
    let cfg = preset::load(Some("ndp-8hmc"), None, &[]).unwrap();
    for (pick, rdf) in [(Pick::Own, 16), (Pick::Swap, 48), (Pick::Bcast, 48)] {
        let n = 8192u64;
        let (_, r) = run(&["ndp.offload=naive"], &mut shaped(n, pick));
        let s = ndp(&r);
        assert_eq!(s.instances_offloaded, n / 32);
        assert_eq!(kind(s, Packet::Rdf), (n / 32, rdf * n / 32, rdf * n / 32));
        assert_eq!(kind(s, Packet::Wta).1, 16 * n / 32, "out[i] is aligned");
        let t = crate::ndp::traffic::analyze(&cfg, &mut shaped(n, pick), 0).unwrap();
        let k = Packet::ALL.iter().position(|&k| k == Packet::Rdf).unwrap();
        assert_eq!(t.gpu_link_by_kind[k], rdf * n / 32);
    }
    // a tail warp of 16 threads: aligned, and its responses carry 16 words
    let n = 8192u64 + 16;
    let warps = n.div_ceil(32);
    let (_, r) = run(&["ndp.offload=naive"], &mut vadd(n));
    let s = ndp(&r);
    assert_eq!(s.instances_offloaded, warps);
    assert_eq!(kind(s, Packet::Rdf).1, 2 * 16 * warps);
    assert_eq!(kind(s, Packet::Wta).1, 16 * warps);
    assert_eq!(kind(s, Packet::RdfResp).1, 2 * (144 * (warps - 1) + 80));
}
