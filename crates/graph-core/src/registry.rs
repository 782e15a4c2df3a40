//! The dataset registry (`datasets/registry.toml`), installed-data lookup, checksum
//! verification, installation from a mirror or any [`Fetch`] source, and loading by name.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::collection::GraphDataset;
use crate::error::{GraphError, Result};
use crate::loaders::{load_node_npy, load_tu};
use crate::node_data::NodeDataset;

mod mean;
pub use mean::PublishedMean;

/// The registry file compiled into the library.
const EMBEDDED: &str = include_str!("../datasets/registry.toml");

/// Environment variable naming the data directory. The front ends (the `dpgraph` binary,
/// `cargo xtask`, the Python module) read it and pass the path on; the library reads no
/// environment variable.
pub const DATA_ENV: &str = "DPGRAPH_DATA";

/// The data directory when none is named: `./data`.
pub const DEFAULT_DATA_DIR: &str = "data";

/// What a dataset is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Task {
    /// Node classification on one graph.
    NodeClassification,
    /// Graph classification over a collection.
    GraphClassification,
    /// Graph regression over a collection.
    GraphRegression,
    /// Transaction tables (anti-money-laundering data).
    Transactions,
}

impl Task {
    /// The registry spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NodeClassification => "node-classification",
            Self::GraphClassification => "graph-classification",
            Self::GraphRegression => "graph-regression",
            Self::Transactions => "transactions",
        }
    }
}

/// On-disk layout of a dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// `edges.txt` + `features.npy` + `labels.npy`.
    NodeNpy,
    /// TU Dortmund format.
    Tu,
    /// CSV / JSON files read by the AML tooling.
    AmlFiles,
}

/// One file of a dataset.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    /// Path relative to the dataset folder.
    pub path: String,
    /// Lower-case hex SHA-256 of the file's bytes; `None` for a dataset whose bytes could not
    /// be fetched where the registry was written: it is then [checked by its
    /// counts](DatasetSpec::checked_by_counts) instead.
    #[serde(default)]
    pub sha256: Option<String>,
    /// Size in bytes, where known (with the checksum).
    #[serde(default)]
    pub bytes: Option<u64>,
    /// Kept for provenance only (a source file the dataset was converted from, or a table of
    /// the conversion): installed from a mirror, not produced by upstream converters, not needed
    /// to load the dataset, and checked only when present.
    #[serde(default)]
    pub provenance: bool,
}

/// How an upstream download becomes the installed layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceFormat {
    /// The EdgeRefine release zip: dense `.npy` matrices per node dataset
    /// (`<name>\<name>_{adj,feat,label}.npy`) and raw TU files (`TUDataset\<NAME>\raw\…`).
    EdgerefineZip,
    /// An archive holding the installed files themselves (a TUDataset zip with
    /// `<NAME>/<NAME>_A.txt`, …; a tgz of CSVs): each file unchanged, found by its name, and
    /// gzipped as `gzip -9 -n` does where the registry's file is `.gz` and the archive's is not.
    Files,
    /// A zip of the DGCNN text format (`<NAME>/<NAME>.txt` + `10fold_idx/`), converted to TU.
    DgcnnZip,
    /// An OGB graph-property zip (`raw/*.csv.gz`, `split/scaffold/*.csv.gz`, `mapping/`).
    OgbZip,
    /// A gnn-benchmark `.npz` (CSR adjacency and attributes, labels; Shchur et al. 2018), as
    /// PyTorch Geometric's `Coauthor` reads it (see `install::npz`).
    GnnBenchmarkNpz,
    /// The eight Planetoid files `<url>.{x,tx,allx,y,ty,ally,graph,test.index}` (Python 2
    /// pickles read by a reader that runs nothing; see `install::planetoid`).
    Planetoid,
    /// Provenance only: not a download dpgraph can convert (a folder view, a login page, or a
    /// file that needs a chemistry toolkit).
    Reference,
}

impl SourceFormat {
    /// The registry spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EdgerefineZip => "edgerefine-zip",
            Self::Files => "files",
            Self::DgcnnZip => "dgcnn-zip",
            Self::OgbZip => "ogb-zip",
            Self::GnnBenchmarkNpz => "gnn-benchmark-npz",
            Self::Planetoid => "planetoid",
            Self::Reference => "reference",
        }
    }
}

/// One upstream source of a dataset.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upstream {
    /// Where the publisher ships it.
    pub url: String,
    /// How it converts to the installed layout.
    pub format: SourceFormat,
    /// SHA-256 of the download, where known (checked before unpacking). It belongs to this URL:
    /// another mirror of the same dataset may ship a different archive.
    #[serde(default)]
    pub sha256: Option<String>,
    /// Size of the download in bytes, where known.
    #[serde(default)]
    pub bytes: Option<u64>,
    /// Label renaming for converters that need it (DGCNN labels → TU labels).
    #[serde(default)]
    pub label_map: BTreeMap<String, String>,
    /// What a reader should know about this source.
    #[serde(default)]
    pub note: Option<String>,
}

impl Upstream {
    /// Whether dpgraph can download and convert this source.
    pub fn is_installable(&self) -> bool {
        self.format != SourceFormat::Reference
    }
}

/// Counts a correct load must reproduce (from the dataset's README).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Number of graphs (collections).
    pub graphs: Option<usize>,
    /// Total nodes.
    pub nodes: Option<usize>,
    /// Total undirected edges.
    pub edges: Option<usize>,
    /// Number of classes.
    pub classes: Option<usize>,
    /// Feature dimension (node classification).
    pub features: Option<usize>,
    /// Size of the `train` split.
    pub train: Option<usize>,
    /// Size of the `valid` split.
    pub valid: Option<usize>,
    /// Size of the `test` split.
    pub test: Option<usize>,
    /// Data rows (header excluded) of CSV files.
    #[serde(default)]
    pub rows: BTreeMap<String, usize>,
    /// Mean nodes per graph as the publisher prints it (`"508.52"`), for a collection whose
    /// totals are not published (TUDataset's table gives means only).
    #[serde(default)]
    pub mean_nodes: Option<PublishedMean>,
    /// Mean undirected edges per graph as the publisher prints it.
    #[serde(default)]
    pub mean_edges: Option<PublishedMean>,
}

impl Expect {
    /// The counts that identify a dataset of `layout` when no checksum does (see
    /// [`DatasetSpec::checked_by_counts`]); a graph collection may give the published means
    /// `mean_nodes` and `mean_edges` in place of the totals `nodes` and `edges`.
    pub fn identifying(layout: Layout) -> &'static [&'static str] {
        match layout {
            Layout::NodeNpy => &["nodes", "edges", "classes", "features"],
            Layout::Tu => &["graphs", "classes", "nodes", "edges"],
            Layout::AmlFiles => &["rows"],
        }
    }

    /// Whether every [identifying](Self::identifying) count of `layout` is given.
    pub fn identifies(&self, layout: Layout) -> bool {
        match layout {
            Layout::NodeNpy => [self.nodes, self.edges, self.classes, self.features]
                .iter()
                .all(Option::is_some),
            Layout::Tu => {
                let totals = self.nodes.is_some() && self.edges.is_some();
                let means = self.mean_nodes.is_some() && self.mean_edges.is_some();
                self.graphs.is_some() && self.classes.is_some() && (totals || means)
            }
            Layout::AmlFiles => !self.rows.is_empty(),
        }
    }

    /// Compares the counts of a loaded dataset with the given ones (counts that are `None` are
    /// not compared).
    ///
    /// # Errors
    /// [`GraphError::Counts`] naming the first count that differs.
    ///
    /// # Example
    /// ```
    /// # #[cfg(feature = "embedded")]
    /// # {
    /// use graph_core::registry::{Dataset, Expect, Registry};
    /// let spec = Registry::embedded().get("MUTAG")?;
    /// let dir = tempfile::tempdir().unwrap();
    /// graph_core::install::UpstreamInstaller::new().install_embedded_only(spec, dir.path())?;
    /// let ds = spec.load(dir.path())?;
    /// spec.expect.check("MUTAG", &ds)?;
    /// let wrong = Expect { graphs: Some(187), ..spec.expect.clone() };
    /// assert!(wrong.check("MUTAG", &ds).is_err());
    /// # }
    /// # Ok::<(), graph_core::GraphError>(())
    /// ```
    pub fn check(&self, dataset: &str, ds: &Dataset) -> Result<()> {
        let mut found: Vec<(&'static str, Option<usize>, Option<usize>)> = Vec::new();
        match ds {
            Dataset::Nodes(d) => {
                found.push(("nodes", self.nodes, Some(d.graph().num_nodes())));
                found.push(("edges", self.edges, Some(d.graph().num_edges())));
                found.push(("classes", self.classes, Some(d.num_classes())));
                found.push(("features", self.features, Some(d.features().ncols())));
            }
            Dataset::Graphs(d) => {
                for (what, mean, total) in [
                    ("nodes", &self.mean_nodes, d.total_nodes()),
                    ("edges", &self.mean_edges, d.total_edges()),
                ] {
                    if let Some(m) = mean
                        && !m.matches(total, d.len())
                    {
                        return Err(GraphError::PublishedMean {
                            dataset: dataset.to_owned(),
                            what: what.to_owned(),
                            published: m.to_string(),
                            actual: total as f64 / d.len().max(1) as f64,
                        });
                    }
                }
                found.push(("graphs", self.graphs, Some(d.len())));
                found.push(("nodes", self.nodes, Some(d.total_nodes())));
                found.push(("edges", self.edges, Some(d.total_edges())));
                found.push(("classes", self.classes, d.targets().num_classes()));
                for (split, want) in [
                    ("train", self.train),
                    ("valid", self.valid),
                    ("test", self.test),
                ] {
                    found.push((split, want, d.split(split).map(<[usize]>::len)));
                }
            }
            Dataset::Files(t) => {
                for (file, &want) in &self.rows {
                    let got = t.rows.get(file).copied();
                    if got != Some(want) {
                        return Err(GraphError::Counts {
                            dataset: dataset.to_owned(),
                            what: format!("rows of {file}"),
                            expected: want,
                            actual: got,
                        });
                    }
                }
            }
        }
        for (what, want, got) in found {
            if let Some(want) = want
                && got != Some(want)
            {
                return Err(GraphError::Counts {
                    dataset: dataset.to_owned(),
                    what: what.to_owned(),
                    expected: want,
                    actual: got,
                });
            }
        }
        Ok(())
    }
}

/// A registry entry.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetSpec {
    /// Name, as the mirror folder.
    pub name: String,
    /// Task.
    pub task: Task,
    /// Layout.
    pub layout: Layout,
    /// One-line description.
    pub description: String,
    /// Canonical upstream sources, tried in order by the upstream installer.
    pub upstream: Vec<Upstream>,
    /// Whether a compressed copy ships inside dpgraph (see `datasets/embedded/`).
    #[serde(default)]
    pub embedded: bool,
    /// The steps a user takes by hand where no source is a plain download.
    #[serde(default)]
    pub manual: Option<String>,
    /// Counts a load must reproduce.
    #[serde(default)]
    pub expect: Expect,
    /// Files with checksums.
    pub files: Vec<FileSpec>,
}

/// All known datasets.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    #[serde(rename = "dataset")]
    datasets: Vec<DatasetSpec>,
}

impl Registry {
    /// The registry shipped with dpgraph (`datasets/registry.toml`).
    ///
    /// # Example
    /// ```
    /// let r = graph_core::Registry::embedded();
    /// assert_eq!(r.get("CORA")?.name, "cora"); // case-insensitive
    /// assert_eq!(r.get("CiteSeer")?.expect.nodes, Some(3327));
    /// assert!(r.get("no-such-dataset").is_err());
    /// # Ok::<(), graph_core::GraphError>(())
    /// ```
    pub fn embedded() -> &'static Registry {
        static REG: OnceLock<Registry> = OnceLock::new();
        REG.get_or_init(|| {
            Registry::from_toml_str(EMBEDDED).expect("datasets/registry.toml is valid (tested)")
        })
    }

    /// Parses a registry from TOML text.
    ///
    /// # Errors
    /// [`GraphError::Registry`] for malformed TOML, unknown keys, duplicate names (case-insensitive),
    /// bad checksums or unsafe file paths.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        let reg: Registry =
            toml::from_str(text).map_err(|e| GraphError::Registry(e.to_string()))?;
        let mut names = std::collections::HashSet::new();
        for d in &reg.datasets {
            if !names.insert(d.name.to_lowercase()) {
                return Err(GraphError::Registry(format!(
                    "duplicate dataset `{}`",
                    d.name
                )));
            }
            for u in &d.upstream {
                if let Some(sha) = &u.sha256
                    && (sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()))
                {
                    return Err(GraphError::Registry(format!(
                        "{}: upstream {}: sha256 must be 64 hex digits",
                        d.name, u.url
                    )));
                }
                if u.is_installable()
                    && !(u.url.starts_with("https://") || u.url.starts_with("http://"))
                {
                    return Err(GraphError::Registry(format!(
                        "{}: upstream `{}` is not an http(s) URL",
                        d.name, u.url
                    )));
                }
            }
            for f in &d.files {
                if let Some(sha) = &f.sha256
                    && (sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()))
                {
                    return Err(GraphError::Registry(format!(
                        "{}/{}: sha256 must be 64 hex digits",
                        d.name, f.path
                    )));
                }
                if f.sha256.is_some() != f.bytes.is_some() {
                    return Err(GraphError::Registry(format!(
                        "{}/{}: give both sha256 and bytes, or neither (a dataset checked by its counts)",
                        d.name, f.path
                    )));
                }
                let p = Path::new(&f.path);
                if p.is_absolute()
                    || p.components()
                        .any(|c| !matches!(c, std::path::Component::Normal(_)))
                {
                    return Err(GraphError::Registry(format!(
                        "{}: unsafe file path `{}`",
                        d.name, f.path
                    )));
                }
            }
            if d.checked_by_counts() && !d.expect.identifies(d.layout) {
                return Err(GraphError::Registry(format!(
                    "{}: a file without sha256 needs the counts that identify the dataset in \
                     `expect` ({}{})",
                    d.name,
                    Expect::identifying(d.layout).join(", "),
                    if d.layout == Layout::Tu {
                        "; or mean_nodes and mean_edges in place of nodes and edges"
                    } else {
                        ""
                    }
                )));
            }
        }
        Ok(reg)
    }

    /// All datasets, in registry order.
    pub fn datasets(&self) -> &[DatasetSpec] {
        &self.datasets
    }

    /// Looks a dataset up by name, ignoring case.
    ///
    /// # Errors
    /// [`GraphError::UnknownDataset`] listing the known names.
    pub fn get(&self, name: &str) -> Result<&DatasetSpec> {
        self.datasets
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| GraphError::UnknownDataset {
                name: name.to_owned(),
                known: self
                    .datasets
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// The data directory a front end names (read from [`DATA_ENV`] or a flag by the binary), else
/// [`DEFAULT_DATA_DIR`].
///
/// ```
/// use graph_core::registry::data_dir_or_default;
/// assert_eq!(data_dir_or_default(None::<&str>), std::path::PathBuf::from("data"));
/// assert_eq!(data_dir_or_default(Some("/srv/graphs")), std::path::PathBuf::from("/srv/graphs"));
/// ```
pub fn data_dir_or_default<P: Into<PathBuf>>(named: Option<P>) -> PathBuf {
    named.map_or_else(|| PathBuf::from(DEFAULT_DATA_DIR), Into::into)
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest.iter() {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

impl DatasetSpec {
    /// The folder of this dataset under `data_dir`.
    pub fn dir(&self, data_dir: &Path) -> PathBuf {
        data_dir.join(&self.name)
    }

    /// Whether every file needed to load the dataset is present (sizes checked, not checksums;
    /// [provenance](FileSpec::provenance) files are not needed).
    pub fn is_installed(&self, data_dir: &Path) -> bool {
        let dir = self.dir(data_dir);
        self.files.iter().filter(|f| !f.provenance).all(|f| {
            fs::metadata(dir.join(&f.path))
                .is_ok_and(|m| m.is_file() && f.bytes.is_none_or(|b| m.len() == b))
        })
    }

    /// Total size of the installed files where the registry knows every size.
    pub fn known_bytes(&self) -> Option<u64> {
        self.files.iter().map(|f| f.bytes).sum()
    }

    /// An upper estimate of the installed size, for decompression limits: the registry's sizes
    /// where known, else one from the counts (dense float32 features, 32 bytes per edge, 8 per
    /// node).
    pub fn size_estimate(&self) -> u64 {
        self.known_bytes().unwrap_or_else(|| {
            let e = &self.expect;
            let nodes = e.nodes.unwrap_or(0) as u64;
            let features = e.features.unwrap_or(0) as u64;
            let edges = e.edges.unwrap_or(0) as u64;
            nodes
                .saturating_mul(features.saturating_add(2))
                .saturating_mul(4)
                .saturating_add(edges.saturating_mul(32))
        })
    }

    /// Whether some file has no checksum in the registry (its bytes could not be fetched where
    /// the registry was written), so that installs and [`verify`](Self::verify) check the
    /// dataset by loading it and comparing its [`expect`](Self::expect) counts.
    pub fn checked_by_counts(&self) -> bool {
        self.files.iter().any(|f| f.sha256.is_none())
    }

    /// The files an upstream converter must produce (all but the provenance files).
    pub fn required_files(&self) -> impl Iterator<Item = &FileSpec> {
        self.files.iter().filter(|f| !f.provenance)
    }

    /// The sources dpgraph can download and convert, in the order they are tried.
    pub fn installable_upstream(&self) -> impl Iterator<Item = &Upstream> {
        self.upstream.iter().filter(|u| u.is_installable())
    }

    /// Where the dataset comes from, for listings: `embedded`, `upstream` (a plain download
    /// dpgraph converts), or `manual`.
    pub fn origin(&self) -> &'static str {
        if self.embedded {
            "embedded"
        } else if self.installable_upstream().next().is_some() {
            "upstream"
        } else {
            "manual"
        }
    }

    /// Verifies every installed file against its checksum (provenance files only when present);
    /// a dataset [checked by its counts](Self::checked_by_counts) is loaded and its counts
    /// compared with [`expect`](Self::expect).
    ///
    /// # Errors
    /// [`GraphError::MissingFile`], [`GraphError::Io`] or [`GraphError::Checksum`] for the first
    /// file that is absent, unreadable or different; [`GraphError::Counts`] for a count that
    /// differs; any loader error.
    pub fn verify(&self, data_dir: &Path) -> Result<()> {
        self.verify_dir(&self.dir(data_dir))
    }

    /// [`verify`](Self::verify) on the dataset's own folder `dir` (a temporary folder during an
    /// install).
    pub(crate) fn verify_dir(&self, dir: &Path) -> Result<()> {
        for f in &self.files {
            let p = dir.join(&f.path);
            if f.provenance && !p.exists() {
                continue;
            }
            if !p.is_file() {
                return Err(GraphError::MissingFile { path: p });
            }
            if f.sha256.is_some() {
                let bytes = fs::read(&p).map_err(|e| GraphError::io(&p, e))?;
                check_sum(&self.name, f, &bytes)?;
            }
        }
        if self.checked_by_counts() {
            self.expect.check(&self.name, &self.load_dir(dir)?)?;
        }
        Ok(())
    }

    /// Loads the installed dataset.
    ///
    /// # Errors
    /// [`GraphError::NotInstalled`] when files are missing; any loader error otherwise.
    pub fn load(&self, data_dir: &Path) -> Result<Dataset> {
        if !self.is_installed(data_dir) {
            return Err(GraphError::NotInstalled {
                name: self.name.clone(),
                dir: data_dir.to_path_buf(),
            });
        }
        self.load_dir(&self.dir(data_dir))
    }

    /// Loads the dataset from its own folder `dir`, by layout.
    fn load_dir(&self, dir: &Path) -> Result<Dataset> {
        Ok(match self.layout {
            Layout::NodeNpy => Dataset::Nodes(load_node_npy(dir, &self.name)?),
            Layout::Tu => Dataset::Graphs(load_tu(dir, &self.name)?),
            Layout::AmlFiles => Dataset::Files(FileTables::read(dir, self)?),
        })
    }
}

/// Checks `bytes` against the checksum of `f`; a file without one passes (its dataset is
/// [checked by its counts](DatasetSpec::checked_by_counts) once in place).
pub(crate) fn check_sum(dataset: &str, f: &FileSpec, bytes: &[u8]) -> Result<()> {
    let Some(expected) = &f.sha256 else {
        return Ok(());
    };
    let actual = sha256_hex(bytes);
    if !actual.eq_ignore_ascii_case(expected) {
        return Err(GraphError::Checksum {
            file: format!("{dataset}/{}", f.path),
            expected: expected.clone(),
            actual,
        });
    }
    Ok(())
}

/// A loaded dataset.
#[derive(Clone, Debug)]
pub enum Dataset {
    /// One graph with node features and labels.
    Nodes(NodeDataset),
    /// A collection of graphs with targets.
    Graphs(GraphDataset),
    /// Tabular files (AML transactions), summarised by their row counts.
    Files(FileTables),
}

/// Row counts of the CSV files of a tabular dataset (header lines excluded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileTables {
    /// Data rows per CSV file (relative path).
    pub rows: BTreeMap<String, usize>,
}

impl FileTables {
    fn read(dir: &Path, spec: &DatasetSpec) -> Result<Self> {
        let mut rows = BTreeMap::new();
        for f in &spec.files {
            if f.path.ends_with(".csv") || f.path.ends_with(".csv.gz") {
                let p = dir.join(&f.path);
                let buf = crate::io::read_maybe_gz(&p)?;
                let lines = crate::io::lines(&buf)
                    .filter(|(_, l)| !l.trim_ascii().is_empty())
                    .count();
                rows.insert(f.path.clone(), lines.saturating_sub(1));
            }
        }
        Ok(Self { rows })
    }
}

/// A source of dataset files: a mirror directory, an HTTP server, …
pub trait Fetch {
    /// The bytes of `file` (relative path) of `dataset`.
    ///
    /// # Errors
    /// Any I/O or transport error.
    fn fetch(&self, dataset: &str, file: &str) -> std::io::Result<Vec<u8>>;

    /// Where the files come from, for messages.
    fn describe(&self) -> String;
}

/// A local mirror laid out as `<root>/<dataset>/<file>`.
#[derive(Clone, Debug)]
pub struct MirrorDir(pub PathBuf);

impl Fetch for MirrorDir {
    fn fetch(&self, dataset: &str, file: &str) -> std::io::Result<Vec<u8>> {
        fs::read(self.0.join(dataset).join(file))
    }

    fn describe(&self) -> String {
        self.0.display().to_string()
    }
}

/// What [`install`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstallOutcome {
    /// Files were fetched, verified and moved into place.
    Installed,
    /// The dataset was already installed and every checksum matched.
    AlreadyInstalled,
}

/// Installs `spec` into `data_dir` from `source`: every file is fetched into a temporary folder
/// and verified against its SHA-256; only when all match is the folder renamed into place
/// (replacing an older copy). On any failure the temporary folder is removed, so no partial
/// dataset is ever visible under its name.
///
/// # Errors
/// [`GraphError::Checksum`] for a file whose bytes differ; [`GraphError::Io`] for a fetch or write
/// failure (the message names the source and file).
pub fn install(spec: &DatasetSpec, source: &dyn Fetch, data_dir: &Path) -> Result<InstallOutcome> {
    if spec.is_installed(data_dir) && spec.verify(data_dir).is_ok() {
        return Ok(InstallOutcome::AlreadyInstalled);
    }
    let mut files = Vec::with_capacity(spec.files.len());
    for f in &spec.files {
        let what = PathBuf::from(format!("{}/{}/{}", source.describe(), spec.name, f.path));
        let bytes = source
            .fetch(&spec.name, &f.path)
            .map_err(|e| GraphError::io(&what, e))?;
        check_sum(&spec.name, f, &bytes)?;
        files.push((f.path.as_str(), bytes));
    }
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (*p, b.as_slice())).collect();
    place(spec, data_dir, &refs)?;
    Ok(InstallOutcome::Installed)
}

/// Writes verified `files` into a temporary folder beside the dataset's and renames it into
/// place (replacing an older copy). On any failure the temporary folder is removed, so no
/// partial dataset is ever visible under its name.
///
/// Installs are serialised across threads and processes by an exclusive lock on
/// `data_dir/.install.lock`; a copy that another installer placed while this one waited is kept
/// (not replaced under its readers).
pub(crate) fn place(spec: &DatasetSpec, data_dir: &Path, files: &[(&str, &[u8])]) -> Result<()> {
    fs::create_dir_all(data_dir).map_err(|e| GraphError::io(data_dir, e))?;
    let lock_path = data_dir.join(".install.lock");
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| GraphError::io(&lock_path, e))?;
    lock.lock().map_err(|e| GraphError::io(&lock_path, e))?;
    if spec.is_installed(data_dir) && spec.verify(data_dir).is_ok() {
        return Ok(());
    }
    let pid = std::process::id();
    // Threads of one process share the pid: the lock above keeps them from sharing the folder.
    let tmp = data_dir.join(format!(".install-{}-{pid}", spec.name));
    let _ = fs::remove_dir_all(&tmp);
    let write = || -> Result<()> {
        for (path, bytes) in files {
            let dest = tmp.join(path);
            if let Some(parent) = dest.parent() {
                fs::create_dir_all(parent).map_err(|e| GraphError::io(parent, e))?;
            }
            fs::write(&dest, bytes).map_err(|e| GraphError::io(&dest, e))?;
        }
        if spec.checked_by_counts() {
            spec.verify_dir(&tmp)?;
        }
        Ok(())
    };
    if let Err(e) = write() {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let dest = spec.dir(data_dir);
    let old = data_dir.join(format!(".old-{}-{pid}", spec.name));
    if dest.exists() {
        fs::rename(&dest, &old).map_err(|e| GraphError::io(&dest, e))?;
    }
    if let Err(e) = fs::rename(&tmp, &dest) {
        let _ = fs::rename(&old, &dest);
        let _ = fs::remove_dir_all(&tmp);
        return Err(GraphError::io(&dest, e));
    }
    let _ = fs::remove_dir_all(&old);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_registry_parses_and_lists_the_mirror() {
        let r = Registry::embedded();
        for name in [
            "cora",
            "acm",
            "dblp",
            "amap",
            "MUTAG",
            "HIV",
            "BACE",
            "BBBP",
            "Lipophilicity",
            "REDDIT-BINARY",
            "IMDB-BINARY",
            "PROTEINS",
            "NCI1",
            "amlworld-sample",
            "amlsim-small",
            "amlsim-sample-20k",
        ] {
            let d = r.get(&name.to_uppercase()).unwrap();
            assert_eq!(d.name, name);
            assert!(!d.files.is_empty() && !d.upstream.is_empty());
        }
        assert!(matches!(
            r.get("ogbn-arxiv"),
            Err(GraphError::UnknownDataset { .. })
        ));
        // Checked by counts: no checksums, identifying counts (or a collection's published
        // means) given.
        for name in [
            "pubmed",
            "msacademic",
            "REDDIT-MULTI-5K",
            "github_stargazers",
        ] {
            let d = r.get(name).unwrap();
            assert!(
                d.checked_by_counts() && d.expect.identifies(d.layout),
                "{name}"
            );
        }
        assert!(!r.get("citeseer").unwrap().checked_by_counts());
    }

    #[test]
    fn registry_rejects_bad_entries() {
        let ok = "[[dataset]]\nname='x'\ntask='transactions'\nlayout='aml-files'\ndescription=''\nupstream=[]\n";
        assert!(Registry::from_toml_str(&format!("{ok}files=[]")).is_ok());
        let dup = format!(
            "{ok}files=[]\n{}files=[]",
            ok.replace("name='x'", "name='X'")
        );
        assert!(Registry::from_toml_str(&dup).is_err());
        let bad_sha = format!("{ok}[[dataset.files]]\npath='a'\nsha256='zz'\nbytes=1");
        assert!(Registry::from_toml_str(&bad_sha).is_err());
        let escape = format!(
            "{ok}[[dataset.files]]\npath='../a'\nsha256='{}'\nbytes=1",
            "0".repeat(64)
        );
        assert!(Registry::from_toml_str(&escape).is_err());
        // A file without a checksum needs the identifying counts, and sha256 comes with bytes.
        let node = ok
            .replace("task='transactions'", "task='node-classification'")
            .replace("layout='aml-files'", "layout='node-npy'");
        let counts_only = format!("{node}[[dataset.files]]\npath='edges.txt'\n");
        let e = Registry::from_toml_str(&counts_only)
            .unwrap_err()
            .to_string();
        assert!(e.contains("nodes, edges, classes, features"), "{e}");
        let with_counts = counts_only.replace(
            "upstream=[]",
            "upstream=[]\nexpect={ nodes=3, edges=2, classes=2, features=4 }",
        );
        assert!(Registry::from_toml_str(&with_counts).unwrap().datasets()[0].checked_by_counts());
        let half = format!(
            "{ok}[[dataset.files]]\npath='a'\nsha256='{}'",
            "0".repeat(64)
        );
        assert!(
            Registry::from_toml_str(&half).is_err(),
            "sha256 without bytes"
        );
        let src = |u: &str| ok.replace("upstream=[]", &format!("upstream=[{u}]")) + "files=[]";
        let good = src("{ url = 'https://h/x.zip', format = 'files', sha256 = '' }");
        assert!(
            Registry::from_toml_str(&good).is_err(),
            "empty archive sha256"
        );
        let good = src(&format!(
            "{{ url = 'https://h/x.zip', format = 'ogb-zip', sha256 = '{}', bytes = 3 }}",
            "a".repeat(64)
        ));
        let r = Registry::from_toml_str(&good).unwrap();
        assert_eq!(r.get("x").unwrap().origin(), "upstream");
        assert!(
            Registry::from_toml_str(&src("{ url = 'ftp://h/x.zip', format = 'files' }")).is_err()
        );
        assert!(
            Registry::from_toml_str(&src("{ url = 'https://h/x.zip', format = 'rar' }")).is_err()
        );
        let manual =
            Registry::from_toml_str(&src("{ url = 'see the site', format = 'reference' }"))
                .unwrap();
        assert_eq!(manual.get("x").unwrap().origin(), "manual");
    }

    struct Bytes(Vec<(&'static str, Vec<u8>)>);
    impl Fetch for Bytes {
        fn fetch(&self, _: &str, file: &str) -> std::io::Result<Vec<u8>> {
            self.0
                .iter()
                .find(|(f, _)| *f == file)
                .map(|(_, b)| b.clone())
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, file))
        }
        fn describe(&self) -> String {
            "memory".into()
        }
    }

    fn spec(files: &[(&str, &[u8])]) -> DatasetSpec {
        DatasetSpec {
            name: "toy".into(),
            task: Task::Transactions,
            layout: Layout::AmlFiles,
            description: String::new(),
            upstream: vec![],
            embedded: false,
            manual: None,
            expect: Expect::default(),
            files: files
                .iter()
                .map(|(p, b)| FileSpec {
                    path: (*p).into(),
                    sha256: Some(sha256_hex(b)),
                    bytes: Some(b.len() as u64),
                    provenance: false,
                })
                .collect(),
        }
    }

    #[test]
    fn install_verifies_and_never_leaves_partial_data() {
        let dir = tempfile::tempdir().unwrap();
        let s = spec(&[("a.csv", b"h\n1\n2\n"), ("sub/b.txt", b"bee")]);
        let good = Bytes(vec![
            ("a.csv", b"h\n1\n2\n".to_vec()),
            ("sub/b.txt", b"bee".to_vec()),
        ]);
        let bad = Bytes(vec![
            ("a.csv", b"h\n1\n2\n".to_vec()),
            ("sub/b.txt", b"BEE".to_vec()),
        ]);
        let e = install(&s, &bad, dir.path()).unwrap_err();
        assert!(matches!(e, GraphError::Checksum { .. }), "{e}");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            0,
            "nothing left behind"
        );
        assert_eq!(
            install(&s, &good, dir.path()).unwrap(),
            InstallOutcome::Installed
        );
        assert_eq!(
            install(&s, &good, dir.path()).unwrap(),
            InstallOutcome::AlreadyInstalled
        );
        s.verify(dir.path()).unwrap();
        match s.load(dir.path()).unwrap() {
            Dataset::Files(t) => assert_eq!(t.rows["a.csv"], 2),
            other => panic!("unexpected {other:?}"),
        }
        // A corrupted install is detected and replaced.
        fs::write(dir.path().join("toy/sub/b.txt"), b"bex").unwrap();
        assert!(matches!(
            s.verify(dir.path()),
            Err(GraphError::Checksum { .. })
        ));
        assert_eq!(
            install(&s, &good, dir.path()).unwrap(),
            InstallOutcome::Installed
        );
        s.verify(dir.path()).unwrap();
        let missing = Bytes(vec![]);
        let other = tempfile::tempdir().unwrap();
        assert!(matches!(
            install(&s, &missing, other.path()),
            Err(GraphError::Io { .. })
        ));
        assert_eq!(fs::read_dir(other.path()).unwrap().count(), 0);
    }
}
