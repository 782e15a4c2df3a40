//! Conversion between a burn [`Gnn`] and the flat `Vec<f32>` W of the protocol: parameters in
//! the order of [`burn::module::Module::visit`], gradients in the same order (0 for parameters
//! without a gradient, e.g. a fixed GIN ε).

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::tensor::{Gradients, Tensor, TensorData};
use gnn::Gnn;

fn host<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("float tensor data converts to f32")
}

struct Flatten {
    out: Vec<f32>,
}

impl ModuleVisitor for Flatten {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.out.extend(host(param.val()));
    }
}

struct FlattenGrad<'a> {
    grads: &'a Gradients,
    out: Vec<f32>,
}

impl ModuleVisitor for FlattenGrad<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let t = param.val();
        let len = t.dims().iter().product::<usize>();
        match t.grad(self.grads) {
            Some(g) => self.out.extend(host(g)),
            None => self.out.extend(std::iter::repeat_n(0.0, len)),
        }
    }
}

struct Load<'a> {
    values: &'a [f32],
    pos: usize,
}

impl ModuleMapper for Load<'_> {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let values = self.values;
        let pos = &mut self.pos;
        param.map(move |t| {
            let dims = t.dims();
            let len = dims.iter().product::<usize>();
            let device = t.device();
            let require_grad = t.is_require_grad();
            let v = values[*pos..*pos + len].to_vec();
            *pos += len;
            Tensor::from_data(TensorData::new(v, dims), &device).set_require_grad(require_grad)
        })
    }
}

/// All parameters of `model`, flattened in visit order.
pub(crate) fn flatten(model: &Gnn) -> Vec<f32> {
    let mut f = Flatten { out: Vec::new() };
    model.visit(&mut f);
    f.out
}

/// The gradient of every parameter of `model` in `grads`, flattened in visit order.
pub(crate) fn flatten_grad(model: &Gnn, grads: &Gradients) -> Vec<f32> {
    let mut f = FlattenGrad {
        grads,
        out: Vec::new(),
    };
    model.visit(&mut f);
    f.out
}

struct Layout {
    out: Vec<(usize, usize)>,
}

impl ModuleVisitor for Layout {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let len = param.val().dims().iter().product::<usize>();
        self.out.push((len, D));
    }
}

/// Every parameter tensor of `model` in visit order as (length, rank): the flat vector of
/// [`flatten`] is their concatenation.
pub(crate) fn layout(model: &Gnn) -> Vec<(usize, usize)> {
    let mut l = Layout { out: Vec::new() };
    model.visit(&mut l);
    l.out
}

/// `model` with its parameters replaced by `values` (visit order; same length as [`flatten`]).
pub(crate) fn load(model: Gnn, values: &[f32]) -> Gnn {
    let mut l = Load { values, pos: 0 };
    let m = model.map(&mut l);
    debug_assert_eq!(l.pos, values.len(), "flat vector length matches the model");
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::Device;
    use gnn::ModelConfig;

    #[test]
    fn flatten_load_round_trip_and_gradients_align() {
        let device = Device::flex().autodiff();
        let m = ModelConfig::gin(3, 4, 2)
            .with_seed(3)
            .init(&device)
            .unwrap();
        let w = flatten(&m);
        // GIN: per layer lin1 (3·4 + 4 | 4·4 + 4), lin2 (4·4 + 4 | 4·2 + 2), ε (1).
        assert_eq!(w.len(), (12 + 4 + 16 + 4 + 1) + (16 + 4 + 8 + 2 + 1));
        let shifted: Vec<f32> = w.iter().map(|x| x + 1.0).collect();
        let m2 = load(m, &shifted);
        assert_eq!(flatten(&m2), shifted);
        // The layout: per GIN layer two weight matrices with biases and the scalar ε.
        let lay = layout(&m2);
        assert_eq!(lay.iter().map(|&(n, _)| n).sum::<usize>(), w.len());
        assert_eq!(lay.iter().filter(|&&(_, r)| r == 2).count(), 4);
        assert_eq!(lay[0], (12, 2));
        // Loaded parameters still track gradients: d(sum of a GCN's params)/dθ = 1 for all.
        let g = ModelConfig::gcn(2, 3, 2).init(&device).unwrap();
        let g = load(g.clone(), &flatten(&g));
        let total = g
            .layers
            .iter()
            .map(|l| match l {
                gnn::model::Conv::Gcn(c) => c.weight.val().sum() + c.bias.val().sum(),
                _ => unreachable!("GCN model"),
            })
            .reduce(|a, b| a + b)
            .expect("two layers");
        let grads = total.backward();
        let flat = flatten_grad(&g, &grads);
        assert_eq!(flat.len(), flatten(&g).len());
        assert!(flat.iter().all(|&x| (x - 1.0).abs() < 1e-6), "{flat:?}");
    }
}
