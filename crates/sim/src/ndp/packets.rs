//! Packet kinds of partitioned execution and their sizes (spec ndp.md §3.7, Fig. 4).
//!
//! The paper gives the fields, not their widths; the sizes follow the spec's \[DEFAULT\]
//! HMC-style model: 16 B FLITs, one header/tail FLIT per packet holding the offload packet
//! id (6 b SM | 6 b warp | 5 b sequence number), a 35-bit physical address, the 32-bit
//! active mask and the 3-bit target NSU id; payloads rounded up to whole FLITs.

/// Most load/store instructions in one offload block: the 5-bit sequence number (§3.3).
pub const MAX_MEM_INSTS: u32 = 32;
/// Word size of one thread's register or datum, bytes.
pub const WORD_BYTES: u32 = 4;
/// Threads per warp.
pub const WARP: u32 = 32;

use locus_workload::LaneAddr;

/// Every packet kind of the GPU, the vaults and the NSUs (§3.2, §3.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Packet {
    /// Baseline read request (GPU -> vault).
    ReadReq,
    /// Baseline read response with a whole line.
    ReadResp,
    /// Offload command with live-ins (GPU -> target NSU), Fig. 4(a).
    OffloadCmd,
    /// Read-and-forward request (GPU -> owning vault), Fig. 4(b).
    Rdf,
    /// Write-address packet (GPU -> target NSU), Fig. 4(b).
    Wta,
    /// RDF response with the active threads' words (vault or GPU cache -> NSU), Fig. 4(c).
    RdfResp,
    /// NSU write of the active threads' words to a vault.
    NsuWrite,
    /// Vault -> NSU write acknowledgement.
    WriteAck,
    /// Vault -> GPU cache invalidation after an NSU write (§3.9).
    Inval,
    /// NSU -> GPU offload ack with live-outs.
    OffloadAck,
    /// NSU -> GPU credit return (when not piggybacked).
    Credit,
}

impl Packet {
    /// Every kind, in the order of the statistics.
    pub const ALL: [Packet; 11] = [
        Packet::ReadReq,
        Packet::ReadResp,
        Packet::OffloadCmd,
        Packet::Rdf,
        Packet::Wta,
        Packet::RdfResp,
        Packet::NsuWrite,
        Packet::WriteAck,
        Packet::Inval,
        Packet::OffloadAck,
        Packet::Credit,
    ];

    /// Name in statistics.
    pub fn name(self) -> &'static str {
        match self {
            Packet::ReadReq => "read_req",
            Packet::ReadResp => "read_resp",
            Packet::OffloadCmd => "offload_cmd",
            Packet::Rdf => "rdf",
            Packet::Wta => "wta",
            Packet::RdfResp => "rdf_resp",
            Packet::NsuWrite => "nsu_write",
            Packet::WriteAck => "write_ack",
            Packet::Inval => "inval",
            Packet::OffloadAck => "offload_ack",
            Packet::Credit => "credit",
        }
    }
}

/// FLITs of `bytes` of payload plus the header FLIT.
#[inline]
fn flits(payload_bytes: u32, flit: u32) -> u32 {
    1 + payload_bytes.div_ceil(flit)
}

/// Size in bytes of one packet of kind `p` (§3.7 table):
/// `active` threads, `regs` live-in (command) or live-out (ack) registers per thread,
/// `misaligned` adds 5 bits of line offset per active thread to an RDF or WTA,
/// `line_bytes` is the line of a baseline response; `flit` the FLIT size.
pub fn bytes(
    p: Packet,
    active: u32,
    regs: u32,
    misaligned: bool,
    line_bytes: u32,
    flit: u32,
) -> u32 {
    let n = match p {
        Packet::ReadReq | Packet::WriteAck | Packet::Inval => 1,
        Packet::Credit => 1,
        Packet::ReadResp => flits(line_bytes, flit),
        Packet::OffloadCmd | Packet::OffloadAck => flits(regs * active * WORD_BYTES, flit),
        Packet::Rdf | Packet::Wta => {
            if misaligned {
                flits((active * 5).div_ceil(8), flit)
            } else {
                1
            }
        }
        Packet::RdfResp | Packet::NsuWrite => flits(active * WORD_BYTES, flit),
    };
    n * flit
}

/// Is the access aligned in the paper's sense (§3.5: "every thread `i` accesses `Addr_i =
/// CacheLineBaseAddr + i x WordSize`")? One base for the whole access: the line of the
/// lowest active lane; every active lane `i` must read `base + i x 4` (the 5-bit offset
/// field of §3.7 indexes 4-byte words). A permutation, a broadcast, wider words or an
/// access that spans two lines is misaligned and pays the per-thread offsets in its RDF /
/// WTA packets; a partial warp whose active lanes sit at their own words is aligned.
pub fn aligned(lanes: &[LaneAddr], line_bytes: u64) -> bool {
    let Some(first) = lanes.iter().min_by_key(|l| l.lane) else {
        return true;
    };
    let base = first.addr & !(line_bytes - 1);
    lanes
        .iter()
        .all(|l| l.addr == base + l.lane as u64 * WORD_BYTES as u64)
}

/// The active threads of one line request of an access: the lanes whose address falls in
/// the line at `line_addr` (a line-aligned address), at least 1.
pub fn lanes_in_line(lanes: &[LaneAddr], line_addr: u64, line_bytes: u64) -> u32 {
    let mask = !(line_bytes - 1);
    (lanes.iter().filter(|l| l.addr & mask == line_addr).count() as u32).max(1)
}

/// The (active threads, aligned) of each line request of a memory instruction: from its
/// lanes when the workload recorded them ([`aligned`], [`lanes_in_line`]), else from the
/// bytes the lanes used in the line (`bytes / 4` threads; aligned when the whole line is
/// used), the only reading a trace without lane addresses allows.
pub fn line_shape(
    lanes: Option<&[LaneAddr]>,
    access_aligned: bool,
    line_addr: u64,
    line_bytes_used: u32,
    line_bytes: u32,
) -> (u32, bool) {
    match lanes {
        Some(ls) if !ls.is_empty() => (
            lanes_in_line(ls, line_addr, line_bytes as u64),
            access_aligned,
        ),
        _ => (
            (line_bytes_used / WORD_BYTES).clamp(1, 32),
            line_bytes_used == line_bytes,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The §3.7 table for a full warp with 16 B FLITs.
    #[test]
    fn sizes_follow_the_flit_table() {
        let b = |p, regs, mis| bytes(p, 32, regs, mis, 128, 16);
        assert_eq!(b(Packet::ReadReq, 0, false), 16);
        assert_eq!(b(Packet::ReadResp, 0, false), 16 * 9, "1 + 128/16 FLITs");
        assert_eq!(b(Packet::Rdf, 0, false), 16);
        assert_eq!(b(Packet::Wta, 0, false), 16);
        // 32 x 5 bits = 20 B of offsets -> 2 more FLITs
        assert_eq!(b(Packet::Rdf, 0, true), 16 * 3);
        assert_eq!(b(Packet::RdfResp, 0, false), 16 * 9, "32 words");
        assert_eq!(b(Packet::NsuWrite, 0, false), 16 * 9);
        assert_eq!(
            b(Packet::OffloadCmd, 0, false),
            16,
            "no live-ins: header only"
        );
        assert_eq!(
            b(Packet::OffloadCmd, 1, false),
            16 * 9,
            "one live-in per thread"
        );
        assert_eq!(b(Packet::OffloadAck, 2, false), 16 * 17);
        assert_eq!(b(Packet::Inval, 0, false), 16);
        // only active threads' words travel
        assert_eq!(bytes(Packet::RdfResp, 3, 0, false, 128, 16), 16 * 2);
        assert_eq!(bytes(Packet::OffloadAck, 5, 1, false, 128, 16), 16 * 3);
    }

    #[test]
    fn alignment_is_lane_times_word() {
        let la = |lane: u8, addr: u64| LaneAddr {
            lane,
            bytes: 4,
            addr,
        };
        let al: Vec<LaneAddr> = (0..32).map(|i| la(i, 0x1000 + i as u64 * 4)).collect();
        assert!(aligned(&al, 128));
        let mut shifted = al.clone();
        shifted[3].addr += 4;
        assert!(!aligned(&shifted, 128));
        let strided: Vec<LaneAddr> = (0..4).map(|i| la(i, 0x1000 + i as u64 * 8)).collect();
        assert!(!aligned(&strided, 128), "8 B words");
        // a partial warp at its own words is aligned; a broadcast or a permutation is not
        assert!(aligned(&al[..16], 128));
        assert!(aligned(&al[5..9], 128));
        let bcast: Vec<LaneAddr> = (0..32).map(|i| la(i, 0x1000)).collect();
        assert!(!aligned(&bcast, 128));
        let perm: Vec<LaneAddr> = (0..32)
            .map(|i| la(i, 0x1000 + (i ^ 1) as u64 * 4))
            .collect();
        assert!(!aligned(&perm, 128));
        // one base for the access: lanes on two lines, each at lane x 4 in its own line
        let two: Vec<LaneAddr> = (0..32)
            .map(|i| la(i, 0x1000 + (i as u64 % 2) * 128 + i as u64 * 4))
            .collect();
        assert!(!aligned(&two, 128));
        // the threads of each line
        let sh: Vec<LaneAddr> = (0..32).map(|i| la(i, 0x1004 + i as u64 * 4)).collect();
        assert_eq!(lanes_in_line(&sh, 0x1000, 128), 31);
        assert_eq!(lanes_in_line(&sh, 0x1080, 128), 1);
        assert_eq!(line_shape(Some(&sh), false, 0x1080, 4, 128), (1, false));
        assert_eq!(line_shape(None, false, 0x1000, 128, 128), (32, true));
        assert_eq!(line_shape(None, true, 0x1000, 64, 128), (16, false));
    }
}
