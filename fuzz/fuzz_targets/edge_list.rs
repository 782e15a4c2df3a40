//! Fuzz target `edge_list`: see `dpgraph_fuzz_entry::run`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dpgraph_fuzz_entry::run("edge_list", data).expect("a known target"));
