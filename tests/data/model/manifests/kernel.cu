// Placeholder CUDA source for the manifest tests: only its existence matters.
