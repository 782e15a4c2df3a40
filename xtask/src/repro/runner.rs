//! The one runner under every experiment's long work: a *cell* (an edgerefine (ε, seed) chunk
//! of the node grid, a homdp GIN training) is computed once and cached on disk under `--out`
//! with the fingerprint of the plan that made it.
//!
//! - `--resume` reads a cell back from `--out`'s cache, else from the committed reference's
//!   (then copies it into `--out`, so `--out` holds every cell its tables were made from); a cell
//!   whose fingerprint is another plan's is not this cell.
//! - `--shard K/N` leaves the cells at other positions of their grid to other processes.
//! - `--budget-min m` starts no new cell after `m` minutes.
//!
//! Cells are written atomically (temporary name, then rename), so an interrupted run loses at
//! most the cell it was computing.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Ctx;
use crate::cli::Shard;

/// A cached unit of work.
pub(crate) trait Cell: Serialize + DeserializeOwned {
    /// Whether the cache file is pretty-printed (each cache keeps the form it was first
    /// committed in).
    const PRETTY: bool;

    /// The plan that made it: a cached cell is reused only under the same.
    fn fingerprint(&self) -> &str;
}

/// Where a cell read back by `--resume` came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `--out`'s own cache (an earlier run into the same directory).
    Out,
    /// The committed reference's cache; the cell has been copied into `--out`'s cache.
    Reference,
}

/// What to do with a cell.
#[derive(Debug)]
pub(crate) enum Decision<T> {
    /// Cached by the same plan (`--resume`).
    Cached(T, Source),
    /// Another `--shard`'s cell.
    Elsewhere,
    /// `--budget-min` is spent: left for a later `--resume` run.
    OverBudget,
    /// Compute it (then [`Runner::record`] it).
    Run,
}

/// The caching, resume, shard and budget settings of one `repro` run, shared by every
/// experiment.
#[derive(Debug)]
pub(crate) struct Runner {
    /// `--out`: the results directory the cells are cached under.
    out: PathBuf,
    /// The committed reference's results directory, with `--resume` and where it is not `--out`.
    reference: Option<PathBuf>,
    resume: bool,
    budget: Option<Duration>,
    shard: Option<Shard>,
    start: Instant,
}

impl Runner {
    /// The runner of `ctx`'s flags; the budget clock starts now.
    ///
    /// # Errors
    /// A budget that is not a number of minutes ≥ 0.
    pub(crate) fn new(ctx: &Ctx) -> Result<Self> {
        let select = &ctx.select;
        let budget = match select.budget_min {
            None => None,
            Some(m) if m.is_finite() && m >= 0.0 => Some(Duration::from_secs_f64(m * 60.0)),
            Some(m) => bail!("--budget-min must be a number of minutes ≥ 0, got {m}"),
        };
        Ok(Self {
            budget,
            shard: select.shard,
            ..Self::at(&ctx.out, &ctx.reference, select.resume)
        })
    }

    /// A runner over `out` with no shard and no budget, reading `reference` (where it is not
    /// `out`) with `resume`; the clock starts now.
    pub(crate) fn at(out: &Path, reference: &Path, resume: bool) -> Self {
        Self {
            out: out.into(),
            reference: (resume && !super::same_dir(out, reference)).then(|| reference.into()),
            resume,
            budget: None,
            shard: None,
            start: Instant::now(),
        }
    }

    /// Whether earlier outputs are reused (`--resume`).
    pub(crate) fn resume(&self) -> bool {
        self.resume
    }

    /// The reference directory cells are taken from, as tables may name it: relative to the
    /// checkout where it is inside it (no machine's paths in tables).
    pub(crate) fn reference_label(&self) -> String {
        self.reference.as_deref().map_or("?".into(), |d| {
            let root = crate::project_root();
            d.strip_prefix(&root).unwrap_or(d).display().to_string()
        })
    }

    /// Whether the time budget (`--budget-min`) is spent.
    fn over_budget(&self) -> bool {
        self.budget.is_some_and(|b| self.start.elapsed() >= b)
    }

    /// What to do with the cell cached at `rel` (relative to the results directory) under the
    /// plan `fingerprint`, at `position` in its grid.
    pub(crate) fn decide<T: Cell>(
        &self,
        rel: &Path,
        fingerprint: &str,
        position: usize,
    ) -> Decision<T> {
        match self.cached(rel, fingerprint) {
            Some((c, source)) => Decision::Cached(c, source),
            None => self.turn(position),
        }
    }

    /// What to do with a cell at `position` that no cache holds: [`Decision::Elsewhere`],
    /// [`Decision::OverBudget`] or [`Decision::Run`].
    pub(crate) fn turn<T>(&self, position: usize) -> Decision<T> {
        if self.shard.is_some_and(|s| !s.owns(position)) {
            Decision::Elsewhere
        } else if self.over_budget() {
            Decision::OverBudget
        } else {
            Decision::Run
        }
    }

    /// Whatever cell `--out`'s cache holds at `rel`, of any plan and with or without
    /// `--resume`: the rows an earlier run left for the parts of a table this run does not
    /// compute.
    pub(crate) fn earlier<T: Cell>(&self, rel: &Path) -> Option<T> {
        read(&self.out.join(rel))
    }

    /// The cell at `rel` made under `fingerprint`, from `--out`'s cache or else the reference's
    /// (then copied into `--out`'s); `None` without `--resume` or where neither has it. An
    /// unreadable file is a warning and recomputed; a failed copy is a warning (it only costs a
    /// rerun later).
    pub(crate) fn cached<T: Cell>(&self, rel: &Path, fingerprint: &str) -> Option<(T, Source)> {
        if !self.resume {
            return None;
        }
        if let Some(c) = read::<T>(&self.out.join(rel)).filter(|c| c.fingerprint() == fingerprint) {
            return Some((c, Source::Out));
        }
        let c = read::<T>(&self.reference.as_deref()?.join(rel))
            .filter(|c| c.fingerprint() == fingerprint)?;
        if let Err(e) = self.record(rel, &c) {
            eprintln!("copying a cached cell into --out: {e:#}");
        }
        Some((c, Source::Reference))
    }

    /// Writes `cell` to `--out`'s cache at `rel`, atomically.
    ///
    /// # Errors
    /// The directory cannot be made or the file written.
    pub(crate) fn record<T: Cell>(&self, rel: &Path, cell: &T) -> Result<()> {
        let path = self.out.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let bytes = if T::PRETTY {
            serde_json::to_vec_pretty(cell)?
        } else {
            serde_json::to_vec(cell)?
        };
        graph_core::io::write_atomic(&path, &bytes)
            .with_context(|| format!("writing {}", path.display()))
    }
}

/// A cached cell, or `None` (with a warning when the file exists but cannot be read).
fn read<T: Cell>(path: &Path) -> Option<T> {
    let bytes = std::fs::read(path).ok()?;
    match serde_json::from_slice(&bytes) {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("{}: unreadable ({e}): recomputing", path.display());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Toy {
        fingerprint: String,
        value: u32,
    }

    impl Cell for Toy {
        const PRETTY: bool = false;

        fn fingerprint(&self) -> &str {
            &self.fingerprint
        }
    }

    fn toy(fp: &str, value: u32) -> Toy {
        Toy {
            fingerprint: fp.into(),
            value,
        }
    }

    #[test]
    fn cells_resume_from_out_then_from_the_reference_by_fingerprint() {
        let tmp = tempfile::tempdir().unwrap();
        let (out, reference) = (tmp.path().join("out"), tmp.path().join("ref"));
        let rel = Path::new("x/cache/a/cell.json");
        Runner::at(&reference, &reference, false)
            .record(rel, &toy("plan A", 7))
            .unwrap();
        // Without --resume nothing is read.
        let fresh = Runner::at(&out, &reference, false);
        assert!(matches!(
            fresh.decide::<Toy>(rel, "plan A", 0),
            Decision::Run
        ));
        // With it, the reference's is taken and copied into --out, then read from there.
        let r = Runner::at(&out, &reference, true);
        assert_eq!(
            r.cached::<Toy>(rel, "plan A"),
            Some((toy("plan A", 7), Source::Reference))
        );
        assert!(out.join(rel).is_file());
        assert_eq!(
            r.cached::<Toy>(rel, "plan A"),
            Some((toy("plan A", 7), Source::Out))
        );
        // Another plan's fingerprint is not this cell.
        assert_eq!(r.cached::<Toy>(rel, "plan B"), None);
        // An unreadable file is computed again, not an error.
        std::fs::write(out.join(rel), b"{").unwrap();
        std::fs::remove_dir_all(&reference).unwrap();
        assert_eq!(r.cached::<Toy>(rel, "plan A"), None);
    }

    #[test]
    fn shards_and_budget_decide_what_is_not_run_here() {
        let tmp = tempfile::tempdir().unwrap();
        let mut r = Runner::at(tmp.path(), tmp.path(), true);
        r.shard = Some(Shard { index: 1, count: 2 });
        let rel = Path::new("c.json");
        assert!(matches!(r.decide::<Toy>(rel, "p", 0), Decision::Elsewhere));
        assert!(matches!(r.decide::<Toy>(rel, "p", 1), Decision::Run));
        r.budget = Some(Duration::ZERO);
        assert!(matches!(r.decide::<Toy>(rel, "p", 1), Decision::OverBudget));
        // A cached cell is taken whoever's it is and whatever the budget.
        r.record(rel, &toy("p", 1)).unwrap();
        assert!(matches!(
            r.decide::<Toy>(rel, "p", 0),
            Decision::Cached(_, Source::Out)
        ));
    }
}
