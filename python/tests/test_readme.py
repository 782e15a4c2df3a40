"""The front page and the book: every ``python`` and ``sh`` quick start of README.md runs as
printed and prints a privacy guarantee (the ``rust`` one runs as a doctest of homdp), and every
relative link in README.md, the crates' READMEs and the book (docs/src) points at a file of the
repository, with nothing pointing outside it."""

import contextlib
import io
import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def blocks(path, lang):
    return re.findall(rf"^```{lang}\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def test_the_front_page_is_short_and_has_one_start_per_front_end():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200
    assert len(blocks(README, "python")) == 1
    assert len(blocks(README, "rust")) == 1
    # The install block, the CLI quick start and the two commands.
    assert len(blocks(README, "sh")) == 3


def test_the_python_quick_start_runs_and_prints_its_guarantee():
    pytest.importorskip("sklearn")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks(README, "python")[0], "README.md", "exec"), {})
    assert re.search(r"ε = [0-9.]+ at δ = 1e-06 per edge: accuracy 0\.[0-9]+", out.getvalue()), out.getvalue()


def test_the_command_line_quick_start_runs_and_prints_its_guarantee(tmp_path):
    cli = os.environ.get("DPGRAPH_CLI")
    if not cli:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    script = next(b for b in blocks(README, "sh") if "dpgraph edgerefine perturb" in b)
    env = dict(os.environ, PATH=f"{pathlib.Path(cli).parent}{os.pathsep}{os.environ['PATH']}")
    out = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path, env=env, check=True, capture_output=True, text=True,
    ).stdout
    assert re.search(r"^eps: 2(\.0)?$", out, re.M), out
    assert '"private":true' in out, out
    assert "released_edges:" in out, out
    release = (tmp_path / "release.txt").read_text().splitlines()
    assert release[0] == "# nodes 6" and len(release) > 1


def documents():
    yield README
    yield from sorted((ROOT / "crates").glob("*/README.md"))
    yield from sorted((ROOT / "docs").rglob("*.md"))


def links(text):
    """The relative link targets of a Markdown text, outside code blocks and code spans."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return [
        t
        for t in re.findall(r"\]\(([^)\s]+)\)", text)
        if not re.match(r"[a-z]+:", t) and not t.startswith("#")
    ]


def test_every_relative_link_is_a_file_of_the_repository():
    bad = []
    for doc in documents():
        for target in links(doc.read_text(encoding="utf-8")):
            path = (doc.parent / target.split("#")[0]).resolve()
            if not path.exists() or ROOT not in (path, *path.parents):
                bad.append(f"{doc.relative_to(ROOT)}: {target}")
    assert not bad, "\n".join(bad)


def test_the_book_links_only_to_its_own_pages_and_includes_what_it_shows():
    # mdBook renders docs/src alone: a link from the book to results/ or a crate README is dead in
    # the built HTML (it turns `.md` into `.html` and copies nothing from outside). Such files are
    # included with {{#include}} (their text then is in the book) or named as paths.
    src = ROOT / "docs" / "src"
    bad = []
    for doc in sorted(src.rglob("*.md")):
        text = doc.read_text(encoding="utf-8")
        for target in links(text):
            path = (doc.parent / target.split("#")[0]).resolve()
            if src not in path.parents:
                bad.append(f"{doc.relative_to(ROOT)}: links {target} outside docs/src")
        for target in re.findall(r"\{\{#include ([^}:\s]+)(?::(\w+))?\}\}", text):
            path, anchor = (doc.parent / target[0]).resolve(), target[1]
            if not path.is_file() or ROOT not in path.parents:
                bad.append(f"{doc.relative_to(ROOT)}: includes {target[0]}, not a file of the repository")
            elif anchor and f"ANCHOR: {anchor}" not in path.read_text(encoding="utf-8"):
                bad.append(f"{doc.relative_to(ROOT)}: {target[0]} has no anchor {anchor}")
    assert not bad, "\n".join(bad)


def test_no_document_points_at_the_shared_folder_beside_the_checkout():
    hits = [
        f"{doc.relative_to(ROOT)}:{i}"
        for doc in documents()
        for i, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
        if "shared/" in line
    ]
    assert not hits, hits
