//! The homdp GIN baselines' training cache on disk ([`GinFiles`]): one JSON file per finished
//! training under `<out>/homdp/cache/gin/<dataset>/<baseline>-rep<r>.json`, so that a `--full`
//! run interrupted during HIV's hours-long trainings resumes (`--resume`) with the trainings it
//! has not finished, as the edgerefine chunks do.

use std::path::{Path, PathBuf};

use ::homdp::paper::{GinCache, GinKey, GinTraining};
use serde::{Deserialize, Serialize};

/// One cache file: the training with the fingerprint of the plan that made it.
#[derive(Serialize, Deserialize)]
struct Entry {
    fingerprint: String,
    training: GinTraining,
}

/// The GIN trainings of `--out`'s cache and, with `--resume`, of the committed reference's
/// (copied into `--out`'s cache when taken, so `--out` holds every training its table used).
pub(crate) struct GinFiles {
    out: PathBuf,
    /// `Some` with `--resume`: the reference's results directory.
    reference: Option<PathBuf>,
    /// Whether to read cached trainings at all (`--resume`).
    resume: bool,
    /// Trainings taken from `--out`'s cache and from the reference's.
    pub(crate) taken: [usize; 2],
}

impl GinFiles {
    /// The cache of the results directory `out` (`--out`), reading it (and `reference`'s)
    /// only when `resume`; finished trainings are always recorded.
    pub(crate) fn new(out: &Path, reference: &Path, resume: bool) -> Self {
        Self {
            out: out.to_path_buf(),
            reference: (resume && reference != out).then(|| reference.to_path_buf()),
            resume,
            taken: [0, 0],
        }
    }

    fn file(results: &Path, key: &GinKey) -> PathBuf {
        results
            .join("homdp")
            .join("cache")
            .join("gin")
            .join(&key.dataset)
            .join(format!("{}-rep{}.json", key.baseline, key.rep))
    }

    fn read(results: &Path, key: &GinKey) -> Option<GinTraining> {
        let path = Self::file(results, key);
        let bytes = std::fs::read(&path).ok()?;
        match serde_json::from_slice::<Entry>(&bytes) {
            Ok(e) => (e.fingerprint == key.fingerprint).then_some(e.training),
            Err(e) => {
                eprintln!("{}: unreadable ({e}): training again", path.display());
                None
            }
        }
    }
}

impl GinCache for GinFiles {
    fn get(&mut self, key: &GinKey) -> Option<GinTraining> {
        if !self.resume {
            return None;
        }
        if let Some(t) = Self::read(&self.out, key) {
            self.taken[0] += 1;
            return Some(t);
        }
        let t = Self::read(self.reference.as_deref()?, key)?;
        // Copied so that `--out` holds what its table used; a failed copy only costs a rerun.
        if let Err(e) = self.put(key, &t) {
            eprintln!("copying a cached GIN training into --out: {e}");
        }
        self.taken[1] += 1;
        Some(t)
    }

    fn put(&mut self, key: &GinKey, training: &GinTraining) -> std::io::Result<()> {
        let path = Self::file(&self.out, key);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let entry = Entry {
            fingerprint: key.fingerprint.clone(),
            training: training.clone(),
        };
        let bytes = serde_json::to_vec_pretty(&entry).map_err(std::io::Error::other)?;
        graph_core::io::write_atomic(&path, &bytes).map_err(std::io::Error::other)
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
        GinFiles::new(&reference, &reference, false)
            .put(&key("plan A"), &training(0.7))
            .unwrap();
        // Without --resume nothing is read.
        assert_eq!(
            GinFiles::new(&out, &reference, false).get(&key("plan A")),
            None
        );
        // With it, the reference's is taken and copied into --out.
        let mut files = GinFiles::new(&out, &reference, true);
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
