"""Pure kernels: arrays and PDF pages in, arrays and PDF pages out; no randomness, no config."""
