"""sslviz: semi-supervised learning for text classification, as lectures with live figures.

The package holds what the notebooks drive: datasets (:mod:`sslviz.datasets`), text features
(:mod:`sslviz.text`), labeled/unlabeled splits (:mod:`sslviz.splits`), one module per algorithm
family (:mod:`sslviz.em`, ...), drawing (:mod:`sslviz.plots`), explorers (:mod:`sslviz.widgets`) and
figure export (:mod:`sslviz.export`). Algorithms never import plotting or widget code.
"""

__version__ = "0.1.0"
