"""ludica: board games as short text files, compiled to fast kernels, to measure how fast
intelligent systems adapt to games they have never seen."""
