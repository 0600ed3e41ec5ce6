"""sslviz: semi-supervised learning for text classification, as lectures with live figures.

Layers, each in one place (CONTRIBUTING.md at the top of the repository has the map and the
recipe for adding a lecture): data (:mod:`sslviz.datasets`, :mod:`sslviz.text`), splits
(:mod:`sslviz.splits`), one module per algorithm family (:mod:`sslviz.em`, ...), one experiments
module per lecture (:mod:`sslviz.experiments`), drawing (:mod:`sslviz.plots`), explorers
(:mod:`sslviz.widgets`) and figure export (:mod:`sslviz.export`). Algorithms never import
plotting or widget code.
"""

__version__ = "0.2.0"
