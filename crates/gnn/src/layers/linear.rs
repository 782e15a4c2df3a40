//! A dense layer `x W + b` that also accepts sparse [`Input`](crate::Input).

use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor};
use rand::Rng;

use super::Init;
use crate::tensors::Input;

/// `y = x W + b` with `W: [d_in, d_out]`, PyTorch's `nn.Linear` initialisation.
#[derive(Module, Debug)]
pub struct Linear {
    /// `[d_in, d_out]`.
    pub weight: Param<Tensor<2>>,
    /// `[d_out]`.
    pub bias: Option<Param<Tensor<1>>>,
}

impl Linear {
    /// A seeded layer.
    pub fn new<R: Rng + ?Sized>(
        d_in: usize,
        d_out: usize,
        bias: bool,
        device: &Device,
        rng: &mut R,
    ) -> Self {
        Self {
            weight: Init::Linear.matrix([d_in, d_out], None, device, rng),
            bias: bias.then(|| Init::Linear.vector(d_out, d_in, device, rng)),
        }
    }

    /// `x W` without the bias.
    pub fn project(&self, x: &Input) -> Tensor<2> {
        x.project(self.weight.val())
    }

    /// Adds the bias to `h`.
    pub fn add_bias(&self, h: Tensor<2>) -> Tensor<2> {
        match &self.bias {
            Some(b) => h + b.val().unsqueeze_dim(0),
            None => h,
        }
    }

    /// `x W + b`.
    pub fn forward(&self, x: &Input) -> Tensor<2> {
        self.add_bias(self.project(x))
    }
}
