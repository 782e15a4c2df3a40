"""The shell snippets of the README and the book (docs/src). Each one that drives the
``dpgraph`` command line runs as printed, in a temporary directory holding the README's
``my_graph.txt``, with the built CLI on the PATH (``cargo install --path crates/dpgraph``, the
line that would put it there, is skipped), on the embedded data. Every other shell snippet
is named below with the test or CI step that runs what it shows, so a new snippet cannot slip
in untested."""

import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MY_GRAPH = "# nodes 6\n0 1\n1 2\n2 0\n3 4\n4 5\n5 3\n2 3\n"

# (document, a line of the snippet) -> where what it shows is run instead.
ELSEWHERE = {
    ("README.md", "cargo add homdp --path crates/homdp"): "installs: CI builds and packages every crate (.ci/run); tests/downstream uses the paper crates as a dependency",
    ("README.md", "cargo xtask test"): "the test suite itself (.ci/run runs cargo xtask test)",
    ("docs/src/reference/reproducing.md", "cargo xtask repro"): "the experiments (xtask/tests/fresh_clone.rs runs repro on a fresh clone's data)",
    ("docs/src/reference/datasets.md", "dpgraph datasets install acm MUTAG HIV"): "downloads from the publishers: crates/graph-core/tests/upstream.rs installs from the real archives offline",
    ("docs/src/reference/datasets.md", "--upstream /srv/archives"): "archives from a local folder or URL: crates/graph-core/tests/upstream.rs and crates/dpgraph/tests/cli.rs",
    ("docs/src/getting-started/python.md", "pip install ./crates/dpgraph-py"): "the package build: cargo xtask test builds it with maturin into target/py-venv",
    ("docs/src/getting-started/federation.md", "--aml-file HI-Small_Trans.csv"): "needs the AMLworld file (Kaggle login): python/tests/test_fed_deploy.py and crates/dpgraph/tests/fed_cli.rs run the same commands on registry data",
    ("docs/src/getting-started/federation.md", "flower-superlink"): "a Flower deployment with TLS and node auth: python/tests/test_fed_deploy.py",
    ("docs/src/methods/edgerefine.md", "unshare -m"): "needs root and hours: the cache-size experiment it documents",
}


def shell_blocks():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs" / "src").rglob("*.md"))]
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        for block in re.findall(r"^```(?:sh|bash)\n(.*?)^```", text, re.S | re.M):
            yield str(doc.relative_to(ROOT)), block


def elsewhere(doc, block):
    return next((why for (d, line), why in ELSEWHERE.items() if d == doc and line in block), None)


def is_cli(block):
    lines = [l.split("#")[0].strip() for l in block.splitlines()]
    lines = [l for l in lines if l and not l.startswith("cargo install --path crates/dpgraph")]
    return bool(lines) and all(l.startswith(("dpgraph ", "printf ")) for l in lines)


BLOCKS = list(shell_blocks())


def test_every_shell_snippet_runs_here_or_is_named_with_where_it_runs():
    untested = [f"{doc}: {block.splitlines()[0]}" for doc, block in BLOCKS if not is_cli(block) and not elsewhere(doc, block)]
    assert not untested, untested
    stale = [key for key in ELSEWHERE if not any(d == key[0] and key[1] in b for d, b in BLOCKS)]
    assert not stale, f"ELSEWHERE names snippets that are gone: {stale}"


CLI = [(doc, block) for doc, block in BLOCKS if is_cli(block) and not elsewhere(doc, block)]


def test_some_snippets_drive_the_command_line():
    assert len(CLI) >= 2


@pytest.mark.parametrize("doc,block", CLI, ids=[f"{d}:{b.splitlines()[0][:40]}" for d, b in CLI])
def test_each_command_line_snippet_runs_as_printed(doc, block, tmp_path):
    cli = os.environ.get("DPGRAPH_CLI")
    if not cli:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    (tmp_path / "my_graph.txt").write_text(MY_GRAPH)
    script = "\n".join(
        l for l in block.splitlines() if not l.strip().startswith("cargo install --path crates/dpgraph")
    )
    env = dict(os.environ, PATH=f"{pathlib.Path(cli).parent}{os.pathsep}{os.environ['PATH']}")
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, f"{doc}:\n{script}\n{run.stderr[-3000:]}"
