//! Directory storage (REC Table 1 and §5.5, rec.md §3.4): bits per entry and kilobytes per
//! directory for the baseline line directory and REC, with the paper's 48-bit tag
//! convention (the full tag or base is kept; index bits are not subtracted).

use serde::Serialize;

/// Tag (physical byte address) bits of the paper's machine.
pub const TAG_BITS: u32 = 48;

/// The fields of one directory entry, in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EntryBits {
    /// Addressable (coalescing) range of the entry, bytes; equal to the line for the
    /// baseline.
    pub range_bytes: u64,
    /// Tag (baseline) or base address bits: `48 - log2(range)` for REC.
    pub base: u32,
    /// Position bits: one per line of the range (none for the baseline).
    pub position: u32,
    /// Sharer bits: `N - 1` per line (the home is not tracked).
    pub sharer: u32,
    /// The valid / state bit.
    pub valid: u32,
    pub total: u32,
}

/// Bits of an entry covering `range_bytes` with lines of `line_bytes` and `nodes` GPUs:
/// the baseline entry when the range is one line (`48 + (N-1) + 1`, §2.3: 52 b for 4
/// GPUs), else REC's `48 - log2 R + (R/L) + (R/L)(N-1) + 1` (§3.4: 103 b for 1 KB).
pub fn entry_bits(range_bytes: u64, line_bytes: u64, nodes: u32) -> EntryBits {
    let lines = (range_bytes / line_bytes.max(1)) as u32;
    let (base, position) = if lines <= 1 {
        (TAG_BITS, 0)
    } else {
        (TAG_BITS - range_bytes.trailing_zeros(), lines)
    };
    let sharer = lines.max(1) * (nodes - 1);
    EntryBits {
        range_bytes,
        base,
        position,
        sharer,
        valid: 1,
        total: base + position + sharer + 1,
    }
}

/// Kilobytes (1024 B) of a directory of `entries` entries of `bits` bits.
pub fn directory_kb(entries: u64, bits: u32) -> f64 {
    entries as f64 * bits as f64 / 8.0 / 1024.0
}

/// One row of the storage table: an organisation, its entry and its directory.
#[derive(Clone, Debug, Serialize)]
pub struct StorageRow {
    pub name: String,
    pub nodes: u32,
    pub entries: u64,
    pub entry: EntryBits,
    pub kb: f64,
    /// Directory size relative to the 8K-entry baseline of the same node count.
    pub vs_baseline: f64,
    /// Directory size as a percentage of the L2.
    pub pct_of_l2: f64,
}

/// Table 1 (ranges 64 B to 4 KB, 4 GPUs, 8K entries) followed by §5.5's other points:
/// the 6x and 12x ("ideal", 96K entries) baselines, and the 8- and 16-GPU entries.
pub fn table(l2_bytes: u64) -> Vec<StorageRow> {
    let row = |name: &str, range: u64, nodes: u32, entries: u64| {
        let entry = entry_bits(range, 64, nodes);
        let kb = directory_kb(entries, entry.total);
        let base = directory_kb(8192, entry_bits(64, 64, nodes).total);
        StorageRow {
            name: name.to_string(),
            nodes,
            entries,
            entry,
            kb,
            vs_baseline: kb / base,
            pct_of_l2: 100.0 * kb * 1024.0 / l2_bytes as f64,
        }
    };
    vec![
        row("baseline (64 B)", 64, 4, 8192),
        row("rec 128 B", 128, 4, 8192),
        row("rec 256 B", 256, 4, 8192),
        row("rec 1 KB", 1024, 4, 8192),
        row("rec 4 KB", 4096, 4, 8192),
        row("baseline 2x", 64, 4, 2 * 8192),
        row("baseline 6x", 64, 4, 6 * 8192),
        row("baseline 12x (ideal)", 64, 4, 12 * 8192),
        row("baseline 8 GPUs", 64, 8, 8192),
        row("rec 1 KB 8 GPUs", 1024, 8, 8192),
        row("baseline 16 GPUs", 64, 16, 8192),
        row("rec 1 KB 16 GPUs", 1024, 16, 8192),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// REC Table 1 verbatim: base bits, position / sharer bits, totals.
    #[test]
    fn table1() {
        let cols: Vec<(u64, u32, u32, u32, u32)> = vec![
            (64, 48, 0, 3, 52),
            (128, 41, 2, 6, 50),
            (256, 40, 4, 12, 57),
            (1024, 38, 16, 48, 103),
            (4096, 36, 64, 192, 293),
        ];
        for (r, base, pos, sh, total) in cols {
            let e = entry_bits(r, 64, 4);
            assert_eq!(
                (e.base, e.position, e.sharer, e.total),
                (base, pos, sh, total),
                "{r} B"
            );
        }
    }

    /// §5.5: 52 kB / 103 kB directories, 2.5 % of a 2 MB L2; 6x and 12x baselines
    /// (312 kB = 15.2 %, 624 kB = 30.4 %); 8 GPUs 56 / 167 b, 16 GPUs 64 / 295 b.
    #[test]
    fn section_5_5() {
        assert_eq!(directory_kb(8192, 52), 52.0);
        assert_eq!(directory_kb(8192, 103), 103.0);
        let t = table(2 << 20);
        let by = |n: &str| t.iter().find(|r| r.name == n).unwrap();
        assert!((by("baseline (64 B)").pct_of_l2 - 2.54).abs() < 0.01);
        assert_eq!(by("baseline 6x").kb, 312.0);
        assert!((by("baseline 6x").pct_of_l2 - 15.2).abs() < 0.05);
        assert_eq!(by("baseline 12x (ideal)").kb, 624.0);
        assert!((by("baseline 12x (ideal)").pct_of_l2 - 30.4).abs() < 0.1);
        assert_eq!(by("baseline 8 GPUs").entry.total, 56);
        assert_eq!(by("rec 1 KB 8 GPUs").entry.total, 167);
        assert_eq!(by("baseline 16 GPUs").entry.total, 64);
        assert_eq!(by("rec 1 KB 16 GPUs").entry.total, 295);
        assert!(
            (by("rec 4 KB").vs_baseline - 5.63).abs() < 0.01,
            "nearly 6x"
        );
        assert!(
            (by("rec 1 KB 8 GPUs").vs_baseline - 2.98).abs() < 0.01,
            "about 3x"
        );
        assert!(
            (by("rec 1 KB 16 GPUs").vs_baseline - 4.61).abs() < 0.01,
            "roughly 5x"
        );
        // the 2x baseline is the equal-storage point of REC (104 kB vs 103 kB)
        assert_eq!(by("baseline 2x").kb, 104.0);
    }
}
