"""Use the result: the optimized model in your own code (``kernelopt.load``) and as a directory
that loads without the run (``kernelopt export``); docs/use.md."""
