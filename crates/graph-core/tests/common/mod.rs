//! Helpers shared by the real-data integration tests: whether data is required
//! (`DPGRAPH_REQUIRE_DATA=1`, set by `.ci/run`) and the installed datasets of `$DPGRAPH_DATA`.
//! A dataset with an embedded copy (Cora, MUTAG) is never skipped: when `$DPGRAPH_DATA` lacks
//! it, the test installs the embedded copy into a folder of the build's own (the install takes
//! an exclusive lock, so parallel tests and processes share one copy).

#![allow(dead_code, unreachable_pub)] // each test binary uses a subset

use std::path::{Path, PathBuf};

use graph_core::Registry;
use graph_core::install::UpstreamInstaller;
use graph_core::registry::{DATA_ENV, DatasetSpec, data_dir_or_default};

/// Whether `DPGRAPH_REQUIRE_DATA=1` asks for every dataset to be installed.
pub fn require() -> bool {
    std::env::var("DPGRAPH_REQUIRE_DATA").is_ok_and(|v| v == "1")
}

/// The data directory the tests read: `$DPGRAPH_DATA`, else `./data`.
pub fn data_dir() -> PathBuf {
    data_dir_or_default(std::env::var_os(DATA_ENV))
}

/// Where the tests install embedded copies that `$DPGRAPH_DATA` lacks.
pub fn embedded_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("embedded-data")
}

/// The installed spec and the data directory, `None` when absent and not required; panics
/// (fails) when required (a dataset [checked by its counts](DatasetSpec::checked_by_counts)
/// never is: no mirror pins its bytes). An embedded dataset is installed from its embedded copy instead.
pub fn installed(name: &str) -> Option<(&'static DatasetSpec, PathBuf)> {
    let spec = Registry::embedded().get(name).expect("registry entry");
    let dir = data_dir();
    if spec.is_installed(&dir) {
        return Some((spec, dir));
    }
    if spec.embedded {
        let dir = embedded_dir();
        UpstreamInstaller::new()
            .install_embedded_only(spec, &dir)
            .unwrap_or_else(|e| panic!("installing the embedded copy of {name}: {e}"));
        return Some((spec, dir));
    }
    // A dataset checked by its counts cannot be in a mirror of pinned bytes: required only
    // where data is required *and* it is installed.
    assert!(
        !require() || spec.checked_by_counts(),
        "DPGRAPH_REQUIRE_DATA=1 but dataset {name} is not installed in {}",
        dir.display()
    );
    eprintln!("skipping {name}: not installed in {}", dir.display());
    None
}

/// As [`installed`], with the dataset's own folder instead of the data directory.
pub fn installed_folder(name: &str) -> Option<(&'static DatasetSpec, PathBuf)> {
    installed(name).map(|(spec, dir)| (spec, spec.dir(&dir)))
}

/// Installs `spec` through the real upstream installer from the folder `upstream`, standing in
/// for the publisher (`<upstream>/<last segment of each URL>`), without the embedded copies.
pub fn install_from(spec: &DatasetSpec, upstream: &Path, data: &Path) -> graph_core::Result<()> {
    UpstreamInstaller::new()
        .with_embedded(false)
        .with_base(Some(upstream.display().to_string()))
        .install(spec, data, &mut graph_core::install::Quiet)
        .map(|_| ())
}

/// Asserts that a failed install left nothing in `data` but the install lock.
pub fn assert_nothing_left(data: &Path, what: &str) {
    let left: Vec<_> = std::fs::read_dir(data)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".install.lock")
        .collect();
    assert!(left.is_empty(), "{what}: left {left:?}");
}
