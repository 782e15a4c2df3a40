//! The homdp GIN baselines' training cache on disk ([`GinFiles`]): one JSON file per finished
//! training under `<out>/homdp/cache/gin/<dataset>/<baseline>-rep<r>.json`, so that a `--full`
//! run interrupted during HIV's hours-long trainings resumes (`--resume`) with the trainings it
//! has not finished, as the edgerefine chunks do; `--shard` splits each dataset's trainings
//! between processes and `--budget-min` starts none after its time.

use std::path::PathBuf;

use ::homdp::paper::{GinCache, GinKey, GinTraining};
use serde::{Deserialize, Serialize};

use super::runner::{Cell, Decision, Runner, Source};

/// One cache file: the training with the fingerprint of the plan that made it.
#[derive(Serialize, Deserialize)]
struct Entry {
    fingerprint: String,
    training: GinTraining,
}

impl Cell for Entry {
    const PRETTY: bool = true;

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// The GIN trainings of `--out`'s cache and, with `--resume`, of the committed reference's
/// (copied into `--out`'s cache when taken, so `--out` holds every training its table used),
/// through the run's [`Runner`].
pub(crate) struct GinFiles<'a> {
    runner: &'a Runner,
    /// Trainings taken from `--out`'s cache and from the reference's.
    pub(crate) taken: [usize; 2],
}

impl<'a> GinFiles<'a> {
    /// The cache of `runner`'s results directory; finished trainings are always recorded.
    pub(crate) fn new(runner: &'a Runner) -> Self {
        Self {
            runner,
            taken: [0, 0],
        }
    }

    /// Relative to the results directory: `homdp/cache/gin/<dataset>/<baseline>-rep<r>.json`.
    fn rel(key: &GinKey) -> PathBuf {
        ["homdp", "cache", "gin", &key.dataset]
            .iter()
            .collect::<PathBuf>()
            .join(format!("{}-rep{}.json", key.baseline, key.rep))
    }
}

impl GinCache for GinFiles<'_> {
    fn get(&mut self, key: &GinKey) -> Option<GinTraining> {
        let (e, source) = self
            .runner
            .cached::<Entry>(&Self::rel(key), &key.fingerprint)?;
        self.taken[usize::from(source == Source::Reference)] += 1;
        Some(e.training)
    }

    fn put(&mut self, key: &GinKey, training: &GinTraining) -> std::io::Result<()> {
        let entry = Entry {
            fingerprint: key.fingerprint.clone(),
            training: training.clone(),
        };
        self.runner
            .record(&Self::rel(key), &entry)
            .map_err(std::io::Error::other)
    }

    /// `--shard` and `--budget-min` through the runner: another shard's position or a spent
    /// budget leaves the training out.
    fn runs_here(&mut self, _: &GinKey, position: usize) -> bool {
        matches!(self.runner.turn::<()>(position), Decision::Run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(fp: &str) -> GinKey {
        GinKey {
            dataset: "HIV".into(),
            baseline: "dprr",
            rep: 2,
            fingerprint: fp.into(),
        }
    }

    fn training(score: f64) -> GinTraining {
        GinTraining {
            score,
            epochs: 12,
            best_epoch: 1,
            edge_ratio: 3.5,
            target_standardization: None,
            seconds: 4.0,
        }
    }

    #[test]
    fn trainings_resume_from_out_then_from_the_reference_by_fingerprint() {
        let tmp = tempfile::tempdir().unwrap();
        let (out, reference) = (tmp.path().join("out"), tmp.path().join("ref"));
        // The reference holds a training of this plan.
        GinFiles::new(&Runner::at(&reference, &reference, false))
            .put(&key("plan A"), &training(0.7))
            .unwrap();
        // Without --resume nothing is read.
        assert_eq!(
            GinFiles::new(&Runner::at(&out, &reference, false)).get(&key("plan A")),
            None
        );
        // With it, the reference's is taken and copied into --out.
        let runner = Runner::at(&out, &reference, true);
        let mut files = GinFiles::new(&runner);
        assert_eq!(files.get(&key("plan A")), Some(training(0.7)));
        assert_eq!(files.taken, [0, 1]);
        assert!(out.join("homdp/cache/gin/HIV/dprr-rep2.json").is_file());
        assert_eq!(files.get(&key("plan A")), Some(training(0.7)));
        assert_eq!(files.taken, [1, 1]);
        // Another plan's fingerprint is not this training.
        assert_eq!(files.get(&key("plan B")), None);
        // An unreadable file is trained again, not an error.
        std::fs::write(out.join("homdp/cache/gin/HIV/dprr-rep2.json"), b"{").unwrap();
        std::fs::remove_dir_all(&reference).unwrap();
        assert_eq!(files.get(&key("plan A")), None);
    }
}
