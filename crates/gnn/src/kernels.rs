//! Fused sparse kernels with hand-written backward passes, for burn's flex CPU backend.
//!
//! Message passing with burn's generic ops materialises one `[E, d]` tensor per step (gather,
//! scale, scatter-add, and the same again backwards). The kernels here work directly over a
//! [`Csr`] structure built once per graph, in f32 on the host with rayon, and register their
//! own backward step with burn's autodiff graph:
//! - [`spmm`]: `out[r, h·c + j] = Σ_{k ∈ row r} w[k, h] · x[col_k, h·c + j]`, a sparse-dense
//!   product with one weight per entry and head (GCN normalisation, GAT attention, sparse
//!   feature values); gradients for both `w` and `x`.
//! - [`gat_attention`]: GAT's attention coefficients, the softmax over each row's entries of
//!   `LeakyReLU(a_src[col] + a_dst[row]) + ln w` for all heads at once.
//! - [`pointwise`] (ELU) and [`masked_mul`] (dropout): one pass, no mask or comparison tensors.
//!
//! Both return `None` when a tensor is not an f32 flex tensor (plain, or autodiff without
//! gradient checkpointing); callers then use the equivalent generic burn ops. Sums run in a
//! different order than burn's scatter-add, so results agree up to f32 rounding.

use std::sync::{Arc, Mutex, Weak};

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::NoCheckpointing;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind, binary, unary};
use burn::backend::flex::FlexTensor;
use burn::backend::{Autodiff, AutodiffBackend, Flex};
use burn::tensor::{Bytes, DType, Int, Tensor, TensorData};
use rayon::prelude::*;

type Ad = Autodiff<Flex, NoCheckpointing>;
type AdTensor = <Ad as burn::backend::BackendTypes>::FloatTensorPrimitive;

/// Rows handled by one rayon task (keeps task overhead small on small graphs).
const ROWS_PER_TASK: usize = 256;

/// A sparse `n_rows × n_cols` pattern in compressed-row form, with its transpose.
///
/// Entries are numbered in the caller's order (`0..nnz`); `eid` maps each CSR slot back to
/// that number, so per-entry weights stay in the caller's order.
#[derive(Debug)]
pub(crate) struct Csr {
    n_rows: usize,
    n_cols: usize,
    /// Row `r` owns slots `ptr[r]..ptr[r + 1]`.
    ptr: Vec<usize>,
    /// Column of each slot.
    col: Vec<u32>,
    /// Entry number of each slot.
    eid: Vec<u32>,
    /// Whether `eid[s] == s` for every slot.
    identity: bool,
    /// Column `j` owns transposed slots `t_ptr[j]..t_ptr[j + 1]`.
    t_ptr: Vec<usize>,
    /// Row of each transposed slot.
    t_row: Vec<u32>,
    /// Entry number of each transposed slot.
    t_eid: Vec<u32>,
}

impl Csr {
    /// The pattern with entry `k` at `(rows[k], cols[k])`; `None` when an index is out of
    /// range, the lengths differ or there are more than `u32::MAX` entries.
    pub(crate) fn new(n_rows: usize, n_cols: usize, rows: &[i64], cols: &[i64]) -> Option<Self> {
        let nnz = rows.len();
        if cols.len() != nnz || u32::try_from(nnz).is_err() {
            return None;
        }
        let in_range = |v: i64, n: usize| v >= 0 && (v as u64) < n as u64;
        if !rows.iter().all(|&r| in_range(r, n_rows)) || !cols.iter().all(|&c| in_range(c, n_cols))
        {
            return None;
        }
        let mut ptr = vec![0usize; n_rows + 1];
        for &r in rows {
            ptr[r as usize + 1] += 1;
        }
        for r in 0..n_rows {
            ptr[r + 1] += ptr[r];
        }
        let mut next = ptr[..n_rows].to_vec();
        let mut col = vec![0u32; nnz];
        let mut eid = vec![0u32; nnz];
        for (k, (&r, &c)) in rows.iter().zip(cols).enumerate() {
            let s = &mut next[r as usize];
            col[*s] = c as u32;
            eid[*s] = k as u32;
            *s += 1;
        }
        let identity = eid.iter().enumerate().all(|(s, &k)| s == k as usize);
        let mut t_ptr = vec![0usize; n_cols + 1];
        for &c in &col {
            t_ptr[c as usize + 1] += 1;
        }
        for j in 0..n_cols {
            t_ptr[j + 1] += t_ptr[j];
        }
        let mut t_next = t_ptr[..n_cols].to_vec();
        let mut t_row = vec![0u32; nnz];
        let mut t_eid = vec![0u32; nnz];
        for r in 0..n_rows {
            for s in ptr[r]..ptr[r + 1] {
                let t = &mut t_next[col[s] as usize];
                t_row[*t] = r as u32;
                t_eid[*t] = eid[s];
                *t += 1;
            }
        }
        Some(Self {
            n_rows,
            n_cols,
            ptr,
            col,
            eid,
            identity,
            t_ptr,
            t_row,
            t_eid,
        })
    }

    /// Whether per-entry weights `w: [nnz, 1]` make a symmetric matrix: the pattern is
    /// symmetric and the mirror of every entry has the bitwise same weight. Then `Aᵀ = A`, and
    /// [`spmm_symmetric`] runs the backward product over rows (sequential weight reads).
    pub(crate) fn is_symmetric(&self, w: &[f32]) -> bool {
        // Columns within a row and rows within a column are both ascending when the caller's
        // entries are sorted by (row, column); a symmetric pattern then has identical arrays.
        w.len() == self.nnz()
            && self.n_rows == self.n_cols
            && self.ptr == self.t_ptr
            && self.col == self.t_row
            && self
                .eid
                .iter()
                .zip(&self.t_eid)
                .all(|(&a, &b)| w[a as usize].to_bits() == w[b as usize].to_bits())
    }

    /// Number of entries.
    pub(crate) fn nnz(&self) -> usize {
        self.col.len()
    }

    /// Reorders per-slot rows of `width` values into entry order.
    fn to_entry_order(&self, slot_major: Vec<f32>, width: usize) -> Vec<f32> {
        if self.identity {
            return slot_major;
        }
        let mut out = vec![0f32; slot_major.len()];
        for (s, &k) in self.eid.iter().enumerate() {
            let k = k as usize;
            out[k * width..(k + 1) * width]
                .copy_from_slice(&slot_major[s * width..(s + 1) * width]);
        }
        out
    }
}

/// One orientation of a [`Csr`]: per row, its slots' columns and entry numbers.
#[derive(Clone, Copy)]
struct Side<'a> {
    ptr: &'a [usize],
    col: &'a [u32],
    eid: &'a [u32],
}

impl Csr {
    fn rows(&self) -> Side<'_> {
        Side {
            ptr: &self.ptr,
            col: &self.col,
            eid: &self.eid,
        }
    }

    fn columns(&self) -> Side<'_> {
        Side {
            ptr: &self.t_ptr,
            col: &self.t_row,
            eid: &self.t_eid,
        }
    }
}

/// `y[r] = Σ_{slots s of r} w[eid_s, h] x[col_s, h-block]` over row-major `[rows, width]`.
fn gather_rows(side: Side<'_>, w: &[f32], heads: usize, x: &[f32], width: usize) -> Vec<f32> {
    let Side { ptr, col, eid } = side;
    let c = width / heads;
    let mut out = vec![0f32; (ptr.len() - 1) * width];
    out.par_chunks_mut(width * ROWS_PER_TASK)
        .enumerate()
        .for_each(|(task, chunk)| {
            for (i, row) in chunk.chunks_mut(width).enumerate() {
                let r = task * ROWS_PER_TASK + i;
                for s in ptr[r]..ptr[r + 1] {
                    let (k, j) = (eid[s] as usize, col[s] as usize);
                    let xr = &x[j * width..(j + 1) * width];
                    let wk = &w[k * heads..(k + 1) * heads];
                    for ((o, xv), &a) in row.chunks_mut(c).zip(xr.chunks(c)).zip(wk) {
                        for (o, &v) in o.iter_mut().zip(xv) {
                            *o += a * v;
                        }
                    }
                }
            }
        });
    out
}

/// Forward product of [`spmm`] on host slices.
fn spmm_host(csr: &Csr, w: &[f32], heads: usize, x: &[f32], width: usize) -> Vec<f32> {
    gather_rows(csr.rows(), w, heads, x, width)
}

/// `dx = Aᵀ dout` with the entry weights `w` (`A dout` when `A` is known to be symmetric).
fn spmm_grad_x(
    csr: &Csr,
    w: &[f32],
    heads: usize,
    dout: &[f32],
    width: usize,
    symmetric: bool,
) -> Vec<f32> {
    let side = if symmetric { csr.rows() } else { csr.columns() };
    gather_rows(side, w, heads, dout, width)
}

/// `dw[k, h] = ⟨x[col_k, h-block], dout[row_k, h-block]⟩`.
///
/// Each dot product sums its `c = width / heads` terms in order from −0 (as `Iterator::sum`);
/// with several heads, `x` and `dout` are first transposed to `[rows, c, heads]` so that the
/// heads' sums advance side by side in contiguous lanes (the same sums, vectorised).
fn spmm_grad_w(csr: &Csr, x: &[f32], heads: usize, dout: &[f32], width: usize) -> Vec<f32> {
    let c = width / heads;
    let mut slots = vec![0f32; csr.nnz() * heads];
    // `[rows, heads, c]` → `[rows, c, heads]`.
    let lanes = |m: &[f32]| -> Vec<f32> {
        let mut t = vec![0f32; m.len()];
        for (src, dst) in m.chunks_exact(width).zip(t.chunks_exact_mut(width)) {
            for (h, block) in src.chunks_exact(c).enumerate() {
                for (l, &v) in block.iter().enumerate() {
                    dst[l * heads + h] = v;
                }
            }
        }
        t
    };
    let (x, dout) = if heads > 1 {
        (
            std::borrow::Cow::Owned(lanes(x)),
            std::borrow::Cow::Owned(lanes(dout)),
        )
    } else {
        (
            std::borrow::Cow::Borrowed(x),
            std::borrow::Cow::Borrowed(dout),
        )
    };
    for_each_row_slots(csr, heads, &mut slots, |r, base, part| {
        let dr = &dout[r * width..(r + 1) * width];
        let (a, b) = (csr.ptr[r], csr.ptr[r + 1]);
        let rows = part[(a - base) * heads..(b - base) * heads].chunks_exact_mut(heads);
        for (s, dst) in (a..b).zip(rows) {
            let j = csr.col[s] as usize;
            let xr = &x[j * width..(j + 1) * width];
            match heads {
                8 => lane_dots::<8>(dst, xr, dr),
                _ => lane_dots::<0>(dst, xr, dr),
            }
        }
    });
    csr.to_entry_order(slots, heads)
}

/// `dst[h] = Σ_l xr[l·H + h] · gr[l·H + h]` from −0, `l` ascending, the `H = dst.len()` lanes
/// side by side (`H = 0`: any).
#[inline(always)]
fn lane_dots<const H: usize>(dst: &mut [f32], xr: &[f32], gr: &[f32]) {
    if H > 0 {
        let mut acc = [-0.0f32; H];
        for (xl, gl) in xr.chunks_exact(H).zip(gr.chunks_exact(H)) {
            for h in 0..H {
                acc[h] += xl[h] * gl[h];
            }
        }
        dst.copy_from_slice(&acc);
        return;
    }
    dst.fill(-0.0);
    for (xl, gl) in xr.chunks_exact(dst.len()).zip(gr.chunks_exact(dst.len())) {
        for ((d, &xv), &gv) in dst.iter_mut().zip(xl).zip(gl) {
            *d += xv * gv;
        }
    }
}

/// Inputs of GAT's attention on the host: per-node scores and optional per-entry log weights.
#[derive(Clone, Copy)]
struct Scores<'a> {
    a_src: &'a [f32],
    a_dst: &'a [f32],
    log_w: Option<&'a [f32]>,
    heads: usize,
    slope: f32,
}

impl Scores<'_> {
    /// The pre-activation `a_src[col] + a_dst[row]` of slot `s` (row `r`), head `h`.
    #[cfg(test)]
    fn pre(&self, csr: &Csr, r: usize, s: usize, h: usize) -> f32 {
        self.a_src[csr.col[s] as usize * self.heads + h] + self.a_dst[r * self.heads + h]
    }

    /// The logit `LeakyReLU(pre) + ln w` of slot `s`.
    #[cfg(test)]
    fn logit(&self, csr: &Csr, r: usize, s: usize, h: usize) -> f32 {
        let p = self.pre(csr, r, s, h);
        let z = if p < 0.0 { p * self.slope } else { p };
        z + self.log_w.map_or(0.0, |w| w[csr.eid[s] as usize])
    }
}

/// `len` zeroed scratch values (per-head accumulators), on the stack up to 32.
fn with_heads<R>(len: usize, f: impl FnOnce(&mut [f32]) -> R) -> R {
    let mut stack = [0f32; 32];
    if len <= stack.len() {
        f(&mut stack[..len])
    } else {
        f(&mut vec![0f32; len])
    }
}

/// GAT attention on the host: the softmax over each row's entries of the logits; returns the
/// coefficients in entry order.
///
/// Slots run in the outer loop and heads in the inner one, so the heads' maxima and sums
/// advance side by side over contiguous values; each head still sums its row in slot order.
fn attention_host(csr: &Csr, sc: Scores<'_>) -> Vec<f32> {
    let heads = sc.heads;
    let mut slots = vec![0f32; csr.nnz() * heads];
    for_each_row_slots(csr, heads, &mut slots, |r, base, part| {
        let (a, b) = (csr.ptr[r], csr.ptr[r + 1]);
        let row = &mut part[(a - base) * heads..(b - base) * heads];
        match heads {
            8 => softmax_row::<8>(csr, sc, r, row),
            1 => softmax_row::<1>(csr, sc, r, row),
            _ => softmax_row::<0>(csr, sc, r, row),
        }
    });
    csr.to_entry_order(slots, heads)
}

/// One row of [`attention_host`] (`row`: its slots' `[slots, heads]` values), for `H` heads
/// (`0`: any).
#[inline(always)]
fn softmax_row<const H: usize>(csr: &Csr, sc: Scores<'_>, r: usize, row: &mut [f32]) {
    let heads = if H > 0 { H } else { sc.heads };
    let a = csr.ptr[r];
    let dst = &sc.a_dst[r * heads..(r + 1) * heads];
    // Per head: the row's maximum logit, then the sum of its exponentials.
    with_heads(2 * heads, |scratch| {
        let (m, sum) = scratch.split_at_mut(heads);
        m.fill(f32::NEG_INFINITY);
        for (s, z) in (a..).zip(row.chunks_exact_mut(heads)) {
            let j = csr.col[s] as usize;
            let src = &sc.a_src[j * heads..(j + 1) * heads];
            let lw = sc.log_w.map_or(0.0, |w| w[csr.eid[s] as usize]);
            for (((z, &ps), &pd), m) in z.iter_mut().zip(src).zip(dst).zip(m.iter_mut()) {
                let p = ps + pd;
                let y = if p < 0.0 { p * sc.slope } else { p };
                *z = y + lw;
                *m = m.max(*z);
            }
        }
        for z in row.chunks_exact_mut(heads) {
            for ((z, &m), sum) in z.iter_mut().zip(&*m).zip(sum.iter_mut()) {
                *z = (*z - m).exp();
                *sum += *z;
            }
        }
        for inv in sum.iter_mut() {
            *inv = 1.0 / *inv;
        }
        for z in row.chunks_exact_mut(heads) {
            for (z, &inv) in z.iter_mut().zip(&*sum) {
                *z *= inv;
            }
        }
    });
}

/// Backward of [`attention_host`]: from `dα` (entry order) to the gradients of the source and
/// destination scores, `[n_cols, heads]` and `[n_rows, heads]`.
fn attention_grad(
    csr: &Csr,
    sc: Scores<'_>,
    alpha: &[f32],
    dalpha: &[f32],
) -> (Vec<f32>, Vec<f32>) {
    let heads = sc.heads;
    // dpre = α ⊙ (dα − Σ_row α ⊙ dα) ⊙ LeakyReLU'(pre), slot-major; heads side by side as in
    // `attention_host`.
    let mut slots = vec![0f32; csr.nnz() * heads];
    for_each_row_slots(csr, heads, &mut slots, |r, base, part| {
        let (a, b) = (csr.ptr[r], csr.ptr[r + 1]);
        let out = &mut part[(a - base) * heads..(b - base) * heads];
        match heads {
            8 => softmax_grad_row::<8>(csr, sc, alpha, dalpha, r, out),
            1 => softmax_grad_row::<1>(csr, sc, alpha, dalpha, r, out),
            _ => softmax_grad_row::<0>(csr, sc, alpha, dalpha, r, out),
        }
    });
    let dpre = csr.to_entry_order(slots, heads);
    (
        sum_rows(csr.columns(), &dpre, heads),
        sum_rows(csr.rows(), &dpre, heads),
    )
}

/// One row of [`attention_grad`]'s `dpre` (`out`: its slots' `[slots, heads]` values), for
/// `H` heads (`0`: any).
#[inline(always)]
fn softmax_grad_row<const H: usize>(
    csr: &Csr,
    sc: Scores<'_>,
    alpha: &[f32],
    dalpha: &[f32],
    r: usize,
    out: &mut [f32],
) {
    let heads = if H > 0 { H } else { sc.heads };
    let (a, b) = (csr.ptr[r], csr.ptr[r + 1]);
    let dst = &sc.a_dst[r * heads..(r + 1) * heads];
    let at = |s: usize| {
        let k = csr.eid[s] as usize * heads;
        (&alpha[k..k + heads], &dalpha[k..k + heads])
    };
    with_heads(heads, |dot| {
        for s in a..b {
            let (al, dl) = at(s);
            for ((d, &x), &y) in dot.iter_mut().zip(al).zip(dl) {
                *d += x * y;
            }
        }
        for (s, out) in (a..b).zip(out.chunks_exact_mut(heads)) {
            let (al, dl) = at(s);
            let j = csr.col[s] as usize;
            let src = &sc.a_src[j * heads..(j + 1) * heads];
            for h in 0..heads {
                let slope = if src[h] + dst[h] < 0.0 { sc.slope } else { 1.0 };
                out[h] = al[h] * (dl[h] - dot[h]) * slope;
            }
        }
    });
}

/// `out[r, h] = Σ_{slots s of r} v[eid_s, h]`.
fn sum_rows(side: Side<'_>, v: &[f32], heads: usize) -> Vec<f32> {
    let Side { ptr, eid, .. } = side;
    let mut out = vec![0f32; (ptr.len() - 1) * heads];
    out.par_chunks_mut(heads * ROWS_PER_TASK)
        .enumerate()
        .for_each(|(task, chunk)| {
            for (i, row) in chunk.chunks_mut(heads).enumerate() {
                let r = task * ROWS_PER_TASK + i;
                for &k in &eid[ptr[r]..ptr[r + 1]] {
                    let k = k as usize * heads;
                    for (o, &x) in row.iter_mut().zip(&v[k..k + heads]) {
                        *o += x;
                    }
                }
            }
        });
    out
}

/// Runs `f(row, first slot of the task, task's part of slots)` in parallel over rows, giving
/// each task the slot-major `[slots, heads]` values of its rows.
fn for_each_row_slots(
    csr: &Csr,
    heads: usize,
    slots: &mut [f32],
    f: impl Fn(usize, usize, &mut [f32]) + Sync,
) {
    let tasks = csr.n_rows.div_ceil(ROWS_PER_TASK);
    let mut parts = Vec::with_capacity(tasks);
    let mut rest = slots;
    for t in 0..tasks {
        let (lo, hi) = (
            csr.ptr[t * ROWS_PER_TASK],
            csr.ptr[((t + 1) * ROWS_PER_TASK).min(csr.n_rows)],
        );
        let (a, b) = rest.split_at_mut((hi - lo) * heads);
        parts.push((t, lo, a));
        rest = b;
    }
    parts.into_par_iter().for_each(|(t, base, part)| {
        for r in t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(csr.n_rows) {
            f(r, base, part);
        }
    });
}

/// Identity of an index tensor's storage: a weak reference (so that a freed and reused buffer
/// never matches) plus its length.
type StorageKey = (Weak<Bytes>, usize);

/// A cached sparse-feature pattern with the storage keys of its row and column tensors.
type CachedPattern = (StorageKey, StorageKey, [usize; 2], Arc<Csr>);

/// The last few sparse-feature patterns, keyed by the storage of their row and column index
/// tensors (index tensors are immutable, so equal storage means an equal pattern).
static PATTERNS: Mutex<Vec<CachedPattern>> = Mutex::new(Vec::new());

/// How many sparse-feature patterns [`cached_pattern`] keeps.
const CACHED_PATTERNS: usize = 8;

fn storage_key(t: &Tensor<1, Int>) -> Option<StorageKey> {
    let p = t.clone().try_into_primitive::<Flex>().ok()?;
    Some((Arc::downgrade(&p.data_arc()), t.dims()[0]))
}

fn same(a: &StorageKey, b: &StorageKey) -> bool {
    a.1 == b.1 && a.0.strong_count() > 0 && Weak::ptr_eq(&a.0, &b.0)
}

/// The pattern built by `build` for the index tensors `rows` and `cols`, reused while both
/// tensors' storage is alive (e.g. the features of a training run, projected every epoch).
pub(crate) fn cached_pattern(
    rows: &Tensor<1, Int>,
    cols: &Tensor<1, Int>,
    shape: [usize; 2],
    build: impl FnOnce() -> Option<Arc<Csr>>,
) -> Option<Arc<Csr>> {
    let (Some(kr), Some(kc)) = (storage_key(rows), storage_key(cols)) else {
        return build();
    };
    let mut cache = PATTERNS.lock().unwrap_or_else(|e| e.into_inner());
    cache.retain(|(r, c, _, _)| r.0.strong_count() > 0 && c.0.strong_count() > 0);
    if let Some((_, _, _, csr)) = cache
        .iter()
        .find(|(r, c, s, _)| same(r, &kr) && same(c, &kc) && *s == shape)
    {
        return Some(csr.clone());
    }
    let csr = build()?;
    if cache.len() >= CACHED_PATTERNS {
        cache.remove(0);
    }
    cache.push((kr, kc, shape, csr.clone()));
    Some(csr)
}

/// A float operand: plain flex, or flex under autodiff.
enum Operand {
    Plain(FlexTensor),
    Tracked(AdTensor),
}

impl Operand {
    /// The operand of `t`, if it is an f32 flex tensor.
    fn of<const D: usize>(t: &Tensor<D>) -> Option<Self> {
        let op = match t.clone().try_into_primitive::<Flex>() {
            Ok(p) => Self::Plain(p),
            Err(_) => Self::Tracked(t.clone().try_into_primitive::<Ad>().ok()?),
        };
        (op.flex().dtype() == DType::F32).then_some(op)
    }

    fn flex(&self) -> &FlexTensor {
        match self {
            Self::Plain(p) => p,
            Self::Tracked(t) => t.primitive(),
        }
    }

    fn tracked(self) -> AdTensor {
        match self {
            Self::Plain(p) => Ad::from_inner(p),
            Self::Tracked(t) => t,
        }
    }
}

/// A contiguous f32 view of a flex tensor (copying only if it is strided).
fn contiguous(t: FlexTensor) -> FlexTensor {
    if t.as_slice::<f32>().is_some() {
        t
    } else {
        t.to_contiguous()
    }
}

fn slice(t: &FlexTensor) -> &[f32] {
    t.as_slice::<f32>()
        .expect("kernel operands are contiguous f32 (checked on entry)")
}

fn flex(values: Vec<f32>, dims: [usize; 2]) -> FlexTensor {
    FlexTensor::from_data(TensorData::new(values, dims))
}

#[derive(Debug)]
struct SpmmBackward;

#[derive(Clone, Debug)]
struct SpmmState {
    csr: Arc<Csr>,
    symmetric: bool,
    heads: usize,
    width: usize,
    w: FlexTensor,
    x: FlexTensor,
}

impl Backward<Flex, 2> for SpmmBackward {
    type State = SpmmState;

    fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _: &mut Checkpointer) {
        let s = ops.state;
        binary::<Flex, _, _>(
            ops.parents,
            ops.node,
            grads,
            |g| {
                let g = contiguous(g);
                let dw = spmm_grad_w(&s.csr, slice(&s.x), s.heads, slice(&g), s.width);
                flex(dw, [s.csr.nnz(), s.heads])
            },
            |g| {
                let g = contiguous(g);
                let dx = spmm_grad_x(
                    &s.csr,
                    slice(&s.w),
                    s.heads,
                    slice(&g),
                    s.width,
                    s.symmetric,
                );
                flex(dx, [s.csr.n_cols, s.width])
            },
        );
    }
}

/// Sparse-dense product `out[r, h·c + j] = Σ_{k ∈ row r} w[k, h] x[col_k, h·c + j]` for
/// `w: [nnz, heads]` (entry order) and `x: [n_cols, heads·c]`; `out: [n_rows, heads·c]`.
///
/// Differentiable in `w` and `x`. `None` when the tensors are not f32 flex tensors or the
/// shapes do not fit `csr`.
pub(crate) fn spmm(csr: &Arc<Csr>, w: &Tensor<2>, x: &Tensor<2>) -> Option<Tensor<2>> {
    spmm_impl(csr, w, x, false)
}

/// [`spmm`] for a constant `w: [nnz, 1]` for which [`Csr::is_symmetric`] holds (checked by
/// the caller once per graph): the backward product then reads the weights in row order.
pub(crate) fn spmm_symmetric(csr: &Arc<Csr>, w: &Tensor<2>, x: &Tensor<2>) -> Option<Tensor<2>> {
    if w.dims()[1] != 1 {
        return None;
    }
    spmm_impl(csr, w, x, true)
}

fn spmm_impl(csr: &Arc<Csr>, w: &Tensor<2>, x: &Tensor<2>, symmetric: bool) -> Option<Tensor<2>> {
    let ([nnz, heads], [n_cols, width]) = (w.dims(), x.dims());
    if nnz != csr.nnz() || n_cols != csr.n_cols || heads == 0 || width == 0 || width % heads != 0 {
        return None;
    }
    let (w, x) = (Operand::of(w)?, Operand::of(x)?);
    let out_dims = [csr.n_rows, width];
    if let (Operand::Plain(wp), Operand::Plain(xp)) = (&w, &x) {
        let (wp, xp) = (contiguous(wp.clone()), contiguous(xp.clone()));
        let out = spmm_host(csr, slice(&wp), heads, slice(&xp), width);
        return Some(Tensor::from_primitive::<Flex>(flex(out, out_dims)));
    }
    let (wp, wg) = w.tracked().into_parts();
    let (xp, xg) = x.tracked().into_parts();
    let (wp, xp) = (contiguous(wp), contiguous(xp));
    let out = flex(
        spmm_host(csr, slice(&wp), heads, slice(&xp), width),
        out_dims,
    );
    let out = match SpmmBackward
        .prepare::<NoCheckpointing>([wg, xg])
        .compute_bound()
        .stateful()
    {
        OpsKind::Tracked(prep) => prep.finish(
            SpmmState {
                csr: csr.clone(),
                symmetric,
                heads,
                width,
                w: wp,
                x: xp,
            },
            out,
        ),
        OpsKind::UnTracked(prep) => prep.finish(out),
    };
    Some(Tensor::from_primitive::<Ad>(out))
}

/// A pointwise activation with a closed-form derivative.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Pointwise {
    /// `x` for `x > 0`, else `α(eˣ − 1)` (burn's `elu`).
    Elu(f32),
}

impl Pointwise {
    fn value(self, x: f32) -> f32 {
        match self {
            Self::Elu(a) => {
                if x > 0.0 {
                    x
                } else {
                    a * (x.exp() - 1.0)
                }
            }
        }
    }

    /// `dy/dx` at `x` with `y = value(x)`.
    fn derivative(self, x: f32, y: f32) -> f32 {
        match self {
            Self::Elu(a) => {
                if x > 0.0 {
                    1.0
                } else {
                    y + a
                }
            }
        }
    }
}

#[derive(Debug)]
struct PointwiseBackward;

#[derive(Clone, Debug)]
struct PointwiseState {
    f: Pointwise,
    x: FlexTensor,
    y: FlexTensor,
}

impl Backward<Flex, 1> for PointwiseBackward {
    type State = PointwiseState;

    fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
        let s = ops.state;
        unary::<Flex, _>(ops.parents, ops.node, grads, |g| {
            let g = contiguous(g);
            let shape = g.layout().shape().clone();
            let (x, y, g) = (slice(&s.x), slice(&s.y), slice(&g));
            let mut dx = vec![0f32; g.len()];
            dx.par_chunks_mut(1 << 14)
                .enumerate()
                .for_each(|(c, part)| {
                    let o = c << 14;
                    for (i, d) in part.iter_mut().enumerate() {
                        *d = g[o + i] * s.f.derivative(x[o + i], y[o + i]);
                    }
                });
            FlexTensor::from_data(TensorData::new(dx, shape))
        });
    }
}

/// Applies a pointwise activation in one pass (differentiable); `None` as for [`spmm`].
pub(crate) fn pointwise<const D: usize>(x: &Tensor<D>, f: Pointwise) -> Option<Tensor<D>> {
    let dims = x.dims();
    let apply = |x: &[f32]| {
        let mut y = vec![0f32; x.len()];
        y.par_chunks_mut(1 << 14)
            .zip(x.par_chunks(1 << 14))
            .for_each(|(y, x)| {
                for (y, &x) in y.iter_mut().zip(x) {
                    *y = f.value(x);
                }
            });
        FlexTensor::from_data(TensorData::new(y, dims))
    };
    match Operand::of(x)? {
        Operand::Plain(p) => Some(Tensor::from_primitive::<Flex>(apply(slice(&contiguous(p))))),
        Operand::Tracked(t) => {
            let (p, guard) = t.into_parts();
            let p = contiguous(p);
            let y = apply(slice(&p));
            let out = match PointwiseBackward
                .prepare::<NoCheckpointing>([guard])
                .compute_bound()
                .stateful()
            {
                OpsKind::Tracked(prep) => prep.finish(
                    PointwiseState {
                        f,
                        x: p,
                        y: y.clone(),
                    },
                    y,
                ),
                OpsKind::UnTracked(prep) => prep.finish(y),
            };
            Some(Tensor::from_primitive::<Ad>(out))
        }
    }
}

#[derive(Debug)]
struct MaskBackward;

#[derive(Clone, Debug)]
struct MaskState {
    mask: FlexTensor,
}

impl Backward<Flex, 1> for MaskBackward {
    type State = MaskState;

    fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
        let mask = ops.state.mask;
        unary::<Flex, _>(ops.parents, ops.node, grads, |g| {
            let g = contiguous(g);
            let shape = g.layout().shape().clone();
            let dx = mul_host(slice(&g), slice(&mask));
            FlexTensor::from_data(TensorData::new(dx, shape))
        });
    }
}

fn mul_host(a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut out = vec![0f32; a.len()];
    out.par_chunks_mut(1 << 14)
        .zip(a.par_chunks(1 << 14))
        .zip(b.par_chunks(1 << 14))
        .for_each(|((o, a), b)| {
            for ((o, &a), &b) in o.iter_mut().zip(a).zip(b) {
                *o = a * b;
            }
        });
    out
}

/// Elementwise `x ⊙ mask` for dropout, without a mask tensor in the graph. `masked(Some(x))`
/// must return `x ⊙ mask` and `masked(None)` the mask itself; it is called exactly once when
/// the kernel applies (never when it returns `None`). Differentiable in `x`.
pub(crate) fn masked_mul<const D: usize>(
    x: &Tensor<D>,
    masked: impl FnOnce(Option<&[f32]>) -> Vec<f32>,
) -> Option<Tensor<D>> {
    let dims = x.dims();
    match Operand::of(x)? {
        Operand::Plain(p) => {
            let p = contiguous(p);
            let out = masked(Some(slice(&p)));
            let out = FlexTensor::from_data(TensorData::new(out, dims));
            Some(Tensor::from_primitive::<Flex>(out))
        }
        Operand::Tracked(t) => {
            let (p, guard) = t.into_parts();
            let p = contiguous(p);
            let mask = masked(None);
            let out = FlexTensor::from_data(TensorData::new(mul_host(slice(&p), &mask), dims));
            let out = match MaskBackward
                .prepare::<NoCheckpointing>([guard])
                .compute_bound()
                .stateful()
            {
                OpsKind::Tracked(prep) => prep.finish(
                    MaskState {
                        mask: FlexTensor::from_data(TensorData::new(mask, dims)),
                    },
                    out,
                ),
                OpsKind::UnTracked(prep) => prep.finish(out),
            };
            Some(Tensor::from_primitive::<Ad>(out))
        }
    }
}

#[derive(Debug)]
struct AttentionBackward;

#[derive(Clone, Debug)]
struct AttentionState {
    csr: Arc<Csr>,
    a_src: FlexTensor,
    a_dst: FlexTensor,
    log_w: Option<FlexTensor>,
    alpha: FlexTensor,
    slope: f32,
}

impl Backward<Flex, 2> for AttentionBackward {
    type State = AttentionState;

    fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _: &mut Checkpointer) {
        let s = ops.state;
        let heads = s.alpha.layout().shape()[1];
        let g = contiguous(grads.consume::<Flex>(&ops.node));
        let sc = Scores {
            a_src: slice(&s.a_src),
            a_dst: slice(&s.a_dst),
            log_w: s.log_w.as_ref().map(slice),
            heads,
            slope: s.slope,
        };
        let (d_src, d_dst) = attention_grad(&s.csr, sc, slice(&s.alpha), slice(&g));
        let [p_src, p_dst] = ops.parents;
        if let Some(node) = p_src {
            grads.register::<Flex>(node.id, flex(d_src, [s.csr.n_cols, heads]));
        }
        if let Some(node) = p_dst {
            grads.register::<Flex>(node.id, flex(d_dst, [s.csr.n_rows, heads]));
        }
    }
}

/// GAT's attention coefficients over the entries of `csr` (rows = destinations, columns =
/// sources): `α[k, h] = softmax_{k' in the row of k}(LeakyReLU(a_src[col_k', h] +
/// a_dst[row_k', h]) + ln w_k')`, stabilised by the row maximum; `[nnz, heads]` in entry order.
///
/// Differentiable in `a_src: [n_cols, heads]` and `a_dst: [n_rows, heads]`; `log_w: [nnz, 1]` is
/// a constant. `None` as for [`spmm`].
pub(crate) fn gat_attention(
    csr: &Arc<Csr>,
    a_src: &Tensor<2>,
    a_dst: &Tensor<2>,
    log_w: Option<&Tensor<2>>,
    slope: f32,
) -> Option<Tensor<2>> {
    let ([ns, heads], [nd, h2]) = (a_src.dims(), a_dst.dims());
    if ns != csr.n_cols || nd != csr.n_rows || heads == 0 || h2 != heads {
        return None;
    }
    let log_w = match log_w {
        None => None,
        Some(t) if t.dims() == [csr.nnz(), 1] => match Operand::of(t)? {
            Operand::Plain(p) => Some(contiguous(p)),
            Operand::Tracked(_) => return None,
        },
        Some(_) => return None,
    };
    let (src, dst) = (Operand::of(a_src)?, Operand::of(a_dst)?);
    let dims = [csr.nnz(), heads];
    let run = |a_src: &FlexTensor, a_dst: &FlexTensor| {
        let sc = Scores {
            a_src: slice(a_src),
            a_dst: slice(a_dst),
            log_w: log_w.as_ref().map(slice),
            heads,
            slope,
        };
        flex(attention_host(csr, sc), dims)
    };
    if let (Operand::Plain(ps), Operand::Plain(pd)) = (&src, &dst) {
        let alpha = run(&contiguous(ps.clone()), &contiguous(pd.clone()));
        return Some(Tensor::from_primitive::<Flex>(alpha));
    }
    let (ps, gs) = src.tracked().into_parts();
    let (pd, gd) = dst.tracked().into_parts();
    let (ps, pd) = (contiguous(ps), contiguous(pd));
    let alpha = run(&ps, &pd);
    let out = match AttentionBackward
        .prepare::<NoCheckpointing>([gs, gd])
        .compute_bound()
        .stateful()
    {
        OpsKind::Tracked(prep) => prep.finish(
            AttentionState {
                csr: csr.clone(),
                a_src: ps,
                a_dst: pd,
                log_w,
                alpha: alpha.clone(),
                slope,
            },
            alpha,
        ),
        OpsKind::UnTracked(prep) => prep.finish(alpha),
    };
    Some(Tensor::from_primitive::<Ad>(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::{Device, IndexingUpdateOp, Int};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The per-head `spmm_grad_w` that the lane-parallel one replaced, kept as its bit-for-bit
    /// reference.
    fn spmm_grad_w_reference(
        csr: &Csr,
        x: &[f32],
        heads: usize,
        dout: &[f32],
        width: usize,
    ) -> Vec<f32> {
        let c = width / heads;
        let mut slots = vec![0f32; csr.nnz() * heads];
        // Split the slot array at row boundaries, ROWS_PER_TASK rows per task.
        let bounds: Vec<usize> = (0..=csr.n_rows.div_ceil(ROWS_PER_TASK))
            .map(|t| csr.ptr[(t * ROWS_PER_TASK).min(csr.n_rows)])
            .collect();
        let mut parts = Vec::with_capacity(bounds.len());
        let mut rest = slots.as_mut_slice();
        for t in 0..bounds.len() - 1 {
            let (a, b) = rest.split_at_mut((bounds[t + 1] - bounds[t]) * heads);
            parts.push((t, a));
            rest = b;
        }
        parts.into_par_iter().for_each(|(task, part)| {
            let base = bounds[task];
            let r_end = ((task + 1) * ROWS_PER_TASK).min(csr.n_rows);
            for r in task * ROWS_PER_TASK..r_end {
                let dr = &dout[r * width..(r + 1) * width];
                for s in csr.ptr[r]..csr.ptr[r + 1] {
                    let j = csr.col[s] as usize;
                    let xr = &x[j * width..(j + 1) * width];
                    let dst = &mut part[(s - base) * heads..(s - base + 1) * heads];
                    for ((d, xv), gv) in dst.iter_mut().zip(xr.chunks(c)).zip(dr.chunks(c)) {
                        *d = xv.iter().zip(gv).map(|(a, b)| a * b).sum();
                    }
                }
            }
        });
        csr.to_entry_order(slots, heads)
    }

    /// The per-head `attention_host` that the head-parallel one replaced, kept as its
    /// bit-for-bit reference.
    fn attention_host_reference(csr: &Csr, sc: Scores<'_>) -> Vec<f32> {
        let heads = sc.heads;
        let mut slots = vec![0f32; csr.nnz() * heads];
        for_each_row_slots(csr, heads, &mut slots, |r, base, part| {
            let range = csr.ptr[r]..csr.ptr[r + 1];
            for h in 0..heads {
                let mut m = f32::NEG_INFINITY;
                for s in range.clone() {
                    let z = sc.logit(csr, r, s, h);
                    part[(s - base) * heads + h] = z;
                    m = m.max(z);
                }
                let mut sum = 0f32;
                for s in range.clone() {
                    let e = (part[(s - base) * heads + h] - m).exp();
                    part[(s - base) * heads + h] = e;
                    sum += e;
                }
                let inv = 1.0 / sum;
                for s in range.clone() {
                    part[(s - base) * heads + h] *= inv;
                }
            }
        });
        csr.to_entry_order(slots, heads)
    }

    /// The per-head `attention_grad` that the head-parallel one replaced, kept as its
    /// bit-for-bit reference.
    fn attention_grad_reference(
        csr: &Csr,
        sc: Scores<'_>,
        alpha: &[f32],
        dalpha: &[f32],
    ) -> (Vec<f32>, Vec<f32>) {
        let heads = sc.heads;
        // dpre = α ⊙ (dα − Σ_row α ⊙ dα) ⊙ LeakyReLU'(pre), slot-major.
        let mut slots = vec![0f32; csr.nnz() * heads];
        for_each_row_slots(csr, heads, &mut slots, |r, base, part| {
            let range = csr.ptr[r]..csr.ptr[r + 1];
            for h in 0..heads {
                let mut dot = 0f32;
                for s in range.clone() {
                    let k = csr.eid[s] as usize * heads + h;
                    dot += alpha[k] * dalpha[k];
                }
                for s in range.clone() {
                    let k = csr.eid[s] as usize * heads + h;
                    let slope = if sc.pre(csr, r, s, h) < 0.0 {
                        sc.slope
                    } else {
                        1.0
                    };
                    part[(s - base) * heads + h] = alpha[k] * (dalpha[k] - dot) * slope;
                }
            }
        });
        let dpre = csr.to_entry_order(slots, heads);
        (
            sum_rows(csr.columns(), &dpre, heads),
            sum_rows(csr.rows(), &dpre, heads),
        )
    }

    fn host(t: Tensor<2>) -> Vec<f32> {
        t.into_data().try_into_vec_as::<f32>().unwrap()
    }

    fn random(rng: &mut ChaCha8Rng, dims: [usize; 2], device: &Device) -> Tensor<2> {
        let v: Vec<f32> = (0..dims[0] * dims[1])
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        Tensor::from_data(TensorData::new(v, dims), device)
    }

    fn index(v: &[i64], device: &Device) -> Tensor<1, Int> {
        Tensor::from_data(TensorData::new(v.to_vec(), [v.len()]), device)
    }

    /// A random pattern in arbitrary (unsorted) order, with repeated entries and empty rows.
    fn pattern(
        rng: &mut ChaCha8Rng,
        n_rows: usize,
        n_cols: usize,
        nnz: usize,
    ) -> (Vec<i64>, Vec<i64>) {
        let rows = (0..nnz)
            .map(|_| rng.random_range(0..n_rows as i64 - 2))
            .collect();
        let cols = (0..nnz)
            .map(|_| rng.random_range(0..n_cols as i64))
            .collect();
        (rows, cols)
    }

    /// The generic-op version of `spmm`: gather, scale per head, scatter-add.
    fn spmm_reference(
        rows: &[i64],
        cols: &[i64],
        n_rows: usize,
        w: Tensor<2>,
        x: Tensor<2>,
    ) -> Tensor<2> {
        let device = x.device();
        let ([_, heads], [_, width]) = (w.dims(), x.dims());
        let c = width / heads;
        let expand: Vec<f32> = (0..heads * width)
            .map(|i| f32::from(u8::from((i % width) / c == i / width)))
            .collect();
        let expand = Tensor::<2>::from_data(TensorData::new(expand, [heads, width]), &device);
        let msgs = x.select(0, index(cols, &device)) * w.matmul(expand);
        Tensor::zeros([n_rows, width], &device).select_assign(
            0,
            index(rows, &device),
            msgs,
            IndexingUpdateOp::Add,
        )
    }

    fn softmax_reference(rows: &[i64], n_rows: usize, z: Tensor<2>) -> Tensor<2> {
        let device = z.device();
        let heads = z.dims()[1];
        let idx = index(rows, &device);
        let max = Tensor::<2>::full([n_rows, heads], f32::NEG_INFINITY, &device)
            .select_assign(0, idx.clone(), z.clone().detach(), IndexingUpdateOp::Max)
            .detach();
        let ex = (z - max.select(0, idx.clone())).exp();
        let denom = Tensor::zeros([n_rows, heads], &device).select_assign(
            0,
            idx.clone(),
            ex.clone(),
            IndexingUpdateOp::Add,
        );
        ex / denom.select(0, idx)
    }

    fn assert_close(a: &[f32], b: &[f32], what: &str) {
        assert_eq!(a.len(), b.len(), "{what}: lengths");
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-5 * (1.0 + y.abs()),
                "{what}[{i}]: {x} vs {y}"
            );
        }
    }

    #[test]
    fn csr_rejects_bad_patterns() {
        assert!(Csr::new(3, 3, &[0, 3], &[0, 1]).is_none());
        assert!(Csr::new(3, 3, &[0, -1], &[0, 1]).is_none());
        assert!(Csr::new(3, 3, &[0, 1], &[0]).is_none());
        let csr = Csr::new(3, 2, &[2, 0, 2], &[1, 1, 0]).unwrap();
        assert_eq!((csr.nnz(), csr.identity), (3, false));
        assert!(Csr::new(3, 2, &[0, 2, 2], &[1, 1, 0]).unwrap().identity);
    }

    /// The kernels that run heads side by side against their per-head references (the
    /// kernels before vectorisation): bit for bit, with and without edge weights.
    #[test]
    fn head_parallel_kernels_match_the_per_head_references_bit_for_bit() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for (n, nnz, heads, c) in [
            (40, 900, 8, 16),
            (60, 300, 3, 5),
            (30, 200, 1, 7),
            (20, 400, 17, 2),
        ] {
            let (rows, cols) = pattern(&mut rng, n, n, nnz);
            let csr = Csr::new(n, n, &rows, &cols).unwrap();
            let width = heads * c;
            let mut draw = |len: usize| -> Vec<f32> {
                (0..len).map(|_| rng.random_range(-2.0..2.0)).collect()
            };
            let (mut x, dout) = (draw(n * width), draw(n * width));
            // Zero rows: their dot products are ±0, whose sign depends on the sum's start.
            x[..2 * width].fill(0.0);
            assert_eq!(
                bits(&spmm_grad_w(&csr, &x, heads, &dout, width)),
                bits(&spmm_grad_w_reference(&csr, &x, heads, &dout, width))
            );
            let (a_src, a_dst, dalpha, lw) = (
                draw(n * heads),
                draw(n * heads),
                draw(nnz * heads),
                draw(nnz),
            );
            for log_w in [None, Some(lw.as_slice())] {
                let sc = Scores {
                    a_src: &a_src,
                    a_dst: &a_dst,
                    log_w,
                    heads,
                    slope: 0.2,
                };
                let alpha = attention_host(&csr, sc);
                assert_eq!(bits(&alpha), bits(&attention_host_reference(&csr, sc)));
                let (gs, gd) = attention_grad(&csr, sc, &alpha, &dalpha);
                let (rs, rd) = attention_grad_reference(&csr, sc, &alpha, &dalpha);
                assert_eq!((bits(&gs), bits(&gd)), (bits(&rs), bits(&rd)));
            }
        }
    }

    #[test]
    fn spmm_matches_gather_scatter_with_gradients() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let device = Device::flex().autodiff();
        for (heads, c) in [(1, 5), (3, 4)] {
            let (n_rows, n_cols, nnz) = (40, 30, 300);
            let (rows, cols) = pattern(&mut rng, n_rows, n_cols, nnz);
            let csr = Arc::new(Csr::new(n_rows, n_cols, &rows, &cols).unwrap());
            let w = random(&mut rng, [nnz, heads], &device).require_grad();
            let x = random(&mut rng, [n_cols, heads * c], &device).require_grad();
            let r = random(&mut rng, [n_rows, heads * c], &Device::flex());
            let fused = spmm(&csr, &w, &x).expect("autodiff flex tensors are supported");
            let plain = spmm_reference(&rows, &cols, n_rows, w.clone(), x.clone());
            assert_close(&host(fused.clone()), &host(plain.clone()), "output");
            let gf = (fused * r.clone()).sum().backward();
            let gp = (plain * r).sum().backward();
            for (t, what) in [(&w, "dw"), (&x, "dx")] {
                let (a, b) = (t.grad(&gf).unwrap(), t.grad(&gp).unwrap());
                assert_close(&host(a), &host(b), what);
            }
        }
    }

    #[test]
    fn symmetric_spmm_matches_the_transposed_product() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let n = 30;
        let mut pairs: Vec<(i64, i64, f32)> = (0..n as i64).map(|i| (i, i, 0.5)).collect();
        for _ in 0..80 {
            let (u, v) = (rng.random_range(0..n as i64), rng.random_range(0..n as i64));
            let w = rng.random_range(0.1..1.0f32);
            if u != v {
                pairs.push((u, v, w));
                pairs.push((v, u, w));
            }
        }
        pairs.sort_by_key(|&(r, c, _)| (r, c));
        pairs.dedup_by_key(|&mut (r, c, _)| (r, c));
        let rows: Vec<i64> = pairs.iter().map(|p| p.0).collect();
        let cols: Vec<i64> = pairs.iter().map(|p| p.1).collect();
        let mut w: Vec<f32> = Vec::new();
        // Mirror weights: (r, c) takes the weight first drawn for {r, c}.
        for &(r, c, x) in &pairs {
            let m = pairs
                .iter()
                .find(|p| (p.0, p.1) == (c.min(r), c.max(r)))
                .map_or(x, |p| p.2);
            w.push(m);
        }
        let csr = Arc::new(Csr::new(n, n, &rows, &cols).unwrap());
        assert!(csr.is_symmetric(&w));
        let mut skewed = w.clone();
        let k = pairs.iter().position(|p| p.0 != p.1).unwrap();
        skewed[k] += 1.0;
        assert!(!csr.is_symmetric(&skewed));
        let plain = Device::flex();
        let wt = Tensor::<2>::from_data(TensorData::new(w.clone(), [w.len(), 1]), &plain);
        let xv = random(&mut rng, [n, 5], &plain);
        let r = random(&mut rng, [n, 5], &plain);
        let ad = plain.clone().autodiff();
        let grads = |sym: bool| {
            let x = Tensor::<2>::from_data(xv.to_data(), &ad).require_grad();
            let out = if sym {
                spmm_symmetric(&csr, &wt, &x).unwrap()
            } else {
                spmm(&csr, &wt, &x).unwrap()
            };
            let g = (out.clone() * r.clone()).sum().backward();
            (host(out), host(x.grad(&g).unwrap()))
        };
        let (a, b) = (grads(true), grads(false));
        assert_close(&a.0, &b.0, "output");
        assert_close(&a.1, &b.1, "dx");
    }

    #[test]
    fn sparse_patterns_are_cached_per_index_storage() {
        let device = Device::flex();
        let (rows, cols) = (index(&[0, 1, 1], &device), index(&[2, 0, 1], &device));
        let calls = std::cell::Cell::new(0);
        let build = || {
            calls.set(calls.get() + 1);
            Csr::new(2, 3, &[0, 1, 1], &[2, 0, 1]).map(Arc::new)
        };
        let a = cached_pattern(&rows, &cols, [2, 3], build).unwrap();
        // Clones share the storage: no rebuild.
        let b = cached_pattern(&rows.clone(), &cols.clone(), [2, 3], build).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(calls.get(), 1);
        // Equal values in other storage, or another shape: built again.
        let other = index(&[0, 1, 1], &device);
        cached_pattern(&other, &cols, [2, 3], build).unwrap();
        cached_pattern(&rows, &cols, [3, 3], build).unwrap();
        assert_eq!(calls.get(), 3);
    }

    #[test]
    fn spmm_on_plain_and_mixed_tensors() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let (rows, cols) = pattern(&mut rng, 12, 9, 50);
        let csr = Arc::new(Csr::new(12, 9, &rows, &cols).unwrap());
        let plain = Device::flex();
        let w = random(&mut rng, [50, 1], &plain);
        let x = random(&mut rng, [9, 6], &plain);
        let expected = host(spmm_reference(&rows, &cols, 12, w.clone(), x.clone()));
        assert_close(&host(spmm(&csr, &w, &x).unwrap()), &expected, "plain");
        // Constant weights, tracked dense operand (GCN and sparse-feature projections).
        let xa = Tensor::<2>::from_data(x.to_data(), &plain.clone().autodiff()).require_grad();
        let out = spmm(&csr, &w, &xa).unwrap();
        assert_close(&host(out.clone()), &expected, "mixed");
        let g = out.sum().backward();
        let gx = host(xa.grad(&g).unwrap());
        let gref = {
            let xr = Tensor::<2>::from_data(x.to_data(), &plain.clone().autodiff()).require_grad();
            let g = spmm_reference(&rows, &cols, 12, w.clone(), xr.clone())
                .sum()
                .backward();
            host(xr.grad(&g).unwrap())
        };
        assert_close(&gx, &gref, "mixed dx");
        // Shapes that do not fit the pattern are declined, not a panic.
        assert!(spmm(&csr, &w, &random(&mut rng, [8, 6], &plain)).is_none());
        assert!(spmm(&csr, &random(&mut rng, [50, 4], &plain), &x).is_none());
    }

    #[test]
    fn pointwise_activations_match_burn_with_gradients() {
        use burn::tensor::activation::elu;
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let device = Device::flex().autodiff();
        let x = random(&mut rng, [300, 7], &device)
            .mul_scalar(3.0)
            .require_grad();
        let r = random(&mut rng, [300, 7], &Device::flex());
        type Reference = fn(Tensor<2>) -> Tensor<2>;
        let cases: [(Pointwise, Reference); 1] = [(Pointwise::Elu(1.0), |x| elu(x, 1.0))];
        for (f, reference) in cases {
            let fused = pointwise(&x, f).unwrap();
            let plain = reference(x.clone());
            assert_close(&host(fused.clone()), &host(plain.clone()), "value");
            let gf = (fused * r.clone()).sum().backward();
            let gp = (plain * r.clone()).sum().backward();
            assert_close(
                &host(x.grad(&gf).unwrap()),
                &host(x.grad(&gp).unwrap()),
                "grad",
            );
        }
    }

    #[test]
    fn gat_attention_matches_the_generic_ops_with_gradients() {
        use burn::tensor::activation::leaky_relu;
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let device = Device::flex().autodiff();
        let (n, nnz, heads) = (25, 120, 3);
        // Unsorted entries, so that the entry order differs from the CSR order.
        let (rows, cols) = pattern(&mut rng, n, n, nnz);
        let csr = Arc::new(Csr::new(n, n, &rows, &cols).unwrap());
        assert!(!csr.identity);
        let a_src = random(&mut rng, [n, heads], &device)
            .mul_scalar(3.0)
            .require_grad();
        let a_dst = random(&mut rng, [n, heads], &device)
            .mul_scalar(3.0)
            .require_grad();
        let r = random(&mut rng, [nnz, heads], &Device::flex());
        for weighted in [false, true] {
            let log_w = weighted.then(|| random(&mut rng, [nnz, 1], &Device::flex()));
            let fused = gat_attention(&csr, &a_src, &a_dst, log_w.as_ref(), 0.2).unwrap();
            let device = a_src.device();
            let mut z = leaky_relu(
                a_src.clone().select(0, index(&cols, &device))
                    + a_dst.clone().select(0, index(&rows, &device)),
                0.2,
            );
            if let Some(lw) = &log_w {
                z = z + lw.clone();
            }
            let plain = softmax_reference(&rows, n, z);
            assert_close(&host(fused.clone()), &host(plain.clone()), "alpha");
            let gf = (fused * r.clone()).sum().backward();
            let gp = (plain * r.clone()).sum().backward();
            for (t, what) in [(&a_src, "d a_src"), (&a_dst, "d a_dst")] {
                let (a, b) = (t.grad(&gf).unwrap(), t.grad(&gp).unwrap());
                assert_close(&host(a), &host(b), what);
            }
        }
        // Mismatched shapes are declined.
        let small = random(&mut rng, [n - 1, heads], &device);
        assert!(gat_attention(&csr, &small, &a_dst, None, 0.2).is_none());
    }
}
