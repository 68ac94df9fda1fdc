//! The table of built-in benchmarks: name, suite, paper category, parameters with defaults,
//! and the function that builds a [`ModelWorkload`] from parameters and a seed.

use crate::model::{Merge, ModelWorkload};
use crate::program::WorkloadError;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// One tunable parameter of a benchmark.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

/// A built-in benchmark.
#[derive(Clone, Copy)]
pub struct BenchSpec {
    pub name: &'static str,
    /// Suite it is modelled after (Rodinia, Parboil, GraphBIG, CUDA samples, Locus).
    pub suite: &'static str,
    /// Expected CODA page-sharing category (spec Table 2), or "-" when not in the paper.
    pub category: &'static str,
    pub about: &'static str,
    pub params: &'static [ParamSpec],
    pub build: fn(&Params) -> Result<ModelWorkload, WorkloadError>,
}

/// Largest integer parameter accepted (2^28): keeps generated inputs within host memory.
pub const MAX_PARAM: u64 = 1 << 28;

/// Parameter values given to a benchmark builder: defaults overridden by the user.
///
/// Every lookup is recorded, so that [`build`] can refuse a user-given parameter the
/// builder never read: one that does not apply to the chosen input (`-w pr --param cv=0.3`
/// with the default R-MAT graph, where only `graph=regular` reads `cv`).
#[derive(Clone, Debug)]
pub struct Params {
    pub seed: u64,
    values: BTreeMap<String, String>,
    read: RefCell<BTreeSet<String>>,
}

impl Params {
    /// Resolve `overrides` against `spec`'s parameter list; unknown names are errors that list
    /// the valid ones.
    pub fn resolve(
        spec: &BenchSpec,
        overrides: &BTreeMap<String, String>,
        seed: u64,
    ) -> Result<Params, WorkloadError> {
        let mut values: BTreeMap<String, String> = spec
            .params
            .iter()
            .map(|p| (p.name.to_string(), p.default.to_string()))
            .collect();
        for (k, v) in overrides {
            if !values.contains_key(k) {
                let names: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
                let hint = crate::nearest(k, &names)
                    .map(|n| format!(" (did you mean `{n}`?)"))
                    .unwrap_or_default();
                return Err(WorkloadError::Msg(format!(
                    "workload `{}` has no parameter `{k}`{hint}; its parameters are: {}",
                    spec.name,
                    if names.is_empty() {
                        "(none)".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
            values.insert(k.clone(), v.clone());
        }
        Ok(Params {
            seed,
            values,
            read: RefCell::default(),
        })
    }

    /// Parameters with no spec (tests): every lookup falls back to its default.
    pub fn defaults(seed: u64) -> Params {
        Params {
            seed,
            values: BTreeMap::new(),
            read: RefCell::default(),
        }
    }

    fn raw(&self, name: &str) -> Option<&str> {
        self.read.borrow_mut().insert(name.to_string());
        self.values.get(name).map(|s| s.as_str())
    }

    /// Whether the builder looked parameter `name` up.
    pub fn was_read(&self, name: &str) -> bool {
        self.read.borrow().contains(name)
    }

    /// An unsigned integer parameter (accepts `_` separators and k/M/G suffixes). Values
    /// above [`MAX_PARAM`] are refused: inputs that large cannot be generated in memory.
    pub fn u64(&self, name: &str, default: u64) -> Result<u64, WorkloadError> {
        match self.raw(name) {
            None => Ok(default),
            Some(s) => match parse_u64(s) {
                Some(v) if v <= MAX_PARAM => Ok(v),
                Some(v) => Err(WorkloadError::Msg(format!(
                    "parameter `{name}` = {v} is too large (at most {MAX_PARAM}): the input is generated in host memory"
                ))),
                None => Err(WorkloadError::Msg(format!(
                    "parameter `{name}` = `{s}` is not a non-negative integer (e.g. 4096, 64k, 1M)"
                ))),
            },
        }
    }

    /// A floating-point parameter.
    pub fn f64(&self, name: &str, default: f64) -> Result<f64, WorkloadError> {
        match self.raw(name) {
            None => Ok(default),
            Some(s) => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    WorkloadError::Msg(format!("parameter `{name}` = `{s}` is not a number"))
                }),
        }
    }

    /// A string parameter.
    pub fn str(&self, name: &str, default: &str) -> String {
        self.raw(name).unwrap_or(default).to_string()
    }

    /// All resolved values (for reports).
    pub fn values(&self) -> &BTreeMap<String, String> {
        &self.values
    }
}

fn parse_u64(s: &str) -> Option<u64> {
    let t: String = s.trim().chars().filter(|c| *c != '_').collect();
    let (num, mul) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1u64 << 10),
        'M' => (&t[..t.len() - 1], 1 << 20),
        'G' => (&t[..t.len() - 1], 1 << 30),
        _ => (&t[..], 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mul)
}

/// Every built-in benchmark.
pub fn all() -> &'static [BenchSpec] {
    crate::bench::all()
}

/// Paper abbreviations accepted as workload names: (abbreviation, workload, where the
/// abbreviation comes from). Only abbreviations that name no built-in workload are listed
/// (NDP's `BFS` is Rodinia's bfs, `rodinia-bfs`, while `bfs` names GraphBIG's), so an
/// issue's or paper's command such as `locus run -p ndp-8hmc -w kmn` runs as written.
pub const ALIASES: &[(&str, &str, &str)] = &[
    ("bprop", "backprop", "NDP Table 1 (ndp.md §5.4)"),
    ("kmn", "km", "NDP Table 1 (ndp.md §5.4)"),
    ("sp", "scalarprod", "NDP Table 1 (ndp.md §5.4)"),
    ("stn", "parboil-stencil", "NDP Table 1 (ndp.md §5.4)"),
    ("stcl", "streamcluster", "NDP Table 1 (ndp.md §5.4)"),
    ("vadd", "vectoradd", "NDP Table 1 (ndp.md §5.4)"),
];

/// Look a benchmark up by name (case-insensitive); a paper abbreviation of [`ALIASES`]
/// finds its workload; a name without its suite prefix (`neuralnet` for
/// `shoc-neuralnet`) finds the one benchmark it ends, if only one does.
pub fn find(name: &str) -> Option<&'static BenchSpec> {
    if let Some(b) = all().iter().find(|b| b.name.eq_ignore_ascii_case(name)) {
        return Some(b);
    }
    if let Some(&(_, w, _)) = ALIASES.iter().find(|a| a.0.eq_ignore_ascii_case(name)) {
        return all().iter().find(|b| b.name == w);
    }
    let tail = format!("-{}", name.to_ascii_lowercase());
    let mut hits = all()
        .iter()
        .filter(|b| b.name.to_ascii_lowercase().ends_with(&tail));
    match (hits.next(), hits.next()) {
        (Some(b), None) => Some(b),
        _ => None,
    }
}

/// Build benchmark `name` with `overrides` and `seed`. The override `merge`
/// (`reconverge`, the default, or `positional`) selects how warps are formed
/// ([`crate::model::Merge`], issue 8) and applies to every workload.
pub fn build(
    name: &str,
    overrides: &BTreeMap<String, String>,
    seed: u64,
) -> Result<ModelWorkload, WorkloadError> {
    let spec = find(name).ok_or_else(|| {
        let names: Vec<&str> = all().iter().map(|b| b.name).collect();
        let hint = crate::nearest(name, &names)
            .map(|n| format!(" (did you mean `{n}`?)"))
            .unwrap_or_default();
        WorkloadError::Msg(format!(
            "unknown workload `{name}`{hint}; run `locus workloads` to list them"
        ))
    })?;
    // `merge`: the warp formation of every kernel model (issue 8), not an input parameter
    let mut overrides = overrides.clone();
    let merge = match overrides.remove("merge") {
        None => Merge::default(),
        Some(v) => Merge::parse(&v).ok_or_else(|| {
            WorkloadError::Msg(format!(
                "--param merge={v}: expected `reconverge` (the default) or `positional`"
            ))
        })?,
    };
    let p = Params::resolve(spec, &overrides, seed)?;
    let mut w = (spec.build)(&p)?;
    check_all_applied(spec, &p, &overrides)?;
    w.set_merge(merge);
    Ok(w)
}

/// Refuse a user-given parameter the builder never read: it does not apply to the input
/// the other parameters select (and its value would otherwise go unchecked).
fn check_all_applied(
    spec: &BenchSpec,
    p: &Params,
    overrides: &BTreeMap<String, String>,
) -> Result<(), WorkloadError> {
    let Some((k, v)) = overrides.iter().find(|(k, _)| !p.was_read(k)) else {
        return Ok(());
    };
    let help = spec
        .params
        .iter()
        .find(|s| s.name == k)
        .map(|s| s.help)
        .unwrap_or("");
    // helps of input-specific parameters start with the input kind: "regular: vertex count"
    let kind = help
        .split_once(':')
        .map(|(w, _)| w.trim())
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric()));
    let fix = match kind {
        Some(kind) if spec.params.iter().any(|s| s.name == "graph") => {
            format!("it applies with --param graph={kind}; remove it or add that")
        }
        _ => "remove it".to_string(),
    };
    Err(WorkloadError::Msg(format!(
        "--param {k}={v} does not apply to `{}` with these parameters ({k}: {help}): {fix}",
        spec.name
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    /// Every paper abbreviation finds its workload, names no built-in workload itself
    /// (an alias must never shadow a name) and is found case-insensitively (`KMN`, `kmn`).
    /// Fails if an alias points at a renamed workload or collides with a new one.
    #[test]
    fn paper_abbreviations_find_their_workloads_and_shadow_no_name() {
        for &(a, w, _) in ALIASES {
            assert!(all().iter().all(|b| !b.name.eq_ignore_ascii_case(a)), "{a}");
            assert_eq!(find(a).map(|b| b.name), Some(w), "{a}");
            assert_eq!(find(&a.to_ascii_uppercase()).map(|b| b.name), Some(w));
        }
        assert_eq!(find("kmn").map(|b| b.name), Some("km"));
        assert!(find("kmnn").is_none());
    }

    #[test]
    fn parse_suffixes() {
        assert_eq!(parse_u64("64k"), Some(65536));
        assert_eq!(parse_u64("1_000"), Some(1000));
        assert_eq!(parse_u64("x"), None);
        assert_eq!(parse_u64("-1"), None);
    }

    /// Every parameter of every workload that is not specific to one input kind (its help
    /// does not start with `kind:`) is read by the builder with default inputs: setting it
    /// explicitly to its default is accepted. Fails if a builder ignores a listed parameter.
    #[test]
    fn every_general_parameter_is_read_by_its_builder() {
        for spec in all() {
            let p = Params::resolve(spec, &BTreeMap::new(), 1).unwrap();
            (spec.build)(&p).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
            for ps in spec.params {
                let input_specific = ps
                    .help
                    .split_once(':')
                    .is_some_and(|(w, _)| w.chars().all(|c| c.is_ascii_alphanumeric()));
                assert!(
                    input_specific || p.was_read(ps.name),
                    "{}: parameter `{}` is never read",
                    spec.name,
                    ps.name
                );
            }
        }
    }

    /// Follow mode (`model::Follow`, host speed only) generates the same block programs as
    /// recording every lane: every workload at its default input, the first three blocks
    /// and the last of its first three launches, with a warp instruction limit (the
    /// lanes' room runs out inside follow mode) and without (first block). Fails if a lane
    /// that leaves follow mode, or one that records fewer operations than lane 0, is
    /// written out wrong, or if the converged merge emits other instructions than the
    /// reconverging one. Both without and with offload markers (NDP: a follower takes a
    /// marker equal to lane 0's, and a marked warp is merged with its followers as clones).
    #[test]
    fn follow_mode_programs_equal_recorded_ones() {
        use crate::program::{BlockProgram, Workload};
        for (spec, marks) in all().iter().flat_map(|s| [(s, false), (s, true)]) {
            let mk = |follow: bool| {
                let mut w = build(spec.name, &BTreeMap::new(), 1).unwrap();
                w.set_follow(follow);
                w
            };
            let (mut a, mut b) = (mk(true), mk(false));
            for launch in 0..3 {
                let Some(info) = a.begin_launch().unwrap() else {
                    break;
                };
                b.begin_launch().unwrap();
                let n = info.num_blocks();
                let mut blocks = vec![0, 1, 2, n - 1];
                blocks.retain(|&x| x < n);
                blocks.dedup();
                for (k, &blk) in blocks.iter().enumerate() {
                    let limit = if k == 0 && launch == 0 { 0 } else { 3000 };
                    let (mut pa, mut pb) = (BlockProgram::default(), BlockProgram::default());
                    pa.max_warp_insts = limit;
                    pb.max_warp_insts = limit;
                    pa.offload_markers = marks;
                    pb.offload_markers = marks;
                    a.gen_block(blk, false, 128, &mut pa).unwrap();
                    b.gen_block(blk, false, 128, &mut pb).unwrap();
                    assert_eq!(
                        format!("{pa:?}"),
                        format!("{pb:?}"),
                        "{} launch {launch} block {blk} markers {marks}",
                        spec.name
                    );
                }
            }
        }
    }

    /// A regular graph's size is bounded like R-MAT's before anything is allocated:
    /// `-w dc --param graph=regular --param degree=1e12` aborted on a 32 GB allocation and
    /// `-w tc --param degree=1e12` ran for hours (session 21's parameter fuzzing); NaN
    /// degrees and CVs passed the old `degree <= 0` / `cv < 0` checks.
    #[test]
    fn regular_graphs_too_large_or_not_finite_are_refused() {
        for (w, k, v) in [
            ("dc", "degree", "1e12"),
            ("tc", "degree", "1e12"),
            ("tc", "degree", "NaN"),
            ("tc", "degree", "inf"),
            ("tc", "degree", "40000"), // more than n - 1 (n = 32k)
            ("tc", "n", "1073741824"),
            ("tc", "cv", "NaN"),
            ("pr", "n", "67108864"), // 2^26 vertices x degree 16 > 2^28 edges
        ] {
            let kv: BTreeMap<String, String> = [("graph", "regular"), (k, v)]
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            match build(w, &kv, 1) {
                Ok(_) => panic!("{w} {k}={v} accepted"),
                Err(e) => {
                    let e = e.to_string();
                    // NaN, infinities and huge integers are the parameter parser's to
                    // refuse (naming the parameter); the rest the graph's bounds
                    let parsed = e.contains(&format!("`{k}`"));
                    assert!(
                        parsed || (e.contains("regular: need") && e.contains("2^28")),
                        "{w} {k}={v}: {e}"
                    );
                }
            }
        }
    }

    /// `-w pr --param cv=abc` used to exit 0: `cv` belongs to the regular graph, and pr's
    /// default input is R-MAT. Refused as not applying; with graph=regular the value itself
    /// is checked; a typo gets the nearest name.
    #[test]
    fn parameters_that_do_not_apply_or_do_not_parse_are_refused() {
        let kv = |v: &[(&str, &str)]| -> BTreeMap<String, String> {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let err = |v: &[(&str, &str)]| match build("pr", &kv(v), 1) {
            Ok(_) => panic!("{v:?} accepted"),
            Err(e) => e.to_string(),
        };
        let e = err(&[("cv", "abc")]);
        assert!(
            e.contains("does not apply") && e.contains("graph=regular"),
            "{e}"
        );
        let e = err(&[("cv", "0.3"), ("graph", "rmat"), ("scale", "8")]);
        assert!(e.contains("cv=0.3 does not apply"), "{e}");
        let e = err(&[("graph", "regular"), ("n", "4096"), ("cv", "abc")]);
        assert!(e.contains("`cv`") && e.contains("not a number"), "{e}");
        let e = err(&[("dampng", "0.5")]);
        assert!(e.contains("did you mean `damping`"), "{e}");
        build(
            "pr",
            &kv(&[
                ("graph", "regular"),
                ("n", "4096"),
                ("cv", "0.3"),
                ("iters", "1"),
            ]),
            1,
        )
        .unwrap();
    }
}
