//! NeighGen's data: a client's local graph G_i ([`LocalGraph`]), NeighGen's train and test
//! sets, the impaired graph G_i′ with the missing-neighbour targets ([`Impaired`]), and the
//! greedy matching of generated to true neighbours ([`greedy_match`]).

use ndarray::Array2;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::{CountRounding, NeighGenSplit};
use crate::federation::ClientTopology;
use crate::train::FedTask;

/// Share of a client's nodes in NeighGen's train set under [`NeighGenSplit::Independent`].
pub(crate) const INDEPENDENT_TRAIN: f64 = 0.6;
/// Share in NeighGen's test set under [`NeighGenSplit::Independent`].
pub(crate) const INDEPENDENT_TEST: f64 = 0.2;

/// One client's local graph G_i: its own nodes and the edges among them (cross-client edges
/// dropped), with their feature rows, labels and task masks, in local indices.
#[derive(Clone, Debug)]
pub(crate) struct LocalGraph {
    /// Global ids of the own nodes, ascending (local index = position).
    pub(crate) nodes: Vec<u32>,
    /// Sorted neighbour lists in local indices.
    pub(crate) adj: Vec<Vec<u32>>,
    /// Feature rows, `[n, d]`.
    pub(crate) features: Array2<f32>,
    /// Labels.
    pub(crate) labels: Vec<u32>,
    /// The task's training mask over the own nodes.
    pub(crate) train: Vec<bool>,
    /// The task's validation mask over the own nodes.
    pub(crate) val: Vec<bool>,
}

impl LocalGraph {
    /// G_i of client `topo` in `task`.
    ///
    /// # Complexity
    /// O((n_i + m_i) log n_i + n_i·d).
    pub(crate) fn of_client(task: &FedTask, topo: &ClientTopology) -> Self {
        let nodes = topo.nodes().to_vec();
        let local = |v: u32| nodes.binary_search(&v).expect("local edges join own nodes") as u32;
        let mut adj = vec![Vec::new(); nodes.len()];
        for &(u, v) in topo.local_edges() {
            let (a, b) = (local(u), local(v));
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        adj.iter_mut().for_each(|l| l.sort_unstable());
        let idx: Vec<usize> = nodes.iter().map(|&v| v as usize).collect();
        Self {
            features: task.features.select(ndarray::Axis(0), &idx),
            labels: idx.iter().map(|&v| task.labels[v]).collect(),
            train: idx.iter().map(|&v| task.split.train[v]).collect(),
            val: idx.iter().map(|&v| task.split.val[v]).collect(),
            nodes,
            adj,
        }
    }

    /// Number of own nodes.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Feature width d.
    pub(crate) fn dim(&self) -> usize {
        self.features.ncols()
    }
}

/// NeighGen's train and test masks over the nodes of `g` under `split`.
pub(crate) fn neighgen_sets(
    g: &LocalGraph,
    split: NeighGenSplit,
    rng: &mut ChaCha8Rng,
) -> (Vec<bool>, Vec<bool>) {
    match split {
        NeighGenSplit::TaskSplit => (g.train.clone(), g.val.clone()),
        NeighGenSplit::Independent => {
            let mut train = vec![false; g.len()];
            let mut test = vec![false; g.len()];
            let classes = g.labels.iter().copied().max().map_or(0, |c| c as usize + 1);
            for c in 0..classes as u32 {
                let mut members: Vec<usize> = (0..g.len()).filter(|&v| g.labels[v] == c).collect();
                members.shuffle(rng);
                let n = members.len() as f64;
                let n_train = (INDEPENDENT_TRAIN * n).round() as usize;
                let n_test = ((INDEPENDENT_TEST * n).round() as usize).min(members.len() - n_train);
                for &v in &members[..n_train] {
                    train[v] = true;
                }
                for &v in &members[n_train..n_train + n_test] {
                    test[v] = true;
                }
            }
            (train, test)
        }
    }
}

/// The impaired graph G_i′ of one client with NeighGen's targets.
#[derive(Clone, Debug)]
pub(crate) struct Impaired {
    /// Local indices (in G_i) of the nodes kept in G_i′, ascending; position = node of G_i′.
    pub(crate) kept: Vec<usize>,
    /// Sorted neighbour lists of G_i′ in its positions.
    pub(crate) adj: Vec<Vec<u32>>,
    /// Positions in G_i′ of NeighGen's train nodes T_i.
    pub(crate) train: Vec<usize>,
    /// Positions in G_i′ of NeighGen's test nodes (never trained on: the count error of
    /// [`super::ClientReport`] is measured there).
    pub(crate) test: Vec<usize>,
    /// n_v: hidden neighbours of every node of G_i′ (uncapped).
    pub(crate) missing: Vec<u32>,
    /// Per node of G_i′, K target rows: its first min(n_v, K) hidden neighbours' features
    /// (neighbour order), zero-padded; `[|G_i′|·K·d]`.
    pub(crate) targets: Vec<f32>,
}

impl Impaired {
    /// Hides ⌊`hide_fraction`·|rest|⌋ nodes drawn uniformly from the nodes outside `train`
    /// and `test` (with their edges) and computes the targets with K = `k`.
    ///
    /// # Complexity
    /// O(n + m + n·K·d).
    pub(crate) fn new(
        g: &LocalGraph,
        train: &[bool],
        test: &[bool],
        hide_fraction: f64,
        k: usize,
        rng: &mut ChaCha8Rng,
    ) -> Self {
        let rest: Vec<usize> = (0..g.len()).filter(|&v| !train[v] && !test[v]).collect();
        let count = ((hide_fraction * rest.len() as f64).floor() as usize).min(rest.len());
        let hidden: Vec<usize> = rand::seq::index::sample(rng, rest.len(), count)
            .into_iter()
            .map(|i| rest[i])
            .collect();
        let mut is_hidden = vec![false; g.len()];
        for &v in &hidden {
            is_hidden[v] = true;
        }
        let kept: Vec<usize> = (0..g.len()).filter(|&v| !is_hidden[v]).collect();
        let mut pos = vec![u32::MAX; g.len()];
        for (p, &v) in kept.iter().enumerate() {
            pos[v] = p as u32;
        }
        let d = g.dim();
        let mut adj = Vec::with_capacity(kept.len());
        let mut missing = Vec::with_capacity(kept.len());
        let mut targets = vec![0f32; kept.len() * k * d];
        for (p, &v) in kept.iter().enumerate() {
            let mut nbrs = Vec::new();
            let mut n_v = 0u32;
            for &u in &g.adj[v] {
                if is_hidden[u as usize] {
                    if (n_v as usize) < k {
                        let at = (p * k + n_v as usize) * d;
                        for (t, &x) in targets[at..at + d]
                            .iter_mut()
                            .zip(g.features.row(u as usize))
                        {
                            *t = x;
                        }
                    }
                    n_v += 1;
                } else {
                    nbrs.push(pos[u as usize]);
                }
            }
            adj.push(nbrs);
            missing.push(n_v);
        }
        Self {
            train: kept
                .iter()
                .enumerate()
                .filter_map(|(p, &v)| train[v].then_some(p))
                .collect(),
            test: kept
                .iter()
                .enumerate()
                .filter_map(|(p, &v)| test[v].then_some(p))
                .collect(),
            kept,
            adj,
            missing,
            targets,
        }
    }

    /// The K target rows of the train nodes T_i, in the order of [`Impaired::train`],
    /// `[|T_i|·K·d]`.
    pub(crate) fn train_targets(&self, k: usize, d: usize) -> Vec<f32> {
        let block = k * d;
        self.train
            .iter()
            .flat_map(|&p| self.targets[p * block..(p + 1) * block].iter().copied())
            .collect()
    }

    /// Local indices of the hidden nodes of G_i (of `n` nodes), ascending.
    #[cfg(test)]
    pub(crate) fn hidden(&self, n: usize) -> Vec<usize> {
        (0..n)
            .filter(|v| self.kept.binary_search(v).is_err())
            .collect()
    }

    /// n_v of the train nodes T_i.
    pub(crate) fn train_missing(&self) -> Vec<u32> {
        self.train.iter().map(|&p| self.missing[p]).collect()
    }
}

/// m_v: how many generated neighbours a predicted count `predicted` = ñ_v attaches under
/// `rounding`, capped at K = `k` (0 for a negative or non-finite prediction). `u` is a uniform
/// draw from [0, 1), used by [`CountRounding::Stochastic`] only: m_v = ⌊ñ⌋ + 1 when
/// u < ñ − ⌊ñ⌋.
pub(crate) fn attached(predicted: f32, k: usize, rounding: CountRounding, u: f64) -> usize {
    if !(predicted.is_finite() && predicted > 0.0) {
        return 0;
    }
    let p = f64::from(predicted);
    let whole = p.floor();
    let m = match rounding {
        CountRounding::Floor => whole,
        CountRounding::Nearest => (p + 0.5).floor(),
        CountRounding::Stochastic => whole + f64::from(u8::from(u < p - whole)),
    };
    if m >= k as f64 { k } else { m as usize }
}

/// [`attached`] for every prediction of `counts`, drawing `u` from `rng` per node (one draw
/// per node under every rounding, so that the stream does not depend on it).
pub(crate) fn attach_all(
    counts: &[f32],
    k: usize,
    rounding: CountRounding,
    rng: &mut ChaCha8Rng,
) -> Vec<usize> {
    use rand::RngExt;
    counts
        .iter()
        .map(|&c| attached(c, k, rounding, rng.random::<f64>()))
        .collect()
}

/// The greedy feature loss of a set of nodes, matched on the host.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GreedyMatch {
    /// Pairs (generated row, target row): row v·K + p of the generated rows `[n·K, d]`
    /// matched with row i·K + q of the target rows `[|rows|·K, d]`.
    pub(crate) pairs: Vec<(usize, usize)>,
    /// L_f = Σ ℓ / (|rows|·K) with ℓ the MSE of each pair (0 without rows).
    pub(crate) loss: f64,
}

/// The nodes whose generated rows are matched: the i-th is v = `rows[i]`, with m_v =
/// `attach[i]` generated slots and n_v = `counts[i]` missing neighbours.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slots<'a> {
    /// The nodes v (positions in the generated rows).
    pub(crate) rows: &'a [usize],
    /// m_v per node.
    pub(crate) attach: &'a [usize],
    /// n_v per node.
    pub(crate) counts: &'a [u32],
}

/// The greedy matching of the spec: for the i-th node v of `slots`, every generated slot
/// p < m_v (when n_v > 0) is matched with the target q < min(K, n_v) of least MSE (first on
/// ties), ℓ_{v,p} = that MSE, and L_f = Σ ℓ / (|rows|·K).
///
/// # Arguments
/// * `generated` — generated rows `[n·K·d]` of all n nodes (row v·K + p).
/// * `targets` — target rows `[|rows|·K·d]`, K per node of `slots`.
///
/// # Complexity
/// O(|rows|·K²·d).
pub(crate) fn greedy_match(
    generated: &[f32],
    targets: &[f32],
    slots: Slots<'_>,
    k: usize,
    d: usize,
) -> GreedyMatch {
    let Slots {
        rows,
        attach,
        counts,
    } = slots;
    let mut pairs = Vec::new();
    let mut total = 0f64;
    let mse = |a: &[f32], b: &[f32]| -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| f64::from(x - y).powi(2))
            .sum::<f64>()
            / d as f64
    };
    for (i, &v) in rows.iter().enumerate() {
        let q_max = (counts[i] as usize).min(k);
        if q_max == 0 {
            continue;
        }
        for p in 0..attach[i].min(k) {
            let g_row = v * k + p;
            let g = &generated[g_row * d..(g_row + 1) * d];
            let (best_q, best) = (0..q_max)
                .map(|q| {
                    let t = (i * k + q) * d;
                    (q, mse(g, &targets[t..t + d]))
                })
                .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
            pairs.push((g_row, i * k + best_q));
            total += best;
        }
    }
    let loss = if rows.is_empty() {
        0.0
    } else {
        total / (rows.len() * k) as f64
    };
    GreedyMatch { pairs, loss }
}
