//! Fuzz target `registry_toml`: see `dpgraph_fuzz_entry::run`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dpgraph_fuzz_entry::run("registry_toml", data).expect("a known target"));
