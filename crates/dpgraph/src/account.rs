//! `dpgraph account …`: privacy accounting from the command line (zCDP, tCDP, Gaussian RDP, metric DP).
//!
//! Thin wrappers over `dp_core`; every number printed is an upper bound on the privacy loss.
//! Keys (shared/design/CLI.md): `zcdp` → `eps`, `eps_cks`, `delta`; `tcdp` → `eps`, `delta`;
//! `rdp-gaussian` → `eps`, `order`, `delta`; `metric-gaussian` → `eps`, `eps_closed_form`, `order`,
//! `delta`.

use anyhow::Context;
use dp_core::accountant::RdpAccountant;
use dp_core::conversions::{
    tcdp_to_approx, tcdp_to_approx_cks, zcdp_to_approx, zcdp_to_approx_cks,
};
use dp_core::measures::{Compose, Zcdp};
use serde_json::{Value, json};

/// Privacy accounting commands.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum AccountCmd {
    /// ρ-zCDP → (ε, δ): `eps` by Bun–Steinke 2016 Prop. 1.3 (ρ + 2√(ρ ln(1/δ))), `eps_cks` by the
    /// tighter Canonne–Kamath–Steinke 2020 conversion.
    Zcdp {
        /// zCDP parameter ρ (> 0).
        #[arg(long, allow_negative_numbers = true)]
        rho: f64,
        /// Target δ in (0, 1).
        #[arg(long, allow_negative_numbers = true)]
        delta: f64,
    },
    /// (ρ, ω)-tCDP → (ε, δ) (Bun–Dwork–Rothblum–Steinke 2018).
    Tcdp {
        /// tCDP parameter ρ (> 0).
        #[arg(long, allow_negative_numbers = true)]
        rho: f64,
        /// Truncation order ω (> 1; `inf` allowed).
        #[arg(long, allow_negative_numbers = true)]
        omega: f64,
        /// Target δ in (0, 1).
        #[arg(long, allow_negative_numbers = true)]
        delta: f64,
    },
    /// T releases of the Gaussian mechanism with noise multiplier σ/Δ, through the RDP accountant
    /// (dp_accounting's default orders and conversion).
    RdpGaussian {
        /// Noise multiplier σ/Δ (> 0).
        #[arg(long, allow_negative_numbers = true)]
        noise_multiplier: f64,
        /// Number of releases T.
        #[arg(long)]
        steps: u64,
        /// Target δ in (0, 1).
        #[arg(long, allow_negative_numbers = true)]
        delta: f64,
    },
    /// Metric DP of R Gaussian releases (standard deviation σ) of a vector whose two possible values
    /// are at ℓ₂ distance ≤ p: Gaussian RDP with sensitivity p through the accountant (`eps`,
    /// `order`), and the closed form via zCDP ρ = R·p²/(2σ²) and ρ + 2√(ρ ln(1/δ))
    /// (`eps_closed_form`).
    MetricGaussian {
        /// Noise standard deviation σ (> 0).
        #[arg(long, allow_negative_numbers = true)]
        sigma: f64,
        /// Distance radius p (> 0) between the neighbouring values.
        #[arg(long, allow_negative_numbers = true)]
        radius: f64,
        /// Number of releases R.
        #[arg(long)]
        releases: u64,
        /// Target δ in (0, 1).
        #[arg(long, allow_negative_numbers = true)]
        delta: f64,
    },
}

/// Runs an `account` command; prints text, or one JSON object when `json` is set.
pub(crate) fn run(cmd: &AccountCmd, json: bool) -> anyhow::Result<()> {
    let value = evaluate(cmd)?;
    if json {
        println!("{}", serde_json::to_string(&value)?);
    } else if let Value::Object(map) = &value {
        for (k, v) in map {
            match v {
                Value::String(s) => println!("{k}: {s}"),
                other => println!("{k}: {other}"),
            }
        }
    }
    Ok(())
}

/// The command's result as a JSON object.
fn evaluate(cmd: &AccountCmd) -> anyhow::Result<Value> {
    Ok(match *cmd {
        AccountCmd::Zcdp { rho, delta } => {
            let eps = zcdp_to_approx(rho, delta).context("account zcdp")?;
            let (eps_cks, alpha) = zcdp_to_approx_cks(rho, delta).context("account zcdp")?;
            json!({ "rho": rho, "delta": delta, "eps": eps, "eps_cks": eps_cks, "order_cks": alpha })
        }
        AccountCmd::Tcdp { rho, omega, delta } => {
            let (eps, alpha) = tcdp_to_approx(rho, omega, delta).context("account tcdp")?;
            let (eps_cks, _) = tcdp_to_approx_cks(rho, omega, delta).context("account tcdp")?;
            json!({
                "rho": rho,
                "omega": if omega.is_finite() { json!(omega) } else { json!("inf") },
                "delta": delta,
                "eps": eps,
                "order": alpha,
                "eps_cks_truncated": eps_cks,
            })
        }
        AccountCmd::RdpGaussian {
            noise_multiplier,
            steps,
            delta,
        } => {
            let mut acc = RdpAccountant::new();
            acc.compose_gaussian(noise_multiplier, steps)
                .context("account rdp-gaussian")?;
            let (eps, order) = acc.epsilon(delta).context("account rdp-gaussian")?;
            json!({
                "noise_multiplier": noise_multiplier,
                "steps": steps,
                "delta": delta,
                "eps": eps,
                "order": order,
            })
        }
        AccountCmd::MetricGaussian {
            sigma,
            radius,
            releases,
            delta,
        } => {
            let mut acc = RdpAccountant::new();
            acc.compose_gaussian_with_sensitivity(sigma, radius, releases)
                .context("account metric-gaussian")?;
            let (eps, order) = acc.epsilon(delta).context("account metric-gaussian")?;
            let one = dp_core::mechanisms::GaussianParams::new(sigma)
                .sensitivity(radius)
                .check()
                .context("account metric-gaussian")?
                .zcdp();
            let rho: Zcdp = one.compose_n(releases).context("account metric-gaussian")?;
            let closed = if rho.rho() > 0.0 {
                zcdp_to_approx(rho.rho(), delta).context("account metric-gaussian")?
            } else {
                0.0
            };
            json!({
                "sigma": sigma,
                "radius": radius,
                "releases": releases,
                "delta": delta,
                "rho": rho.rho(),
                "eps": eps,
                "eps_closed_form": closed,
                "order": order,
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values() {
        let v = evaluate(&AccountCmd::Zcdp {
            rho: 1.0 / 32.0,
            delta: 1e-3,
        })
        .unwrap();
        assert!((v["eps_cks"].as_f64().unwrap() - 0.6880024554878085).abs() < 1e-12);
        assert!(v["eps"].as_f64().unwrap() > v["eps_cks"].as_f64().unwrap());
        let v = evaluate(&AccountCmd::RdpGaussian {
            noise_multiplier: 1.1,
            steps: 1,
            delta: 1e-3,
        })
        .unwrap();
        assert!((v["eps"].as_f64().unwrap() - 3.1506203703277533).abs() < 1e-8);
        assert_eq!(v["order"].as_f64(), Some(4.6));
        let v = evaluate(&AccountCmd::MetricGaussian {
            sigma: 4.0,
            radius: 2.0,
            releases: 50,
            delta: 1e-5,
        })
        .unwrap();
        // Same releases as σ/Δ = 2, T = 50 in the oracle vectors.
        assert!((v["eps"].as_f64().unwrap() - 22.019852327713252).abs() < 1e-8);
        assert!((v["rho"].as_f64().unwrap() - 6.25).abs() < 1e-12);
        assert!(v["eps_closed_form"].as_f64().unwrap() > v["eps"].as_f64().unwrap());
        let v = evaluate(&AccountCmd::Tcdp {
            rho: 0.1,
            omega: f64::INFINITY,
            delta: 1e-5,
        })
        .unwrap();
        assert_eq!(v["omega"], "inf");
        assert!(
            evaluate(&AccountCmd::Zcdp {
                rho: -1.0,
                delta: 1e-3
            })
            .is_err()
        );
        let e = evaluate(&AccountCmd::Tcdp {
            rho: 0.1,
            omega: 1.0,
            delta: 1e-5,
        })
        .unwrap_err();
        assert!(format!("{e:#}").contains("omega"));
    }
}
