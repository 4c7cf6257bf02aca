"""The heuristic synthesizer: an independent Triton implementation of a unit, generated from
its eager reference (the ATen ops of the post-grad graph), not from Inductor's kernel.

Pointwise chains (``pointwise``), reductions over one dimension mixed with pointwise ops
(``rows``: softmax, log-softmax, layernorm, RMSNorm, sum/mean/amax/amin, ...), max pools with
the pointwise chains around them and a global pool after them (``pool``), and a fused
neighbour pair (``fused``: the consumer with the producer inlined).  Candidates are written in
``inductor.py`` form (module-level CONFIG / NUM_WARPS / NUM_STAGES), so the search can
transform them.  Anything else is answered with ``CannotSynthesize`` and the reason.
"""

from __future__ import annotations

from pathlib import Path

from ...core.records import Contract, unit_reference
from .argreduce import is_argreduce, synthesize_argreduce
from .fullreduce import is_full_reduction, is_norm_then_mean, synthesize_full_reduction, synthesize_norm_mean
from .ops import REDUCTIONS, CannotSynthesize
from .pointwise import TransposingCopy, refuse_transposing_chain, synthesize_pointwise
from .pool import is_pool, synthesize_pool
from .rows import DIFFERENT_DIMS, synthesize_chain, synthesize_rows
from .scan import is_scan, synthesize_scan


def generate(contract: Contract, reference_src: str, attempt: int) -> str:
    """A pointwise kernel for pointwise chains, a row kernel for last-dimension reductions
    (``rows``), a pool kernel for max pools (``pool``), a block scan for prefix sums (``scan``),
    an index reduction for argmax/argmin (``argreduce``), a two-kernel sum or mean over every element
    (``fullreduce``: a loss); CannotSynthesize with the most relevant
    reason otherwise."""
    if is_pool(reference_src):
        return synthesize_pool(contract, reference_src, attempt)
    if is_scan(reference_src):
        return synthesize_scan(contract, reference_src, attempt)
    if is_argreduce(reference_src):
        return synthesize_argreduce(contract, reference_src, attempt)
    if is_norm_then_mean(reference_src):
        try:
            return synthesize_norm_mean(contract, reference_src, attempt)
        except CannotSynthesize:
            pass  # a var_mean and a mean of another kind (a standardisation's): the row synthesizer's
    if is_full_reduction(reference_src):
        try:
            return synthesize_full_reduction(contract, reference_src, attempt)
        except CannotSynthesize:
            pass  # e.g. a global mean used by every element (a standardisation): the row synthesizer's
    try:
        return synthesize_pointwise(contract, reference_src, attempt)
    except TransposingCopy:
        raise  # the row synthesizer would read or write it strided as well
    except CannotSynthesize as pointwise:
        reduces = any(
            f"aten.{op}." in reference_src or f"prims.{op}." in reference_src
            for op in REDUCTIONS | {"prepare_softmax_online"}
        )
        if not reduces:
            refuse_transposing_chain(contract, reference_src)
        try:
            return synthesize_rows(contract, reference_src, attempt)
        except CannotSynthesize as rows:
            if str(rows).startswith(DIFFERENT_DIMS):  # a norm's statistics, then a reduction over other dims
                try:
                    return synthesize_chain(contract, reference_src, attempt)
                except CannotSynthesize as chain:
                    raise CannotSynthesize(f"{rows}; as a chain of two row kernels: {chain}") from None
            raise CannotSynthesize(str(rows) if reduces else f"{pointwise} (row synthesizer: {rows})") from None


def source_of(attempt: int, contract: Contract | None = None) -> tuple[str, int]:
    """The fixed order the heuristic backend's attempts draw from: the hand-written generator
    (``generate``) on even attempts, Inductor re-lowering the reference (``relower``) on odd
    ones (a split region, capture/regions.py, the other way round: its reference spans kernels that
    Inductor lowers again, the hand-written generator rarely does; a fusible region is formed so
    that one hand-written kernel may replace its members: hand-written first); the second value is the
    attempt's index within its source.  A unit Helion generated
    draws every attempt from Helion's other configs (``helion``); another user kernel has no
    source (``user-kernel``: nothing to synthesize from)."""
    if contract and contract.helion:
        return "helion", attempt
    if contract and contract.rewrite:
        return "rewrite", attempt
    if contract and contract.user:
        return "user-kernel", attempt
    split = contract and contract.region and (contract.region.get("kind") or "split") == "split"
    first, second = ("inductor", "handwritten") if split else ("handwritten", "inductor")
    return (first, attempt // 2) if attempt % 2 == 0 else (second, attempt // 2)


def _handwritten(contract: Contract, reference_src: str, index: int) -> tuple[str, str]:
    """The hand-written generator on the reference simplified (``simplify.py``: reductions over
    size-1 dims and cancelling ops dropped), else on the reference as it is."""
    from .simplify import simplify

    simpler, applied = simplify(reference_src)
    if applied:
        try:
            src = generate(contract, simpler, index)
        except CannotSynthesize:
            pass
        else:
            kinds = sorted({a.split(":")[0] for a in applied})
            note = "# the reference simplified first: " + "; ".join(applied) + "\n"
            return note + src, "handwritten, simplified: " + ", ".join(kinds)
    return generate(contract, reference_src, index), "handwritten"


def synthesize_attempt(contract: Contract, unit_dir: Path, attempt: int) -> tuple[str, str]:
    """(candidate source, the source it came from as slot.json records it) for ``attempt``."""
    kind, index = source_of(attempt, contract)
    if kind == "rewrite" and contract.rewrite["name"] == "library-pool":  # the pooling templates
        return synthesize_pool(contract, unit_reference(unit_dir).read_text(), index), "rewrite:library-pool"
    if kind == "rewrite":  # a graph-level unit: its rewrite's generator, every attempt
        from .rewrites import synthesize_rewrite

        return synthesize_rewrite(contract, index), f"rewrite:{contract.rewrite['name']}"
    if kind == "helion":  # every attempt: the Helion kernel under another config
        from .helion import synthesize_helion

        source, name = synthesize_helion(contract, Path(unit_dir), index)
        return source, f"helion:{name}"
    if kind == "user-kernel":
        raise CannotSynthesize(
            "the unit is the user's own kernel: its reference is that kernel, not ATen ops, so there is "
            "nothing to write an independent implementation from (the search rewrites the user's kernel)"
        )
    if kind == "handwritten":
        return _handwritten(contract, unit_reference(unit_dir).read_text(), index)
    from .relower import OwnKernels, relower, variants

    name = variants(contract)[index % len(variants(contract))][0]
    try:
        return relower(contract, Path(unit_dir), attempt, index), f"inductor:{name}"
    except OwnKernels as e:
        if attempt != 0:
            raise CannotSynthesize(f"Inductor re-lowering ({name}): {e}") from None
        # a split region's first attempt: Inductor's kernels again are no candidate, the
        # hand-written one kernel for the region is (the next attempt may write it again)
        try:
            src, how = _handwritten(contract, unit_reference(unit_dir).read_text(), index)
        except CannotSynthesize as e2:
            raise CannotSynthesize(f"Inductor re-lowering ({name}): {e}; hand-written: {e2}") from None
        return src, f"{how} (Inductor's re-lowering, {name}, gave its own kernels)"
    except CannotSynthesize as e:
        raise CannotSynthesize(f"Inductor re-lowering ({name}): {e}") from None
