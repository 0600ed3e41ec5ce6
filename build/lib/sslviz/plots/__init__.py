"""Drawing only: functions that take an ``ax`` and data, draw on that axis and return the artists.

``plot_*`` functions create artists; ``update_*`` functions change existing ones (so a slider
that replays a trace only edits a few artists). Nothing here computes a model, calls
``plt.show()``, saves files or changes global matplotlib state.

:mod:`sslviz.plots.common` holds the palette and what several lectures draw (curves over
iterations, learning curves, size markers, the "bar plus a dot per seed" panel); ``plots/X.py``
holds lecture X's own pictures (the same name X as ``experiments/X.py`` and ``widgets/X.py``).
"""
