//! The report audit (issue 13): a reproduction report may print only numbers its data gave
//! and comparisons its data support. The report generator writes every number it prints to
//! a ledger (`numbers.txt`: one formatted value and its source per line) and every
//! comparison sentence it makes to `checks.txt` (`a<TAB>op<TAB>b<TAB>phrase`); [`audit`]
//! then fails a report that
//! - shows a NaN or an infinity,
//! - contains a number that is not in the ledger (a number typed into a sentence),
//! - makes a comparison whose values do not hold (`less than` where the value is greater),
//! - or uses a comparative phrase more often than the checked comparisons account for.
//!
//! Labels are not numbers: digits inside a word (`hs3d`, `fgp-32`, `L2`), and the numbers
//! of a figure, equation, table, section or algorithm (`Fig. 9`, `Eqs. 2-3`, `§3.4`). The
//! module has no dependency, so the command-line tests include it by path.

use std::collections::BTreeSet;

/// Comparative phrases the report may only produce through a checked comparison.
pub const PHRASES: &[(&str, &str)] = &[
    ("less than", "<"),
    ("greater than", ">"),
    ("lower than", "<"),
    ("higher than", ">"),
];

/// Words after which a number is a label, not a value.
const LABEL_PREFIXES: &[&str] = &[
    "Fig. ",
    "Figs. ",
    "Eq. ",
    "Eqs. ",
    "Table ",
    "Algorithm ",
    "Alg. ",
    "§",
    "issue ",
    "mix ",
    "test ",
];

/// The numeric tokens of `text` that are values (labels excluded), as written.
pub fn numbers(text: &str) -> Vec<String> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if !c[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i;
        while j < c.len()
            && (c[j].is_ascii_digit()
                || (c[j] == '.' && j + 1 < c.len() && c[j + 1].is_ascii_digit()))
        {
            j += 1;
        }
        let prev = if start > 0 { c[start - 1] } else { ' ' };
        let prev2 = if start > 1 { c[start - 2] } else { ' ' };
        let next = c.get(j).copied().unwrap_or(' ');
        let next2 = c.get(j + 1).copied().unwrap_or(' ');
        let in_word = prev.is_alphanumeric()
            || prev == '_'
            || prev == '.'
            || (prev == '-' && (prev2.is_alphanumeric() || prev2 == '_'))
            || next == '_'
            // a dimension word, `2-D objects`, `3-D hypercube`
            || (next == '-' && next2 == 'D' && !c.get(j + 2).is_some_and(|ch| ch.is_alphanumeric()))
            || (next.is_alphabetic()
                && !(next == 'x' && !(next2.is_alphanumeric() || next2 == '_')));
        let before: String = c[..start].iter().collect();
        let label = LABEL_PREFIXES.iter().any(|p| before.ends_with(p))
            || (prev == '-' && {
                // the second number of a label range: `Eqs. 2-3`
                let head: String = c[..start - 1].iter().collect();
                let k = head
                    .trim_end_matches(|ch: char| ch.is_ascii_digit())
                    .to_string();
                LABEL_PREFIXES.iter().any(|p| k.ends_with(p))
            });
        if !in_word && !label {
            out.push(c[start..j].iter().collect());
        }
        i = j;
    }
    out
}

/// Audit `report` against its ledger (`numbers.txt`) and checked comparisons
/// (`checks.txt`); returns every problem found (empty = the report is supported).
pub fn audit(report: &str, ledger: &str, checks: &str) -> Vec<String> {
    let mut errs = Vec::new();
    for bad in ["NaN", "nan%", " inf", "inf%", "infx"] {
        if report.contains(bad) {
            errs.push(format!("the report contains `{bad}`"));
        }
    }
    let known: BTreeSet<String> = ledger
        .lines()
        .flat_map(|l| numbers(l.split('\t').next().unwrap_or("")))
        .collect();
    for (ln, line) in report.lines().enumerate() {
        for n in numbers(line) {
            if !known.contains(&n) {
                errs.push(format!(
                    "line {}: number {n} is not in the ledger: {line}",
                    ln + 1
                ));
            }
        }
    }
    let mut counted = vec![0usize; PHRASES.len()];
    for (ln, l) in checks.lines().enumerate() {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() < 4 {
            errs.push(format!("checks line {}: malformed `{l}`", ln + 1));
            continue;
        }
        let (a, b) = (f[0].parse::<f64>(), f[2].parse::<f64>());
        let ok = match (a, b, f[1]) {
            (Ok(a), Ok(b), "<") => a < b,
            (Ok(a), Ok(b), ">") => a > b,
            _ => false,
        };
        if !ok {
            errs.push(format!("comparison does not hold: {l}"));
        }
        if let Some(k) = PHRASES.iter().position(|p| p.0 == f[3]) {
            if PHRASES[k].1 != f[1] {
                errs.push(format!("phrase `{}` used for `{}`: {l}", f[3], f[1]));
            }
            counted[k] += 1;
        }
    }
    for (k, (p, _)) in PHRASES.iter().enumerate() {
        // whole words only: "slower than" is not "lower than"
        let used = report
            .match_indices(p)
            .filter(|(i, _)| {
                !report[..*i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric())
            })
            .count();
        if used > counted[k] {
            errs.push(format!(
                "`{p}` appears {used} time(s) but only {} comparison(s) were checked",
                counted[k]
            ));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimension_words_are_not_values() {
        assert_eq!(
            numbers("2-D objects on a 3-D hypercube, 2-Dim 4 -D"),
            ["2", "4"]
        );
    }

    #[test]
    fn numbers_skip_labels_and_keep_values() {
        let t =
            "Fig. 9 and Eqs. 2-3: hs3d on coda-4gpu gains 1.56x, -38.0% and 75% (L2, §3.4, mix 2)";
        assert_eq!(numbers(t), vec!["1.56", "38.0", "75"]);
        assert_eq!(numbers("| 0.85 | 12 |"), vec!["0.85", "12"]);
    }

    #[test]
    fn audit_catches_typed_numbers_nan_and_false_comparisons() {
        let ledger = "1.99x\tbe\n1.56x\tpaper\n";
        assert!(audit("BE 1.99x, paper 1.56x", ledger, "").is_empty());
        // a number typed into the prose
        assert_eq!(audit("BE 1.99x from 26601 traces", ledger, "").len(), 1);
        // NaN
        assert!(!audit("SPMV NaNx", ledger, "").is_empty());
        // "less than" where the value is greater
        let checks = "1.99\t<\t1.56\tless than\n";
        assert!(!audit("BE 1.99x less than 1.56x", ledger, checks).is_empty());
        let checks = "1.99\t>\t1.56\tgreater than\n";
        assert!(audit("BE 1.99x greater than 1.56x", ledger, checks).is_empty());
        // an unchecked comparison
        assert!(!audit("BE 1.99x less than 1.56x", ledger, "").is_empty());
        assert!(audit("BE is slower than FGP-Only", ledger, "").is_empty());
    }
}
