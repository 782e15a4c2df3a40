//! [`OrgData`]: the files one organisation prepares — its own nodes (accounts) with features,
//! labels and split, and every edge it can see (its own edges and the cross edges touching its
//! nodes) — and nothing else. Written from a [`FedTask`] for experiments
//! (`dpgraph fed partition`), read by the client process.
//!
//! Layout of one organisation's folder:
//! ```text
//! org.json    {"format": "dpgraph-org/1", "client": 0, "num_clients": 5, "dataset": "cora",
//!              "num_classes": 7, "metric": "MacroF1", "num_features": 1433,
//!              "num_edge_features": 0}
//! nodes.csv   node,label,split,x0,…,x{F-1}      one row per own node (global id; split is
//!                                               train, val, test or none)
//! edges.csv   src,dst[,e0,…,e{D-1}]             one row per undirected edge with an own end
//!                                               (global ids; the other end may be remote)
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ndarray::Array2;
use serde::{Deserialize, Serialize};

use crate::error::{FedError, Result};
use crate::federation::ClientTopology;
use crate::train::{FedTask, Metric};

/// The format tag of `org.json`.
pub const ORG_FORMAT: &str = "dpgraph-org/1";

/// The most features per node or edge a file may declare.
const MAX_COLUMNS: usize = 1 << 20;

/// `org.json`: what the organisation's files hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrgManifest {
    /// [`ORG_FORMAT`].
    pub format: String,
    /// This organisation's client id in `0..num_clients`.
    pub client: u32,
    /// Number of organisations in the federation.
    pub num_clients: u32,
    /// Dataset name (reports only).
    pub dataset: String,
    /// Number of classes (labels lie in `0..num_classes`).
    pub num_classes: usize,
    /// Evaluation metric.
    pub metric: Metric,
    /// Feature columns per node.
    pub num_features: usize,
    /// Feature columns per edge (0: none).
    pub num_edge_features: usize,
}

/// Which split a node belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitTag {
    /// Training node.
    Train,
    /// Validation node.
    Val,
    /// Test node.
    Test,
    /// In no split.
    None,
}

impl SplitTag {
    fn name(self) -> &'static str {
        match self {
            Self::Train => "train",
            Self::Val => "val",
            Self::Test => "test",
            Self::None => "none",
        }
    }
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "train" => Self::Train,
            "val" => Self::Val,
            "test" => Self::Test,
            "none" => Self::None,
            _ => return None,
        })
    }
}

/// One organisation's data: own nodes, their features, labels and split, and the edges it sees.
#[derive(Clone, Debug, PartialEq)]
pub struct OrgData {
    /// The manifest.
    pub manifest: OrgManifest,
    /// Own nodes, ascending global ids.
    pub nodes: Vec<u32>,
    /// One feature row per own node.
    pub features: Array2<f32>,
    /// One label per own node.
    pub labels: Vec<u32>,
    /// One split tag per own node.
    pub split: Vec<SplitTag>,
    /// Undirected edges with at least one own end, `(u, v)` with `u < v`, ascending.
    pub edges: Vec<(u32, u32)>,
    /// One feature row per edge (same order), when the task has edge features.
    pub edge_features: Option<Array2<f32>>,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> FedError + '_ {
    move |source| FedError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn fmt_row(out: &mut String, values: impl Iterator<Item = f32>) {
    for x in values {
        // Display of f32 is the shortest text that reads back to the same value.
        let _ = write!(out, ",{x}");
    }
}

impl OrgData {
    /// Client `client`'s share of `task`: its nodes' rows and the edges touching them.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for a client id out of range.
    pub(crate) fn from_task(task: &FedTask, client: u32) -> Result<Self> {
        let topo = task.fed.client(client)?;
        let idx: Vec<usize> = topo.nodes().iter().map(|&v| v as usize).collect();
        let features = task.features.select(ndarray::Axis(0), &idx);
        let labels = idx.iter().map(|&i| task.labels[i]).collect();
        let split = idx
            .iter()
            .map(|&i| {
                if task.split.train[i] {
                    SplitTag::Train
                } else if task.split.val[i] {
                    SplitTag::Val
                } else if task.split.test[i] {
                    SplitTag::Test
                } else {
                    SplitTag::None
                }
            })
            .collect();
        let mut edges = Vec::new();
        let mut rows = Vec::new();
        for (e, (u, v)) in task.fed.graph().edges().enumerate() {
            if topo.owns(u) || topo.owns(v) {
                edges.push((u, v));
                rows.push(e);
            }
        }
        let edge_features = task
            .edge_features
            .as_ref()
            .map(|ef| ef.select(ndarray::Axis(0), &rows));
        Ok(Self {
            manifest: OrgManifest {
                format: ORG_FORMAT.into(),
                client,
                num_clients: task.fed.num_clients() as u32,
                dataset: task.name.clone(),
                num_classes: task.num_classes,
                metric: task.metric,
                num_features: task.features.ncols(),
                num_edge_features: task.edge_features.as_ref().map_or(0, Array2::ncols),
            },
            nodes: topo.nodes().to_vec(),
            features,
            labels,
            split,
            edges,
            edge_features,
        })
    }

    /// Writes every client's folder `out/org-<i>` of `task`; returns the folders.
    ///
    /// # Errors
    /// As [`OrgData::write`].
    pub fn write_all(task: &FedTask, out: &Path) -> Result<Vec<PathBuf>> {
        (0..task.fed.num_clients() as u32)
            .map(|i| {
                let dir = out.join(format!("org-{i}"));
                Self::from_task(task, i)?.write(&dir)?;
                Ok(dir)
            })
            .collect()
    }

    /// Writes the three files into `dir` (created if missing), each to a temporary name first.
    ///
    /// # Errors
    /// [`FedError::Io`] / [`FedError::Graph`] when the folder is not writable.
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let f = self.manifest.num_features;
        let mut nodes = String::from("node,label,split");
        for k in 0..f {
            let _ = write!(nodes, ",x{k}");
        }
        nodes.push('\n');
        for (i, &v) in self.nodes.iter().enumerate() {
            let _ = write!(nodes, "{v},{},{}", self.labels[i], self.split[i].name());
            fmt_row(&mut nodes, self.features.row(i).iter().copied());
            nodes.push('\n');
        }
        let mut edges = String::from("src,dst");
        for k in 0..self.manifest.num_edge_features {
            let _ = write!(edges, ",e{k}");
        }
        edges.push('\n');
        for (e, &(u, v)) in self.edges.iter().enumerate() {
            let _ = write!(edges, "{u},{v}");
            if let Some(ef) = &self.edge_features {
                fmt_row(&mut edges, ef.row(e).iter().copied());
            }
            edges.push('\n');
        }
        let manifest = serde_json::to_vec_pretty(&self.manifest)
            .map_err(|e| FedError::Inconsistent(e.to_string()))?;
        graph_core::io::write_atomic(&dir.join("nodes.csv"), nodes.as_bytes())?;
        graph_core::io::write_atomic(&dir.join("edges.csv"), edges.as_bytes())?;
        graph_core::io::write_atomic(&dir.join("org.json"), &manifest)?;
        Ok(())
    }

    /// Reads and checks an organisation's folder.
    ///
    /// # Errors
    /// [`FedError::MissingFile`], [`FedError::Io`]; [`FedError::Csv`] naming the file, line and
    /// column of a malformed value (wrong column count, a non-numeric or non-finite value, a
    /// label out of range, an unknown split); [`FedError::Inconsistent`] for a manifest of
    /// another format, nodes not strictly ascending, a self-loop, a duplicate edge or an edge
    /// without an own end.
    pub fn read(dir: &Path) -> Result<Self> {
        let read = |name: &str| -> Result<(PathBuf, String)> {
            let path = dir.join(name);
            if !path.is_file() {
                return Err(FedError::MissingFile { path });
            }
            let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
            Ok((path, text))
        };
        let (mpath, mtext) = read("org.json")?;
        let manifest: OrgManifest = serde_json::from_str(&mtext)
            .map_err(|e| FedError::csv(&mpath, e.line(), e.to_string()))?;
        if manifest.format != ORG_FORMAT {
            return Err(FedError::Inconsistent(format!(
                "{}: format {:?}, this version reads {ORG_FORMAT:?}",
                mpath.display(),
                manifest.format
            )));
        }
        if manifest.num_clients < 2
            || manifest.client >= manifest.num_clients
            || manifest.num_classes < 2
            || manifest.num_features == 0
            || manifest.num_features > MAX_COLUMNS
            || manifest.num_edge_features > MAX_COLUMNS
        {
            return Err(FedError::Inconsistent(format!(
                "{}: need 2 <= num_clients, client < num_clients, num_classes >= 2 and \
                 1 <= num_features <= {MAX_COLUMNS}",
                mpath.display()
            )));
        }
        let (npath, ntext) = read("nodes.csv")?;
        let f = manifest.num_features;
        let mut nodes = Vec::new();
        let mut labels = Vec::new();
        let mut split = Vec::new();
        let mut feats = Vec::new();
        for (line, row) in ntext.lines().enumerate().skip(1) {
            let line = line + 1;
            if row.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = row.split(',').collect();
            if cols.len() != 3 + f {
                return Err(FedError::csv(
                    &npath,
                    line,
                    format!("{} columns, expected {}", cols.len(), 3 + f),
                ));
            }
            let v: u32 = cols[0]
                .trim()
                .parse()
                .map_err(|_| FedError::csv(&npath, line, format!("node id {:?}", cols[0])))?;
            let y: u32 = cols[1]
                .trim()
                .parse()
                .map_err(|_| FedError::csv(&npath, line, format!("label {:?}", cols[1])))?;
            if y as usize >= manifest.num_classes {
                return Err(FedError::csv(
                    &npath,
                    line,
                    format!("label {y} outside 0..{}", manifest.num_classes),
                ));
            }
            let s = SplitTag::parse(cols[2].trim())
                .ok_or_else(|| FedError::csv(&npath, line, format!("split {:?}", cols[2])))?;
            nodes.push(v);
            labels.push(y);
            split.push(s);
            for (k, c) in cols[3..].iter().enumerate() {
                let x: f32 = c
                    .trim()
                    .parse()
                    .ok()
                    .filter(|x: &f32| x.is_finite())
                    .ok_or_else(|| FedError::csv(&npath, line, format!("feature x{k} = {c:?}")))?;
                feats.push(x);
            }
        }
        if nodes.is_empty() || !nodes.windows(2).all(|w| w[0] < w[1]) {
            return Err(FedError::Inconsistent(format!(
                "{}: needs at least one node, ids strictly ascending",
                npath.display()
            )));
        }
        let features = Array2::from_shape_vec((nodes.len(), f), feats)
            .map_err(|e| FedError::Inconsistent(e.to_string()))?;
        let (epath, etext) = read("edges.csv")?;
        let d = manifest.num_edge_features;
        let own = |v: u32| nodes.binary_search(&v).is_ok();
        let mut edges: Vec<((u32, u32), usize)> = Vec::new();
        let mut efeats = Vec::new();
        for (line, row) in etext.lines().enumerate().skip(1) {
            let line = line + 1;
            if row.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = row.split(',').collect();
            if cols.len() != 2 + d {
                return Err(FedError::csv(
                    &epath,
                    line,
                    format!("{} columns, expected {}", cols.len(), 2 + d),
                ));
            }
            let id = |c: &str| {
                c.trim()
                    .parse::<u32>()
                    .map_err(|_| FedError::csv(&epath, line, format!("node id {c:?}")))
            };
            let (u, v) = (id(cols[0])?, id(cols[1])?);
            if u == v {
                return Err(FedError::csv(&epath, line, format!("self-loop on {u}")));
            }
            if !own(u) && !own(v) {
                return Err(FedError::csv(
                    &epath,
                    line,
                    format!("edge ({u}, {v}) has no own end"),
                ));
            }
            edges.push(((u.min(v), u.max(v)), edges.len()));
            for (k, c) in cols[2..].iter().enumerate() {
                let x: f32 = c
                    .trim()
                    .parse()
                    .ok()
                    .filter(|x: &f32| x.is_finite())
                    .ok_or_else(|| {
                        FedError::csv(&epath, line, format!("edge feature e{k} = {c:?}"))
                    })?;
                efeats.push(x);
            }
        }
        edges.sort_unstable();
        if let Some(w) = edges.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(FedError::Inconsistent(format!(
                "{}: edge {:?} listed twice",
                epath.display(),
                w[0].0
            )));
        }
        let edge_features = (d > 0).then(|| {
            let mut sorted = Vec::with_capacity(efeats.len());
            for &(_, k) in &edges {
                sorted.extend_from_slice(&efeats[k * d..(k + 1) * d]);
            }
            Array2::from_shape_vec((edges.len(), d), sorted).expect("rows of d values")
        });
        Ok(Self {
            manifest,
            nodes,
            features,
            labels,
            split,
            edges: edges.into_iter().map(|(e, _)| e).collect(),
            edge_features,
        })
    }

    /// The topology this organisation sees.
    ///
    /// # Errors
    /// As [`ClientTopology::from_local`].
    pub fn topology(&self) -> Result<ClientTopology> {
        ClientTopology::from_local(self.manifest.client, self.nodes.clone(), &self.edges)
    }

    /// The mask of own nodes with `tag`.
    pub(crate) fn mask(&self, tag: SplitTag) -> Vec<bool> {
        self.split.iter().map(|&s| s == tag).collect()
    }
}
