//! Shared by aesx-file's integration tests.

pub mod reader;
