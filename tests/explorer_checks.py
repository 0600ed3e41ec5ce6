"""What every explorer test asserts about the export button (shared by the lecture tests)."""

from __future__ import annotations

import os
from pathlib import Path

from sslviz.export import figure_basename

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<svg", "pdf": b"%PDF-"}


def assert_exports(explorer, name=None):
    """Click export: PNG, SVG and PDF of the figure on screen, named after the explorer's
    parameters, in ``$SSLVIZ_FIGURES``, and the label says so. Returns the paths."""
    base = figure_basename(name or explorer.name, explorer.params())
    explorer.export.controls["button"].click()
    paths = explorer.export.last_paths
    assert [p.name for p in paths] == [f"{base}.{ext}" for ext in MAGIC]
    folder = Path(os.environ["SSLVIZ_FIGURES"]).resolve()
    assert all(p.parent.resolve() == folder for p in paths)
    for path, magic in zip(paths, MAGIC.values(), strict=True):
        head = path.read_bytes()[:2000]
        assert magic in head if magic == b"<svg" else head.startswith(magic), path.name
        assert path.stat().st_size > 1000, f"{path.name} is almost empty"
    assert explorer.export.controls["label"].value.startswith(f"Saved {base}.")
    return paths
