//! The homdp experiment (`cargo xtask repro homdp`): the paper's main table (private and
//! non-private downstream scores with re-identification rates), Q1 (SBM: cycle vs tree
//! densities over ρ), Q2 (HIV: pattern treewidth 1/2/3) and the privacy–utility curve over ρ,
//! each under both sensitivity bounds (the corrected component-aware bound and the paper's
//! Theorem 4.5 formula); the molecule classification sets (and Q2) also with noisy test rows
//! beside the paper's clean ones. `--only` selects datasets, `--tables` tables. The protocol
//! and the tables' rows come from `homdp::paper`; this file loads the datasets, selects what
//! runs and writes the tables, their notes and plots.

use std::path::Path;

use ::homdp::Split;
use ::homdp::downstream::Labels;
use ::homdp::paper::{self, DELTA, DatasetSetting, GinSizes, Prepared, Score, q1_sbm, settings};
use anyhow::{Context, Result, bail};
use graph_core::registry::Dataset;
use graph_core::{GraphDataset, Registry};
use serde_json::{Value, json};

use super::{Ctx, Effort};
use crate::cli::ReproTable;
use crate::datasets::data_dir;
use crate::output::write;

mod claims;
mod main_table;
mod side;
#[cfg(test)]
mod tests;

use claims::claims;
use main_table::main_table;
use side::{curve, q1, q2, sensitivity, theory};

/// RR / DPRR cells of the datasets without GNN baselines in the paper.
const NOT_RUN: &str = Score::NOT_REPORTED;
type Setting = DatasetSetting;

/// The run's sizes: the tables' ([`paper::Sizes`]) and the GIN baselines'.
struct Sizes {
    paper: paper::Sizes,
    gin: GinSizes,
    theory: paper::TheorySizes,
}

fn sizes(effort: Effort) -> Sizes {
    match effort {
        Effort::Quick => Sizes {
            paper: paper::Sizes::quick(),
            gin: GinSizes::quick(),
            theory: paper::TheorySizes::quick(),
        },
        Effort::Full => Sizes {
            paper: paper::Sizes::full(),
            gin: GinSizes::full(),
            theory: paper::TheorySizes::full(),
        },
    }
}

/// Loads a registry dataset; `None` when it is not installed.
fn load(name: &str) -> Result<Option<GraphDataset>> {
    let spec = Registry::embedded().get(name)?;
    if !spec.is_installed(&data_dir()) {
        return Ok(None);
    }
    let Dataset::Graphs(ds) = spec.load(&data_dir())? else {
        bail!("{name} is not a graph collection");
    };
    Ok(Some(ds))
}

/// Loads (or generates) a dataset, subsampled to at most `(max_train, max_test)` graphs;
/// `None` when it is not installed.
fn prepare(
    name: &str,
    sz: &paper::Sizes,
    (max_train, max_test): (usize, usize),
    seed: u64,
) -> Result<Option<Prepared>> {
    let (graphs, labels, split) = if name == "SBM" {
        let (g, l) = q1_sbm(sz.sbm_per_class, seed)?;
        let s = Split::holdout(g.len(), 0.2, seed)?;
        (g, l, s)
    } else {
        let Some(ds) = load(name)? else {
            return Ok(None);
        };
        let s = Split::of_dataset(&ds, seed)?;
        (ds.graphs().to_vec(), Labels::from_targets(ds.targets()), s)
    };
    Ok(Some(Prepared::subsample(
        graphs, labels, split, max_train, max_test, seed,
    )))
}

/// The position of dataset `name` in the settings.
fn position(settings: &[Setting], name: &str) -> usize {
    settings
        .iter()
        .position(|s| s.name == name)
        .expect("a setting of the paper")
}

/// Which datasets run: `--only BBBP,BACE` (dataset names, case-insensitive; empty: all; the
/// names of other experiments' datasets select none of homdp's). A dataset keeps its seed stream
/// (`paper::SeedStream`) whether or not others run; Q1 runs only with SBM, Q2 only with HIV; the
/// main table and the curve rerun the selected datasets and keep the other datasets' rows from
/// the earlier table in the output directory ([`Kept`]).
struct Only(Option<Vec<String>>);

impl Only {
    /// The selection of `--only` among the datasets `known` (`repro` has refused a name that is
    /// no selected experiment's).
    fn new(names: &[String], known: &[&str]) -> Self {
        if names.is_empty() {
            return Self(None);
        }
        Self(Some(
            names
                .iter()
                .map(|n| n.trim().to_ascii_lowercase())
                .filter(|n| known.iter().any(|k| k.eq_ignore_ascii_case(n)))
                .collect(),
        ))
    }

    fn wants(&self, name: &str) -> bool {
        self.0
            .as_ref()
            .is_none_or(|o| o.iter().any(|x| *x == name.to_ascii_lowercase()))
    }
}

/// The datasets `--only` may name for homdp.
pub(crate) fn dataset_names() -> Vec<&'static str> {
    settings().iter().map(|s| s.name).collect()
}

fn base_meta(ctx: &Ctx, sz: &Sizes) -> serde_json::Map<String, Value> {
    let mut m = ctx.meta();
    m.insert("delta".into(), json!(DELTA));
    m.insert("beta".into(), json!("rho/5"));
    m.insert("repetitions".into(), json!(sz.paper.reps));
    m.insert("protocol".into(), json!("noise on training rows, clean test rows; attack: all graphs' noisy vectors against the clean index"));
    m
}

/// The `protocol` meta of the tables with clean and noisy test rows.
const BOTH_TEST_ROWS: &str = "noise on training rows; test rows clean (test_rows = clean, the paper's protocol) or noisy (test_rows = noisy); attack: all graphs' noisy vectors against the clean index";

pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let dir = ctx.out.join("homdp");
    let sz = sizes(ctx.effort);
    let settings = settings();
    let names: Vec<&str> = settings.iter().map(|s| s.name).collect();
    let only = Only::new(&ctx.select.only, &names);
    let tables = Tables::new(&ctx.select);

    // 1. The paper's table (and every selected dataset, prepared for the other tables).
    let prepared = main_table(ctx, &dir, &sz, &only, &tables, &settings)?;
    // 2. Q1: SBM, cycles vs trees over rho.
    let sbm = position(&settings, "SBM");
    if let Some(p) = prepared[sbm].as_ref().filter(|_| tables.q1) {
        q1(ctx, &dir, &sz, &settings[sbm], p)?;
    }
    // 3. Q2: HIV, treewidth 1/2/3 at rho = 0.01.
    let hiv = position(&settings, "HIV");
    if tables.q2 && only.wants("HIV") {
        q2(ctx, &dir, &sz, &settings[hiv], prepared[hiv].is_some())?;
    }
    // 4. Privacy–utility curve.
    if tables.curve {
        curve(ctx, &dir, &sz, &only, &settings, &prepared)?;
    }
    // 5. Appendix D.3: the global sensitivity against the bounded-degree bounds.
    if tables.sensitivity {
        sensitivity(ctx, &dir, &sz, &only, &settings, &prepared)?;
    }

    // 6. The theory as experiments.
    if tables.theory {
        theory(ctx, &dir, &sz)?;
    }

    // 7. The paper's claims beside the controls that could overturn them (from the tables
    // on disk: this run's, or the earlier ones a partial run kept).
    claims(ctx, &dir)?;

    // The directory's README: every table present, in order.
    let mut md = String::from("# homdp: private homomorphism-density embeddings\n\n");
    for stem in [
        "main",
        "q1_sbm",
        "q2_treewidth",
        "curve",
        "d3_sensitivity",
        "theory_expressivity",
        "theory_noise_scale",
        "claims",
    ] {
        if let Ok(text) = std::fs::read_to_string(dir.join(format!("{stem}.md"))) {
            md += &text;
        }
    }
    write(&dir, "README.md", md.as_bytes())?;
    println!("{md}");
    Ok(())
}

/// Rows of an earlier table in the output directory for the datasets that `--only` leaves
/// out, so that a partial rerun keeps them (with the notes that name them).
#[derive(Default)]
struct Kept {
    /// `(dataset, row)` laid out on the new table's columns.
    rows: Vec<(String, Vec<Value>)>,
    /// Per-dataset notes of the earlier table (`"<kept dataset>: per repetition …"` and
    /// `"<kept dataset>: GIN on …"`).
    notes: Vec<String>,
    /// What the table note says about the kept rows.
    origin: Option<String>,
}

impl Kept {
    /// Loads `<table>.json` (`table`: a table's path without extension) when it exists and was
    /// written with this run's effort and seed; columns it lacks are filled by `fill` (or null).
    fn load(
        ctx: &Ctx,
        table: &Path,
        columns: &[String],
        only: &Only,
        settings: &[Setting],
        fill: &dyn Fn(&str) -> Option<Value>,
    ) -> Result<Self> {
        let stem = table
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("table");
        let path = table.with_extension("json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(Self {
                origin: Some(format!(
                    " No earlier {stem}.json in the output directory: the other datasets have no rows."
                )),
                ..Self::default()
            });
        };
        let old: Value =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        let meta = &old["meta"];
        let (effort, seed) = (meta["effort"].clone(), meta["seed"].clone());
        let now = ctx.meta();
        if Some(&effort) != now.get("effort") || Some(&seed) != now.get("seed") {
            return Ok(Self {
                origin: Some(format!(
                    " The earlier {stem}.json (effort {effort}, seed {seed}) does not match this run: its rows were not kept."
                )),
                ..Self::default()
            });
        }
        let left_out: Vec<&str> = settings
            .iter()
            .map(|s| s.name)
            .filter(|n| !only.wants(n))
            .collect();
        let mut rows = Vec::new();
        for r in old["rows"].as_array().into_iter().flatten() {
            let Some(name) = r["dataset"].as_str() else {
                continue;
            };
            if !left_out.contains(&name) {
                continue;
            }
            let row = columns
                .iter()
                .map(|c| match r.get(c) {
                    Some(v) => v.clone(),
                    None => fill(c).unwrap_or(Value::Null),
                })
                .collect();
            rows.push((name.to_owned(), row));
        }
        let notes = old["notes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|n| {
                left_out.iter().any(|d| {
                    n.starts_with(&format!("{d}: per repetition"))
                        || n.starts_with(&format!("{d}: GIN on"))
                })
            })
            .map(str::to_owned)
            .collect();
        let mut names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
        names.dedup();
        Ok(Self {
            origin: Some(format!(
                " The rows of {} are kept from the earlier run in this directory (git revision {}, same effort and seed).",
                if names.is_empty() {
                    "no other dataset".to_owned()
                } else {
                    names.join(", ")
                },
                meta["git_revision"].as_str().unwrap_or("unknown")
            )),
            rows,
            notes,
        })
    }

    fn rows_of(&self, name: &str) -> Vec<Vec<Value>> {
        self.rows
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, r)| r.clone())
            .collect()
    }

    fn note(&self) -> String {
        self.origin.clone().unwrap_or_default()
    }
}

/// Which tables run: `--tables main,q2` (empty: all). A table that does not run is not
/// rewritten; the directory's `README.md` is rebuilt from the Markdown of every table present.
struct Tables {
    main: bool,
    q1: bool,
    q2: bool,
    curve: bool,
    sensitivity: bool,
    theory: bool,
}

impl Tables {
    fn new(select: &super::Select) -> Self {
        Self {
            main: select.wants_table(ReproTable::Main),
            q1: select.wants_table(ReproTable::Q1),
            q2: select.wants_table(ReproTable::Q2),
            curve: select.wants_table(ReproTable::Curve),
            sensitivity: select.wants_table(ReproTable::Sensitivity),
            theory: select.wants_table(ReproTable::Theory),
        }
    }
}
