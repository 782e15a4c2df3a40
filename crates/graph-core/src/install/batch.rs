//! Installing several datasets at once, from a mirror of converted files or from the embedded
//! copies and upstream sources: what `dpgraph datasets install` and `cargo xtask` run.

use std::path::Path;
use std::time::Duration;

use crate::error::GraphError;
use crate::install::{Progress, UpstreamInstaller, UpstreamOutcome};
use crate::registry::{DatasetSpec, Fetch, InstallOutcome, MirrorDir, install};

/// Where datasets come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A mirror of converted files laid out as `<base>/<name>/<file>` (a directory or an
    /// `http(s)://` base URL): `--from`.
    Mirror(String),
    /// The embedded copies, then the registry's upstream sources (each URL read from `base`
    /// when given: `--upstream`). `offline` uses the embedded copies only.
    Upstream {
        /// Directory or URL standing in for every upstream host.
        base: Option<String>,
        /// Never fetch.
        offline: bool,
        /// Stall timeout of a download.
        timeout: Duration,
    },
}

/// Environment variable naming a default mirror of converted files, as `--from` does (read by
/// the front ends, not by the library).
pub const MIRROR_ENV: &str = "DPGRAPH_MIRROR";

impl Origin {
    /// The origin a command line asks for: `from` names a mirror; otherwise the embedded copies
    /// and upstream, each URL read from `upstream` when given. The front end resolves both from
    /// its flags and [`MIRROR_ENV`] / [`UPSTREAM_ENV`](super::UPSTREAM_ENV) before calling.
    pub fn from_args(
        from: Option<String>,
        upstream: Option<String>,
        offline: bool,
        timeout: Duration,
    ) -> Self {
        match from {
            Some(m) => Self::Mirror(m),
            None => Self::Upstream {
                base: upstream,
                offline,
                timeout,
            },
        }
    }
}

/// What happened to one dataset.
#[derive(Debug)]
pub enum Report {
    /// Installed now, from `source`.
    Installed {
        /// Where the files came from.
        source: String,
        /// Files written.
        files: usize,
        /// Provenance files not provided by this source.
        provenance_left_out: Vec<String>,
        /// Verified by the registry's counts, not checksums (see
        /// [`DatasetSpec::checked_by_counts`]).
        by_counts: bool,
    },
    /// Already installed and verified.
    AlreadyInstalled,
    /// Not attempted: no plain download (`steps` says what to do), or offline.
    Skipped {
        /// Why, and what the user can do.
        reason: String,
    },
    /// Every source failed.
    Failed(GraphError),
}

impl Report {
    /// Whether the dataset is usable after this (installed now or before).
    pub fn is_ok(&self) -> bool {
        matches!(self, Self::Installed { .. } | Self::AlreadyInstalled)
    }

    /// One line for a person: `NAME: …`.
    pub fn line(&self, name: &str) -> String {
        match self {
            Self::Installed {
                source,
                files,
                provenance_left_out,
                by_counts,
            } => {
                let verified = if *by_counts {
                    "counts verified (the registry has no checksums for it)"
                } else {
                    "checksums verified"
                };
                let mut s = format!("{name}: installed {files} files from {source}, {verified}");
                if !provenance_left_out.is_empty() {
                    s.push_str(&format!(
                        " (provenance files only in the mirror: {})",
                        provenance_left_out.join(", ")
                    ));
                }
                s
            }
            Self::AlreadyInstalled => format!("{name}: already installed and verified"),
            Self::Skipped { reason } => format!("{name}: skipped: {reason}"),
            Self::Failed(GraphError::Upstream { failures, .. }) => format!(
                "{name}: not installed: {} source(s) failed (one line each above)",
                failures.split("; ").count()
            ),
            Self::Failed(e) => format!("{name}: failed: {e}"),
        }
    }
}

/// Installs datasets one after another from one [`Origin`], sharing downloads (and what it
/// learnt about unreachable hosts) between them.
pub struct Installer {
    origin: Origin,
    mirror: Option<Box<dyn Fetch>>,
    upstream: UpstreamInstaller,
}

impl std::fmt::Debug for Installer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Installer")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl Installer {
    /// An installer reading from `origin`.
    pub fn new(origin: &Origin) -> Self {
        let (mirror, upstream) = match origin {
            Origin::Mirror(from) => (Some(mirror_source(from)), UpstreamInstaller::new()),
            Origin::Upstream { base, timeout, .. } => (
                None,
                UpstreamInstaller::new()
                    .with_base(base.clone())
                    .with_timeout(*timeout),
            ),
        };
        Self {
            origin: origin.clone(),
            mirror,
            upstream,
        }
    }

    /// First use: installs `spec` into `data_dir` unless it is installed there already.
    /// `Ok(None)` when it was; `Ok(Some(line))` with [`Report::line`] when it was installed now.
    ///
    /// # Errors
    /// [`GraphError::Registry`] naming the dataset, the folder and the install's report when it
    /// cannot be installed here (no plain download, offline, every source failed).
    pub fn install_missing(
        &mut self,
        spec: &DatasetSpec,
        data_dir: &Path,
        progress: &mut dyn Progress,
    ) -> Result<Option<String>, GraphError> {
        if spec.is_installed(data_dir) {
            return Ok(None);
        }
        let report = self.install(spec, data_dir, progress);
        let line = report.line(&spec.name);
        if report.is_ok() {
            Ok(Some(line))
        } else {
            Err(GraphError::Registry(format!(
                "dataset `{}` is not installed in {} and could not be installed: {line}",
                spec.name,
                data_dir.display()
            )))
        }
    }

    /// Installs `spec` into `data_dir`, reporting each failed source through `progress`.
    pub fn install(
        &mut self,
        spec: &DatasetSpec,
        data_dir: &Path,
        progress: &mut dyn Progress,
    ) -> Report {
        let by_counts = spec.checked_by_counts();
        if let (Some(source), Origin::Mirror(from)) = (&self.mirror, &self.origin) {
            if by_counts
                && let Some(first) = spec.required_files().next()
                && let Err(e) = source.fetch(&spec.name, &first.path)
                && e.kind() == std::io::ErrorKind::NotFound
            {
                return Report::Skipped {
                    reason: format!(
                        "not in the mirror {from} (its bytes are not pinned by checksums; \
                         install it from upstream)"
                    ),
                };
            }
            return match install(spec, source.as_ref(), data_dir) {
                Ok(InstallOutcome::Installed) => Report::Installed {
                    source: from.clone(),
                    files: spec.files.len(),
                    provenance_left_out: vec![],
                    by_counts,
                },
                Ok(InstallOutcome::AlreadyInstalled) => Report::AlreadyInstalled,
                Err(e) => Report::Failed(e),
            };
        }
        let offline = matches!(self.origin, Origin::Upstream { offline: true, .. });
        if spec.is_installed(data_dir) && spec.verify(data_dir).is_ok() {
            return Report::AlreadyInstalled;
        }
        if offline && !spec.embedded {
            return Report::Skipped {
                reason: "offline, and no embedded copy".into(),
            };
        }
        let r = if offline {
            self.upstream.install_embedded_only(spec, data_dir)
        } else {
            self.upstream.install(spec, data_dir, progress)
        };
        match r {
            Ok(UpstreamOutcome::Installed {
                source,
                files,
                provenance_left_out,
            }) => Report::Installed {
                source,
                files,
                provenance_left_out,
                by_counts,
            },
            Ok(UpstreamOutcome::AlreadyInstalled) => Report::AlreadyInstalled,
            Err(GraphError::Manual { steps, .. }) => Report::Skipped {
                reason: format!("no plain download; {steps}"),
            },
            Err(e) => Report::Failed(e),
        }
    }
}

/// Installs each of `specs` into `data_dir` from `origin`, reporting each failed source through
/// `progress` and returning one [`Report`] per dataset, in order. A failure of one dataset does
/// not stop the others.
pub fn install_all(
    specs: &[&DatasetSpec],
    origin: &Origin,
    data_dir: &Path,
    progress: &mut dyn Progress,
) -> Vec<(String, Report)> {
    let mut inst = Installer::new(origin);
    specs
        .iter()
        .map(|spec| (spec.name.clone(), inst.install(spec, data_dir, progress)))
        .collect()
}

/// The mirror named by `--from`: an HTTP(S) base URL, or a directory.
pub fn mirror_source(from: &str) -> Box<dyn Fetch> {
    if from.starts_with("http://") || from.starts_with("https://") {
        Box::new(MirrorHttp::new(from))
    } else {
        Box::new(MirrorDir(from.into()))
    }
}

/// An HTTP(S) mirror of converted files laid out as `<base>/<dataset>/<file>`.
#[derive(Clone, Debug)]
pub struct MirrorHttp {
    base: String,
}

impl MirrorHttp {
    /// A mirror at `base` (trailing `/` ignored).
    pub fn new(base: &str) -> Self {
        Self {
            base: base.trim_end_matches('/').to_owned(),
        }
    }
}

impl Fetch for MirrorHttp {
    fn fetch(&self, dataset: &str, file: &str) -> std::io::Result<Vec<u8>> {
        let url = format!("{}/{dataset}/{file}", self.base);
        super::http_get(
            &url,
            1 << 34,
            Duration::from_secs(60),
            &mut crate::install::Quiet,
        )
        .map_err(|e| std::io::Error::other(format!("GET {url}: {}", e.message)))
    }

    fn describe(&self) -> String {
        self.base.clone()
    }
}
