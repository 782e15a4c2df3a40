//! The seeds protocol: one configuration of a [`Setting`] run over seeds, each finished run kept
//! so the sweeps reuse the methods table's runs, diverged runs left out and listed.

use std::collections::HashMap;

use super::Setting;
use crate::error::{FedError, Result};
use crate::train::{FedReport, FedTrainConfig, Method, simulate};

/// Finished runs by (setting, method, the whole configuration with its seed as JSON): two
/// configurations that differ in any field are two runs.
type Key = (String, &'static str, String);

/// Runs of the tables: finished runs are kept (a configuration already run is not run again),
/// and a run whose training loss became non-finite is recorded as diverged.
#[derive(Debug, Default)]
pub struct Runs {
    cache: HashMap<Key, FedReport>,
    diverged: Vec<String>,
    progress: bool,
}

fn describe(s: &Setting, c: &FedTrainConfig, m: Method) -> String {
    format!(
        "{} {} K={} σ0={} seed {}",
        s.label,
        m.name(),
        c.local_steps,
        c.sigma0,
        c.seed
    )
}

fn is_divergence(e: &FedError) -> bool {
    matches!(e, FedError::Inconsistent(m) if m.starts_with("non-finite training loss"))
}

impl Runs {
    /// No runs yet; `progress` prints one line per run to stderr.
    pub fn new(progress: bool) -> Self {
        Self {
            progress,
            ..Self::default()
        }
    }

    /// The finished runs kept.
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    /// Whether no run has finished yet.
    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }

    /// The runs that diverged (non-finite training loss), one line each
    /// (`"<setting> <method> K=<K> σ0=<σ₀> seed <seed>: diverged (…)"`), in the order run.
    pub fn diverged(&self) -> &[String] {
        &self.diverged
    }

    /// Runs `m` on `s` with `cfg` once per seed (the seed replaces `cfg.seed`), reusing finished
    /// runs. A run whose training loss becomes non-finite is left out of the result and listed
    /// in [`Runs::diverged`] (it is not kept: asked again, it runs again).
    ///
    /// # Errors
    /// Errors of [`simulate`] other than a non-finite training loss.
    pub fn run_seeds(
        &mut self,
        s: &Setting,
        cfg: &FedTrainConfig,
        m: Method,
        seeds: &[u64],
    ) -> Result<Vec<FedReport>> {
        let mut out = Vec::new();
        for &seed in seeds {
            // The tables are experiments: reproducible noise, recorded with the seed.
            let c = FedTrainConfig {
                seed,
                noise: dp_core::rng::NoiseSource::Seeded(seed),
                ..cfg.clone()
            };
            let key = (
                s.label.clone(),
                m.name(),
                serde_json::to_string(&c).map_err(|e| FedError::Inconsistent(e.to_string()))?,
            );
            if let Some(r) = self.cache.get(&key) {
                out.push(r.clone());
                continue;
            }
            match simulate(&s.task, &c, m, &mut |_| {}) {
                Ok(r) => {
                    if self.progress {
                        eprintln!(
                            "{}: F1 mean {:.3} pooled {:.3} ({:.1}s)",
                            describe(s, &c, m),
                            r.f1_mean,
                            r.f1_pooled,
                            r.seconds
                        );
                    }
                    self.cache.insert(key, r.clone());
                    out.push(r);
                }
                Err(e) if is_divergence(&e) => {
                    let what = format!(
                        "{}: diverged (non-finite training loss)",
                        describe(s, &c, m)
                    );
                    if self.progress {
                        eprintln!("{what}");
                    }
                    self.diverged.push(what);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }
}

/// The mean of `f` over `rs` (NaN for no runs).
pub(crate) fn avg(rs: &[FedReport], f: impl Fn(&FedReport) -> f64) -> f64 {
    rs.iter().map(f).sum::<f64>() / rs.len() as f64
}

/// Sample standard deviation (n − 1) of `f` over `rs` (NaN for fewer than two runs).
pub(crate) fn sd(rs: &[FedReport], f: impl Fn(&FedReport) -> f64) -> f64 {
    sample_sd(&rs.iter().map(f).collect::<Vec<_>>())
}

/// Sample standard deviation (n − 1) of `v` (NaN for fewer than two values).
pub(crate) fn sample_sd(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return f64::NAN;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}
