//! What `repro cefedgnn` loads: the installed citation and AML datasets of the plan, and the
//! check of `--only` against the settings.

use anyhow::{Context, Result, bail};
use cefedgnn::aml::AccountGraph;
use cefedgnn::paper::Plan;
use graph_core::registry::Dataset;
use graph_core::{NodeDataset, Registry};

use crate::datasets::data_dir;
use crate::repro::{Ctx, Effort};

/// The citation datasets of `plan` that are installed, each loaded once; a note per plan entry
/// whose dataset is not installed.
pub(super) fn load_citation<'p>(
    plan: &'p Plan,
    notes: &mut Vec<String>,
) -> Result<Vec<(&'p str, NodeDataset)>> {
    let data = data_dir();
    let mut out: Vec<(&str, NodeDataset)> = Vec::new();
    for c in &plan.citation {
        let name = c.dataset.as_str();
        let spec = Registry::embedded().get(name)?;
        if !spec.is_installed(&data) {
            notes.push(format!("{name} is not installed: skipped"));
        } else if !out.iter().any(|(n, _)| *n == name)
            && let Dataset::Nodes(ds) = spec.load(&data)?
        {
            out.push((name, ds));
        }
    }
    Ok(out)
}

/// The AML datasets of `plan.aml_data` that are installed, each loaded once as an account
/// graph; a note per entry whose dataset is not installed.
pub(super) fn load_aml_data<'p>(
    plan: &'p Plan,
    notes: &mut Vec<String>,
) -> Result<Vec<(&'p str, AccountGraph)>> {
    let data = data_dir();
    let mut out: Vec<(&str, AccountGraph)> = Vec::new();
    for a in &plan.aml_data {
        let name = a.dataset.as_str();
        if out.iter().any(|(n, _)| *n == name) {
            continue;
        }
        if !Registry::embedded().get(name)?.is_installed(&data) {
            notes.push(format!("{name} is not installed: skipped"));
            continue;
        }
        let ag = cefedgnn::aml::load_by_name(name, &data)
            .and_then(|tg| tg.to_account_graph())
            .with_context(|| format!("loading {name}"))?;
        out.push((name, ag));
    }
    Ok(out)
}

/// Refuses an `--only` name that is in no setting's label and is no dataset of homdp or
/// edgerefine, naming it and the settings.
///
/// # Errors
/// An unknown name.
pub(super) fn check_only(ctx: &Ctx, sets: &[cefedgnn::paper::Setting]) -> Result<()> {
    let elsewhere: Vec<&str> = crate::repro::homdp::dataset_names()
        .into_iter()
        .chain(crate::repro::edgerefine::dataset_names(Effort::Full))
        .collect();
    for name in &ctx.select.only {
        let fed = sets
            .iter()
            .any(|s| s.label.to_lowercase().contains(name.as_str()));
        if !fed && !elsewhere.iter().any(|k| k.eq_ignore_ascii_case(name)) {
            let labels: Vec<&str> = sets.iter().map(|s| s.label.as_str()).collect();
            bail!(
                "--only: `{name}` is in no cefedgnn setting's label and no dataset of the other experiments (settings: {})",
                labels.join(", ")
            );
        }
    }
    Ok(())
}
