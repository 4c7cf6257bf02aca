"""The small core every stage builds on: paths of the artifact layout, the configuration and
its schema, errors, JSON artifacts, the GPU lock, the measurement protocol, process set-up
(devices, caches, CPU mode), KernelBench problems, the output flattener and error metric,
Inductor's wrapper module (parsing, loading, observing it), the GPU's facts (``hardware``) and
the byte accounting and roofline math that search, select and report share (``roofline``).

Nothing in ``core`` imports a stage package; stages import ``core`` and the stages before them
(capture < classify < isolate < gates < search < select < stitch < report).
"""
