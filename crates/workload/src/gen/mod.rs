//! Input generators: a seeded RNG, graphs (R-MAT, grids, regular graphs of chosen degree
//! variation), sparse matrices. Every generator is a pure function of its parameters and seed.

pub mod graph;
pub mod matrix;
pub mod rng;
