"""WRONG (expected: gate 1, syntax)."""
def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel)
    pass
