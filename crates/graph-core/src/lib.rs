//! Graphs for dpgraph.
