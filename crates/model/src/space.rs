//! The programmable memory components of a Kepler GPU and the properties the model needs
//! (spec §2.1-§2.2): addressing instructions per element access (§3.2.3), read/write rules
//! and capacities (§4).

use serde::{Deserialize, Serialize};

/// Where an array lives (spec §2.1: G, T, 2T, C, S).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Place {
    /// Off-chip global memory through the L2 (no private cache modelled).
    Global,
    /// 1-D texture (`tex1Dfetch`): per-SM texture cache, then the L2.
    Tex1D,
    /// 2-D texture: the texture cache with 2-D (tiled) locality, then the L2.
    Tex2D,
    /// Constant memory: per-SM constant cache with warp broadcast, then the L2.
    Const,
    /// On-chip shared memory (32 banks), block-private.
    Shared,
}

impl Place {
    /// Every component, in a fixed order (the search enumerates in this order).
    pub const ALL: [Place; 5] = [
        Place::Global,
        Place::Tex1D,
        Place::Tex2D,
        Place::Const,
        Place::Shared,
    ];

    /// Position in [`Place::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Parses a component name: `global|g`, `tex1d|texture|t`, `tex2d|2t`,
    /// `const|constant|c`, `shared|s` (case-insensitive).
    pub fn parse(s: &str) -> Option<Place> {
        Some(match s.to_ascii_lowercase().as_str() {
            "global" | "g" => Place::Global,
            "tex1d" | "texture" | "tex" | "t" => Place::Tex1D,
            "tex2d" | "2t" => Place::Tex2D,
            "const" | "constant" | "c" => Place::Const,
            "shared" | "s" => Place::Shared,
            _ => return None,
        })
    }

    /// The paper's short name (Table IV): G, T, 2T, C, S.
    pub fn short(self) -> &'static str {
        match self {
            Place::Global => "G",
            Place::Tex1D => "T",
            Place::Tex2D => "2T",
            Place::Const => "C",
            Place::Shared => "S",
        }
    }

    /// The long name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Place::Global => "global",
            Place::Tex1D => "tex1d",
            Place::Tex2D => "tex2d",
            Place::Const => "const",
            Place::Shared => "shared",
        }
    }

    /// Address-calculation instructions per element access (spec §3.2.3 table: G 2, T 0,
    /// C 1, S 1; 2T 0 by the spec's default \[D\]; a double on a texture pays one more for the
    /// two-word recombination).
    pub fn addr_insts(self, elem_bytes: u32) -> u32 {
        match self {
            Place::Global => 2,
            Place::Tex1D => u32::from(elem_bytes == 8),
            Place::Tex2D => 0,
            Place::Const | Place::Shared => 1,
        }
    }

    /// Read-only in a kernel (textures and constant memory, spec §2.2).
    pub fn read_only(self) -> bool {
        matches!(self, Place::Tex1D | Place::Tex2D | Place::Const)
    }

    /// Backed by DRAM through the L2 (everything but shared memory).
    pub fn off_chip(self) -> bool {
        self != Place::Shared
    }

    /// The component of a simulator memory space (local memory counts as global).
    pub fn of_space(s: locus_workload::Space) -> Place {
        use locus_workload::Space;
        match s {
            Space::Global | Space::Local => Place::Global,
            Space::Shared => Place::Shared,
            Space::Constant => Place::Const,
            Space::Texture => Place::Tex1D,
        }
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The §3.2.3 ordering for a float array: T(0) < C = S(1) < G(2).
    #[test]
    fn addressing_costs_are_the_papers() {
        let c: Vec<u32> = Place::ALL.iter().map(|p| p.addr_insts(4)).collect();
        assert_eq!(c, vec![2, 0, 0, 1, 1]);
        assert_eq!(Place::Tex1D.addr_insts(8), 1);
    }

    #[test]
    fn names_round_trip() {
        for p in Place::ALL {
            assert_eq!(Place::parse(p.name()), Some(p));
            assert_eq!(Place::parse(p.short()), Some(p));
        }
        assert_eq!(Place::parse("l2"), None);
    }
}
