//! The messages of one offloaded block instance, in order (spec ndp.md §3.2 / Fig. 2(b),
//! §3.5, §3.6, §3.9), and of the same warp run on the GPU (Fig. 2(a)).
//!
//! GPU side: the offload command waits in the pending buffer until the first memory
//! instruction names the target NSU ([`super::target`]); then, in program order, every
//! load line becomes a read-and-forward request to the vault that owns it (or, when the
//! line hits in the GPU caches, an RDF response built by the GPU and sent to the target
//! over the target's GPU link), every store line a write-address packet to the target.
//! Memory side: each vault sends its RDF response to the target NSU (locally, or through
//! the memory network); the NSU computes, writes each stored line to its owner vault, which
//! acknowledges to the NSU and invalidates the GPU caches; after the last write ack the NSU
//! returns the live-outs in the offload ack.
//!
//! The flow is a pure function of the block's accesses; the timing model is meant to emit
//! exactly these packets ([`Msg`] is `Copy`, the output vector is the caller's, reused).

use super::packets::{bytes, Packet};
use super::select::BlockDesc;
use super::target::first_access_target;

/// An endpoint of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The GPU (its SMs and on-chip caches).
    Gpu,
    /// A vault controller of stack `s`.
    Vault(u32),
    /// The NSU of stack `s`.
    Nsu(u32),
}

impl End {
    /// The stack of a memory-side endpoint.
    pub fn stack(self) -> Option<u32> {
        match self {
            End::Gpu => None,
            End::Vault(s) | End::Nsu(s) => Some(s),
        }
    }
}

/// One message of the flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Msg {
    pub packet: Packet,
    pub from: End,
    pub to: End,
    /// Size in bytes (whole FLITs, [`bytes`]).
    pub bytes: u32,
    /// Sequence number of the instruction it belongs to (the command: 0, §3.5).
    pub seq: u8,
}

/// One line request of a memory instruction in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineAccess {
    /// Stack owning the line.
    pub stack: u32,
    /// Active threads touching it.
    pub active: u32,
    /// Aligned in the §3.5 sense (lane i at base + 4i).
    pub aligned: bool,
    /// A load line that hits in the GPU's L1 or L2 (an RDF checks them first, §3.5).
    pub gpu_hit: bool,
}

/// One memory instruction of a block: a store or a load, and its lines.
#[derive(Clone, Copy, Debug)]
pub struct MemInst<'a> {
    pub store: bool,
    pub lines: &'a [LineAccess],
}

/// Sizes the flows use.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub line_bytes: u32,
    pub flit: u32,
    pub stacks: u32,
}

/// Append the messages of one offloaded instance of block `d` with `active` threads and
/// memory instructions `insts` to `out`; returns the target stack (`None` when the block
/// has no memory instruction: nothing is sent).
pub fn offloaded(
    d: &BlockDesc,
    active: u32,
    insts: &[MemInst<'_>],
    z: Sizes,
    out: &mut Vec<Msg>,
) -> Option<u32> {
    let first = insts.iter().find(|i| !i.lines.is_empty())?;
    let mut first_stacks = [0u32; 64];
    let k = first.lines.len().min(64);
    for (slot, l) in first_stacks.iter_mut().zip(first.lines) {
        *slot = l.stack;
    }
    let t = first_access_target(&first_stacks[..k], z.stacks)?;
    let sz = |p, act, regs, mis| bytes(p, act, regs, mis, z.line_bytes, z.flit);
    let msg = |packet, from, to, bytes, seq| Msg {
        packet,
        from,
        to,
        bytes,
        seq,
    };
    // (1) the command leaves the pending buffer first
    out.push(msg(
        Packet::OffloadCmd,
        End::Gpu,
        End::Nsu(t),
        sz(Packet::OffloadCmd, active, d.live_ins, false),
        0,
    ));
    // (2)-(4) RDF and WTA packets in program order, one sequence number per instruction
    for (seq, i) in insts.iter().enumerate() {
        for l in i.lines {
            let seq = seq as u8;
            if i.store {
                out.push(msg(
                    Packet::Wta,
                    End::Gpu,
                    End::Nsu(t),
                    sz(Packet::Wta, l.active, 0, !l.aligned),
                    seq,
                ));
            } else if l.gpu_hit {
                out.push(msg(
                    Packet::RdfResp,
                    End::Gpu,
                    End::Nsu(t),
                    sz(Packet::RdfResp, l.active, 0, false),
                    seq,
                ));
            } else {
                out.push(msg(
                    Packet::Rdf,
                    End::Gpu,
                    End::Vault(l.stack),
                    sz(Packet::Rdf, l.active, 0, !l.aligned),
                    seq,
                ));
            }
        }
    }
    // (5)/(6) vault responses to the target NSU
    for (seq, i) in insts.iter().enumerate() {
        if i.store {
            continue;
        }
        for l in i.lines.iter().filter(|l| !l.gpu_hit) {
            out.push(msg(
                Packet::RdfResp,
                End::Vault(l.stack),
                End::Nsu(t),
                sz(Packet::RdfResp, l.active, 0, false),
                seq as u8,
            ));
        }
    }
    // (7)-(8) NSU writes, acks to the NSU, invalidations to the GPU
    for (seq, i) in insts.iter().enumerate() {
        if !i.store {
            continue;
        }
        for l in i.lines {
            let seq = seq as u8;
            out.push(msg(
                Packet::NsuWrite,
                End::Nsu(t),
                End::Vault(l.stack),
                sz(Packet::NsuWrite, l.active, 0, false),
                seq,
            ));
            out.push(msg(
                Packet::WriteAck,
                End::Vault(l.stack),
                End::Nsu(t),
                sz(Packet::WriteAck, 0, 0, false),
                seq,
            ));
            out.push(msg(
                Packet::Inval,
                End::Vault(l.stack),
                End::Gpu,
                sz(Packet::Inval, 0, 0, false),
                seq,
            ));
        }
    }
    // (9) the offload ack with the live-outs
    out.push(msg(
        Packet::OffloadAck,
        End::Nsu(t),
        End::Gpu,
        sz(Packet::OffloadAck, active, d.live_outs, false),
        insts.len() as u8,
    ));
    Some(t)
}

/// Append the messages of the same instance run on the GPU (Fig. 2(a)): per missing load
/// line a read request and a line response; per store line a masked write and its ack.
pub fn on_gpu(insts: &[MemInst<'_>], z: Sizes, out: &mut Vec<Msg>) {
    let sz = |p, act| bytes(p, act, 0, false, z.line_bytes, z.flit);
    for (seq, i) in insts.iter().enumerate() {
        let seq = seq as u8;
        for l in i.lines {
            let v = End::Vault(l.stack);
            if i.store {
                let w = sz(Packet::NsuWrite, l.active);
                out.push(Msg {
                    packet: Packet::NsuWrite,
                    from: End::Gpu,
                    to: v,
                    bytes: w,
                    seq,
                });
                out.push(Msg {
                    packet: Packet::WriteAck,
                    from: v,
                    to: End::Gpu,
                    bytes: sz(Packet::WriteAck, 0),
                    seq,
                });
            } else if !l.gpu_hit {
                out.push(Msg {
                    packet: Packet::ReadReq,
                    from: End::Gpu,
                    to: v,
                    bytes: sz(Packet::ReadReq, 0),
                    seq,
                });
                out.push(Msg {
                    packet: Packet::ReadResp,
                    from: v,
                    to: End::Gpu,
                    bytes: sz(Packet::ReadResp, 0),
                    seq,
                });
            }
        }
    }
}

/// Bytes a flow puts on the GPU's off-chip links (every message to or from the GPU).
pub fn gpu_link_bytes(msgs: &[Msg]) -> u64 {
    msgs.iter()
        .filter(|m| m.from == End::Gpu || m.to == End::Gpu)
        .map(|m| m.bytes as u64)
        .sum()
}

/// Link-bytes a flow puts on the stacks' hypercube (bytes x e-cube hops between stacks;
/// a message inside one stack uses no link).
pub fn network_link_bytes(msgs: &[Msg]) -> u64 {
    msgs.iter()
        .filter_map(|m| Some((m.from.stack()?, m.to.stack()?, m.bytes)))
        .map(|(a, b, n)| (a ^ b).count_ones() as u64 * n as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const Z: Sizes = Sizes {
        line_bytes: 128,
        flit: 16,
        stacks: 8,
    };

    fn line(stack: u32) -> LineAccess {
        LineAccess {
            stack,
            active: 32,
            aligned: true,
            gpu_hit: false,
        }
    }

    /// vectorAdd, one full warp (spec §3.2, Fig. 2(b)): A on stack 2, B on stack 5, C on
    /// stack 2: messages, endpoints, sizes and order; the GPU links carry 96 B instead of
    /// the baseline's 480 B.
    #[test]
    fn vectoradd_example_end_to_end() {
        let vadd = BlockDesc {
            loads: 2,
            stores: 1,
            live_ins: 0,
            live_outs: 0,
            nsu_insts: 4,
        };
        let (a, b, c) = ([line(2)], [line(5)], [line(2)]);
        let insts = [
            MemInst {
                store: false,
                lines: &a,
            },
            MemInst {
                store: false,
                lines: &b,
            },
            MemInst {
                store: true,
                lines: &c,
            },
        ];
        let mut out = Vec::new();
        let t = offloaded(&vadd, 32, &insts, Z, &mut out);
        assert_eq!(t, Some(2), "target = stack of the first access (A)");
        use End::*;
        use Packet::*;
        let want = [
            (OffloadCmd, Gpu, Nsu(2), 16, 0),
            (Rdf, Gpu, Vault(2), 16, 0),
            (Rdf, Gpu, Vault(5), 16, 1),
            (Wta, Gpu, Nsu(2), 16, 2),
            (RdfResp, Vault(2), Nsu(2), 144, 0),
            (RdfResp, Vault(5), Nsu(2), 144, 1),
            (NsuWrite, Nsu(2), Vault(2), 144, 2),
            (WriteAck, Vault(2), Nsu(2), 16, 2),
            (Inval, Vault(2), Gpu, 16, 2),
            (OffloadAck, Nsu(2), Gpu, 16, 3),
        ];
        let got: Vec<_> = out
            .iter()
            .map(|m| (m.packet, m.from, m.to, m.bytes, m.seq))
            .collect();
        assert_eq!(got, want);
        assert_eq!(gpu_link_bytes(&out), 96);
        // B's response crosses 2 -> 5: popcount(2 ^ 5) = 3 hops of 144 B
        assert_eq!(network_link_bytes(&out), 3 * 144);
        let mut base = Vec::new();
        on_gpu(&insts, Z, &mut base);
        assert_eq!(gpu_link_bytes(&base), 2 * (16 + 144) + 144 + 16);
        assert_eq!(network_link_bytes(&base), 0);
    }

    /// A hit in the GPU caches makes the GPU itself send the words over the target's GPU
    /// link (BPROP's cost, §6.4); a misaligned store pays its offsets; live-outs grow the
    /// ack; a single indirect load returns one register instead of whole lines (§3.10).
    #[test]
    fn hits_offsets_and_gathers() {
        let gather = BlockDesc {
            loads: 1,
            stores: 0,
            live_ins: 0,
            live_outs: 1,
            nsu_insts: 1,
        };
        // 32 threads hitting 8 lines on 8 stacks with 4 words each
        let ls: Vec<LineAccess> = (0..8)
            .map(|s| LineAccess {
                stack: s,
                active: 4,
                aligned: false,
                gpu_hit: s == 7,
            })
            .collect();
        let insts = [MemInst {
            store: false,
            lines: &ls,
        }];
        let mut out = Vec::new();
        let t = offloaded(&gather, 32, &insts, Z, &mut out).unwrap();
        assert_eq!(t, 0, "tie over 8 stacks: lowest id");
        let hit: Vec<_> = out
            .iter()
            .filter(|m| m.from == End::Gpu && m.packet == Packet::RdfResp)
            .collect();
        assert_eq!(hit.len(), 1);
        assert_eq!(hit[0].bytes, 32, "4 words = 1 payload FLIT");
        let rdf = out.iter().find(|m| m.packet == Packet::Rdf).unwrap();
        assert_eq!(rdf.bytes, 32, "4 offsets of 5 bits = 1 more FLIT");
        let ack = out.last().unwrap();
        assert_eq!((ack.packet, ack.bytes), (Packet::OffloadAck, 16 * 9));
        // GPU link: cmd 16 + 7 RDFs x 32 + hit response 32 + ack 144 = 416 < 8 lines x 160
        assert_eq!(gpu_link_bytes(&out), 16 + 7 * 32 + 32 + 144);
        let mut base = Vec::new();
        on_gpu(&insts, Z, &mut base);
        assert_eq!(gpu_link_bytes(&base), 7 * 160);
    }
}
