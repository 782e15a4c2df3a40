//! The one flag set that selects parts of any experiment (`--only`, `--tables`, `--resume`,
//! `--budget-min`, `--shard`; the old `--parts`, `--fed-tables` and `--fed-settings` as aliases),
//! checked before anything runs.

use anyhow::{Result, bail};

use super::{Effort, edgerefine, homdp};
use crate::cli::{Experiment, OldPart, ReproArgs, ReproTable};

/// The flags that select parts of a run, one set for every experiment (see `cargo xtask repro
/// --help`).
#[derive(Debug, Default)]
pub(crate) struct Select {
    /// Datasets (homdp, edgerefine) or settings (cefedgnn, by label substring) (`--only`;
    /// empty: all), lower-cased.
    pub(crate) only: Vec<String>,
    /// Tables (`--tables`; empty: all).
    pub(crate) tables: Vec<ReproTable>,
    /// Reuse earlier outputs (`--resume`).
    pub(crate) resume: bool,
    /// Minutes after which no new cell starts (`--budget-min`).
    pub(crate) budget_min: Option<f64>,
    /// The share of every grid's cells this process runs (`--shard`).
    pub(crate) shard: Option<crate::cli::Shard>,
}

impl Select {
    /// Whether `--tables` selects `t` (none named: every table of every experiment).
    pub(crate) fn wants_table(&self, t: ReproTable) -> bool {
        self.tables.is_empty() || self.tables.contains(&t)
    }

    /// Whether `--only` selects the dataset `name` (exact, case-insensitive; none named: all).
    pub(crate) fn wants_dataset(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| name.eq_ignore_ascii_case(o))
    }

    /// Whether `--only` selects the setting labelled `label` (a name is a case-insensitive
    /// substring of it; none named: all).
    pub(crate) fn wants_setting(&self, label: &str) -> bool {
        let l = label.to_lowercase();
        self.only.is_empty() || self.only.iter().any(|o| l.contains(o.as_str()))
    }

    /// The flags as parsed, the old `--parts` translated: a node dataset's part is the node
    /// grid (`accuracy`) on that dataset, another part its table.
    pub(super) fn new(args: &ReproArgs) -> Self {
        let mut only: Vec<String> = args.only.iter().map(|n| n.trim().to_lowercase()).collect();
        let mut tables = args.tables.clone();
        for &part in &args.parts {
            let t = match part {
                OldPart::Table(t) => t,
                OldPart::Dataset(d) => {
                    only.push(d.to_owned());
                    ReproTable::Accuracy
                }
            };
            if !tables.contains(&t) {
                tables.push(t);
            }
        }
        Self {
            only,
            tables,
            resume: args.resume,
            budget_min: args.budget_min,
            shard: args.shard,
        }
    }
}

/// Refuses an `--only` name that is no dataset of the selected homdp or edgerefine experiments,
/// naming it and the known ones; with cefedgnn selected, whose settings it may name by a part of
/// their label, cefedgnn checks the names it is left with.
///
/// # Errors
/// An unknown name.
pub(super) fn check_only(select: &Select, which: &[Experiment], effort: Effort) -> Result<()> {
    if which.contains(&Experiment::Cefedgnn) {
        return Ok(());
    }
    let mut known: Vec<&str> = Vec::new();
    if which.contains(&Experiment::Homdp) {
        known.extend(homdp::dataset_names());
    }
    if which.contains(&Experiment::Edgerefine) {
        known.extend(edgerefine::dataset_names(effort));
    }
    for name in &select.only {
        if !known.iter().any(|k| k.eq_ignore_ascii_case(name)) {
            bail!(
                "--only: `{name}` is no dataset of the selected experiments (known: {})",
                known.join(", ")
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Select;
    use crate::cli::ReproTable;
    use crate::cli::{Cli, Command};

    fn select(args: &[&str]) -> Select {
        let argv = ["xtask", "repro"].iter().chain(args);
        match Cli::try_parse_from(argv).map(|cli| cli.command) {
            Ok(Command::Repro(r)) => Select::new(&r),
            other => panic!("{args:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn the_old_flags_are_aliases_of_the_one_flag_set() {
        let s = select(&["edgerefine", "--parts", "cora,rae,Dblp"]);
        assert_eq!(s.only, ["cora", "dblp"]);
        assert_eq!(s.tables, [ReproTable::Accuracy, ReproTable::Rae]);
        let s = select(&[
            "cefedgnn",
            "--fed-tables",
            "methods",
            "--fed-settings",
            "CiteSeer",
        ]);
        assert_eq!(s.tables, [ReproTable::Methods]);
        assert!(s.wants_setting("CiteSeer random") && !s.wants_setting("Cora random"));
        let s = select(&["--only", "BBBP, cora", "--tables", "main,accuracy"]);
        assert!(s.wants_dataset("bbbp") && s.wants_dataset("Cora") && !s.wants_dataset("HIV"));
        assert!(s.wants_table(ReproTable::Main) && !s.wants_table(ReproTable::Rae));
        let all = select(&[]);
        assert!(all.wants_table(ReproTable::Clip) && all.wants_dataset("HIV"));
    }
}
