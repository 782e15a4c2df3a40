//! Homomorphism counting by dynamic programming over a nice tree decomposition.

use graph_core::Graph;

use super::Arith;
use crate::error::{HomdpError, Result};
use crate::pattern::{Pattern, TreeDecomposition};

/// Largest DP table the tree-decomposition counters will build: `n^|bag|` entries for the dense
/// counter ([`crate::Method::TreeDecomposition`], checked before it starts), non-zero entries for
/// the sparse one ([`crate::Method::SparseTreeDecomposition`], checked as tables grow).
pub const MAX_TABLE_ENTRIES: usize = 1 << 24;

/// One node of a nice tree decomposition; bags are sorted pattern nodes.
#[derive(Clone, Debug)]
pub(super) enum Op {
    Leaf,
    Introduce { child: usize, v: u8 },
    Forget { child: usize, v: u8 },
    Join { left: usize, right: usize },
}

#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) op: Op,
    pub(super) bag: Vec<u8>,
}

/// Converts a tree decomposition into a nice one, children before parents; the last node is
/// the root with an empty bag.
pub(super) fn nice_program(td: &TreeDecomposition, pattern: &Pattern) -> Vec<Node> {
    let children = td.children();
    let mut out = Vec::new();
    let top = build(td, pattern, &children, td.root(), &mut out);
    transition(&mut out, pattern, top, &[]);
    out
}

fn build(
    td: &TreeDecomposition,
    pattern: &Pattern,
    children: &[Vec<usize>],
    b: usize,
    out: &mut Vec<Node>,
) -> usize {
    let bag = &td.raw_bags()[b];
    let mut acc: Option<usize> = None;
    for &c in &children[b] {
        let sub = build(td, pattern, children, c, out);
        let sub = transition(out, pattern, sub, bag);
        acc = Some(match acc {
            None => sub,
            Some(left) => {
                out.push(Node {
                    op: Op::Join { left, right: sub },
                    bag: bag.clone(),
                });
                out.len() - 1
            }
        });
    }
    match acc {
        Some(a) => a,
        None => {
            out.push(Node {
                op: Op::Leaf,
                bag: Vec::new(),
            });
            let leaf = out.len() - 1;
            transition(out, pattern, leaf, bag)
        }
    }
}

/// Forgets the nodes of `out[cur].bag` missing from `target`, then introduces the new ones,
/// each time the one with the most pattern neighbours in the current bag (then in `target`,
/// then the smallest id): the sparse counter enumerates an introduced node's images among the
/// graph neighbours of a bag neighbour's image, so early neighbours keep its tables small.
fn transition(out: &mut Vec<Node>, pattern: &Pattern, mut cur: usize, target: &[u8]) -> usize {
    let from = out[cur].bag.clone();
    for &v in from.iter().filter(|v| !target.contains(v)) {
        let bag: Vec<u8> = out[cur].bag.iter().copied().filter(|&x| x != v).collect();
        out.push(Node {
            op: Op::Forget { child: cur, v },
            bag,
        });
        cur = out.len() - 1;
    }
    let mut todo: Vec<u8> = target
        .iter()
        .copied()
        .filter(|v| !from.contains(v))
        .collect();
    while !todo.is_empty() {
        let links = |v: u8, set: &[u8]| {
            set.iter()
                .filter(|&&u| pattern.has_edge(u as usize, v as usize))
                .count()
        };
        let at = (0..todo.len())
            .max_by_key(|&i| {
                let v = todo[i];
                (
                    links(v, &out[cur].bag),
                    links(v, target),
                    std::cmp::Reverse(v),
                )
            })
            .expect("todo is not empty");
        let v = todo.remove(at);
        let mut bag = out[cur].bag.clone();
        let at = bag.partition_point(|&x| x < v);
        bag.insert(at, v);
        out.push(Node {
            op: Op::Introduce { child: cur, v },
            bag,
        });
        cur = out.len() - 1;
    }
    cur
}

/// `hom(F, G)` by the nice-tree-decomposition DP: a table per node indexed by the images of the
/// bag (mixed radix `n`, digit `i` = image of the `i`-th bag node). Introduce checks the pattern
/// edges to the new node; forget sums the node out (weighted by `unit`); join multiplies.
///
/// Returns `Ok(None)` on overflow.
pub(super) fn count<A: Arith>(a: &A, pattern: &Pattern, graph: &Graph) -> Result<Option<A::W>> {
    let n = graph.num_nodes();
    let td = pattern.decomposition();
    let entries = (n as f64).powi(td.width() as i32 + 1);
    if entries > MAX_TABLE_ENTRIES as f64 {
        return Err(HomdpError::TooExpensive {
            entries,
            limit: MAX_TABLE_ENTRIES as f64,
        });
    }
    if n == 0 {
        return Ok(Some(a.zero()));
    }
    let mut adj = vec![false; n * n];
    for (u, v) in graph.edges() {
        adj[u as usize * n + v as usize] = true;
        adj[v as usize * n + u as usize] = true;
    }
    let host = Host { adj: &adj, n };
    let prog = nice_program(td, pattern);
    let mut tables: Vec<Option<Vec<A::W>>> = vec![None; prog.len()];
    for (i, node) in prog.iter().enumerate() {
        let t = match node.op {
            Op::Leaf => vec![a.one()],
            Op::Introduce { child, v } => {
                let old = tables[child].take().expect("child evaluated first");
                match introduce(a, &old, &node.bag, v, pattern, host) {
                    Some(t) => t,
                    None => return Ok(None),
                }
            }
            Op::Forget { child, v } => {
                let old = tables[child].take().expect("child evaluated first");
                let p = prog[child]
                    .bag
                    .iter()
                    .position(|&x| x == v)
                    .expect("forgotten node is in the child bag");
                match forget(a, &old, prog[child].bag.len(), p, n) {
                    Some(t) => t,
                    None => return Ok(None),
                }
            }
            Op::Join { left, right } => {
                let mut l = tables[left].take().expect("child evaluated first");
                let r = tables[right].take().expect("child evaluated first");
                for (x, y) in l.iter_mut().zip(&r) {
                    match a.mul(*x, *y) {
                        Some(z) => *x = z,
                        None => return Ok(None),
                    }
                }
                l
            }
        };
        tables[i] = Some(t);
    }
    let root = tables.pop().flatten().expect("the root table exists");
    Ok(Some(root[0]))
}

/// The host graph as the DP reads it: its `n × n` adjacency matrix, row-major.
#[derive(Clone, Copy)]
struct Host<'a> {
    adj: &'a [bool],
    n: usize,
}

/// Table for `bag` (which contains `v`) from the child table on `bag \ {v}`.
fn introduce<A: Arith>(
    a: &A,
    old: &[A::W],
    bag: &[u8],
    v: u8,
    pattern: &Pattern,
    Host { adj, n }: Host<'_>,
) -> Option<Vec<A::W>> {
    let s = bag.len();
    let p = bag
        .iter()
        .position(|&x| x == v)
        .expect("introduced node is in the bag");
    let stride_p = n.pow(p as u32);
    // Strides of the bag positions adjacent to v in the pattern.
    let nbr: Vec<usize> = (0..s)
        .filter(|&j| j != p && pattern.has_edge(bag[j] as usize, v as usize))
        .map(|j| n.pow(j as u32))
        .collect();
    let highs = n.pow((s - 1 - p) as u32);
    let mut out = vec![a.zero(); n.pow(s as u32)];
    for high in 0..highs {
        for x in 0..n {
            let base_new = (high * n + x) * stride_p;
            let base_old = high * stride_p;
            for low in 0..stride_p {
                let val = old[base_old + low];
                if val == a.zero() {
                    continue;
                }
                let idx = base_new + low;
                if nbr.iter().all(|&st| adj[(idx / st) % n * n + x]) {
                    out[idx] = val;
                }
            }
        }
    }
    // No arithmetic can overflow here: entries are copied or zeroed.
    Some(out)
}

/// Sums position `p` out of a table over a bag of size `s` (weighting by `unit`).
fn forget<A: Arith>(a: &A, old: &[A::W], s: usize, p: usize, n: usize) -> Option<Vec<A::W>> {
    let stride_p = n.pow(p as u32);
    let highs = n.pow((s - 1 - p) as u32);
    let unit = a.unit();
    let mut out = vec![a.zero(); highs * stride_p];
    for high in 0..highs {
        for x in 0..n {
            let base_old = (high * n + x) * stride_p;
            let base_new = high * stride_p;
            for low in 0..stride_p {
                let val = old[base_old + low];
                if val != a.zero() {
                    out[base_new + low] = a.add(out[base_new + low], val)?;
                }
            }
        }
    }
    for val in &mut out {
        *val = a.mul(*val, unit)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_program_visits_every_node_once_and_ends_empty() -> crate::Result<()> {
        let p = Pattern::complete(4)?.disjoint_union(&Pattern::cycle(5)?)?;
        let prog = nice_program(p.decomposition(), &p);
        assert!(prog.last().is_some_and(|r| r.bag.is_empty()));
        let forgets = prog
            .iter()
            .filter(|x| matches!(x.op, Op::Forget { .. }))
            .count();
        assert_eq!(forgets, p.num_nodes());
        assert!(
            prog.iter()
                .all(|x| x.bag.len() <= p.decomposition().width() + 1)
        );
        Ok(())
    }
}
