//! A report's number ledger and checked comparisons (issue 13), shared by every
//! reproduction (CODA, REC): every number a report prints goes through [`Ledger`] with its
//! source, every comparative sentence through [`Ledger::cmp`], and both are written beside
//! the report (`numbers.txt`, `checks.txt`) for [`super::audit`].

use std::cell::RefCell;

/// The ledger of one report.
#[derive(Default)]
pub struct Ledger {
    nums: RefCell<Vec<(String, String)>>,
    checks: RefCell<Vec<String>>,
}

impl Ledger {
    /// Record `s` (a formatted value, or a text that carries numbers) from `src`.
    pub fn put(&self, s: String, src: &str) -> String {
        self.nums.borrow_mut().push((s.clone(), src.to_string()));
        s
    }
    /// `v` with `prec` decimals ("no data" when not finite).
    pub fn f(&self, v: f64, prec: usize, src: &str) -> String {
        if !v.is_finite() {
            return "no data".into();
        }
        self.put(format!("{v:.prec$}"), src)
    }
    /// A ratio as a factor: `1.31x`.
    pub fn x(&self, v: f64, src: &str) -> String {
        if !v.is_finite() {
            return "no data".into();
        }
        self.put(format!("{v:.2}x"), src)
    }
    /// A ratio as a signed gain: 1.31 -> `+31.0%`.
    pub fn gain(&self, v: f64, src: &str) -> String {
        if !v.is_finite() {
            return "no data".into();
        }
        self.put(format!("{:+.1}%", 100.0 * (v - 1.0)), src)
    }
    /// A fraction as a percentage: `75.0%`.
    pub fn pct(&self, v: f64, src: &str) -> String {
        if !v.is_finite() {
            return "no data".into();
        }
        self.put(format!("{:.1}%", 100.0 * v), src)
    }
    /// A whole number.
    pub fn int(&self, v: u64, src: &str) -> String {
        self.put(format!("{v}"), src)
    }
    /// "`a` is less than / greater than `b`" when the values differ, recorded as a check.
    pub fn cmp(&self, a: f64, b: f64, a_txt: &str, b_txt: &str) -> Option<String> {
        if !(a.is_finite() && b.is_finite()) || a == b {
            return None;
        }
        let (op, phrase) = if a < b {
            ("<", "less than")
        } else {
            (">", "greater than")
        };
        self.checks
            .borrow_mut()
            .push(format!("{a}\t{op}\t{b}\t{phrase}"));
        Some(format!("{a_txt} is {phrase} {b_txt}"))
    }
    /// The ledger file: one `value<TAB>source` line per recorded number.
    pub fn numbers_txt(&self) -> String {
        self.nums
            .borrow()
            .iter()
            .map(|(v, s)| format!("{v}\t{s}\n"))
            .collect()
    }
    /// The checks file: one `a<TAB>op<TAB>b<TAB>phrase` line per comparison made.
    pub fn checks_txt(&self) -> String {
        self.checks
            .borrow()
            .iter()
            .map(|c| format!("{c}\n"))
            .collect()
    }
}

impl Ledger {
    /// The "Headline results" section every reproduction opens with: `intro` (where the
    /// claims are declared), then one row per declared claim (each claim's name, paper
    /// value, our value, rule and input count entered in the ledger), as
    /// [`super::experiment::verdict_table`] writes it.
    pub fn headline(&self, intro: &str, verdicts: &[super::experiment::Verdict]) -> String {
        let mut head = format!("## Headline results: paper versus Locus\n\n{intro}\n\n");
        for v in verdicts {
            self.put(v.name.clone(), "declared claim");
            self.put(v.paper_text.clone(), "paper (declared claim)");
            self.put(v.ours_text.clone(), "claim evaluated on the runs");
            self.put(v.rule_text.clone(), "declared rule");
            self.int(v.n as u64, "claim inputs");
        }
        head += &super::experiment::verdict_table(verdicts);
        head
    }

    /// "N of M claims held." for `verdicts`, both numbers entered in the ledger.
    pub fn held_line(&self, verdicts: &[super::experiment::Verdict]) -> String {
        let held = verdicts.iter().filter(|v| v.held == Some(true)).count();
        format!(
            "\n{} of {} claims held.\n",
            self.int(held as u64, "claims held"),
            self.int(verdicts.len() as u64, "claims")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_numbers_and_checks_pass_the_audit_and_nan_is_never_printed() {
        let l = Ledger::default();
        let a = l.gain(1.327, "rec");
        let b = l.x(2.4, "fig4");
        let n = l.f(f64::NAN, 2, "missing");
        let c = l.cmp(1.327, 1.167, &a, "HMG's").unwrap();
        let report = format!("REC {a}, misses {b}, {n}; {c}");
        assert_eq!(a, "+32.7%");
        assert_eq!(n, "no data");
        assert!(super::super::audit::audit(&report, &l.numbers_txt(), &l.checks_txt()).is_empty());
        // a typed number is caught
        let bad = format!("{report} over 12 benchmarks");
        assert_eq!(
            super::super::audit::audit(&bad, &l.numbers_txt(), &l.checks_txt()).len(),
            1
        );
        assert!(l.cmp(1.0, 1.0, "a", "b").is_none());
    }
}
