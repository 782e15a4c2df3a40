//! The project's randomness: the CSPRNG of every release, the one seed derivation, and the record of
//! where a run's noise came from.
//!
//! Two kinds of randomness travel through dpgraph and never mix:
//!
//! * **noise** — what protects privacy: drawn only through dp-core's mechanisms, from a
//!   [`NoiseSource`]. By default ([`NoiseSource::Os`]) every generator is ChaCha20 keyed with 256
//!   bits from the operating system, and nothing that is printed or saved lets anyone recompute it.
//!   [`NoiseSource::Seeded`] makes a run reproducible, and therefore **not private**: outputs say so
//!   through [`NoiseRecord`].
//! * **training randomness** — initialisation, sampling, splits, dropout, public patterns: seeded,
//!   printed, and derived from a [`Seeds`] tree, one independent stream per purpose name and index.
//!
//! [`Seeds`] is the only seed derivation in the workspace: no crate mixes constants into a seed.

use rand::SeedableRng;
pub use rand::{CryptoRng, Rng};
pub use rand_chacha::{ChaCha8Rng, ChaCha20Rng};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Error, Result};

/// A ChaCha20 generator seeded with 256 bits from the operating system (`getrandom`).
///
/// This is the default for every release: noise that leaves the machine must not be reproducible.
///
/// # Errors
/// [`Error::Entropy`] if the operating system cannot provide entropy.
///
/// # Privacy
/// A CSPRNG seeded from OS entropy: the noise is unpredictable to anyone without the seed.
///
/// # Example
/// ```
/// use rand::Rng;
/// let mut a = dp_core::rng::os_rng()?;
/// let mut b = dp_core::rng::os_rng()?;
/// assert_ne!(a.next_u64(), b.next_u64()); // fails with probability 2^-64
/// # Ok::<(), dp_core::Error>(())
/// ```
pub fn os_rng() -> Result<ChaCha20Rng> {
    ChaCha20Rng::try_from_rng(&mut rand::rngs::SysRng).map_err(|e| Error::Entropy(e.to_string()))
}

/// A 64-bit value from the operating system's entropy: the root of a run's *training* seed when the
/// user gives none (it may be printed; it never seeds noise).
///
/// # Errors
/// [`Error::Entropy`] if the operating system cannot provide entropy.
pub fn os_seed() -> Result<u64> {
    use rand::TryRng;
    rand::rngs::SysRng
        .try_next_u64()
        .map_err(|e| Error::Entropy(e.to_string()))
}

/// A ChaCha20 generator from an explicit seed: a reproducibility option for tests and experiments.
///
/// # Privacy
/// Anyone who knows the seed can recompute the noise and remove it. Use it only for experiments, and
/// record the seed in every output produced with it (the CLI echoes `--seed`).
///
/// # Example
/// ```
/// use rand::Rng;
/// let (mut a, mut b) = (dp_core::rng::seeded_rng(42), dp_core::rng::seeded_rng(42));
/// assert_eq!(a.next_u64(), b.next_u64());
/// ```
pub fn seeded_rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// [`seeded_rng`] when `seed` is `Some`, [`os_rng`] otherwise (the CLI's `--seed S` convention).
///
/// # Errors
/// [`Error::Entropy`] if `seed` is `None` and the operating system cannot provide entropy.
///
/// # Privacy
/// See [`os_rng`] and [`seeded_rng`]: a seeded generator must be recorded in the outputs.
pub fn project_rng(seed: Option<u64>) -> Result<ChaCha20Rng> {
    match seed {
        Some(s) => Ok(seeded_rng(s)),
        None => os_rng(),
    }
}

/// The one seed derivation: independent generators by purpose name and index from one root seed.
///
/// The key of stream `(purpose, index)` is
/// `SHA-256("dpgraph/seeds/v1" ‖ root ‖ len(purpose) ‖ purpose ‖ index)` (integers little-endian,
/// 8 bytes each): streams of different purposes or indices are independent (as far as SHA-256 and
/// ChaCha are pseudo-random), a purpose is a readable name instead of a constant mixed into a seed,
/// and adding a purpose never moves the streams of the others.
///
/// # Privacy
/// A tree of *reproducible* streams. Seeding noise from it makes the run non-private; see
/// [`NoiseSource`].
///
/// # Example
/// ```
/// use dp_core::rng::Seeds;
/// use rand::Rng;
/// let s = Seeds::new(42);
/// assert_eq!(s.chacha8("init", 0).next_u64(), Seeds::new(42).chacha8("init", 0).next_u64());
/// assert_ne!(s.seed("init", 0), s.seed("init", 1));
/// assert_ne!(s.seed("init", 0), s.seed("split", 0));
/// assert_ne!(s.seed("init", 0), Seeds::new(43).seed("init", 0));
/// // Trees nest: a child tree is the stream of its own purpose.
/// assert_eq!(s.child("client", 3).seed("init", 0), Seeds::new(s.seed("client", 3)).seed("init", 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seeds {
    root: u64,
}

impl Seeds {
    /// Domain separation of the derivation (changing it moves every seeded number).
    const DOMAIN: &'static [u8] = b"dpgraph/seeds/v1";

    /// The tree rooted at `root`.
    pub const fn new(root: u64) -> Self {
        Self { root }
    }

    /// A tree rooted at 64 bits of operating-system entropy.
    ///
    /// # Errors
    /// [`Error::Entropy`] if the operating system cannot provide entropy.
    pub fn from_os() -> Result<Self> {
        os_seed().map(Self::new)
    }

    /// The root seed (what an output records to make the run reproducible).
    pub const fn root(&self) -> u64 {
        self.root
    }

    /// The 256-bit key of stream `(purpose, index)`.
    ///
    /// # Complexity
    /// One SHA-256 of `purpose.len() + 40` bytes.
    pub fn key(&self, purpose: &str, index: u64) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(Self::DOMAIN);
        h.update(self.root.to_le_bytes());
        h.update((purpose.len() as u64).to_le_bytes());
        h.update(purpose.as_bytes());
        h.update(index.to_le_bytes());
        h.finalize().into()
    }

    /// A 64-bit seed for stream `(purpose, index)`, for APIs that take a `u64` seed.
    pub fn seed(&self, purpose: &str, index: u64) -> u64 {
        let k = self.key(purpose, index);
        u64::from_le_bytes(k[..8].try_into().expect("8 bytes"))
    }

    /// The sub-tree of stream `(purpose, index)` (e.g. one client's or one repetition's streams).
    pub fn child(&self, purpose: &str, index: u64) -> Self {
        Self::new(self.seed(purpose, index))
    }

    /// A keyed 64-bit hash of indices for stream `purpose` (a seeded pseudo-random order of many
    /// items, e.g. a tie-break over pairs, without a generator per item).
    pub fn mixer(&self, purpose: &str) -> Mixer {
        Mixer {
            key: self.seed(purpose, 0),
        }
    }

    /// A ChaCha8 generator for stream `(purpose, index)`: training randomness (initialisation,
    /// sampling, splits, dropout, public patterns).
    pub fn chacha8(&self, purpose: &str, index: u64) -> ChaCha8Rng {
        ChaCha8Rng::from_seed(self.key(purpose, index))
    }

    /// A ChaCha20 generator for stream `(purpose, index)`.
    ///
    /// # Privacy
    /// Reproducible: noise drawn from it is not private (use [`NoiseSource`] for noise).
    pub fn chacha20(&self, purpose: &str, index: u64) -> ChaCha20Rng {
        ChaCha20Rng::from_seed(self.key(purpose, index))
    }
}

/// A keyed pseudo-random function of 64-bit indices: output `i` of the SplitMix64 generator
/// (Steele–Lea–Flood 2014) whose state starts at the key, computed directly for any `i`.
///
/// Not a CSPRNG: for seeded orders of public items (tie-breaks), never for noise.
///
/// # Example
/// ```
/// let m = dp_core::rng::Seeds::new(1).mixer("order");
/// assert_eq!(m.at(5), dp_core::rng::Seeds::new(1).mixer("order").at(5));
/// assert_ne!(m.at(5), m.at(6));
/// assert_ne!(m.at(5), dp_core::rng::Seeds::new(1).mixer("other").at(5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mixer {
    key: u64,
}

impl Mixer {
    /// SplitMix64's increment (the odd integer closest to 2⁶⁴/φ).
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

    /// A mixer with an explicit key.
    pub const fn with_key(key: u64) -> Self {
        Self { key }
    }

    /// Output `i` of the stream: SplitMix64's finaliser of `key + (i + 1)·γ`.
    #[inline]
    pub fn at(&self, i: u64) -> u64 {
        let mut z = self
            .key
            .wrapping_add(i.wrapping_add(1).wrapping_mul(Self::GAMMA));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Where the noise of a release comes from.
///
/// The default is [`NoiseSource::Os`]; a run that must be reproducible asks for
/// [`NoiseSource::Seeded`] explicitly, and every output of it records [`NoiseSource::record`].
///
/// # Privacy
/// With `Os`, each generator is ChaCha20 keyed from the operating system; nothing a run prints or
/// saves reproduces it. With `Seeded(s)`, anyone who knows `s` recomputes the noise: the release is
/// **not private**.
///
/// # Example
/// ```
/// use dp_core::rng::NoiseSource;
/// use rand::Rng;
/// let s = NoiseSource::from_seed(Some(7));
/// assert!(s.record().reproducible && !s.record().private);
/// assert_eq!(s.rng("rows", 2)?.next_u64(), s.rng("rows", 2)?.next_u64());
/// let os = NoiseSource::from_seed(None);
/// assert!(os.record().private && os.record().seed.is_none());
/// assert_ne!(os.rng("rows", 2)?.next_u64(), os.rng("rows", 2)?.next_u64());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoiseSource {
    /// ChaCha20 keyed with fresh operating-system entropy for every generator (the default).
    #[default]
    Os,
    /// Stream `(purpose, index)` of [`Seeds::new`]`(seed)`: reproducible, not private.
    Seeded(u64),
}

impl NoiseSource {
    /// `Seeded(s)` for `Some(s)`, `Os` for `None` (the CLI's `--seed` convention).
    pub fn from_seed(seed: Option<u64>) -> Self {
        seed.map_or(Self::Os, Self::Seeded)
    }

    /// Whether the noise can be recomputed (then the release is not private).
    pub fn is_reproducible(&self) -> bool {
        matches!(self, Self::Seeded(_))
    }

    /// The generator of the noise of `(purpose, index)`: fresh OS-keyed ChaCha20, or the seeded
    /// stream.
    ///
    /// # Errors
    /// [`Error::Entropy`] if the operating system cannot provide entropy.
    pub fn rng(&self, purpose: &str, index: u64) -> Result<ChaCha20Rng> {
        match self {
            Self::Os => os_rng(),
            Self::Seeded(s) => Ok(Seeds::new(*s).chacha20(purpose, index)),
        }
    }

    /// What an output must say about the noise.
    pub fn record(&self) -> NoiseRecord {
        match *self {
            Self::Os => NoiseRecord {
                source: "os-csprng".into(),
                seed: None,
                reproducible: false,
                private: true,
                note: "noise from ChaCha20 keyed by the operating system; nothing printed or \
                       saved reproduces it"
                    .into(),
            },
            Self::Seeded(s) => NoiseRecord {
                source: "seeded".into(),
                seed: Some(s),
                reproducible: true,
                private: false,
                note: "noise seeded with --seed: anyone holding the seed recomputes and removes \
                       it, so this release is reproducible and NOT private"
                    .into(),
            },
        }
    }
}

/// The record of a run's noise that every output carries (the `"noise"` object of the CLI's JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoiseRecord {
    /// `"os-csprng"` or `"seeded"`.
    pub source: String,
    /// The seed of a seeded run.
    pub seed: Option<u64>,
    /// Whether the noise can be recomputed from this record.
    pub reproducible: bool,
    /// Whether the release is private (not reproducible).
    pub private: bool,
    /// One sentence for a reader.
    pub note: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_stable_and_separated() {
        // The derivation is part of the reproducibility contract: this value must never change
        // without bumping the domain (it moves every seeded number in the project).
        let s = Seeds::new(42);
        let k = s.key("pattern", 0);
        let mut h = Sha256::new();
        h.update(b"dpgraph/seeds/v1");
        h.update(42u64.to_le_bytes());
        h.update(7u64.to_le_bytes());
        h.update(b"pattern");
        h.update(0u64.to_le_bytes());
        assert_eq!(k, <[u8; 32]>::from(h.finalize()));
        // Length prefix: ("ab", …) and ("a", …) followed by other bytes never collide.
        assert_ne!(s.key("ab", 0), s.key("a", 0));
        let mut all = std::collections::HashSet::new();
        for p in ["noise", "init", "split", "sampler"] {
            for i in 0..100 {
                assert!(all.insert(s.seed(p, i)));
            }
        }
    }

    #[test]
    fn seeded_noise_repeats_and_os_noise_does_not() {
        use rand::Rng;
        let a = NoiseSource::Seeded(3).rng("x", 1).unwrap().next_u64();
        assert_eq!(a, NoiseSource::Seeded(3).rng("x", 1).unwrap().next_u64());
        assert_ne!(a, NoiseSource::Seeded(3).rng("x", 2).unwrap().next_u64());
        let o1 = NoiseSource::Os.rng("x", 1).unwrap().next_u64();
        let o2 = NoiseSource::Os.rng("x", 1).unwrap().next_u64();
        assert_ne!(o1, o2);
        assert_eq!(NoiseSource::default(), NoiseSource::Os);
        assert!(NoiseSource::Os.record().private);
        assert!(!NoiseSource::Seeded(1).record().private);
    }
}
