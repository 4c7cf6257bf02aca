"""The heuristic synthesizers: independent Triton implementations generated from a unit's eager
reference (``generate``), for pointwise chains, last-dimension row reductions and fused pairs.
"""
