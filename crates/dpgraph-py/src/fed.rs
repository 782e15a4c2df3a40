//! CE-FedGNN across organisations (`dpgraph.fed`): the Rust client and server of a deployed run
//! (`cefedgnn::deploy`), driven one frame at a time by an engine (the Flower apps in
//! `python/dpgraph/fed/`). Frames, announcements and final reports are `bytes`; the training
//! runs in Rust with the GIL released.

use std::path::PathBuf;

use cefedgnn::FedError;
use cefedgnn::deploy::{
    Announcement, ClientOptions, Fault, NoiseSource, OrgClient, OrgData, OrgServer, Reply,
    ServerOptions,
};
use cefedgnn::train::{FedTrainConfig, Method};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::error::{DataError, IntoPyErr, InvalidParameter, ProtocolError, guard};

impl IntoPyErr for FedError {
    fn into_py_err(self) -> PyErr {
        match self {
            FedError::InvalidParam { .. } => InvalidParameter::new_err(self.to_string()),
            FedError::Dp(e) => e.into_py_err(),
            FedError::Graph(e) => e.into_py_err(),
            FedError::Rejected(_)
            | FedError::Malformed(_)
            | FedError::MessageTooLarge { .. }
            | FedError::UnknownVersion { .. }
            | FedError::NotInSet { .. }
            | FedError::Transport(_) => ProtocolError::new_err(self.to_string()),
            e => DataError::new_err(e.to_string()),
        }
    }
}

fn method(name: &str) -> PyResult<Method> {
    crate::choices::parse(name)
}

fn config(json: &str) -> PyResult<FedTrainConfig> {
    let cfg: FedTrainConfig = serde_json::from_str(json)
        .map_err(|e| InvalidParameter::new_err(format!("train config: {e}")))?;
    guard(|| cfg.check())?;
    Ok(cfg)
}

/// train_config(preset="citation", overrides=None) -> str
///
/// The training configuration (JSON) of a preset (`citation`, `aml-gine`, `aml-gin`,
/// `default`) with `overrides` (a JSON object string, field names as in the result, `-` for
/// `_` allowed; the radius follows the clip norm unless given), checked. The server and every
/// client of a run must use the same configuration. Raises `InvalidParameter`.
#[pyfunction]
#[pyo3(signature = (preset="citation", overrides=None))]
pub(crate) fn train_config(preset: &str, overrides: Option<&str>) -> PyResult<String> {
    let base = FedTrainConfig::preset(crate::choices::parse(preset)?);
    let map = match overrides {
        None => serde_json::Map::new(),
        Some(s) => match serde_json::from_str(s) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => return Err(InvalidParameter::new_err("overrides must be a JSON object")),
        },
    };
    let cfg = guard(|| base.with_overrides(&map))?;
    Ok(serde_json::to_string(&cfg).expect("plain data serializes"))
}

/// apply_fault(frame, fault) -> bytes
///
/// `frame` (an encoded update) with a deliberate defect — `nonfinite` (a NaN parameter),
/// `wrong-round` (the previous round) or `truncated` (one byte short) — for testing what the
/// server refuses. Raises `InvalidParameter` for an unknown fault.
#[pyfunction]
pub(crate) fn apply_fault(py: Python<'_>, frame: &[u8], fault: &str) -> PyResult<Py<PyBytes>> {
    let f = Fault::parse(fault).ok_or_else(|| {
        InvalidParameter::new_err(format!(
            "unknown fault {fault:?}; one of nonfinite, wrong-round, truncated"
        ))
    })?;
    let out = guard(|| f.apply(frame))?;
    Ok(PyBytes::new(py, &out).unbind())
}

/// FedClient(org_dir, method, train_config, state_path=None, noise_seed=None)
///
/// One organisation's client: reads only the files in `org_dir` (`org.json`, `nodes.csv`,
/// `edges.csv`; see `dpgraph fed partition`), and, when `state_path` names an existing file,
/// continues from the state saved there (a restarted process). Noise comes from the OS CSPRNG
/// unless `noise_seed` is given (experiments reproducing `dpgraph fed simulate`; recorded in the
/// final report). Raises `DataError` for bad files or a state of another run.
#[pyclass(module = "dpgraph.fed")]
pub(crate) struct FedClient {
    /// Boxed: the client holds 64-byte-aligned buffers, and Python's allocator only guarantees
    /// 16-byte alignment for the object itself (a debug build aborted with "misaligned pointer
    /// dereference" in PyO3's object initialisation).
    inner: Box<OrgClient>,
    state: Option<PathBuf>,
}

#[pymethods]
impl FedClient {
    #[new]
    #[pyo3(signature = (org_dir, method, train_config, state_path=None, noise_seed=None))]
    fn new(
        py: Python<'_>,
        org_dir: PathBuf,
        method: &str,
        train_config: &str,
        state_path: Option<PathBuf>,
        noise_seed: Option<u64>,
    ) -> PyResult<Self> {
        let options = ClientOptions {
            method: self::method(method)?,
            train: config(train_config)?,
            noise: noise_seed.map_or(NoiseSource::Os, NoiseSource::Seeded),
        };
        let inner = py.detach(|| {
            guard(|| {
                let data = OrgData::read(&org_dir)?;
                match &state_path {
                    Some(p) => OrgClient::open(&data, options, p),
                    None => OrgClient::new(&data, options),
                }
            })
        })?;
        Ok(Self {
            inner: Box::new(inner),
            state: state_path,
        })
    }

    /// The client id (from `org.json`).
    #[getter]
    fn client(&self) -> u32 {
        self.inner.id()
    }

    /// The round of the last broadcast accepted (None before the first).
    #[getter]
    fn round(&self) -> Option<u32> {
        self.inner.round()
    }

    /// The announcement (JSON bytes) the server registers before round 0: shapes and the
    /// client's boundary and halo ids, nothing else.
    fn announcement<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.announcement().to_json())
    }

    /// handle(frame) -> (kind, bytes)
    ///
    /// Handles one broadcast: `("update", frame)` after training, or `("final", report)` (JSON)
    /// after the final broadcast. Saves the state to `state_path` after answering. Raises
    /// `ProtocolError` for a refused broadcast (the client is unchanged). Releases the GIL.
    fn handle<'py>(
        &mut self,
        py: Python<'py>,
        frame: &[u8],
    ) -> PyResult<(&'static str, Bound<'py, PyBytes>)> {
        let (inner, state) = (&mut self.inner, &self.state);
        let (kind, bytes) = py.detach(|| {
            guard(|| {
                let r = inner.handle(frame)?;
                if let Some(p) = state {
                    inner.save(p)?;
                }
                Ok::<_, FedError>(match r {
                    Reply::Update(f) => ("update", f),
                    Reply::Final(f) => ("final", f.to_json()),
                })
            })
        })?;
        Ok((kind, PyBytes::new(py, &bytes)))
    }

    /// Saves the state to `path` (temporary name, then rename).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        guard(|| self.inner.save(&path))
    }
}

/// FedServer(method, train_config, num_clients, min_clients=None, resume_from=None)
///
/// The aggregation server: registers the clients' announcements, starts round 0, accepts
/// updates (a refused frame raises `ProtocolError` and is logged by client), closes a round when
/// at least `min_clients` (default: all) updates are in, and builds the run's report from the
/// final reports. With `resume_from`, continues from a checkpoint written by `checkpoint`
/// (same options required).
#[pyclass(module = "dpgraph.fed")]
pub(crate) struct FedServer {
    /// Boxed for the same reason as [`FedClient::inner`].
    inner: Box<OrgServer>,
}

#[pymethods]
impl FedServer {
    #[new]
    #[pyo3(signature = (method, train_config, num_clients, min_clients=None, resume_from=None))]
    fn new(
        method: &str,
        train_config: &str,
        num_clients: u32,
        min_clients: Option<usize>,
        resume_from: Option<PathBuf>,
    ) -> PyResult<Self> {
        let options = ServerOptions {
            method: self::method(method)?,
            train: config(train_config)?,
            num_clients,
            min_clients: min_clients.unwrap_or(num_clients as usize),
        };
        let inner = guard(|| match &resume_from {
            Some(p) => OrgServer::resume(p, options),
            None => OrgServer::new(options),
        })?;
        Ok(Self {
            inner: Box::new(inner),
        })
    }

    /// Registers an announcement (bytes); returns the client id.
    fn register(&mut self, announcement: &[u8]) -> PyResult<u32> {
        guard(|| {
            let a = Announcement::from_json(announcement)?;
            self.inner.register(a)
        })
    }

    /// Client ids that have not announced themselves.
    fn unregistered(&self) -> Vec<u32> {
        self.inner.unregistered()
    }

    /// Starts round 0 (all clients registered). Releases the GIL.
    fn start(&mut self, py: Python<'_>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| guard(|| inner.start()))
    }

    /// Whether the run has started.
    #[getter]
    fn started(&self) -> bool {
        self.inner.round().is_some()
    }

    /// The round being collected (None before the start).
    #[getter]
    fn round(&self) -> Option<u32> {
        self.inner.round()
    }

    /// Whether the current broadcast is the final model (answered by final reports).
    #[getter]
    fn is_final(&self) -> bool {
        self.inner.is_final()
    }

    /// The current broadcast (bytes) to client `client`.
    fn frame<'py>(&self, py: Python<'py>, client: u32) -> PyResult<Bound<'py, PyBytes>> {
        self.inner
            .frame(client)
            .map(|f| PyBytes::new(py, f))
            .ok_or_else(|| InvalidParameter::new_err(format!("no broadcast for client {client}")))
    }

    /// Accepts client `client`'s update; raises `ProtocolError` when refused (logged).
    fn accept(&mut self, client: u32, frame: &[u8]) -> PyResult<()> {
        guard(|| self.inner.accept(client, frame))
    }

    /// Closes the round: a dict with `round`, `aggregated` and `absent` client ids. Raises
    /// `ProtocolError` with fewer than `min_clients` updates (nothing changes).
    fn finish_round<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let inner = &mut self.inner;
        let o = py.detach(|| guard(|| inner.finish_round()))?;
        let d = PyDict::new(py);
        d.set_item("round", o.round)?;
        d.set_item("aggregated", o.aggregated)?;
        d.set_item("absent", o.absent)?;
        Ok(d)
    }

    /// Accepts client `client`'s final report (bytes).
    fn accept_final(&mut self, client: u32, report: &[u8]) -> PyResult<()> {
        guard(|| self.inner.accept_final(client, report))
    }

    /// The run's report as JSON: scores, traffic per round, privacy per client, events, and
    /// `not_covered`: what ε(p) leaves out (the model updates and gradients of every round).
    fn report(&self) -> PyResult<String> {
        let r = guard(|| self.inner.report())?;
        serde_json::to_string(&r).map_err(|e| DataError::new_err(e.to_string()))
    }

    /// Writes the checkpoint to `path` (temporary name, then rename). Releases the GIL.
    fn checkpoint(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let inner = &self.inner;
        py.detach(|| guard(|| inner.checkpoint(&path)))
    }
}

// Python's allocator aligns objects to 16 bytes: a pyclass must not need more.
const _: () = assert!(std::mem::align_of::<FedClient>() <= 16);
const _: () = assert!(std::mem::align_of::<FedServer>() <= 16);

/// simulate(dataset, clients=None, partition="random", split=None, generate_accounts=None,
///          banks=8, method="cefedgnn", rounds=20, local_steps=32, sigma0=1.0, radius=None,
///          delta=1e-5, clip=None, model=None, lr=None, gamma=0.5, beta=0.5, fanout=None,
///          hidden=None, halo_average=None, grad_clip=None, gradient="momentum", dropout=None,
///          seed=None, data_dir=None) -> dict
///
/// One federated run in this process, as `dpgraph fed simulate` runs it (the same keywords as
/// its flags, the same defaults, the same task for the same seed). `dataset`: a citation graph
/// (`cora`, …; installed on first use), an AML dataset (`amlsim-small`, …) or `aml-generated`
/// (with `generate_accounts` accounts at `banks` banks). Training randomness comes from `seed`,
/// else from the OS; the boundary noise from the OS CSPRNG unless `seed` is given (then the run
/// is reproducible and not private). Returns the record `dpgraph fed simulate --json` prints,
/// from the same Rust value (`cefedgnn::ops::SimulationSummary`): F1 per client and overall,
/// traffic, the guarantee (`eps`, `privacy`, `not_covered`), the seeds and the noise record.
/// Raises `InvalidParameter` for a value outside its domain. Releases the GIL while training.
#[pyfunction]
#[pyo3(signature = (dataset, clients=None, partition="random", split=None, generate_accounts=None, banks=8, method="cefedgnn", rounds=20, local_steps=32, sigma0=1.0, radius=None, delta=1e-5, clip=None, model=None, lr=None, gamma=0.5, beta=0.5, fanout=None, hidden=None, halo_average=None, grad_clip=None, gradient="momentum", dropout=None, seed=None, data_dir=None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments, one per flag of the CLI
pub(crate) fn simulate<'py>(
    py: Python<'py>,
    dataset: &str,
    clients: Option<usize>,
    partition: &str,
    split: Option<&str>,
    generate_accounts: Option<usize>,
    banks: usize,
    method: &str,
    rounds: u32,
    local_steps: u32,
    sigma0: f64,
    radius: Option<f64>,
    delta: f64,
    clip: Option<f64>,
    model: Option<&str>,
    lr: Option<f64>,
    gamma: f64,
    beta: f64,
    fanout: Option<usize>,
    hidden: Option<usize>,
    halo_average: Option<f64>,
    grad_clip: Option<f64>,
    gradient: &str,
    dropout: Option<f64>,
    seed: Option<u64>,
    data_dir: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    use cefedgnn::ops::RunOptions;
    use cefedgnn::train::{AmlSplit, AmlTaskOptions};

    let name = dataset.to_ascii_lowercase();
    let aml = generate_accounts.is_some() || name.starts_with("aml");
    let split: Option<AmlSplit> = split.map(crate::choices::parse).transpose()?;
    if !aml && split.is_some_and(|s| s != AmlSplit::Random) {
        return Err(InvalidParameter::new_err(
            "split=\"time\" needs transaction times: only AML tasks have them",
        ));
    }
    let method: Method = crate::choices::parse(method)?;
    // σ₀ and δ are refused here, once, with dp-core's message (as the CLI's parser does).
    let options = RunOptions {
        rounds,
        local_steps,
        sigma0: guard(|| dp_core::params::NoiseMultiplier::new(sigma0))?,
        radius,
        delta: guard(|| dp_core::params::Delta::new(delta))?,
        clip,
        model: model.map(crate::choices::parse).transpose()?,
        lr,
        gamma,
        beta,
        fanout,
        hidden,
        halo_average,
        grad_clip,
        gradient: crate::choices::parse(gradient)?,
        dropout,
    };
    let aml_options = AmlTaskOptions {
        clients,
        split: split.unwrap_or(AmlSplit::Random),
        ..AmlTaskOptions::default()
    };
    let partition = crate::choices::parse(partition)?;
    let training_seed = match seed {
        Some(s) => s,
        None => guard(dp_core::rng::os_seed)?,
    };
    let noise = dp_core::rng::NoiseSource::from_seed(seed);
    let cfg = guard(|| options.config(aml, training_seed, noise))?;
    let dir = if name == "aml-generated" || generate_accounts.is_some() {
        None
    } else {
        Some(crate::graph::installed_dir(py, &name, data_dir)?)
    };
    let source = TaskSource {
        name,
        aml,
        dir,
        generate_accounts,
        banks,
        aml_options,
        clients,
        partition,
    };
    let summary = py.detach(|| {
        guard(|| {
            let task = source.task(&mut cefedgnn::train::task_rng(training_seed))?;
            cefedgnn::ops::simulate(&task, &cfg, method, &mut |_| {}).map(|(_, s)| s)
        })
    })?;
    crate::error::record(py, &summary)
}

/// Where `simulate`'s task comes from: a generated AML graph (no data directory), an installed
/// AML dataset or an installed node-classification dataset.
struct TaskSource {
    name: String,
    aml: bool,
    dir: Option<PathBuf>,
    generate_accounts: Option<usize>,
    banks: usize,
    aml_options: cefedgnn::train::AmlTaskOptions,
    clients: Option<usize>,
    partition: cefedgnn::train::PartitionKind,
}

impl TaskSource {
    /// Loads the data and builds the task as `dpgraph fed simulate` does.
    fn task(
        &self,
        rng: &mut dp_core::rng::ChaCha8Rng,
    ) -> Result<cefedgnn::train::FedTask, FedError> {
        use cefedgnn::ops::TaskSpec;
        let Some(dir) = &self.dir else {
            let spec = TaskSpec::GeneratedAml {
                accounts: self.generate_accounts.unwrap_or(4000),
                banks: self.banks,
                options: self.aml_options,
            };
            return spec.build(rng);
        };
        if self.aml {
            let graph = cefedgnn::aml::load_by_name(&self.name, dir)?.to_account_graph()?;
            let spec = TaskSpec::Accounts {
                name: &self.name,
                graph: &graph,
                options: self.aml_options,
            };
            return spec.build(rng);
        }
        let graph_core::Dataset::Nodes(nodes) = graph_core::Registry::embedded()
            .get(&self.name)?
            .load(dir)?
        else {
            return Err(FedError::InvalidParam {
                name: "dataset",
                value: self.name.clone(),
                reason: "not a node-classification dataset",
            });
        };
        let spec = TaskSpec::Nodes {
            dataset: &nodes,
            clients: self.clients.unwrap_or(5),
            partition: self.partition,
        };
        spec.build(rng)
    }
}
