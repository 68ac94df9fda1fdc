//! Tango (Karki et al., "Detailed Characterization of Deep Neural Networks on GPUs and
//! FPGAs", GPGPU 2019; gitlab.com/Tango-DNNbench/Tango): DNN inference written as plain CUDA
//! layer kernels, one thread per output element. NUBA (nuba.md §6.3, Table 2) runs AlexNet,
//! SqueezeNet, ResNet and GRU as its deep-learning, high-sharing group. The layer kernels are
//! in [`layers`]; each network file is the host's sequence of launches.

use crate::registry::BenchSpec;

pub mod alexnet;
pub mod gru;
pub mod layers;
pub mod pixel;
pub mod resnet;
pub mod squeezenet;

#[cfg(test)]
mod tests;

/// The Tango networks.
pub const SPECS: &[BenchSpec] = &[alexnet::SPEC, resnet::SPEC, squeezenet::SPEC, gru::SPEC];
