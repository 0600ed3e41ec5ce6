"""Drawing only: functions that take an ``ax`` and data, draw on that axis and return the artists.

``plot_*`` functions create artists; ``update_*`` functions change existing ones (so a slider
that replays a trace only edits a few artists). Nothing here computes a model, calls
``plt.show()``, saves files or changes global matplotlib state.
"""

from .common import (
    plot_iteration_curve,
    plot_learning_curve,
    plot_seed_bars,
    update_iteration_marker,
    update_size_marker,
)
from .em import plot_word_columns, update_word_columns

__all__ = [
    "plot_iteration_curve",
    "plot_learning_curve",
    "plot_seed_bars",
    "plot_word_columns",
    "update_iteration_marker",
    "update_size_marker",
    "update_word_columns",
]
