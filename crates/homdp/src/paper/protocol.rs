//! The repetition and seeding protocol of the paper's tables: their effort-dependent sizes
//! ([`Sizes::quick`], [`Sizes::full`]), one seed stream per table and dataset ([`SeedStream`],
//! [`rep_seed`]) and the pattern sets the tables embed with ([`PatternSet`]).

use dp_core::params::Rho;
use dp_core::rng::Seeds;
use rand::Rng;
use serde::Serialize;

use super::DatasetSetting;
use crate::error::Result;
use crate::pattern::{Pattern, PatternSampler};

/// Patterns per embedding in the tables (the paper's `d = 50`).
pub const PATTERNS: usize = 50;

/// ρ of the private rows of the main table and of Q2.
pub const MAIN_RHO: Rho = Rho::constant(0.01);

/// The main table's private-Δ row: ρ of the release and ρ_Δ of the degree estimate
/// ([`crate::PrivateDegree`], q = 1). Together `(2·0.009 + 4·50·0.0018² + 0.002, 125)`-tCDP
/// = `(0.020648, 125)` ≤ the `(0.0208, 125)` of [`MAIN_RHO`] alone, so the row spends no more
/// than the public-Δ rows.
pub const PRIVATE_DEGREE_RHOS: (Rho, Rho) = (Rho::constant(0.009), Rho::constant(0.002));

/// The effort-dependent sizes of the tables: repetitions, subsample sizes and ρ grids.
///
/// # Example
/// ```
/// use homdp::paper::Sizes;
/// let (quick, full) = (Sizes::quick(), Sizes::full());
/// assert_eq!((quick.reps, full.reps), (1, 3));
/// assert_eq!((quick.side_reps, full.side_reps), (1, 3));
/// assert_eq!(quick.q2_limits(), (1600, 400));
/// assert_eq!(full.q2_limits(), (usize::MAX, usize::MAX));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sizes {
    /// Repetitions (pattern sets and noise draws) of the main table and Q1.
    pub reps: usize,
    /// Repetitions of Q2 and of the privacy–utility curve.
    pub side_reps: usize,
    /// At most this many training graphs per dataset (seeded subsample, [`super::Prepared`]).
    pub max_train: usize,
    /// At most this many test graphs per dataset.
    pub max_test: usize,
    /// Graphs per class of the Q1 SBM collection ([`super::q1_sbm`]).
    pub sbm_per_class: usize,
    /// ρ values of the privacy–utility curve.
    pub curve_rhos: Vec<Rho>,
    /// ρ values of Q1.
    pub q1_rhos: Vec<Rho>,
    /// Q2: a seeded subsample of this many HIV graphs (4/5 from the scaffold split's training
    /// side, 1/5 from its test side); `None`: all of HIV.
    pub q2_graphs: Option<usize>,
}

impl Sizes {
    /// `--quick`: a few minutes on 2 cores (one repetition, at most 1000 / 250 graphs per
    /// dataset, 2000 HIV graphs in Q2, three ρ per curve).
    pub fn quick() -> Self {
        Self {
            reps: 1,
            side_reps: 1,
            max_train: 1000,
            max_test: 250,
            sbm_per_class: 40,
            curve_rhos: rhos(&[1e-4, 1e-2, 1.0]),
            q1_rhos: rhos(&[1e-3, 1e-2, 1.0]),
            q2_graphs: Some(2000),
        }
    }

    /// `--full`: all graphs, three repetitions of the main table, Q1, Q2 and the curve (the
    /// side tables report their spread), five ρ per curve.
    pub fn full() -> Self {
        Self {
            reps: 3,
            side_reps: 3,
            max_train: usize::MAX,
            max_test: usize::MAX,
            sbm_per_class: 100,
            curve_rhos: rhos(&[1e-4, 1e-3, 1e-2, 1e-1, 1.0]),
            q1_rhos: rhos(&[1e-4, 1e-3, 1e-2, 1e-1, 1.0]),
            q2_graphs: None,
        }
    }

    /// The training and test limits of Q2's HIV subsample ([`Sizes::q2_graphs`]).
    pub fn q2_limits(&self) -> (usize, usize) {
        match self.q2_graphs {
            Some(g) => (g * 4 / 5, g / 5),
            None => (usize::MAX, usize::MAX),
        }
    }
}

/// Which table (and dataset in it) a repetition belongs to. Every stream draws its own pattern
/// sets, noise and model seeds from the run seed ([`rep_seed`]); a dataset's stream is fixed by
/// its position in [`super::settings`], so it keeps its seeds whether or not others run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SeedStream {
    /// The main table's rows of the dataset at this position in [`super::settings`].
    Main(usize),
    /// Q1 with the cycle densities.
    Q1Cycles,
    /// Q1 with the forest densities.
    Q1Forests,
    /// Q2 at this treewidth.
    Q2 {
        /// The patterns' treewidth (1, 2 or 3).
        treewidth: usize,
    },
    /// The privacy–utility curve of the dataset at this position in [`super::settings`].
    Curve(usize),
    /// The GIN baselines of the dataset at this position in [`super::settings`].
    Gin(usize),
    /// The releases of [`super::expressivity_table`].
    Theory,
}

impl SeedStream {
    /// The stream's purpose name in [`dp_core::rng::Seeds`] (`homdp/main/3`, `homdp/q1-cycles`,
    /// `homdp/q2/tw2`, `homdp/curve/0`, `homdp/gin/1`).
    pub(crate) fn name(self) -> String {
        match self {
            Self::Main(i) => format!("homdp/main/{i}"),
            Self::Q1Cycles => "homdp/q1-cycles".into(),
            Self::Q1Forests => "homdp/q1-forests".into(),
            Self::Q2 { treewidth } => format!("homdp/q2/tw{treewidth}"),
            Self::Curve(i) => format!("homdp/curve/{i}"),
            Self::Gin(i) => format!("homdp/gin/{i}"),
            Self::Theory => "homdp/theory".into(),
        }
    }
}

/// The seed of repetition `rep` of `stream` in a run seeded with `seed`: it draws that
/// repetition's patterns and seeds its noise and downstream model.
///
/// # Example
/// ```
/// use homdp::paper::{SeedStream, rep_seed};
/// assert_eq!(rep_seed(42, SeedStream::Main(0), 0), rep_seed(42, SeedStream::Main(0), 0));
/// assert_ne!(rep_seed(42, SeedStream::Main(0), 0), rep_seed(42, SeedStream::Main(1), 0));
/// assert_ne!(rep_seed(42, SeedStream::Main(0), 0), rep_seed(42, SeedStream::Main(0), 1));
/// ```
pub fn rep_seed(seed: u64, stream: SeedStream, rep: usize) -> u64 {
    rep_seeds(seed, stream, rep).root()
}

/// The seed tree of repetition `rep` of `stream`: stream `(stream.name(), rep)` of
/// [`Seeds`]`::new(seed)`. Its purposes [`PATTERN_DRAW`] and [`NOISE_DRAW`] draw the repetition's
/// patterns and noise.
pub fn rep_seeds(seed: u64, stream: SeedStream, rep: usize) -> Seeds {
    Seeds::new(seed).child(&stream.name(), rep as u64)
}

/// Purpose of a repetition's pattern draw in its [`rep_seeds`] tree.
pub const PATTERN_DRAW: &str = crate::streams::PATTERNS;

/// Purpose of a repetition's embedding noise in its [`rep_seeds`] tree (experiments: seeded,
/// recorded, not private).
pub const NOISE_DRAW: &str = crate::streams::NOISE;

/// The patterns a table embeds with, drawn afresh for each repetition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PatternSet {
    /// The cycles `C3`, `C4` (the SBM rows; nothing is drawn).
    Cycles,
    /// This many forests of the paper's law ([`PatternSampler::forests`]).
    Forests(usize),
    /// This many partial k-trees of treewidth at most `treewidth` (2 or 3;
    /// [`PatternSampler::partial_ktrees`]).
    PartialKTrees {
        /// The treewidth bound k.
        treewidth: usize,
        /// How many patterns.
        count: usize,
    },
    /// Q2's control on edge counts: `count` forests of the paper's law are drawn first; for
    /// treewidth 2 and 3 each is replaced by a partial k-tree with the same number of edges
    /// (rejection sampling from [`PatternSampler::partial_ktrees`], at most [`MATCH_TRIES`]
    /// draws, else the nearest drawn), so that the noise scale (∝ e(F) without a degree bound)
    /// does not grow with the treewidth.
    MatchedEdges {
        /// The treewidth bound k (1: the forests themselves).
        treewidth: usize,
        /// How many patterns.
        count: usize,
    },
    /// The reference code's sampler as we read it (HOMDP.md: one pattern per size): the
    /// patterns of [`PatternSet::of_treewidth`], each replaced by the first pattern of the draw
    /// with its number of nodes, so that all patterns of one size are identical.
    OnePerSize {
        /// The treewidth bound k.
        treewidth: usize,
        /// How many patterns.
        count: usize,
    },
}

/// Draws per pattern of [`PatternSet::MatchedEdges`] before the nearest is kept.
pub const MATCH_TRIES: usize = 100_000;

impl PatternSet {
    /// The main table's and the curve's patterns of `setting`: the cycles for SBM, else
    /// [`PATTERNS`] forests.
    pub fn of(setting: &DatasetSetting) -> Self {
        if setting.name == "SBM" {
            Self::Cycles
        } else {
            Self::Forests(PATTERNS)
        }
    }

    /// Q2's patterns of treewidth `treewidth`: forests for 1, partial k-trees for 2 and 3.
    pub fn of_treewidth(treewidth: usize, count: usize) -> Self {
        if treewidth == 1 {
            Self::Forests(count)
        } else {
            Self::PartialKTrees { treewidth, count }
        }
    }

    /// Draws one pattern set.
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] for a treewidth outside 1..=3.
    pub fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<Vec<Pattern>> {
        Ok(match *self {
            Self::Cycles => vec![Pattern::cycle(3)?, Pattern::cycle(4)?],
            Self::Forests(d) => PatternSampler::forests().sample_many(d, rng),
            Self::PartialKTrees { treewidth, count } => {
                PatternSampler::partial_ktrees(treewidth)?.sample_many(count, rng)
            }
            Self::MatchedEdges { treewidth, count } => {
                let forests = PatternSampler::forests().sample_many(count, rng);
                if treewidth == 1 {
                    return Ok(forests);
                }
                let sampler = PatternSampler::partial_ktrees(treewidth)?;
                forests
                    .iter()
                    .map(|f| {
                        let target = f.num_edges();
                        let mut best = sampler.sample(rng);
                        for _ in 1..MATCH_TRIES {
                            if best.num_edges() == target {
                                break;
                            }
                            let p = sampler.sample(rng);
                            if p.num_edges().abs_diff(target) < best.num_edges().abs_diff(target) {
                                best = p;
                            }
                        }
                        best
                    })
                    .collect()
            }
            Self::OnePerSize { treewidth, count } => {
                let pats = Self::of_treewidth(treewidth, count).draw(rng)?;
                let mut first: std::collections::HashMap<usize, Pattern> =
                    std::collections::HashMap::new();
                pats.into_iter()
                    .map(|p| first.entry(p.num_nodes()).or_insert(p).clone())
                    .collect()
            }
        })
    }
}

/// The protocol's ρ grid from its constants.
fn rhos(values: &[f64]) -> Vec<Rho> {
    values.iter().map(|&r| Rho::constant(r)).collect()
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::paper::setting;

    #[test]
    fn seeds_are_deterministic_and_distinct_per_stream_and_repetition() {
        let streams = [
            SeedStream::Main(0),
            SeedStream::Main(5),
            SeedStream::Q1Cycles,
            SeedStream::Q1Forests,
            SeedStream::Q2 { treewidth: 1 },
            SeedStream::Q2 { treewidth: 3 },
            SeedStream::Curve(0),
            SeedStream::Gin(0),
        ];
        let mut seen = std::collections::HashSet::new();
        for s in streams {
            for rep in 0..3 {
                assert_eq!(rep_seed(42, s, rep), rep_seed(42, s, rep));
                assert!(seen.insert(rep_seed(42, s, rep)), "{s:?} rep {rep}");
            }
        }
        // The seeds of the reference run (seed 42) are dp-core's derivation by name: they fix
        // every table, so the names must not change.
        assert_eq!(
            rep_seed(42, SeedStream::Main(0), 0),
            Seeds::new(42).seed("homdp/main/0", 0)
        );
        assert_eq!(
            rep_seed(42, SeedStream::Curve(2), 1),
            Seeds::new(42).seed("homdp/curve/2", 1)
        );
        assert_ne!(
            rep_seed(42, SeedStream::Main(0), 0),
            rep_seed(7, SeedStream::Main(0), 0)
        );
    }

    #[test]
    fn quick_is_smaller_than_full() {
        let (q, f) = (Sizes::quick(), Sizes::full());
        assert!(q.reps < f.reps && q.max_train < f.max_train && q.max_test < f.max_test);
        assert!(q.curve_rhos.len() < f.curve_rhos.len() && q.sbm_per_class < f.sbm_per_class);
        assert_eq!((q.max_train, q.max_test, q.sbm_per_class), (1000, 250, 40));
        assert_eq!(f.q2_graphs, None);
        assert!(f.curve_rhos.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn pattern_sets_are_seeded() -> Result<()> {
        let bace = setting("BACE").expect("a setting");
        assert_eq!(PatternSet::of(&bace), PatternSet::Forests(PATTERNS));
        let sbm = setting("SBM").expect("a setting");
        assert_eq!(PatternSet::of(&sbm), PatternSet::Cycles);
        let draw = |p: PatternSet, seed| p.draw(&mut ChaCha8Rng::seed_from_u64(seed));
        let set = PatternSet::of_treewidth(2, 10);
        assert_eq!(draw(set, 3)?, draw(set, 3)?);
        assert_ne!(draw(set, 3)?, draw(set, 4)?);
        assert_eq!(draw(set, 3)?.len(), 10);
        assert!(
            draw(PatternSet::of_treewidth(1, 10), 3)?
                .iter()
                .all(Pattern::is_forest)
        );
        assert_eq!(draw(PatternSet::Cycles, 0)?.len(), 2);
        assert!(
            PatternSet::of_treewidth(4, 10)
                .draw(&mut ChaCha8Rng::seed_from_u64(0))
                .is_err()
        );
        // Matched on edges: the treewidth-k patterns have the forests' edge counts, the
        // forests being the paper-law draw of the same generator.
        let edges = |v: &[Pattern]| v.iter().map(Pattern::num_edges).collect::<Vec<_>>();
        let forests = draw(PatternSet::Forests(20), 5)?;
        for treewidth in [1, 2, 3] {
            let m = draw(
                PatternSet::MatchedEdges {
                    treewidth,
                    count: 20,
                },
                5,
            )?;
            assert_eq!(edges(&m), edges(&forests), "treewidth {treewidth}");
            assert!(m.iter().all(|p| p.decomposition().width() <= treewidth));
        }
        assert_eq!(
            draw(
                PatternSet::MatchedEdges {
                    treewidth: 1,
                    count: 20
                },
                5
            )?,
            forests
        );
        assert!(
            draw(
                PatternSet::MatchedEdges {
                    treewidth: 3,
                    count: 20
                },
                5
            )?
            .iter()
            .any(|p| !p.is_forest())
        );
        // One pattern per size: equal sizes give equal patterns, and the sizes are the draw's.
        let free = draw(PatternSet::of_treewidth(2, 30), 6)?;
        let one = draw(
            PatternSet::OnePerSize {
                treewidth: 2,
                count: 30,
            },
            6,
        )?;
        assert_eq!(
            one.iter().map(Pattern::num_nodes).collect::<Vec<_>>(),
            free.iter().map(Pattern::num_nodes).collect::<Vec<_>>()
        );
        for a in &one {
            assert!(
                one.iter()
                    .filter(|b| b.num_nodes() == a.num_nodes())
                    .all(|b| b == a)
            );
        }
        assert_ne!(one, free, "30 draws repeat some size");
        Ok(())
    }
}
