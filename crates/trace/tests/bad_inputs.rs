//! Every kind of bad input gives its own error with the right file and 1-based line.

mod common;
use common::*;
use locus_trace::*;
use std::path::Path;

/// A small valid kernel file; line numbers are referenced by the tests below.
const GOOD: &str = "\
-kernel name = k(int, float*)
-kernel id = 1
-grid dim = (2,1,1)
-block dim = (64,1,1)
-shmem = 0
-nregs = 12
-binary version = 80
-cuda stream id = 0
-shmem base_addr = 0x00007fb139000000
-local mem base_addr = 0x00007fb137000000
-nvbit version = 1.7
-accelsim tracer version = 5
-enable lineinfo = 0

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate

#BEGIN_TB
thread block = 0,0,0
warp = 0
insts = 3
00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x7fb0fc430e00 4 0 
00f0 ffffffff 0 STG.E 2 R6 R9 4 1 0x7fb0fc461c00 4 0
0100 ffffffff 0 EXIT 0 0 0
warp = 1
insts = 2
00b0 0000000f 1 R3 LDG.E.64 1 R2 8 0 0x10 0x20 0x30 0x40 0
0100 ffffffff 0 EXIT 0 0 0
#END_TB
#BEGIN_TB
thread block = 1,0,0
warp = 0
insts = 1
0100 ffffffff 0 EXIT 0 0 0
#END_TB
";

fn replace_line(text: &str, line: usize, new: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == line { new } else { l })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn folder(kernel: impl AsRef<[u8]>) -> TempDir {
    let d = TempDir::new("bad");
    d.write(
        "kernelslist.g",
        "MemcpyHtoD,0x00007fb0fc430e00,256\nkernel-1.traceg\n",
    );
    d.write("kernel-1.traceg", kernel);
    d
}

/// Read the whole folder; the error it gives.
fn err_of(kernel: impl AsRef<[u8]>) -> TraceError {
    let d = folder(kernel);
    let e = stat(d.path()).expect_err("expected an error");
    assert!(e.file.ends_with("kernel-1.traceg"), "{e}");
    e
}

fn expect(kernel: impl AsRef<[u8]>, line: u64, words: &str) {
    let e = err_of(kernel);
    assert_eq!(e.line, line, "{e}");
    assert!(e.msg.contains(words), "`{words}` not in: {e}");
    let shown = e.to_string();
    assert!(
        shown.contains(&format!("kernel-1.traceg:{line}: ")),
        "{shown}"
    );
}

#[test]
fn good_file_reads() {
    let d = folder(GOOD);
    let st = stat(d.path()).unwrap();
    let k = &st.kernels[0];
    assert_eq!(k.counts.thread_blocks, 2);
    assert_eq!(k.counts.warps, 3);
    assert_eq!(k.counts.instructions, 6);
    assert_eq!(k.counts.mem_instructions, 3);
    assert_eq!(k.counts.thread_addresses, 68);
    assert_eq!(k.name, "k(int, float*)");
    // LDG.E.64: 8 bytes per lane from the modifier; obj0 = 256 B read by the first LDG (128 B)
    assert_eq!(k.counts.bytes_by_object[0].bytes, 128);
    assert_eq!(k.counts.bytes_by_object[1].bytes, 128 + 4 * 8);
    assert!(st.warnings.is_empty());
}

#[test]
fn missing_kernel_file() {
    let d = TempDir::new("missing");
    d.write("kernelslist.g", "MemcpyHtoD,0x10,4\n\nkernel-7.traceg\n");
    let e = KernelList::open(d.path()).unwrap_err();
    assert!(e.file.ends_with("kernelslist.g"));
    assert_eq!(e.line, 3);
    assert!(e.msg.contains("kernel-7.traceg"), "{e}");
    // also through the kernelslist.g path itself
    let e = stat(&d.path().join("kernelslist.g")).unwrap_err();
    assert_eq!(e.line, 3);
}

#[test]
fn bad_kernelslist_lines() {
    let d = TempDir::new("list");
    d.write("kernelslist.g", "MemcpyHtoD,0x10,4\nlaunch something\n");
    let e = KernelList::open(d.path()).unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    d.write("kernelslist.g", "MemcpyHtoD,0xZZ,4\n");
    let e = KernelList::open(d.path()).unwrap_err();
    assert_eq!(e.line, 1, "{e}");
    assert!(e.msg.contains("hex"), "{e}");
    let e = KernelList::open(&d.path().join("nope")).unwrap_err();
    assert_eq!(e.line, 0);
}

#[test]
fn truncated_file() {
    let cut: String = GOOD.lines().take(26).map(|l| format!("{l}\n")).collect();
    expect(&cut, 27, "file ends");
    let cut: String = GOOD.lines().take(22).map(|l| format!("{l}\n")).collect();
    expect(&cut, 23, "insts = 3");
    // cut in the middle of a line: that partial line is malformed or the file ends
    let cut = &GOOD[..GOOD.find("0x7fb0fc461c00").unwrap() + 5];
    let e = err_of(cut);
    assert_eq!(e.line, 22, "{e}");
    assert!(e.msg.contains("truncated"), "{e}");
}

#[test]
fn insts_mismatch() {
    // declares 4 but `warp = 1` comes after 3
    expect(replace_line(GOOD, 20, "insts = 4"), 24, "insts mismatch");
    // declares 2 but a third instruction line follows
    expect(
        replace_line(GOOD, 20, "insts = 2"),
        23,
        "extra instruction line",
    );
    // declares 3 in the last warp of a block but #END_TB comes after 2
    expect(replace_line(GOOD, 25, "insts = 3"), 28, "insts mismatch");
}

#[test]
fn corrupt_header_values() {
    expect(
        replace_line(GOOD, 7, "-binary version = 0"),
        7,
        "binary version = 0",
    );
    expect(replace_line(GOOD, 6, "-nregs = 21955"), 6, "nregs = 21955");
    expect(replace_line(GOOD, 3, "-grid dim = (0,1,1)"), 3, "zero");
    expect(
        replace_line(GOOD, 3, "-grid dim = (65536,65536,2)"),
        3,
        "2^31",
    );
    expect(replace_line(GOOD, 4, "-block dim = (64,32,1)"), 4, "1024");
    expect(
        replace_line(GOOD, 12, "-accelsim tracer version = 9"),
        12,
        "tracer version",
    );
    expect(replace_line(GOOD, 3, "-grid dim = 12"), 3, "grid dim");
}

#[test]
fn malformed_lines() {
    expect(
        replace_line(
            GOOD,
            26,
            "00b0 0000000f 1 R3 LDG.E 1 R2 8 0 0x10 0x2g 0x30 0x40 0",
        ),
        26,
        "malformed hexadecimal address `0x2g`",
    );
    expect(
        replace_line(GOOD, 26, "00b0 0000000f 1 R3 LDG.E 1 R2 8 0 0x10 0x20 0x30"),
        26,
        "expected 4 addresses",
    );
    expect(
        replace_line(
            GOOD,
            26,
            "00b0 0000000f 1 R3 LDG.E 1 R2 8 0 0x10 0x20 0x30 0x40 0x50",
        ),
        26,
        "more addresses",
    );
    expect(
        replace_line(GOOD, 21, "00a0 ffffffff 1 R4 LDG.E 1"),
        21,
        "ends early",
    );
    expect(
        replace_line(GOOD, 21, "00a0 fffffffff0 1 R4 LDG.E 1 R4 4 1 0x0 4 0"),
        21,
        "mask",
    );
    expect(
        replace_line(GOOD, 21, "00a0 ffffffff 1 Q4 LDG.E 1 R4 4 1 0x0 4 0"),
        21,
        "register",
    );
    expect(
        replace_line(GOOD, 21, "00a0 ffffffff 1 R4 LDG.E 1 R4 4 7 0x0 4 0"),
        21,
        "address mode",
    );
    expect(
        replace_line(GOOD, 18, "thread block = 5,0,0"),
        18,
        "outside the grid",
    );
    expect(
        replace_line(GOOD, 24, "warp = 2"),
        24,
        "warp 2 does not exist",
    );
    expect(replace_line(GOOD, 24, "warp = 0"), 24, "twice");
    expect(replace_line(GOOD, 28, "#BEGIN_TB"), 28, "#END_TB");
}

#[test]
fn non_utf8_bytes() {
    let mut bytes = GOOD.as_bytes().to_vec();
    let at = GOOD.find("STG.E").unwrap();
    bytes[at + 1] = 0xff;
    bytes[at + 2] = 0xfe;
    expect(bytes, 22, "non-UTF-8");
}

#[test]
fn unknown_opcode_is_a_warning() {
    let text = replace_line(GOOD, 23, "0100 ffffffff 1 R2 FROBNICATE.X 1 R3 0 0");
    let d = folder(&text);
    let st = stat(d.path()).unwrap();
    assert_eq!(st.kernels[0].counts.by_class["int"], 1);
    assert!(
        st.warnings
            .iter()
            .any(|w| w.contains("FROBNICATE") && w.contains("1 instructions")),
        "{:?}",
        st.warnings
    );
}

#[test]
fn tolerated_variants() {
    // trailing spaces, CRLF, extra trailing fields (v6), missing optional keys
    let text = GOOD
        .replace(
            "0100 ffffffff 0 EXIT 0 0 0\n",
            "0100 ffffffff 0 EXIT 0 0 0 7 R1 0xdead   \r\n",
        )
        .replace("-cuda stream id = 0\n", "");
    let d = folder(&text);
    let st = stat(d.path()).unwrap();
    assert_eq!(st.kernels[0].counts.instructions, 6);

    // line info (a source line number first) and tracer version 2 (tb/warp prefix)
    let li = GOOD
        .replace("-enable lineinfo = 0", "-enable lineinfo = 1")
        .lines()
        .map(|l| {
            if l.starts_with("00") || l.starts_with("01") {
                format!("42 {l}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect::<String>();
    let d = folder(&li);
    assert_eq!(
        stat(d.path()).unwrap().kernels[0].counts.thread_addresses,
        68
    );
    let v2 = li
        .replace(
            "-accelsim tracer version = 5",
            "-accelsim tracer version = 2",
        )
        .replace("-enable lineinfo = 1", "-enable lineinfo = 0")
        .replace("\n42 ", "\n0 0 0 1 ");
    let d = folder(&v2);
    let st = stat(d.path()).unwrap();
    assert_eq!(st.kernels[0].counts.thread_addresses, 68);
    assert!(st.warnings.iter().any(|w| w.contains("tracer version 2")));
}

#[test]
fn generic_space_resolution() {
    // LD to the shared window, ST to the local window, LD to global
    let text = GOOD
        .replace(
            "00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x7fb0fc430e00 4 0 ",
            "00a0 ffffffff 1 R4 LD.E 1 R4 4 1 0x7fb139000100 4 0",
        )
        .replace(
            "00f0 ffffffff 0 STG.E 2 R6 R9 4 1 0x7fb0fc461c00 4 0",
            "00f0 ffffffff 0 ST.E 2 R6 R9 4 1 0x7fb137000000 4 0",
        )
        .replace("LDG.E.64", "LD.E.64");
    let d = folder(&text);
    let st = stat(d.path()).unwrap();
    let s = &st.kernels[0].counts.by_space;
    assert_eq!((s["shared"], s["local"], s["global"]), (1, 1, 1), "{s:?}");
}

#[test]
fn empty_and_garbage_files() {
    let e = err_of("");
    assert_eq!(e.line, 1, "{e}");
    let e = err_of("hello world\n");
    assert_eq!(e.line, 1, "{e}");
    let e = err_of(replace_line(GOOD, 17, "#END_TB"));
    assert_eq!(e.line, 17, "{e}");
    let _ = Path::new(VECTORADD);
}
