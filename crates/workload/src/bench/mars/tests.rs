//! Tests of the Mars applications: outputs against host references (HashMaps), the
//! runtime's launch sequence and sorted order.

use super::{pageviewcount, stringmatch, wordcount};
use crate::model::ModelWorkload;
use crate::program::ObjId;
use std::collections::HashMap;

fn run(w: &mut ModelWorkload) -> Vec<String> {
    crate::bench::testing::launches(w)
}

fn obj(w: &ModelWorkload, name: &str) -> ObjId {
    crate::bench::testing::obj(w, name)
}

fn bytes(w: &ModelWorkload, name: &str) -> Vec<u8> {
    w.memory().to_vec(obj(w, name))
}

fn ints(w: &ModelWorkload, name: &str) -> Vec<i32> {
    w.memory().to_vec(obj(w, name))
}

fn cstr(b: &[u8], at: usize) -> Vec<u8> {
    b[at..].iter().take_while(|c| **c != 0).copied().collect()
}

/// Groups of a MAP_GROUP job: (first record, end) per group.
fn ranges(w: &ModelWorkload, name: &str) -> Vec<(usize, usize)> {
    ints(w, name)
        .chunks(2)
        .map(|c| (c[0] as usize, c[1] as usize))
        .collect()
}

/// Every word's count from the sorted output equals a HashMap count of the text; the
/// sorted keys are in strcmp order. Fails if the scan, the emits, the bitonic sort, the
/// gathers or the boundary detection are wrong.
#[test]
fn wordcount_matches_hashmap() {
    wordcount_check(40_000, 300, 9);
}

/// The default input (registry defaults, seed 1).
#[test]
#[ignore]
fn wordcount_default_matches_hashmap() {
    let d = |p| crate::bench::heteromark::tests::default_u64("mars-wordcount", p) as usize;
    wordcount_check(d("text"), d("vocab"), 1);
}

fn wordcount_check(text_bytes: usize, vocab: usize, seed: u64) {
    let (f, _) = wordcount::text(text_bytes, vocab, seed);
    let expect = wordcount::reference(&f);
    let mut w = wordcount::workload(text_bytes, vocab, seed);
    let names = run(&mut w);
    let keys = bytes(&w, "outputKeys");
    let offs = ints(&w, "outputOffsetSizes");
    let mut got = HashMap::new();
    let mut prev: Vec<u8> = Vec::new();
    for (a, b) in ranges(&w, "KeyListRange") {
        let word = cstr(&keys, offs[4 * a] as usize);
        assert!(
            word > prev,
            "groups out of order or split: {word:?} after {prev:?}"
        );
        prev = word.clone();
        got.insert(word, (b - a) as u32);
    }
    assert_eq!(got, expect);
    // one bitonicKernel launch per (k, j): L (L + 1) / 2 for 2^L padded records
    let pairs: u32 = expect.values().sum();
    let l = (pairs as u64).next_power_of_two().max(256).trailing_zeros() as usize;
    assert_eq!(
        names.iter().filter(|n| *n == "bitonicKernel").count(),
        l * (l + 1) / 2
    );
    assert_eq!(names[0], "MapperCount");
    assert_eq!(names.iter().filter(|n| *n == "Mapper").count(), 1);
}

/// Every line equal to the keyword is reported once with its offset and size.
#[test]
fn stringmatch_matches_reference() {
    stringmatch_check(50_000, 200, 3, 4);
}

/// The default input (registry defaults, seed 1).
#[test]
#[ignore]
fn stringmatch_default_matches_reference() {
    let d = |p| crate::bench::heteromark::tests::default_u64("mars-stringmatch", p) as usize;
    stringmatch_check(d("text"), d("vocab"), d("rank"), 1);
}

fn stringmatch_check(text_bytes: usize, vocab: usize, rank: usize, seed: u64) {
    let (f, kw, _) = stringmatch::text(text_bytes, vocab, rank, seed);
    let mut expect = stringmatch::reference(&f, &kw);
    assert!(!expect.is_empty());
    let mut w = stringmatch::workload(text_bytes, vocab, rank, seed);
    let names = run(&mut w);
    assert_eq!(names.iter().filter(|n| *n == "bitonicKernel").count(), 0);
    let keys = ints(&w, "interKeys");
    let vals = ints(&w, "interVals");
    let mut got: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
    assert!(vals.iter().all(|&v| v as usize == kw.len() + 1));
    got.sort_unstable();
    expect.sort_unstable();
    assert_eq!(got, expect);
}

/// Distinct views per URL after both jobs equal a HashMap over the distinct log lines.
#[test]
fn pageviewcount_matches_hashmap() {
    pageviewcount_check(3000, 50, 0.3, 2);
}

/// The default input (registry defaults, seed 1).
#[test]
#[ignore]
fn pageviewcount_default_matches_hashmap() {
    let name = "mars-pageviewcount";
    let d = |p| crate::bench::heteromark::tests::default_u64(name, p) as usize;
    let dup = crate::bench::heteromark::tests::params(name, &[], 1)
        .f64("dup", 0.0)
        .unwrap();
    pageviewcount_check(d("lines"), d("urls"), dup, 1);
}

fn pageviewcount_check(lines: usize, urls: usize, dup: f64, seed: u64) {
    let (f, recs) = pageviewcount::log(lines, urls, dup, seed);
    let expect = pageviewcount::reference(&f, &recs);
    let mut w = pageviewcount::workload(lines, urls, dup, seed);
    let names = run(&mut w);
    assert_eq!(names.iter().filter(|n| *n == "Reducer").count(), 1);
    assert_eq!(names.iter().filter(|n| *n == "Mapper").count(), 2);
    let file = bytes(&w, "d_filebuf");
    let keys = ints(&w, "job2_outputKeys");
    let offs = ints(&w, "job2_outputOffsetSizes");
    let mut got = HashMap::new();
    for (a, b) in ranges(&w, "job2_KeyListRange") {
        let key_at = offs[4 * a] as usize / 4;
        let entry = keys[key_at + 2] as usize;
        got.insert(cstr(&file, entry), (b - a) as u32);
    }
    assert_eq!(got, expect);
}

/// Rule 1 of scale.rs: each paper footprint (NUBA Table 2: 542, 1,081 and 146 MB) is over
/// the cap, so the one input dimension is the largest power of two whose modelled
/// footprint fits; rule 2 then halves it `RULE2_HALVINGS` times (see each module's doc).
#[test]
fn defaults_follow_the_scale_rules() {
    let cap = crate::scale::FOOTPRINT_CAP_BYTES;
    let fp = |w: ModelWorkload| w.memory().footprint();
    let wc = wordcount::RULE1_TEXT;
    assert!(fp(wordcount::workload(wc, 8192, 1)) <= cap);
    assert!(fp(wordcount::workload(2 * wc, 8192, 1)) > cap);
    let sm = stringmatch::RULE1_TEXT;
    assert!(fp(stringmatch::workload(sm, 8192, 7, 1)) <= cap);
    assert!(fp(stringmatch::workload(2 * sm, 8192, 7, 1)) > cap);
    let pv = pageviewcount::RULE1_LINES;
    assert!(fp(pageviewcount::workload(pv, 4096, 0.2, 1)) <= cap);
    assert!(fp(pageviewcount::workload(2 * pv, 4096, 0.2, 1)) > cap);
    let def = |name: &str, p: &str| {
        let s = crate::registry::find(name).unwrap();
        let v = s.params.iter().find(|q| q.name == p).unwrap().default;
        let ov = std::collections::BTreeMap::from([(p.to_string(), v.to_string())]);
        crate::registry::Params::resolve(s, &ov, 1)
            .unwrap()
            .u64(p, 0)
            .unwrap() as usize
    };
    assert_eq!(
        def("mars-wordcount", "text"),
        wc >> wordcount::RULE2_HALVINGS
    );
    assert_eq!(
        def("mars-stringmatch", "text"),
        sm >> stringmatch::RULE2_HALVINGS
    );
    assert_eq!(
        def("mars-pageviewcount", "lines"),
        pv >> pageviewcount::RULE2_HALVINGS
    );
}
