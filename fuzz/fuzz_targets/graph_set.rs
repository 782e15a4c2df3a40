//! Fuzz target `graph_set`: see `dpgraph_fuzz_entry::run`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dpgraph_fuzz_entry::run("graph_set", data).expect("a known target"));
