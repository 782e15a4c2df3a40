//! Helpers shared by the real-data integration tests: whether data is required
//! (`DPGRAPH_REQUIRE_DATA=1`, set by `.ci/run`) and the installed datasets of `$DPGRAPH_DATA`.

#![allow(dead_code, unreachable_pub)] // each test binary uses a subset

use std::path::PathBuf;

use graph_core::Registry;
use graph_core::registry::{DatasetSpec, data_dir};

/// Whether `DPGRAPH_REQUIRE_DATA=1` asks for every dataset to be installed.
pub fn require() -> bool {
    std::env::var("DPGRAPH_REQUIRE_DATA").is_ok_and(|v| v == "1")
}

/// The installed spec and the data directory, `None` when absent and not required; panics
/// (fails) when required.
pub fn installed(name: &str) -> Option<(&'static DatasetSpec, PathBuf)> {
    let spec = Registry::embedded().get(name).expect("registry entry");
    let dir = data_dir();
    if spec.is_installed(&dir) {
        Some((spec, dir))
    } else {
        assert!(
            !require(),
            "DPGRAPH_REQUIRE_DATA=1 but dataset {name} is not installed in {}",
            dir.display()
        );
        eprintln!("skipping {name}: not installed in {}", dir.display());
        None
    }
}

/// As [`installed`], with the dataset's own folder instead of the data directory.
pub fn installed_folder(name: &str) -> Option<(&'static DatasetSpec, PathBuf)> {
    installed(name).map(|(spec, dir)| (spec, spec.dir(&dir)))
}
