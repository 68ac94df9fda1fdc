//! The reader never panics: arbitrary bytes and mutated real trace text (byte flips,
//! truncations, line deletions/duplications of the vectoradd kernel) give `Ok` or `Err`.

mod common;
use common::*;
use locus_trace::*;
use proptest::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// The first ~24 blocks of the vectoradd kernel (a valid file, kept small for speed);
/// `None` (after printing why the tests using it are skipped) when `../shared` is absent.
fn base_text() -> Option<&'static [u8]> {
    static T: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    T.get_or_init(|| {
        if !have_traces("the fuzz tests of mutated vectoradd text") {
            return None;
        }
        let full = std::fs::read(Path::new(VECTORADD).join("kernel-1.traceg")).unwrap();
        let s = String::from_utf8(full).unwrap();
        let mut n = 0;
        let mut end = s.len();
        for (i, _) in s.match_indices("#END_TB") {
            n += 1;
            if n == 24 {
                end = i + "#END_TB\n".len();
                break;
            }
        }
        Some(s.as_bytes()[..end].to_vec())
    })
    .as_deref()
}

/// Read everything through every API; must return, never panic.
fn exercise(bytes: &[u8], xz: bool) {
    let d = TempDir::new("fuzz");
    let name = if xz {
        "kernel-1.traceg.xz"
    } else {
        "kernel-1.traceg"
    };
    d.write(
        "kernelslist.g",
        format!("MemcpyHtoD,0x7fb0fc400000,200000\n{name}\n"),
    );
    let p = d.write(name, bytes);
    let _ = stat(d.path());
    if let Ok(mut r) = KernelReader::open(&p) {
        let mut b = TraceBlock::default();
        while let Ok(true) = r.next_block(&mut b) {}
        let _ = r.warnings();
    }
    for streaming in [false, true] {
        let kt = if streaming {
            KernelTrace::open_streaming(&p)
        } else {
            KernelTrace::open(&p)
        };
        if let Ok(mut kt) = kt {
            let mut b = TraceBlock::default();
            for id in [3u64, 0, 1, 3, 1 << 40] {
                let _ = kt.read_block(id, &mut b);
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Truncate(usize),
    DeleteLine(usize),
    DuplicateLine(usize),
    Insert(usize, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (
            any::<usize>(),
            prop::sample::select(vec![
                b" ".to_vec(),
                b"\n".to_vec(),
                b"-".to_vec(),
                b"0x".to_vec(),
                b"99999999999999999999999".to_vec(),
                b"#END_TB\n".to_vec(),
                b"warp = 31\n".to_vec(),
                b"insts = 18446744073709551615\n".to_vec(),
                b"\xff\xfe".to_vec(),
                b" 2 0xffffffffffffffff -9223372036854775808 ".to_vec(),
            ])
        )
            .prop_map(|(i, s)| Mutation::Insert(i, s)),
    ]
}

fn apply(text: &mut Vec<u8>, m: &Mutation) {
    let n = text.len().max(1);
    match m {
        Mutation::Flip(i, b) => {
            if let Some(x) = text.get_mut(i % n) {
                *x = *b;
            }
        }
        Mutation::Truncate(i) => text.truncate(i % n),
        Mutation::DeleteLine(i) | Mutation::DuplicateLine(i) => {
            let starts: Vec<usize> = std::iter::once(0)
                .chain(
                    text.iter()
                        .enumerate()
                        .filter(|(_, &c)| c == b'\n')
                        .map(|(k, _)| k + 1),
                )
                .filter(|&k| k < text.len())
                .collect();
            if starts.is_empty() {
                return;
            }
            let s = starts[i % starts.len()];
            let e = text[s..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(text.len(), |k| s + k + 1);
            if matches!(m, Mutation::DeleteLine(_)) {
                text.drain(s..e);
            } else {
                let line = text[s..e].to_vec();
                text.splice(s..s, line);
            }
        }
        Mutation::Insert(i, s) => {
            let at = i % (text.len() + 1);
            text.splice(at..at, s.iter().copied());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        exercise(&bytes, false);
    }

    #[test]
    fn header_plus_arbitrary_lines_never_panic(
        lines in prop::collection::vec("[ -~]{0,80}", 0..40)
    ) {
        let Some(base) = base_text() else { return Ok(()) };
        let head_end = base.windows(9).position(|w| w == b"#BEGIN_TB").unwrap_or(0);
        let mut t = base[..head_end].to_vec();
        t.extend_from_slice(b"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 40\n");
        for l in &lines {
            t.extend_from_slice(l.as_bytes());
            t.push(b'\n');
        }
        exercise(&t, false);
    }

    #[test]
    fn mutated_vectoradd_never_panics(muts in prop::collection::vec(mutation(), 1..6)) {
        let Some(base) = base_text() else { return Ok(()) };
        let mut t = base.to_vec();
        for m in &muts {
            apply(&mut t, m);
        }
        exercise(&t, false);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_xz_never_panics(flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..4)) {
        use std::io::Write;
        let Some(base) = base_text() else { return Ok(()) };
        static XZ: OnceLock<Vec<u8>> = OnceLock::new();
        let xz = XZ.get_or_init(|| {
            let mut e = xz2::write::XzEncoder::new(Vec::new(), 1);
            e.write_all(base).unwrap();
            e.finish().unwrap()
        });
        let mut b = xz.clone();
        let n = b.len();
        for (i, v) in flips {
            b[i % n] = v;
        }
        exercise(&b, true);
    }
}
