"""Explorers: thin wiring of controls to :mod:`sslviz` computations and :mod:`sslviz.plots`."""

from .base import Explorer
from .em import learning_curve_explorer, top_words_explorer
from .export_control import export_control

__all__ = ["Explorer", "export_control", "learning_curve_explorer", "top_words_explorer"]
