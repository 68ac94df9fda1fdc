//! The NSU station of one stack (spec ndp.md §3.6, §3.8, §3.11) and the GPU's NDP buffer
//! manager that reserves its buffers with credits (§3.8).
//!
//! An NSU has `nsu_warps` warp slots (48), an offload command buffer (10), a read-data
//! buffer (256 entries of one warp-load, 128 B) and a write-address buffer (256 entries of
//! one store instruction). An arriving command spawns a warp when a slot is free, else it
//! waits in the command buffer. Every NSU cycle one warp instruction issues (loose
//! round-robin over the warps that can): `LD` takes the read-data entry of (instance,
//! sequence number) once every RDF response of it arrived, else the warp stalls; `ST` takes
//! the write-address entry of (instance, sequence number) once every WTA of it arrived (one
//! per line the store's lanes touch) and sends the write; ALU instructions run; after the last
//! instruction the warp waits for its write acks, sends the offload ack and frees its slot.
//! The pipeline is in order (spec §7.12): after an ALU instruction the warp's next
//! instruction issues `alu_latency` NSU cycles later at the earliest ([`Nsu::set_alu_latency`];
//! the NSU code carries no registers, so each instruction is read as depending on the ALU
//! result before it: the `@NSU` compute is a chain from the loaded values to the stored one,
//! §3.4 Fig. 3(b)). Other warps issue in between, so enough warps hide the latency.
//!
//! Deadlock freedom (§3.8): an RDF response must always find an entry, or it would block
//! the network ahead of the responses an older warp waits for. The GPU's [`Credits`]
//! grants an instance its command, read-data and write-address entries all at once before
//! any of its packets leaves the SM; the NSU returns a credit when an entry frees (a
//! command when its warp spawns, a read entry when `LD` consumes it, a write entry when
//! `ST` sends its write). An arrival without a reserved entry is an error
//! ([`NsuError`]), never silently absorbed.

use std::collections::VecDeque;

/// One NSU instruction of an offload block's NSU code (§3.4, Fig. 3(b)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NsuOp {
    /// Load the next read-data entry into a register.
    Ld,
    /// Store: take the next write-address entry and send the write.
    St,
    /// An `@NSU` ALU instruction.
    Alu,
}

/// Buffer kinds that carry credits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buf {
    Cmd,
    Read,
    Write,
}

/// An arrival that found its buffer full: the credit protocol was broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NsuError(pub Buf);

/// What an NSU cycle produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NsuOut {
    /// A freed entry's credit for the GPU buffer manager.
    Credit(Buf),
    /// The write of store `seq` of instance `id` to its vaults (one write ack is due back
    /// per line; [`Nsu::more_writes`] adds the lines beyond the first).
    Write(u32, u8),
    /// The offload ack of instance `id` (the warp is gone).
    Ack(u32),
    /// The command of instance `id` left the command buffer and became a warp (statistics:
    /// the time an instance waited for a warp slot).
    Spawn(u32),
}

/// The GPU's NDP buffer manager: free entries per stack and buffer (§3.8).
#[derive(Clone, Debug)]
pub struct Credits {
    cmd: Vec<u32>,
    read: Vec<u32>,
    write: Vec<u32>,
    /// Reservations refused for lack of credits (the SM retries).
    pub denied: u64,
}

impl Credits {
    /// Full credits for `stacks` NSUs with `cmd`, `read` and `write` entries each.
    pub fn new(stacks: u32, cmd: u32, read: u32, write: u32) -> Self {
        let n = stacks as usize;
        Credits {
            cmd: vec![cmd; n],
            read: vec![read; n],
            write: vec![write; n],
            denied: 0,
        }
    }

    /// Reserve 1 command, `loads` read and `stores` write entries at `stack`, all or
    /// nothing.
    pub fn reserve(&mut self, stack: u32, loads: u32, stores: u32) -> bool {
        let s = stack as usize;
        if self.cmd[s] >= 1 && self.read[s] >= loads && self.write[s] >= stores {
            self.cmd[s] -= 1;
            self.read[s] -= loads;
            self.write[s] -= stores;
            true
        } else {
            self.denied += 1;
            false
        }
    }

    /// A credit of buffer `b` returned by `stack`'s NSU.
    pub fn give_back(&mut self, stack: u32, b: Buf) {
        let s = stack as usize;
        match b {
            Buf::Cmd => self.cmd[s] += 1,
            Buf::Read => self.read[s] += 1,
            Buf::Write => self.write[s] += 1,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    id: u32,
    prog: u16,
    pc: u16,
    seq: u8,
    writes_out: u16,
    /// The NSU `OFLD.BEG` (register initialisation from the command) still to issue.
    beg: bool,
    /// First NSU cycle ([`Nsu::cycles`]) at which the warp may issue again (its last ALU
    /// result is ready).
    ready: u64,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    id: u32,
    seq: u8,
    /// RDF responses still missing (read entries).
    missing: u16,
}

/// One NSU: warp slots, command queue, read-data and write-address buffers.
#[derive(Clone, Debug)]
pub struct Nsu {
    programs: Vec<Vec<NsuOp>>,
    slots: Vec<Option<Slot>>,
    /// Bit `i`: `slots[i]` is occupied (kept for up to 64 slots, where [`Nsu::cycle`]
    /// visits only the occupied ones; host speed only).
    occupied: u64,
    /// Tests: scan every slot as if there were more than 64 (the reference the occupied
    /// mask must match).
    #[cfg(test)]
    scan_all: bool,
    cmd_cap: usize,
    cmds: VecDeque<(u32, u16)>,
    read: Vec<Entry>,
    read_cap: usize,
    write: Vec<Entry>,
    write_cap: usize,
    rr: usize,
    /// Does NSU `OFLD.BEG` take an issue slot ([`Nsu::set_issue_begin`])?
    issue_begin: bool,
    /// ALU latency, NSU cycles ([`Nsu::set_alu_latency`]).
    alu_latency: u32,
    /// NSU cycles stepped.
    pub cycles: u64,
    /// Sum over cycles of occupied warp slots (occupancy = this / cycles / slots, Fig. 11).
    pub slot_cycles: u64,
    /// Warp instructions issued.
    pub insts: u64,
    /// Most entries ever held: command, read, write buffers.
    pub peak: [usize; 3],
}

impl Nsu {
    /// An NSU with `warps` slots, buffers of `cmd`, `read`, `write` entries and the NSU code
    /// of every static block (`programs[b]`).
    pub fn new(warps: u32, cmd: u32, read: u32, write: u32, programs: Vec<Vec<NsuOp>>) -> Self {
        Nsu {
            programs,
            slots: vec![None; warps as usize],
            occupied: 0,
            #[cfg(test)]
            scan_all: false,
            cmd_cap: cmd as usize,
            cmds: VecDeque::with_capacity(cmd as usize),
            read: Vec::with_capacity(read as usize),
            read_cap: read as usize,
            write: Vec::with_capacity(write as usize),
            write_cap: write as usize,
            rr: 0,
            issue_begin: false,
            alu_latency: 1,
            cycles: 0,
            slot_cycles: 0,
            insts: 0,
            peak: [0; 3],
        }
    }

    /// Make every warp issue its NSU `OFLD.BEG` (spec §3.4 Fig. 3(b), §3.6: the first
    /// instruction at the start PC initialises the live-in registers) as one instruction
    /// before the block's code; off (the constructor's default): the spawn does it.
    pub fn set_issue_begin(&mut self, on: bool) {
        self.issue_begin = on;
    }

    /// ALU latency in NSU cycles (spec §7.12: the SM's SP latency scaled to the NSU
    /// clock; the System derives it, `ndp.nsu_alu_latency`). A warp's instruction after an
    /// ALU instruction issues this many cycles after it at the earliest; 1 (the
    /// constructor's default) is back-to-back issue, i.e. no latency.
    pub fn set_alu_latency(&mut self, cycles: u32) {
        self.alu_latency = cycles.max(1);
    }

    /// Register the NSU code of one more static block; returns its program id (the
    /// `prog` of [`Nsu::arrive_cmd`]). The System registers each distinct block code
    /// once, at its first instance.
    pub fn add_program(&mut self, p: Vec<NsuOp>) -> u16 {
        self.programs.push(p);
        (self.programs.len() - 1) as u16
    }

    /// The warp of instance `id` waits for `n` more write acks (a store whose lanes
    /// touch several lines sends one write per line, each acknowledged).
    pub fn more_writes(&mut self, id: u32, n: u16) {
        if let Some(s) = self.slots.iter_mut().flatten().find(|s| s.id == id) {
            s.writes_out += n;
        }
    }

    /// Anything to do: a warp in a slot or a command waiting for one.
    pub fn has_work(&self) -> bool {
        if self.slots.len() <= 64 {
            debug_assert_eq!(self.occupied != 0, self.slots.iter().any(|s| s.is_some()));
            return !self.cmds.is_empty() || self.occupied != 0;
        }
        !self.cmds.is_empty() || self.slots.iter().any(|s| s.is_some())
    }

    /// The earliest NSU cycle after the current one at which a warp held only by its ALU
    /// latency may issue (`None` when no warp waits on a latency): the System's NSU sleeps
    /// until then when nothing else can issue.
    pub fn next_ready(&self) -> Option<u64> {
        let all = || {
            self.slots
                .iter()
                .flatten()
                .map(|s| s.ready)
                .filter(|&r| r > self.cycles)
                .min()
        };
        #[cfg(test)]
        if self.scan_all {
            return all();
        }
        if self.slots.len() > 64 {
            return all();
        }
        // the occupied slots only (`occupied`): the same minimum without passing over the
        // empty ones (the scan of every slot was a tenth of an NDP run's event loop)
        let mut best: Option<u64> = None;
        let mut m = self.occupied;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            if let Some(s) = &self.slots[i] {
                if s.ready > self.cycles {
                    best = Some(best.map_or(s.ready, |b| b.min(s.ready)));
                }
            }
        }
        debug_assert_eq!(best, all(), "Nsu::occupied is stale");
        best
    }

    /// Entries held in the command, read-data and write-address buffers (all 0 once
    /// every instance is done: an entry left behind is one no instruction will take).
    pub fn buffered(&self) -> [usize; 3] {
        [self.cmds.len(), self.read.len(), self.write.len()]
    }

    /// Occupied warp slots.
    pub fn busy_slots(&self) -> usize {
        if self.slots.len() <= 64 {
            return self.occupied.count_ones() as usize;
        }
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// Offload command of instance `id` running static block `prog`.
    pub fn arrive_cmd(&mut self, id: u32, prog: u16) -> Result<(), NsuError> {
        if self.cmds.len() >= self.cmd_cap {
            return Err(NsuError(Buf::Cmd));
        }
        self.cmds.push_back((id, prog));
        self.peak[0] = self.peak[0].max(self.cmds.len());
        Ok(())
    }

    /// One of the `of` RDF responses of load `seq` of instance `id` (merged by mask into
    /// one entry, §3.6).
    pub fn arrive_rdf(&mut self, id: u32, seq: u8, of: u16) -> Result<(), NsuError> {
        if let Some(e) = self.read.iter_mut().find(|e| e.id == id && e.seq == seq) {
            e.missing = e.missing.saturating_sub(1);
            return Ok(());
        }
        if self.read.len() >= self.read_cap {
            return Err(NsuError(Buf::Read));
        }
        self.read.push(Entry {
            id,
            seq,
            missing: of.max(1) - 1,
        });
        self.peak[1] = self.peak[1].max(self.read.len());
        Ok(())
    }

    /// One of the `of` WTA packets of store `seq` of instance `id` (a store whose lanes
    /// touch `of` lines sends one per line, merged into one entry; `ST` waits until all
    /// arrived: the NSU writes at every GPU-given address, §3.6).
    pub fn arrive_wta(&mut self, id: u32, seq: u8, of: u16) -> Result<(), NsuError> {
        if let Some(e) = self.write.iter_mut().find(|e| e.id == id && e.seq == seq) {
            e.missing = e.missing.saturating_sub(1);
            return Ok(());
        }
        if self.write.len() >= self.write_cap {
            return Err(NsuError(Buf::Write));
        }
        self.write.push(Entry {
            id,
            seq,
            missing: of.max(1) - 1,
        });
        self.peak[2] = self.peak[2].max(self.write.len());
        Ok(())
    }

    /// A vault acknowledged one write of instance `id`.
    pub fn write_acked(&mut self, id: u32) {
        if let Some(s) = self.slots.iter_mut().flatten().find(|s| s.id == id) {
            s.writes_out = s.writes_out.saturating_sub(1);
        }
    }

    /// One NSU cycle: spawn waiting commands into free slots, then issue one instruction
    /// of the next warp that can; what it produced is appended to `out`.
    pub fn cycle(&mut self, out: &mut Vec<NsuOut>) {
        self.cycles += 1;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            if self.cmds.is_empty() {
                break;
            }
            if slot.is_none() {
                let Some((id, prog)) = self.cmds.pop_front() else {
                    break;
                };
                *slot = Some(Slot {
                    id,
                    prog,
                    pc: 0,
                    seq: 0,
                    writes_out: 0,
                    beg: self.issue_begin,
                    ready: 0,
                });
                if i < 64 {
                    self.occupied |= 1 << i;
                }
                out.push(NsuOut::Credit(Buf::Cmd));
                out.push(NsuOut::Spawn(id));
            }
        }
        self.slot_cycles += self.busy_slots() as u64;
        // round robin from `rr` (no division per slot: this loop is the NSU's host cost)
        let n = self.slots.len();
        #[cfg(not(test))]
        let mask = n <= 64;
        #[cfg(test)]
        let mask = n <= 64 && !self.scan_all;
        if mask {
            // the occupied slots from `rr` up, then those below it: the order of the
            // scan below, less the empty slots it would pass over
            let from_rr = !0u64 << self.rr;
            for mut m in [self.occupied & from_rr, self.occupied & !from_rr] {
                while m != 0 {
                    let i = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if self.try_issue(i, out) {
                        self.rr = if i + 1 == n { 0 } else { i + 1 };
                        self.insts += 1;
                        return;
                    }
                }
            }
            return;
        }
        let mut i = self.rr;
        for _ in 0..n {
            if i >= n {
                i = 0;
            }
            if self.try_issue(i, out) {
                self.rr = if i + 1 == n { 0 } else { i + 1 };
                self.insts += 1;
                return;
            }
            i += 1;
        }
    }

    fn try_issue(&mut self, i: usize, out: &mut Vec<NsuOut>) -> bool {
        let Some(mut s) = self.slots[i] else {
            return false;
        };
        if self.cycles < s.ready {
            return false;
        }
        if s.beg {
            // NSU OFLD.BEG: the live-ins from the command into registers
            s.beg = false;
            self.slots[i] = Some(s);
            return true;
        }
        let prog = &self.programs[s.prog as usize];
        match prog.get(s.pc as usize) {
            None => {
                if s.writes_out > 0 {
                    return false;
                }
                out.push(NsuOut::Ack(s.id));
                self.slots[i] = None;
                if i < 64 {
                    self.occupied &= !(1 << i);
                }
                return true;
            }
            Some(NsuOp::Alu) => s.ready = self.cycles + self.alu_latency as u64,
            Some(NsuOp::Ld) => {
                let Some(k) = self
                    .read
                    .iter()
                    .position(|e| e.id == s.id && e.seq == s.seq && e.missing == 0)
                else {
                    return false;
                };
                self.read.swap_remove(k);
                out.push(NsuOut::Credit(Buf::Read));
                s.seq += 1;
            }
            Some(NsuOp::St) => {
                let Some(k) = self
                    .write
                    .iter()
                    .position(|e| e.id == s.id && e.seq == s.seq && e.missing == 0)
                else {
                    return false;
                };
                self.write.swap_remove(k);
                out.push(NsuOut::Credit(Buf::Write));
                out.push(NsuOut::Write(s.id, s.seq));
                s.writes_out += 1;
                s.seq += 1;
            }
        }
        s.pc += 1;
        self.slots[i] = Some(s);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use NsuOp::*;

    /// Block 0: 16 loads and a store (fills the read buffer); block 1: a load and 16
    /// stores (fills the write buffer); block 2: long ALU work (fills the warp slots and
    /// the command buffer). Sequence numbers count memory instructions in order.
    fn programs() -> Vec<Vec<NsuOp>> {
        let mut a = vec![Ld; 16];
        a.extend([Alu, Alu, St]);
        let mut b = vec![Ld, Alu];
        b.extend([St; 16]);
        let mut c = vec![Ld];
        c.extend([Alu; 30]);
        c.push(St);
        vec![a, b, c]
    }

    fn mem_ops(p: &[NsuOp]) -> impl Iterator<Item = (u8, NsuOp)> + '_ {
        p.iter()
            .filter(|o| **o != Alu)
            .enumerate()
            .map(|(i, o)| (i as u8, *o))
    }

    #[derive(Clone, Copy, Debug)]
    enum Pkt {
        Cmd(u32, u16),
        Rdf(u32, u8),
        Wta(u32, u8),
    }

    /// Drive `total` instances through one NSU with a bad delivery order: the newest
    /// instance's data first, commands behind (the §3.8 scenario: later loads' data fill
    /// the read buffer while an older warp waits). With `credits` the GPU reserves before
    /// sending. Returns the instances completed, or the buffer that overflowed.
    fn drive(total: u32, credits: bool) -> Result<(u32, Nsu), NsuError> {
        drive_traced(total, credits, false, &mut Vec::new())
    }

    /// [`drive`], every cycle's output appended to `trace`; `scan_all`: the NSU scans
    /// every slot (not only the occupied ones).
    fn drive_traced(
        total: u32,
        credits: bool,
        scan_all: bool,
        trace: &mut Vec<NsuOut>,
    ) -> Result<(u32, Nsu), NsuError> {
        let progs = programs();
        let mut nsu = Nsu::new(48, 10, 256, 256, progs.clone());
        nsu.scan_all = scan_all;
        let mut cr = Credits::new(1, 10, 256, 256);
        let mut net: Vec<Pkt> = Vec::new();
        let mut acks_due: Vec<u32> = Vec::new();
        let (mut next, mut done) = (0u32, 0u32);
        let mut out = Vec::new();
        for step in 0..4_000_000u64 {
            if done == total {
                return Ok((done, nsu));
            }
            // the GPU sends every instance it can reserve for, in order
            while next < total {
                // a third of each block, in order
                let prog = (3 * next / total) as u16;
                let p = &progs[prog as usize];
                let ld = p.iter().filter(|o| **o == Ld).count() as u32;
                let st = p.iter().filter(|o| **o == St).count() as u32;
                if credits && !cr.reserve(0, ld, st) {
                    break;
                }
                net.push(Pkt::Cmd(next, prog));
                for (seq, o) in mem_ops(p) {
                    net.push(if o == Ld {
                        Pkt::Rdf(next, seq)
                    } else {
                        Pkt::Wta(next, seq)
                    });
                }
                next += 1;
                if !credits && net.len() > 4000 {
                    break;
                }
            }
            // deliver: the newest data packet, every third step the oldest command (so
            // commands queue behind full warp slots too)
            let cmd = net.iter().position(|p| matches!(p, Pkt::Cmd(..)));
            let data = net.iter().rposition(|p| !matches!(p, Pkt::Cmd(..)));
            let pick = if step % 3 == 0 {
                cmd.or(data)
            } else {
                data.or(cmd)
            };
            if let Some(i) = pick {
                match net.remove(i) {
                    Pkt::Cmd(id, prog) => nsu.arrive_cmd(id, prog)?,
                    Pkt::Rdf(id, seq) => nsu.arrive_rdf(id, seq, 1)?,
                    Pkt::Wta(id, seq) => nsu.arrive_wta(id, seq, 1)?,
                }
            }
            for id in acks_due.drain(..) {
                nsu.write_acked(id);
            }
            if step % 4 != 0 {
                continue; // the NSU runs slower than the network delivers
            }
            out.clear();
            nsu.cycle(&mut out);
            trace.extend_from_slice(&out);
            for o in &out {
                match *o {
                    NsuOut::Credit(b) => cr.give_back(0, b),
                    NsuOut::Write(id, _) => acks_due.push(id),
                    NsuOut::Ack(_) => done += 1,
                    NsuOut::Spawn(_) => {}
                }
            }
        }
        panic!("no progress: {done} of {total} done (deadlock)");
    }

    /// With credits every instance completes although every buffer runs full (command
    /// buffer, read-data and write-address buffers, all 48 warp slots).
    #[test]
    fn no_deadlock_with_every_buffer_full() {
        let (done, nsu) = drive(3000, true).expect("credits never overflow a buffer");
        assert_eq!(done, 3000);
        assert_eq!(
            nsu.peak,
            [10, 256, 256],
            "every buffer was full at some point"
        );
        assert!(nsu.slot_cycles > 0 && nsu.insts > 0);
    }

    /// The issue scan over the occupied slots only (`Nsu::occupied`) picks every cycle
    /// the warp the scan over all slots picks (the same outputs in the same order, the
    /// same counters), on the full-buffer scenario above where slots fill and empty.
    #[test]
    fn occupied_slot_scan_issues_what_the_full_scan_issues() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (da, na) = drive_traced(3000, true, false, &mut a).expect("no overflow");
        let (db, nb) = drive_traced(3000, true, true, &mut b).expect("no overflow");
        assert_eq!(da, db);
        assert!(a.len() > 10_000, "a long trace: {}", a.len());
        assert!(a == b, "the two scans diverged");
        assert_eq!(
            (na.cycles, na.insts, na.slot_cycles, na.peak),
            (nb.cycles, nb.insts, nb.slot_cycles, nb.peak)
        );
    }

    /// Without credits the same sequence overflows a buffer (the NSU could not eject the
    /// packet: a deadlock in hardware), so the test above exercises what credits prevent.
    #[test]
    fn without_credits_a_buffer_overflows() {
        assert!(drive(3000, false).is_err());
    }

    /// A warp stalls at `LD` until every RDF response of it arrived, and at the end until
    /// its writes are acknowledged; one instruction issues per cycle.
    #[test]
    fn loads_wait_for_all_responses_and_acks_for_writes() {
        let mut n = Nsu::new(4, 2, 4, 4, vec![vec![Ld, Alu, St]]);
        let mut out = Vec::new();
        n.arrive_cmd(7, 0).unwrap();
        n.arrive_rdf(7, 0, 2).unwrap();
        n.cycle(&mut out);
        assert_eq!(
            out,
            vec![NsuOut::Credit(Buf::Cmd), NsuOut::Spawn(7)],
            "spawned, LD stalls on 1 of 2"
        );
        out.clear();
        n.arrive_rdf(7, 0, 2).unwrap();
        n.cycle(&mut out); // LD
        n.cycle(&mut out); // ALU
        n.cycle(&mut out); // ST stalls: no addresses yet
        assert_eq!(out, vec![NsuOut::Credit(Buf::Read)]);
        out.clear();
        n.arrive_wta(7, 1, 1).unwrap();
        n.cycle(&mut out);
        assert_eq!(out, vec![NsuOut::Credit(Buf::Write), NsuOut::Write(7, 1)]);
        out.clear();
        n.cycle(&mut out);
        assert!(out.is_empty(), "the ack waits for the write ack");
        n.write_acked(7);
        n.cycle(&mut out);
        assert_eq!(out, vec![NsuOut::Ack(7)]);
        assert_eq!(n.busy_slots(), 0);
        assert_eq!(n.insts, 4, "LD, ALU, ST and the final ack");
    }

    /// A store whose lanes touch 3 lines sends 3 WTAs, merged into one write-address
    /// entry: `ST` waits for the last (the NSU needs every address before it writes), and
    /// no entry is left behind afterwards. (Taking the entry at the first WTA left the
    /// later two as entries no `ST` would take, which filled the buffer and, once an
    /// arrival found it full, lost a WTA and hung its warp: BFS's divergent stores.)
    #[test]
    fn a_store_waits_for_every_line_address() {
        let mut n = Nsu::new(4, 2, 4, 4, vec![vec![St]]);
        let mut out = Vec::new();
        n.arrive_cmd(3, 0).unwrap();
        n.arrive_wta(3, 0, 3).unwrap();
        n.arrive_wta(3, 0, 3).unwrap();
        n.cycle(&mut out); // spawn; ST stalls on 2 of 3
        n.cycle(&mut out);
        assert!(!out.iter().any(|o| matches!(o, NsuOut::Write(..))));
        n.arrive_wta(3, 0, 3).unwrap();
        n.cycle(&mut out);
        assert!(out.contains(&NsuOut::Write(3, 0)));
        assert!(n.write.is_empty(), "one entry for the store, taken");
        assert_eq!(n.peak[2], 1);
    }

    /// With `OFLD.BEG` issuing (Fig. 3(b)), a spawned warp's first cycle is the register
    /// initialisation: a one-ALU block whose data are all there takes 3 issue cycles
    /// (BEG, ALU, END), one more than without, and two warps interleave one instruction
    /// per cycle.
    #[test]
    fn ofld_beg_takes_an_issue_slot() {
        let run = |beg: bool| {
            let mut n = Nsu::new(4, 4, 4, 4, vec![vec![Alu]]);
            n.set_issue_begin(beg);
            n.arrive_cmd(1, 0).unwrap();
            n.arrive_cmd(2, 0).unwrap();
            let mut out = Vec::new();
            let mut cycles = 0;
            while out.iter().filter(|o| matches!(o, NsuOut::Ack(_))).count() < 2 {
                n.cycle(&mut out);
                cycles += 1;
                assert!(cycles < 100);
            }
            (cycles, n.insts)
        };
        assert_eq!(
            run(true),
            (6, 6),
            "BEG, ALU, END per warp, one issue per cycle"
        );
        assert_eq!(run(false), (4, 4), "ALU, END per warp");
    }

    /// In-order ALU latency (spec §7.12): one warp running a chain of 3 dependent ALU
    /// instructions with latency L issues them at cycles 1, 1+L, 1+2L and its end (the
    /// ack) at 1+3L; a second warp issues in the first one's gaps, so two warps finish
    /// one cycle apart rather than twice as late. L = 1 is back-to-back issue.
    #[test]
    fn alu_latency_stalls_a_dependency_chain() {
        let run = |lat: u32, warps: u32| {
            let mut n = Nsu::new(4, 4, 4, 4, vec![vec![Alu, Alu, Alu]]);
            n.set_alu_latency(lat);
            for w in 0..warps {
                n.arrive_cmd(w, 0).unwrap();
            }
            let mut out = Vec::new();
            let mut acks = Vec::new();
            while acks.len() < warps as usize {
                n.cycle(&mut out);
                for o in out.drain(..) {
                    if let NsuOut::Ack(_) = o {
                        acks.push(n.cycles);
                    }
                }
                assert!(n.cycles < 1000);
            }
            (acks, n.insts)
        };
        for lat in [1u32, 4, 9] {
            let l = lat as u64;
            assert_eq!(run(lat, 1), (vec![1 + 3 * l], 4), "one warp, latency {lat}");
        }
        assert_eq!(run(4, 2), (vec![13, 14], 8), "two warps hide half of it");
        assert_eq!(
            run(1, 2),
            (vec![7, 8], 8),
            "no latency: 8 issues back to back"
        );
    }
}
