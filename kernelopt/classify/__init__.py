"""Stage 2, classify (checkpoint ``classify``, the fan-out point): a dispatch kind and time share
for every launch, units (the Triton kernels, plus fusible neighbour pairs: ``fusion``), and the
problem's verdict.  Entry points: ``stage.run``, ``stage.units_of``.
"""
