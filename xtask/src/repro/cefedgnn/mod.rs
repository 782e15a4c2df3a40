//! `cargo xtask repro cefedgnn`: CE-FedGNN against its baselines and ablations on generated
//! multi-bank AML graphs (GINE / GIN, illicit-class F1) and citation graphs (GCN, macro-F1),
//! F1 over the local steps K, bytes per round, and ε(p) over σ₀. The protocol (plan, settings,
//! seeds, the tables' rows) is `cefedgnn::paper`; this file loads the citation datasets and
//! writes the tables, their notes and the plots.

use std::time::Instant;

use anyhow::Result;
use cefedgnn::aml::AccountGraph;
use cefedgnn::paper::{
    ApproximationRow, AttackRow, ClipRow, ConvergenceRow, LocalStepsRow, MethodRow, OrderingRow,
    PAPER_SOURCE, Plan, PrivacyRow, RadiusRow, Runs, Setting, approximations_table, attack_table,
    clip_table, convergence_table, identical_pairs, local_steps_table, methods_table, ordering_row,
    privacy_table, radius_table,
};
use cefedgnn::train::ModelKind;
use graph_core::NodeDataset;
use serde_json::json;

use super::runner::{Decision, Runner};
use super::{Ctx, Effort};
use crate::cli::ReproTable;
use crate::output::Table;

mod cells;
mod claims;
mod load;
mod text;

use cells::{Held, SettingRows};
use load::{check_only, load_aml_data, load_citation};
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
    runner: Runner,
    dir: std::path::PathBuf,
    skipped: Vec<String>,
    /// The settings' labels in the plan's order.
    order: Vec<String>,
    /// Each setting's cells by table (in [`STEMS`]' order), where there are any.
    held: Vec<[Option<Held>; 9]>,
}

/// One setting's rows of every selected table.
fn compute(ctx: &Ctx, plan: &Plan, s: &Setting, runs: &mut Runs) -> Result<Results> {
    let mut res = Results::default();
    if wants(ctx, ReproTable::Methods) {
        let rows = methods_table(plan, s, runs)?;
        if s.model == ModelKind::Gcn
            && let Some(o) = ordering_row(&s.task.name, &rows)
        {
            res.ordering.push(o);
        }
        res.methods.extend(rows);
    }
    if wants(ctx, ReproTable::LocalSteps) {
        res.local_steps.extend(local_steps_table(plan, s, runs)?);
    }
    if wants(ctx, ReproTable::Privacy) {
        res.privacy.extend(privacy_table(plan, s, runs)?);
    }
    if wants(ctx, ReproTable::Attack) {
        res.attack.extend(attack_table(plan, s)?);
    }
    if wants(ctx, ReproTable::Radius) {
        res.radius.extend(radius_table(plan, s)?);
    }
    if wants(ctx, ReproTable::Approximations) && ladder_applies(&s.label) {
        res.approximations
            .extend(approximations_table(plan, s, runs)?);
    }
    if wants(ctx, ReproTable::Convergence) {
        res.convergence.extend(convergence_table(plan, s)?);
    }
    if wants(ctx, ReproTable::Clip) {
        res.clip.extend(clip_table(plan, s, runs)?);
    }
    Ok(res)
}

/// The nine tables of `res` in [`STEMS`]' order, with their titles and rows only.
fn tables_of(res: &Results) -> Result<[Table; 9]> {
    Ok([
        Table::from_rows(METHODS_TITLE, &res.methods)?,
        Table::from_rows(LOCAL_STEPS_TITLE, &res.local_steps)?,
        Table::from_rows(PRIVACY_TITLE, &res.privacy)?,
        Table::from_rows(ORDERING_TITLE, &res.ordering)?,
        Table::from_rows(ATTACK_TITLE, &res.attack)?,
        Table::from_rows(RADIUS_TITLE, &res.radius)?,
        Table::from_rows(APPROXIMATIONS_TITLE, &res.approximations)?,
        Table::from_rows(CONVERGENCE_TITLE, &res.convergence)?,
        Table::from_rows(CLIP_TITLE, &res.clip)?,
    ])
}

/// Runs the selected tables on every setting of `plan` selected by `--only`, one cell per
/// setting and table through the [`Runner`] (`--resume`, `--shard`, `--budget-min`), writing
/// the tables after each setting (a stopped run keeps what it finished).
fn run_settings(
    ctx: &Ctx,
    plan: &Plan,
    citation: &[(&str, NodeDataset)],
    aml_data: &[(&str, AccountGraph)],
    p: &mut Progress<'_>,
) -> Result<()> {
    let mut sets = plan.settings(citation, ctx.seed)?;
    sets.extend(plan.aml_data_settings(aml_data, ctx.seed)?);
    check_only(ctx, &sets)?;
    p.order = sets.iter().map(|s| s.label.clone()).collect();
    let mut slugs: Vec<String> = p.order.iter().map(|l| cells::slug(l)).collect();
    slugs.sort();
    slugs.dedup();
    anyhow::ensure!(
        slugs.len() == p.order.len(),
        "two cefedgnn settings share a cache directory: {:?}",
        p.order
    );
    p.held = sets.iter().map(|_| Default::default()).collect();
    let wanted: Vec<usize> = (0..STEMS.len())
        .filter(|&i| wants(ctx, STEMS[i].0))
        .collect();
    let mut runs = Runs::new(true);
    let clock = Instant::now();
    for (pos, s) in sets.iter().enumerate() {
        let cell = |i: usize| {
            let stem = STEMS[i].1;
            (
                cells::rel(&s.label, stem),
                cells::fingerprint(ctx, &s.label, stem),
            )
        };
        if ctx.select.wants_setting(&s.label) {
            let cached: Option<Vec<SettingRows>> = wanted
                .iter()
                .map(|&i| {
                    let (rel, fp) = cell(i);
                    p.runner.cached::<SettingRows>(&rel, &fp).map(|(c, _)| c)
                })
                .collect();
            if let Some(cs) = cached {
                eprintln!(
                    "{}: cached by an earlier run of this revision (--resume)",
                    s.label
                );
                for (&i, c) in wanted.iter().zip(cs) {
                    p.held[pos][i] = Some(Held {
                        cell: c,
                        fresh: false,
                    });
                }
                continue;
            }
            match p.runner.turn::<()>(pos) {
                Decision::Run => {
                    eprintln!("[{:.0}s] {}", clock.elapsed().as_secs_f64(), s.label);
                    let before = runs.diverged().len();
                    let res = compute(ctx, plan, s, &mut runs)?;
                    let tables = tables_of(&res)?;
                    for &i in &wanted {
                        let (rel, fp) = cell(i);
                        let t = &tables[i];
                        let mut c = SettingRows {
                            fingerprint: fp,
                            revision: ctx.revision.clone(),
                            columns: t.columns.clone(),
                            rows: t.rows.clone(),
                            diverged: Vec::new(),
                            identical: Vec::new(),
                        };
                        if i == 0 {
                            c.diverged = runs.diverged()[before..].to_vec();
                            c.identical = identical_pairs(&res.methods);
                        }
                        p.runner.record(&rel, &c)?;
                        p.held[pos][i] = Some(Held {
                            cell: c,
                            fresh: true,
                        });
                    }
                    write_tables(p, false)?;
                    continue;
                }
                Decision::OverBudget => eprintln!(
                    "{}: left for a later --resume run (--budget-min is spent)",
                    s.label
                ),
                Decision::Elsewhere | Decision::Cached(..) => {}
            }
        }
        // Not computed here: whatever an earlier run left in --out.
        for &i in &wanted {
            let (rel, _) = cell(i);
            let key = cells::plan_key(ctx, &s.label, STEMS[i].1);
            if let Some(c) = p
                .runner
                .earlier::<SettingRows>(&rel)
                .filter(|c| c.fingerprint.starts_with(&key))
            {
                p.held[pos][i] = Some(Held {
                    cell: c,
                    fresh: false,
                });
            }
        }
    }
    Ok(())
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
    let mut p = Progress {
        ctx,
        plan: &plan,
        runner: Runner::new(ctx)?,
        dir,
        skipped,
        order: Vec::new(),
        held: Vec::new(),
    };
    run_settings(ctx, &plan, &citation, &aml_data, &mut p)?;
    write_tables(&p, true)?;
    // The claims from every table now in the directory (this run's and the ones it kept).
    if wants(ctx, ReproTable::Claims) {
        claims::write(ctx, &p.dir)?;
    }
    Ok(())
}

/// Writes the selected tables from the cells held (printed as Markdown at the end of the run
/// only).
fn write_tables(p: &Progress<'_>, last: bool) -> Result<()> {
    let (ctx, plan) = (p.ctx, p.plan);
    let meta = meta(ctx, plan);
    let [
        mut main,
        mut k_table,
        mut eps_table,
        mut order,
        mut attack,
        mut radius,
        mut ladder,
        mut convergence,
        mut clip,
    ] = tables_of(&Results::default())?;
    let methods_cells = || p.held.iter().filter_map(|h| h[0].as_ref());
    let same: Vec<String> = methods_cells()
        .flat_map(|h| h.cell.identical.iter().cloned())
        .collect();
    let diverged: Vec<String> = methods_cells()
        .flat_map(|h| h.cell.diverged.iter().cloned())
        .collect();
    main.meta = meta.clone();
    main.notes = p.skipped.clone();
    main.notes.extend(METHODS_NOTES.map(String::from));
    main.notes.push(format!("paper_value: {PAPER_SOURCE}; the paper's AML table (HI/LI × Small/Medium/Large of the real AMLworld files) has no counterpart among our generated graphs, so AML rows carry none."));
    main.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    main.notes.push(if same.is_empty() {
        "No two methods of a setting agree in test and validation F1 to four decimals in every seed.".into()
    } else {
        format!(
            "Methods that agree in test and validation F1 to four decimals in every seed (f1_per_seed, val_f1_per_seed): {}. Every switch that separates two methods reaches every model's training (tests/switches.rs: the training losses differ from the first local round for GCN, GIN, GINE and PNA), so an equal F1 here means the switch's effect on the final predictions is below the F1's resolution on these test nodes (AML: a binary F1 over the few illicit accounts among the test nodes), not that the switch is ignored.",
            same.join("; ")
        )
    });
    if !diverged.is_empty() {
        main.notes.push(format!(
            "Runs left out of the means because training diverged (empty cells when all seeds did): {}",
            diverged.join("; ")
        ));
    }
    k_table.meta = meta.clone();
    k_table.notes.push(LOCAL_STEPS_NOTE.into());
    k_table.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    eps_table.meta = meta.clone();
    eps_table.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    attack.meta = meta.clone();
    attack.notes.push(ATTACK_NOTE.into());
    attack.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    order.meta = meta;
    order.notes.push(format!("Paper values: {PAPER_SOURCE}."));
    order.notes.push("holds: our methods ordered by f1_mean (the paper's reading, macro-F1 averaged over clients) are strictly in the paper's claimed order (its own Table 2 has Swift-FedGNN above FedGNN-ST on CiteSeer). FedGCN is not in the paper's table.".into());
    order.notes.push("closest_reading: which of our FedAvg F1 readings (every class per client, classes present per client, pooled) lies nearest the paper's FedAvg figure.".into());
    radius.meta = attack.meta.clone();
    radius.notes.push(RADIUS_NOTE.into());
    radius.notes.push(cefedgnn::privacy::NOT_COVERED.into());
    ladder.meta = radius.meta.clone();
    ladder.notes.push(APPROXIMATIONS_NOTE.into());
    convergence.meta = ladder.meta.clone();
    convergence.notes.push(CONVERGENCE_NOTE.into());
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
    for (i, ((t, stem), mut table)) in STEMS.iter().zip(tables).enumerate() {
        if wants(ctx, *t) {
            let cells: Vec<(&str, Option<&Held>)> = p
                .order
                .iter()
                .zip(&p.held)
                .map(|(label, h)| (label.as_str(), h[i].as_ref()))
                .collect();
            cells::fill(&mut table, &cells);
            table.write(&p.dir, stem)?;
            if last {
                println!("{}", table.markdown());
            }
        }
    }
    Ok(())
}
