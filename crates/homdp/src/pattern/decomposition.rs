//! Tree decompositions of patterns, their validation, and the greedy min-degree construction.

use crate::error::{HomdpError, Result};

/// A tree decomposition of a pattern: bags of pattern nodes arranged in a rooted tree such that
/// every node and every edge lies in some bag and the bags containing any node form a subtree.
///
/// Sampled partial k-trees keep the decomposition they were grown with (width ≤ k); patterns
/// built with [`Pattern::new`](crate::Pattern::new) get one from a minimum-degree elimination
/// order.
///
/// # Example
/// ```
/// use homdp::{Pattern, TreeDecomposition};
/// // C4 with bags {0,1,2} - {0,2,3}.
/// let td = TreeDecomposition::new(vec![vec![0, 1, 2], vec![0, 2, 3]], vec![None, Some(0)])?;
/// assert_eq!(td.width(), 2);
/// let c4 = Pattern::with_decomposition(4, &[(0, 1), (1, 2), (2, 3), (3, 0)], td)?;
/// assert_eq!(c4.decomposition().num_bags(), 2);
/// // A decomposition that misses the edge {1, 3} is refused.
/// let bad = TreeDecomposition::new(vec![vec![0, 1, 2], vec![0, 2, 3]], vec![None, Some(0)])?;
/// assert!(Pattern::with_decomposition(4, &[(1, 3)], bad).is_err());
/// # Ok::<(), homdp::HomdpError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TreeDecomposition {
    bags: Vec<Vec<u8>>,
    parent: Vec<Option<usize>>,
}

fn bad<T>(reason: &'static str) -> Result<T> {
    Err(HomdpError::InvalidDecomposition { reason })
}

impl TreeDecomposition {
    /// A decomposition from bags and the parent of each bag (`None` for the single root).
    ///
    /// # Errors
    /// [`HomdpError::InvalidDecomposition`] when there is not exactly one root, a parent index is
    /// out of range, the parent links contain a cycle, a node id is ≥ 64 or a bag lists a node
    /// twice.
    pub fn new(bags: Vec<Vec<usize>>, parent: Vec<Option<usize>>) -> Result<Self> {
        if bags.is_empty() || bags.len() != parent.len() {
            return bad("needs one parent entry per bag and at least one bag");
        }
        let mut out = Vec::with_capacity(bags.len());
        for bag in bags {
            let mut b = Vec::with_capacity(bag.len());
            for v in bag {
                if v >= crate::MAX_PATTERN_NODES {
                    return bad("node id of a bag is >= 64");
                }
                b.push(v as u8);
            }
            b.sort_unstable();
            if b.windows(2).any(|w| w[0] == w[1]) {
                return bad("a bag lists a node twice");
            }
            out.push(b);
        }
        let td = Self { bags: out, parent };
        td.check_tree()?;
        Ok(td)
    }

    fn check_tree(&self) -> Result<()> {
        let k = self.bags.len();
        if self.parent.iter().filter(|p| p.is_none()).count() != 1 {
            return bad("exactly one bag must be the root");
        }
        if self.parent.iter().flatten().any(|&p| p >= k) {
            return bad("parent index out of range");
        }
        // Every bag must reach the root within k steps.
        for start in 0..k {
            let (mut b, mut steps) = (start, 0);
            while let Some(p) = self.parent[b] {
                b = p;
                steps += 1;
                if steps > k {
                    return bad("parent links contain a cycle");
                }
            }
        }
        Ok(())
    }

    /// Checks that this is a tree decomposition of the graph with adjacency masks `adj`.
    pub(crate) fn check(&self, adj: &[u64]) -> Result<()> {
        let n = adj.len();
        if self.bags.iter().flatten().any(|&v| v as usize >= n) {
            return bad("a bag holds a node outside the pattern");
        }
        let masks: Vec<u64> = self.bags.iter().map(|b| mask(b)).collect();
        for (v, &row) in adj.iter().enumerate() {
            let bit = 1u64 << v;
            let holders: Vec<usize> = (0..masks.len()).filter(|&b| masks[b] & bit != 0).collect();
            if holders.is_empty() {
                return bad("a pattern node is in no bag");
            }
            // Bags holding v form a subtree iff exactly one of them has a parent without v.
            let tops = holders
                .iter()
                .filter(|&&b| self.parent[b].is_none_or(|p| masks[p] & bit == 0))
                .count();
            if tops != 1 {
                return bad("the bags holding a node do not form a connected subtree");
            }
            let mut m = row & !((bit << 1).wrapping_sub(1));
            while m != 0 {
                let u = m.trailing_zeros();
                m &= m - 1;
                let both = bit | 1u64 << u;
                if !masks.iter().any(|&b| b & both == both) {
                    return bad("a pattern edge is in no bag");
                }
            }
        }
        Ok(())
    }

    /// A decomposition from a greedy minimum-degree elimination order on `adj`.
    pub(crate) fn min_degree(adj: &[u64]) -> Self {
        let n = adj.len();
        let mut g = adj.to_vec();
        let mut alive: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut pos = vec![0usize; n];
        let mut order = Vec::with_capacity(n);
        let mut nbrs = Vec::with_capacity(n);
        for step in 0..n {
            let mut best = usize::MAX;
            let mut v = 0;
            let mut m = alive;
            while m != 0 {
                let u = m.trailing_zeros() as usize;
                m &= m - 1;
                let d = (g[u] & alive).count_ones() as usize;
                if d < best {
                    best = d;
                    v = u;
                }
            }
            let nb = g[v] & alive & !(1u64 << v);
            let mut m = nb;
            while m != 0 {
                let u = m.trailing_zeros() as usize;
                m &= m - 1;
                g[u] |= nb & !(1u64 << u);
            }
            alive &= !(1u64 << v);
            pos[v] = step;
            order.push(v);
            nbrs.push(nb);
        }
        let mut bags = Vec::with_capacity(n);
        let mut parent = Vec::with_capacity(n);
        for step in 0..n {
            let (v, nb) = (order[step], nbrs[step]);
            let mut bag = vec![v as u8];
            let mut m = nb;
            let mut next = usize::MAX;
            while m != 0 {
                let u = m.trailing_zeros() as usize;
                m &= m - 1;
                bag.push(u as u8);
                next = next.min(pos[u]);
            }
            bag.sort_unstable();
            bags.push(bag);
            parent.push(if next != usize::MAX {
                Some(next)
            } else if step + 1 < n {
                Some(n - 1)
            } else {
                None
            });
        }
        Self { bags, parent }
    }

    /// Internal constructor for decompositions built correctly by the samplers.
    pub(crate) fn from_raw(bags: Vec<Vec<u8>>, parent: Vec<Option<usize>>) -> Self {
        let bags = bags
            .into_iter()
            .map(|mut b| {
                b.sort_unstable();
                b
            })
            .collect();
        Self { bags, parent }
    }

    /// Width: largest bag size minus one.
    pub fn width(&self) -> usize {
        self.bags
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0)
            .saturating_sub(1)
    }

    /// Number of bags.
    pub fn num_bags(&self) -> usize {
        self.bags.len()
    }

    /// Bag `i`, ascending.
    ///
    /// # Panics
    /// When `i >= num_bags()`.
    pub fn bag(&self, i: usize) -> Vec<usize> {
        self.bags[i].iter().map(|&v| v as usize).collect()
    }

    /// Parent of bag `i` (`None` for the root).
    ///
    /// # Panics
    /// When `i >= num_bags()`.
    pub(crate) fn parent(&self, i: usize) -> Option<usize> {
        self.parent[i]
    }

    pub(crate) fn raw_bags(&self) -> &[Vec<u8>] {
        &self.bags
    }

    pub(crate) fn root(&self) -> usize {
        self.parent
            .iter()
            .position(Option::is_none)
            .expect("a validated decomposition has a root")
    }

    pub(crate) fn children(&self) -> Vec<Vec<usize>> {
        let mut ch = vec![Vec::new(); self.bags.len()];
        for (b, p) in self.parent.iter().enumerate() {
            if let Some(p) = p {
                ch[*p].push(b);
            }
        }
        ch
    }
}

fn mask(bag: &[u8]) -> u64 {
    bag.iter().fold(0, |m, &v| m | 1u64 << v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pattern;

    #[test]
    fn structural_errors() {
        assert!(TreeDecomposition::new(vec![vec![0]], vec![Some(0)]).is_err());
        assert!(TreeDecomposition::new(vec![vec![0], vec![1]], vec![None, None]).is_err());
        assert!(TreeDecomposition::new(vec![vec![0], vec![1]], vec![None, Some(5)]).is_err());
        assert!(
            TreeDecomposition::new(
                vec![vec![0], vec![1], vec![2]],
                vec![None, Some(2), Some(1)]
            )
            .is_err()
        );
        assert!(TreeDecomposition::new(vec![vec![0, 0]], vec![None]).is_err());
        assert!(TreeDecomposition::new(vec![vec![64]], vec![None]).is_err());
    }

    #[test]
    fn running_intersection_is_checked() -> Result<()> {
        // Node 0 in bags 0 and 2, but not in bag 1 between them.
        let td = TreeDecomposition::new(
            vec![vec![0, 1], vec![1, 2], vec![2, 0]],
            vec![None, Some(0), Some(1)],
        )?;
        assert!(matches!(
            Pattern::with_decomposition(3, &[(0, 1), (1, 2), (0, 2)], td),
            Err(HomdpError::InvalidDecomposition { .. })
        ));
        Ok(())
    }

    #[test]
    fn min_degree_decompositions_are_valid() -> Result<()> {
        for p in [
            Pattern::complete(5)?,
            Pattern::cycle(9)?,
            Pattern::path(64)?,
            Pattern::new(6, &[(0, 1), (2, 3), (3, 4), (4, 2)])?,
        ] {
            p.decomposition().check(p.adjacency())?;
        }
        assert_eq!(Pattern::complete(5)?.decomposition().width(), 4);
        assert_eq!(Pattern::path(64)?.decomposition().width(), 1);
        Ok(())
    }
}
