//! Sparse-matrix generators (CSR) for the SpMV benchmarks: each row has a banded component
//! (columns within `band` of the diagonal, like a mesh or FEM matrix) and a uniformly random
//! component, with a chosen spread of non-zeros per row. A pure function of its parameters
//! and the seed.

use super::rng::Rng;

/// A square sparse matrix in CSR form (sorted, duplicate-free column ids per row).
#[derive(Clone, Debug)]
pub struct Csr {
    /// Rows (= columns).
    pub n: usize,
    /// `row_ptr[r]..row_ptr[r+1]` are the entries of row `r`.
    pub row_ptr: Vec<u32>,
    /// Column id per entry.
    pub col: Vec<u32>,
    /// Value per entry.
    pub val: Vec<f32>,
}

impl Csr {
    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.col.len()
    }
    /// Host reference `y = A x`.
    pub fn spmv(&self, x: &[f32]) -> Vec<f32> {
        (0..self.n)
            .map(|r| {
                let (s, e) = (self.row_ptr[r] as usize, self.row_ptr[r + 1] as usize);
                (s..e).map(|j| self.val[j] * x[self.col[j] as usize]).sum()
            })
            .collect()
    }
}

/// Parameters of [`banded_random`].
#[derive(Clone, Copy, Debug)]
pub struct MatrixSpec {
    /// Rows (= columns).
    pub n: usize,
    /// Mean non-zeros per row.
    pub nnz_per_row: usize,
    /// Non-zeros per row vary uniformly in `nnz_per_row ± spread`.
    pub spread: usize,
    /// Half-width of the band of the banded component.
    pub band: usize,
    /// Fraction of entries with a uniformly random column.
    pub random_frac: f64,
}

/// Generate a matrix per `s` (values in `[-1, 1)`).
pub fn banded_random(s: MatrixSpec, seed: u64) -> Csr {
    let mut rng = Rng::new(seed);
    let n = s.n.max(1);
    let mut row_ptr = Vec::with_capacity(n + 1);
    let mut col = Vec::with_capacity(n * s.nnz_per_row);
    let mut val = Vec::with_capacity(n * s.nnz_per_row);
    row_ptr.push(0u32);
    let mut cols: Vec<u32> = Vec::new();
    // `seen[c] == r + 1`: column `c` is already in row `r` (the same answer as searching
    // `cols`, in one read: the search was most of this generator's time)
    let mut seen = vec![0u32; n];
    for r in 0..n {
        let lo = s.nnz_per_row.saturating_sub(s.spread);
        let want = (lo + rng.below((2 * s.spread + 1) as u64) as usize).clamp(1, n);
        cols.clear();
        let mut tries = 0;
        while cols.len() < want && tries < 8 * want + 16 {
            tries += 1;
            let c = if rng.f64() < s.random_frac {
                rng.below(n as u64) as i64
            } else {
                r as i64 + rng.below((2 * s.band + 1) as u64) as i64 - s.band as i64
            };
            let c = c.clamp(0, n as i64 - 1) as u32;
            if seen[c as usize] != r as u32 + 1 {
                seen[c as usize] = r as u32 + 1;
                cols.push(c);
            }
        }
        cols.sort_unstable();
        for &c in &cols {
            col.push(c);
            val.push(rng.f32() * 2.0 - 1.0);
        }
        row_ptr.push(col.len() as u32);
    }
    Csr {
        n,
        row_ptr,
        col,
        val,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn rows_have_requested_counts_and_sorted_unique_columns() {
        let s = MatrixSpec {
            n: 1000,
            nnz_per_row: 8,
            spread: 2,
            band: 16,
            random_frac: 0.3,
        };
        let a = banded_random(s, 3);
        let b = banded_random(s, 3);
        assert_eq!(a.col, b.col, "deterministic");
        for r in 0..a.n {
            let row = &a.col[a.row_ptr[r] as usize..a.row_ptr[r + 1] as usize];
            assert!((6..=10).contains(&row.len()), "row {r} has {}", row.len());
            assert!(row.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
