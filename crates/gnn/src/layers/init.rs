//! Seeded parameter initialisation (Glorot / PyTorch-Linear uniform) from the caller's RNG, so a
//! model built twice from the same seed is identical whatever else runs in the process.

use burn::module::Param;
use burn::tensor::{Device, Tensor, TensorData};
use rand::{Rng, RngExt};

/// Initialisation scheme.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Init {
    /// `U(-a, a)`, `a = sqrt(6 / (fan_in + fan_out))` (PyG's GCN/GAT weights).
    Glorot,
    /// `U(-1/sqrt(fan_in), 1/sqrt(fan_in))` (PyTorch `nn.Linear` weights and biases).
    Linear,
    /// All zeros.
    Zeros,
}

impl Init {
    /// A `[rows, cols]` parameter; `fan_in = rows`, `fan_out = cols` unless given.
    pub(crate) fn matrix<R: Rng + ?Sized>(
        self,
        shape: [usize; 2],
        fans: Option<(usize, usize)>,
        device: &Device,
        rng: &mut R,
    ) -> Param<Tensor<2>> {
        let (fan_in, fan_out) = fans.unwrap_or((shape[0], shape[1]));
        let data = self.values(shape[0] * shape[1], fan_in, fan_out, rng);
        Param::from_data(TensorData::new(data, shape), device)
    }

    /// A `[len]` parameter with the given fans.
    pub(crate) fn vector<R: Rng + ?Sized>(
        self,
        len: usize,
        fan_in: usize,
        device: &Device,
        rng: &mut R,
    ) -> Param<Tensor<1>> {
        let data = self.values(len, fan_in, len, rng);
        Param::from_data(TensorData::new(data, [len]), device)
    }

    fn values<R: Rng + ?Sized>(
        self,
        len: usize,
        fan_in: usize,
        fan_out: usize,
        rng: &mut R,
    ) -> Vec<f32> {
        let a = match self {
            Self::Glorot => (6.0 / (fan_in + fan_out).max(1) as f64).sqrt(),
            Self::Linear => 1.0 / (fan_in.max(1) as f64).sqrt(),
            Self::Zeros => return vec![0.0; len],
        };
        (0..len).map(|_| (rng.random_range(-a..a)) as f32).collect()
    }
}
