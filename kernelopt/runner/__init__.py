"""Running candidate code: ``jail`` (the operating-system boundary around every process that
runs it) and ``wire`` (how the judge and a jailed child talk, and how tensors cross between
them).  Nothing here judges: gate policy lives in ``kernelopt.gates``."""
