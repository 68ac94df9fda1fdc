//! Sector geometry of sectored caches (`system.sector_bytes`, `l2.dram_fetch_bytes`).
//!
//! Masks are in 32-byte chunks of a line ([`locus_workload::LineReq::sectors`]); a sector
//! of `sector_bytes` is a group of chunks. A warp's touched chunks are widened to whole
//! sectors (what an L1 miss asks the L2 for), an L2 miss's missing sectors to whole DRAM
//! fetch blocks (what it reads from memory), and a mask's bytes are its chunks times 32.

use locus_workload::CHUNK_BYTES;

/// Sector and DRAM-fetch sizes of a line, in chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectorGeom {
    /// Chunks per sector.
    pub sector: u32,
    /// Chunks per DRAM fetch block (at least a sector).
    pub fetch: u32,
    /// Every chunk of a line.
    pub full: u32,
}

impl SectorGeom {
    /// The geometry for lines of `line_bytes`, sectors of `sector_bytes` and DRAM fetches
    /// of `fetch_bytes` (0: a sector); `None` when `sector_bytes` is 0 (whole lines).
    pub fn new(line_bytes: u32, sector_bytes: u32, fetch_bytes: u32) -> Option<SectorGeom> {
        if sector_bytes == 0 {
            return None;
        }
        let chunks = line_bytes as u64 / CHUNK_BYTES;
        let fetch = if fetch_bytes == 0 {
            sector_bytes
        } else {
            fetch_bytes
        };
        Some(SectorGeom {
            sector: (sector_bytes as u64 / CHUNK_BYTES) as u32,
            fetch: (fetch as u64 / CHUNK_BYTES) as u32,
            full: if chunks >= 32 {
                u32::MAX
            } else {
                (1u32 << chunks) - 1
            },
        })
    }

    /// `mask` widened to whole groups of `group` chunks (aligned).
    #[inline]
    pub fn widen(mask: u32, group: u32) -> u32 {
        if group <= 1 {
            return mask;
        }
        let g = if group >= 32 {
            u32::MAX
        } else {
            (1u32 << group) - 1
        };
        let mut out = 0;
        let mut k = 0;
        while k < 32 {
            let gm = g << k;
            if mask & gm != 0 {
                out |= gm;
            }
            k += group;
        }
        out
    }

    /// The sectors of the chunks `mask` touches (what a miss asks for).
    #[inline]
    pub fn to_sectors(&self, mask: u32) -> u32 {
        Self::widen(mask, self.sector) & self.full
    }

    /// The DRAM fetch blocks of the chunks `mask` (what an L2 miss reads).
    #[inline]
    pub fn to_fetch(&self, mask: u32) -> u32 {
        Self::widen(mask, self.fetch) & self.full
    }

    /// Bytes of the chunks of `mask` within a line.
    #[inline]
    pub fn bytes(&self, mask: u32) -> u32 {
        (mask & self.full).count_ones() * CHUNK_BYTES as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_covers_whole_aligned_groups() {
        let g = SectorGeom::new(128, 32, 64).unwrap();
        assert_eq!(g.full, 0b1111);
        assert_eq!(g.to_sectors(0b0100), 0b0100, "32-byte sectors are chunks");
        assert_eq!(
            g.to_fetch(0b0100),
            0b1100,
            "a 64-byte fetch brings the aligned pair"
        );
        assert_eq!(g.to_fetch(0b0110), 0b1111, "chunks of both pairs");
        assert_eq!(g.bytes(g.to_fetch(0b0001)), 64);
        let g = SectorGeom::new(1024, 128, 0).unwrap();
        assert_eq!(g.full, u32::MAX);
        assert_eq!(
            g.to_sectors(1 << 5),
            0xF0,
            "chunk 5 is in the second 128-byte sector"
        );
        assert_eq!(
            g.to_fetch(1 << 31),
            0xF000_0000,
            "no fetch size: the sector"
        );
        assert_eq!(g.bytes(u32::MAX), 1024);
        assert!(SectorGeom::new(128, 0, 0).is_none(), "whole lines");
        assert_eq!(SectorGeom::widen(0b1, 32), u32::MAX);
    }
}
