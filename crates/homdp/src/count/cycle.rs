//! Cycle counts `hom(C_k, G) = trace(A^k)` by walks from every start node.

use graph_core::Graph;

use super::Arith;

/// `trace(A^k)` (or `trace((A/n)^k)` in scaled arithmetic) as `Σ_s ⟨A^h e_s, A^(k−h) e_s⟩`
/// with `h = ⌊k/2⌋`. Returns `None` on overflow.
pub(super) fn count<A: Arith>(a: &A, k: usize, graph: &Graph) -> Option<A::W> {
    let n = graph.num_nodes();
    let (offsets, targets) = graph.csr();
    let unit = a.unit();
    let half = k / 2;
    let mut cur = vec![a.zero(); n];
    let mut next = vec![a.zero(); n];
    let mut per_start = Vec::with_capacity(n);
    let step = |from: &[A::W], x: usize| -> Option<A::W> {
        let mut s = a.zero();
        for &y in &targets[offsets[x]..offsets[x + 1]] {
            s = a.add(s, from[y as usize])?;
        }
        a.mul(s, unit)
    };
    for s in 0..n {
        cur.fill(a.zero());
        cur[s] = a.one();
        for _ in 0..half {
            for (x, slot) in next.iter_mut().enumerate() {
                *slot = step(&cur, x)?;
            }
            std::mem::swap(&mut cur, &mut next);
        }
        let mut closed = a.zero();
        for x in 0..n {
            if cur[x] == a.zero() {
                continue;
            }
            let other = if k % 2 == 1 { step(&cur, x)? } else { cur[x] };
            closed = a.add(closed, a.mul(cur[x], other)?)?;
        }
        per_start.push(closed);
    }
    // Pairwise: a running sum over all starts loses ~n·ε relative accuracy in f64.
    super::pairwise_sum(a, &per_start)
}
