"""The Flower apps of a CE-FedGNN federation (Flower 1.42, Message API).

:func:`server_app` drives :class:`dpgraph.fed.FedServer`; :func:`client_app` drives
:class:`dpgraph.fed.FedClient` over the organisation's own folder. Frames travel as ``bytes`` in a
``ConfigRecord`` (``{"frame": …, "bytes": len, "round": r}``); every message's byte count is
recorded and the run's report puts Flower's counts beside the Rust accounting.

Run config (``[tool.flwr.app.config]`` of the app folder, or ``--run-config``):

=================  =========================================================================
``method``         ``cefedgnn`` (default) or another federated method (``fedavg``, …)
``preset``         training preset: ``citation`` (default), ``aml-gine``, ``aml-gin``
``train``          JSON object of training overrides, e.g. ``{"rounds": 3, "local_steps": 8}``
``num-clients``    N, the organisations of the run (required)
``min-clients``    a round closes with at least this many updates (0: all)
``seeded-noise``   ``true``: boundary noise seeded from the training seed, reproducing
                   ``dpgraph fed simulate`` (recorded); default ``false``: the OS CSPRNG
``run-name``       names the clients' state files (``dpgraph-fed-<run-name>.state``)
``checkpoint``     server checkpoint file (absolute path); resumed from when it exists
``report``         where the server writes the run's report (JSON; absolute path)
``round-timeout``  seconds to wait for the updates of a round (default 600)
``join-timeout``   seconds to wait for every organisation to join (default 300)
``poll-interval``  seconds between the server's pulls of a round's replies (default 0.1;
                   Flower's own ``send_and_receive`` waits 3 s between pulls, which added up
                   to 3 s to every round)
``orgs-root``      simulation only: client i reads ``<orgs-root>/org-<i>`` (partition-id i)
``faults``         testing only: ``"<client>:<kind>@<round>,…"`` with kind ``nonfinite``,
                   ``wrong-round`` or ``truncated``: that client corrupts its update
``crash-after``    testing only: the server process exits abruptly after checkpointing this
                   round (a crash to resume from)
=================  =========================================================================

Node config (``flower-supernode --node-config``): ``org-dir`` (the organisation's folder) and
``state-dir`` (where its client keeps its state; default ``org-dir``).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from logging import INFO, WARNING
from pathlib import Path
from typing import Any, Mapping

from flwr.app import ConfigRecord, Context, Message, RecordDict
from flwr.clientapp import ClientApp
from flwr.common import log
from flwr.serverapp import Grid, ServerApp

from .. import _native
from . import FLOWER_VERSION

__all__ = ["Settings", "client_app", "server_app", "serve"]

#: The record every message of the federation carries.
RECORD = "dpgraph"


@dataclass
class Settings:
    """The run config, typed (see the module's documentation)."""

    num_clients: int
    method: str = "cefedgnn"
    preset: str = "citation"
    train: dict[str, Any] = field(default_factory=dict)
    min_clients: int = 0
    seeded_noise: bool = False
    run_name: str = "default"
    checkpoint: str = ""
    report: str = ""
    round_timeout: float = 600.0
    join_timeout: float = 300.0
    poll_interval: float = 0.1
    orgs_root: str = ""
    faults: str = ""
    crash_after: int = -1

    @classmethod
    def from_run_config(cls, rc: Mapping[str, Any]) -> Settings:
        """The settings of a Flower run config; raises ``dpgraph.InvalidParameter`` for an
        unknown key or a missing ``num-clients``."""
        known = {f.replace("_", "-") for f in cls.__dataclass_fields__}
        unknown = sorted(set(rc) - known)
        if unknown:
            raise _native.InvalidParameter(f"unknown run-config keys {unknown}; known: {sorted(known)}")
        if "num-clients" not in rc:
            raise _native.InvalidParameter("run config needs num-clients")
        kw: dict[str, Any] = {k.replace("-", "_"): v for k, v in rc.items()}
        if isinstance(kw.get("train"), str):
            kw["train"] = json.loads(kw["train"]) if kw["train"].strip() else {}
        s = cls(**kw)
        s.num_clients = int(s.num_clients)
        s.min_clients = int(s.min_clients)
        s.crash_after = int(s.crash_after)
        s.seeded_noise = bool(s.seeded_noise)
        s.poll_interval = float(s.poll_interval)
        if not 0.0 < s.poll_interval <= 60.0:
            raise _native.InvalidParameter(f"poll-interval must be in (0, 60] seconds, got {s.poll_interval}")
        return s

    def train_config(self) -> str:
        """The checked training configuration (JSON), identical on every party."""
        return _native.train_config(self.preset, json.dumps(self.train))

    def seed(self) -> int:
        return int(json.loads(self.train_config())["seed"])

    def fault(self, client: int, round: int) -> str | None:
        """The fault client ``client`` injects in ``round``, if any."""
        for item in filter(None, (x.strip() for x in self.faults.split(","))):
            who, _, rest = item.partition(":")
            kind, _, when = rest.partition("@")
            if int(who) == client and int(when) == round:
                return kind
        return None


def _message(frame: bytes, round: int | None, dst: int, kind: str, extra: dict[str, Any] | None = None) -> Message:
    rec: dict[str, Any] = {"frame": frame, "bytes": len(frame)}
    if round is not None:
        rec["round"] = round
    rec.update(extra or {})
    return Message(RecordDict({RECORD: ConfigRecord(rec)}), dst_node_id=dst, message_type=kind)


def _write_json(path: str, value: Any) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1)
    os.replace(tmp, p)


class _Exchange:
    """One request to a set of clients and their replies, with byte counts."""

    def __init__(self, grid: Grid, timeout: float, poll: float):
        self.grid, self.timeout, self.poll = grid, timeout, poll

    def _send_and_receive(self, msgs: list[Message]) -> list[Message]:
        """``Grid.send_and_receive`` with its own pull interval: Flower's sleeps 3 s between
        pulls, so a round's replies waited up to 3 s after the last one arrived."""
        pending = set(self.grid.push_messages(msgs))
        end = time.time() + self.timeout
        replies: list[Message] = []
        while pending:
            got = list(self.grid.pull_messages(pending))
            replies.extend(got)
            pending.difference_update(m.metadata.reply_to_message_id for m in got)
            if not pending or time.time() >= end:
                break
            time.sleep(self.poll)
        return replies

    def __call__(self, msgs: dict[int, Message]) -> tuple[dict[int, bytes], dict[int, str]]:
        replies = self._send_and_receive(list(msgs.values()))
        # Message ids are assigned when the messages are pushed.
        by_id = {m.metadata.message_id: c for c, m in msgs.items()}
        ok: dict[int, bytes] = {}
        failed: dict[int, str] = {}
        for r in replies:
            c = by_id.get(r.metadata.reply_to_message_id)
            if c is None:
                continue
            if r.has_error():
                failed[c] = f"error {r.error.code}: {r.error.reason[:300]}"
            else:
                ok[c] = bytes(r.content[RECORD]["frame"])
        for c in msgs:
            if c not in ok and c not in failed:
                failed[c] = f"no reply within {self.timeout:g} s"
        return ok, failed


def serve(grid: Grid, s: Settings) -> dict[str, Any]:
    """Runs the server side of a federation over ``grid``; returns the run's report (also
    written to ``s.report``)."""
    t0 = time.time()
    cfg = s.train_config()
    resume = bool(s.checkpoint) and os.path.exists(s.checkpoint)
    server = _native.FedServer(
        s.method,
        cfg,
        s.num_clients,
        min_clients=s.min_clients or None,
        resume_from=s.checkpoint if resume else None,
    )
    exchange = _Exchange(grid, s.round_timeout, s.poll_interval)
    node_of: dict[int, int] = {}
    traffic: dict[str, int] = {"down": 0, "up_received": 0, "up_accepted": 0}
    rounds: list[dict[str, Any]] = []
    if resume:
        log(INFO, "dpgraph.fed: resuming from %s at round %s", s.checkpoint, server.round)

    def join(need: int) -> None:
        """Asks every node not mapped yet for its announcement, until `need` clients are mapped
        (at most `join_timeout` seconds; `need` = 0: one pass)."""
        deadline = time.time() + s.join_timeout
        while True:
            known = set(node_of.values())
            new = [n for n in grid.get_node_ids() if n not in known]
            if new:
                hello = json.dumps({"run-name": s.run_name, "fresh": not server.started and not resume})
                keys = {-1 - k: n for k, n in enumerate(new)}
                ok, failed = exchange({key: _message(b"", None, n, "query", {"hello": hello}) for key, n in keys.items()})
                for key, ann in ok.items():
                    try:
                        c = server.register(ann)
                    except _native.DpgraphError as e:
                        log(WARNING, "dpgraph.fed: node %s refused: %s", keys[key], e)
                        continue
                    if c in node_of and node_of[c] != keys[key]:
                        log(INFO, "dpgraph.fed: client %d rejoined as node %s", c, keys[key])
                    node_of[c] = keys[key]
                for key, why in failed.items():
                    log(WARNING, "dpgraph.fed: node %s did not announce itself: %s", keys[key], why)
            if len(node_of) >= need or time.time() > deadline:
                return
            time.sleep(1.0)

    # A fresh run needs every organisation; a resumed one continues with at least min-clients.
    join(s.num_clients if not server.started else (s.min_clients or s.num_clients))
    if not server.started:
        missing = server.unregistered()
        if missing:
            raise _native.ProtocolError(f"clients {missing} did not join within {s.join_timeout:g} s")
        server.start()
    while not server.is_final:
        r = server.round
        t_round = time.time()
        join(0)
        msgs = {}
        for c, n in node_of.items():
            frame = server.frame(c)
            traffic["down"] += len(frame)
            msgs[c] = _message(frame, r, n, "train")
        ok, failed = exchange(msgs)
        for c, why in failed.items():
            log(WARNING, "dpgraph.fed: round %d: client %d sent no update (%s)", r, c, why)
        for c, frame in sorted(ok.items()):
            traffic["up_received"] += len(frame)
            try:
                server.accept(c, frame)
                traffic["up_accepted"] += len(frame)
            except _native.ProtocolError as e:
                log(WARNING, "dpgraph.fed: round %d: refused the update of client %d: %s", r, c, e)
        outcome = server.finish_round()
        if s.checkpoint:
            server.checkpoint(s.checkpoint)
        seconds = time.time() - t_round
        rounds.append({**outcome, "seconds": seconds})
        log(
            INFO,
            "dpgraph.fed: round %d closed in %.1f s: aggregated %s, absent %s",
            r,
            seconds,
            outcome["aggregated"],
            outcome["absent"],
        )
        if r == s.crash_after:
            log(WARNING, "dpgraph.fed: crash-after=%d: the server exits abruptly", r)
            os._exit(17)
    msgs = {}
    for c, n in node_of.items():
        frame = server.frame(c)
        traffic["down"] += len(frame)
        msgs[c] = _message(frame, server.round, n, "evaluate")
    ok, failed = exchange(msgs)
    for c, report in ok.items():
        try:
            server.accept_final(c, report)
        except _native.ProtocolError as e:
            log(WARNING, "dpgraph.fed: refused the final report of client %d: %s", c, e)
    for c, why in failed.items():
        log(WARNING, "dpgraph.fed: client %d sent no final report (%s)", c, why)
    report = json.loads(server.report())
    report["flower"] = {
        "version": FLOWER_VERSION,
        "bytes": traffic,
        "rounds": rounds,
        "seconds": time.time() - t0,
        "resumed": resume,
        "seeded_noise": s.seeded_noise,
    }
    if s.report:
        _write_json(s.report, report)
    log(INFO, "dpgraph.fed: run finished: f1_mean %.4f, %d bytes", report["f1_mean"], report["bytes_up"] + report["bytes_down"])
    log(INFO, "dpgraph.fed: guarantee: eps(p) at most %s for the released boundary rows. %s", report["eps_max"], report["not_covered"])
    return report


def server_app(run_config: Mapping[str, Any] | None = None) -> ServerApp:
    """The ServerApp; ``run_config`` (when given) is merged over the run's config (the
    simulation engine passes none)."""
    app = ServerApp()

    @app.main()
    def main(grid: Grid, context: Context) -> None:
        serve(grid, Settings.from_run_config({**dict(context.run_config), **dict(run_config or {})}))

    return app


def _org_dir(s: Settings, context: Context) -> Path:
    nc = context.node_config
    if "org-dir" in nc:
        return Path(str(nc["org-dir"]))
    if s.orgs_root and "partition-id" in nc:
        return Path(s.orgs_root) / f"org-{int(nc['partition-id'])}"
    raise _native.InvalidParameter("node config needs org-dir (or run config orgs-root in simulation)")


def _client(s: Settings, context: Context) -> Any:
    org = _org_dir(s, context)
    state_dir = Path(str(context.node_config.get("state-dir", org)))
    state = state_dir / f"dpgraph-fed-{s.run_name}.state"
    return org, state


def noise_seed(s: Settings) -> int | None:
    """The noise seed a ClientApp gives its client: ``None`` (ChaCha20 keyed by the node's OS, so
    nothing in the run config or the report reproduces the noise) unless ``seeded-noise`` asks for
    an experiment reproducing ``dpgraph --seed SEED fed simulate`` (then the release is not private)."""
    return s.seed() if s.seeded_noise else None


def client_app(run_config: Mapping[str, Any] | None = None) -> ClientApp:
    """The ClientApp; ``run_config`` (when given) is merged over the run's config."""
    app = ClientApp()

    def settings(context: Context) -> Settings:
        return Settings.from_run_config({**dict(context.run_config), **dict(run_config or {})})

    def open_client(s: Settings, context: Context) -> Any:
        org, state = _client(s, context)
        return _native.FedClient(org, s.method, s.train_config(), state_path=state, noise_seed=noise_seed(s))

    @app.query()
    def announce(msg: Message, context: Context) -> Message:
        s = settings(context)
        hello = json.loads(str(msg.content[RECORD]["hello"]))
        org, state = _client(s, context)
        if hello.get("fresh") and state.exists():
            state.unlink()
        client = open_client(s, context)
        ann = client.announcement()
        return Message(RecordDict({RECORD: ConfigRecord({"frame": ann, "bytes": len(ann)})}), reply_to=msg)

    def answer(msg: Message, context: Context) -> Message:
        s = settings(context)
        rec = msg.content[RECORD]
        client = open_client(s, context)
        kind, out = client.handle(bytes(rec["frame"]))
        fault = s.fault(client.client, int(rec["round"])) if kind == "update" else None
        if fault:
            log(WARNING, "dpgraph.fed: client %d injects fault %s in round %s", client.client, fault, rec["round"])
            out = _native.apply_fault(out, fault)
        return Message(RecordDict({RECORD: ConfigRecord({"frame": out, "bytes": len(out)})}), reply_to=msg)

    app.train()(answer)
    app.evaluate()(answer)
    return app
