//! `cargo xtask datasets list | install | verify`, and the first-use install of `repro`.

use std::time::Duration;

use anyhow::{Result, bail};
use graph_core::install::{Installer, Origin, Report};
use graph_core::install::{MIRROR_ENV, UPSTREAM_ENV};
use graph_core::registry::{DATA_ENV, DatasetSpec, Registry, data_dir_or_default};

use crate::cli::DatasetsCommand;

/// The data directory: `$DPGRAPH_DATA`, else `./data` (xtask is a front end: it reads the
/// environment and passes paths to the libraries).
pub(crate) fn data_dir() -> std::path::PathBuf {
    data_dir_or_default(std::env::var_os(DATA_ENV))
}

/// Where installs come from (see [`Origin::from_args`]): `from` else `$DPGRAPH_MIRROR` names a
/// mirror, `upstream` else `$DPGRAPH_UPSTREAM` an upstream stand-in; 60 s stall timeout.
pub(crate) fn origin(from: Option<String>, upstream: Option<String>, offline: bool) -> Origin {
    Origin::from_args(
        from.or_else(|| std::env::var(MIRROR_ENV).ok()),
        upstream.or_else(|| std::env::var(UPSTREAM_ENV).ok()),
        offline,
        Duration::from_secs(60),
    )
}

/// Installs `specs`, printing one summary line per dataset; returns the reports.
pub(crate) fn install_and_report(specs: &[&DatasetSpec], origin: &Origin) -> Vec<(String, Report)> {
    let dir = data_dir();
    let mut bars = graph_core::install::ProgressBars::default();
    let mut installer = Installer::new(origin);
    let mut out = Vec::new();
    for spec in specs {
        let t = std::time::Instant::now();
        let r = (spec.name.clone(), installer.install(spec, &dir, &mut bars));
        println!("{} [{:.1} s]", r.1.line(&r.0), t.elapsed().as_secs_f64());
        out.push(r);
    }
    out
}

pub(crate) fn run(command: DatasetsCommand) -> Result<()> {
    let reg = Registry::embedded();
    let dir = data_dir();
    match command {
        DatasetsCommand::List => {
            println!(
                "data directory: {} (set DPGRAPH_DATA to change)",
                dir.display()
            );
            println!(
                "{:<18} {:<22} {:<10} {:<9} {:>9}  description",
                "name", "task", "installed", "source", "MiB"
            );
            for d in reg.datasets() {
                let mib = d.size_estimate() as f64 / 1048576.0;
                println!(
                    "{:<18} {:<22} {:<10} {:<9} {:>9.1}  {}",
                    d.name,
                    d.task.as_str(),
                    if d.is_installed(&dir) { "yes" } else { "no" },
                    d.origin(),
                    mib,
                    d.description
                );
            }
            Ok(())
        }
        DatasetsCommand::Install {
            names,
            all,
            source,
            from,
        } => {
            let specs: Vec<_> = if all {
                reg.datasets().iter().collect()
            } else if names.is_empty() {
                bail!("name the datasets to install, or pass --all");
            } else {
                names.iter().map(|n| reg.get(n)).collect::<Result<_, _>>()?
            };
            let reports =
                install_and_report(&specs, &origin(from, source.upstream, source.offline));
            let failed: Vec<_> = reports
                .iter()
                .filter(|(_, r)| matches!(r, Report::Failed(_)))
                .map(|(n, _)| n.as_str())
                .collect();
            if !failed.is_empty() {
                bail!("failed to install: {}", failed.join(", "));
            }
            Ok(())
        }
        DatasetsCommand::Verify { names } => {
            let specs: Vec<_> = if !names.is_empty() {
                names.iter().map(|n| reg.get(n)).collect::<Result<_, _>>()?
            } else {
                reg.datasets()
                    .iter()
                    .filter(|d| d.is_installed(&dir))
                    .collect()
            };
            for spec in specs {
                spec.verify(&dir)?;
                println!("{}: ok", spec.name);
            }
            Ok(())
        }
    }
}
