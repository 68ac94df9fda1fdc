//! The one rule that sizes every default input of the papers' benchmarks (issue 8, "Inputs").
//!
//! A model's *paper input* is the size the paper that uses it ran (rec.md §4.3, nuba.md §6.3,
//! ndp.md §5.4, hms-placement-model.md §5.3), or the suite's default where the paper gives
//! none. Its default input in Locus follows two rules, the same for every model:
//!
//! 1. **Footprint cap.** If the paper input's footprint exceeds [`FOOTPRINT_CAP_BYTES`]
//!    (32 MiB: at least 4x the largest last-level cache the papers run against, REC's 4 x
//!    2 MB L2), every dimension that grows the footprint shrinks by one common factor
//!    ([`linear_factor`]) until it fits, keeping the aspect ratio, the loop structure and
//!    the thread-block shape; dimensions are rounded down to the kernel's tile multiple
//!    ([`dim`]). Otherwise the paper's size is kept as is.
//! 2. **Work cap.** If a default run on `coda-4gpu` would still take more than a minute of
//!    host time (kernels whose work grows faster than their footprint, such as GEMM's
//!    O(n^3)), the same dimensions halve until it does not, and the model's documentation
//!    says that rule 2 applied (its footprint is then below the cap).
//!
//! The rules never look at a result: no size is chosen to land a benchmark in a category
//! or near a paper's number. Every model keeps its dimensions as parameters, so the paper
//! input can be run as is (`--param n=...`).

/// Rule 1's cap on a default input's footprint, in bytes.
pub const FOOTPRINT_CAP_BYTES: u64 = 32 << 20;

/// The common factor (<= 1) by which the `d` footprint-growing dimensions of an input of
/// `footprint` bytes shrink so that it fits in [`FOOTPRINT_CAP_BYTES`]: 1 when it already
/// fits, else `(cap / footprint)^(1/d)`.
pub fn linear_factor(footprint: u64, d: u32) -> f64 {
    if footprint <= FOOTPRINT_CAP_BYTES || d == 0 {
        1.0
    } else {
        (FOOTPRINT_CAP_BYTES as f64 / footprint as f64).powf(1.0 / d as f64)
    }
}

/// A paper dimension scaled by `factor` and rounded down to a multiple of `multiple`
/// (at least one multiple).
pub fn dim(paper: u64, factor: f64, multiple: u64) -> u64 {
    let m = multiple.max(1);
    let v = ((paper as f64 * factor) as u64 / m) * m;
    v.max(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn fits_unchanged_and_shrinks_to_the_cap() {
        assert_eq!(linear_factor(FOOTPRINT_CAP_BYTES, 2), 1.0);
        // a 128 MiB square matrix problem: each side shrinks by 2
        let f = linear_factor(128 << 20, 2);
        assert!((f - 0.5).abs() < 1e-12);
        assert_eq!(dim(4096, f, 32), 2048);
        assert_eq!(dim(100, 0.01, 32), 32);
        // the scaled footprint never exceeds the cap
        let n = dim(5000, linear_factor(5000 * 5000 * 4, 2), 16);
        assert!(n * n * 4 <= FOOTPRINT_CAP_BYTES);
    }
}
