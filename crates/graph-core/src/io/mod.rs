//! File input and output: text helpers (transparent `.gz`), the edge-list and graph-set formats
//! of the command line, `.npy` arrays, and atomic writes.

mod edge_list;
mod graph_set;
pub(crate) mod npy;
mod text;

pub use edge_list::{parse_edge_list, read_edge_list, write_edge_list};
pub use graph_set::{GraphSet, parse_graph_set, read_graph_set, write_graph_set};
pub use npy::{NpyArray, NpyData, read_npy};
pub(crate) use text::{Tokens, lines};
pub use text::{find_maybe_gz, read_maybe_gz, write_atomic};
