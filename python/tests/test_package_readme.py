"""The Python package's README (crates/dpgraph-py/README.md): every ``python`` block runs as
printed and prints a privacy guarantee, and every relative link points at a file of the
repository."""

import contextlib
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "crates" / "dpgraph-py" / "README.md"


def blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_the_two_starts():
    assert len(blocks("python")) == 2


@pytest.mark.parametrize("index", range(2))
def test_each_python_block_runs_and_prints_its_guarantee(index):
    pytest.importorskip("sklearn")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks("python")[index], f"README block {index}", "exec"), {})
    printed = out.getvalue()
    assert re.search(r"ε = [0-9.]+", printed), printed
    assert "per edge" in printed, printed


def test_relative_links_point_into_the_repository():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    relative = [l for l in links if not re.match(r"[a-z]+://", l)]
    assert relative, "the README links the repository's documents"
    for link in relative:
        target = (README.parent / link).resolve()
        assert target.is_file(), f"{link} -> {target}"
        assert ROOT in target.parents, f"{link} leaves the repository"
