"""The book's Python API reference (docs/src/reference/python.md), generated from the package's
docstrings and signatures so that it cannot drift: the test renders it and fails when the
committed page differs; ``DPGRAPH_BLESS=1`` rewrites it."""

import importlib
import inspect
import os
import pathlib

PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "src" / "reference" / "python.md"
MODULES = [
    "dpgraph",
    "dpgraph.accounting",
    "dpgraph.edgerefine",
    "dpgraph.homdp",
    "dpgraph.graph",
    "dpgraph.fed",
]


def signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(…)"


def doc(obj):
    text = inspect.getdoc(obj) or "(no docstring)"
    return "\n".join(line.rstrip() for line in text.splitlines())


def render():
    out = [
        "# Python API reference",
        "",
        "Every public name of the `dpgraph` package with its signature and docstring, generated",
        "from the installed package (`python/tests/test_api_reference.py`: a test fails when this",
        "page is stale). The type stubs are `dpgraph/_native.pyi`.",
    ]
    for modname in MODULES:
        module = importlib.import_module(modname)
        out += ["", f"## `{modname}`", "", doc(module)]
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            qual = f"{modname}.{name}"
            if inspect.isclass(obj):
                out += ["", f"### class `{qual}`", "", doc(obj)]
                for mname, member in sorted(vars(obj).items()):
                    if mname.startswith("_") or not callable(member) and not isinstance(member, property):
                        continue
                    target = member.fget if isinstance(member, property) else member
                    if isinstance(target, (staticmethod, classmethod)):
                        target = target.__func__
                    sig = "" if isinstance(member, property) else signature(target)
                    out += ["", f"- `{name}.{mname}{sig}`: " + doc(target).split("\n\n")[0].replace("\n", " ")]
            elif callable(obj):
                out += ["", f"### `{qual}{signature(obj)}`", "", doc(obj)]
            else:
                out += ["", f"### `{qual}`", "", f"`{obj!r}`"]
    return "\n".join(out).rstrip() + "\n"


def test_the_books_python_reference_is_what_the_package_documents():
    want = render()
    if os.environ.get("DPGRAPH_BLESS"):
        PAGE.write_text(want, encoding="utf-8")
    have = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
    assert have == want, "docs/src/reference/python.md is stale: rerun with DPGRAPH_BLESS=1"
    assert "### `dpgraph.homdp.embed(" in want
