//! System-level scenarios driven event by event (no workload): the race between an
//! invalidation and a fill in flight (issue 7 §2).

use super::{Ev, Kind, Req, System};
use crate::mapping::Mode;
use crate::preset;

/// A system of preset `name` with the `--set` overrides `sets`.
fn system(name: &str, sets: &[&str]) -> System {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    System::new(&preset::load(Some(name), None, &sets).unwrap())
}

fn directory_system() -> System {
    system(
        "coda-4gpu",
        &[
            "coherence.protocol=directory",
            "l2.write_policy_remote=write-through",
            "coherence.check=true",
        ],
    )
}

/// [`directory_system`] whose invalidations reach the L1s too (not the papers' rule).
fn directory_system_l1() -> System {
    system(
        "coda-4gpu",
        &[
            "coherence.protocol=directory",
            "l2.write_policy_remote=write-through",
            "coherence.check=true",
            "coherence.inval_scope=l2-and-l1",
        ],
    )
}

fn step(s: &mut System, ev: Ev) {
    match ev {
        Ev::SmTick(_) => {} // no warps
        Ev::L2Access(i) => s.l2_access(i),
        Ev::DramArrive(i) => s.dram_arrive(i),
        Ev::DramTick(c) => s.dram_tick_event(c as usize),
        Ev::DramDone(i) => s.dram_done(i),
        Ev::L2Fill(i) => s.l2_fill(i),
        Ev::L1Fill(i) => s.l1_fill(i),
        Ev::AtomicResp(i) => s.atomic_resp(i),
        Ev::WriteAck(i) => s.write_ack(i),
        Ev::Inval(i) => s.inval_arrive(i),
        Ev::Epoch(t) => s.epoch(t),
        Ev::Wait => {}
        Ev::Ndp(i) => s.ndp_arrive(i),
        Ev::NsuTick(i) => s.nsu_tick(i),
        Ev::Launch(_) => {} // no workload here
    }
}

/// A line homed at node 0 and its location.
fn line_at_node0(s: &System) -> (u64, crate::mapping::Location) {
    let shift = s.line_shift;
    let line = (1u64..)
        .find(|&l| s.map.locate(l << shift, Mode::Fgp).node == 0)
        .unwrap();
    (line, s.map.locate(line << shift, Mode::Fgp))
}

/// SM `sm` issues a read (L1 MSHR allocated) or a write of `line` now; returns the request.
fn issue(s: &mut System, kind: Kind, sm: usize, line: u64, loc: &crate::mapping::Location) -> u32 {
    issue_mode(s, kind, sm, line, loc, Mode::Fgp)
}

/// [`issue`] of a line of a `mode` page.
fn issue_mode(
    s: &mut System,
    kind: Kind,
    sm: usize,
    line: u64,
    loc: &crate::mapping::Location,
    mode: Mode,
) -> u32 {
    let node = s.sms[sm].node;
    if kind == Kind::Read {
        assert_eq!(s.sms[sm].mshr.add(line, u64::MAX), Some(true));
    } else {
        s.sms[sm].writes_inflight += 1;
    }
    let id = s.new_req(Req::from_sm(
        kind,
        sm,
        node,
        loc,
        line,
        mode,
        128,
        locus_workload::NO_OBJ,
        u64::MAX,
    ));
    let now = s.q.now();
    s.q.push(now, Ev::L2Access(id));
    id
}

/// Run events until `stop(event)` was handled (or the queue is empty).
fn run_until(s: &mut System, mut stop: impl FnMut(&Ev) -> bool) {
    while let Some((_, ev)) = s.q.pop() {
        let last = stop(&ev);
        step(s, ev);
        if last {
            return;
        }
    }
}

/// The race of [`an_invalidation_that_crosses_a_fill_prevents_its_install`], run to its
/// end: returns the line and node 1's slice of it.
fn fill_crossed_by_an_invalidation(s: &mut System) -> (u64, usize) {
    let (line, loc) = line_at_node0(s);
    issue(s, Kind::Read, 4, line, &loc);
    run_until(s, |_| false);
    let slice = s.slice_of(1, line, 0, loc.channel);
    assert!(s.slices[slice].cache.contains(line) && s.sms[4].l1.contains(line));
    s.slices[slice].cache.invalidate(line);
    s.sms[4].l1.invalidate(line);
    // the second miss and the write start together; the write is performed at the home's
    // L2 at once, its invalidation overtakes the miss's round trip
    issue(s, Kind::Read, 4, line, &loc);
    issue(s, Kind::Write, 0, line, &loc);
    run_until(s, |_| false);
    (line, slice)
}

/// The race of [`a_write_at_the_home_stops_an_l1_fill_of_old_data`], run to its end:
/// returns the line.
fn home_fill_raced_by_a_write(s: &mut System) -> u64 {
    let (line, loc) = line_at_node0(s);
    issue(s, Kind::Read, 1, line, &loc);
    run_until(s, |_| false);
    s.sms[1].l1.invalidate(line);
    let rid = issue(s, Kind::Read, 1, line, &loc);
    run_until(s, |e| matches!(e, Ev::L2Access(i) if *i == rid));
    let c = s.chk.as_ref().unwrap();
    assert_eq!(s.reqs[rid as usize].ver, 0, "an L2 hit on the old data");
    assert_eq!(c.performed(line), 0);
    issue(s, Kind::Write, 0, line, &loc);
    run_until(s, |_| false);
    line
}

/// Node 1 (SM 4) already shares a line homed at node 0 and has dropped its copies (as
/// evictions would); it misses on the line again while SM 0 writes it at the home. The
/// invalidation reaches node 1 while its new fill is in flight. With `inval_scope =
/// "l2-and-l1"` neither fill installs.
#[test]
fn an_invalidation_that_crosses_a_fill_prevents_its_install() {
    let mut s = directory_system_l1();
    let (line, slice) = fill_crossed_by_an_invalidation(&mut s);
    assert_eq!(s.coh.inv_sent, 1, "node 1 was a recorded sharer");
    assert_eq!(s.coh.inv_received, 1);
    assert_eq!(s.coh.inv_hits, 0, "nothing installed when it arrived");
    assert_eq!(
        s.coh.fills_dropped, 2,
        "neither the L2 nor the L1 fill installed"
    );
    assert!(!s.slices[slice].cache.contains(line));
    assert!(!s.sms[4].l1.contains(line));
    assert!(
        !s.sms[4].mshr.contains(line),
        "the waiter still got its data"
    );
    assert_eq!(s.live_requests(), 0);
    let c = s.chk.as_ref().unwrap();
    assert_eq!(c.violations, 0);
    assert_eq!(
        c.completed(line),
        1,
        "the write completed when its invalidation landed"
    );
}

/// The same crossing with the papers' rule (`inval_scope = "l2"`): the invalidation stops
/// the L2 fill only (its MSHR is poisoned); the L1 installs (the read was served after the
/// write, so with the new data).
#[test]
fn with_the_l2_scope_an_invalidation_crossing_a_fill_stops_the_l2_fill_only() {
    let mut s = directory_system();
    let (line, slice) = fill_crossed_by_an_invalidation(&mut s);
    assert_eq!((s.coh.inv_sent, s.coh.inv_received), (1, 1));
    assert_eq!(s.coh.fills_dropped, 1, "the L2 fill only");
    assert_eq!(s.coh.l1_inv_hits, 0);
    assert!(!s.slices[slice].cache.contains(line));
    assert!(s.sms[4].l1.contains(line));
    assert_eq!(s.live_requests(), 0);
    let c = s.chk.as_ref().unwrap();
    assert_eq!((c.copy(4, line), c.violations), (1, 0));
}

/// On chip, at the home: SM 1 hits the home L2 (old data on its way to the L1) just before
/// SM 0's write reaches the same slice. With `inval_scope = "l2-and-l1"` the L1 fill in
/// flight is not installed.
#[test]
fn a_write_at_the_home_stops_an_l1_fill_of_old_data() {
    let mut s = directory_system_l1();
    let line = home_fill_raced_by_a_write(&mut s);
    assert_eq!(s.coh.fills_dropped, 1);
    assert!(
        !s.sms[1].l1.contains(line),
        "the old data was not installed"
    );
    assert_eq!(s.chk.as_ref().unwrap().performed(line), 1);
    assert_eq!(s.live_requests(), 0);
}

/// The same race with the papers' rule (`inval_scope = "l2"`): the L1 installs the old
/// data, which the GPU memory model lets it serve until the next kernel starts (REC §2.3:
/// L1s are invalidated at kernel start). The checker owes such an L1 only what completed
/// before the kernel; the kernel boundary clears the L1 and moves that mark.
#[test]
fn with_the_l2_scope_an_l1_keeps_old_data_until_the_kernel_ends() {
    let mut s = directory_system();
    let line = home_fill_raced_by_a_write(&mut s);
    assert_eq!((s.coh.fills_dropped, s.coh.l1_inv_hits), (0, 0));
    assert!(s.sms[1].l1.contains(line), "the old data was installed");
    assert_eq!(s.live_requests(), 0);
    let c = s.chk.as_ref().unwrap();
    assert_eq!((c.copy(1, line), c.completed(line)), (0, 1));
    assert_eq!(
        c.completed_at_acquire(line),
        0,
        "all the L1 owes in this kernel"
    );
    s.kernel_boundary();
    assert!(!s.sms[1].l1.contains(line), "the acquire clears it");
    assert_eq!(s.chk.as_ref().unwrap().completed_at_acquire(line), 1);
}

/// SM 4 (node 1) reads a line homed at node 0; SM 0 (node 0) writes the line before the
/// home serves the read (`Some(false)`), or never.
fn scenario(write_before_read_served: bool) -> (System, u64, usize) {
    let mut s = directory_system();
    let (line, loc) = line_at_node0(&s);
    let rid = issue(&mut s, Kind::Read, 4, line, &loc);
    if write_before_read_served {
        run_until(&mut s, |e| matches!(e, Ev::DramArrive(i) if *i == rid));
        issue(&mut s, Kind::Write, 0, line, &loc);
    }
    run_until(&mut s, |_| false);
    let slice = s.slice_of(1, line, 0, loc.channel);
    (s, line, slice)
}

#[test]
fn without_a_crossing_write_the_fill_is_installed() {
    let (s, line, slice) = scenario(false);
    assert_eq!((s.coh.inv_sent, s.coh.fills_dropped), (0, 0));
    assert!(s.slices[slice].cache.contains(line));
    assert!(s.sms[4].l1.contains(line));
    assert_eq!(s.live_requests(), 0);
}

#[test]
fn a_write_before_the_read_is_served_is_seen_by_the_read() {
    // performed at the home before the read was served: the read returns the new data,
    // node 1 was no sharer yet, nothing to invalidate
    let (s, line, slice) = scenario(true);
    assert_eq!((s.coh.inv_sent, s.coh.fills_dropped), (0, 0));
    assert!(s.slices[slice].cache.contains(line));
    let c = s.chk.as_ref().unwrap();
    assert_eq!(
        c.copy(s.l2_cache_id(slice), line),
        1,
        "filled with the new version"
    );
    assert_eq!(s.live_requests(), 0);
}

/// A one-entry line directory (REC's baseline, rec.md §2.3): node 1 shares line A, then
/// node 2's read of line B evicts A's entry and sends node 1 an invalidation. A write of
/// A at the home right after finds no entry and invalidates nobody, yet it must not
/// complete before the eviction's invalidation lands (no acknowledgements): until then
/// node 1 may still read its old copy.
#[test]
fn a_write_after_an_eviction_completes_when_the_eviction_invalidation_lands() {
    let sets: Vec<String> = [
        "coherence.protocol=directory",
        "l2.write_policy_remote=write-through",
        "coherence.check=true",
        "directory.kind=line-fifo",
        "directory.entries=1",
        "directory.ways=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut s = System::new(&preset::load(Some("coda-4gpu"), None, &sets).unwrap());
    let (a, loc_a) = line_at_node0(&s);
    let shift = s.line_shift;
    let b = (a + 1..)
        .find(|&l| s.map.locate(l << shift, Mode::Fgp).node == 0)
        .unwrap();
    let loc_b = s.map.locate(b << shift, Mode::Fgp);
    issue(&mut s, Kind::Read, 4, a, &loc_a);
    run_until(&mut s, |_| false);
    let rb = issue(&mut s, Kind::Read, 8, b, &loc_b);
    run_until(&mut s, |e| matches!(e, Ev::DramDone(i) if *i == rb));
    assert_eq!(s.coh.inv_sent, 1, "B's entry evicted A's");
    assert_eq!(s.coh.inv_received, 0, "still in flight");
    let w = issue(&mut s, Kind::Write, 0, a, &loc_a);
    run_until(&mut s, |e| matches!(e, Ev::L2Access(i) if *i == w));
    let c = s.chk.as_ref().unwrap();
    assert_eq!(c.performed(a), 1);
    assert_eq!(
        c.completed(a),
        0,
        "held back by the eviction's invalidation"
    );
    run_until(&mut s, |_| false);
    assert_eq!(s.coh.inv_received, 1);
    assert_eq!(s.coh.inv_sent_by[crate::coherence::Cause::Evict.index()], 1);
    assert_eq!(s.coh.inv_hits_by[crate::coherence::Cause::Evict.index()], 1);
    assert_eq!(s.chk.as_ref().unwrap().completed(a), 1);
    assert_eq!(s.live_requests(), 0);
}

/// NUBA §2.2 / §3.3: on `nuba-mem-uba` a line is cached only in one of the 2 slices of its
/// own channel (`l2.slices_per_channel = 2`), so the 32 lines of a 4 KB page (one channel
/// under the fixed-channel map) meet 2 slice ports, not all 64. Fails if the slice ignores
/// the channel (the former hash over every slice of the node).
#[test]
fn memory_side_uba_caches_a_page_in_its_channels_two_slices() {
    let s = System::new(&preset::load(Some("nuba-mem-uba"), None, &[]).unwrap());
    let shift = s.line_shift;
    for page in [0u64, 1, 5, 31, 32, 77] {
        let mut used = std::collections::BTreeSet::new();
        let mut chans = std::collections::BTreeSet::new();
        for l in 0..32u64 {
            let line = page * 32 + l;
            let loc = s.map.locate(line << shift, Mode::Cgp);
            chans.insert(loc.channel);
            used.insert(s.slice_of(0, line, 0, loc.channel));
        }
        assert_eq!(chans.len(), 1, "a 4 KB page is in one channel");
        let ch = *chans.iter().next().unwrap() as usize;
        assert_eq!(
            used.into_iter().collect::<Vec<_>>(),
            vec![2 * ch, 2 * ch + 1],
            "page {page}: both slices of channel {ch}, no other"
        );
    }
    // the hash over all slices (slices_per_channel = 0) spreads the same page widely
    let sets = vec!["l2.slices_per_channel=0".to_string()];
    let h = System::new(&preset::load(Some("nuba-mem-uba"), None, &sets).unwrap());
    let spread: std::collections::BTreeSet<usize> = (0..32u64)
        .map(|l| h.slice_of(0, l, 0, h.map.locate(l << shift, Mode::Cgp).channel))
        .collect();
    assert!(spread.len() > 8, "{spread:?}");
}

/// SM-side UBA with channel-bound slices (nuba.md §2.3 [S], `l2.slices_per_channel = 2`;
/// the preset keeps the hash, see its comment): a partition caches a line of the other
/// partition in the slice `channel * 2 + bank bit` of its own 32, the index its home uses.
#[test]
fn sm_side_uba_caches_remote_lines_by_channel() {
    let sets = vec!["l2.slices_per_channel=2".to_string()];
    let s = System::new(&preset::load(Some("nuba-sm-uba"), None, &sets).unwrap());
    let shift = s.line_shift;
    let mut seen = std::collections::BTreeSet::new();
    for line in 0..4096u64 {
        let loc = s.map.locate(line << shift, Mode::Cgp);
        let (own, other) = (loc.node as usize, 1 - loc.node as usize);
        let a = s.slice_of(own as u32, line, loc.node, loc.channel);
        let b = s.slice_of(other as u32, line, loc.node, loc.channel);
        assert_eq!(a - own * 32, b - other * 32);
        assert_eq!((a - own * 32) / 2, loc.channel as usize);
        seen.insert(a - own * 32);
    }
    assert_eq!(seen.len(), 32, "every slice of a partition is used");
}

/// `l2.slices_per_channel` that does not divide the slices evenly is refused, naming the key.
#[test]
fn slices_per_channel_must_match_the_channels() {
    let sets = vec!["l2.slices_per_channel=3".to_string()];
    let e = preset::load(Some("nuba-mem-uba"), None, &sets).unwrap_err();
    assert!(format!("{e}").contains("l2.slices_per_channel"), "{e}");
}

/// A NUBA machine with Carrefour replication on and every page pinned on partition 0.
fn nuba_system() -> System {
    system(
        "nuba",
        &[
            "placement.policy=node",
            "placement.node=0",
            "placement.migration=carrefour",
            "replication.kind=none",
        ],
    )
}

/// The first SM of partition `node`.
fn sm_of(s: &System, node: u32) -> usize {
    (0..s.sms.len()).find(|&i| s.sms[i].node == node).unwrap()
}

/// SM `sm` reads the first line of coarse frame `ppn` and every event runs: returns the
/// line and the misses of every LLC slice together afterwards.
fn read_frame(s: &mut System, sm: usize, ppn: u64) -> (u64, u64) {
    let page = s.placement.page_bytes();
    let line = (ppn * page) >> s.line_shift;
    let loc = s.map.locate(ppn * page, Mode::Cgp);
    issue_mode(s, Kind::Read, sm, line, &loc, Mode::Cgp);
    run_until(s, |_| false);
    (line, s.slices.iter().map(|x| x.misses).sum())
}

/// Is `line` in any L1 or LLC slice?
fn cached_anywhere(s: &System, line: u64) -> bool {
    s.sms.iter().any(|x| x.l1.contains(line)) || s.slices.iter().any(|x| x.cache.contains(line))
}

/// NUBA §7.9, Carrefour: a write collapses a page's replicas and frees their frames. The
/// reader's L1 and slice held the replica's line; a page that later gets the same frame
/// must miss on it (no hit on the previous page's data): the freed frame's lines are
/// dropped when it is freed. Fails without `drop_frame_lines` (the line stays cached).
#[test]
fn a_collapsed_replica_frame_reused_misses_on_its_old_lines() {
    let mut s = nuba_system();
    let page = s.placement.page_bytes();
    let (va, vb) = (0x10_0000u64, 0x20_0000u64);
    s.placement.translate(va, locus_workload::NO_OBJ, 0);
    s.placement.translate(vb, locus_workload::NO_OBJ, 0);
    let r = s
        .placement
        .add_replica(va / page, 3, 0)
        .expect("a replica on 3");
    let sm = sm_of(&s, 3);
    let (line, misses) = read_frame(&mut s, sm, r);
    assert!(
        s.sms[sm].l1.contains(line),
        "the replica's line is in the L1"
    );
    assert!(cached_anywhere(&s, line));
    assert_eq!(s.collapse_replicas(va / page, s.q.now()), 1 << 3);
    assert!(!cached_anywhere(&s, line), "dropped with the frame");
    let st = &s.placement.stats;
    assert_eq!(st.freed_frames_flushed, 1);
    assert!(st.freed_lines_dropped >= 2, "the L1's and the slice's copy");
    assert_eq!(st.freed_dirty_dropped, 0, "a replica is read-only");
    // the frame is reused by another page's replica: its first read misses in the LLC
    let r2 = s.placement.add_replica(vb / page, 3, 0).unwrap();
    assert_eq!(r2, r, "the freed frame is reused");
    let (_, misses2) = read_frame(&mut s, sm, r2);
    assert_eq!(
        misses2,
        misses + 1,
        "a miss, not a hit on the old page's line"
    );
}

/// NUBA §7.9, Griffin: a move frees the page's old frame; a page mapped later onto that
/// frame must miss on the lines the moved page left cached there.
#[test]
fn a_moved_page_old_frame_reused_misses_on_its_old_lines() {
    let mut s = nuba_system();
    let page = s.placement.page_bytes();
    let (va, vb) = (0x10_0000u64, 0x20_0000u64);
    s.placement.translate(va, locus_workload::NO_OBJ, 0);
    let old = s.placement.lookup(va / page).unwrap().ppn;
    let sm = sm_of(&s, 0);
    let (line, misses) = read_frame(&mut s, sm, old);
    assert!(cached_anywhere(&s, line));
    let now = s.q.now();
    s.migrate_page(va / page, 5, now);
    run_until(&mut s, |_| false);
    assert_ne!(s.placement.lookup(va / page).unwrap().ppn, old);
    assert!(!cached_anywhere(&s, line), "dropped with the old frame");
    assert_eq!(s.placement.stats.freed_frames_flushed, 1);
    s.placement.translate(vb, locus_workload::NO_OBJ, 0);
    assert_eq!(s.placement.lookup(vb / page).unwrap().ppn, old, "reused");
    let (_, misses2) = read_frame(&mut s, sm, old);
    assert_eq!(
        misses2,
        misses + 1,
        "a miss, not a hit on the moved page's line"
    );
}

/// NUBA §7.9, Griffin: a dirty LLC line of a moved page is written back to the old frame
/// before it is dropped (one L2 write-back per dirty line, at its DRAM cost); without the
/// write-back the move was free of the flush a real migration pays.
#[test]
fn a_moved_page_dirty_line_is_written_back() {
    let mut s = nuba_system();
    let page = s.placement.page_bytes();
    let va = 0x10_0000u64;
    s.placement.translate(va, locus_workload::NO_OBJ, 0);
    let old = s.placement.lookup(va / page).unwrap().ppn;
    let sm = sm_of(&s, 0);
    let line = (old * page) >> s.line_shift;
    let loc = s.map.locate(old * page, Mode::Cgp);
    issue_mode(&mut s, Kind::Write, sm, line, &loc, Mode::Cgp);
    run_until(&mut s, |_| false);
    let dirty = s.slices.iter().filter(|x| x.cache.contains(line)).count();
    assert_eq!(
        dirty, 1,
        "the write left one dirty LLC copy (write-back, write-validate)"
    );
    let (wb, dram_writes) = (s.c.l2_writebacks, s.c.dram_writes);
    let now = s.q.now();
    s.migrate_page(va / page, 5, now);
    run_until(&mut s, |_| false);
    assert_eq!(s.placement.stats.freed_dirty_dropped, 1);
    assert_eq!(s.c.l2_writebacks, wb + 1, "one write-back per dirty line");
    assert_eq!(s.c.dram_writes, dram_writes + 1, "and it reached the DRAM");
    assert!(!cached_anywhere(&s, line));
    assert_eq!(s.live_requests(), 0);
}

/// Requests stalled on a slice's full MSHRs are all retried when an entry frees: one that
/// then hits (its line was written meanwhile, write-validate) takes no MSHR, and the next
/// must not be stranded with no fill left in flight to wake it (the `l2.mshrs_per_slice=2`
/// deadlock of hs under the reconverging merge, session 11).
#[test]
fn a_stalled_request_is_not_stranded_when_the_one_retried_before_it_hits() {
    let mut s = system("coda-4gpu", &["l2.mshrs_per_slice=1"]);
    let shift = s.line_shift;
    let (a, loc) = line_at_node0(&s);
    let slice = s.slice_of(0, a, 0, loc.channel);
    // two more lines homed at node 0 whose requests use the same slice
    let same: Vec<(u64, crate::mapping::Location)> = (a + 1..)
        .map(|l| (l, s.map.locate(l << shift, Mode::Fgp)))
        .filter(|(l, m)| m.node == 0 && s.slice_of(0, *l, 0, m.channel) == slice)
        .take(2)
        .collect();
    let (b, lb) = same[0];
    let (c, lc) = same[1];
    issue(&mut s, Kind::Read, 0, a, &loc); // takes the slice's one MSHR
    issue(&mut s, Kind::Read, 1, b, &lb); // stalls
    issue(&mut s, Kind::Read, 2, c, &lc); // stalls
    issue(&mut s, Kind::Write, 3, b, &lb); // write-back: b becomes present and dirty
    run_until(&mut s, |_| false);
    assert!(
        s.slices[slice].stalled.is_empty(),
        "no request left stalled"
    );
    assert_eq!(s.live_requests(), 0, "every request completed");
    for (sm, line) in [(0, a), (1, b), (2, c)] {
        assert!(!s.sms[sm].mshr.contains(line), "SM {sm} got its data");
    }
    assert!(s.slices[slice].cache.contains(c), "c was fetched after all");
}

/// A warp's program view reads the same instructions and line requests as the program it
/// was taken from (an offset or length off by one, or a view of the wrong vector, differs).
#[test]
fn a_program_view_reads_what_its_program_holds() {
    use super::ProgView;
    use locus_workload::{InstClass, LineReq, Space, WarpInst, WarpProgram};
    let mut p = WarpProgram::default();
    for k in 0..5u32 {
        let mut i = WarpInst::alu(InstClass::Fp, 32);
        i.pc = k;
        if k % 2 == 1 {
            i.class = InstClass::Load;
            i.space = Space::Global;
            i.first_line = p.lines.len() as u32;
            i.nlines = k as u16;
            for l in 0..k {
                p.lines.push(LineReq {
                    addr: 128 * (10 * k + l) as u64,
                    bytes: 4,
                    obj: 0,
                    sectors: 1,
                });
            }
        }
        p.insts.push(i);
    }
    p.truncated = true;
    let v = ProgView::of(&p);
    assert_eq!(v.len(), 5);
    assert!(v.truncated);
    for (k, i) in p.insts.iter().enumerate() {
        assert_eq!(v.get(k as u32), Some(*i));
        assert_eq!(v.lines_of(i), p.lines_of(i));
    }
    assert_eq!(v.get(5), None);
    assert!(v.lines_of(&p.insts[0]).is_empty());
    assert!(v.is_of(&p));
    // a program that grew (its vector may have moved) is no longer the view's
    p.insts.reserve(1 << 12);
    p.insts.push(WarpInst::alu(InstClass::Exit, 1));
    assert!(!v.is_of(&p));
}

/// Run `s`'s queue as the event loop does (until only timer epochs are left), restarting
/// the replication timer when the `Ev::Wait` at `restart_at` pops; returns the times, in
/// cycles, of the replication timer's epochs that fired and the MDR decisions taken.
fn replication_epochs(s: &mut System, restart_at: Option<u64>) -> (Vec<u64>, u64) {
    use super::TimerOwner;
    let cycle = s.clk.cycles(1);
    let id = s
        .timers
        .iter()
        .position(|t| t.owner == TimerOwner::Replication)
        .unwrap();
    s.arm_timers();
    let armed = s.timers_armed;
    let mut at = Vec::new();
    while s.q.len() > s.timers_armed {
        let (t, ev) = s.q.pop().unwrap();
        let before = s.timers[id].fired;
        step(s, ev);
        if s.timers[id].fired > before {
            at.push(t / cycle);
        }
        if matches!(ev, Ev::Wait) && Some(t / cycle) == restart_at {
            s.restart_timer(TimerOwner::Replication);
        }
    }
    s.disarm_timers(); // checks that every queued event left is an armed epoch
    assert!(s.timers_armed == 0 && armed > 0);
    (at, s.rep.mdr().unwrap().epochs)
}

/// MDR's epochs count from each kernel's start (nuba.md A7), by a timer restart: restarted
/// at 1.5 periods, the timer fires next at 2.5 periods, not 2. The epoch queued for 2
/// periods is dropped when it pops (no MDR decision then) and leaves the loop's count of
/// queued epochs right (the loop ends when only epochs are left). Without the restart
/// the epochs stay on the multiples of the period.
#[test]
fn a_restarted_timer_counts_its_periods_from_the_restart() {
    let sets = ["replication.kind=mdr", "replication.epoch_cycles=1000"];
    for restart in [None, Some(1500)] {
        let mut s = system("nuba", &sets);
        let c = s.clk.cycles(1);
        s.q.push(1500 * c, Ev::Wait);
        s.q.push(2600 * c, Ev::Wait);
        let (at, decisions) = replication_epochs(&mut s, restart);
        let want = if restart.is_some() {
            [1000, 2500]
        } else {
            [1000, 2000]
        };
        assert_eq!(at, want, "restart at {restart:?}");
        assert_eq!(decisions, 2, "one MDR decision per epoch fired");
    }
}

/// The (slice, set) pairs `lines` reach in `s` (each line in the slice `slice` gives) and
/// the most lines any pair gets.
fn pair_spread(
    s: &System,
    lines: &mut dyn Iterator<Item = u64>,
    slice: &dyn Fn(u64) -> usize,
) -> (usize, usize) {
    let mut n: std::collections::HashMap<(usize, usize), usize> = Default::default();
    for l in lines {
        let sl = slice(l);
        *n.entry((sl, s.slices[sl].cache.set_of(l))).or_default() += 1;
    }
    (n.len(), n.values().copied().max().unwrap_or(0))
}

/// The hashed L2 index on REC's slices (16 per node, 128 sets each): a contiguous range of
/// as many lines as a node's L2 holds fills every (slice, set) pair exactly to its ways, as
/// the linear index does, and a column walk (a 48-line stride) reaches many more pairs than
/// the linear index's few. Fails for the first hashed index tried (a plain XOR fold of the
/// line number, which correlates with the slice hash and filled a quarter of the pairs).
#[test]
fn the_hashed_l2_index_fills_every_slice_and_set_evenly() {
    let mut column = Vec::new();
    for idx in ["linear", "xor"] {
        let s = system("rec-4gpu", &[&format!("l2.set_index={idx}")]);
        let c = &s.cfg;
        let ways = c.l2.ways as usize;
        let pairs = (c.l2.bytes_per_node / c.system.line_bytes as u64) as usize / ways;
        let spread = |lines: &mut dyn Iterator<Item = u64>| {
            pair_spread(&s, lines, &|l| s.slice_of(0, l, 0, 0))
        };
        let base = 12_345 * pairs as u64;
        let all = spread(&mut (base..base + (pairs * ways) as u64));
        assert_eq!(all, (pairs, ways), "{idx}: contiguous lines");
        column.push(spread(&mut (0..pairs as u64).map(|r| base + 48 * r)).0);
    }
    assert!(
        column[1] > 4 * column[0],
        "pairs reached by a column walk: {column:?}"
    );
}

/// The bank-local L2 index (`l2.set_index = "partition"`, the NUBA and REC presets': the
/// slice-select bits deleted, then linear, as GPGPU-Sim and MGPUSim index a bank) on every
/// slice organisation it serves: hashed slices (REC's 16, NUBA's partitions of 2, the
/// MCM's), and slices owned by a channel (the UBA baselines: 2 per channel, channels by 4 KB
/// interleave, SM-side UBA with 2 nodes). A contiguous range of as many lines as a node's
/// L2 holds fills every (slice, set) pair exactly to its ways, and a column walk (a 48-line
/// stride over as many lines as there are pairs) reaches at least 4x the pairs the plain
/// linear index reaches; the linear index, whose set bits include a bit that picks the
/// home node or the channel, fills half the pairs at most with the same contiguous range. Fails if a slice-select bit is left in the index (its slice's
/// lines would share a fraction of the sets) or a non-select bit is deleted (two lines of a
/// slice would share an index: some pairs overfill).
#[test]
fn the_bank_local_l2_index_fills_every_slice_and_set_evenly() {
    for preset in [
        "rec-4gpu",
        "nuba",
        "nuba-mcm",
        "nuba-mem-uba",
        "nuba-sm-uba",
    ] {
        let mut column = Vec::new();
        for idx in ["linear", "partition"] {
            let s = system(preset, &[&format!("l2.set_index={idx}")]);
            let c = &s.cfg;
            let ways = c.l2.ways as usize;
            let pairs = (c.l2.bytes_per_node / c.system.line_bytes as u64) as usize / ways;
            let spread = |lines: &mut dyn Iterator<Item = u64>| {
                pair_spread(&s, lines, &|l| {
                    let loc = s.map.locate(l << s.line_shift, crate::mapping::Mode::Cgp);
                    s.slice_of(loc.node, l, loc.node, loc.channel)
                })
            };
            let nodes = c.system.nodes as usize;
            // whole groups of every node's pages, so each node gets the same share
            let base = 12_345 * (pairs * nodes) as u64;
            let all = spread(&mut (base..base + (pairs * ways * nodes) as u64));
            if idx == "partition" {
                assert_eq!(all, (pairs * nodes, ways), "{preset}: contiguous lines");
            } else {
                // the linear index keeps a node or channel bit among its set bits: the
                // lines a slice holds share it, so they reach half the pairs at most
                assert!(
                    2 * all.0 <= pairs * nodes,
                    "{preset}: linear reaches {all:?}"
                );
            }
            column.push(spread(&mut (0..(pairs * nodes) as u64).map(|r| base + 48 * r)).0);
        }
        assert!(
            column[1] >= 4 * column[0],
            "{preset}: pairs reached by a column walk, linear then partition: {column:?}"
        );
    }
}

/// Machines `partition` cannot number are refused before a run, naming the key and why: a
/// memory-side L2 (CODA's centralized preset), channels that are not a power of two with
/// slices per channel, and a channel interleave finer than the sub-partition bits; the
/// REC NVIDIA-like preset's 36 slices divide instead (accepted).
#[test]
fn partition_refuses_the_machines_it_cannot_number() {
    let load = |p: &str, sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        preset::load(Some(p), None, &sets)
            .map(|_| ())
            .map_err(|e| format!("{e:#}"))
    };
    let e = load("coda-centralized", &["l2.set_index=partition"]).unwrap_err();
    assert!(
        e.contains("l2.set_index") && e.contains("memory_side"),
        "{e}"
    );
    let e = load(
        "nuba-mem-uba",
        &[
            "memory.channel_interleave_bytes=128",
            "memory.stack_interleave_bytes=128",
        ],
    )
    .unwrap_err();
    assert!(
        e.contains("partition") && e.contains("channel_interleave_bytes"),
        "{e}"
    );
    assert!(load("rec-nvidia", &[]).is_ok());
    assert!(load("nuba-mem-uba", &["l2.set_index=linear"]).is_ok());
}
