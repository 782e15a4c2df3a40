//! Benchmarks of graph-core.
fn main() {}
