//! `dpgraph datasets list | info NAME`.

use anyhow::Result;
use clap::Subcommand;
use graph_core::registry::{Dataset, DatasetSpec, data_dir};
use graph_core::{GraphStats, Registry};
use serde_json::{Value, json};

use crate::{Global, emit};

#[derive(Subcommand, Debug)]
pub(crate) enum DatasetsCmd {
    /// Registry datasets: installed or not, with their counts (from the registry).
    List,
    /// Loads an installed dataset and reports its measured counts.
    Info {
        /// Dataset name (case-insensitive).
        name: String,
    },
}

pub(crate) fn run(cmd: &DatasetsCmd, global: Global) -> Result<()> {
    let reg = Registry::embedded();
    let dir = data_dir();
    match cmd {
        DatasetsCmd::List => {
            let rows: Vec<Value> = reg
                .datasets()
                .iter()
                .map(|d| {
                    json!({
                        "name": d.name,
                        "task": d.task.as_str(),
                        "installed": d.is_installed(&dir),
                        "graphs": d.expect.graphs.or(match d.task {
                            graph_core::registry::Task::NodeClassification => Some(1),
                            _ => None,
                        }),
                        "nodes": d.expect.nodes,
                        "edges": d.expect.edges,
                        "classes": d.expect.classes,
                    })
                })
                .collect();
            if global.json {
                emit(
                    global,
                    &json!({ "data_dir": dir.display().to_string(), "datasets": rows }),
                )
            } else {
                println!("data directory: {} (DPGRAPH_DATA)", dir.display());
                println!(
                    "{:<18} {:<22} {:<10} {:>8} {:>10} {:>10} {:>8}",
                    "name", "task", "installed", "graphs", "nodes", "edges", "classes"
                );
                let s = |v: &Value| {
                    if v.is_null() {
                        "-".to_owned()
                    } else {
                        v.to_string()
                    }
                };
                for r in rows {
                    println!(
                        "{:<18} {:<22} {:<10} {:>8} {:>10} {:>10} {:>8}",
                        r["name"].as_str().unwrap_or(""),
                        r["task"].as_str().unwrap_or(""),
                        if r["installed"] == json!(true) {
                            "yes"
                        } else {
                            "no"
                        },
                        s(&r["graphs"]),
                        s(&r["nodes"]),
                        s(&r["edges"]),
                        s(&r["classes"])
                    );
                }
                Ok(())
            }
        }
        DatasetsCmd::Info { name } => {
            let spec = reg.get(name)?;
            let ds = spec.load(&dir)?;
            emit(global, &info(spec, &ds))
        }
    }
}

fn info(spec: &DatasetSpec, ds: &Dataset) -> Value {
    let mut v =
        json!({ "name": spec.name, "task": spec.task.as_str(), "description": spec.description });
    let m = v.as_object_mut().expect("object");
    match ds {
        Dataset::Nodes(d) => {
            let s = GraphStats::of(std::slice::from_ref(d.graph()));
            m.insert("graphs".into(), json!(1));
            m.insert("nodes".into(), json!(s.nodes));
            m.insert("edges".into(), json!(s.edges));
            m.insert("classes".into(), json!(d.num_classes()));
            m.insert("features".into(), json!(d.features().ncols()));
            m.insert("max_degree".into(), json!(s.max_degree));
            m.insert("class_counts".into(), json!(d.class_counts()));
        }
        Dataset::Graphs(d) => {
            let s = GraphStats::of(d.graphs());
            m.insert("graphs".into(), json!(d.len()));
            m.insert("nodes".into(), json!(s.nodes));
            m.insert("edges".into(), json!(s.edges));
            m.insert("classes".into(), json!(d.targets().num_classes()));
            m.insert("max_degree".into(), json!(s.max_degree));
            m.insert("isolated".into(), json!(s.isolated));
            let splits: serde_json::Map<String, Value> = d
                .splits()
                .iter()
                .map(|(k, v)| (k.clone(), json!(v.len())))
                .collect();
            m.insert("splits".into(), Value::Object(splits));
        }
        Dataset::Files(f) => {
            m.insert("graphs".into(), Value::Null);
            m.insert("nodes".into(), Value::Null);
            m.insert("edges".into(), Value::Null);
            m.insert("classes".into(), Value::Null);
            m.insert("rows".into(), json!(f.rows));
        }
    }
    v
}
