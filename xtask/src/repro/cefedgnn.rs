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

const METHODS_TITLE: &str =
    "CE-FedGNN vs. baselines and ablations (test F1: illicit class for AML, macro for citation)";
const LOCAL_STEPS_TITLE: &str = "CE-FedGNN: F1 and traffic over local steps K (same total steps T)";
const PRIVACY_TITLE: &str =
    "CE-FedGNN: F1 and ε(p) over σ₀ (p = 0.1·C, δ = 1e-5; standard DP at p = 2C)";

/// Notes of the methods table after the skipped datasets.
const METHODS_NOTES: [&str; 9] = [
    "f1_mean: mean over clients of the F1 on each client's own test nodes, every class entering each client's macro-F1 (a class absent there and never predicted counts 0); f1_mean_present: the same with only the classes present in the client's test labels or predictions (scikit-learn's default reading); f1_pooled: F1 over all test nodes. Means over seeds.",
    "AML graphs are generated (AMLworld schema, 8 typologies, 8 banks, one client per bank); the real AMLworld files are not available here.",
    "amlworld-sample (the registry's HI-Small excerpt, 8 clients of grouped banks, split by time) joins 1,000 sampled normal transactions with all 3,209 transactions of the 370 laundering attempts: licit and illicit accounts come from different files (the normal ones mostly self-transfers and isolated pairs, the illicit ones in pattern chains), so their features and neighbourhoods separate them almost perfectly (F1 1.000 for centralised training). Its rows test the pipeline a bank runs (its own file by path, a time-ordered split, grouped banks), not how hard AML is.",
    "seeds: the training seeds (initialisation, sampling, dropout, noise) averaged in the row (f1_std: their standard deviation; every setting runs every seed); the split, the partition and the AML graphs come from --seed.",
    "Citation preset (FedTrainConfig::citation): GCN, shared-layer width d = 8, σ₀ = 1, p = 0.1·C, receiver-side averaging of the noisy halo rows over rounds at rate 0.1 [R: post-processing, no privacy cost; the note's algorithm uses the latest row]. d and the averaging rate were chosen by validation macro-F1 of CE-FedGNN at σ₀ = 1 on Cora N=5 (never the test split); all methods share the preset. The tables run C = 1 (Plan::clip), the configuration every committed row ran with; the preset's C is now 2 (clip.md: no F1 cost at σ₀ = 1, half the ε(p) at a fixed radius), which the tables take when they are regenerated at one revision.",
    "Sampled GCN blocks use every node's full (visible) degree in the normalisation and scale k sampled neighbours of n by n/k, so training matches the full-neighbourhood evaluation; a halo node's degree is 1 + its neighbours among the client's own nodes (remote degrees are not shared) [R].",
    "Baselines in the same trainer, sampler and byte accounting: FedGCN (1-hop; one exchange of neighbour-feature sums before training, normalised as GCN's Â X [R: the original sends raw sums], a linear first layer on them and message passing over local edges) and Swift-FedGNN (correction period I = K: each round ⌈N/2⌉ sampled clients take their first step with the halo rows, exact and unnoised; bytes count every client's halo rows each round, an upper bound of Swift's per-target aggregates [R]). FED-PUB: personalised averaging by functional-embedding similarity on a proxy graph (τ = 10), with the authors' personalised masks on every weight matrix (L1 penalty λ1 = 1e-3, entries below λ1 zeroed in evaluation) and their proximal term λ2·Σ‖θ − θ̄‖ (λ2 = 1e-3, un-squared per tensor as in their code), in our model and trainer (plain SGD, not their masked 3-layer GCN with Adam) [R]. FedSage+: NeighGen (local, then federated fGen training; the spec's lr 1e-3 and 20 epochs) then FedAvg on the mended local graphs with our model and trainer (not GraphSAGE with Adam) [R]. The authors' code attaches ⌊ñ⌋ generated neighbours, which is none wherever the count generator predicts fewer than one missing neighbour per node (every node of these graphs: FedSage+ then equals FedAvg); the rows use the stochastic rounding (E[m_v] = ñ_v, CountRounding::Stochastic), and generated_neighbours / count_mae / mean_missing report what NeighGen attached and how far its counts are from the hidden neighbours of its test nodes.",
    "AML preset (FedTrainConfig::aml): hidden 32, fanout 100, η = 0.01, dropout 0.1, class-balanced loss, per-step gradient clipping at L2 norm 5 (without it the centralised GINE diverged).",
    "The paper trains T = 2k steps; --quick trains 2048 (citation) / 256 (AML) steps per client, --full 2048 / 512. Shorter citation runs are too short for the shared halo rows to pay off (256 steps: CE-FedGNN below FedAvg even without noise; 1024 steps, seed 0: 0.711 vs 0.720).",
];

const ATTACK_TITLE: &str = "CE-FedGNN: attribute inference from the received halo rows over σ₀ (MSE per feature entry; lower = more leaked)";

const ATTACK_NOTE: &str = "The attacker is the client with the most halo nodes. It knows the final model, its own nodes' features and first hidden rows, the public clip norm C and noise σ = σ₀·C, and the first-layer rows it received (after its receiver-side averaging). It releases its own hidden rows the same way (clipped to C, its own Gaussian noise) and fits on them. regression: ridge regression of features on those rows, the penalty chosen on a held-out fifth of its own nodes, applied to the received rows; nearest: the features of the own node with the nearest row; mean: the mean own feature row (knows nothing of the target). regression_vs_mean < 1: the rows leak something the mean does not know (the weak attack: the first layer compresses the features away). label_*: the attack on what a bank cares about, the label of a remote node (illicit or not; a paper's class): the attacker's own rows (released the same way) averaged per own class, each received row given the class of the nearest mean; scored against the prior (always the attacker's most frequent own label; its balanced accuracy is 1 / classes present). edge_auc: whether two remote nodes are linked, scored by the cosine similarity of their received rows (ROC-AUC over the linked pairs among the attacker's halo nodes against the unlinked ones, at most 20,000 sampled; 0.5 is the prior). First seed; σ₀ = 0 releases exact rows (clipped at C), the attacks' best case.";

const RADIUS_TITLE: &str = "CE-FedGNN: where ε(p) means something — the released rows' norms and distances before clipping, and ε(p) at radii read off them";

const RADIUS_NOTE: &str = "One CE-FedGNN run per primary setting at the default configuration (σ₀, C, K of the methods table; first seed); the rows are the first-layer rows the most exposed client would release (its own nodes under the final model), before clipping. norm_*: quantiles of their L2 norms (norm_median is the clip norm at which half the rows clip; clipped_share: the share above the run's C). neighbour_*: distances between the rows of linked nodes; same_class_median and random_*: between rows of sampled pairs of one class and of any class (20,000 each). eps_p_default: ε(p) at the tables' radius p = 0.1·C; eps_at_*: ε(p) (RDP accountant, improved conversion, the run's δ and release count) at p = that distance, capped at 2C (two clipped rows are never further apart; clipping never moves rows apart). A radius below the neighbour distance protects less than which of two linked nodes a row is; one near the random distance hides a row among any rows.";

const APPROXIMATIONS_TITLE: &str = "CE-FedGNN: what each approximation costs, from centralised training to the default configuration (random partitions, every seed)";

const APPROXIMATIONS_NOTE: &str = "Each row adds one approximation to the row before, with the same model, sampler and T = K·rounds steps per client: centralised; the federation with every approximation off (exact halo rows of the shared layers every step, K = 1; no moving averages; no receiver-side averaging; clip 10⁶, never reached; no noise) — what is left against centralised is what each client sees (its own nodes, the shared layers' halo rows; the first layer aggregates only the neighbours it holds); staleness (K of the methods table); the embedding and gradient moving averages (γ, β); the receiver-side averaging of halo rows; clipping (C); noise (σ₀), step 6 being CE-FedGNN's default. Step 7 is the control of step 1's gap: step 1 with an exact first layer (FedGCN's neighbour-feature sums over the whole graph, exchanged once and unprotected, through a linear first layer); its cost is step 1 minus it (negative: what the first layer's missing remote inputs cost), and where its vs_centralised is near 0 that is the whole gap. cost: the F1 the step costs (previous row minus this one); vs_centralised: this row minus centralised. Seeded noise (an experiment, not a private run).";

const CONVERGENCE_TITLE: &str = "CE-FedGNN: convergence over T under the theorem's schedule — the global objective's squared gradient norm and the rounds against T (primary settings, every seed)";

const CONVERGENCE_NOTE: &str = "The paper's convergence theorem: with η, γ, β = Θ(T^-1/2) and K = Θ(T^1/4), (1/T)·Σ_t E‖∇F(W_t)‖² = O(1/√T) in O(T^3/4) rounds. Each row runs CE-FedGNN at its default configuration (noise included) with T = 2^d times the methods table's T and that schedule anchored at the table's values (Plan::convergence_config: η = η₀·(T₀/T)^1/2, γ and β likewise capped at 1, K = round(K₀·(T/T₀)^1/4), rounds = T / K). F is the training objective of one model over the whole graph (every training node, exact neighbourhoods, no dropout; the class-weighted cross-entropy of the trainer), measured at the server's model after the bootstrap and every round (cefedgnn::train::simulate_traced); grad_norm_sq_avg is the mean of ‖∇F‖² at the round starts (rounds 0 to R − 1, each standing for its K steps), the theorem's average read once a round. slope_grad_norm_sq and slope_rounds: least-squares slopes of ln grad_norm_sq_avg and ln rounds on ln T over the setting's rows; the theorem holds on this range of T where slope_grad_norm_sq ≤ −1/2 (a rate is an upper bound: a steeper fall agrees with it), and slope_rounds is 3/4 by the schedule. Seeded noise (an experiment, not a private run).";

const CLIP_TITLE: &str = "CE-FedGNN over the clip norm C of the released rows: at equal noise σ and at equal σ₀ (Cora's random split and the 2,000-account GINE graph, every seed)";

const CLIP_NOTE: &str = "CE-FedGNN at the methods table's configuration with C changed. held = sigma: σ = σ₀·C stays at the preset's value (σ₀ = σ / C), so every row has the same ε(p) for every radius p ≤ 2C (eps_at_fixed_radius, p = 0.1) and F1 compares C at equal privacy for nearby rows; what C changes is the worst case ε(2C) (two rows at the largest distance clipping allows) and how much of each row survives (clipped_share: rows above C, scaled down to norm C). held = sigma0: σ₀ stays, σ grows with C (the tables' and the CLI's parameter). The radius table gives the released rows' norm quantiles (norm_median: the C at which half the rows clip). Seeded noise (an experiment, not a private run).";

const ORDERING_TITLE: &str = "CE-FedGNN on citation graphs: does the paper's ordering of the methods hold, and which F1 reading is closest to its FedAvg figure";

const LOCAL_STEPS_NOTE: &str = "embedding_bytes_per_step = embedding bytes (up + down, all clients) per exchange / K: one exchange of the same rows follows every K local steps (the one-off bootstrap exchange of round 0 is excluded); embedding_vs_every_step divides it by the K = 1 value and must not exceed one_over_k.";

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

/// An earlier table in the output directory, when it was written with this run's effort and
/// seed: its rows by column name, its revision, and the revision of each setting's rows
/// (`meta.setting_revisions`: a table that kept rows of an earlier run says so per setting).
struct Earlier {
    rows: Vec<serde_json::Map<String, serde_json::Value>>,
    revision: String,
    setting_revisions: serde_json::Map<String, serde_json::Value>,
}

/// The meta key of the revision that computed each setting's rows.
const SETTING_REVISIONS: &str = "setting_revisions";

impl Earlier {
    fn load(ctx: &Ctx, dir: &std::path::Path, stem: &str) -> Result<Option<Self>> {
        let path = dir.join(format!("{stem}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("parsing {}: {e}", path.display()))?;
        let now = ctx.meta();
        if v["meta"].get("effort") != now.get("effort") || v["meta"].get("seed") != now.get("seed")
        {
            return Ok(None);
        }
        let rows = v["rows"]
            .as_array()
            .map(|a| a.iter().filter_map(|r| r.as_object().cloned()).collect())
            .unwrap_or_default();
        Ok(Some(Self {
            rows,
            revision: v["meta"]["git_revision"].as_str().unwrap_or("").to_owned(),
            setting_revisions: v["meta"][SETTING_REVISIONS]
                .as_object()
                .cloned()
                .unwrap_or_default(),
        }))
    }

    /// The revision that computed `setting`'s rows: the table's own where it does not say
    /// per setting (tables written before it did).
    fn revision_of(&self, setting: &str) -> &str {
        self.setting_revisions
            .get(setting)
            .and_then(|v| v.as_str())
            .unwrap_or(&self.revision)
    }

    /// Whether it has rows of `setting` computed by `revision`.
    fn has(&self, setting: &str, revision: &str) -> bool {
        self.revision_of(setting) == revision && self.rows_of(setting).next().is_some()
    }

    fn rows_of<'a>(
        &'a self,
        setting: &'a str,
    ) -> impl Iterator<Item = &'a serde_json::Map<String, serde_json::Value>> {
        self.rows
            .iter()
            .filter(move |r| r.get("setting").and_then(|v| v.as_str()) == Some(setting))
    }
}

/// `table` (this run's rows of the settings in `done`) merged with the earlier table's rows of
/// the other settings of `order`, in the plan's order, laid out on `table`'s columns by name
/// (a column the earlier table lacks is empty); the note says which settings' rows were kept
/// and from which revision, and `meta.setting_revisions` which revision computed each
/// setting's rows.
fn merged(mut table: Table, earlier: Option<&Earlier>, order: &[String], done: &[String]) -> Table {
    let now = table
        .meta
        .get("git_revision")
        .cloned()
        .unwrap_or(serde_json::Value::Null);
    let mut revisions = serde_json::Map::new();
    for label in done {
        revisions.insert(label.clone(), now.clone());
    }
    let Some(e) = earlier else {
        table
            .meta
            .insert(SETTING_REVISIONS.into(), revisions.into());
        return table;
    };
    let at = table.columns.iter().position(|c| c == "setting");
    let new = std::mem::take(&mut table.rows);
    let mut kept = Vec::new();
    for label in order {
        if done.contains(label) {
            table.rows.extend(
                new.iter()
                    .filter(|r| at.and_then(|i| r.get(i)).and_then(|v| v.as_str()) == Some(label))
                    .cloned(),
            );
        } else {
            let before = table.rows.len();
            for r in e.rows_of(label) {
                let row = table
                    .columns
                    .iter()
                    .map(|c| r.get(c).cloned().unwrap_or(serde_json::Value::Null))
                    .collect();
                table.rows.push(row);
            }
            if table.rows.len() > before {
                revisions.insert(label.clone(), e.revision_of(label).into());
                kept.push(format!("{label} ({})", e.revision_of(label)));
            }
        }
    }
    if !kept.is_empty() {
        table.notes.push(format!(
            "Rows of {} (computed by the revisions in brackets) are kept from the earlier table in the output directory (columns it lacked are empty); this run wrote the others.",
            kept.join(", ")
        ));
    }
    table
        .meta
        .insert(SETTING_REVISIONS.into(), revisions.into());
    table
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
        super::fed_claims::write(ctx, &p.dir)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// After a setting finishes, the table holds this run's rows of the finished settings and
    /// the earlier table's rows of the others, in the plan's order, and says which were kept.
    #[test]
    fn finished_settings_replace_their_rows_and_the_rest_are_kept() {
        let mut t = Table::new("t", &["setting", "x", "z"]);
        t.push(vec![json!("b"), json!(2.0), json!(0.5)]);
        // As read back from JSON: keys in another order, an earlier table without column z.
        let row = |s: &str, x: f64| json!({"x": x, "setting": s}).as_object().unwrap().clone();
        t.meta.insert("git_revision".into(), json!("r1"));
        // Setting c's rows were kept by the run of r0 from a run of r-1.
        let earlier = Earlier {
            rows: vec![row("a", 10.0), row("b", 20.0), row("c", 30.0)],
            revision: "r0".into(),
            setting_revisions: json!({"a": "r0", "b": "r0", "c": "r-1"})
                .as_object()
                .unwrap()
                .clone(),
        };
        let order = ["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let m = merged(t, Some(&earlier), &order, &["b".to_owned()]);
        assert_eq!(
            m.meta[SETTING_REVISIONS],
            json!({"a": "r0", "b": "r1", "c": "r-1"}),
            "each setting's rows keep the revision that computed them"
        );
        let xs: Vec<f64> = m.rows.iter().map(|r| r[1].as_f64().unwrap()).collect();
        assert_eq!(xs, [10.0, 2.0, 30.0]);
        assert_eq!(m.rows[0][0], json!("a"));
        assert_eq!(
            m.rows[0][2],
            serde_json::Value::Null,
            "a column it lacked is empty"
        );
        assert_eq!(m.rows[1][2], json!(0.5));
        assert!(m.notes[0].contains("a (r0), c (r-1)"), "{:?}", m.notes);
        assert!(earlier.has("a", "r0") && !earlier.has("a", "r1") && !earlier.has("d", "r0"));
        // A run of r0 that kept c from r-1 has not computed c: --resume at r0 runs it.
        assert!(!earlier.has("c", "r0") && earlier.has("c", "r-1"));
        // Nothing earlier: this run's rows only.
        let t = Table::new("t", &["setting", "x", "z"]);
        assert!(merged(t, None, &order, &[]).rows.is_empty());
    }
}
