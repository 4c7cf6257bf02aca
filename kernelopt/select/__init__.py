"""Candidate slots and selection per unit (rules ``candidates``, ``select``).  Entry points in
``stage``.
"""
