"""The synthetic planar networks of `mapkit layout`'s tests (the generator lives in the package, so
that `mapkit bench --only layout` measures the same boards)."""

from mapkit.layout.synthetic import layout_board_data  # noqa: F401
