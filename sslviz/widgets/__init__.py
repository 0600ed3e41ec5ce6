"""Explorers: thin wiring of controls to :mod:`sslviz.experiments` and :mod:`sslviz.plots`.

:mod:`sslviz.widgets.base` holds the explorer shell and the controls every lecture builds;
``widgets/X.py`` holds lecture X's explorers (the same name X as ``experiments/X.py`` and
``plots/X.py``).
"""

try:
    import ipywidgets  # noqa: F401  (the explorers' controls)
except ImportError:  # the core package: algorithms, data, plots, experiments
    raise ImportError("sslviz.widgets (the explorers) needs the classroom extras: "
                      "pip install 'sslviz[lab]' (or run `python3 run.py lab`)") from None

from .base import Explorer, PerSetting, export_explorers, live_explorers
from .export_control import export_control

__all__ = ["Explorer", "PerSetting", "export_control", "export_explorers", "live_explorers"]
