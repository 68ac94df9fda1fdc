//! Locus workloads: the kernel API, data objects, built-in benchmark suites, input
//! generators and the Accel-Sim trace adapter. Everything is lowered to [`program`]'s
//! per-block warp programs, generated when the simulator dispatches a block.

pub mod bench;
pub mod gen;
pub mod memory;
pub mod mix;
pub mod model;
pub mod offset;
pub mod program;
pub mod reconverge;
pub mod registry;
pub mod scale;
pub mod sharing;
pub mod trace_source;

pub use memory::{Elem, Memory};
pub use model::{Host, Kernel, ModelWorkload, Thread};
pub use program::*;

/// The candidate closest to `name` by edit distance, if it is reasonably close.
pub fn nearest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lname = name.to_ascii_lowercase();
    candidates
        .iter()
        .map(|c| (levenshtein(&lname, &c.to_ascii_lowercase()), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edit distance between two strings.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != *cb) as usize)
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
