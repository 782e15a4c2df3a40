//! Fuzz target `ogb_raw`: see `dpgraph_fuzz_entry::run`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dpgraph_fuzz_entry::run("ogb_raw", data).expect("a known target"));
