//! Rust-side tests of the C ABI (the C tests in examples/c run it from C).

mod abi;
mod feedback;
mod header;
mod new_modes;
mod parallel;
