//! Tests of the CE-FedGNN claims table: paired verdicts and the claims read from tables.

use super::*;

#[test]
fn paired_verdicts_need_two_standard_errors() {
    let (d, se, n) = paired(&[0.8, 0.82, 0.81], &[0.7, 0.71, 0.72]);
    assert_eq!(n, 3);
    assert!((d - 0.1).abs() < 1e-12 && se > 0.0);
    assert!(verdict(d, se, n).starts_with("holds"));
    let (d, se, n) = paired(&[0.7, 0.72, 0.74], &[0.71, 0.73, 0.72]);
    assert!(verdict(d, se, n).starts_with("not shown"), "{d} {se}");
    let (d, se, n) = paired(&[0.6, 0.61, 0.6], &[0.7, 0.7, 0.71]);
    assert!(verdict(d, se, n).starts_with("reversed"));
    let (d, se, n) = paired(&[0.9], &[0.1]);
    assert!(verdict(d, se, n).starts_with("not judged"));
}

#[test]
fn method_claims_pair_each_method_with_its_control_per_setting() {
    let row = |m: &str, f: [f64; 2]| {
        serde_json::json!({"setting": "s", "method": m, "f1_mean": (f[0] + f[1]) / 2.0,
            "paper_value": null, "f1_per_seed": f})
    };
    let rows = vec![
        row("cefedgnn", [0.8, 0.9]),
        row("fedavg", [0.7, 0.8]),
        row("centralised", [0.9, 0.95]),
    ];
    let mut out = Vec::new();
    method_claims(&rows, &mut out);
    // Only the claims whose two methods are in the table.
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].control.as_str(), out[0].seeds), ("fedavg", 2));
    assert!((out[0].difference - 0.1).abs() < 1e-12);
    // Identical differences: SE 0, the claim holds.
    assert!(out[0].verdict.starts_with("holds"), "{}", out[0].verdict);
    assert_eq!(out[1].method, "centralised");
}

/// The convergence claim reads the fitted slope against −1/2 once per setting, and refuses
/// to judge fewer than four values of T.
#[test]
fn convergence_claims_read_the_slope_per_setting() {
    let row = |setting: &str, slope: f64| {
        serde_json::json!({"setting": setting, "slope_grad_norm_sq": slope,
            "slope_rounds": 0.75, "seeds": [0, 1, 2]})
    };
    let mut rows = vec![row("a", -0.7); 4];
    rows.extend(vec![row("b", -0.2); 4]);
    rows.extend(vec![row("c", 0.1); 4]);
    rows.extend(vec![row("d", -0.9); 3]);
    let mut out = Vec::new();
    convergence_claims(&rows, &mut out);
    let verdicts: Vec<&str> = out
        .iter()
        .filter(|c| c.control.starts_with("the theorem"))
        .map(|c| {
            c.verdict
                .split(':')
                .next()
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(verdicts, ["holds", "not", "reversed", "not"]);
    assert!(
        out[6].verdict.starts_with("not judged"),
        "{}",
        out[6].verdict
    );
    assert_eq!(out.len(), 8, "a gradient and a rounds claim per setting");
    assert!(out[1].verdict.starts_with("holds by the schedule"));
}
