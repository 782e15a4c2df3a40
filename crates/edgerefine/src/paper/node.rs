//! The node-classification grid of one dataset (feature `train`): every method of the [`Plan`]
//! released at every ε and seed, the plan's models trained on each release, accumulated into
//! the accuracy, releases and PUBI rows.
//!
//! The grid runs in chunks — the ε-free rows or one ε, for one seed — so that a long run can be
//! cached chunk by chunk and resumed: [`NodeGrid::run_chunk`] computes one [`Chunk`] (plain
//! data, `Serialize` + `Deserialize`, with a [`NodeGrid::fingerprint`] of everything that
//! decides its numbers), [`NodeAcc::add`] accumulates chunks, [`NodeGrid::rows`] turns the
//! accumulation into typed rows. Every release is drawn once per (method, ε, seed) and shared
//! by the models.
//!
//! # Example
//! ```no_run
//! use edgerefine::paper::{Plan, node::{NodeAcc, NodeGrid}};
//! use graph_core::{Dataset, Registry};
//! let plan = Plan::quick();
//! // The dataset of plan.datasets[0] (Cora), installed under ./data.
//! let data = std::path::Path::new("data");
//! let Dataset::Nodes(ds) = Registry::embedded().get("cora")?.load(data)? else {
//!     panic!("cora is a node dataset");
//! };
//! let grid = NodeGrid::new(&plan, &plan.datasets[0]);
//! let mut acc = NodeAcc::new(&grid);
//! for slot in grid.slots() {
//!     for &seed in &plan.seeds {
//!         acc.add(slot, &grid.run_chunk(&ds, slot, seed)?);
//!     }
//! }
//! let rows = grid.rows(&acc)?;
//! println!("{} accuracy rows", rows.accuracy.len());
//! # Ok::<(), edgerefine::EdgeRefineError>(())
//! ```

use dp_core::params::Epsilon;
use std::collections::BTreeMap;
use std::time::Instant;

use graph_core::NodeDataset;
use serde::{Deserialize, Serialize};

use super::{
    Curve, DENSE_EDGES, DatasetPlan, MethodScores, Plan, VERY_DENSE_EDGES, eps_or_dash, mean_std,
};
use crate::error::{EdgeRefineError, Result};
use crate::eval::{
    Method, NodeModel, RunScore, Structure, TrainPlan, majority_rate, release, release_many,
    structure, train_on_release,
};
use crate::metrics::stability;

/// The methods every dataset runs once, without ε: the true graph and no graph.
pub const FIXED: [Method; 2] = [Method::Origin, Method::NoGraph];

/// Which part of a dataset's grid a chunk covers: `None` for the ε-free rows ([`FIXED`]), or
/// the index of its ε in [`NodeGrid::eps`].
pub type Slot = Option<usize>;

/// Per-release statistics summed over releases (divide by `n` for the mean; see
/// [`ReleaseAcc::mean`]). Its JSON form is part of the chunk cache format: NaN is written as
/// `null` and read back as NaN.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReleaseAcc {
    /// Releases summed.
    pub n: usize,
    /// Released edges.
    pub edges: f64,
    /// Edge density.
    #[serde(with = "nan_as_null")]
    pub density: f64,
    /// Share of released edges that are true edges (NaN for an empty release).
    #[serde(with = "nan_as_null")]
    pub precision: f64,
    /// Share of true edges that are released.
    #[serde(with = "nan_as_null")]
    pub recall: f64,
    /// Client + server seconds.
    pub publish_s: f64,
}

impl ReleaseAcc {
    /// One release of structure `s` that took `publish_s` seconds.
    pub(crate) fn one(s: &Structure, publish_s: f64) -> Self {
        Self {
            n: 1,
            edges: s.edges as f64,
            density: s.density,
            precision: s.precision,
            recall: s.recall,
            publish_s,
        }
    }

    /// Adds the releases of `o`.
    pub(crate) fn merge(&mut self, o: &Self) {
        self.n += o.n;
        self.edges += o.edges;
        self.density += o.density;
        self.precision += o.precision;
        self.recall += o.recall;
        self.publish_s += o.publish_s;
    }

    /// The mean release (`n` = 1; every statistic NaN when nothing was summed).
    pub fn mean(&self) -> Self {
        let k = self.n as f64;
        Self {
            n: 1,
            edges: self.edges / k,
            density: self.density / k,
            precision: self.precision / k,
            recall: self.recall / k,
            publish_s: self.publish_s / k,
        }
    }
}

/// Training results of one (model, method, ε) cell over releases: the test accuracy of every
/// run, summed seconds and epochs, and the epoch cap of the last run. Part of the chunk cache
/// format.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainAcc {
    /// Test accuracy per run.
    pub runs: Vec<f64>,
    /// Training seconds over all runs.
    pub train_s: f64,
    /// Epochs over all runs.
    pub epochs: usize,
    /// Epoch cap of the runs (the last one merged).
    pub cap: usize,
    /// Runs that trained up to their epoch cap (no early stop). `None` in caches written
    /// before it was counted (see [`Self::reached_cap`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_cap: Option<usize>,
}

impl TrainAcc {
    /// Adds one run that trained under epoch cap `cap`.
    pub(crate) fn push(&mut self, score: &RunScore, cap: usize) {
        let reached = self.reached_cap() + usize::from(score.epochs >= cap);
        self.runs.push(score.test_acc);
        self.train_s += score.train_s;
        self.epochs += score.epochs;
        self.cap = cap;
        self.at_cap = Some(reached);
    }

    /// Runs that trained up to their epoch cap: the count, or for a one-run entry of a cache
    /// written before it was counted, whether its epochs reached its cap.
    ///
    /// # Example
    /// ```
    /// use edgerefine::paper::node::TrainAcc;
    /// let old = TrainAcc { runs: vec![0.7], epochs: 300, cap: 300, ..TrainAcc::default() };
    /// assert_eq!(old.reached_cap(), 1);
    /// ```
    pub fn reached_cap(&self) -> usize {
        self.at_cap.unwrap_or_else(|| {
            if self.runs.len() == 1 {
                usize::from(self.epochs >= self.cap)
            } else {
                0
            }
        })
    }

    /// Adds the runs of `o`.
    pub(crate) fn merge(&mut self, o: &Self) {
        let reached = self.reached_cap() + o.reached_cap();
        self.runs.extend_from_slice(&o.runs);
        self.train_s += o.train_s;
        self.epochs += o.epochs;
        self.cap = o.cap;
        self.at_cap = Some(reached);
    }
}

/// Serde for an `f64` that may be NaN (JSON has no NaN: written as `null`, read back as NaN).
mod nan_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if x.is_finite() {
            s.serialize_f64(*x)
        } else {
            s.serialize_none()
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

/// The results of one chunk of a dataset's grid — the ε-free rows or one ε, for one seed:
/// release statistics per method index (into [`NodeGrid::methods`]) and training results per
/// (model index into [`Plan::models`], method index). The field names and their order are the
/// cache format of `cargo xtask repro edgerefine --resume`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// [`NodeGrid::fingerprint`] of the chunk: a cached chunk is reused only under the same one.
    pub fingerprint: String,
    /// `(method index, one release)`.
    pub releases: Vec<(usize, ReleaseAcc)>,
    /// `(model index, method index, one run)`.
    pub trains: Vec<(usize, usize, TrainAcc)>,
    /// Wall-clock seconds of the chunk.
    pub seconds: f64,
}

/// How many runs of a model reached the dataset's own epoch cap (`max_epochs`) without an early
/// stop: their validation accuracy still improved within the last `patience` epochs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AtCap {
    /// Runs that reached the cap.
    pub reached: usize,
    /// Runs under the dataset's own cap (not the dense caps).
    pub runs: usize,
}

/// A row of the accuracy table: one (dataset, model, method, ε) cell, mean ± std over seeds,
/// with the mean structure of its releases.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct AccuracyRow {
    /// Dataset name.
    pub dataset: String,
    /// [`NodeModel::name`].
    pub model: String,
    /// The method, its ε and its test accuracy over seeds (the columns `method`, `eps`,
    /// `acc_mean`, `acc_std`, `runs`).
    #[serde(flatten)]
    pub scores: MethodScores,
    /// The epoch cap the runs trained under.
    pub max_epochs: usize,
    /// Runs of the cell that trained up to the cap without an early stop (validation accuracy
    /// still improving within the last `patience` epochs; under a dense cap, every run).
    pub at_cap: usize,
    /// Mean released edges.
    pub edges: f64,
    /// Mean density.
    pub density: f64,
    /// Mean true-edge precision.
    pub precision: f64,
    /// Mean true-edge recall.
    pub recall: f64,
    /// Mean publish seconds.
    pub publish_s: f64,
    /// Mean training seconds per run.
    pub train_s: f64,
    /// The control: the test accuracy of always predicting the training split's most frequent
    /// class, mean over the plan's seeds ([`NodeGrid::majority_rate`]; NaN where not filled).
    pub majority_rate: f64,
}

/// A row of the releases table: one (dataset, method, ε) cell, means over seeds.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct ReleaseRow {
    /// Dataset name.
    pub dataset: String,
    /// [`Method::label`].
    pub method: String,
    /// ε (`-` for the ε-free rows).
    #[serde(serialize_with = "eps_or_dash")]
    pub eps: Option<f64>,
    /// Mean released edges.
    pub edges: f64,
    /// Mean density.
    pub density: f64,
    /// Mean true-edge precision.
    pub precision: f64,
    /// Mean true-edge recall.
    pub recall: f64,
    /// Mean publish seconds.
    pub publish_s: f64,
}

/// A row of the PUBI table: the stability indices ([`stability`]) of one method's per-ε mean
/// accuracies against the non-private accuracy of the same model.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct PubiRow {
    /// Dataset name.
    pub dataset: String,
    /// [`NodeModel::name`].
    pub model: String,
    /// [`Method::label`].
    pub method: String,
    /// The ε the method ran at.
    pub eps_grid: Vec<f64>,
    /// Population variance of the per-ε means.
    pub variance: f64,
    /// Coefficient of variation.
    pub cv: f64,
    /// Accuracy utility ratio.
    pub aur: f64,
    /// Monotonic consistency factor.
    pub mcf: f64,
    /// AUR × MCF.
    pub pubi: f64,
}

/// The curves of one model's accuracy plot.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelCurves {
    /// The model.
    pub model: NodeModel,
    /// One curve per method with results, in [`NodeGrid::methods`] order.
    pub curves: Vec<Curve>,
}

/// The rows of one dataset's grid.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeRows {
    /// Per (model, method, ε), models in plan order, methods in [`NodeGrid::methods`] order.
    pub accuracy: Vec<AccuracyRow>,
    /// Per (method, ε), in [`NodeGrid::methods`] order.
    pub releases: Vec<ReleaseRow>,
    /// Per (model, private method) where the non-private accuracy is known.
    pub pubi: Vec<PubiRow>,
    /// Per model of the plan.
    pub curves: Vec<ModelCurves>,
}

/// The grid of one dataset of a [`Plan`]: its methods ([`FIXED`], then the plan's methods,
/// then its dense methods) and its ε (the dataset's grid plus the dense methods' ε).
#[derive(Clone, Debug)]
pub struct NodeGrid<'p> {
    plan: &'p Plan,
    dataset: &'p DatasetPlan,
    methods: Vec<Method>,
    eps: Vec<f64>,
}

impl<'p> NodeGrid<'p> {
    /// The grid of `dataset` (one of `plan.datasets`, or any other) under `plan`.
    pub fn new(plan: &'p Plan, dataset: &'p DatasetPlan) -> Self {
        let mut methods = FIXED.to_vec();
        methods.extend(plan.methods.iter().copied());
        methods.extend(plan.dense_methods.iter().copied());
        let mut eps = dataset.eps.clone();
        if !plan.dense_methods.is_empty() {
            eps.extend(plan.dense_eps.iter().filter(|e| !dataset.eps.contains(e)));
        }
        eps.sort_by(f64::total_cmp);
        Self {
            plan,
            dataset,
            methods,
            eps,
        }
    }

    /// The plan.
    pub fn plan(&self) -> &'p Plan {
        self.plan
    }

    /// The dataset's plan.
    pub fn dataset(&self) -> &'p DatasetPlan {
        self.dataset
    }

    /// Every method of the grid; chunks and rows index into this.
    pub fn methods(&self) -> &[Method] {
        &self.methods
    }

    /// Every ε of the grid, increasing.
    pub fn eps(&self) -> &[f64] {
        &self.eps
    }

    /// The chunks' slots in run order: the ε-free rows, then each ε.
    pub fn slots(&self) -> Vec<Slot> {
        std::iter::once(None)
            .chain((0..self.eps.len()).map(Some))
            .collect()
    }

    /// Chunks of the grid: slots × seeds.
    pub fn num_chunks(&self) -> usize {
        (self.eps.len() + 1) * self.plan.seeds.len()
    }

    /// The ε of a slot.
    pub fn eps_of(&self, slot: Slot) -> Option<f64> {
        slot.map(|e| self.eps[e])
    }

    /// A short name of a slot: `fixed` or `eps<ε>`.
    pub fn label(&self, slot: Slot) -> String {
        self.eps_of(slot)
            .map_or("fixed".to_string(), |e| format!("eps{e}"))
    }

    /// The methods of a slot's chunks with their index in [`Self::methods`]: [`FIXED`] for the
    /// ε-free slot; the plan's methods where ε is in the dataset's grid and the dense methods
    /// where it is one of `dense_eps`.
    pub fn chunk_methods(&self, slot: Slot) -> Vec<(usize, Method)> {
        let Some(eps) = self.eps_of(slot) else {
            return FIXED.iter().copied().enumerate().collect();
        };
        let (fixed, plain) = (FIXED.len(), self.plan.methods.len());
        let mut ms = Vec::new();
        if self.dataset.eps.contains(&eps) {
            ms.extend(
                self.plan
                    .methods
                    .iter()
                    .enumerate()
                    .map(|(i, &m)| (fixed + i, m)),
            );
        }
        if self.plan.dense_eps.contains(&eps) {
            ms.extend(
                self.plan
                    .dense_methods
                    .iter()
                    .enumerate()
                    .map(|(i, &m)| (fixed + plain + i, m)),
            );
        }
        ms
    }

    /// Everything that decides a chunk's numbers, as text: the dataset, ε, seed, epoch budget,
    /// models, methods, and the dense caps and the training edge limit where the plan has
    /// them. The format is fixed: the committed chunk caches are found by it (the models keep
    /// their former preset names `edgerefine-<model>`).
    ///
    /// # Example
    /// ```
    /// use edgerefine::paper::{Plan, node::NodeGrid};
    /// let p = Plan::quick();
    /// let grid = NodeGrid::new(&p, &p.datasets[0]);
    /// let f = grid.fingerprint(None, 1);
    /// assert!(f.starts_with("cora eps None seed 1 epochs 200 patience 50"), "{f}");
    /// ```
    pub fn fingerprint(&self, slot: Slot, seed: u64) -> String {
        let p = self.plan;
        format!(
            "{} eps {:?} seed {seed} epochs {} patience {} models {:?} methods {:?}{}",
            self.dataset.name,
            self.eps_of(slot),
            self.dataset.max_epochs,
            self.dataset.patience,
            p.models
                .iter()
                .map(|m| format!("edgerefine-{}", m.name()))
                .collect::<Vec<_>>(),
            self.chunk_methods(slot)
                .iter()
                .map(|x| x.1.label())
                .collect::<Vec<_>>(),
            p.dense_caps.map_or(String::new(), |c| format!(
                " dense {} {} {DENSE_EDGES} {VERY_DENSE_EDGES}",
                c.dense_epochs, c.very_dense_epochs
            ))
        ) + &p
            .train_edge_limit
            .map_or(String::new(), |l| format!(" train-edge-limit {l}"))
    }

    /// Runs one chunk on `ds` (the dataset of this grid): releases every method of
    /// [`Self::chunk_methods`] at the slot's ε (the ε-free methods at ε = 1, unused) with
    /// `seed`, and trains every model of the plan on each release within
    /// [`Plan::train_edge_limit`] under
    /// [`Plan::epochs_for`] (EdgeRefine's protocol, [`TrainPlan::edgerefine`], otherwise).
    ///
    /// # Errors
    /// Release and training errors; a training error names the model and dataset.
    pub fn run_chunk(&self, ds: &NodeDataset, slot: Slot, seed: u64) -> Result<Chunk> {
        self.run_methods(ds, slot, seed, |_| true)
    }

    /// Whether the method at `index` of [`Self::methods`] is one of the plan's dense methods.
    pub fn is_dense_method(&self, index: usize) -> bool {
        index >= FIXED.len() + self.plan.methods.len() && index < self.methods.len()
    }

    /// The methods of `earlier` (a chunk of [`Plan::full_before_dense_path`]) that
    /// [`Self::rerun_dense`] trains again: the plan's dense methods, and every method whose
    /// release there had more than [`DENSE_EDGES`] edges (trained under the dense caps, or not
    /// at all above the edge limit: e.g. the artifact's Blink on AMAP from ε = 2.5).
    pub fn rerun_in(&self, earlier: &Chunk) -> Vec<usize> {
        let mut out: Vec<usize> = earlier
            .releases
            .iter()
            .filter(|(mi, r)| {
                self.is_dense_method(*mi) || r.edges > DENSE_EDGES as f64 * r.n.max(1) as f64
            })
            .map(|(mi, _)| *mi)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The chunk `(slot, seed)` made from `earlier`, the same chunk of a plan that differs from
    /// this one only in how dense releases train (its caps and edge limit:
    /// [`Plan::full_before_dense_path`]): the methods of [`Self::rerun_in`] are released and
    /// trained again under this plan, and `earlier`'s releases and runs of the others are kept
    /// as they are (their releases had at most [`DENSE_EDGES`] edges, so the caps never
    /// applied, and every release and run is seeded by method, ε and seed alone). The chunk's
    /// seconds are `earlier`'s plus the new runs'.
    ///
    /// # Errors
    /// As [`Self::run_chunk`].
    pub fn rerun_dense(
        &self,
        ds: &NodeDataset,
        slot: Slot,
        seed: u64,
        earlier: &Chunk,
    ) -> Result<Chunk> {
        let again = self.rerun_in(earlier);
        let mut chunk = self.run_methods(ds, slot, seed, |mi| {
            self.is_dense_method(mi) || again.contains(&mi)
        })?;
        let kept = |mi: usize| !self.is_dense_method(mi) && !again.contains(&mi);
        let mut releases: Vec<_> = earlier
            .releases
            .iter()
            .filter(|(mi, _)| kept(*mi))
            .cloned()
            .collect();
        releases.append(&mut chunk.releases);
        releases.sort_by_key(|(mi, _)| *mi);
        let mut trains: Vec<_> = earlier
            .trains
            .iter()
            .filter(|(_, mi, _)| kept(*mi))
            .cloned()
            .collect();
        trains.append(&mut chunk.trains);
        trains.sort_by_key(|(_, mi, _)| *mi);
        Ok(Chunk {
            releases,
            trains,
            seconds: earlier.seconds + chunk.seconds,
            ..chunk
        })
    }

    /// [`Self::run_chunk`] for the slot's methods whose index passes `only`.
    fn run_methods(
        &self,
        ds: &NodeDataset,
        slot: Slot,
        seed: u64,
        only: impl Fn(usize) -> bool,
    ) -> Result<Chunk> {
        let t0 = Instant::now();
        let g = ds.graph();
        let mut ms = self.chunk_methods(slot);
        ms.retain(|(mi, _)| only(*mi));
        let methods: Vec<Method> = ms.iter().map(|x| x.1).collect();
        let released = match self.eps_of(slot) {
            Some(e) => release_many(g, &methods, Epsilon::new(e)?, seed)?,
            // The non-private methods: ε is not used.
            None => methods
                .iter()
                .map(|&m| release(g, m, Epsilon::constant(1.0), seed))
                .collect::<Result<Vec<_>>>()?,
        };
        let mut chunk = Chunk {
            fingerprint: self.fingerprint(slot, seed),
            ..Chunk::default()
        };
        for (&(mi, _), r) in ms.iter().zip(&released) {
            chunk
                .releases
                .push((mi, ReleaseAcc::one(&structure(g, &r.graph), r.publish_s)));
            if self
                .plan
                .train_edge_limit
                .is_some_and(|l| r.graph.num_edges() > l)
            {
                // Released and measured, not trained on (the tables count it).
                continue;
            }
            let (cap, patience, _) = self.plan.epochs_for(self.dataset, r.graph.num_edges());
            for (model_i, &model) in self.plan.models.iter().enumerate() {
                let plan = TrainPlan::edgerefine(model, seed).with_epochs(cap, Some(patience));
                let score = train_on_release(ds, &r.graph, r.weights.as_deref(), &plan).map_err(
                    |e| match e {
                        EdgeRefineError::Train(m) => EdgeRefineError::Train(format!(
                            "{} on {}: {m}",
                            model.name(),
                            ds.name()
                        )),
                        e => e,
                    },
                )?;
                let mut t = TrainAcc::default();
                t.push(&score, cap);
                chunk.trains.push((model_i, mi, t));
            }
        }
        chunk.seconds = t0.elapsed().as_secs_f64();
        Ok(chunk)
    }

    /// The majority-class control of this grid's dataset `ds`: [`majority_rate`] on the split
    /// of every seed of the plan ([`TrainPlan::edgerefine`]'s shares), averaged.
    ///
    /// # Errors
    /// As [`majority_rate`]; a plan without seeds or models.
    pub fn majority_rate(&self, ds: &NodeDataset) -> Result<f64> {
        let seeds = &self.plan.seeds;
        let Some(&model) = self.plan.models.first() else {
            return Err(EdgeRefineError::Train("the plan has no models".into()));
        };
        if seeds.is_empty() {
            return Err(EdgeRefineError::Train("the plan has no seeds".into()));
        }
        let mut sum = 0.0;
        for &seed in seeds {
            // Every model trains on the same split of a seed.
            let split = TrainPlan::edgerefine(model, seed).split;
            sum += majority_rate(ds, split, seed)?;
        }
        Ok(sum / seeds.len() as f64)
    }

    /// The rows of what `acc` holds: a cell without runs (a chunk not run yet) has no row, nor
    /// has a method index outside [`Self::methods`] (a chunk of another grid).
    ///
    /// # Errors
    /// A non-finite mean accuracy in a PUBI series.
    pub fn rows(&self, acc: &NodeAcc) -> Result<NodeRows> {
        let dataset = self.dataset.name.to_string();
        let mut out = NodeRows::default();
        for (&(mi, slot), a) in &acc.releases {
            let Some(method) = self.methods.get(mi) else {
                continue;
            };
            let m = a.mean();
            out.releases.push(ReleaseRow {
                dataset: dataset.clone(),
                method: method.label(),
                eps: self.eps_of(slot),
                edges: m.edges,
                density: m.density,
                precision: m.precision,
                recall: m.recall,
                publish_s: m.publish_s,
            });
        }
        for (model_i, &model) in self.plan.models.iter().enumerate() {
            let origin = acc
                .trains
                .get(&(model_i, (0, None)))
                .map_or(f64::NAN, |t| mean_std(&t.runs).0);
            let mut curves = Vec::new();
            for (mi, method) in self.methods.iter().enumerate() {
                let slots = if mi < FIXED.len() {
                    vec![None]
                } else {
                    (0..self.eps.len()).map(Some).collect()
                };
                let mut cells = Vec::new();
                for slot in slots {
                    let Some(t) = acc.trains.get(&(model_i, (mi, slot))) else {
                        continue;
                    };
                    let r = acc
                        .releases
                        .get(&(mi, slot))
                        .cloned()
                        .unwrap_or_default()
                        .mean();
                    let scores =
                        MethodScores::new(method.label(), self.eps_of(slot), t.runs.clone());
                    let mean = scores.acc_mean;
                    out.accuracy.push(AccuracyRow {
                        dataset: dataset.clone(),
                        model: model.name().into(),
                        scores,
                        max_epochs: t.cap,
                        at_cap: t.reached_cap(),
                        edges: r.edges,
                        density: r.density,
                        precision: r.precision,
                        recall: r.recall,
                        publish_s: r.publish_s,
                        train_s: t.train_s / t.runs.len() as f64,
                        majority_rate: f64::NAN,
                    });
                    cells.push((self.eps_of(slot), mean));
                }
                let curve = Curve::new(method.label(), cells, &self.eps);
                if curve.points.is_empty() {
                    continue;
                }
                if mi >= FIXED.len() && origin.is_finite() {
                    let means: Vec<f64> = curve.points.iter().map(|x| x.1).collect();
                    let st = stability(&means, origin)?;
                    out.pubi.push(PubiRow {
                        dataset: dataset.clone(),
                        model: model.name().into(),
                        method: method.label(),
                        eps_grid: curve.points.iter().map(|x| x.0).collect(),
                        variance: st.variance,
                        cv: st.cv,
                        aur: st.aur,
                        mcf: st.mcf,
                        pubi: st.pubi,
                    });
                }
                curves.push(curve);
            }
            out.curves.push(ModelCurves { model, curves });
        }
        Ok(out)
    }
}

/// The accumulation of a dataset's chunks: release statistics per (method, slot), training
/// results per (model, (method, slot)), and per model the runs at the epoch cap.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeAcc {
    max_epochs: usize,
    releases: BTreeMap<(usize, Slot), ReleaseAcc>,
    trains: BTreeMap<(usize, (usize, Slot)), TrainAcc>,
    at_cap: Vec<AtCap>,
}

impl NodeAcc {
    /// Nothing accumulated yet for `grid`.
    pub fn new(grid: &NodeGrid<'_>) -> Self {
        Self {
            max_epochs: grid.dataset.max_epochs,
            at_cap: vec![AtCap::default(); grid.plan.models.len()],
            ..Self::default()
        }
    }

    /// Adds a chunk of `slot` (computed, or read back from a cache).
    pub fn add(&mut self, slot: Slot, chunk: &Chunk) {
        for (mi, r) in &chunk.releases {
            self.releases.entry((*mi, slot)).or_default().merge(r);
        }
        for (model_i, mi, t) in &chunk.trains {
            self.trains
                .entry((*model_i, (*mi, slot)))
                .or_default()
                .merge(t);
            // One run per chunk entry: did it run to the dataset's own epoch cap?
            if t.cap == self.max_epochs {
                if self.at_cap.len() <= *model_i {
                    self.at_cap.resize(model_i + 1, AtCap::default());
                }
                let c = &mut self.at_cap[*model_i];
                c.runs += 1;
                c.reached += usize::from(t.epochs >= t.cap);
            }
        }
    }

    /// Per model of the plan: the runs that reached the dataset's epoch cap.
    pub fn at_cap(&self) -> &[AtCap] {
        &self.at_cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(test_acc: f64, epochs: usize) -> RunScore {
        RunScore {
            test_acc,
            val_acc: test_acc,
            val_loss: 1.0 - test_acc,
            train_s: 0.5 * epochs as f64,
            epochs,
        }
    }

    fn rel(edges: usize, precision: f64) -> ReleaseAcc {
        ReleaseAcc::one(
            &Structure {
                edges,
                density: edges as f64 / 1024.0,
                precision,
                recall: edges as f64 / 64.0,
            },
            0.25 * edges as f64,
        )
    }

    #[test]
    fn merging_accumulators_equals_accumulating_all_runs_at_once() {
        let runs = [(0.7, 10), (0.8, 30), (0.75, 300), (0.6, 5)];
        let mut all = TrainAcc::default();
        for (a, e) in runs {
            all.push(&score(a, e), 300);
        }
        // Two halves, each accumulated on its own, then merged.
        let (mut x, mut y) = (TrainAcc::default(), TrainAcc::default());
        for (a, e) in &runs[..2] {
            x.push(&score(*a, *e), 300);
        }
        for (a, e) in &runs[2..] {
            y.push(&score(*a, *e), 300);
        }
        x.merge(&y);
        assert_eq!(x, all);
        assert_eq!(all.runs, vec![0.7, 0.8, 0.75, 0.6]);
        assert_eq!((all.train_s, all.epochs, all.cap), (172.5, 345, 300));
        assert_eq!(
            all.reached_cap(),
            1,
            "one of the four runs reached the 300-epoch cap"
        );

        let rels = [rel(10, 0.5), rel(30, 0.25), rel(20, 0.0)];
        let mut one = ReleaseAcc::default();
        rels.iter().for_each(|r| one.merge(r));
        let mut tail = ReleaseAcc::default();
        rels[1..].iter().for_each(|r| tail.merge(r));
        let mut split = rels[0].clone();
        split.merge(&tail);
        assert_eq!(split, one);
        let m = one.mean();
        assert_eq!((m.n, m.edges, m.precision), (1, 20.0, 0.25));
        assert!(
            ReleaseAcc::default().mean().edges.is_nan(),
            "no release: NaN"
        );
    }

    #[test]
    fn merging_chunks_sums_statistics_and_collects_runs() {
        let one = |acc: f64, edges: f64| {
            (
                ReleaseAcc {
                    n: 1,
                    edges,
                    density: edges / 100.0,
                    precision: 0.5,
                    recall: 0.1,
                    publish_s: 1.0,
                },
                TrainAcc {
                    runs: vec![acc],
                    train_s: 2.0,
                    epochs: 10,
                    cap: 300,
                    at_cap: Some(0),
                },
            )
        };
        let (mut r, mut t) = (ReleaseAcc::default(), TrainAcc::default());
        for (a, e) in [(0.7, 10.0), (0.8, 30.0)] {
            let (ra, ta) = one(a, e);
            r.merge(&ra);
            t.merge(&ta);
        }
        assert_eq!(r.n, 2);
        assert_eq!(r.edges / r.n as f64, 20.0);
        assert_eq!(t.runs, vec![0.7, 0.8]);
        assert_eq!((t.train_s, t.epochs, t.cap), (4.0, 20, 300));
    }

    /// A plan of one dataset `toy` with ε ∈ {1, 2}, two models, one method at every ε and one
    /// dense method at ε ∈ {2, 3}.
    fn toy_plan() -> Plan {
        Plan {
            datasets: vec![DatasetPlan {
                name: "toy",
                eps: vec![2.0, 1.0],
                max_epochs: 300,
                patience: 50,
            }],
            models: vec![NodeModel::Gcn, NodeModel::Gat],
            methods: vec![Method::Dprr],
            dense_methods: vec![Method::SymRr],
            dense_eps: vec![3.0, 2.0],
            ..Plan::quick()
        }
    }

    /// The majority-class control: 1 when every node has one class; otherwise the mean over the
    /// plan's seeds of the per-split rate, which counts the test nodes of the training
    /// majority.
    #[test]
    fn the_majority_control_is_the_training_majority_on_the_test_nodes() {
        let n = 50;
        let edges: Vec<(u32, u32)> = (1..n as u32).map(|v| (v - 1, v)).collect();
        let g = graph_core::Graph::from_edges(n, &edges).unwrap();
        let x = ndarray::Array2::<f32>::zeros((n, 2));
        let p = Plan {
            seeds: vec![0, 1, 2],
            ..toy_plan()
        };
        let grid = NodeGrid::new(&p, &p.datasets[0]);
        let one = NodeDataset::new("one", g.clone(), x.clone(), vec![0; n]).unwrap();
        assert_eq!(grid.majority_rate(&one).unwrap(), 1.0);
        // Class 1 on 40 of 50 nodes: the majority of every split's training nodes.
        let labels: Vec<u32> = (0..n).map(|v| u32::from(v % 5 != 0)).collect();
        let ds = NodeDataset::new("skew", g, x, labels.clone()).unwrap();
        let mut want = 0.0;
        for seed in [0, 1, 2] {
            let split = graph_core::NodeSplit::random(
                n,
                0.6,
                0.2,
                &mut <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed),
            )
            .unwrap();
            let test: Vec<usize> = (0..n).filter(|&v| split.test[v]).collect();
            want +=
                test.iter().filter(|&&v| labels[v] == 1).count() as f64 / test.len() as f64 / 3.0;
        }
        let got = grid.majority_rate(&ds).unwrap();
        assert!((got - want).abs() < 1e-12 && got > 0.5, "{got} vs {want}");
    }

    /// A chunk of `slot` with made-up numbers: every method of the slot released once, every
    /// model trained once (accuracy `acc + 0.01·model`).
    fn fake_chunk(grid: &NodeGrid<'_>, slot: Slot, acc: f64, epochs: usize) -> Chunk {
        let mut c = Chunk::default();
        for (mi, _) in grid.chunk_methods(slot) {
            c.releases.push((mi, rel(10 * (mi + 1), 0.5)));
            for model_i in 0..grid.plan().models.len() {
                let mut t = TrainAcc::default();
                t.push(&score(acc + 0.01 * model_i as f64, epochs), 300);
                c.trains.push((model_i, mi, t));
            }
        }
        c
    }

    #[test]
    fn the_grid_has_fixed_plain_and_dense_methods_at_their_eps() {
        let p = toy_plan();
        let grid = NodeGrid::new(&p, &p.datasets[0]);
        assert_eq!(grid.eps(), &[1.0, 2.0, 3.0]);
        assert_eq!(
            grid.methods(),
            &[Method::Origin, Method::NoGraph, Method::Dprr, Method::SymRr]
        );
        assert_eq!(grid.slots(), vec![None, Some(0), Some(1), Some(2)]);
        assert_eq!(grid.num_chunks(), 4 * p.seeds.len());
        let idx = |s| -> Vec<usize> { grid.chunk_methods(s).iter().map(|x| x.0).collect() };
        assert_eq!(idx(None), vec![0, 1]);
        assert_eq!(idx(Some(0)), vec![2]);
        assert_eq!(idx(Some(1)), vec![2, 3]);
        assert_eq!(idx(Some(2)), vec![3]);
        assert_eq!(
            (grid.label(None), grid.label(Some(2))),
            ("fixed".into(), "eps3".into())
        );
    }

    #[test]
    fn rows_follow_models_methods_and_eps_and_count_runs_at_the_cap() {
        let p = toy_plan();
        let grid = NodeGrid::new(&p, &p.datasets[0]);
        let mut acc = NodeAcc::new(&grid);
        for slot in grid.slots() {
            // Two seeds; the origin at 0.8 / 0.9, the rest lower, more with ε.
            let base = slot.map_or(0.8, |e| 0.5 + 0.05 * e as f64);
            acc.add(slot, &fake_chunk(&grid, slot, base, 300));
            acc.add(slot, &fake_chunk(&grid, slot, base + 0.1, 40));
        }
        let rows = grid.rows(&acc).unwrap();
        // Releases: 2 fixed + Dprr at ε 1, 2 + SymRR at ε 2, 3.
        let rel: Vec<(String, Option<f64>)> = rows
            .releases
            .iter()
            .map(|r| (r.method.clone(), r.eps))
            .collect();
        assert_eq!(
            rel,
            vec![
                ("non-private".into(), None),
                ("no graph (features only)".into(), None),
                ("DPRR".into(), Some(1.0)),
                ("DPRR".into(), Some(2.0)),
                ("SymRR".into(), Some(2.0)),
                ("SymRR".into(), Some(3.0)),
            ]
        );
        assert_eq!(rows.accuracy.len(), 2 * 6);
        let first = &rows.accuracy[0];
        assert_eq!(
            (first.model.as_str(), first.scores.method.as_str()),
            ("gcn", "non-private")
        );
        assert_eq!(first.scores.runs, vec![0.8, 0.9]);
        assert!((first.scores.acc_mean - 0.85).abs() < 1e-12);
        assert_eq!((first.edges, first.max_epochs), (10.0, 300));
        assert_eq!(rows.accuracy[6].model, "gat");
        assert!((rows.accuracy[6].scores.acc_mean - 0.86).abs() < 1e-12);
        // PUBI per model for DPRR and SymRR, over the ε each ran at.
        assert_eq!(rows.pubi.len(), 4);
        assert_eq!(rows.pubi[0].eps_grid, vec![1.0, 2.0]);
        assert_eq!(rows.pubi[1].eps_grid, vec![2.0, 3.0]);
        assert!(rows.pubi.iter().all(|r| r.pubi > 0.0 && r.pubi < 1.0));
        // Curves: the ε-free methods are flat over the whole grid.
        assert_eq!(rows.curves.len(), 2);
        assert_eq!(rows.curves[0].curves.len(), 4);
        assert_eq!(rows.curves[0].curves[0].points.len(), 3);
        // Half of the runs stopped before the cap: 6 cells × 2 seeds per model.
        assert_eq!(
            acc.at_cap(),
            &[
                AtCap {
                    reached: 6,
                    runs: 12
                },
                AtCap {
                    reached: 6,
                    runs: 12
                }
            ]
        );
    }

    #[test]
    fn a_dense_rerun_takes_the_dense_methods_and_every_release_that_was_capped() {
        let p = toy_plan();
        let grid = NodeGrid::new(&p, &p.datasets[0]);
        // Slot 1 (ε = 2) has DPRR (index 2) and the dense SymRR (3).
        let mut c = fake_chunk(&grid, Some(1), 0.5, 10);
        assert_eq!(grid.rerun_in(&c), vec![3]);
        // A plain method's release above DENSE_EDGES trained under the caps: again too.
        c.releases[0].1.edges = (DENSE_EDGES + 1) as f64;
        assert_eq!(c.releases[0].0, 2);
        assert_eq!(grid.rerun_in(&c), vec![2, 3]);
        c.releases[0].1.edges = DENSE_EDGES as f64;
        assert_eq!(grid.rerun_in(&c), vec![3]);
    }

    #[test]
    fn a_grid_without_chunks_has_no_rows() {
        let p = toy_plan();
        let grid = NodeGrid::new(&p, &p.datasets[0]);
        let rows = grid.rows(&NodeAcc::new(&grid)).unwrap();
        assert!(rows.accuracy.is_empty() && rows.releases.is_empty() && rows.pubi.is_empty());
        assert!(rows.curves.iter().all(|c| c.curves.is_empty()));
    }

    #[test]
    fn the_fingerprint_is_the_committed_caches_format() {
        // From results/edgerefine/cache/cora/eps0.5-seed0.json as of `ba0accb` (`--full` before
        // the paper's 700 / 100 protocol and the artifact's Blink): that plan still finds it.
        let full = Plan::full();
        let before = Plan::full_before_dense_path();
        let p = Plan::full_before_paper_protocol();
        let now = NodeGrid::new(&full, &full.datasets[0]).fingerprint(Some(0), 0);
        let was = NodeGrid::new(&before, &before.datasets[0]).fingerprint(Some(0), 0);
        assert!(
            was.starts_with("cora eps Some(0.5) seed 0 epochs 700 patience 100 models")
                && was.contains("\"Blink-hard (EdgeRefine artifact's variant)\"")
                && was.ends_with("dense 20 3 300000 500000 train-edge-limit 4000000"),
            "{was}"
        );
        // Without caps and edge limit: the same text up to them.
        assert_eq!(
            format!("{now} dense 20 3 300000 500000 train-edge-limit 4000000"),
            was
        );
        let grid = NodeGrid::new(&p, &p.datasets[0]);
        assert_eq!(
            grid.fingerprint(Some(0), 0),
            "cora eps Some(0.5) seed 0 epochs 300 patience 50 models [\"edgerefine-gcn\", \"edgerefine-gat\", \"edgerefine-gin\"] methods [\"EdgeRefine k=0.01 (reference tie-break)\", \"EdgeRefine k=0.01\", \"EdgeRefine k=1\", \"Blink-hard (original, δ_b = 0.1)\", \"Blink-hybrid (original, δ_b = 0.1)\", \"DPRR\", \"LDPGen\"] dense 20 3 300000 500000"
        );
    }
}
