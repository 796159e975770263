"""The sampler: unseen variants drawn with probability 2^-K (see the sampler issue)."""
