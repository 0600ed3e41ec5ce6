"""Explorers: thin wiring of controls to :mod:`sslviz` computations and :mod:`sslviz.plots`."""

from .base import Explorer, export_explorers, live_explorers
from .em import learning_curve_explorer, top_words_explorer
from .export_control import export_control

__all__ = [
    "Explorer",
    "export_control",
    "export_explorers",
    "learning_curve_explorer",
    "live_explorers",
    "top_words_explorer",
]
