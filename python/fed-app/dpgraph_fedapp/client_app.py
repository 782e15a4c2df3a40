"""The ClientApp: drives one organisation's Rust client (`dpgraph.fed.FedClient`) over the folder
named by the SuperNode's `org-dir` node config."""

from dpgraph.fed.flower import client_app

app = client_app()
