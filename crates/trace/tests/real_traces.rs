//! The two example traces parse completely, with counts equal to an independent text scan,
//! and the random-access paths (seek index, xz reorder buffer) return exactly the blocks of
//! sequential reading.

mod common;
use common::*;
use locus_trace::*;
use std::path::Path;

fn sequential(path: &Path) -> Vec<TraceBlock> {
    let mut r = KernelReader::open(path).unwrap();
    let mut out = Vec::new();
    let mut b = TraceBlock::default();
    while r.next_block(&mut b).unwrap() {
        out.push(b.clone());
    }
    out
}

fn check_folder(dir: &str, kernels: usize) {
    let st = stat(Path::new(dir)).unwrap();
    let files = listed_kernels(dir);
    assert_eq!(st.kernels.len(), kernels);
    assert_eq!(files.len(), kernels);
    let mut tot = TextCounts::default();
    for (k, f) in st.kernels.iter().zip(&files) {
        let t = text_counts(f);
        assert_eq!(t.insts_declared, t.inst_lines, "{f:?} text self-check");
        let c = &k.counts;
        assert_eq!(c.thread_blocks, t.blocks, "{f:?} blocks");
        assert_eq!(c.warps, t.warps, "{f:?} warps");
        assert_eq!(c.instructions, t.inst_lines, "{f:?} insts");
        assert_eq!(c.mem_instructions, t.mem_insts, "{f:?} mem insts");
        assert_eq!(c.thread_addresses, t.thread_addrs, "{f:?} thread addresses");
        assert_eq!(c.by_class.values().sum::<u64>(), c.instructions);
        assert_eq!(c.by_space.values().sum::<u64>(), c.mem_instructions);
        tot.blocks += t.blocks;
        tot.warps += t.warps;
        tot.inst_lines += t.inst_lines;
        tot.mem_insts += t.mem_insts;
        tot.thread_addrs += t.thread_addrs;
    }
    assert_eq!(st.totals.thread_blocks, tot.blocks);
    assert_eq!(st.totals.warps, tot.warps);
    assert_eq!(st.totals.instructions, tot.inst_lines);
    assert_eq!(st.totals.mem_instructions, tot.mem_insts);
    assert_eq!(st.totals.thread_addresses, tot.thread_addrs);
    assert!(st.warnings.is_empty(), "{:?}", st.warnings);
    serde_json_like(&st);
}

/// The stat serialises (checked through serde's derive by formatting with Debug only; the
/// crate has no JSON dependency).
fn serde_json_like(st: &TraceStat) {
    assert!(!format!("{st:?}").is_empty());
}

#[test]
fn vectoradd_counts_match_text_scan() {
    if !have_traces("vectoradd_counts_match_text_scan") {
        return;
    }
    check_folder(VECTORADD, 1);
    let st = stat(Path::new(VECTORADD)).unwrap();
    let k = &st.kernels[0];
    assert_eq!(k.grid, [196, 1, 1]);
    assert_eq!(k.block, [256, 1, 1]);
    assert_eq!(k.counts.thread_blocks, 196);
    assert_eq!(k.counts.warps, 196 * 8);
    assert_eq!(k.generation, "Ampere");
    assert_eq!(k.tracer_version, 5);
    // vectorAdd: 50000 floats per array; A and B are read, C is written outside the copies
    let b = &k.counts.bytes_by_object;
    assert_eq!(b[0].name, "obj0");
    assert_eq!(b[0].bytes, 200_000);
    assert_eq!(b[1].bytes, 200_000);
    assert_eq!(b[2].name, "other");
    assert_eq!(b[2].bytes, 200_000);
    // 3 arrays x 200000 B: ceil-ish line and page counts
    assert!(k.counts.lines_128b >= 3 * 1562 && k.counts.lines_128b <= 3 * 1564);
    let shared: u64 = k.page_sharing.iter().skip(1).map(|s| s.pages).sum();
    assert!(
        shared > 0,
        "pages at block boundaries are shared by two blocks"
    );
    assert_eq!(
        k.page_sharing.iter().map(|s| s.pages).sum::<u64>(),
        k.counts.pages_4k
    );
}

#[test]
fn backprop_counts_match_text_scan() {
    if !have_traces("backprop_counts_match_text_scan") {
        return;
    }
    check_folder(BACKPROP, 33);
    let st = stat(Path::new(BACKPROP)).unwrap();
    assert!(st.kernels.iter().all(|k| k.generation == "Hopper"));
    assert_eq!(st.objects.len(), 5);
}

#[test]
fn random_access_equals_sequential() {
    if !have_traces("random_access_equals_sequential") {
        return;
    }
    let mut files = listed_kernels(VECTORADD);
    files.extend(listed_kernels(BACKPROP).into_iter().take(5));
    for f in files {
        let seq = sequential(&f);
        let n = seq.len() as u64;
        // a deterministic scrambled order (hash-sorted ids), then everything again reversed
        let mut order: Vec<u64> = (0..n).collect();
        order.sort_by_key(|&i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7, i));
        order.extend((0..n).rev());
        for streaming in [false, true] {
            let mut kt = if streaming {
                KernelTrace::open_streaming(&f).unwrap()
            } else {
                KernelTrace::open(&f).unwrap()
            };
            let mut b = TraceBlock::default();
            for &id in &order {
                assert!(kt.read_block(id, &mut b).unwrap(), "{f:?} block {id}");
                let want = seq.iter().find(|s| s.linear == id).unwrap();
                assert_eq!(&b, want, "{f:?} block {id} streaming={streaming}");
            }
            assert!(!kt.read_block(n + 5, &mut b).unwrap());
        }
        // in-order access keeps the reorder buffer empty
        let mut kt = KernelTrace::open_streaming(&f).unwrap();
        let mut b = TraceBlock::default();
        for s in &seq {
            assert!(kt.read_block(s.linear, &mut b).unwrap());
            assert_eq!(&b, s);
            assert_eq!(kt.buffered_blocks(), 0);
        }
        assert_eq!(kt.restarts(), 0);
    }
}

#[test]
fn xz_gives_identical_results_and_corruption_errors() {
    if !have_traces("xz_gives_identical_results_and_corruption_errors") {
        return;
    }
    use std::io::Write;
    let dir = TempDir::new("xz");
    let src = Path::new(VECTORADD).join("kernel-1.traceg");
    let raw = std::fs::read(&src).unwrap();
    let mut enc = xz2::write::XzEncoder::new(Vec::new(), 1);
    enc.write_all(&raw).unwrap();
    let xz = enc.finish().unwrap();
    let list = std::fs::read_to_string(Path::new(VECTORADD).join("kernelslist.g"))
        .unwrap()
        .replace("kernel-1.traceg", "kernel-1.traceg.xz");
    dir.write("kernelslist.g", &list);
    let xzpath = dir.write("kernel-1.traceg.xz", &xz);

    let a = stat(Path::new(VECTORADD)).unwrap();
    let b = stat(dir.path()).unwrap();
    assert_eq!(a.kernels[0].counts, b.kernels[0].counts);
    assert_eq!(a.totals, b.totals);
    assert_eq!(sequential(&xzpath), sequential(&src));

    // reversed order through the reorder buffer, then a repeated request (decoder restart)
    let seq = sequential(&src);
    let mut kt = KernelTrace::open(&xzpath).unwrap();
    let mut blk = TraceBlock::default();
    for s in seq.iter().rev() {
        assert!(kt.read_block(s.linear, &mut blk).unwrap());
        assert_eq!(&blk, s);
    }
    assert!(kt.read_block(195, &mut blk).unwrap());
    assert_eq!(&blk, &seq[195]);
    assert_eq!(kt.restarts(), 1);

    // corruption in the middle of the compressed stream
    let mut bad = xz.clone();
    let mid = bad.len() / 2;
    for b in &mut bad[mid..mid + 16] {
        *b ^= 0x5a;
    }
    dir.write("kernel-1.traceg.xz", &bad);
    let e = stat(dir.path()).unwrap_err();
    assert!(e.msg.contains("xz"), "{e}");
    assert!(e.line > 1, "{e}");
    // truncated xz stream
    dir.write("kernel-1.traceg.xz", &xz[..xz.len() / 3]);
    let e = stat(dir.path()).unwrap_err();
    assert!(e.msg.contains("xz") || e.msg.contains("ends"), "{e}");
    // not xz at all
    dir.write("kernel-1.traceg.xz", b"hello");
    let e = stat(dir.path()).unwrap_err();
    assert!(e.msg.contains("xz"), "{e}");
}
