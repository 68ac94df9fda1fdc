//! Streaming reader for Accel-Sim NVBit SASS traces (tracer versions 1-6, plain and `.xz`).
//!
//! * [`KernelList`]: the `kernelslist.g` command list (data objects, kernel launches).
//! * [`KernelReader`]: header + sequential thread blocks of one kernel file.
//! * [`KernelTrace`]: random access to blocks by id (seek index or `.xz` reorder buffer).
//! * [`stat()`] / [`mod@stat`]: a serialisable summary of a trace folder for `locus trace stat`.
//!
//! Every malformed input is a [`TraceError`] naming file and line; no input panics.

#![warn(missing_docs)]

pub mod block;
pub mod error;
pub mod header;
pub mod index;
pub mod inst;
pub mod kernelslist;
pub mod opcode;
pub mod reader;
pub mod stat;

pub use block::{TraceBlock, TraceWarp};
pub use error::TraceError;
pub use header::{generation_name, KernelHeader};
pub use index::KernelTrace;
pub use inst::{parse_reg, OpcodeTable, RegId, TraceInst, MAX_REG_ID, NO_REG};
pub use kernelslist::{object_index, Command, KernelList, Memcpy, TraceObject};
pub use opcode::{classify, MemSpace, OpClass, OpInfo};
pub use reader::{KernelReader, Pos};
pub use stat::{stat, TraceStat};
