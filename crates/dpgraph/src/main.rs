//! The dpgraph command-line tool.
fn main() {}
