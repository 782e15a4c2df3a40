//! A radius from the data: how far apart the rows a client releases are, so that ε(p) can be
//! read at a distance that means something (the rows of two neighbours, of two nodes of one
//! class, of two random nodes), and how the clip norm C sits in the rows' norms.
//!
//! # Example
//! ```
//! use cefedgnn::privacy::radius::quantile;
//! assert_eq!(quantile(&[3.0, 1.0, 2.0, 4.0], 0.5), 2.0);
//! assert_eq!(quantile(&[3.0, 1.0, 2.0, 4.0], 0.9), 4.0);
//! assert!(quantile(&[], 0.5).is_nan());
//! ```

use rand::{RngExt, SeedableRng};
use serde::Serialize;

use crate::error::{FedError, Result};
use crate::train::ClientObservation;

/// Pairs sampled per kind (same class, random) at most.
pub const SAMPLED_PAIRS: usize = 20_000;

/// The geometry of one client's own rows before clipping: their norms, and the L2 distances
/// between the rows of linked nodes, of nodes of one class, and of random pairs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RowGeometry {
    /// Rows (the client's own nodes).
    pub rows: usize,
    /// Norm quantiles 0.1 / 0.5 / 0.9.
    pub norm_p10: f64,
    /// Median norm: the clip norm at which half the rows clip.
    pub norm_median: f64,
    /// 0.9 quantile of the norms.
    pub norm_p90: f64,
    /// Share of rows with norm above `clip`.
    pub clipped_share: f64,
    /// Linked pairs among the own nodes.
    pub neighbour_pairs: usize,
    /// Median distance between linked rows.
    pub neighbour_median: f64,
    /// 0.9 quantile of the distances between linked rows.
    pub neighbour_p90: f64,
    /// Median distance between rows of one class (sampled pairs).
    pub same_class_median: f64,
    /// Median distance between random rows (sampled pairs).
    pub random_median: f64,
    /// 0.9 quantile of the distances between random rows.
    pub random_p90: f64,
}

/// The `q` quantile of `values` (nearest rank on the sorted values); NaN when empty.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let k = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[k - 1]
}

/// The [`RowGeometry`] of `seen`'s own rows (before clipping) under clip norm `clip`, with the
/// links of `graph` and the classes of `labels` (all nodes, by global id); sampled pairs are
/// seeded by the client's id.
///
/// # Errors
/// [`FedError::InvalidParam`] for fewer than 2 own rows or an own node outside `graph` or
/// `labels`.
///
/// # Complexity
/// O(Σ deg + 2·[`SAMPLED_PAIRS`]·d + P log P) for P distances.
pub fn row_geometry(
    graph: &graph_core::Graph,
    labels: &[u32],
    seen: &ClientObservation,
    clip: f64,
) -> Result<RowGeometry> {
    let own = &seen.own_nodes;
    let n = own.len();
    if n < 2 || seen.own_hidden.nrows() != n {
        return Err(FedError::param(
            "observation",
            n,
            "needs two own nodes with their rows",
        ));
    }
    if let Some(&v) = own
        .iter()
        .find(|&&v| v as usize >= graph.num_nodes() || v as usize >= labels.len())
    {
        return Err(FedError::param("own node", v, "is not a node of the task"));
    }
    let h = seen.own_hidden.mapv(f64::from);
    let dist = |i: usize, j: usize| {
        h.row(i)
            .iter()
            .zip(h.row(j))
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt()
    };
    let norms: Vec<f64> = h.rows().into_iter().map(|r| r.dot(&r).sqrt()).collect();
    let index: std::collections::HashMap<u32, usize> =
        own.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let mut linked = Vec::new();
    for (i, &v) in own.iter().enumerate() {
        for &w in graph.neighbors(v) {
            if let Some(&j) = index.get(&w)
                && i < j
            {
                linked.push(dist(i, j));
            }
        }
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(seen.client));
    let mut random = Vec::with_capacity(SAMPLED_PAIRS);
    let mut same = Vec::with_capacity(SAMPLED_PAIRS);
    // Bounded: a class with one node never yields a same-class pair.
    for _ in 0..SAMPLED_PAIRS * 20 {
        if random.len() >= SAMPLED_PAIRS && same.len() >= SAMPLED_PAIRS {
            break;
        }
        let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
        if i == j {
            continue;
        }
        let d = dist(i, j);
        if random.len() < SAMPLED_PAIRS {
            random.push(d);
        }
        if same.len() < SAMPLED_PAIRS && labels[own[i] as usize] == labels[own[j] as usize] {
            same.push(d);
        }
    }
    Ok(RowGeometry {
        rows: n,
        norm_p10: quantile(&norms, 0.1),
        norm_median: quantile(&norms, 0.5),
        norm_p90: quantile(&norms, 0.9),
        clipped_share: norms.iter().filter(|&&x| x > clip).count() as f64 / n as f64,
        neighbour_pairs: linked.len(),
        neighbour_median: quantile(&linked, 0.5),
        neighbour_p90: quantile(&linked, 0.9),
        same_class_median: quantile(&same, 0.5),
        random_median: quantile(&random, 0.5),
        random_p90: quantile(&random, 0.9),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    #[test]
    fn linked_rows_are_measured_apart_from_random_ones() {
        // A path 0-1-2-…-9 whose rows sit on a line, one unit apart: linked rows are 1 apart,
        // random ones further on average; norms are 0, 1, …, 9.
        let n = 10u32;
        let mut b = graph_core::GraphBuilder::new(n as usize).unwrap();
        for u in 0..n - 1 {
            b.add_edge(u, u + 1).unwrap();
        }
        let g = b.build().unwrap();
        let labels: Vec<u32> = (0..n).map(|i| i % 2).collect();
        let seen =
            ClientObservation {
                client: 0,
                own_nodes: (0..n).collect(),
                own_features: Array2::zeros((n as usize, 1)),
                own_hidden: Array2::from_shape_fn((n as usize, 2), |(i, j)| {
                    if j == 0 { i as f32 } else { 0.0 }
                }),
                halo_nodes: vec![],
                halo_rows: Array2::zeros((0, 2)),
                clip: 4.5,
                sigma: dp_core::params::NoiseScale::new(1.0).unwrap(),
            };
        let r = row_geometry(&g, &labels, &seen, 4.5).unwrap();
        assert_eq!((r.rows, r.neighbour_pairs), (10, 9));
        assert_eq!((r.neighbour_median, r.neighbour_p90), (1.0, 1.0));
        assert!(r.random_median > 2.0, "{r:?}");
        // Same class: even distances only.
        assert_eq!(r.same_class_median % 2.0, 0.0);
        assert_eq!((r.norm_median, r.clipped_share), (4.0, 0.5));
        assert!(row_geometry(&g, &labels[..3], &seen, 1.0).is_err());
    }
}
