//! Per-component tree DP for forest patterns.

use graph_core::Graph;

use super::Arith;
use crate::pattern::Pattern;

/// `hom(F, G)` (or its scaled density) for a forest `F`: for every pattern node `v` and graph
/// node `x`, `f_v(x)` = number of homomorphisms of the subtree below `v` with `v ↦ x`;
/// a child `c` contributes `Σ_{y ∈ N(x)} f_c(y)`, a root `Σ_x f_r(x)`.
///
/// Returns `None` on overflow. The pattern must be a forest.
pub(super) fn count<A: Arith>(a: &A, pattern: &Pattern, graph: &Graph) -> Option<A::W> {
    let n = graph.num_nodes();
    let order = pattern.bfs_order();
    let m = order.len();
    let (offsets, targets) = graph.csr();
    let unit = a.unit();
    let mut f = vec![a.one(); m * n];
    let mut result = a.one();
    for idx in (0..m).rev() {
        let (_, parent) = order[idx];
        let (below, mine) = f.split_at_mut(idx * n);
        let mine = &mine[..n];
        if parent == u8::MAX {
            let total = super::pairwise_sum(a, mine)?;
            result = a.mul(result, a.mul(total, unit)?)?;
        } else {
            let dst = &mut below[parent as usize * n..parent as usize * n + n];
            for x in 0..n {
                if dst[x] == a.zero() {
                    continue;
                }
                let mut s = a.zero();
                for &y in &targets[offsets[x]..offsets[x + 1]] {
                    s = a.add(s, mine[y as usize])?;
                }
                dst[x] = a.mul(dst[x], a.mul(s, unit)?)?;
            }
        }
    }
    Some(result)
}
