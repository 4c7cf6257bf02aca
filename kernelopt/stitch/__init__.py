"""Stitching (rule ``stitch``): the chosen candidates spliced into the captured wrapper
(``splice``), fused pairs' call-site edits (``fusion``) and the proof gate 3 checks (``proof``).
Entry points in ``stage``.
"""
