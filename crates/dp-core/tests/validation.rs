//! Bad input gives a typed error naming the parameter: NaN, ±∞, negative or zero ε/ρ/σ, δ ∉ (0, 1),
//! ω ≤ 1, empty order grids. Never a panic, never clamping.

use dp_core::accountant::RdpAccountant;
use dp_core::conversions::*;
use dp_core::ledger::PrivacyLedger;
use dp_core::measures::{ApproxDp, MetricDp, PureDp, RdpCurve, Tcdp, Zcdp};
use dp_core::mechanisms::{
    GaussianParams, LaplaceParams, RandomizedResponseParams, ScaledGaussianParams,
};
use dp_core::samplers::{DiscreteGaussian, DiscreteLaplace, GeometricSkip};
use dp_core::{Error, Result};

const NON_FINITE: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
const NOT_POSITIVE: [f64; 6] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, 0.0, -0.0];
const NOT_A_DELTA: [f64; 6] = [f64::NAN, f64::INFINITY, -0.1, 0.0, 1.0, 1.5];

fn names<T: std::fmt::Debug>(r: Result<T>, name: &str) {
    match r {
        Err(Error::InvalidParam { name: got, .. }) => assert_eq!(got, name),
        other => panic!("expected InvalidParam {{ name: {name} }}, got {other:?}"),
    }
}

#[test]
fn strictly_positive_parameters() {
    for v in NOT_POSITIVE {
        names(GaussianParams::new(v).check(), "sigma");
        names(
            GaussianParams::new(1.0).sensitivity(v).check(),
            "sensitivity",
        );
        names(LaplaceParams::new(v).check(), "scale");
        names(RandomizedResponseParams::new(v).check(), "eps");
        names(zcdp_to_approx(v, 1e-5), "rho");
        names(zcdp_to_approx_cks(v, 1e-5), "rho");
        names(zcdp_delta_cks(v, 1.0), "rho");
        names(tcdp_to_approx(v, 2.0, 1e-5), "rho");
        names(tcdp_to_approx_cks(v, 2.0, 1e-5), "rho");
        names(gaussian_exact_eps(v, 1e-5), "mu");
        names(
            RdpAccountant::new().compose_gaussian(v, 1),
            "noise_multiplier",
        );
        names(DiscreteGaussian::from_sigma(v), "sigma");
        names(DiscreteLaplace::from_scale(v), "scale");
        let m = ScaledGaussianParams::new().check().unwrap();
        names(m.release(0.0, v, &mut dp_core::rng::seeded_rng(0)), "sigma");
        names(
            ScaledGaussianParams::new().sensitivity(v).check(),
            "sensitivity",
        );
        names(MetricDp::gaussian(v, 1e-5), "sigma");
    }
}

#[test]
fn deltas_outside_the_open_unit_interval() {
    for d in NOT_A_DELTA {
        names(zcdp_to_approx(0.1, d), "delta");
        names(zcdp_to_approx_cks(0.1, d), "delta");
        names(tcdp_to_approx(0.1, 2.0, d), "delta");
        names(rdp_to_approx(&[2.0], &[0.1], d), "delta");
        names(rdp_to_approx_classic(&[2.0], &[0.1], d), "delta");
        names(RdpAccountant::new().epsilon(d), "delta");
        names(Zcdp::new(0.1).unwrap().to_approx(d), "delta");
        names(gaussian_exact_eps(1.0, d), "delta");
        names(
            GaussianParams::new(1.0).check().unwrap().approx_dp(d),
            "delta",
        );
    }
    for d in [f64::NAN, -0.1, 1.0] {
        names(ApproxDp::new(1.0, d), "delta");
    }
}

#[test]
fn measures_reject_nan_infinite_and_negative() {
    for v in NON_FINITE.into_iter().chain([-1.0]) {
        names(PureDp::new(v), "eps");
        names(ApproxDp::new(v, 0.0), "eps");
        names(Zcdp::new(v), "rho");
        names(Tcdp::new(v, 2.0), "rho");
        names(MetricDp::new(v, 0.0, 0.0), "eps_per_unit");
        names(MetricDp::new(0.0, v, 1e-5), "rho_per_unit_sq");
        names(zcdp_delta_cks(0.1, v), "eps");
        names(rdp_to_delta(&[2.0], &[0.1], v), "eps");
        names(MetricDp::laplace(1.0).unwrap().eps(v), "radius");
    }
}

#[test]
fn omega_must_exceed_one() {
    for w in [f64::NAN, 1.0, 0.5, -3.0, f64::NEG_INFINITY] {
        names(Tcdp::new(0.1, w), "omega");
        names(tcdp_to_approx(0.1, w, 1e-5), "omega");
        names(tcdp_to_approx_cks(0.1, w, 1e-5), "omega");
    }
}

#[test]
fn order_grids() {
    names(RdpCurve::new(vec![], vec![]), "orders");
    names(RdpAccountant::with_orders(vec![]), "orders");
    names(rdp_to_approx(&[], &[], 1e-5), "orders");
    names(rdp_to_delta(&[], &[], 1.0), "orders");
    for a in [f64::NAN, f64::INFINITY, 1.0, 0.5] {
        names(RdpCurve::new(vec![a], vec![0.1]), "orders");
        names(RdpAccountant::with_orders(vec![2.0, a]), "orders");
    }
    names(RdpCurve::new(vec![2.0], vec![f64::NAN]), "eps");
    names(rdp_to_approx(&[2.0, 3.0], &[0.1], 1e-5), "rdp");
    names(
        PrivacyLedger::with_orders(ApproxDp::new(1.0, 1e-5).unwrap(), vec![]),
        "orders",
    );
}

#[test]
fn mechanism_inputs() {
    let mut rng = dp_core::rng::seeded_rng(1);
    names(
        RandomizedResponseParams::new(1.0).categories(0).check(),
        "categories",
    );
    let rr = RandomizedResponseParams::new(1.0)
        .categories(3)
        .check()
        .unwrap();
    names(rr.release(3, &mut rng), "value");
    let g = GaussianParams::new(1.0).check().unwrap();
    // Positive noise on i64::MAX overflows (P[noise > 0] ≈ 0.4 per draw for σ = 1).
    let outcomes: Vec<_> = (0..40)
        .map(|_| g.release_integer(i64::MAX, &mut rng))
        .collect();
    assert!(
        outcomes
            .iter()
            .any(|r| matches!(r, Err(Error::InvalidParam { name: "value", .. })))
    );
    // Noise scales outside the exact samplers' range are refused by `release_integer` only.
    let huge = GaussianParams::new(1e7).check().unwrap();
    assert!(huge.release(0.0, &mut rng).is_finite());
    names(huge.release_integer(0, &mut rng), "sigma");
    names(GeometricSkip::new(10, -0.1), "p");
    names(GeometricSkip::new(10, f64::NAN), "p");
    // Overflowing privacy losses are errors, not infinities.
    names(
        GaussianParams::new(1e-200).sensitivity(1e200).check(),
        "sigma",
    );
    names(
        LaplaceParams::new(1e-300).sensitivity(1e300).check(),
        "scale",
    );
}
