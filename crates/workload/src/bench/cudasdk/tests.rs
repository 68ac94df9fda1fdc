//! Tests of the CUDA-samples models against host references on small inputs.
