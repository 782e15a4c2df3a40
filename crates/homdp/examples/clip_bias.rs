//! What degree clipping does to the densities, beside the noise it is released with: for each
//! installed dataset and degree bound Δ, the graphs [`homdp::clip_stable`] changes, the mean
//! ℓ₂ change of their 50 densities ‖t(F, clip(G)) − t(F, G)‖₂ (the bias), and the mean expected
//! noise norm σ_G·√d of the private-Δ release at that Δ (ρ = 0.009, component-aware bound, 3×
//! the sensitivity for graphs on more than Δ + 1 nodes):
//! `DPGRAPH_DATA=… cargo run --release -p homdp --example clip_bias -- HIV BACE 2,3,4,5,6`.
//! Patterns: the main table's pattern law of the dataset, one draw (seed 42).

use dp_core::calibrate::gaussian_sigma_zcdp;
use graph_core::registry::{DATA_ENV, Dataset, Registry, data_dir_or_default};
use homdp::paper::{PatternSet, setting};
use homdp::{SensitivityBound, clip_stable, density_matrix, density_sensitivity};
use rand::SeedableRng;

const RHO: f64 = 0.009;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((bounds, names)) = args.split_last() else {
        return Err("usage: clip_bias DATASET... DELTA[,DELTA...]".into());
    };
    let bounds: Vec<usize> = bounds
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let dir = data_dir_or_default(std::env::var_os(DATA_ENV));
    println!("dataset\tdelta\tgraphs\tclipped\tbias_clipped\tbias_all\tnoise_all\tbias/noise");
    for name in names {
        let spec = Registry::embedded().get(name)?;
        let Dataset::Graphs(ds) = spec.load(&dir)? else {
            return Err(format!("{name}: not a graph collection").into());
        };
        let s = setting(name).ok_or_else(|| format!("{name}: no homdp setting"))?;
        let pats = PatternSet::of(&s).draw(&mut rand_chacha::ChaCha8Rng::seed_from_u64(42))?;
        let graphs = ds.graphs();
        let clean = density_matrix(&pats, graphs)?;
        for &delta in &bounds {
            let clipped: Vec<usize> = (0..graphs.len())
                .filter(|&i| graphs[i].max_degree() > delta)
                .collect();
            let cg: Vec<_> = clipped
                .iter()
                .map(|&i| clip_stable(&graphs[i], delta))
                .collect::<Result<_, _>>()?;
            let t = density_matrix(&pats, &cg)?;
            let bias: f64 = clipped
                .iter()
                .enumerate()
                .map(|(r, &i)| {
                    let d = &t.row(r) - &clean.row(i);
                    d.dot(&d).sqrt()
                })
                .sum();
            let mut noise = 0.0;
            for g in graphs {
                let n = g.num_nodes();
                let sq: f64 = pats
                    .iter()
                    .map(|p| {
                        density_sensitivity(p, n, Some(delta), SensitivityBound::ComponentAware)
                    })
                    .collect::<Result<Vec<_>, _>>()?
                    .iter()
                    .map(|s| s * s)
                    .sum();
                let factor = if n > delta + 1 { 3.0 } else { 1.0 };
                if sq > 0.0 {
                    noise +=
                        gaussian_sigma_zcdp(factor * sq.sqrt(), RHO)? * (pats.len() as f64).sqrt();
                }
            }
            let bias = bias + 0.0; // an empty sum is -0.0
            let all = graphs.len() as f64;
            println!(
                "{name}\t{delta}\t{}\t{}\t{:.3e}\t{:.3e}\t{:.3e}\t{:.4}",
                graphs.len(),
                clipped.len(),
                bias / clipped.len().max(1) as f64,
                bias / all,
                noise / all,
                bias / noise.max(f64::MIN_POSITIVE)
            );
        }
    }
    Ok(())
}
