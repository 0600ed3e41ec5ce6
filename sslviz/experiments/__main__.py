"""``python -m sslviz.experiments fisher-table | fisher-figure [options]`` (paper-scale runs)."""

from .fisher import main

if __name__ == "__main__":
    raise SystemExit(main())
