//! Brute-force enumeration of all maps `V(F) → V(G)`: the test oracle.

use graph_core::Graph;

use crate::error::{HomdpError, Result};
use crate::pattern::Pattern;

/// Most maps brute force will enumerate.
const MAX_MAPS: f64 = 4_294_967_296.0;

/// Counts maps `φ: V(F) → V(G)` with `φ(u)φ(v) ∈ E(G)` for every edge `uv` of `F`, by
/// enumerating all `n^m` maps in odometer order.
pub(super) fn count(pattern: &Pattern, graph: &Graph) -> Result<u128> {
    let (n, m) = (graph.num_nodes(), pattern.num_nodes());
    let maps = (n as f64).powi(m as i32);
    if maps > MAX_MAPS {
        return Err(HomdpError::TooExpensive {
            entries: maps,
            limit: MAX_MAPS,
        });
    }
    if n == 0 {
        return Ok(0);
    }
    let edges: Vec<(usize, usize)> = pattern.edges().collect();
    let mut phi = vec![0u32; m];
    let mut total: u128 = 0;
    loop {
        if edges.iter().all(|&(u, v)| graph.has_edge(phi[u], phi[v])) {
            total += 1;
        }
        let mut i = 0;
        loop {
            if i == m {
                return Ok(total);
            }
            phi[i] += 1;
            if (phi[i] as usize) < n {
                break;
            }
            phi[i] = 0;
            i += 1;
        }
    }
}
