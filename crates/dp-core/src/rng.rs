//! The project CSPRNG: ChaCha20, seeded from the operating system or, for reproducibility, explicitly.

use rand::SeedableRng;
pub use rand_chacha::ChaCha20Rng;

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
