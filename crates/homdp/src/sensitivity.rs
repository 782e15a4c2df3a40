//! Sensitivity of homomorphism densities to one edge flip, and smooth sensitivity.
//!
//! Neighbouring graphs have the same node count `n` and differ in one edge. With a public
//! degree bound Δ (both graphs have maximum degree ≤ Δ), a connected pattern `F_i` with `m_i`
//! nodes and `e_i` edges changes its count by at most `2·e_i·Δ^(m_i−2)` (the flipped edge is the
//! image of one of `e_i` edges in one of 2 orientations; the rest is fixed along a spanning tree
//! with ≤ Δ choices per node), and `t(F_j, G) ≤ (Δ/n)^(m_j−1)`. Telescoping over the
//! `c` components of `F` (isolated nodes included) gives the component-aware bound
//! `|t(F,G) − t(F,G')| ≤ 2·e(F)/n² · (Δ/n)^(m−c−1)`.

use dp_core::float::inflate_ops;
use graph_core::{Graph, GraphBuilder};

use crate::error::{HomdpError, Result, invalid};
use crate::pattern::Pattern;

graph_core::choice_enum! {
    /// Which upper bound on `|t(F,G) − t(F,G')|` over neighbouring graphs to use. Its names
    /// (`component-aware`, `paper`, `counting-lemma`; `components` still accepted) are those of
    /// `dpgraph homdp embed --bound`, of Python's `homdp.embed(bound=…)` and of serde.
    pub enum SensitivityBound: "sensitivity bound" default ComponentAware {
        /// `2·e(F)/n² · (Δ/n)^(m−c−1)`, `c` = number of components of `F` (isolated vertices
        /// count). Valid for every pattern; equals the paper's bound for connected patterns.
        ComponentAware => "component-aware" | "components",
        /// The paper's Theorem 4.5 as printed, `2·e(F)/n² · (Δ/n)^(m−2)`. Valid only for
        /// connected `F`; the reference code applies it to forests, where it under-estimates the
        /// sensitivity by `(Δ/n)^(c−1)` (e.g. `K2+K1` on `P5`, Δ = 2: true change 0.08, this
        /// bound 0.032). Offered only to reproduce the paper's numbers.
        PaperTheorem45 => "paper",
        /// The counting lemma (global sensitivity without a degree bound): `2·e(F)/n²`.
        CountingLemma => "counting-lemma",
    }
}

/// Upper bound on the change of `t(F, ·)` under one edge flip among graphs on `n` nodes with
/// maximum degree ≤ `degree_bound` (`None`: no bound, Δ = n).
///
/// The result is rounded up (dp-core's [`inflate_ops`] over the formula's roundings) so that it
/// stays an upper bound after floating-point evaluation. A Δ above `n` is treated as `n` (degrees
/// never exceed `n − 1`).
///
/// # Errors
/// [`HomdpError::EmptyGraph`] when `n = 0`.
///
/// # Privacy
/// Component-aware bounded-degree bound (module docs); the paper's Theorem 4.5 only under
/// [`SensitivityBound::PaperTheorem45`]; counting lemma (Lovász 2012, Lemma 10.23).
///
/// # Example
/// ```
/// use homdp::{density_sensitivity, Pattern, SensitivityBound};
/// let k2_k1 = Pattern::new(3, &[(0, 1)])?;
/// let ours = density_sensitivity(&k2_k1, 5, Some(2), SensitivityBound::ComponentAware)?;
/// let paper = density_sensitivity(&k2_k1, 5, Some(2), SensitivityBound::PaperTheorem45)?;
/// assert!((ours - 0.08).abs() < 1e-15 && ours >= 0.08);
/// assert!((paper - 0.032).abs() < 1e-15);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn density_sensitivity(
    pattern: &Pattern,
    n: usize,
    degree_bound: Option<usize>,
    bound: SensitivityBound,
) -> Result<f64> {
    if n == 0 {
        return Err(HomdpError::EmptyGraph { index: 0 });
    }
    let e = pattern.num_edges();
    if e == 0 {
        return Ok(0.0); // t(F, G) = 1 for every G.
    }
    let (m, c) = (pattern.num_nodes(), pattern.num_components());
    let nf = n as f64;
    let ratio = degree_bound.unwrap_or(n).min(n) as f64 / nf;
    let global = 2.0 * e as f64 / (nf * nf);
    let exponent = match bound {
        SensitivityBound::ComponentAware => m - c - 1,
        SensitivityBound::PaperTheorem45 => m - 2,
        SensitivityBound::CountingLemma => 0,
    };
    let value = global * ratio.powi(exponent as i32);
    // powi and the products each round by ≤ 1/2 ulp per multiplication.
    Ok(inflate_ops(value, exponent + 4))
}

/// The β-smooth upper bound `S = max_k e^(−βk) · LS_k` (Nissim–Raskhodnikova–Smith 2007) from
/// upper bounds `local[k]` on the local sensitivity of graphs at edge distance `k` from `G`,
/// and `tail ≥ LS_k` for all `k ≥ local.len()`: dp-core's
/// [`dp_core::calibrate::smooth_sensitivity`] with homdp's error type.
///
/// # Errors
/// [`HomdpError::InvalidParam`] when β is not finite and > 0, or a local value or `tail` is
/// NaN, infinite or negative.
///
/// # Privacy
/// NRS07, Def. 2.1 / Lemma 2.3: `S(G) ≤ e^β S(G')` for neighbours, as the paper's Theorem 4.6
/// requires. For the bounds of [`density_sensitivity`] the local bound does not depend on the
/// graph (only on public `n` and Δ), so `S = LS_0`, as in the reference code.
///
/// # Example
/// ```
/// let s = homdp::smooth_sensitivity(0.5, &[0.1, 0.3], 0.3)?;
/// assert!((s - 0.3 * (-0.5f64).exp()).abs() < 1e-15);
/// assert_eq!(homdp::smooth_sensitivity(0.002, &[0.08], 0.08)?, 0.08);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn smooth_sensitivity(beta: f64, local: &[f64], tail: f64) -> Result<f64> {
    dp_core::calibrate::smooth_sensitivity(beta, local, tail).or_else(|e| match e {
        dp_core::Error::InvalidParam {
            name,
            value,
            reason,
        } => invalid(name, value, reason),
        other => Err(other.into()),
    })
}

/// Checks that every graph respects the public degree bound Δ.
///
/// # Errors
/// [`HomdpError::DegreeBoundExceeded`] for the first graph whose maximum degree exceeds Δ.
pub fn check_degree_bound(graphs: &[Graph], degree_bound: usize) -> Result<()> {
    for (index, g) in graphs.iter().enumerate() {
        let max_degree = g.max_degree();
        if max_degree > degree_bound {
            return Err(HomdpError::DegreeBoundExceeded {
                index,
                bound: degree_bound,
                max_degree,
            });
        }
    }
    Ok(())
}

/// The graph with edges removed until every degree is ≤ Δ: edges are scanned in lexicographic
/// order and kept while both endpoints have room. Graphs that already respect Δ are returned
/// unchanged.
///
/// # Errors
/// Only graph-core errors from rebuilding (none for valid input).
///
/// # Privacy
/// Clipping is not 1-stable: one flipped input edge can change several clipped edges, so the
/// bounded-degree guarantee covers the clipped graphs, not the raw inputs. Use it only when
/// asked (e.g. to reproduce the paper on data that violates its public Δ).
///
/// # Complexity
/// O(n + m log m).
///
/// # Example
/// ```
/// use graph_core::Graph;
/// let star = Graph::from_edges(5, &[(0, 1), (0, 2), (0, 3), (0, 4)])?;
/// let clipped = homdp::clip_to_degree_bound(&star, 2)?;
/// assert_eq!(clipped.max_degree(), 2);
/// assert_eq!(clipped.num_edges(), 2);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn clip_to_degree_bound(graph: &Graph, degree_bound: usize) -> Result<Graph> {
    if graph.max_degree() <= degree_bound {
        return Ok(graph.clone());
    }
    let n = graph.num_nodes();
    let mut room = vec![degree_bound; n];
    let mut b = GraphBuilder::new(n)?;
    for (u, v) in graph.edges() {
        if room[u as usize] > 0 && room[v as usize] > 0 {
            room[u as usize] -= 1;
            room[v as usize] -= 1;
            b.add_edge(u, v)?;
        }
    }
    Ok(b.build()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_and_errors() -> Result<()> {
        let k2_k1 = Pattern::new(3, &[(0, 1)])?;
        assert!(matches!(
            density_sensitivity(&k2_k1, 0, None, SensitivityBound::ComponentAware),
            Err(HomdpError::EmptyGraph { .. })
        ));
        // Without a degree bound every bound is the counting lemma for this pattern.
        let cl = density_sensitivity(&k2_k1, 5, None, SensitivityBound::CountingLemma)?;
        assert!((cl - 0.08).abs() < 1e-15);
        // Connected patterns: component-aware = paper.
        let p4 = Pattern::path(4)?;
        let a = density_sensitivity(&p4, 10, Some(3), SensitivityBound::ComponentAware)?;
        let b = density_sensitivity(&p4, 10, Some(3), SensitivityBound::PaperTheorem45)?;
        assert_eq!(a, b);
        assert!((a - 2.0 * 3.0 / 100.0 * 0.09).abs() < 1e-15 && a >= 0.0054);
        // Edgeless patterns have density 1 and sensitivity 0.
        let k1 = Pattern::new(2, &[])?;
        assert_eq!(
            density_sensitivity(&k1, 4, Some(1), SensitivityBound::PaperTheorem45)?,
            0.0
        );
        // Δ above n acts as n.
        assert_eq!(
            density_sensitivity(&p4, 10, Some(100), SensitivityBound::ComponentAware)?,
            density_sensitivity(&p4, 10, None, SensitivityBound::ComponentAware)?
        );
        Ok(())
    }

    #[test]
    fn sensitivities_keep_their_bits() -> Result<()> {
        // Pinned before the rounding moved to dp-core: the experiments' CSVs depend on these.
        let k2_k1 = Pattern::new(3, &[(0, 1)])?;
        let s = density_sensitivity(&k2_k1, 5, Some(2), SensitivityBound::ComponentAware)?;
        assert_eq!(s.to_bits(), 0x3fb4_7ae1_47ae_1481);
        let p4 = Pattern::path(4)?;
        let s = density_sensitivity(&p4, 10, Some(3), SensitivityBound::PaperTheorem45)?;
        assert_eq!(s.to_bits(), 0x3f76_1e4f_765f_d8b6);
        // A zero bound (Δ = 0) is inflated to the smallest positive double, as before.
        let s = density_sensitivity(&p4, 10, Some(0), SensitivityBound::ComponentAware)?;
        assert_eq!(s, f64::from_bits(1));
        Ok(())
    }

    #[test]
    fn degree_bound_checks_and_clipping() -> Result<()> {
        let g = Graph::from_edges(4, &[(0, 1), (0, 2), (0, 3), (1, 2)])?;
        assert!(check_degree_bound(std::slice::from_ref(&g), 3).is_ok());
        assert!(matches!(
            check_degree_bound(&[Graph::empty(2)?, g.clone()], 2),
            Err(HomdpError::DegreeBoundExceeded {
                index: 1,
                bound: 2,
                max_degree: 3
            })
        ));
        let c = clip_to_degree_bound(&g, 2)?;
        assert!(c.max_degree() <= 2);
        assert_eq!(c.edges().collect::<Vec<_>>(), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(clip_to_degree_bound(&g, 3)?, g);
        for (r, name) in [
            (smooth_sensitivity(0.0, &[1.0], 1.0), "beta"),
            (smooth_sensitivity(0.1, &[f64::NAN], 1.0), "local"),
            (smooth_sensitivity(0.1, &[1.0], -1.0), "tail"),
        ] {
            assert!(
                matches!(r, Err(HomdpError::InvalidParam { name: n, .. }) if n == name),
                "{name}"
            );
        }
        Ok(())
    }
}
