//! Drives every case of `data/dp_vectors.json` (dp_accounting 0.6.0 and closed forms) through one
//! `check` helper, within the tolerances of the file's `meta.tolerances_suggested`.
//!
//! Every privacy value is also checked to be conservative: never below the vector value beyond float
//! noise (closed forms and grid values) or beyond the optimisation tolerance (continuous optima, where
//! the reference optimiser may itself be slightly off the optimum).

use dp_core::accountant::RdpAccountant;
use dp_core::conversions::{
    gaussian_exact_eps, rdp_to_approx, rdp_to_approx_classic, tcdp_to_approx, tcdp_to_approx_cks,
    zcdp_delta_cks, zcdp_to_approx, zcdp_to_approx_cks,
};
use dp_core::measures::{Compose, Tcdp};
use dp_core::mechanisms::{GaussianParams, RandomizedResponseParams};
use serde_json::Value;

struct Tol {
    closed: f64,
    grid: f64,
    continuous: f64,
}

fn num(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        other => other
            .as_f64()
            .unwrap_or_else(|| panic!("not a number: {other}")),
    }
}

fn field(case: &Value, key: &str) -> f64 {
    num(case
        .get(key)
        .unwrap_or_else(|| panic!("missing `{key}` in {case}")))
}

/// `got` within relative `tol` of `want` (absolute near 0).
fn close(what: &str, got: f64, want: f64, tol: f64) {
    if want.is_infinite() || got.is_infinite() {
        assert_eq!(got, want, "{what}");
        return;
    }
    let scale = want.abs().max(1e-300);
    assert!(
        (got - want).abs() <= tol * scale,
        "{what}: got {got}, want {want} (rel diff {:e}, tol {tol:e})",
        (got - want).abs() / scale
    );
}

/// A privacy value (ε or δ): close, and not below the reference beyond `slack` (relative).
fn upper(what: &str, got: f64, want: f64, tol: f64, slack: f64) {
    close(what, got, want, tol);
    assert!(
        got >= want - slack * want.abs(),
        "{what}: {got} is below the reference {want} (not conservative)"
    );
}

/// Float noise of the reference values themselves (a few ulps).
const ULPS: f64 = 4.0 * f64::EPSILON;

fn check(section: &str, case: &Value, tol: &Tol) {
    match section {
        "gaussian_rdp_curve" => {
            let (sigma, sens, t) = (
                field(case, "sigma"),
                field(case, "sensitivity"),
                field(case, "T"),
            );
            let g = GaussianParams::new(sigma)
                .sensitivity(sens)
                .check()
                .unwrap();
            let total = g.zcdp().compose_n(t as u64).unwrap();
            for p in case["points"].as_array().unwrap() {
                let alpha = field(p, "alpha");
                let curve = total.to_rdp(&[alpha]).unwrap();
                upper("rdp", curve.eps()[0], field(p, "rdp"), tol.closed, ULPS);
            }
        }
        "gaussian_rdp_to_dp" => {
            let (sigma, sens, t, delta) = (
                field(case, "sigma"),
                field(case, "sensitivity"),
                field(case, "T") as u64,
                field(case, "delta"),
            );
            let z = field(case, "noise_multiplier");
            let rho = field(case, "rho_total");
            let g = GaussianParams::new(sigma)
                .sensitivity(sens)
                .check()
                .unwrap();
            close(
                "rho_total",
                g.zcdp().compose_n(t).unwrap().rho(),
                rho,
                tol.closed,
            );
            close("noise_multiplier", sigma / sens, z, tol.closed);

            let mut acc = RdpAccountant::new();
            acc.compose_gaussian(z, t).unwrap();
            let d = &case["default_orders"];
            let (eps, order) = acc.epsilon(delta).unwrap();
            upper(
                "default eps_dp_accounting",
                eps,
                field(d, "eps_dp_accounting"),
                tol.grid,
                ULPS,
            );
            assert_eq!(
                order,
                field(d, "opt_order_dp_accounting"),
                "default opt order"
            );
            upper(
                "default eps_improved_ours",
                eps,
                field(d, "eps_improved_ours"),
                tol.grid,
                ULPS,
            );
            assert_eq!(order, field(d, "opt_order_improved_ours"));
            let (eps_c, order_c) = acc.epsilon_classic(delta).unwrap();
            upper(
                "default eps_classic",
                eps_c,
                field(d, "eps_classic_ours"),
                tol.grid,
                ULPS,
            );
            assert_eq!(
                order_c,
                field(d, "opt_order_classic_ours"),
                "default classic order"
            );

            // The same releases through the sensitivity form of the accountant.
            let mut acc2 = RdpAccountant::new();
            acc2.compose_gaussian_with_sensitivity(sigma, sens, t)
                .unwrap();
            let (eps2, order2) = acc2.epsilon(delta).unwrap();
            upper(
                "sensitivity form",
                eps2,
                field(d, "eps_dp_accounting"),
                tol.grid,
                ULPS,
            );
            assert_eq!(order2, order);

            let small: Vec<f64> = SMALL_ORDERS.with(|o| o.clone());
            let s = &case["small_orders"];
            let mut acc_s = RdpAccountant::with_orders(small.clone()).unwrap();
            acc_s.compose_gaussian(z, t).unwrap();
            let (eps_s, order_s) = acc_s.epsilon(delta).unwrap();
            upper(
                "small eps_dp_accounting",
                eps_s,
                field(s, "eps_dp_accounting"),
                tol.grid,
                ULPS,
            );
            assert_eq!(order_s, field(s, "opt_order_dp_accounting"));
            upper(
                "small eps_improved_ours",
                eps_s,
                field(s, "eps_improved_ours"),
                tol.grid,
                ULPS,
            );
            assert_eq!(order_s, field(s, "opt_order_improved_ours"));
            let curve = acc_s.curve();
            let (eps_sc, order_sc) =
                rdp_to_approx_classic(curve.orders(), curve.eps(), delta).unwrap();
            upper(
                "small eps_classic",
                eps_sc,
                field(s, "eps_classic_ours"),
                tol.grid,
                ULPS,
            );
            assert_eq!(order_sc, field(s, "opt_order_classic_ours"));
            let (eps_si, _) = rdp_to_approx(curve.orders(), curve.eps(), delta).unwrap();
            assert_eq!(eps_si, eps_s);

            // Continuous optima: classic = BS16 at α = 1 + √(L/ρ); improved = CKS20.
            let classic = zcdp_to_approx(rho, delta).unwrap();
            upper(
                "eps_classic_continuous",
                classic,
                field(case, "eps_classic_continuous"),
                tol.closed,
                ULPS,
            );
            let (eps_t, alpha_t) = tcdp_to_approx(rho, f64::INFINITY, delta).unwrap();
            assert_eq!(eps_t, classic);
            close(
                "alpha_classic_continuous",
                alpha_t,
                field(case, "alpha_classic_continuous"),
                tol.continuous,
            );
            let (cks, alpha) = zcdp_to_approx_cks(rho, delta).unwrap();
            upper(
                "eps_improved_continuous",
                cks,
                field(case, "eps_improved_continuous"),
                tol.continuous,
                tol.continuous,
            );
            close(
                "alpha_improved_continuous",
                alpha,
                field(case, "alpha_improved_continuous"),
                tol.continuous,
            );

            // Exact (analytic) Gaussian: T Gaussians with μ = Δ/σ compose to one with μ√T.
            let mu = (2.0 * rho).sqrt();
            let exact = gaussian_exact_eps(mu, delta).unwrap();
            upper(
                "eps_exact_analytic_gaussian",
                exact,
                field(case, "eps_exact_analytic_gaussian"),
                tol.continuous,
                tol.continuous,
            );
            if t == 1 {
                let a = g.approx_dp_analytic(delta).unwrap().eps();
                upper(
                    "approx_dp_analytic",
                    a,
                    field(case, "eps_exact_analytic_gaussian"),
                    tol.continuous,
                    tol.continuous,
                );
            }

            let dd = &case["delta_at_eps_dp_accounting"];
            let (dl, dorder) = acc.delta(field(dd, "eps")).unwrap();
            upper("delta_at_eps", dl, field(dd, "delta"), tol.grid, ULPS);
            assert_eq!(dorder, field(dd, "opt_order"));
        }
        "crosscheck_gaussian" => {
            // The generator's own agreement between its closed form and dp_accounting.
            for key in [
                "max_rel_diff_rdp_ours_vs_dp_accounting",
                "max_rel_diff_eps_ours_vs_dp_accounting",
            ] {
                assert!(field(case, key) <= tol.grid, "{key}");
            }
        }
        "zcdp_to_dp" => {
            let (rho, delta) = (field(case, "rho"), field(case, "delta"));
            upper(
                "eps_standard_bs16",
                zcdp_to_approx(rho, delta).unwrap(),
                field(case, "eps_standard_bs16"),
                tol.closed,
                ULPS,
            );
            let (cks, alpha) = zcdp_to_approx_cks(rho, delta).unwrap();
            upper(
                "eps_cks_continuous",
                cks,
                field(case, "eps_cks_continuous"),
                tol.continuous,
                tol.continuous,
            );
            upper(
                "eps_cks_by_bisection",
                cks,
                field(case, "eps_cks_by_bisection"),
                tol.continuous,
                tol.continuous,
            );
            close("alpha_cks", alpha, field(case, "alpha_cks"), tol.continuous);
            let mut acc = RdpAccountant::new();
            acc.compose_zcdp(&dp_core::measures::Zcdp::new(rho).unwrap(), 1)
                .unwrap();
            let (eps, order) = acc.epsilon(delta).unwrap();
            upper(
                "eps_dp_accounting_zcdp_event",
                eps,
                field(case, "eps_dp_accounting_zcdp_event_default_orders"),
                tol.grid,
                ULPS,
            );
            assert_eq!(order, field(case, "opt_order_dp_accounting"));
        }
        "zcdp_delta_at_eps_cks" => {
            let (rho, eps) = (field(case, "rho"), field(case, "eps"));
            let (delta, alpha) = zcdp_delta_cks(rho, eps).unwrap();
            upper(
                "delta_cks",
                delta,
                field(case, "delta_cks"),
                tol.continuous,
                tol.continuous,
            );
            close("alpha", alpha, field(case, "alpha"), tol.continuous);
        }
        "crosscheck_opendp_anchor" => {
            let rho = field(case, "rho");
            let (eps, _) = zcdp_to_approx_cks(rho, 1e-3).unwrap();
            upper(
                "opendp eps",
                eps,
                field(case, "opendp_eps_at_1e-3"),
                tol.closed,
                ULPS,
            );
            upper("ours eps", eps, field(case, "ours"), tol.closed, ULPS);
            let (d0, _) = zcdp_delta_cks(rho, 0.0).unwrap();
            upper(
                "opendp delta at 0",
                d0,
                field(case, "opendp_delta_at_eps0"),
                tol.closed,
                ULPS,
            );
            upper(
                "ours delta at 0",
                d0,
                field(case, "ours_delta_at_eps0"),
                tol.closed,
                ULPS,
            );
        }
        "tcdp_to_dp" => {
            let (rho, omega, delta) = (
                field(case, "rho"),
                field(case, "omega"),
                field(case, "delta"),
            );
            let (eps, alpha) = tcdp_to_approx(rho, omega, delta).unwrap();
            upper(
                "eps_bdrs18",
                eps,
                field(case, "eps_bdrs18"),
                tol.closed,
                ULPS,
            );
            close("alpha_used", alpha, field(case, "alpha_used"), tol.closed);
            let boundary = case["branch"].as_str().unwrap() == "boundary";
            assert_eq!(boundary, alpha == omega, "branch");
            let t = Tcdp::new(rho, omega).unwrap();
            assert_eq!(t.to_approx(delta).unwrap().eps(), eps);
            let (imp, alpha_imp) = tcdp_to_approx_cks(rho, omega, delta).unwrap();
            upper(
                "eps_improved_truncated",
                imp,
                field(case, "eps_improved_truncated_derived"),
                tol.continuous,
                tol.continuous,
            );
            close(
                "alpha_improved",
                alpha_imp,
                field(case, "alpha_improved"),
                tol.continuous,
            );
        }
        "tcdp_composition_examples" => {
            let parts: Vec<Tcdp> = case["in"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Tcdp::new(num(&p[0]), num(&p[1])).unwrap())
                .collect();
            let out = if let Some(t) = case.get("T") {
                assert_eq!(parts.len(), 1);
                parts[0].compose_n(num(t) as u64).unwrap()
            } else {
                parts[1..]
                    .iter()
                    .fold(parts[0], |acc, p| acc.compose(p).unwrap())
            };
            upper(
                "composed rho",
                out.rho(),
                num(&case["out"][0]),
                tol.closed,
                ULPS,
            );
            assert_eq!(out.omega(), num(&case["out"][1]), "composed omega");
        }
        "randomized_response" => {
            let (eps, k) = (field(case, "eps"), field(case, "k") as u64);
            let rr = RandomizedResponseParams::new(eps)
                .categories(k)
                .check()
                .unwrap();
            close("keep", rr.keep_prob(), field(case, "keep"), tol.closed);
            close(
                "each_other",
                rr.other_prob(),
                field(case, "each_other"),
                tol.closed,
            );
            close(
                "flip_total",
                rr.flip_prob(),
                field(case, "flip_total"),
                tol.closed,
            );
            close(
                "noise_parameter",
                rr.replacement_prob(),
                field(case, "dp_accounting_noise_parameter"),
                tol.closed,
            );
            upper(
                "rr eps",
                rr.pure_dp().eps(),
                field(case, "eps_from_dp_accounting_rdp_at_inf_replace_one"),
                tol.closed,
                ULPS,
            );
            if let Some(v) = case.get("debias_scale_1_over_(keep-flip)") {
                close("debias", rr.debias_scale(), num(v), tol.closed);
            }
        }
        "failures" => panic!("the generator reported a failure: {case}"),
        other => panic!("unknown section `{other}`: add it to `check`"),
    }
}

thread_local! {
    static SMALL_ORDERS: Vec<f64> = load()["meta"]["small_orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(num)
        .collect();
}

fn load() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/dp_vectors.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_vector_case_matches() {
    let data = load();
    let t = &data["meta"]["tolerances_suggested"];
    let tol = Tol {
        closed: field(t, "closed_form"),
        grid: field(t, "grid_vs_dp_accounting"),
        continuous: field(t, "continuous_alpha_optimisation"),
    };
    assert_eq!(data["meta"]["dp_accounting_version"], "0.6.0");
    let mut checked = 0;
    for (section, cases) in data.as_object().unwrap() {
        if section == "meta" {
            continue;
        }
        match cases {
            Value::Array(list) => {
                for case in list {
                    check(section, case, &tol);
                    checked += 1;
                }
            }
            obj @ Value::Object(_) => {
                check(section, obj, &tol);
                checked += 1;
            }
            other => panic!("unexpected section {section}: {other}"),
        }
    }
    // 12 + 35 + 1 + 28 + 5 + 1 + 36 + 2 + 21 cases (and an empty `failures` list).
    assert_eq!(checked, 141);
}

#[test]
fn default_orders_are_dp_accountings() {
    let orders = dp_core::accountant::default_orders();
    let want: Vec<f64> = (1..100)
        .map(|x| 1.0 + x as f64 / 10.0)
        .chain((11..64).map(|x| x as f64))
        .chain([128.0, 256.0, 512.0, 1024.0])
        .collect();
    assert_eq!(orders, want);
}

#[test]
fn opendp_anchor_value() {
    let (eps, _) = zcdp_to_approx_cks(1.0 / 32.0, 1e-3).unwrap();
    assert!((eps - 0.6880024554878085).abs() <= 1e-12 * 0.6880024554878085);
    assert!(eps >= 0.6880024554878085);
}
