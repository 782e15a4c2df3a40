//! Training loops on small synthetic data: fitting, reproducibility, embeddings, sparse/dense
//! equivalence, graph classification and regression, and typed errors before training.

use burn::tensor::Device;
use gnn::{
    Architecture, EdgeList, Error, GatHeads, GraphInput, GraphSplit, GraphTargets, GraphTask,
    Input, ModelConfig, NodeTask, Pooling, TrainConfig, predict_nodes, train_graph_model,
    train_node_classifier,
};
use graph_core::{NodeSplit, generate::ContextualSbm};
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn csbm_task(seed: u64, n: usize, dim: usize) -> NodeTask {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ds = ContextualSbm {
        n,
        classes: 3,
        p_in: 0.06,
        p_out: 0.004,
        dim,
        mu: 1.2,
    }
    .sample(&mut rng)
    .unwrap();
    let split = NodeSplit::random(n, 0.6, 0.2, &mut rng).unwrap();
    NodeTask::from_dataset(&ds)
        .unwrap()
        .with_split(split)
        .unwrap()
}

fn quick() -> TrainConfig {
    TrainConfig::new()
        .with_lr(0.01)
        .with_max_epochs(40)
        .with_patience(Some(20))
}

#[test]
fn gcn_fits_a_contextual_sbm() {
    let task = csbm_task(0, 300, 16);
    let cfg = ModelConfig::gcn(16, 16, 3).with_dropout(0.5);
    let out = train_node_classifier(&task, &cfg, &quick(), &Device::flex()).unwrap();
    assert!(out.test_acc > 0.9, "test acc {}", out.test_acc);
    assert!(out.test_macro_f1 > 0.85, "macro-F1 {}", out.test_macro_f1);
    // The history is consistent with the reported best epoch.
    let best = out.history[out.best_epoch];
    assert!(out.history.iter().all(|h| h.val_acc <= best.val_acc));
    assert!((best.val_acc - out.val_acc).abs() < 1e-12);
    // Training reduced the loss.
    assert!(out.history.last().unwrap().train_loss < out.history[0].train_loss);
}

#[test]
fn every_architecture_beats_chance_on_the_sbm() {
    let task = csbm_task(1, 240, 12);
    let models = [
        ModelConfig::sage(12, 16, 3),
        // Small and briefly trained: light dropout (the 0.6 defaults need hundreds of epochs).
        ModelConfig::gat_with(
            12,
            8,
            3,
            GatHeads::new().with_heads(2).with_attn_dropout(0.1),
        )
        .with_dropout(0.1),
        ModelConfig::gin(12, 16, 3),
        ModelConfig::mlp(12, 16, 3),
    ];
    for cfg in models {
        let out = train_node_classifier(&task, &cfg, &quick(), &Device::flex()).unwrap();
        // Chance is 1/3; the features alone separate the classes well (mu = 1.2 in 12 dims).
        assert!(out.test_acc > 0.6, "{cfg:?}: {}", out.test_acc);
    }
}

#[test]
fn same_seed_same_numbers() {
    let task = csbm_task(2, 150, 8);
    let cfg = ModelConfig::gat_with(8, 4, 3, GatHeads::new().with_heads(2));
    let train = TrainConfig::new().with_max_epochs(8).with_seed(5);
    let a = train_node_classifier(&task, &cfg, &train, &Device::flex()).unwrap();
    let b = train_node_classifier(&task, &cfg, &train, &Device::flex()).unwrap();
    assert_eq!(a.history, b.history);
    let c =
        train_node_classifier(&task, &cfg, &train.clone().with_seed(6), &Device::flex()).unwrap();
    assert_ne!(a.history, c.history);
}

#[test]
fn embeddings_and_predictions_agree_with_forward() {
    let task = csbm_task(3, 120, 8);
    let cfg = ModelConfig::gcn(8, 6, 3).with_num_layers(3);
    let out = train_node_classifier(
        &task,
        &cfg,
        &TrainConfig::new().with_max_epochs(5),
        &Device::flex(),
    )
    .unwrap();
    let device = Device::flex();
    let input = GraphInput::from_node_task(&task, &device);
    let emb = out.model.embeddings(&input).unwrap();
    let dims: Vec<[usize; 2]> = emb.iter().map(|e| e.dims()).collect();
    assert_eq!(dims, vec![[120, 6], [120, 6], [120, 3]]);
    // Hidden embeddings are post-ReLU.
    let h0: Vec<f32> = emb[0].clone().into_data().try_to_vec::<f32>().unwrap();
    assert!(h0.iter().all(|&v| v >= 0.0));
    let logits: Vec<f32> = out
        .model
        .forward(&input, None)
        .unwrap()
        .into_data()
        .try_to_vec::<f32>()
        .unwrap();
    let last: Vec<f32> = emb[2].clone().into_data().try_to_vec::<f32>().unwrap();
    assert_eq!(logits, last);
    let pred = predict_nodes(&out.model, &task, &device).unwrap();
    let split = task.split().unwrap();
    let hits = (0..120)
        .filter(|&i| split.train[i] && pred[i] == task.labels()[i])
        .count();
    let n_train = split.train.iter().filter(|&&b| b).count();
    assert!((hits as f64 / n_train as f64 - out.train_acc).abs() < 1e-12);
}

#[test]
fn sparse_and_dense_inputs_give_the_same_output() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut x = Array2::<f32>::zeros((30, 50));
    for _ in 0..100 {
        let (r, c) = (rng.random_range(0..30), rng.random_range(0..50));
        x[[r, c]] = 1.0;
    }
    let edges: Vec<(u32, u32)> = (0..29).flat_map(|i| [(i, i + 1), (i + 1, i)]).collect();
    let e = EdgeList::new(30, &edges).unwrap();
    let device = Device::flex();
    let g = gnn::GraphTensors::new(&e, &device);
    let sparse = Input::from_array(&x, &device);
    let dense = Input::dense_from_array(&x, &device);
    assert!(matches!(sparse, Input::Sparse { .. }) && matches!(dense, Input::Dense(_)));
    for cfg in [
        ModelConfig::gcn(50, 8, 3),
        ModelConfig::gat(50, 4, 3),
        ModelConfig::gin(50, 8, 3),
        ModelConfig::sage(50, 8, 3),
    ] {
        let m = cfg.init(&device).unwrap();
        let run = |x: &Input| {
            let input = GraphInput {
                x: x.clone(),
                graph: g.clone(),
                pool: None,
            };
            m.forward(&input, None)
                .unwrap()
                .into_data()
                .try_to_vec::<f32>()
                .unwrap()
        };
        let (a, b) = (run(&sparse), run(&dense));
        assert!(
            a.iter().zip(&b).all(|(p, q)| (p - q).abs() < 1e-4),
            "{cfg:?}"
        );
    }
}

#[test]
fn model_configs_round_trip_through_json() {
    let mean = Some(Pooling::Mean);
    for cfg in [
        ModelConfig::gcn(10, 16, 3),
        ModelConfig::sage(10, 16, 3).with_pooling(mean),
        ModelConfig::gat_with(10, 8, 3, GatHeads::new().with_heads(4)),
        ModelConfig::gin(10, 32, 3)
            .with_num_layers(5)
            .with_pooling(mean),
        ModelConfig::gine(10, 2, 16, 3),
        ModelConfig::mlp(10, 64, 3).with_dropout(0.0),
    ] {
        let json = serde_json::to_string(&cfg).unwrap();
        let back: ModelConfig = serde_json::from_str(&json).unwrap();
        assert_eq!(cfg, back);
        assert!(cfg.init(&Device::flex()).is_ok());
    }
    // Constructors set each architecture's own defaults.
    let gat = ModelConfig::gat(10, 8, 3);
    assert_eq!(gat.dropout, 0.6);
    assert_eq!(gat.activation, gnn::Activation::Elu);
    assert_eq!(
        gat.architecture,
        Architecture::Gat(GatHeads {
            heads: 8,
            out_heads: 1,
            attn_dropout: 0.6
        })
    );
    // Zero heads or edge width are typed errors.
    let zero_heads = ModelConfig::gat_with(10, 8, 3, GatHeads::new().with_heads(0));
    assert!(matches!(
        zero_heads.init(&Device::flex()),
        Err(Error::InvalidParam { .. })
    ));
    assert!(matches!(
        ModelConfig::gine(10, 0, 16, 3).init(&Device::flex()),
        Err(Error::InvalidParam { .. })
    ));
}

/// Cycles (class 0) vs. stars (class 1) with 6–12 nodes and constant features; the regression
/// target is the node count.
fn shapes_task(regression: bool) -> GraphTask {
    let mut graphs = Vec::new();
    let mut feats = Vec::new();
    let mut labels = Vec::new();
    let mut sizes = Vec::new();
    for i in 0..60u32 {
        let n = 6 + (i % 7);
        let edges: Vec<(u32, u32)> = if i % 2 == 0 {
            (0..n)
                .flat_map(|u| [(u, (u + 1) % n), ((u + 1) % n, u)])
                .collect()
        } else {
            (1..n).flat_map(|u| [(0, u), (u, 0)]).collect()
        };
        graphs.push(EdgeList::new(n as usize, &edges).unwrap());
        feats.push(Array2::ones((n as usize, 1)));
        labels.push(i % 2);
        sizes.push(n as f32);
    }
    let targets = if regression {
        GraphTargets::Real(sizes)
    } else {
        GraphTargets::Class {
            labels,
            num_classes: 2,
        }
    };
    GraphTask::new(graphs, feats, targets).unwrap()
}

#[test]
fn gin_classifies_cycles_and_stars() {
    let task = shapes_task(false);
    let split = GraphSplit::random(60, 0.6, 0.2, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
    let cfg = ModelConfig::gin(1, 16, 2)
        .with_num_layers(2)
        .with_dropout(0.0)
        .with_pooling(Some(Pooling::Sum));
    let train = TrainConfig::new()
        .with_lr(0.01)
        .with_max_epochs(40)
        .with_batch_size(8);
    let out = train_graph_model(&task, &split, &cfg, &train, &Device::flex()).unwrap();
    assert!(out.test_acc >= 0.9, "test acc {}", out.test_acc);
    assert!(out.test_auc >= 0.9, "test auc {}", out.test_auc);
}

#[test]
fn gin_regresses_graph_size() {
    let task = shapes_task(true);
    let split = GraphSplit::random(60, 0.6, 0.2, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    let cfg = ModelConfig::gin(1, 16, 1)
        .with_dropout(0.0)
        .with_pooling(Some(Pooling::Sum));
    let train = TrainConfig::new()
        .with_lr(0.01)
        .with_max_epochs(60)
        .with_batch_size(8)
        .with_monitor(gnn::Monitor::ValLoss);
    let out = train_graph_model(&task, &split, &cfg, &train, &Device::flex()).unwrap();
    // Sizes 6..=12 have standard deviation 2; a constant predictor scores RMSE ≥ 2.
    assert!(out.test_rmse < 1.0, "test rmse {}", out.test_rmse);
    assert!(out.test_acc.is_nan());
}

#[test]
fn bad_setups_are_rejected_before_training() {
    let task = csbm_task(5, 60, 4);
    let device = Device::flex();
    let t = TrainConfig::new().with_max_epochs(2);
    let gcn = ModelConfig::gcn(4, 8, 3);
    // Wrong input width / class count.
    let wide = ModelConfig::gcn(5, 8, 3);
    assert!(matches!(
        train_node_classifier(&task, &wide, &t, &device),
        Err(Error::Shape { .. })
    ));
    let classes = ModelConfig::gcn(4, 8, 4);
    assert!(matches!(
        train_node_classifier(&task, &classes, &t, &device),
        Err(Error::Shape { .. })
    ));
    // No split.
    let bare = NodeTask::new(
        task.edges().clone(),
        task.features().clone(),
        task.labels().to_vec(),
        3,
    )
    .unwrap();
    assert!(matches!(
        train_node_classifier(&bare, &gcn, &t, &device),
        Err(Error::Empty(_))
    ));
    // Graph-level model on a node task, and the reverse.
    let pooled = ModelConfig::gcn(4, 8, 3).with_pooling(Some(Pooling::Mean));
    assert!(matches!(
        train_node_classifier(&task, &pooled, &t, &device),
        Err(Error::Incompatible(_))
    ));
    let shapes = shapes_task(false);
    let split = GraphSplit::random(60, 0.6, 0.2, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
    let node_level = ModelConfig::gin(1, 8, 2);
    assert!(matches!(
        train_graph_model(&shapes, &split, &node_level, &t, &device),
        Err(Error::Incompatible(_))
    ));
    let empty_val = GraphSplit {
        train: vec![0, 1],
        val: vec![],
        test: vec![2],
    };
    let pooled_gin = ModelConfig::gin(1, 8, 2).with_pooling(Some(Pooling::Mean));
    assert!(matches!(
        train_graph_model(&shapes, &empty_val, &pooled_gin, &t, &device),
        Err(Error::Empty(_))
    ));
    // Bad optimiser settings and dropout.
    assert!(matches!(
        train_node_classifier(&task, &gcn, &t.clone().with_lr(f64::NAN), &device),
        Err(Error::InvalidParam { name: "lr", .. })
    ));
    assert!(matches!(
        ModelConfig::gcn(4, 8, 3).with_dropout(1.0).init(&device),
        Err(Error::InvalidParam { .. })
    ));
    // Labels out of range in a graph task.
    let r = GraphTask::new(
        vec![EdgeList::new(2, &[(0, 1)]).unwrap()],
        vec![Array2::ones((2, 1))],
        GraphTargets::Class {
            labels: vec![2],
            num_classes: 2,
        },
    );
    assert!(matches!(r, Err(Error::LabelOutOfRange { .. })));
}
