"""Seeded runs, sweeps and paper tables: one module per lecture, on one cached parallel runner.

``experiments/X.py`` pairs with ``plots/X.py`` and ``widgets/X.py`` (the same lecture name X);
:mod:`sslviz.experiments.runner` caches and parallelises every job. Paper-scale runs:
``python -m sslviz.experiments fisher table`` (see :mod:`sslviz.experiments.__main__`).
"""
