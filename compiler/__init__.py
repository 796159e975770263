"""The compiler: stages become numba kernels (see the compiler issue)."""
