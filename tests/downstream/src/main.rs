//! A user's program: a private homdp embedding and an EdgeRefine release of generated graphs.

use graph_core::generate::erdos_renyi;
use homdp::{EmbeddingParams, PatternSampler, embed};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = dp_core::rng::seeded_rng(3);
    let graphs = (0..10)
        .map(|_| erdos_renyi(30, 0.2, &mut rng))
        .collect::<Result<Vec<_>, _>>()?;
    let patterns = PatternSampler::forests().sample_many(20, &mut rng);
    // ρ is typed (dp_core::params::Rho): ρ ≤ 0 or NaN is refused here, once.
    let rho = dp_core::params::Rho::new(0.5)?;
    let emb = embed(&patterns, &graphs, &EmbeddingParams::new(rho), &mut rng)?;
    println!(
        "homdp: {:?} embedding, eps = {:.4} at delta = {}",
        emb.values().shape(),
        emb.guarantee().eps(),
        emb.guarantee().delta()
    );

    let g = erdos_renyi(200, 0.05, &mut rng)?;
    // ε is typed: a bad value (≤ 0, NaN, ∞) is refused here, once.
    let eps = dp_core::params::Epsilon::new(2.0)?;
    let noisy = edgerefine::perturb(&g, eps, &mut rng)?;
    let params = edgerefine::RefineParams::new(eps, g.num_edges() as u64);
    let release = edgerefine::refine(&noisy, &params)?;
    println!(
        "edgerefine: {} true edges, {} noisy, {} released",
        g.num_edges(),
        noisy.num_edges(),
        release.graph.num_edges()
    );
    Ok(())
}
