"""CE-FedGNN across organisations: the Rust client and server of a deployed run, driven one frame
at a time, and (in :mod:`dpgraph.fed.flower`) the Flower ``ServerApp`` and ``ClientApp`` that
carry the frames between organisations.

Each organisation holds only its own folder (``org.json``, ``nodes.csv``, ``edges.csv``; written
for experiments by ``dpgraph fed partition``) and runs a :class:`FedClient`; the aggregator runs
a :class:`FedServer`. Frames, announcements and final reports are ``bytes``; training runs in
Rust with the GIL released.

:func:`simulate` runs a whole federation in this process, as ``dpgraph fed simulate`` does (same
keywords, same defaults, same record)::

    import dpgraph.fed as fed
    r = fed.simulate("aml-generated", generate_accounts=300, banks=3, rounds=1, local_steps=2, seed=7)
    print(r["f1_mean"], r["eps"], r["not_covered"])

Example (the whole protocol in one process)::

    import json, dpgraph.fed as fed
    cfg = fed.train_config("citation", json.dumps({"rounds": 2, "local_steps": 4, "seed": 1}))
    clients = [fed.FedClient(f"orgs/org-{i}", "cefedgnn", cfg, noise_seed=1) for i in range(5)]
    server = fed.FedServer("cefedgnn", cfg, num_clients=5)
    for c in clients:
        server.register(c.announcement())
    server.start()
    while not server.is_final:
        for c in clients:
            kind, update = c.handle(server.frame(c.client))
            server.accept(c.client, update)
        server.finish_round()
    for c in clients:
        kind, report = c.handle(server.frame(c.client))
        server.accept_final(c.client, report)
    print(json.loads(server.report())["f1_mean"])
"""

from .._native import FedClient, FedServer, ProtocolError, apply_fault, simulate, train_config

__all__ = [
    "FLOWER_VERSION",
    "FedClient",
    "FedServer",
    "ProtocolError",
    "apply_fault",
    "simulate",
    "train_config",
]

#: The Flower release the apps are tested with (the ``flower`` extra pins it).
FLOWER_VERSION = "1.42.0"
