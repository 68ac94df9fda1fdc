//! The T_overlap regression (spec §3.4, Eq. 11) and the paper's benchmark sets (§5.3,
//! Table IV): the training set (38 placements of 8 benchmarks) and the evaluation set
//! (22 placements of 9 other benchmarks), kept as data. Least squares by `nalgebra`'s SVD.

use crate::space::Place;
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// Fitted Eq. 11 coefficients: one per feature of [`crate::model::overlap_features`]
/// plus the intercept `c`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coefs {
    /// g, c_j, t_m, s_n, r_k, w in feature order.
    pub w: Vec<f64>,
    /// The intercept.
    pub c: f64,
}

impl Coefs {
    /// `T_overlap_ratio` of Eq. 11.
    pub fn ratio(&self, x: &[f64; 11]) -> f64 {
        self.c + self.w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>()
    }
}

/// Ordinary least squares (`ridge` = 0) or ridge regression of `y` on `x` with an
/// intercept (the intercept is not penalised). Returns `None` with no rows.
pub fn fit(rows: &[([f64; 11], f64)], ridge: f64) -> Option<Coefs> {
    if rows.is_empty() {
        return None;
    }
    let k = 12;
    let n = rows.len();
    let extra = if ridge > 0.0 { 11 } else { 0 };
    let mut a = DMatrix::<f64>::zeros(n + extra, k);
    let mut b = DVector::<f64>::zeros(n + extra);
    for (i, (x, y)) in rows.iter().enumerate() {
        for j in 0..11 {
            a[(i, j)] = x[j];
        }
        a[(i, 11)] = 1.0;
        b[i] = *y;
    }
    for j in 0..extra {
        a[(n + j, j)] = ridge.sqrt();
    }
    let svd = a.svd(true, true);
    let sol = svd.solve(&b, 1e-10).ok()?;
    Some(Coefs {
        w: sol.iter().take(11).copied().collect(),
        c: sol[11],
    })
}

/// The Eq. 11 fit the reproduction uses (spec §3.4 [D]: "fit by OLS (optionally
/// ridge)"): ordinary least squares with an intercept, no ridge. Until issue 12 the
/// reproduction fitted with a ridge of 1e-3, which the spec does not give.
pub fn fit_eq11(rows: &[([f64; 11], f64)]) -> Option<Coefs> {
    fit(rows, 0.0)
}

/// One placement test of Table IV: a benchmark, its kernel, and the objects moved from the
/// sample placement (empty: the sample itself).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Case {
    /// Benchmark as the paper names it.
    pub bench: &'static str,
    /// Locus workload name.
    pub workload: &'static str,
    /// Kernel profiled.
    pub kernel: &'static str,
    /// Moves `(object, from, to)`.
    pub moves: &'static [(&'static str, Place, Place)],
}

use Place::{Const as C, Global as G, Shared as S, Tex1D as T, Tex2D as T2};

const fn case(
    bench: &'static str,
    workload: &'static str,
    kernel: &'static str,
    moves: &'static [(&'static str, Place, Place)],
) -> Case {
    Case {
        bench,
        workload,
        kernel,
        moves,
    }
}

/// Table IV training set: 38 placements of 8 benchmarks (samples included; md's and
/// spmv's repeated entries kept as the paper counts them, one spmv repeat folded into the
/// sample so the count is 10; transpose's "odata(G→2T)" read as idata, §5.3).
pub const TRAINING: &[Case] = &[
    case(
        "convolutionSeparable",
        "convsep",
        "convolutionRowsKernel",
        &[],
    ),
    case(
        "convolutionSeparable",
        "convsep",
        "convolutionRowsKernel",
        &[("d_Src", G, T2)],
    ),
    case(
        "convolutionSeparable",
        "convsep",
        "convolutionRowsKernel",
        &[("d_Src", G, T)],
    ),
    case(
        "convolutionSeparable",
        "convsep",
        "convolutionRowsKernel",
        &[("c_Kernel", C, G)],
    ),
    case(
        "convolutionSeparable",
        "convsep",
        "convolutionRowsKernel",
        &[("c_Kernel", C, T)],
    ),
    case("md", "shoc-md", "compute_lj_force", &[]),
    case(
        "md",
        "shoc-md",
        "compute_lj_force",
        &[("d_position", T, G), ("neighList", G, T)],
    ),
    case("md", "shoc-md", "compute_lj_force", &[("d_position", T, G)]),
    case("md", "shoc-md", "compute_lj_force", &[("d_position", T, G)]),
    case(
        "md",
        "shoc-md",
        "compute_lj_force",
        &[("d_position", T, G), ("neighList", G, T)],
    ),
    case("md", "shoc-md", "compute_lj_force", &[("neighList", G, T)]),
    case("matrixMul", "matmul", "matrixMul", &[]),
    case(
        "matrixMul",
        "matmul",
        "matrixMul",
        &[("A", G, T2), ("B", G, T2)],
    ),
    case("matrixMul", "matmul", "matrixMul", &[("A", G, T2)]),
    case("matrixMul", "matmul", "matrixMul", &[("A", G, T)]),
    case(
        "matrixMul",
        "matmul",
        "matrixMul",
        &[("A", G, T), ("B", G, T2)],
    ),
    case("matrixMul", "matmul", "matrixMul", &[("B", G, T2)]),
    case(
        "matrixMul",
        "matmul",
        "matrixMul",
        &[("A", G, T), ("B", G, T)],
    ),
    case("matrixMul", "matmul", "matrixMul", &[("B", G, T)]),
    case("spmv", "shoc-spmv", "vector_kernel", &[]),
    case(
        "spmv",
        "shoc-spmv",
        "vector_kernel",
        &[("rowDelimiters", G, S), ("d_vec", T, G)],
    ),
    case(
        "spmv",
        "shoc-spmv",
        "vector_kernel",
        &[("rowDelimiters", G, C), ("d_vec", T, G)],
    ),
    case(
        "spmv",
        "shoc-spmv",
        "vector_kernel",
        &[("rowDelimiters", G, T), ("d_vec", T, G)],
    ),
    case(
        "spmv",
        "shoc-spmv",
        "vector_kernel",
        &[("rowDelimiters", G, S)],
    ),
    case(
        "spmv",
        "shoc-spmv",
        "vector_kernel",
        &[("val", G, T), ("d_vec", T, G)],
    ),
    case(
        "spmv",
        "shoc-spmv",
        "vector_kernel",
        &[("rowDelimiters", G, T), ("d_vec", T, C)],
    ),
    case(
        "spmv",
        "shoc-spmv",
        "vector_kernel",
        &[("rowDelimiters", G, S)],
    ),
    case(
        "spmv",
        "shoc-spmv",
        "vector_kernel",
        &[
            ("val", G, T),
            ("cols", G, T),
            ("rowDelimiters", G, C),
            ("d_vec", T, G),
        ],
    ),
    case(
        "spmv",
        "shoc-spmv",
        "vector_kernel",
        &[("val", G, T), ("cols", G, T)],
    ),
    case("transpose", "transpose", "transposeNaive", &[]),
    case(
        "transpose",
        "transpose",
        "transposeNaive",
        &[("idata", G, T2)],
    ),
    case(
        "transpose",
        "transpose",
        "transposeNaive",
        &[("idata", G, T)],
    ),
    case("cfd", "cfd", "cuda_compute_flux", &[]),
    case("cfd", "cfd", "cuda_compute_flux", &[("variables", G, T)]),
    case("triad", "shoc-triad", "triad", &[]),
    case("triad", "shoc-triad", "triad", &[("B", G, S)]),
    case("QTC", "shoc-qtc", "QTC_device", &[]),
    case(
        "QTC",
        "shoc-qtc",
        "QTC_device",
        &[("distance_matrix_txt", G, T2)],
    ),
];

/// Table IV evaluation set: 22 placements of 9 benchmarks (samples included; S3D's three
/// tests are the sample and the two single moves).
pub const TEST: &[Case] = &[
    case("bfs", "shoc-bfs", "BFS_kernel_warp", &[]),
    case("bfs", "shoc-bfs", "BFS_kernel_warp", &[("edgeArray", G, T)]),
    case("fft", "shoc-fft", "FFT512_device", &[]),
    case("fft", "shoc-fft", "FFT512_device", &[("smem", S, G)]),
    case("neuralnet", "shoc-neuralnet", "kernelFeedForward1", &[]),
    case(
        "neuralnet",
        "shoc-neuralnet",
        "kernelFeedForward1",
        &[("weights", G, C)],
    ),
    case(
        "neuralnet",
        "shoc-neuralnet",
        "kernelFeedForward1",
        &[("weights", G, S)],
    ),
    case(
        "neuralnet",
        "shoc-neuralnet",
        "kernelFeedForward1",
        &[("weights", G, T)],
    ),
    case(
        "neuralnet",
        "shoc-neuralnet",
        "kernelFeedForward1",
        &[("weights", G, T2)],
    ),
    case("reduction", "shoc-reduction", "reduce", &[]),
    case("reduction", "shoc-reduction", "reduce", &[("sdata", S, G)]),
    case("scan", "shoc-scan", "reduce", &[]),
    case("scan", "shoc-scan", "reduce", &[("g_idata", G, T2)]),
    case("sort", "shoc-sort", "reorderData", &[]),
    case(
        "sort",
        "shoc-sort",
        "reorderData",
        &[("sBlockOffsets", S, G)],
    ),
    case("stencil2d", "shoc-stencil2d", "StencilKernel", &[]),
    case(
        "stencil2d",
        "shoc-stencil2d",
        "StencilKernel",
        &[("data", G, T)],
    ),
    case("md5hash", "shoc-md5hash", "FindKeyWithDigest_Kernel", &[]),
    case(
        "md5hash",
        "shoc-md5hash",
        "FindKeyWithDigest_Kernel",
        &[("foundKey", G, S)],
    ),
    case("S3D", "shoc-s3d", "gr_base", &[]),
    case("S3D", "shoc-s3d", "gr_base", &[("gpu_p", G, T)]),
    case("S3D", "shoc-s3d", "gr_base", &[("gpu_y", G, T)]),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's counts: 38 training placements of 8 benchmarks, 22 test placements of
    /// 9 benchmarks, and no benchmark in both (the regression never sees a test kernel).
    #[test]
    fn training_and_test_sets_are_the_papers_and_disjoint() {
        let names = |s: &[Case]| {
            let mut v: Vec<&str> = s.iter().map(|c| c.workload).collect();
            v.dedup();
            v
        };
        assert_eq!(TRAINING.len(), 38);
        assert_eq!(TEST.len(), 22);
        assert_eq!(names(TRAINING).len(), 8);
        assert_eq!(names(TEST).len(), 9);
        for t in names(TEST) {
            assert!(!names(TRAINING).contains(&t), "{t} in both sets");
        }
        let kernels = |s: &[Case]| s.iter().map(|c| (c.workload, c.kernel)).collect::<Vec<_>>();
        for k in kernels(TEST) {
            assert!(!kernels(TRAINING).contains(&k));
        }
        // every move starts from a component and goes to a different one
        for c in TRAINING.iter().chain(TEST) {
            for m in c.moves {
                assert_ne!(m.1, m.2, "{} {}", c.bench, m.0);
            }
        }
    }

    /// `n` rows of features uniform in [0, `scale`) (a fixed LCG from `seed`) and their
    /// exact linear response `c + features . truth`.
    fn linear_rows(
        truth: &[f64],
        c: f64,
        scale: f64,
        n: usize,
        seed: u64,
    ) -> Vec<([f64; 11], f64)> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                let mut f = [0.0; 11];
                for v in &mut f {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    *v = scale * (x >> 33) as f64 / (1u64 << 31) as f64;
                }
                let y = c + f.iter().zip(truth).map(|(a, b)| a * b).sum::<f64>();
                (f, y)
            })
            .collect()
    }

    /// The reproduction's Eq. 11 fit is the spec's OLS: on features of the magnitude the
    /// event ratios have (0 to 0.01) an exact linear law is recovered to 1e-6. Fails if
    /// `fit_eq11` carried the ridge of 1e-3 it had before issue 12 (which shrinks these
    /// weights by tens of percent).
    #[test]
    fn eq11_fit_is_ols_without_ridge() {
        let truth: Vec<f64> = (0..11).map(|j| 3.0 * j as f64 - 12.0).collect();
        let rows = linear_rows(&truth, 0.5, 0.01, 38, 11);
        let c = fit_eq11(&rows).unwrap();
        for (a, b) in c.w.iter().zip(&truth) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
        let r = fit(&rows, 1e-3).unwrap();
        let off =
            r.w.iter()
                .zip(&truth)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
        assert!(
            off > 1.0,
            "a ridge of 1e-3 visibly shrinks these weights: {off}"
        );
    }

    /// OLS recovers an exact linear law; ridge shrinks the weights.
    #[test]
    fn ols_recovers_a_linear_law() {
        let truth: Vec<f64> = (0..11).map(|j| 0.1 * j as f64 - 0.3).collect();
        let rows = linear_rows(&truth, 0.25, 1.0, 40, 7);
        let c = fit(&rows, 0.0).unwrap();
        for (a, b) in c.w.iter().zip(&truth) {
            assert!((a - b).abs() < 1e-8, "{a} vs {b}");
        }
        assert!((c.c - 0.25).abs() < 1e-8);
        let r = fit(&rows, 10.0).unwrap();
        let norm = |w: &[f64]| w.iter().map(|v| v * v).sum::<f64>();
        assert!(norm(&r.w) < norm(&c.w));
        assert!(fit(&[], 0.0).is_none());
    }
}
