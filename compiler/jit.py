"""The two ways the compiler hands a function to numba.

`kernel`: compiled once, cached on disk (a second process starts without compiling), releases the
GIL (playouts run on several threads) and skips bounds checks (the program's tables are built to
fit). `inline`: the same, and inlined into every caller at numba's IR level: a small helper that
runs once per cell, candidate or ply and takes arrays would otherwise cost a reference count per
array argument per call, which in a playout loop costs more than the helper's work.
"""
from numba import njit

_OPTIONS = dict(cache=True, nogil=True, boundscheck=False)

kernel = njit(**_OPTIONS)
inline = njit(**_OPTIONS, inline="always")
