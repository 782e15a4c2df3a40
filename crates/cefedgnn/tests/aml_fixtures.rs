//! AML loaders, writer and conversion on small fixtures written by the tests.

use std::fs;
use std::path::Path;

use cefedgnn::FedError;
use cefedgnn::aml::{self, AmlGenConfig, PaymentFormat};

const TRANS: &str = "Timestamp,From Bank,Account,To Bank,Account,Amount Received,Receiving Currency,Amount Paid,Payment Currency,Payment Format,Is Laundering
2022/09/01 00:20,010,8000EBD30,010,8000EBD30,3697.34,US Dollar,3697.34,US Dollar,Reinvestment,0
2022/09/01 00:06,021174,800737690,012,80011F990,2848.96,Euro,2848.96,Euro,ACH,1
2022/09/01 00:07,12,80011F990,10,8000EBD30,100.00,Euro,110.50,US Dollar,Wire,0
";

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn csv_err(r: Result<aml::TransactionGraph, FedError>) -> (usize, String) {
    match r {
        Err(FedError::Csv { line, message, .. }) => (line, message),
        other => panic!("expected a CSV error, got {other:?}"),
    }
}

#[test]
fn amlworld_trans_loads_and_round_trips() {
    let tmp = tempfile::tempdir().unwrap();
    let g = aml::load_amlworld_trans(&write(tmp.path(), "t.csv", TRANS)).unwrap();
    assert_eq!(g.transactions().len(), 3);
    assert_eq!(g.banks(), &["10", "21174", "12"]);
    assert_eq!(g.accounts().len(), 3, "bank 012 and 12 are one bank");
    assert_eq!(g.num_laundering(), 1);
    assert_eq!(g.num_cross_bank(), 2);
    assert_eq!(g.transactions()[2].amount_paid, Some(110.5));
    assert_eq!(g.transactions()[0].format, PaymentFormat::Reinvestment);
    let out = tmp.path().join("out.csv");
    aml::write_amlworld_trans(&g, &out).unwrap();
    let text = fs::read_to_string(&out).unwrap();
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("2022/09/01 00:06,21174,800737690,012,80011F990,2848.96,Euro")
    );
    let back = aml::load_amlworld_trans(&out).unwrap();
    assert_eq!(back.transactions().len(), 3);
    assert_eq!(back.num_laundering(), 1);
    assert_eq!(back.num_cross_bank(), 2);
    // pandas' Account.1 header is accepted.
    let pandas = TRANS.replacen("Account,Amount", "Account.1,Amount", 1);
    assert!(aml::load_amlworld_trans(&write(tmp.path(), "p.csv", &pandas)).is_ok());
}

#[test]
fn malformed_amlworld_rows_name_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            TRANS.replace("2022/09/01 00:07", "2022-09-01 00:07"),
            4,
            "timestamp",
        ),
        (TRANS.replace("100.00,Euro", "-1,Euro"), 4, "amount"),
        (
            TRANS.replace("110.50,US Dollar", "110.50,Dollar"),
            4,
            "currency",
        ),
        (TRANS.replace("Wire,0", "Telegram,0"), 4, "payment format"),
        (TRANS.replace("ACH,1", "ACH,yes"), 3, "0/1"),
        (TRANS.replace("Euro,ACH,1", "Euro,ACH"), 3, "fields"),
        (TRANS.replace("Is Laundering", "Label"), 1, "header"),
    ];
    for (i, (text, line, what)) in cases.into_iter().enumerate() {
        let (l, m) = csv_err(aml::load_amlworld_trans(&write(
            tmp.path(),
            &format!("bad{i}.csv"),
            &text,
        )));
        assert_eq!(l, line, "{m}");
        assert!(m.contains(what), "case {i}: {m}");
    }
    assert!(matches!(
        aml::load_amlworld_trans(&tmp.path().join("none.csv")),
        Err(FedError::MissingFile { .. })
    ));
    let empty = write(tmp.path(), "empty.csv", "");
    assert_eq!(csv_err(aml::load_amlworld_trans(&empty)).0, 0);
}

#[test]
fn amlsim_fixtures_load_with_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(
        d,
        "accounts.csv",
        "ACCOUNT_ID,CUSTOMER_ID,INIT_BALANCE,COUNTRY,ACCOUNT_TYPE,IS_SAR,BANK_ID\n0,C_0,1.0,US,I,false,bank_a\n1,C_1,1.0,US,I,true,bank_b\n2,C_2,1.0,US,I,true,bank_b\n",
    );
    write(
        d,
        "transactions.csv",
        "id,src,dst,ttype\n0,0,1,TRANSFER\n1,1,2,TRANSFER\n",
    );
    write(
        d,
        "alert_transactions.csv",
        "alertID,reason,isSAR,src,dst,amount,step,src_bank,dst_bank\n0,cycle,true,1,2,2000.00,3,bank_b,bank_b\n0,cycle,true,2,1,1990.00,4,bank_b,bank_b\n",
    );
    write(
        d,
        "alert_members.csv",
        "alertID,reason,accountID,isMain,isSAR,modelID,minAmount,maxAmount,startStep,endStep,scheduleID,bankID\n0,cycle,1,true,true,1,1,1,1,1,1,bank_b\n0,cycle,2,false,true,1,1,1,1,1,1,bank_b\n",
    );
    let g = aml::load_amlsim_small(d).unwrap();
    assert_eq!(
        (
            g.accounts().len(),
            g.transactions().len(),
            g.num_laundering()
        ),
        (3, 4, 2)
    );
    assert_eq!(g.num_labelled_accounts(), 2);
    assert_eq!(g.attempts().len(), 1);
    assert_eq!(
        aml::format_timestamp(g.transactions()[2].time.unwrap()),
        "2017/01/04 00:00"
    );
    let ag = g.to_account_graph().unwrap();
    assert_eq!(ag.graph.num_edges(), 2);
    assert_eq!(ag.node_labels, vec![0, 1, 1]);
    assert_eq!(ag.edge_labels, vec![0, 1]);
    // Normal relation edges have no amount: the AMLworld writer refuses them.
    assert!(matches!(
        aml::write_amlworld_trans(&g, &d.join("x.csv")),
        Err(FedError::InvalidParam {
            name: "transaction",
            ..
        })
    ));
    // An unknown account id in a transaction.
    write(d, "transactions.csv", "id,src,dst,ttype\n0,0,9,TRANSFER\n");
    let (line, msg) = csv_err(aml::load_amlsim_small(d));
    assert_eq!(line, 2);
    assert!(msg.contains("ACCOUNT_ID"), "{msg}");
}

#[test]
fn amlsim_20k_fixture_gzipped() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let gz = |name: &str, text: &str| {
        let f = fs::File::create(tmp.path().join(name)).unwrap();
        let mut e = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap();
    };
    gz(
        "nodes.csv.gz",
        "nodeid,isFraud,init_balance,fraudStep\n0,0,1.5,-1\n1,1,2.5,7\n2,0,3.0,-1\n",
    );
    gz(
        "transactions.csv.gz",
        "sourceNodeId,targetNodeId,value,time\n0,1,10.5,1\n1,2,20.0,2\n2,2,1.0,3\n",
    );
    let g = aml::load_amlsim_20k(tmp.path()).unwrap();
    assert_eq!(
        (
            g.accounts().len(),
            g.transactions().len(),
            g.num_labelled_accounts()
        ),
        (3, 3, 1)
    );
    let ag = g.to_account_graph().unwrap();
    assert_eq!(ag.graph.num_edges(), 2);
    assert_eq!(ag.tx_edge, vec![Some(0), Some(1), None]);
    assert!(
        ag.federate_by_bank().is_err(),
        "one bank is not a federation"
    );
    let ds = ag.node_dataset("20k").unwrap();
    assert_eq!(ds.num_classes(), 2);
}

#[test]
fn generated_graph_writes_loads_and_converts() {
    let cfg = AmlGenConfig {
        num_banks: 10,
        num_accounts: 600,
        num_normal: 3000,
        attempt_scale: 0.2,
        ..Default::default()
    };
    let g = aml::generate(&cfg, &mut dp_core::rng::seeded_rng(4)).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("GEN_Trans.csv");
    aml::write_amlworld_trans(&g, &p).unwrap();
    let back = aml::load_amlworld_trans(&p).unwrap();
    assert_eq!(back.transactions().len(), g.transactions().len());
    assert_eq!(back.num_laundering(), g.num_laundering());
    assert_eq!(back.num_cross_bank(), g.num_cross_bank());
    let pp = tmp.path().join("GEN_Patterns_flat.csv");
    aml::write_patterns_flat(&g, &pp).unwrap();
    let mut pat = aml::TransactionGraph::new();
    aml::load_amlworld_patterns_flat(&pp, &mut pat).unwrap();
    assert_eq!(pat.typology_counts(), g.typology_counts());
    let ag = g.to_account_graph().unwrap();
    assert_eq!(
        ag.node_features.ncols(),
        aml::NODE_FEATURES.len() + PaymentFormat::ALL.len()
    );
    assert_eq!(ag.edge_features.nrows(), ag.graph.num_edges());
    assert!(
        ag.node_features.iter().all(|x| x.is_finite())
            && ag.edge_features.iter().all(|x| x.is_finite())
    );
    assert!(ag.edge_labels.contains(&1) && ag.node_labels.contains(&1));
    let fed = ag.federate_by_bank().unwrap();
    assert_eq!(fed.num_clients(), 10);
    let (x, y) = g.transaction_features();
    assert_eq!(
        (x.nrows(), y.iter().filter(|&&l| l == 1).count()),
        (g.transactions().len(), g.num_laundering())
    );
}
