//! A binary file format for the noisy reports of [`crate::perturb`] (`.rr` files).
//!
//! A report is a 64-byte header followed by a body. All integers are little-endian.
//!
//! | offset | size | field        | meaning                                                        |
//! |-------:|-----:|--------------|----------------------------------------------------------------|
//! | 0      | 8    | magic        | `89 44 50 47 52 52 0D 0A` (`\x89DPGRR\r\n`)                     |
//! | 8      | 4    | version      | `u32`, currently 1                                             |
//! | 12     | 4    | encoding     | `u32`: 0 = dense bit-packed upper triangle, 1 = sparse pairs   |
//! | 16     | 8    | n            | `u64` node count (at most 2³²)                                 |
//! | 24     | 8    | m            | `u64` noisy edge count (at most `N = n(n−1)/2`)                |
//! | 32     | 8    | eps          | `f64` ε of the randomized response (finite, > 0)               |
//! | 40     | 8    | keep_prob    | `f64` keep probability `p = e^ε/(1+e^ε)`, bit-equal to [`crate::keep_probability`]`(ε)` |
//! | 48     | 8    | body_len     | `u64` body length in bytes (determined by encoding, n and m)   |
//! | 56     | 8    | checksum     | `u64` over bytes 0..56 then the body (see below)               |
//! | 64     | body_len | body     | the noisy edges                                                |
//!
//! **Dense body** (encoding 0): the upper triangle as one bit string of `N` bits, pair `(i, j)`
//! with `i < j` at bit `k = i(2n − i − 1)/2 + (j − i − 1)` (row-major), bit `k` being bit `k mod 64`
//! of the `u64` word `k / 64`. The last word's unused high bits are zero.
//! `body_len = 8·⌈N/64⌉`.
//!
//! **Sparse body** (encoding 1): `m` pairs `(u: u32, v: u32)` with `u < v < n`, in strictly
//! increasing lexicographic order. `body_len = 8·m`.
//!
//! The writer picks the smaller of the two: sparse when `8·m < 8·⌈N/64⌉`, i.e. when fewer than
//! one pair in 64 is a noisy edge (ε ≳ 4.1). Randomized response at ε ≤ 4 reports a fraction
//! `1 − p ≥ 1.8 %` of the non-edges, so its reports are dense.
//!
//! **Checksum**: `h = 0xcbf29ce484222325`; for every little-endian `u64` word `w` of bytes 0..56
//! and then of the body, `h = (h ^ w) · 0x100000001b3 (mod 2⁶⁴)`; finally `h ^= h >> 32`.
//! Every step is a bijection of `h`, so any change confined to one word is always detected;
//! it is an integrity check, not a cryptographic one.
//!
//! The reader ([`Report::open`]) memory-maps the file and checks, in this order and before
//! allocating anything: the length against the header, magic, version, encoding, `n`, `m`, that
//! `body_len` is the one `n`, `m` and the encoding determine and that the file holds exactly
//! `64 + body_len` bytes, the values of ε and `p`, then the checksum. Every failure is
//! [`crate::EdgeRefineError::Report`] naming the byte offset of the offending field or byte.

mod checksum;
mod decode;
mod encode;
mod header;
mod sample;

pub use checksum::checksum;
pub use decode::{Report, decode_report, is_report};
pub use encode::{encode_report, write_report};
pub use header::{Encoding, HEADER_LEN, MAGIC, ReportFault, ReportHeader, VERSION};
pub use sample::{FlipSampler, WORD_SAMPLER_MIN_FLIP, perturb_report};

#[cfg(test)]
mod tests;
