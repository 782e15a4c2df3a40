//! `cargo xtask datasets list | install | verify`.

use anyhow::{Context, Result, bail};
use graph_core::registry::{InstallOutcome, Registry, data_dir, install};

use crate::fetch::source;

pub(crate) fn run(args: &[String]) -> Result<()> {
    let reg = Registry::embedded();
    let dir = data_dir();
    match args.first().map(String::as_str) {
        Some("list") | None => {
            println!(
                "data directory: {} (set DPGRAPH_DATA to change)",
                dir.display()
            );
            println!(
                "{:<18} {:<22} {:<10} {:>9}  description",
                "name", "task", "installed", "MiB"
            );
            for d in reg.datasets() {
                let mib = d.files.iter().map(|f| f.bytes).sum::<u64>() as f64 / 1048576.0;
                println!(
                    "{:<18} {:<22} {:<10} {:>9.1}  {}",
                    d.name,
                    d.task.as_str(),
                    if d.is_installed(&dir) { "yes" } else { "no" },
                    mib,
                    d.description
                );
            }
            Ok(())
        }
        Some("install") => {
            let mut from = std::env::var("DPGRAPH_MIRROR").ok();
            let mut names = Vec::new();
            let mut all = false;
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--from" => {
                        from = Some(
                            it.next()
                                .context("--from needs a directory or URL")?
                                .clone(),
                        )
                    }
                    "--all" => all = true,
                    s if s.starts_with("--") => bail!("unknown option {s}"),
                    s => names.push(s.to_owned()),
                }
            }
            let Some(from) = from else {
                bail!(
                    "no source: pass --from DIR_OR_URL (a mirror with <name>/<file> layout) or set DPGRAPH_MIRROR"
                );
            };
            let specs: Vec<_> = if all {
                reg.datasets().iter().collect()
            } else if names.is_empty() {
                bail!("name the datasets to install, or pass --all");
            } else {
                names.iter().map(|n| reg.get(n)).collect::<Result<_, _>>()?
            };
            let src = source(&from);
            for spec in specs {
                let outcome = install(spec, src.as_ref(), &dir)
                    .with_context(|| format!("installing {}", spec.name))?;
                match outcome {
                    InstallOutcome::Installed => println!(
                        "installed {} ({} files, checksums verified) into {}",
                        spec.name,
                        spec.files.len(),
                        spec.dir(&dir).display()
                    ),
                    InstallOutcome::AlreadyInstalled => {
                        println!("{} already installed and verified", spec.name)
                    }
                }
            }
            Ok(())
        }
        Some("verify") => {
            let specs: Vec<_> = if args.len() > 1 {
                args[1..]
                    .iter()
                    .map(|n| reg.get(n))
                    .collect::<Result<_, _>>()?
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
        Some(other) => bail!("unknown datasets command `{other}` (list, install, verify)"),
    }
}
