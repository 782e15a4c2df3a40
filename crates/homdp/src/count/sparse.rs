//! Homomorphism counting over a nice tree decomposition with sparse tables.
//!
//! The dense counter ([`super::treewidth`]) stores all `n^|bag|` entries of every table. On a
//! sparse graph almost all of them are zero: the images of two pattern-adjacent bag nodes must be
//! graph-adjacent, so a bag whose nodes span a connected pattern subgraph has at most
//! `n·Δ^(|bag|−1)` non-zero entries (Δ the graph's maximum degree) — for a treewidth-3 pattern
//! on a 25-atom molecule about 25·4³ = 1,600 instead of 25⁴ = 390,625. This counter keeps only
//! the non-zero entries, sorted by the dense counter's mixed-radix index, and
//! - introduces a node by enumerating its image among the graph neighbours of the image of one of
//!   its pattern neighbours already in the bag (all `n` nodes when it has none there),
//! - forgets a node by sorting the shortened keys (stably) and summing equal ones,
//! - joins by intersecting the two sorted key lists,
//!
//! and counts every connected component of the pattern on its own, with the decomposition
//! restricted to the component (`hom(F₁ + F₂, G) = hom(F₁, G)·hom(F₂, G)`), so that bags never
//! pair images of unrelated components.
//!
//! For a connected pattern the non-zero terms are added in the dense counter's order (a forget
//! sums over the forgotten image in ascending order), so both counters give bit-identical
//! results in either arithmetic.

use graph_core::Graph;

use super::Arith;
use super::treewidth::{MAX_TABLE_ENTRIES, Op, nice_program};
use crate::error::{HomdpError, Result};
use crate::pattern::{Pattern, TreeDecomposition};

/// A sparse table: `(mixed-radix key, value)` with non-zero values, keys strictly ascending.
type Table<W> = Vec<(u64, W)>;

/// `hom(F, G)` (or the scaled density) by the sparse nice-tree-decomposition DP, component by
/// component. Returns `Ok(None)` on overflow.
///
/// # Errors
/// [`HomdpError::TooExpensive`] when a table would hold more than [`MAX_TABLE_ENTRIES`] non-zero
/// entries, or when `n^(w+1)` keys (width `w` of the pattern's decomposition) do not fit a `u64`.
pub(super) fn count<A: Arith>(a: &A, pattern: &Pattern, graph: &Graph) -> Result<Option<A::W>> {
    let n = graph.num_nodes();
    let td = pattern.decomposition();
    let keys = (n as f64).powi(td.width() as i32 + 1);
    if keys >= u64::MAX as f64 {
        return Err(HomdpError::TooExpensive {
            entries: keys,
            limit: u64::MAX as f64,
        });
    }
    if n == 0 {
        return Ok(Some(a.zero()));
    }
    if pattern.num_components() == 1 {
        return component(a, &nice_program(td, pattern), pattern, graph);
    }
    let labels = pattern.component_labels();
    let parent: Vec<Option<usize>> = (0..td.num_bags()).map(|b| td.parent(b)).collect();
    let mut result = a.one();
    for c in 0..pattern.num_components() {
        // A tree decomposition restricted to the nodes of one component is a tree
        // decomposition of that component (bags may become empty).
        let bags: Vec<Vec<u8>> = td
            .raw_bags()
            .iter()
            .map(|b| {
                b.iter()
                    .copied()
                    .filter(|&v| labels[v as usize] == c)
                    .collect()
            })
            .collect();
        let sub = TreeDecomposition::from_raw(bags, parent.clone());
        let Some(h) = component(a, &nice_program(&sub, pattern), pattern, graph)? else {
            return Ok(None);
        };
        if h == a.zero() {
            return Ok(Some(a.zero()));
        }
        let Some(r) = a.mul(result, h) else {
            return Ok(None);
        };
        result = r;
    }
    Ok(Some(result))
}

/// Runs one nice program (whose bags hold the nodes of one component, or of all of them).
fn component<A: Arith>(
    a: &A,
    prog: &[super::treewidth::Node],
    pattern: &Pattern,
    graph: &Graph,
) -> Result<Option<A::W>> {
    let n = graph.num_nodes() as u64;
    let mut tables: Vec<Option<Table<A::W>>> = vec![None; prog.len()];
    for (i, node) in prog.iter().enumerate() {
        let t = match node.op {
            Op::Leaf => vec![(0, a.one())],
            Op::Introduce { child, v } => {
                let old = tables[child].take().expect("child evaluated first");
                introduce(&old, &node.bag, v, pattern, graph)?
            }
            Op::Forget { child, v } => {
                let old = tables[child].take().expect("child evaluated first");
                let p = prog[child]
                    .bag
                    .iter()
                    .position(|&x| x == v)
                    .expect("forgotten node is in the child bag");
                match forget(a, old, p, n) {
                    Some(t) => t,
                    None => return Ok(None),
                }
            }
            Op::Join { left, right } => {
                let l = tables[left].take().expect("child evaluated first");
                let r = tables[right].take().expect("child evaluated first");
                match join(a, &l, &r) {
                    Some(t) => t,
                    None => return Ok(None),
                }
            }
        };
        if t.is_empty() {
            // No partial homomorphism of this subtree: the whole count is zero.
            return Ok(Some(a.zero()));
        }
        tables[i] = Some(t);
    }
    let root = tables.pop().flatten().expect("the root table exists");
    debug_assert!(root.len() == 1 && root[0].0 == 0, "the root bag is empty");
    Ok(Some(root[0].1))
}

/// Table for `bag` (which contains `v`) from the child table on `bag \ {v}`: every entry is
/// extended by each image `x` of `v` adjacent to the images of `v`'s pattern neighbours in the
/// bag.
fn introduce<W: Copy>(
    old: &Table<W>,
    bag: &[u8],
    v: u8,
    pattern: &Pattern,
    graph: &Graph,
) -> Result<Table<W>> {
    let n = graph.num_nodes() as u64;
    let p = bag
        .iter()
        .position(|&x| x == v)
        .expect("introduced node is in the bag");
    let stride_p = n.pow(p as u32);
    // Strides, in the child's keys, of the bag nodes adjacent to v in the pattern.
    let nbr: Vec<u64> = (0..bag.len())
        .filter(|&j| j != p && pattern.has_edge(bag[j] as usize, v as usize))
        .map(|j| n.pow(if j < p { j } else { j - 1 } as u32))
        .collect();
    let mut out: Table<W> = Vec::with_capacity(old.len());
    let mut images: Vec<u32> = Vec::with_capacity(nbr.len());
    for &(key, val) in old {
        let (low, high) = (key % stride_p, key / stride_p);
        let base = low + high * stride_p * n;
        images.clear();
        images.extend(nbr.iter().map(|&st| ((key / st) % n) as u32));
        // The neighbour image with the fewest graph neighbours drives the enumeration.
        match images
            .iter()
            .enumerate()
            .min_by_key(|&(_, &u)| graph.degree(u))
        {
            None => out.extend((0..n).map(|x| (base + x * stride_p, val))),
            Some((pivot, &u)) => {
                for &x in graph.neighbors(u) {
                    if images
                        .iter()
                        .enumerate()
                        .all(|(j, &w)| j == pivot || graph.has_edge(w, x))
                    {
                        out.push((base + u64::from(x) * stride_p, val));
                    }
                }
            }
        }
        if out.len() > MAX_TABLE_ENTRIES {
            return Err(HomdpError::TooExpensive {
                entries: out.len() as f64,
                limit: MAX_TABLE_ENTRIES as f64,
            });
        }
    }
    // Keys are distinct (one per child entry and image); restore the ascending order.
    out.sort_unstable_by_key(|e| e.0);
    Ok(out)
}

/// Sums digit `p` out of `old` (weighting by `unit`). Returns `None` on overflow.
fn forget<A: Arith>(a: &A, old: Table<A::W>, p: usize, n: u64) -> Option<Table<A::W>> {
    let stride_p = n.pow(p as u32);
    let mut keyed: Table<A::W> = old
        .into_iter()
        .map(|(key, val)| (key % stride_p + key / (stride_p * n) * stride_p, val))
        .collect();
    // Stable: the terms of one output entry stay in ascending order of the forgotten image, the
    // dense counter's summation order.
    keyed.sort_by_key(|e| e.0);
    let unit = a.unit();
    let mut out: Table<A::W> = Vec::with_capacity(keyed.len());
    let mut i = 0;
    while i < keyed.len() {
        let key = keyed[i].0;
        let mut s = keyed[i].1;
        i += 1;
        while i < keyed.len() && keyed[i].0 == key {
            s = a.add(s, keyed[i].1)?;
            i += 1;
        }
        out.push((key, a.mul(s, unit)?));
    }
    Some(out)
}

/// Entry-wise product of two tables on the same bag (keys present in both). Returns `None` on
/// overflow.
fn join<A: Arith>(a: &A, l: &Table<A::W>, r: &Table<A::W>) -> Option<Table<A::W>> {
    let mut out = Vec::with_capacity(l.len().min(r.len()));
    let (mut i, mut j) = (0, 0);
    while i < l.len() && j < r.len() {
        match l[i].0.cmp(&r[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let z = a.mul(l[i].1, r[j].1)?;
                if z != a.zero() {
                    out.push((l[i].0, z));
                }
                i += 1;
                j += 1;
            }
        }
    }
    Some(out)
}
