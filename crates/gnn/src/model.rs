//! Models: the [`Gnn`] module (a stack of message-passing layers, optional pooling and head),
//! one burn-style `Config` per architecture ([`GcnConfig`], [`SageConfig`], [`GatConfig`],
//! [`GinConfig`], [`MlpConfig`]), and [`ModelConfig`] with the papers' presets by name.

use burn::config::Config;
use burn::module::Module;
use burn::tensor::activation::{elu, gelu, relu, tanh};
use burn::tensor::{Device, Tensor};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::kernels::{self, Pointwise};
use crate::layers::{GatConv, GcnConv, GinConv, GineConv, Linear, Pooling, SageConv, pool};
use crate::tensors::{DropoutRng, GraphInput, GraphTensors, Input, dropout};

/// Non-linearity between layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Activation {
    /// `max(0, x)`.
    Relu,
    /// ELU with α = 1 (GAT).
    Elu,
    /// GELU (smooth, for CE-FedGNN's theory).
    Gelu,
    /// tanh (smooth).
    Tanh,
}

impl Activation {
    /// Applies the activation.
    pub fn apply(self, x: Tensor<2>) -> Tensor<2> {
        self.apply_with(x, true)
    }

    /// [`Activation::apply`], with ELU as a fused kernel when `fused`.
    pub(crate) fn apply_with(self, x: Tensor<2>, fused: bool) -> Tensor<2> {
        if fused
            && self == Self::Elu
            && let Some(y) = kernels::pointwise(&x, Pointwise::Elu(1.0))
        {
            return y;
        }
        match self {
            Self::Relu => relu(x),
            Self::Elu => elu(x, 1.0),
            Self::Gelu => gelu(x),
            Self::Tanh => tanh(x),
        }
    }
}

/// One layer of a [`Gnn`].
#[derive(Module, Debug)]
pub enum Conv {
    /// GCN.
    Gcn(GcnConv),
    /// GraphSAGE-mean.
    Sage(SageConv),
    /// GAT.
    Gat(GatConv),
    /// GIN.
    Gin(GinConv),
    /// GIN with edge features.
    Gine(GineConv),
    /// A graph-agnostic dense layer (MLP).
    Linear(Linear),
}

impl Conv {
    /// Forward pass of the layer (`rng` enables GAT's attention dropout).
    pub fn forward(&self, x: &Input, g: &GraphTensors, rng: Option<&mut DropoutRng>) -> Tensor<2> {
        match self {
            Self::Gcn(l) => l.forward(x, g),
            Self::Sage(l) => l.forward(x, g),
            Self::Gat(l) => l.forward(x, g, rng),
            Self::Gin(l) => l.forward(x, g),
            Self::Gine(l) => l.forward(x, g),
            Self::Linear(l) => l.forward(x),
        }
    }
}

/// A graph neural network: `layers` of message passing with dropout before each layer and the
/// activation after each hidden layer; for graph-level models, pooling, dropout and a linear
/// `head` follow the (all activated) layers.
#[derive(Module, Debug)]
pub struct Gnn {
    /// The message-passing (or dense) layers.
    pub layers: Vec<Conv>,
    /// Linear head after pooling (graph-level models only).
    pub head: Option<Linear>,
    /// Dropout before every layer but the first, and before the head.
    pub dropout: f64,
    /// Dropout on the input features.
    pub input_dropout: f64,
    /// Activation between layers.
    #[module(skip)]
    pub activation: Activation,
    /// Readout for graph-level models.
    #[module(skip)]
    pub pooling: Option<Pooling>,
}

impl Gnn {
    /// Number of layers (pooling head excluded).
    pub fn num_layers(&self) -> usize {
        self.layers.len()
    }

    /// Whether the model predicts per graph (has pooling).
    pub fn is_graph_level(&self) -> bool {
        self.pooling.is_some()
    }

    /// Forward pass: node logits `[n, out]`, or graph logits `[G, out]` for a pooling model.
    /// Dropout is active when `rng` is given (training) and off otherwise.
    ///
    /// # Errors
    /// [`Error::Incompatible`] for a pooling model on an input without a pooling index.
    pub fn forward(&self, input: &GraphInput, rng: Option<&mut DropoutRng>) -> Result<Tensor<2>> {
        self.run(input, rng, None)
    }

    /// Node embeddings after every layer (post-activation for hidden layers), in evaluation
    /// mode (no dropout). `embeddings(x)[k]` is the input of layer `k + 1`.
    ///
    /// # Errors
    /// As [`Gnn::forward`].
    pub fn embeddings(&self, input: &GraphInput) -> Result<Vec<Tensor<2>>> {
        let mut out = Vec::with_capacity(self.layers.len());
        self.run(input, None, Some(&mut out))?;
        Ok(out)
    }

    /// Runs layer `index` alone on `x` (e.g. on externally mixed embeddings), applying the
    /// dropout before it and the activation after it as [`Gnn::forward`] does.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for an index `>= num_layers`; [`Error::Incompatible`] for a GINE
    /// layer on a graph without edge features of its width.
    pub fn layer_forward(
        &self,
        index: usize,
        x: Input,
        graph: &GraphTensors,
        mut rng: Option<&mut DropoutRng>,
    ) -> Result<Tensor<2>> {
        let layer = self.layers.get(index).ok_or_else(|| Error::InvalidParam {
            name: "layer index",
            value: index.to_string(),
            reason: "beyond the last layer",
        })?;
        if let Conv::Gine(l) = layer
            && graph.edge_dim() != Some(l.d_edge)
        {
            return Err(Error::Incompatible(format!(
                "GINE layer {index} needs edge features of width {}, the graph has {:?}",
                l.d_edge,
                graph.edge_dim()
            )));
        }
        let p = if index == 0 {
            self.input_dropout
        } else {
            self.dropout
        };
        let x = x.dropout_with(p, rng.as_deref_mut(), graph.fused);
        let z = layer.forward(&x, graph, rng);
        Ok(if index + 1 < self.layers.len() || self.pooling.is_some() {
            self.activation.apply_with(z, graph.fused)
        } else {
            z
        })
    }

    fn run(
        &self,
        input: &GraphInput,
        mut rng: Option<&mut DropoutRng>,
        mut keep: Option<&mut Vec<Tensor<2>>>,
    ) -> Result<Tensor<2>> {
        let mut h = input.x.clone();
        for i in 0..self.layers.len() {
            let z = self.layer_forward(i, h, &input.graph, rng.as_deref_mut())?;
            if let Some(k) = keep.as_deref_mut() {
                k.push(z.clone());
            }
            h = Input::Dense(z);
        }
        let Input::Dense(h) = h else {
            // A model without layers passes its input through.
            return Ok(h.to_dense());
        };
        match (self.pooling, &self.head) {
            (Some(p), Some(head)) => {
                let index = input.pool.as_ref().ok_or_else(|| {
                    Error::Incompatible("graph-level model needs a batch of graphs".into())
                })?;
                let g = dropout(pool(h, index, p), self.dropout, rng);
                Ok(head.forward(&Input::Dense(g)))
            }
            _ => Ok(h),
        }
    }
}

fn check_dims(d_input: usize, d_hidden: usize, d_output: usize, num_layers: usize) -> Result<()> {
    for (name, v) in [
        ("d_input", d_input),
        ("d_hidden", d_hidden),
        ("d_output", d_output),
        ("num_layers", num_layers),
    ] {
        if v == 0 {
            return Err(Error::InvalidParam {
                name,
                value: "0".into(),
                reason: "must be positive",
            });
        }
    }
    Ok(())
}

fn check_rate(name: &'static str, p: f64) -> Result<()> {
    if !(0.0..1.0).contains(&p) {
        return Err(Error::InvalidParam {
            name,
            value: p.to_string(),
            reason: "dropout must lie in [0, 1)",
        });
    }
    Ok(())
}

/// Layer widths `(in, out)` of a stack: node-level stacks end in `d_output`, graph-level stacks
/// stay at `d_hidden` (the head maps to `d_output`).
fn widths(
    d_input: usize,
    d_hidden: usize,
    d_output: usize,
    num_layers: usize,
    graph_level: bool,
) -> Vec<(usize, usize)> {
    (0..num_layers)
        .map(|i| {
            let din = if i == 0 { d_input } else { d_hidden };
            let dout = if i + 1 == num_layers && !graph_level {
                d_output
            } else {
                d_hidden
            };
            (din, dout)
        })
        .collect()
}

#[allow(clippy::too_many_arguments)] // internal assembly of the common fields
fn assemble<R: Rng + ?Sized>(
    layers: Vec<Conv>,
    d_last: usize,
    d_output: usize,
    dropout: f64,
    input_dropout: Option<f64>,
    activation: Activation,
    pooling: Option<Pooling>,
    device: &Device,
    rng: &mut R,
) -> Gnn {
    Gnn {
        layers,
        head: pooling.map(|_| Linear::new(d_last, d_output, true, device, rng)),
        dropout,
        input_dropout: input_dropout.unwrap_or(dropout),
        activation,
        pooling,
    }
}

macro_rules! common_init {
    ($cfg:ident) => {
        impl $cfg {
            /// Builds the model with parameters drawn from a `ChaCha8` RNG seeded with
            /// `self.seed`.
            ///
            /// # Panics
            /// On invalid hyper-parameters; use [`Self::try_init`] to get an error instead.
            pub fn init(&self, device: &Device) -> Gnn {
                self.try_init(device)
                    .expect("invalid model configuration (see try_init)")
            }

            /// Builds the model with parameters drawn from a `ChaCha8` RNG seeded with
            /// `self.seed`.
            ///
            /// # Errors
            /// [`Error::InvalidParam`] for zero widths or layers, or dropout outside `[0, 1)`.
            pub fn try_init(&self, device: &Device) -> Result<Gnn> {
                self.init_with_rng(device, &mut ChaCha8Rng::seed_from_u64(self.seed))
            }
        }
    };
}

/// GCN: `num_layers` [`GcnConv`] layers, ReLU, dropout (EdgeRefine: 2 layers, hidden 16,
/// dropout 0.6).
///
/// # Example
/// ```
/// use gnn::GcnConfig;
/// let device = burn::tensor::Device::flex();
/// let model = GcnConfig::new(1433, 16, 7).with_dropout(0.6).init(&device);
/// assert_eq!(model.num_layers(), 2);
/// ```
#[derive(Config, Debug, PartialEq)]
pub struct GcnConfig {
    /// Input feature width.
    pub d_input: usize,
    /// Hidden width.
    pub d_hidden: usize,
    /// Output width (classes).
    pub d_output: usize,
    /// Number of GCN layers.
    #[config(default = 2)]
    pub num_layers: usize,
    /// Dropout between layers.
    #[config(default = 0.5)]
    pub dropout: f64,
    /// Dropout on the input features (default: `dropout`).
    #[config(default = "None")]
    pub input_dropout: Option<f64>,
    /// Activation.
    #[config(default = "Activation::Relu")]
    pub activation: Activation,
    /// Pooling for graph-level prediction (None: node-level).
    #[config(default = "None")]
    pub pooling: Option<Pooling>,
    /// Initialisation seed.
    #[config(default = 0)]
    pub seed: u64,
}

impl GcnConfig {
    /// Builds the model drawing parameters from `rng`.
    ///
    /// # Errors
    /// As [`GcnConfig::try_init`].
    pub fn init_with_rng<R: Rng + ?Sized>(&self, device: &Device, rng: &mut R) -> Result<Gnn> {
        check_dims(self.d_input, self.d_hidden, self.d_output, self.num_layers)?;
        check_rate("dropout", self.dropout)?;
        check_rate("input_dropout", self.input_dropout.unwrap_or(0.0))?;
        let w = widths(
            self.d_input,
            self.d_hidden,
            self.d_output,
            self.num_layers,
            self.pooling.is_some(),
        );
        let layers = w
            .iter()
            .map(|&(i, o)| Conv::Gcn(GcnConv::new(i, o, device, rng)))
            .collect();
        Ok(assemble(
            layers,
            self.d_hidden,
            self.d_output,
            self.dropout,
            self.input_dropout,
            self.activation,
            self.pooling,
            device,
            rng,
        ))
    }
}
common_init!(GcnConfig);

/// GraphSAGE-mean: `num_layers` [`SageConv`] layers.
#[derive(Config, Debug, PartialEq)]
pub struct SageConfig {
    /// Input feature width.
    pub d_input: usize,
    /// Hidden width.
    pub d_hidden: usize,
    /// Output width.
    pub d_output: usize,
    /// Number of layers.
    #[config(default = 2)]
    pub num_layers: usize,
    /// Dropout between layers.
    #[config(default = 0.5)]
    pub dropout: f64,
    /// Dropout on the input features (default: `dropout`).
    #[config(default = "None")]
    pub input_dropout: Option<f64>,
    /// Activation.
    #[config(default = "Activation::Relu")]
    pub activation: Activation,
    /// Pooling for graph-level prediction.
    #[config(default = "None")]
    pub pooling: Option<Pooling>,
    /// Initialisation seed.
    #[config(default = 0)]
    pub seed: u64,
}

impl SageConfig {
    /// Builds the model drawing parameters from `rng`.
    ///
    /// # Errors
    /// As [`SageConfig::try_init`].
    pub fn init_with_rng<R: Rng + ?Sized>(&self, device: &Device, rng: &mut R) -> Result<Gnn> {
        check_dims(self.d_input, self.d_hidden, self.d_output, self.num_layers)?;
        check_rate("dropout", self.dropout)?;
        check_rate("input_dropout", self.input_dropout.unwrap_or(0.0))?;
        let w = widths(
            self.d_input,
            self.d_hidden,
            self.d_output,
            self.num_layers,
            self.pooling.is_some(),
        );
        let layers = w
            .iter()
            .map(|&(i, o)| Conv::Sage(SageConv::new(i, o, device, rng)))
            .collect();
        Ok(assemble(
            layers,
            self.d_hidden,
            self.d_output,
            self.dropout,
            self.input_dropout,
            self.activation,
            self.pooling,
            device,
            rng,
        ))
    }
}
common_init!(SageConfig);

/// GAT: hidden layers of `heads` concatenated heads of width `d_hidden`, a last layer of
/// `out_heads` averaged heads, ELU (EdgeRefine: 8 heads × 16, then 1 head; dropout 0.6).
#[derive(Config, Debug, PartialEq)]
pub struct GatConfig {
    /// Input feature width.
    pub d_input: usize,
    /// Width per head of the hidden layers.
    pub d_hidden: usize,
    /// Output width.
    pub d_output: usize,
    /// Number of layers.
    #[config(default = 2)]
    pub num_layers: usize,
    /// Heads of the hidden layers (concatenated).
    #[config(default = 8)]
    pub heads: usize,
    /// Heads of the output layer (averaged).
    #[config(default = 1)]
    pub out_heads: usize,
    /// Dropout between layers.
    #[config(default = 0.6)]
    pub dropout: f64,
    /// Dropout on the input features (default: `dropout`).
    #[config(default = "None")]
    pub input_dropout: Option<f64>,
    /// Dropout on attention coefficients.
    #[config(default = 0.6)]
    pub attn_dropout: f64,
    /// Activation.
    #[config(default = "Activation::Elu")]
    pub activation: Activation,
    /// Pooling for graph-level prediction (then every layer concatenates `heads` heads).
    #[config(default = "None")]
    pub pooling: Option<Pooling>,
    /// Initialisation seed.
    #[config(default = 0)]
    pub seed: u64,
}

impl GatConfig {
    /// Builds the model drawing parameters from `rng`.
    ///
    /// # Errors
    /// As [`GatConfig::try_init`], plus zero heads.
    pub fn init_with_rng<R: Rng + ?Sized>(&self, device: &Device, rng: &mut R) -> Result<Gnn> {
        check_dims(self.d_input, self.d_hidden, self.d_output, self.num_layers)?;
        check_dims(self.heads, self.out_heads, 1, 1)?;
        check_rate("dropout", self.dropout)?;
        check_rate("attn_dropout", self.attn_dropout)?;
        check_rate("input_dropout", self.input_dropout.unwrap_or(0.0))?;
        let graph_level = self.pooling.is_some();
        let mut layers = Vec::with_capacity(self.num_layers);
        let mut din = self.d_input;
        for i in 0..self.num_layers {
            let last = i + 1 == self.num_layers && !graph_level;
            let conv = if last {
                GatConv::new(
                    din,
                    self.d_output,
                    self.out_heads,
                    false,
                    self.attn_dropout,
                    device,
                    rng,
                )
            } else {
                GatConv::new(
                    din,
                    self.d_hidden,
                    self.heads,
                    true,
                    self.attn_dropout,
                    device,
                    rng,
                )
            };
            din = conv.width();
            layers.push(Conv::Gat(conv));
        }
        Ok(assemble(
            layers,
            din,
            self.d_output,
            self.dropout,
            self.input_dropout,
            self.activation,
            self.pooling,
            device,
            rng,
        ))
    }
}
common_init!(GatConfig);

/// GIN: `num_layers` [`GinConv`] layers, each with a 2-layer MLP (`d_in → d_hidden → d_out`)
/// and learnable ε (EdgeRefine: MLP(in→32→32) → MLP(32→32→C)).
#[derive(Config, Debug, PartialEq)]
pub struct GinConfig {
    /// Input feature width.
    pub d_input: usize,
    /// Hidden width.
    pub d_hidden: usize,
    /// Output width.
    pub d_output: usize,
    /// Number of GIN layers.
    #[config(default = 2)]
    pub num_layers: usize,
    /// Dropout between layers.
    #[config(default = 0.5)]
    pub dropout: f64,
    /// Dropout on the input features (default: `dropout`).
    #[config(default = "None")]
    pub input_dropout: Option<f64>,
    /// Whether ε is trained.
    #[config(default = true)]
    pub train_eps: bool,
    /// Activation.
    #[config(default = "Activation::Relu")]
    pub activation: Activation,
    /// Pooling for graph-level prediction.
    #[config(default = "None")]
    pub pooling: Option<Pooling>,
    /// Initialisation seed.
    #[config(default = 0)]
    pub seed: u64,
}

impl GinConfig {
    /// Builds the model drawing parameters from `rng`.
    ///
    /// # Errors
    /// As [`GinConfig::try_init`].
    pub fn init_with_rng<R: Rng + ?Sized>(&self, device: &Device, rng: &mut R) -> Result<Gnn> {
        check_dims(self.d_input, self.d_hidden, self.d_output, self.num_layers)?;
        check_rate("dropout", self.dropout)?;
        check_rate("input_dropout", self.input_dropout.unwrap_or(0.0))?;
        let w = widths(
            self.d_input,
            self.d_hidden,
            self.d_output,
            self.num_layers,
            self.pooling.is_some(),
        );
        let layers = w
            .iter()
            .map(|&(i, o)| {
                Conv::Gin(GinConv::new(
                    i,
                    self.d_hidden,
                    o,
                    self.train_eps,
                    device,
                    rng,
                ))
            })
            .collect();
        Ok(assemble(
            layers,
            self.d_hidden,
            self.d_output,
            self.dropout,
            self.input_dropout,
            self.activation,
            self.pooling,
            device,
            rng,
        ))
    }
}
common_init!(GinConfig);

/// GINE: `num_layers` [`GineConv`] layers (GIN with edge features of width `d_edge`, e.g.
/// transaction amount, time, currency and payment format), each with a 2-layer MLP
/// (`d_in → d_hidden → d_out`) and learnable ε. Inputs need edge features
/// ([`crate::EdgeList::with_edge_features`]).
///
/// # Example
/// ```
/// use gnn::{EdgeList, GineConfig, GraphInput, GraphTensors, Input};
/// let device = burn::tensor::Device::flex();
/// let model = GineConfig::new(3, 2, 8, 2).init(&device);
/// let edges = EdgeList::new(3, &[(0, 1), (1, 0), (1, 2), (2, 1)])?
///     .with_edge_features(ndarray::Array2::ones((4, 2)))?;
/// let x = Input::dense_from_array(&ndarray::Array2::ones((3, 3)), &device);
/// let input = GraphInput { x, graph: GraphTensors::new(&edges, &device), pool: None };
/// assert_eq!(model.forward(&input, None)?.dims(), [3, 2]);
/// # Ok::<(), gnn::Error>(())
/// ```
#[derive(Config, Debug, PartialEq)]
pub struct GineConfig {
    /// Input feature width.
    pub d_input: usize,
    /// Edge feature width.
    pub d_edge: usize,
    /// Hidden width.
    pub d_hidden: usize,
    /// Output width.
    pub d_output: usize,
    /// Number of GINE layers.
    #[config(default = 2)]
    pub num_layers: usize,
    /// Dropout between layers.
    #[config(default = 0.5)]
    pub dropout: f64,
    /// Dropout on the input features (default: `dropout`).
    #[config(default = "None")]
    pub input_dropout: Option<f64>,
    /// Whether ε is trained.
    #[config(default = true)]
    pub train_eps: bool,
    /// Activation.
    #[config(default = "Activation::Relu")]
    pub activation: Activation,
    /// Pooling for graph-level prediction.
    #[config(default = "None")]
    pub pooling: Option<Pooling>,
    /// Initialisation seed.
    #[config(default = 0)]
    pub seed: u64,
}

impl GineConfig {
    /// Builds the model drawing parameters from `rng`.
    ///
    /// # Errors
    /// As [`GineConfig::try_init`], plus a zero `d_edge`.
    pub fn init_with_rng<R: Rng + ?Sized>(&self, device: &Device, rng: &mut R) -> Result<Gnn> {
        check_dims(self.d_input, self.d_hidden, self.d_output, self.num_layers)?;
        check_dims(self.d_edge, 1, 1, 1)?;
        check_rate("dropout", self.dropout)?;
        check_rate("input_dropout", self.input_dropout.unwrap_or(0.0))?;
        let w = widths(
            self.d_input,
            self.d_hidden,
            self.d_output,
            self.num_layers,
            self.pooling.is_some(),
        );
        let layers = w
            .iter()
            .map(|&(i, o)| {
                Conv::Gine(GineConv::new(
                    i,
                    self.d_edge,
                    self.d_hidden,
                    o,
                    self.train_eps,
                    device,
                    rng,
                ))
            })
            .collect();
        Ok(assemble(
            layers,
            self.d_hidden,
            self.d_output,
            self.dropout,
            self.input_dropout,
            self.activation,
            self.pooling,
            device,
            rng,
        ))
    }
}
common_init!(GineConfig);

/// MLP: `num_layers` dense layers that ignore the graph (the structure-free baseline).
#[derive(Config, Debug, PartialEq)]
pub struct MlpConfig {
    /// Input feature width.
    pub d_input: usize,
    /// Hidden width.
    pub d_hidden: usize,
    /// Output width.
    pub d_output: usize,
    /// Number of layers.
    #[config(default = 2)]
    pub num_layers: usize,
    /// Dropout between layers.
    #[config(default = 0.5)]
    pub dropout: f64,
    /// Dropout on the input features (default: `dropout`).
    #[config(default = "None")]
    pub input_dropout: Option<f64>,
    /// Activation.
    #[config(default = "Activation::Relu")]
    pub activation: Activation,
    /// Pooling for graph-level prediction (a DeepSets-style baseline).
    #[config(default = "None")]
    pub pooling: Option<Pooling>,
    /// Initialisation seed.
    #[config(default = 0)]
    pub seed: u64,
}

impl MlpConfig {
    /// Builds the model drawing parameters from `rng`.
    ///
    /// # Errors
    /// As [`MlpConfig::try_init`].
    pub fn init_with_rng<R: Rng + ?Sized>(&self, device: &Device, rng: &mut R) -> Result<Gnn> {
        check_dims(self.d_input, self.d_hidden, self.d_output, self.num_layers)?;
        check_rate("dropout", self.dropout)?;
        check_rate("input_dropout", self.input_dropout.unwrap_or(0.0))?;
        let w = widths(
            self.d_input,
            self.d_hidden,
            self.d_output,
            self.num_layers,
            self.pooling.is_some(),
        );
        let layers = w
            .iter()
            .map(|&(i, o)| Conv::Linear(Linear::new(i, o, true, device, rng)))
            .collect();
        Ok(assemble(
            layers,
            self.d_hidden,
            self.d_output,
            self.dropout,
            self.input_dropout,
            self.activation,
            self.pooling,
            device,
            rng,
        ))
    }
}
common_init!(MlpConfig);

/// Any model configuration; serialisable, and the papers' presets by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ModelConfig {
    /// GCN.
    Gcn(GcnConfig),
    /// GraphSAGE-mean.
    Sage(SageConfig),
    /// GAT.
    Gat(GatConfig),
    /// GIN.
    Gin(GinConfig),
    /// GIN with edge features.
    Gine(GineConfig),
    /// MLP.
    Mlp(MlpConfig),
}

/// Names accepted by [`ModelConfig::by_name`].
pub const MODEL_NAMES: &[&str] = &[
    "gcn",
    "sage",
    "gat",
    "gin",
    "mlp",
    "edgerefine-gcn",
    "edgerefine-gat",
    "edgerefine-gin",
    "edgerefine-mlp",
    "edgerefine-graph-gcn",
    "edgerefine-graph-gat",
    "edgerefine-graph-gin",
    "homdp-gin",
];

impl ModelConfig {
    /// A model by name, for `d_input` features and `d_output` classes:
    /// - `gcn`, `sage`, `gat`, `gin`, `mlp`: the configs' defaults with hidden width 64 (GAT 8);
    /// - `edgerefine-{gcn,gat,gin,mlp}`: EdgeRefine's node-classification protocol (GCN 2 layers,
    ///   hidden 16, dropout 0.6; GAT 8 heads × 16 then 1 head, dropout 0.6; GIN MLP(in→32→32) →
    ///   MLP(32→32→C), dropout 0.5; MLP 2 layers, hidden 64, dropout 0.5);
    /// - `edgerefine-graph-{gcn,gat,gin}`: EdgeRefine's MUTAG protocol (GCN/GIN hidden 64,
    ///   GAT 32 × 4 heads, 3 layers, mean pool, linear head);
    /// - `homdp-gin`: HOMDP's baseline (GIN, 5 layers, hidden 300, mean pool).
    ///
    /// # Errors
    /// [`Error::UnknownModel`] for other names.
    ///
    /// # Example
    /// ```
    /// use gnn::ModelConfig;
    /// let cfg = ModelConfig::by_name("homdp-gin", 1, 2)?;
    /// let model = cfg.init(&burn::tensor::Device::flex())?;
    /// assert_eq!(model.num_layers(), 5);
    /// assert!(model.is_graph_level());
    /// # Ok::<(), gnn::Error>(())
    /// ```
    pub fn by_name(name: &str, d_input: usize, d_output: usize) -> Result<Self> {
        let (i, o) = (d_input, d_output);
        let mean = Some(Pooling::Mean);
        Ok(match name.to_ascii_lowercase().as_str() {
            "gcn" => Self::Gcn(GcnConfig::new(i, 64, o)),
            "sage" => Self::Sage(SageConfig::new(i, 64, o)),
            "gat" => Self::Gat(GatConfig::new(i, 8, o)),
            "gin" => Self::Gin(GinConfig::new(i, 64, o)),
            "mlp" => Self::Mlp(MlpConfig::new(i, 64, o)),
            "edgerefine-gcn" => Self::Gcn(GcnConfig::new(i, 16, o).with_dropout(0.6)),
            "edgerefine-gat" => Self::Gat(
                GatConfig::new(i, 16, o)
                    .with_heads(8)
                    .with_out_heads(1)
                    .with_dropout(0.6)
                    .with_attn_dropout(0.6),
            ),
            "edgerefine-gin" => Self::Gin(GinConfig::new(i, 32, o).with_dropout(0.5)),
            "edgerefine-mlp" => Self::Mlp(MlpConfig::new(i, 64, o).with_dropout(0.5)),
            "edgerefine-graph-gcn" => Self::Gcn(
                GcnConfig::new(i, 64, o)
                    .with_num_layers(3)
                    .with_dropout(0.0)
                    .with_pooling(mean),
            ),
            "edgerefine-graph-gat" => Self::Gat(
                GatConfig::new(i, 32, o)
                    .with_heads(4)
                    .with_num_layers(3)
                    .with_dropout(0.0)
                    .with_attn_dropout(0.0)
                    .with_pooling(mean),
            ),
            "edgerefine-graph-gin" => Self::Gin(
                GinConfig::new(i, 64, o)
                    .with_num_layers(3)
                    .with_dropout(0.0)
                    .with_pooling(mean),
            ),
            "homdp-gin" => Self::Gin(
                GinConfig::new(i, 300, o)
                    .with_num_layers(5)
                    .with_dropout(0.0)
                    .with_pooling(mean),
            ),
            other => return Err(Error::UnknownModel(other.to_string())),
        })
    }

    /// The same configuration with another initialisation seed.
    pub fn with_seed(self, seed: u64) -> Self {
        match self {
            Self::Gcn(c) => Self::Gcn(c.with_seed(seed)),
            Self::Sage(c) => Self::Sage(c.with_seed(seed)),
            Self::Gat(c) => Self::Gat(c.with_seed(seed)),
            Self::Gin(c) => Self::Gin(c.with_seed(seed)),
            Self::Gine(c) => Self::Gine(c.with_seed(seed)),
            Self::Mlp(c) => Self::Mlp(c.with_seed(seed)),
        }
    }

    /// Builds the model from the config's own seed.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for invalid hyper-parameters.
    pub fn init(&self, device: &Device) -> Result<Gnn> {
        match self {
            Self::Gcn(c) => c.try_init(device),
            Self::Sage(c) => c.try_init(device),
            Self::Gat(c) => c.try_init(device),
            Self::Gin(c) => c.try_init(device),
            Self::Gine(c) => c.try_init(device),
            Self::Mlp(c) => c.try_init(device),
        }
    }

    /// Builds the model drawing parameters from `rng`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for invalid hyper-parameters.
    pub fn init_with_rng<R: Rng + ?Sized>(&self, device: &Device, rng: &mut R) -> Result<Gnn> {
        match self {
            Self::Gcn(c) => c.init_with_rng(device, rng),
            Self::Sage(c) => c.init_with_rng(device, rng),
            Self::Gat(c) => c.init_with_rng(device, rng),
            Self::Gin(c) => c.init_with_rng(device, rng),
            Self::Gine(c) => c.init_with_rng(device, rng),
            Self::Mlp(c) => c.init_with_rng(device, rng),
        }
    }

    /// Whether the model pools to graph level.
    pub fn is_graph_level(&self) -> bool {
        match self {
            Self::Gcn(c) => c.pooling.is_some(),
            Self::Sage(c) => c.pooling.is_some(),
            Self::Gat(c) => c.pooling.is_some(),
            Self::Gin(c) => c.pooling.is_some(),
            Self::Gine(c) => c.pooling.is_some(),
            Self::Mlp(c) => c.pooling.is_some(),
        }
    }

    /// `(d_input, d_output)`.
    pub fn io_dims(&self) -> (usize, usize) {
        match self {
            Self::Gcn(c) => (c.d_input, c.d_output),
            Self::Sage(c) => (c.d_input, c.d_output),
            Self::Gat(c) => (c.d_input, c.d_output),
            Self::Gin(c) => (c.d_input, c.d_output),
            Self::Gine(c) => (c.d_input, c.d_output),
            Self::Mlp(c) => (c.d_input, c.d_output),
        }
    }
}
