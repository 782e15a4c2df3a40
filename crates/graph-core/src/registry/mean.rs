//! A per-graph mean as a publisher prints it (`"508.52"`): the only size figures some graph
//! collections publish, and enough, with the graph and class counts, to tell their archive from
//! another when the registry has no checksum for it.

use std::fmt;

use serde::Deserialize;

/// A published mean, kept as its decimal digits: `"508.52"` is 50852 hundredths. A loaded
/// collection matches it when its own mean rounds to the same printed value (within half a unit
/// of the last printed digit), compared in integers, so no float decides a verdict.
///
/// # Example
/// ```
/// use graph_core::registry::PublishedMean;
/// let m: PublishedMean = "508.52".parse()?;
/// assert!(m.matches(2_542_091, 4_999)); // 508.5199…
/// assert!(!m.matches(2_542_200, 4_999)); // 508.5417…
/// assert_eq!(m.to_string(), "508.52");
/// # Ok::<(), graph_core::GraphError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct PublishedMean {
    /// The value times `10^decimals`.
    scaled: u64,
    /// Digits after the decimal point (at most 6).
    decimals: u32,
}

impl PublishedMean {
    /// The largest number of decimals accepted.
    pub const MAX_DECIMALS: u32 = 6;

    /// Whether `total / count` rounds to this value at its printed precision:
    /// `|total·10^d − scaled·count| ≤ count / 2`. A `count` of 0 matches nothing.
    ///
    /// # Complexity
    /// O(1), in 128-bit integers (no overflow for any `usize` inputs).
    pub fn matches(&self, total: usize, count: usize) -> bool {
        if count == 0 {
            return false;
        }
        let pow = 10u128.pow(self.decimals);
        let lhs = total as u128 * pow;
        let rhs = self.scaled as u128 * count as u128;
        2 * lhs.abs_diff(rhs) <= count as u128
    }

    /// The value as a float (for messages).
    pub fn value(&self) -> f64 {
        self.scaled as f64 / 10f64.powi(self.decimals as i32)
    }
}

impl std::str::FromStr for PublishedMean {
    type Err = crate::GraphError;

    /// Parses `digits[.digits]` (no sign, no exponent, at most
    /// [`MAX_DECIMALS`](Self::MAX_DECIMALS) decimals).
    ///
    /// # Errors
    /// [`GraphError::Registry`](crate::GraphError::Registry) naming the text.
    fn from_str(s: &str) -> crate::error::Result<Self> {
        let bad = || {
            crate::GraphError::Registry(format!(
                "`{s}` is not a published mean (digits, optionally `.` and at most {} decimals)",
                Self::MAX_DECIMALS
            ))
        };
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || (s.contains('.') && !digits(frac)) {
            return Err(bad());
        }
        let decimals = u32::try_from(frac.len()).map_err(|_| bad())?;
        if decimals > Self::MAX_DECIMALS {
            return Err(bad());
        }
        let scaled = format!("{int}{frac}").parse::<u64>().map_err(|_| bad())?;
        Ok(Self { scaled, decimals })
    }
}

impl TryFrom<String> for PublishedMean {
    type Error = crate::GraphError;

    fn try_from(s: String) -> crate::error::Result<Self> {
        s.parse()
    }
}

impl fmt::Display for PublishedMean {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.decimals as usize;
        if d == 0 {
            return write!(f, "{}", self.scaled);
        }
        let pow = 10u64.pow(self.decimals);
        write!(f, "{}.{:0d$}", self.scaled / pow, self.scaled % pow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_published_means() {
        for s in ["508.52", "0.05", "113", "234.64", "1.000001"] {
            let m: PublishedMean = s.parse().unwrap();
            assert_eq!(m.to_string(), s);
        }
        for s in [
            "",
            ".5",
            "5.",
            "-1.2",
            "1e3",
            "1.2.3",
            "1.1234567",
            "nan",
            " 1.2",
            "99999999999999999999",
        ] {
            assert!(s.parse::<PublishedMean>().is_err(), "{s:?}");
        }
    }

    #[test]
    fn matches_within_half_a_printed_unit() {
        let m: PublishedMean = "2.50".parse().unwrap();
        // 2.495 and 2.505 are the edges (half a hundredth), inclusive.
        assert!(m.matches(499, 200) && m.matches(501, 200) && m.matches(5, 2));
        assert!(!m.matches(498, 200) && !m.matches(502, 200));
        assert!(!m.matches(5, 0), "no graphs match nothing");
        let big: PublishedMean = "18446744073709.551615".parse().unwrap();
        assert!(!big.matches(usize::MAX, 1), "no overflow");
    }
}
