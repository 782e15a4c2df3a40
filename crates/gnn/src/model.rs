//! Models: the [`Gnn`] module (a stack of message-passing layers, optional pooling and head)
//! and its configuration [`ModelConfig`]: the settings every architecture shares plus an
//! [`Architecture`] (GCN, GraphSAGE, GAT with its [`GatHeads`], GIN, GINE,
//! PNA with its [`PnaSettings`], MLP).

use burn::config::Config;
use burn::module::Module;
use burn::tensor::activation::{elu, gelu, relu, tanh};
use burn::tensor::{Device, Tensor};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::kernels::{self, Pointwise};
use crate::layers::{
    GatConv, GcnConv, GinConv, GineConv, Linear, PnaConv, PnaSettings, Pooling, SageConv, pool,
};
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
    /// PNA (optionally with edge features).
    Pna(PnaConv),
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
            Self::Pna(l) => l.forward(x, g),
            Self::Linear(l) => l.forward(x),
        }
    }

    /// The layer's name and the edge-feature width it needs (None: it reads no edge features).
    fn edge_requirement(&self) -> Option<(&'static str, usize)> {
        match self {
            Self::Gine(l) => Some(("GINE", l.d_edge)),
            Self::Pna(l) => l.d_edge().map(|d| ("PNA", d)),
            _ => None,
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
    /// layer, or a PNA layer built with edge features, on a graph without edge features of its
    /// width.
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
        if let Some((name, d_edge)) = layer.edge_requirement()
            && graph.edge_dim() != Some(d_edge)
        {
            return Err(Error::Incompatible(format!(
                "{name} layer {index} needs edge features of width {d_edge}, the graph has {:?}",
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
    crate::error::check_positive(&[
        ("d_input", d_input),
        ("d_hidden", d_hidden),
        ("d_output", d_output),
        ("num_layers", num_layers),
    ])
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

fn assemble<R: Rng + ?Sized>(
    cfg: &ModelConfig,
    layers: Vec<Conv>,
    d_last: usize,
    device: &Device,
    rng: &mut R,
) -> Gnn {
    Gnn {
        layers,
        head: cfg
            .pooling
            .map(|_| Linear::new(d_last, cfg.d_output, true, device, rng)),
        dropout: cfg.dropout,
        input_dropout: cfg.input_dropout.unwrap_or(cfg.dropout),
        activation: cfg.activation,
        pooling: cfg.pooling,
    }
}

/// GAT's own settings: hidden layers of `heads` concatenated heads, an output layer of
/// `out_heads` averaged heads, dropout on the attention coefficients.
#[derive(Config, Debug, PartialEq, Copy)]
pub struct GatHeads {
    /// Heads of the hidden layers (concatenated).
    #[config(default = 8)]
    pub heads: usize,
    /// Heads of the output layer (averaged).
    #[config(default = 1)]
    pub out_heads: usize,
    /// Dropout on attention coefficients.
    #[config(default = 0.6)]
    pub attn_dropout: f64,
}

/// The layer type of a [`ModelConfig`], with the settings only that layer type has.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Architecture {
    /// GCN ([`GcnConv`]).
    Gcn,
    /// GraphSAGE-mean ([`SageConv`]).
    Sage,
    /// GAT ([`GatConv`]): `d_hidden` is the width per head.
    Gat(GatHeads),
    /// GIN ([`GinConv`]): each layer a 2-layer MLP `d_in → d_hidden → d_out`, ε learnable
    /// when `train_eps`.
    Gin {
        /// Whether ε is trained.
        train_eps: bool,
    },
    /// GINE ([`GineConv`]): GIN with edge features of width `d_edge` (e.g. transaction
    /// amount, time, currency and payment format). Inputs need edge features
    /// ([`crate::EdgeList::with_edge_features`]).
    Gine {
        /// Edge feature width.
        d_edge: usize,
        /// Whether ε is trained.
        train_eps: bool,
    },
    /// PNA ([`PnaConv`]): aggregators mean, min, max and std times scalers identity,
    /// amplification and attenuation, with the towers, `δ` and optional edge features of its
    /// [`PnaSettings`]. Every layer's output width (`d_hidden`, and `d_output` for node-level
    /// models) must be a multiple of the tower count.
    Pna(PnaSettings),
    /// Dense layers that ignore the graph (the structure-free baseline; with pooling, a
    /// DeepSets-style graph-level baseline).
    Mlp,
}

/// Any model: the layer type and the settings every architecture shares. Build one with a
/// constructor per architecture ([`ModelConfig::gcn`], [`ModelConfig::gat`], …) and the
/// burn-style `with_*` setters; it is serialisable (burn `Config`).
///
/// A node-level model's last layer maps to `d_output`; a graph-level model (with `pooling`)
/// keeps `d_hidden` through its layers, pools, and ends in a linear head to `d_output`.
///
/// # Example
/// ```
/// use gnn::{ModelConfig, Pooling};
/// let device = burn::tensor::Device::flex();
/// let model = ModelConfig::gcn(1433, 16, 7).with_dropout(0.6).init(&device)?;
/// assert_eq!(model.num_layers(), 2);
/// let graph_level = ModelConfig::gin(1, 300, 2)
///     .with_num_layers(5)
///     .with_pooling(Some(Pooling::Mean))
///     .init(&device)?;
/// assert!(graph_level.is_graph_level());
/// # Ok::<(), gnn::Error>(())
/// ```
#[derive(Config, Debug, PartialEq)]
pub struct ModelConfig {
    /// The layer type and its own settings.
    pub architecture: Architecture,
    /// Input feature width.
    pub d_input: usize,
    /// Hidden width (per head for GAT).
    pub d_hidden: usize,
    /// Output width (classes, or targets).
    pub d_output: usize,
    /// Number of message-passing (or dense) layers.
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

impl ModelConfig {
    /// GCN: ReLU, dropout 0.5, 2 layers.
    pub fn gcn(d_input: usize, d_hidden: usize, d_output: usize) -> Self {
        Self::new(Architecture::Gcn, d_input, d_hidden, d_output)
    }

    /// GraphSAGE-mean: ReLU, dropout 0.5, 2 layers.
    pub fn sage(d_input: usize, d_hidden: usize, d_output: usize) -> Self {
        Self::new(Architecture::Sage, d_input, d_hidden, d_output)
    }

    /// GAT with [`GatHeads::new`] (8 heads × `d_hidden`, then 1 averaged head, attention
    /// dropout 0.6): ELU, dropout 0.6, 2 layers.
    pub fn gat(d_input: usize, d_hidden: usize, d_output: usize) -> Self {
        Self::gat_with(d_input, d_hidden, d_output, GatHeads::new())
    }

    /// GAT with the given heads: ELU, dropout 0.6, 2 layers.
    pub fn gat_with(d_input: usize, d_hidden: usize, d_output: usize, heads: GatHeads) -> Self {
        Self::new(Architecture::Gat(heads), d_input, d_hidden, d_output)
            .with_dropout(0.6)
            .with_activation(Activation::Elu)
    }

    /// GIN with learnable ε: ReLU, dropout 0.5, 2 layers.
    pub fn gin(d_input: usize, d_hidden: usize, d_output: usize) -> Self {
        Self::new(
            Architecture::Gin { train_eps: true },
            d_input,
            d_hidden,
            d_output,
        )
    }

    /// GINE with edge features of width `d_edge` and learnable ε: ReLU, dropout 0.5, 2 layers.
    ///
    /// # Example
    /// ```
    /// use gnn::{EdgeList, GraphInput, GraphTensors, Input, ModelConfig};
    /// let device = burn::tensor::Device::flex();
    /// let model = ModelConfig::gine(3, 2, 8, 2).init(&device)?;
    /// let edges = EdgeList::new(3, &[(0, 1), (1, 0), (1, 2), (2, 1)])?
    ///     .with_edge_features(ndarray::Array2::ones((4, 2)))?;
    /// let x = Input::dense_from_array(&ndarray::Array2::ones((3, 3)), &device);
    /// let input = GraphInput { x, graph: GraphTensors::new(&edges, &device), pool: None };
    /// assert_eq!(model.forward(&input, None)?.dims(), [3, 2]);
    /// # Ok::<(), gnn::Error>(())
    /// ```
    pub fn gine(d_input: usize, d_edge: usize, d_hidden: usize, d_output: usize) -> Self {
        Self::new(
            Architecture::Gine {
                d_edge,
                train_eps: true,
            },
            d_input,
            d_hidden,
            d_output,
        )
    }

    /// PNA with the given towers, `δ` and edge-feature width ([`PnaSettings`]): ReLU, dropout
    /// 0.5, 2 layers. The first layer's messages and aggregates are `d_input` wide (PNA's
    /// towers do not divide the input), so wide inputs are costly.
    ///
    /// # Example
    /// ```
    /// use gnn::{EdgeList, GraphInput, GraphTensors, Input, ModelConfig, PnaSettings};
    /// use gnn::layers::avg_log_degree;
    /// let device = burn::tensor::Device::flex();
    /// let edges = EdgeList::new(3, &[(0, 1), (1, 0), (1, 2), (2, 1)])?;
    /// let delta = avg_log_degree(&edges.in_degrees())?;
    /// let pna = PnaSettings::new(delta).with_towers(2);
    /// let model = ModelConfig::pna(3, 8, 2, pna).init(&device)?;
    /// let x = Input::dense_from_array(&ndarray::Array2::ones((3, 3)), &device);
    /// let input = GraphInput { x, graph: GraphTensors::new(&edges, &device), pool: None };
    /// assert_eq!(model.forward(&input, None)?.dims(), [3, 2]);
    /// // Three towers cannot split 8 hidden features.
    /// assert!(ModelConfig::pna(3, 8, 2, pna.with_towers(3)).init(&device).is_err());
    /// # Ok::<(), gnn::Error>(())
    /// ```
    pub fn pna(d_input: usize, d_hidden: usize, d_output: usize, settings: PnaSettings) -> Self {
        Self::new(Architecture::Pna(settings), d_input, d_hidden, d_output)
    }

    /// MLP (ignores the graph): ReLU, dropout 0.5, 2 layers.
    pub fn mlp(d_input: usize, d_hidden: usize, d_output: usize) -> Self {
        Self::new(Architecture::Mlp, d_input, d_hidden, d_output)
    }

    /// Builds the model with parameters drawn from a `ChaCha8` RNG seeded with `self.seed`.
    ///
    /// # Errors
    /// As [`ModelConfig::init_with_rng`].
    pub fn init(&self, device: &Device) -> Result<Gnn> {
        self.init_with_rng(device, &mut ChaCha8Rng::seed_from_u64(self.seed))
    }

    /// Builds the model drawing parameters from `rng`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for zero widths, layers or heads, a dropout outside `[0, 1)`, or
    /// PNA towers that do not divide a layer's output width or a `δ` that is not finite and
    /// positive.
    pub fn init_with_rng<R: Rng + ?Sized>(&self, device: &Device, rng: &mut R) -> Result<Gnn> {
        check_dims(self.d_input, self.d_hidden, self.d_output, self.num_layers)?;
        check_rate("dropout", self.dropout)?;
        check_rate("input_dropout", self.input_dropout.unwrap_or(0.0))?;
        let graph_level = self.pooling.is_some();
        let w = widths(
            self.d_input,
            self.d_hidden,
            self.d_output,
            self.num_layers,
            graph_level,
        );
        let layers: Vec<Conv> = match self.architecture {
            Architecture::Gat(h) => return self.init_gat(h, device, rng),
            Architecture::Gcn => w
                .iter()
                .map(|&(i, o)| Conv::Gcn(GcnConv::new(i, o, device, rng)))
                .collect(),
            Architecture::Sage => w
                .iter()
                .map(|&(i, o)| Conv::Sage(SageConv::new(i, o, device, rng)))
                .collect(),
            Architecture::Gin { train_eps } => w
                .iter()
                .map(|&(i, o)| Conv::Gin(GinConv::new(i, self.d_hidden, o, train_eps, device, rng)))
                .collect(),
            Architecture::Gine { d_edge, train_eps } => {
                check_dims(d_edge, 1, 1, 1)?;
                w.iter()
                    .map(|&(i, o)| {
                        Conv::Gine(
                            GineConv::new(i, d_edge, self.d_hidden, o, device, rng)
                                .with_train_eps(train_eps),
                        )
                    })
                    .collect()
            }
            Architecture::Pna(settings) => w
                .iter()
                .map(|&(i, o)| PnaConv::new(i, o, settings, device, rng).map(Conv::Pna))
                .collect::<Result<_>>()?,
            Architecture::Mlp => w
                .iter()
                .map(|&(i, o)| Conv::Linear(Linear::new(i, o, true, device, rng)))
                .collect(),
        };
        Ok(assemble(self, layers, self.d_hidden, device, rng))
    }

    /// GAT layers: hidden layers concatenate `heads` heads; a node-level model's last layer
    /// averages `out_heads` heads of width `d_output` (a graph-level model concatenates in
    /// every layer).
    fn init_gat<R: Rng + ?Sized>(&self, h: GatHeads, device: &Device, rng: &mut R) -> Result<Gnn> {
        check_dims(h.heads, h.out_heads, 1, 1)?;
        check_rate("attn_dropout", h.attn_dropout)?;
        let graph_level = self.pooling.is_some();
        let mut layers = Vec::with_capacity(self.num_layers);
        let mut din = self.d_input;
        for i in 0..self.num_layers {
            let last = i + 1 == self.num_layers && !graph_level;
            let conv = if last {
                GatConv::new(din, self.d_output, h.out_heads, false, device, rng)
                    .with_attn_dropout(h.attn_dropout)
            } else {
                GatConv::new(din, self.d_hidden, h.heads, true, device, rng)
                    .with_attn_dropout(h.attn_dropout)
            };
            din = conv.width();
            layers.push(Conv::Gat(conv));
        }
        Ok(assemble(self, layers, din, device, rng))
    }

    /// Whether the model pools to graph level.
    pub fn is_graph_level(&self) -> bool {
        self.pooling.is_some()
    }

    /// `(d_input, d_output)`.
    pub fn io_dims(&self) -> (usize, usize) {
        (self.d_input, self.d_output)
    }
}
