//! Installing datasets from their upstream sources: download (or read from a local folder),
//! check the archive's own checksum where the registry knows it, unpack safely, convert to the
//! installed layout, check every converted file against the registry's SHA-256, and only then
//! move the dataset into place. Sources are tried in registry order; each failure is reported in
//! one line and the next source is tried.
//!
//! The same steps install the copies of Cora and MUTAG embedded in the library (feature
//! `embedded`, on by default), which need no network.
//!
//! # Example
//! ```no_run
//! use graph_core::install::{Quiet, UpstreamInstaller};
//! use graph_core::Registry;
//! let spec = Registry::embedded().get("MUTAG")?;
//! let mut installer = UpstreamInstaller::new().with_base(Some("/srv/upstream-cache".into()));
//! installer.install(spec, std::path::Path::new("data"), &mut Quiet)?;
//! # Ok::<(), graph_core::GraphError>(())
//! ```

mod archive;
mod batch;
mod convert;
mod converted;
#[cfg(feature = "embedded")]
mod embedded;
mod gzip;
pub mod npz;
mod ogb;
pub mod planetoid;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use archive::{Archive, ArchiveKind};
pub use batch::{Installer, MIRROR_ENV, MirrorHttp, Origin, Report, install_all, mirror_source};
pub use gzip::{GzipProfile, gzip};

use crate::error::{GraphError, Result};
use crate::registry::{DatasetSpec, Upstream, check_sum, sha256_hex};

/// Environment variable naming an upstream base (directory or URL), as `--upstream` does.
pub const UPSTREAM_ENV: &str = "DPGRAPH_UPSTREAM";

/// Receives progress and one-line reports from an install.
pub trait Progress {
    /// A download of `total` bytes (when known) starts.
    fn start(&mut self, _label: &str, _total: Option<u64>) {}
    /// `bytes` more bytes arrived.
    fn advance(&mut self, _bytes: u64) {}
    /// The download is complete (or failed).
    fn finish(&mut self) {}
    /// A one-line report (a source that failed, a dataset skipped).
    fn note(&mut self, _line: &str) {}
}

/// A terminal progress bar per download (bytes, total, speed) on stderr, and each one-line
/// report on stderr: what `dpgraph` and `cargo xtask` show (feature `progress`).
#[cfg(feature = "progress")]
#[derive(Debug, Default)]
pub struct ProgressBars {
    bar: Option<indicatif::ProgressBar>,
}

#[cfg(feature = "progress")]
impl Progress for ProgressBars {
    fn start(&mut self, label: &str, total: Option<u64>) {
        let bar = total.map_or_else(
            indicatif::ProgressBar::no_length,
            indicatif::ProgressBar::new,
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg:30} {bytes:>10}/{total_bytes:10} {binary_bytes_per_sec:>12} {wide_bar}",
        ) {
            bar.set_style(style);
        }
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar.set_message(label.to_owned());
        self.bar = Some(bar);
    }
    fn advance(&mut self, bytes: u64) {
        if let Some(b) = &self.bar {
            b.inc(bytes);
        }
    }
    fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
    fn note(&mut self, line: &str) {
        eprintln!("  {line}");
    }
}

/// Progress that reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Progress for Quiet {}

/// Where one upstream URL is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// Over HTTP(S).
    Url(String),
    /// A local file.
    File(PathBuf),
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Url(u) => f.write_str(u),
            Self::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// Resolves `url` against an optional base: with a base, `BASE/<last path segment of url>`
/// (a directory, or an `http(s)://` URL); without one, the URL itself.
///
/// # Example
/// ```
/// use graph_core::install::{resolve, Location};
/// let u = "https://github.com/o/r/raw/abc/data/MUTAG.zip";
/// assert_eq!(resolve(u, None), Location::Url(u.into()));
/// assert_eq!(resolve(u, Some("http://127.0.0.1:8000/")),
///            Location::Url("http://127.0.0.1:8000/MUTAG.zip".into()));
/// assert_eq!(resolve(u, Some("/cache")), Location::File("/cache/MUTAG.zip".into()));
/// ```
pub fn resolve(url: &str, base: Option<&str>) -> Location {
    let Some(base) = base else {
        return Location::Url(url.to_owned());
    };
    let last = url
        .split(['?', '#'])
        .next()
        .unwrap_or(url)
        .rsplit('/')
        .next()
        .unwrap_or(url);
    if base.starts_with("http://") || base.starts_with("https://") {
        Location::Url(format!("{}/{last}", base.trim_end_matches('/')))
    } else {
        Location::File(Path::new(base).join(last))
    }
}

/// What an install did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UpstreamOutcome {
    /// Converted from `source` and moved into place.
    Installed {
        /// The location the archive came from.
        source: String,
        /// Files written.
        files: usize,
        /// Provenance files of the registry that this source does not provide.
        provenance_left_out: Vec<String>,
    },
    /// Already installed, every checksum matched.
    AlreadyInstalled,
}

/// Installs datasets from the embedded copies and their upstream sources.
///
/// Downloads are cached for the installer's lifetime, so datasets sharing one archive (the
/// EdgeRefine zip holds Cora, ACM, DBLP, AMAP and MUTAG) fetch it once.
pub struct UpstreamInstaller {
    base: Option<String>,
    timeout: Duration,
    use_embedded: bool,
    cache: HashMap<String, Arc<Vec<u8>>>,
    /// Hosts that could not be reached (no route, DNS, connect timeout), with the reason: later
    /// URLs on them fail at once instead of waiting for the timeout again.
    unreachable: HashMap<String, String>,
}

impl Default for UpstreamInstaller {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for UpstreamInstaller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamInstaller")
            .field("base", &self.base)
            .field("timeout", &self.timeout)
            .field("use_embedded", &self.use_embedded)
            .finish_non_exhaustive()
    }
}

/// Bytes a source may unpack to: 64 × the dataset's registry size + 16 MiB (dense `.npy`
/// matrices are far larger than the converted edge lists), unless the source's own size says
/// more.
fn unpack_limit(spec: &DatasetSpec, source: &Upstream) -> u64 {
    spec.size_estimate()
        .saturating_mul(64)
        .saturating_add(16 << 20)
        .max(source.bytes.unwrap_or(0))
}

impl UpstreamInstaller {
    /// An installer reading each upstream URL itself (HTTP), using the embedded copies first,
    /// with a 60 s stall timeout.
    pub fn new() -> Self {
        Self {
            base: None,
            timeout: Duration::from_secs(60),
            use_embedded: true,
            cache: HashMap::new(),
            unreachable: HashMap::new(),
        }
    }

    /// Reads every upstream URL from `base` instead (see [`resolve`]).
    #[must_use]
    pub fn with_base(mut self, base: Option<String>) -> Self {
        self.base = base;
        self
    }

    /// How long a download may stall (connect, wait for the response, or any single read)
    /// before it fails.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Whether embedded copies are used before the upstream sources (default `true`).
    #[must_use]
    pub fn with_embedded(mut self, yes: bool) -> Self {
        self.use_embedded = yes;
        self
    }

    /// Installs `spec` into `data_dir`: the embedded copy when there is one, else each
    /// installable upstream source in order until one converts to the registry's bytes.
    ///
    /// # Errors
    /// [`GraphError::Manual`] when the dataset has no plain download (the message gives the
    /// steps); [`GraphError::Upstream`] listing each source's failure when none worked.
    /// Nothing is left in `data_dir` after a failure.
    pub fn install(
        &mut self,
        spec: &DatasetSpec,
        data_dir: &Path,
        progress: &mut dyn Progress,
    ) -> Result<UpstreamOutcome> {
        if spec.is_installed(data_dir) && spec.verify(data_dir).is_ok() {
            return Ok(UpstreamOutcome::AlreadyInstalled);
        }
        let mut failures = Vec::new();
        if self.use_embedded
            && let Some(r) = self.embedded(spec, data_dir)
        {
            match r {
                Ok(out) => return Ok(out),
                Err(e) => {
                    let line = format!("{}: embedded copy failed: {e}", spec.name);
                    progress.note(&line);
                    failures.push(line);
                }
            }
        }
        let sources: Vec<&Upstream> = spec.installable_upstream().collect();
        if sources.is_empty() && failures.is_empty() {
            return Err(GraphError::Manual {
                dataset: spec.name.clone(),
                steps: spec
                    .manual
                    .clone()
                    .unwrap_or_else(|| "install it from a mirror with --from DIR_OR_URL".into()),
            });
        }
        for source in sources {
            let loc = resolve(&source.url, self.base.as_deref());
            match self.try_source(spec, source, &loc, data_dir, progress) {
                Ok(out) => return Ok(out),
                Err(e) => {
                    let line = format!("{}: source {loc} failed: {e}", spec.name);
                    progress.note(&line);
                    failures.push(line);
                }
            }
        }
        Err(GraphError::Upstream {
            dataset: spec.name.clone(),
            failures: failures.join("; "),
        })
    }

    /// Installs `spec` from its embedded copy only (no network).
    ///
    /// # Errors
    /// [`GraphError::Upstream`] when the dataset has no embedded copy or it does not verify.
    pub fn install_embedded_only(
        &mut self,
        spec: &DatasetSpec,
        data_dir: &Path,
    ) -> Result<UpstreamOutcome> {
        if spec.is_installed(data_dir) && spec.verify(data_dir).is_ok() {
            return Ok(UpstreamOutcome::AlreadyInstalled);
        }
        self.embedded(spec, data_dir).unwrap_or_else(|| {
            Err(GraphError::Upstream {
                dataset: spec.name.clone(),
                failures: "no embedded copy in this build".into(),
            })
        })
    }

    /// Installs the embedded copy of `spec`; `None` when this build has none.
    fn embedded(&self, spec: &DatasetSpec, data_dir: &Path) -> Option<Result<UpstreamOutcome>> {
        #[cfg(feature = "embedded")]
        if spec.embedded
            && let Some(bytes) = embedded::archive(&spec.name)
        {
            return Some(self.convert_and_place(
                spec,
                &embedded_source(&spec.name),
                bytes,
                data_dir,
            ));
        }
        let _ = (spec, data_dir);
        None
    }

    fn try_source(
        &mut self,
        spec: &DatasetSpec,
        source: &Upstream,
        loc: &Location,
        data_dir: &Path,
        progress: &mut dyn Progress,
    ) -> Result<UpstreamOutcome> {
        if source.format == crate::registry::SourceFormat::Planetoid {
            return self.try_planetoid(spec, source, data_dir, progress);
        }
        let limit = source.bytes.unwrap_or_else(|| unpack_limit(spec, source));
        let key = loc.to_string();
        let host = match loc {
            Location::Url(u) => u.split('/').nth(2).unwrap_or_default().to_owned(),
            Location::File(_) => String::new(),
        };
        if let Some(reason) = self.unreachable.get(&host) {
            return Err(GraphError::Download {
                url: key,
                message: format!("host {host} was unreachable earlier in this run ({reason})"),
            });
        }
        let bytes = match self.cache.get(&key) {
            Some(b) => Arc::clone(b),
            None => {
                let b = match fetch(loc, limit, self.timeout, progress) {
                    Ok(b) => Arc::new(b),
                    Err(Fetched::Unreachable(e)) => {
                        if let GraphError::Download { message, .. } = &e {
                            self.unreachable.insert(host, message.clone());
                        }
                        return Err(e);
                    }
                    Err(Fetched::Other(e)) => return Err(e),
                };
                self.cache.insert(key.clone(), Arc::clone(&b));
                b
            }
        };
        let checked = check_archive(source, &key, &bytes);
        if checked.is_err() {
            self.cache.remove(&key);
        }
        checked?;
        let mut out = self.convert_and_place(spec, source, &bytes, data_dir)?;
        if let UpstreamOutcome::Installed { source: shown, .. } = &mut out
            && *shown != key
        {
            *shown = format!("{key} (for {shown})");
        }
        Ok(out)
    }

    /// A Planetoid source: its eight files `<url>.<suffix>` (each read from the upstream base
    /// when one is given, by its last URL segment), converted by [`planetoid::convert`].
    fn try_planetoid(
        &mut self,
        spec: &DatasetSpec,
        source: &Upstream,
        data_dir: &Path,
        progress: &mut dyn Progress,
    ) -> Result<UpstreamOutcome> {
        let mut got = HashMap::new();
        for suffix in planetoid::SUFFIXES {
            let loc = resolve(&format!("{}.{suffix}", source.url), self.base.as_deref());
            let bytes = match fetch(&loc, unpack_limit(spec, source), self.timeout, progress) {
                Ok(b) => b,
                Err(Fetched::Unreachable(e) | Fetched::Other(e)) => return Err(e),
            };
            got.insert(suffix, bytes);
        }
        let prefix = source.url.rsplit('/').next().unwrap_or(&spec.name);
        let name = prefix.strip_prefix("ind.").unwrap_or(prefix);
        let files = planetoid::convert(name, &|s| got.get(s).cloned())?;
        let mut out = self.place_converted(spec, source, &files, data_dir)?;
        if let UpstreamOutcome::Installed { source: shown, .. } = &mut out {
            *shown = resolve(&format!("{}.*", source.url), self.base.as_deref()).to_string();
        }
        Ok(out)
    }

    fn convert_and_place(
        &self,
        spec: &DatasetSpec,
        source: &Upstream,
        bytes: &[u8],
        data_dir: &Path,
    ) -> Result<UpstreamOutcome> {
        let keep = convert::wanted(spec, source);
        let archive = Archive::read_filtered(
            bytes,
            &source.url,
            unpack_limit(spec, source),
            keep.as_ref(),
        )?;
        let files = convert::convert(spec, source, &archive)?;
        self.place_converted(spec, source, &files, data_dir)
    }

    /// Checks converted `files` against the registry's checksums and places them.
    fn place_converted(
        &self,
        spec: &DatasetSpec,
        source: &Upstream,
        files: &converted::Converted,
        data_dir: &Path,
    ) -> Result<UpstreamOutcome> {
        for f in spec.required_files() {
            let b = files.get(&f.path).ok_or_else(|| GraphError::Convert {
                dataset: spec.name.clone(),
                message: format!("the converter produced no `{}`", f.path),
            })?;
            check_sum(&spec.name, f, b)?;
        }
        let provenance_left_out: Vec<String> = spec
            .files
            .iter()
            .filter(|f| f.provenance)
            .map(|f| f.path.clone())
            .collect();
        let keep: Vec<(&str, &[u8])> = spec
            .required_files()
            .map(|f| (f.path.as_str(), files[&f.path].as_slice()))
            .collect();
        crate::registry::place(spec, data_dir, &keep)?;
        Ok(UpstreamOutcome::Installed {
            source: source.url.clone(),
            files: keep.len(),
            provenance_left_out,
        })
    }
}

/// The pseudo-source of an embedded copy.
#[cfg(feature = "embedded")]
fn embedded_source(name: &str) -> Upstream {
    Upstream {
        url: embedded::file_name(name),
        format: crate::registry::SourceFormat::Files,
        sha256: None,
        bytes: None,
        label_map: Default::default(),
        note: None,
    }
}

/// Checks a download against the size and SHA-256 the registry records for its URL.
fn check_archive(source: &Upstream, what: &str, bytes: &[u8]) -> Result<()> {
    if let Some(n) = source.bytes
        && bytes.len() as u64 != n
    {
        return Err(GraphError::Download {
            url: what.to_owned(),
            message: format!(
                "{} bytes, the registry says {n} (truncated or a different file)",
                bytes.len()
            ),
        });
    }
    if let Some(sha) = &source.sha256 {
        let actual = sha256_hex(bytes);
        if !actual.eq_ignore_ascii_case(sha) {
            return Err(GraphError::Checksum {
                file: what.to_owned(),
                expected: sha.clone(),
                actual,
            });
        }
    }
    Ok(())
}

/// A failed fetch: the host could not be reached at all, or anything else.
enum Fetched {
    Unreachable(GraphError),
    Other(GraphError),
}

/// A failed HTTP request: its message, and whether the host was unreachable (DNS, connect).
pub(crate) struct HttpError {
    pub(crate) message: String,
    unreachable: bool,
}

impl HttpError {
    fn other(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            unreachable: false,
        }
    }
}

/// Reads `loc`, at most `limit` bytes.
fn fetch(
    loc: &Location,
    limit: u64,
    timeout: Duration,
    progress: &mut dyn Progress,
) -> std::result::Result<Vec<u8>, Fetched> {
    let err = |message: String| GraphError::Download {
        url: loc.to_string(),
        message,
    };
    match loc {
        Location::File(p) => {
            let meta = std::fs::metadata(p).map_err(|e| Fetched::Other(err(e.to_string())))?;
            if meta.len() > limit {
                return Err(Fetched::Other(err(format!(
                    "{} bytes, more than the limit of {limit}",
                    meta.len()
                ))));
            }
            std::fs::read(p).map_err(|e| Fetched::Other(err(e.to_string())))
        }
        Location::Url(url) => http_get(url, limit, timeout, progress).map_err(|e| {
            if e.unreachable {
                Fetched::Unreachable(err(e.message))
            } else {
                Fetched::Other(err(e.message))
            }
        }),
    }
}

#[cfg(feature = "download")]
pub(crate) fn http_get(
    url: &str,
    limit: u64,
    timeout: Duration,
    progress: &mut dyn Progress,
) -> std::result::Result<Vec<u8>, HttpError> {
    use std::io::Read;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(timeout))
        .timeout_recv_response(Some(timeout))
        .timeout_per_read(Some(timeout))
        .build()
        .into();
    let resp = agent.get(url).call().map_err(|e| HttpError {
        unreachable: matches!(
            e,
            ureq::Error::HostNotFound
                | ureq::Error::ConnectionFailed
                | ureq::Error::Io(_)
                | ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve)
        ),
        message: e.to_string(),
    })?;
    let total = resp.body().content_length();
    if let Some(t) = total
        && t > limit
    {
        return Err(HttpError::other(format!(
            "{t} bytes, more than the limit of {limit}"
        )));
    }
    let label = url.rsplit('/').next().unwrap_or(url);
    progress.start(label, total);
    let mut reader = resp
        .into_body()
        .into_with_config()
        .limit(limit.saturating_add(1))
        .reader();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let result = loop {
        match reader.read(&mut buf) {
            Ok(0) => break Ok(()),
            Ok(k) => {
                out.extend_from_slice(&buf[..k]);
                progress.advance(k as u64);
                if out.len() as u64 > limit {
                    break Err(HttpError::other(format!(
                        "more than the limit of {limit} bytes"
                    )));
                }
            }
            Err(e) => break Err(HttpError::other(e.to_string())),
        }
    };
    progress.finish();
    result?;
    if let Some(t) = total
        && out.len() as u64 != t
    {
        return Err(HttpError::other(format!(
            "truncated: {} of {t} bytes",
            out.len()
        )));
    }
    Ok(out)
}

#[cfg(not(feature = "download"))]
pub(crate) fn http_get(
    _url: &str,
    _limit: u64,
    _timeout: Duration,
    _progress: &mut dyn Progress,
) -> std::result::Result<Vec<u8>, HttpError> {
    Err(HttpError::other(
        "graph-core was built without the `download` feature; pass a local --upstream DIR",
    ))
}

/// Converts an unpacked upstream archive into the files of `spec` without installing them: the
/// seam tests and other tools use to check a converter against the registry.
///
/// # Errors
/// [`GraphError::Convert`] when the archive does not fit the source's format.
pub fn convert_archive(
    spec: &DatasetSpec,
    source: &Upstream,
    archive: &Archive,
) -> Result<std::collections::BTreeMap<String, Vec<u8>>> {
    convert::convert(spec, source, archive)
}
