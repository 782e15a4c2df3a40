//! `cargo xtask repro cefedgnn`: CE-FedGNN against its baselines and ablations on generated
//! multi-bank AML graphs (GINE / GIN, illicit-class F1) and citation graphs (GCN, macro-F1),
//! F1 over the local steps K, bytes per round, and ε(p) over σ₀. The protocol (plan, settings,
//! seeds, the tables' rows) is `cefedgnn::paper`; this file loads the citation datasets and
//! writes the tables, their notes and the plots.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use cefedgnn::aml::AccountGraph;
use cefedgnn::paper::{
    ApproximationRow, AttackRow, ClipRow, ConvergenceRow, LocalStepsRow, MethodRow, OrderingRow,
    PAPER_SOURCE, Plan, PrivacyRow, RadiusRow, Runs, approximations_table, attack_table,
    clip_table, convergence_table, identical_pairs, local_steps_table, methods_table, ordering_row,
    privacy_table, radius_table,
};
use cefedgnn::train::ModelKind;
use graph_core::registry::Dataset;
use graph_core::{NodeDataset, Registry};
use serde_json::json;

use super::{Ctx, Effort};
use crate::cli::ReproTable;
use crate::datasets::data_dir;
use crate::output::Table;

mod claims;
mod merge;
mod text;

use merge::{Earlier, merged};
use text::*;

/// The rows of the three tables over all settings.
#[derive(Default)]
struct Results {
    methods: Vec<MethodRow>,
    local_steps: Vec<LocalStepsRow>,
    privacy: Vec<PrivacyRow>,
    ordering: Vec<OrderingRow>,
    attack: Vec<AttackRow>,
    radius: Vec<RadiusRow>,
    approximations: Vec<ApproximationRow>,
    convergence: Vec<ConvergenceRow>,
    clip: Vec<ClipRow>,
}

/// The citation datasets of `plan` that are installed, each loaded once; a note per plan entry
/// whose dataset is not installed.
fn load_citation<'p>(
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
fn load_aml_data<'p>(
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
fn check_only(ctx: &Ctx, sets: &[cefedgnn::paper::Setting]) -> Result<()> {
    let elsewhere: Vec<&str> = super::homdp::dataset_names()
        .into_iter()
        .chain(super::edgerefine::dataset_names(Effort::Full))
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

/// Whether `--tables` selects `t` (none given: every table).
fn wants(ctx: &Ctx, t: ReproTable) -> bool {
    ctx.select.wants_table(t)
}

/// The tables' stems with the table that selects each, in writing order.
const STEMS: [(ReproTable, &str); 9] = [
    (ReproTable::Methods, "methods"),
    (ReproTable::LocalSteps, "local_steps"),
    (ReproTable::Privacy, "privacy"),
    (ReproTable::Methods, "ordering"),
    (ReproTable::Attack, "attack"),
    (ReproTable::Radius, "radius"),
    (ReproTable::Approximations, "approximations"),
    (ReproTable::Convergence, "convergence"),
    (ReproTable::Clip, "clip"),
];

/// Whether the approximation ladder runs on a setting: the random partitions (most edges
/// cross clients, so sharing has the most to give).
fn ladder_applies(label: &str) -> bool {
    label.contains(" random")
}

/// What one run of the tables holds while it goes, for the writes after each setting.
struct Progress<'a> {
    ctx: &'a Ctx,
    plan: &'a Plan,
    dir: std::path::PathBuf,
    skipped: Vec<String>,
    /// The settings' labels in the plan's order.
    order: Vec<String>,
    /// Settings whose selected tables this run finished (or took from a resumed table).
    done: Vec<String>,
    earlier: Vec<Option<Earlier>>,
}

/// Runs the selected tables on every setting of `plan` selected by `--only`, writing the
/// tables after each setting (a stopped run keeps what it finished; `--resume` skips the
/// settings whose selected tables this revision already wrote in --out).
fn run_settings(
    ctx: &Ctx,
    plan: &Plan,
    citation: &[(&str, NodeDataset)],
    aml_data: &[(&str, AccountGraph)],
    p: &mut Progress<'_>,
) -> Result<(Results, Runs)> {
    let mut sets = plan.settings(citation, ctx.seed)?;
    sets.extend(plan.aml_data_settings(aml_data, ctx.seed)?);
    p.order = sets.iter().map(|s| s.label.clone()).collect();
    let mut runs = Runs::new(true);
    let mut res = Results::default();
    let clock = Instant::now();
    check_only(ctx, &sets)?;
    let picked = |label: &str| ctx.select.wants_setting(label);
    for s in &sets {
        if !picked(&s.label) {
            continue;
        }
        let resumed = ctx.select.resume
            && STEMS.iter().enumerate().all(|(i, (t, stem))| {
                let applies = match *stem {
                    "local_steps" | "attack" | "radius" | "convergence" => s.primary,
                    "clip" => plan.clip_settings.contains(&s.label),
                    "approximations" => ladder_applies(&s.label),
                    _ => true,
                };
                !wants(ctx, *t)
                    || !applies
                    || p.earlier[i]
                        .as_ref()
                        .is_some_and(|e| e.has(&s.label, &ctx.revision))
            });
        if resumed {
            eprintln!(
                "{}: kept from the earlier tables of this revision (--resume)",
                s.label
            );
            continue;
        }
        eprintln!("[{:.0}s] {}", clock.elapsed().as_secs_f64(), s.label);
        if wants(ctx, ReproTable::Methods) {
            let rows = methods_table(plan, s, &mut runs)?;
            if s.model == ModelKind::Gcn
                && let Some(o) = ordering_row(&s.task.name, &rows)
            {
                res.ordering.push(o);
            }
            res.methods.extend(rows);
        }
        if wants(ctx, ReproTable::LocalSteps) {
            res.local_steps
                .extend(local_steps_table(plan, s, &mut runs)?);
        }
        if wants(ctx, ReproTable::Privacy) {
            res.privacy.extend(privacy_table(plan, s, &mut runs)?);
        }
        if wants(ctx, ReproTable::Attack) {
            res.attack.extend(attack_table(plan, s)?);
        }
        if wants(ctx, ReproTable::Radius) {
            res.radius.extend(radius_table(plan, s)?);
        }
        if wants(ctx, ReproTable::Approximations) && ladder_applies(&s.label) {
            res.approximations
                .extend(approximations_table(plan, s, &mut runs)?);
        }
        if wants(ctx, ReproTable::Convergence) {
            res.convergence.extend(convergence_table(plan, s)?);
        }
        if wants(ctx, ReproTable::Clip) {
            res.clip.extend(clip_table(plan, s, &mut runs)?);
        }
        p.done.push(s.label.clone());
        write_tables(p, &res, &runs, false)?;
    }
    Ok((res, runs))
}

fn meta(ctx: &Ctx, plan: &Plan) -> serde_json::Map<String, serde_json::Value> {
    let mut m = ctx.meta();
    m.insert("seeds".into(), json!(plan.seeds));
    m.insert(
        "steps_per_client".into(),
        json!({"citation": plan.citation_steps, "aml": plan.aml_steps}),
    );
    m.insert(
        "split".into(),
        json!("citation 20/20/60, AML 60/20/20, random per task (registry AML datasets: random or by time, as their label says)"),
    );
    m
}

pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let dir = ctx.out.join("cefedgnn");
    let plan = match ctx.effort {
        Effort::Quick => Plan::quick(),
        Effort::Full => Plan::full(),
    };
    let mut skipped = Vec::new();
    let citation = load_citation(&plan, &mut skipped)?;
    let aml_data = load_aml_data(&plan, &mut skipped)?;
    let earlier = STEMS
        .iter()
        .map(|(_, stem)| Earlier::load(ctx, &dir, stem))
        .collect::<Result<Vec<_>>>()?;
    let mut p = Progress {
        ctx,
        plan: &plan,
        dir,
        skipped,
        order: Vec::new(),
        done: Vec::new(),
        earlier,
    };
    let (res, runs) = run_settings(ctx, &plan, &citation, &aml_data, &mut p)?;
    write_tables(&p, &res, &runs, true)?;
    // The claims from every table now in the directory (this run's and the ones it kept).
    if wants(ctx, ReproTable::Claims) {
        claims::write(ctx, &p.dir)?;
    }
    Ok(())
}

/// Writes the selected tables: this run's rows of the finished settings, the earlier tables'
/// rows of the others (printed as Markdown at the end of the run only).
fn write_tables(p: &Progress<'_>, res: &Results, runs: &Runs, last: bool) -> Result<()> {
    let (ctx, plan) = (p.ctx, p.plan);
    let meta = meta(ctx, plan);
    let mut main = Table::from_rows(METHODS_TITLE, &res.methods)?;
    main.meta = meta.clone();
    main.notes = p.skipped.clone();
    main.notes.extend(METHODS_NOTES.map(String::from));
    main.notes.push(format!("paper_value: {PAPER_SOURCE}; the paper's AML table (HI/LI × Small/Medium/Large of the real AMLworld files) has no counterpart among our generated graphs, so AML rows carry none."));
    main.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    let same = identical_pairs(&res.methods);
    main.notes.push(if same.is_empty() {
        "No two methods of a setting agree in test and validation F1 to four decimals in every seed.".into()
    } else {
        format!(
            "Methods that agree in test and validation F1 to four decimals in every seed (f1_per_seed, val_f1_per_seed): {}. Every switch that separates two methods reaches every model's training (tests/switches.rs: the training losses differ from the first local round for GCN, GIN, GINE and PNA), so an equal F1 here means the switch's effect on the final predictions is below the F1's resolution on these test nodes (AML: a binary F1 over the few illicit accounts among the test nodes), not that the switch is ignored.",
            same.join("; ")
        )
    });
    if !runs.diverged().is_empty() {
        main.notes.push(format!(
            "Runs left out of the means because training diverged (empty cells when all seeds did): {}",
            runs.diverged().join("; ")
        ));
    }
    let mut k_table = Table::from_rows(LOCAL_STEPS_TITLE, &res.local_steps)?;
    k_table.meta = meta.clone();
    k_table.notes.push(LOCAL_STEPS_NOTE.into());
    k_table.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    let mut eps_table = Table::from_rows(PRIVACY_TITLE, &res.privacy)?;
    eps_table.meta = meta.clone();
    eps_table.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    let mut attack = Table::from_rows(ATTACK_TITLE, &res.attack)?;
    attack.meta = meta.clone();
    attack.notes.push(ATTACK_NOTE.into());
    attack.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    let mut order = Table::from_rows(ORDERING_TITLE, &res.ordering)?;
    order.meta = meta;
    order.notes.push(format!("Paper values: {PAPER_SOURCE}."));
    order.notes.push("holds: our methods ordered by f1_mean (the paper's reading, macro-F1 averaged over clients) are strictly in the paper's claimed order (its own Table 2 has Swift-FedGNN above FedGNN-ST on CiteSeer). FedGCN is not in the paper's table.".into());
    order.notes.push("closest_reading: which of our FedAvg F1 readings (every class per client, classes present per client, pooled) lies nearest the paper's FedAvg figure.".into());
    let mut radius = Table::from_rows(RADIUS_TITLE, &res.radius)?;
    radius.meta = attack.meta.clone();
    radius.notes.push(RADIUS_NOTE.into());
    radius.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    let mut ladder = Table::from_rows(APPROXIMATIONS_TITLE, &res.approximations)?;
    ladder.meta = radius.meta.clone();
    ladder.notes.push(APPROXIMATIONS_NOTE.into());
    let mut convergence = Table::from_rows(CONVERGENCE_TITLE, &res.convergence)?;
    convergence.meta = ladder.meta.clone();
    convergence.notes.push(CONVERGENCE_NOTE.into());
    let mut clip = Table::from_rows(CLIP_TITLE, &res.clip)?;
    clip.meta = convergence.meta.clone();
    clip.notes.push(CLIP_NOTE.into());
    clip.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    let tables = [
        main,
        k_table,
        eps_table,
        order,
        attack,
        radius,
        ladder,
        convergence,
        clip,
    ];
    for (((t, stem), table), earlier) in STEMS.iter().zip(tables).zip(&p.earlier) {
        if wants(ctx, *t) {
            let table = merged(table, earlier.as_ref(), &p.order, &p.done);
            table.write(&p.dir, stem)?;
            if last {
                println!("{}", table.markdown());
            }
        }
    }
    Ok(())
}
