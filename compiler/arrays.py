"""Array helpers the kernels share, written as loops: numba compiles a slice assignment
(`a[:] = b`) with a shape check whose error message it formats with its string code, which cost
the first run more than a second of compiling, for a copy the tables' sizes already guarantee."""
from .jit import inline


@inline
def copy_into(dst, src):
    """dst[i] = src[i] for every i of src.

    dst: int32[at least k] — written (every caller's arrays are int32: states, starts, union-finds)
    src: int32[k] — read
    """
    for i in range(src.shape[0]):
        dst[i] = src[i]
