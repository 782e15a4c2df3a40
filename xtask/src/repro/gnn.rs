//! `cargo xtask repro gnn`: the GNN models on clean data (EdgeRefine's protocol on Cora
//! for GCN/GAT/GIN/MLP, GIN on MUTAG), over seeds 0–4.

use anyhow::Result;
use graph_core::Registry;
use serde_json::json;

use super::{Ctx, Effort};
use crate::datasets::data_dir;
use crate::output::Table;

pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let dir = ctx.out.join("gnn");
    let data = data_dir();
    let reg = Registry::embedded();
    let mut t = Table::typed::<edgerefine::paper::gnn_table::Row>(
        "GNN accuracy (test accuracy of the best-validation weights, mean ± std over seeds)",
    )?;
    t.meta = ctx.meta();
    let seeds: Vec<u64> = match ctx.effort {
        Effort::Quick => vec![0, 1],
        Effort::Full => edgerefine::paper::gnn_table::SEEDS.to_vec(),
    };
    t.meta.insert("seeds".into(), json!(seeds));
    t.meta.insert(
        "protocol".into(),
        json!("Cora 60/20/20 split per seed, Adam lr 0.005, wd 1e-5, <= 700 epochs, patience 100; MUTAG 80/10/10, GIN 3x64 mean pool, lr 0.005, wd 5e-4, batch 32, <= 150 epochs, patience 20"),
    );
    let mut rows = Vec::new();
    if reg.get("cora")?.is_installed(&data) {
        rows.extend(edgerefine::paper::gnn_table::cora_table(
            &data, &seeds, true,
        )?);
    } else {
        t.notes
            .push("cora is not installed: its rows were not run".into());
    }
    if reg.get("MUTAG")?.is_installed(&data) {
        rows.extend(edgerefine::paper::gnn_table::mutag_table(
            &data, &seeds, true,
        )?);
    } else {
        t.notes
            .push("MUTAG is not installed: its row was not run".into());
    }
    for r in &rows {
        t.push_row(r)?;
    }
    t.notes.push("PyTorch Geometric on this machine (reference): GCN 88.1 ± 0.8, GAT 87.6 ± 1.2, GIN 86.0 ± 1.4, MLP 74.6 ± 2.4 on Cora.".into());
    t.write(&dir, "accuracy")?;
    println!("{}", t.markdown());
    Ok(())
}
