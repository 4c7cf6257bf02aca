"""Running and timing candidate code, with no gate policy (that lives in ``kernelopt.gates``):

jail      the operating-system boundary around every process that runs candidate code
sandbox   a jailed child (a warm one when the pool has it) for one job, and its outcome
wire      how the judge and a jailed child talk, and how tensors cross between them
child     the jailed child's side: load the candidate, run the job (unit, model, speed,
          timing, profile), watch what it launches (``watch``)
worker    the warm per-problem workers that keep a CUDA context and the built model
harness   a unit's inputs for a seed (the compiled model run with an observer), its eager
          reference, the problem's runtime (``regionio`` for a region's buffers)
timing    a candidate's time against Inductor's kernel, each in its own child
pins      autotuned kernels pinned to their captured configs
faults    the judge's ``InfrastructureFault`` and the fault points tests inject
"""
