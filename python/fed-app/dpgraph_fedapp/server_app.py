"""The ServerApp: drives the Rust aggregation server (`dpgraph.fed.FedServer`)."""

from dpgraph.fed.flower import server_app

app = server_app()
