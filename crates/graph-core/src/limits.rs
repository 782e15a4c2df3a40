//! What a file may make a loader allocate: sizes read from a file are checked against the file's
//! own length before anything is allocated for them.
//!
//! A node count declared in a header (an edge list's `# nodes N`, a graph set's `"n"`) costs
//! memory even when no edge names the nodes, so a tiny file could otherwise ask for gigabytes. A
//! file may declare up to [`FREE_DECLARED_NODES`] nodes, plus [`DECLARED_NODES_PER_BYTE`] per
//! byte of its own length: a real graph's edges take far more room than that, while a 100-byte
//! file that claims 4·10⁹ nodes is refused (the allocation it could cause is at most
//! 8 MiB + 512 bytes per input byte).
//!
//! A request whose size does not come from a file (a node count given by a caller, the expected
//! output of a randomized release) is checked against a [`MemoryBudget`] before anything is
//! allocated: what the kernel says is available, and what the address-space limit (`ulimit -v`)
//! still allows this process. A request that cannot fit is a [`GraphError::TooLarge`] naming its
//! size, never an abort or the OOM killer.

use std::path::Path;

pub use crate::error::human_bytes;

use crate::error::{GraphError, Result};

/// Nodes any file may declare regardless of its length.
pub const FREE_DECLARED_NODES: u64 = 1 << 20;

/// Further nodes a file may declare per byte of its length.
pub const DECLARED_NODES_PER_BYTE: u64 = 64;

/// The most nodes a file of `len` bytes may declare in all.
///
/// # Example
/// ```
/// use graph_core::limits::{declared_nodes_limit, FREE_DECLARED_NODES};
/// assert_eq!(declared_nodes_limit(0), FREE_DECLARED_NODES);
/// assert_eq!(declared_nodes_limit(100), FREE_DECLARED_NODES + 6_400);
/// ```
pub fn declared_nodes_limit(len: u64) -> u64 {
    FREE_DECLARED_NODES.saturating_add(len.saturating_mul(DECLARED_NODES_PER_BYTE))
}

/// Checks that a file of `len` bytes may declare `declared` nodes in all.
///
/// # Errors
/// [`GraphError::Format`] naming the file, the declared count and the limit.
pub fn check_declared_nodes(path: &Path, declared: u64, len: u64) -> Result<()> {
    let limit = declared_nodes_limit(len);
    if declared > limit {
        return Err(GraphError::format(
            path,
            format!(
                "declares {declared} nodes in a file of {len} bytes: at most {limit} \
                 ({FREE_DECLARED_NODES} + {DECLARED_NODES_PER_BYTE} per byte; see graph_core::limits)"
            ),
        ));
    }
    Ok(())
}

/// Allocations below this size are not checked against the budget (reading it costs a few
/// microseconds of `/proc` parsing; a request this small cannot take the machine).
pub const CHECK_ABOVE_BYTES: u64 = 64 << 20;

/// How many bytes this process may still allocate.
///
/// # Example
/// ```
/// use graph_core::limits::MemoryBudget;
/// let b = MemoryBudget::of_bytes(1 << 30);
/// assert!(b.check("a small array", 1 << 20).is_ok());
/// let e = b.check("a big array", 3 << 30).unwrap_err().to_string();
/// assert!(e.contains("a big array needs about 3.0 GiB"), "{e}");
/// assert!(MemoryBudget::unlimited().check("anything", u64::MAX).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    bytes: Option<u64>,
}

impl MemoryBudget {
    /// A budget of `bytes`.
    pub const fn of_bytes(bytes: u64) -> Self {
        Self { bytes: Some(bytes) }
    }

    /// No budget (every request passes).
    pub const fn unlimited() -> Self {
        Self { bytes: None }
    }

    /// What this process can still allocate: the smaller of the kernel's `MemAvailable`
    /// (`/proc/meminfo`) and the soft address-space limit (`/proc/self/limits`, `ulimit -v`) less
    /// the address space already mapped (`VmSize` of `/proc/self/status`). Unlimited where the
    /// system reports neither (not Linux).
    pub fn detect() -> Self {
        let available = proc_value("/proc/meminfo", "MemAvailable:").map(|kb| kb * 1024);
        let limit = std::fs::read_to_string("/proc/self/limits")
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("Max address space"))?;
                line["Max address space".len()..]
                    .split_whitespace()
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .map(|lim| {
                let used = proc_value("/proc/self/status", "VmSize:").map_or(0, |kb| kb * 1024);
                lim.saturating_sub(used)
            });
        Self {
            bytes: match (available, limit) {
                (Some(a), Some(l)) => Some(a.min(l)),
                (a, l) => a.or(l),
            },
        }
    }

    /// The budget in bytes (`None`: unlimited).
    pub fn bytes(&self) -> Option<u64> {
        self.bytes
    }

    /// Checks that `bytes` more bytes fit.
    ///
    /// # Errors
    /// [`GraphError::TooLarge`] naming `what`, the size and the budget.
    pub fn check(&self, what: &str, bytes: u64) -> Result<()> {
        match self.bytes {
            Some(budget) if bytes > budget => Err(GraphError::TooLarge {
                what: what.to_owned(),
                bytes,
                budget,
            }),
            _ => Ok(()),
        }
    }
}

/// A vector of `len` zeros (`T::default()`), refused with a typed error instead of aborting
/// when it does not fit: checked against [`check_allocation`] first, then allocated with
/// `try_reserve_exact`.
///
/// # Errors
/// [`GraphError::TooLarge`] naming `what`, the size and the budget.
///
/// # Example
/// ```
/// let v: Vec<u64> = graph_core::limits::zeroed_vec("a test buffer", 4)?;
/// assert_eq!(v, [0; 4]);
/// assert!(graph_core::limits::zeroed_vec::<u64>("an impossible buffer", usize::MAX).is_err());
/// # Ok::<(), graph_core::GraphError>(())
/// ```
pub fn zeroed_vec<T: Clone + Default>(what: &str, len: usize) -> Result<Vec<T>> {
    let bytes = (len as u128 * std::mem::size_of::<T>() as u128).min(u128::from(u64::MAX)) as u64;
    check_allocation(what, bytes)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| GraphError::TooLarge {
        what: what.to_owned(),
        bytes,
        budget: MemoryBudget::detect().bytes().unwrap_or(0),
    })?;
    v.resize(len, T::default());
    Ok(v)
}

/// Checks a request of `bytes` against [`MemoryBudget::detect`] when it is at least
/// [`CHECK_ABOVE_BYTES`].
///
/// # Errors
/// [`GraphError::TooLarge`] naming `what`, the size and the budget.
pub fn check_allocation(what: &str, bytes: u64) -> Result<()> {
    if bytes < CHECK_ABOVE_BYTES {
        return Ok(());
    }
    MemoryBudget::detect().check(what, bytes)
}

/// The number after `key` in a `/proc` file of `key value kB` lines.
fn proc_value(path: &str, key: &str) -> Option<u64> {
    let s = std::fs::read_to_string(path).ok()?;
    s.lines()
        .find(|l| l.starts_with(key))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_refuses_by_size_and_names_it() {
        let b = MemoryBudget::of_bytes(100);
        assert!(b.check("x", 100).is_ok());
        assert!(matches!(
            b.check("noisy graph", 101),
            Err(GraphError::TooLarge {
                bytes: 101,
                budget: 100,
                ..
            })
        ));
        assert_eq!(human_bytes(900), "900 bytes");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
        // Small requests are never checked; on Linux the detected budget is finite.
        assert!(check_allocation("tiny", 10).is_ok());
        if cfg!(target_os = "linux") {
            let d = MemoryBudget::detect()
                .bytes()
                .expect("Linux reports MemAvailable");
            assert!(d > 0);
            assert!(check_allocation("everything", u64::MAX).is_err());
        }
    }
}
