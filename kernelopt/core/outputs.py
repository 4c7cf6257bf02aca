"""One output flattener and one error metric, used by capture, gate 2 and gate 3.

A model may return a tensor, a tuple or list, a dict, a dataclass or a dict-like record such
as HuggingFace's ``ModelOutput`` (an ``OrderedDict`` subclass), nested.  ``flatten`` turns any
of these into leaves, each with its path (``out['logits']``, ``out[1].hidden``), in a fixed
order; tensors are compared numerically, every other leaf (``None``, ints, strings) by value.

``compare`` is the error metric of one tensor against its reference: ``allclose`` element by
element (NaN only where the reference has NaN, the same infinity where it has one), the
number of elements outside the tolerance, and the largest absolute and relative error.  An
element that is non-finite where the reference is finite counts as an infinite error, so an
output left unwritten (NaN) is never reported as a tiny one.

``check_outputs`` compares a whole output against its reference and fails, naming the rule,
when the two differ in structure, count, shape or dtype before any value is looked at: a
``[4, 1]`` output never passes against a ``[4, 4]`` reference by broadcasting.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

STRUCTURE_RULE = "output-structure"


@dataclass
class Leaf:
    path: str
    value: Any  # a tensor, or a plain Python value

    @property
    def is_tensor(self) -> bool:
        import torch

        return isinstance(self.value, torch.Tensor)

    def describe(self) -> dict[str, Any]:
        """What the structure check compares: path, kind, and shape + dtype or the value."""
        if self.is_tensor:
            t = self.value
            return {
                "path": self.path,
                "kind": "tensor",
                "shape": list(t.shape),
                "dtype": str(t.dtype).replace("torch.", ""),
            }
        v = self.value
        return {
            "path": self.path,
            "kind": type(v).__name__,
            "value": v if isinstance(v, (int, float, bool, str, type(None))) else repr(v)[:80],
        }


def flatten(obj: Any, path: str = "out") -> list[Leaf]:
    """Every leaf of a (nested) output, in a fixed order: sequences by index, mappings and
    dataclasses by their own key order."""
    import torch

    if isinstance(obj, torch.Tensor):
        return [Leaf(path, obj)]
    if isinstance(obj, Mapping):  # dict, OrderedDict, ModelOutput
        return [leaf for k, v in obj.items() for leaf in flatten(v, f"{path}[{k!r}]")]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [leaf for f in dataclasses.fields(obj) for leaf in flatten(getattr(obj, f.name), f"{path}.{f.name}")]
    if isinstance(obj, (list, tuple)):
        return [leaf for i, v in enumerate(obj) for leaf in flatten(v, f"{path}[{i}]")]
    return [Leaf(path, obj)]


def tensors(obj: Any) -> list[Any]:
    """The tensor leaves of an output, in ``flatten``'s order."""
    return [leaf.value for leaf in flatten(obj) if leaf.is_tensor]


# A reference with NaN or Inf checks nothing there (``compare`` takes NaN where the reference has
# NaN): capture warns of any in the eager outputs, and past this share of their elements the
# problem's units are unit-not-checkable (gates/stage.py, ``not_checkable``).
NONFINITE_LIMIT = 0.01


def nonfinite(values: list[Any]) -> dict[str, Any] | None:
    """NaN and Inf among the floating elements of the tensors ``values``: how many of each, of
    how many elements, and their share; None when every element is finite."""
    import torch

    counts = {"nan": 0, "inf": 0, "elements": 0}
    for t in values:
        if isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex()):
            for chunk in t.detach().reshape(-1).split(CHUNK):  # a chunk's masks at a time, not the output's
                counts["nan"] += int(torch.isnan(chunk).sum())
                counts["inf"] += int(torch.isinf(chunk).sum())
            counts["elements"] += t.numel()
    bad = counts["nan"] + counts["inf"]
    return {**counts, "share": bad / counts["elements"]} if bad else None


def describe_nonfinite(record: dict[str, Any]) -> str:
    """``nonfinite``'s record in words: ``50 % NaN (512 of 1024 elements)``."""
    kind = "NaN" if not record["inf"] else "Inf" if not record["nan"] else "NaN or Inf"
    return f"{100 * record['share']:.3g} % {kind} ({record['nan'] + record['inf']} of {record['elements']} elements)"


def nonfinite_reason(record: dict[str, Any] | None) -> str | None:
    """Why a reference with ``nonfinite``'s ``record`` cannot check a candidate (more than
    ``NONFINITE_LIMIT`` of its elements NaN or Inf), or None."""
    if not record or record["share"] <= NONFINITE_LIMIT:
        return None
    return (
        f"the eager reference (the model's outputs at capture) is {describe_nonfinite(record)}: "
        f"past {100 * NONFINITE_LIMIT:g} % NaN/Inf it cannot check a candidate"
    )


def structure(obj: Any) -> list[dict[str, Any]]:
    """The output's leaves described (path, kind, shape, dtype or value): what must match."""
    return [leaf.describe() for leaf in flatten(obj)]


@dataclass
class Comparison:
    """One tensor against its reference."""

    name: str
    ok: bool
    max_abs: float
    max_rel: float
    mismatched: int
    numel: int
    note: str = ""
    nonfinite: int = 0  # elements non-finite where the reference is not (an unwritten NaN, an overflow)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


# elements compared at a time (float64 temporaries of 512 MiB each)
CHUNK = 1 << 26


def _chunks(out: Any, ref: Any) -> Iterator[tuple[Any, Any]]:
    """``out`` and ``ref`` (same number of elements) flattened, in pairs of at most CHUNK
    elements on ``out``'s device."""
    out, ref = out.detach(), ref.detach()
    if out.dim() and not (out.is_contiguous() and ref.is_contiguous()):
        # flattening a strided tensor copies it whole: slice it along its longest dimension
        # first, so only one slice at a time is copied
        d = max(range(out.dim()), key=lambda k: out.shape[k])
        n = -(-out.numel() // CHUNK)
        if n > 1:
            for o, r in zip(out.tensor_split(n, dim=d), ref.tensor_split(n, dim=d)):
                yield from _chunks(o.contiguous(), r)
            return
    o_all, r_all = out.reshape(-1), ref.reshape(-1)
    for i in range(0, o_all.numel(), CHUNK):
        yield o_all[i : i + CHUNK], r_all[i : i + CHUNK].to(out.device)


def float64_chunks(out: Any, ref: Any) -> Iterator[tuple[Any, Any]]:
    """``_chunks`` in float64: the temporaries of a 6 GiB output stay ~3 GiB."""
    for o, r in _chunks(out, ref):
        yield o.double(), r.double()


def same_values(now: Any, was: Any) -> bool:
    """``now`` holds exactly ``was``'s values (NaN equal to NaN), compared CHUNK elements at a
    time: no full-size temporaries for a GiB-sized argument."""
    import torch

    if tuple(now.shape) != tuple(was.shape) or now.dtype != was.dtype:
        return False
    for n, w in _chunks(now, was):
        if torch.equal(n, w):
            continue
        if not (n.is_floating_point() or n.is_complex()):
            return False
        if not (torch.equal(n.isnan(), w.isnan()) and torch.equal(n.nan_to_num(0.25), w.nan_to_num(0.25))):
            return False
    return True


def compare(name: str, out: Any, ref: Any, rtol: float, atol: float, *, reshape: bool = False) -> Comparison:
    """``allclose(out, ref, rtol, atol, equal_nan=True)`` element by element, with the numbers.

    Shapes must be equal; ``reshape=True`` (gate 2: a kernel argument may be a view of the
    reference's value) accepts another shape with the same number of elements."""
    import torch

    note = ""
    if tuple(out.shape) != tuple(ref.shape):
        if not reshape or out.numel() != ref.numel():
            return Comparison(
                name,
                False,
                math.inf,
                math.inf,
                out.numel(),
                out.numel(),
                f"shape {list(out.shape)} vs reference {list(ref.shape)}",
            )
        ref = ref.reshape(out.shape)
        note = "reference reshaped to the argument's shape"
    max_abs = max_rel = 0.0
    bad = nonfinite_n = 0
    for o, r in float64_chunks(out, ref):
        close = torch.isclose(o, r, rtol=rtol, atol=atol, equal_nan=True)
        same = (o == r) | (o.isnan() & r.isnan())  # equal infinities and NaN where NaN: no error
        diff = torch.where(same, torch.zeros_like(o), (o - r).abs())
        nonfinite = ~torch.isfinite(diff)
        diff = torch.where(nonfinite, torch.full_like(diff, math.inf), diff)
        rel = diff / torch.where(torch.isfinite(r), r.abs(), torch.ones_like(r)).clamp_min(1e-12)
        max_abs = max(max_abs, float(diff.max()))
        max_rel = max(max_rel, float(rel.max()))
        bad += int((~close).sum())
        nonfinite_n += int(nonfinite.sum())
        del o, r, close, same, diff, nonfinite, rel
    return Comparison(name, bad == 0, max_abs, max_rel, bad, out.numel(), note, nonfinite_n)


def max_abs_error(got: Any, ref: Any) -> float:
    """The largest absolute error over all tensor leaves (infinite when the structures differ)."""
    a, b = flatten(got), flatten(ref)
    if structure_problem([x.describe() for x in a], [y.describe() for y in b]):
        return math.inf
    return max((compare(x.path, x.value, y.value, 0.0, 0.0).max_abs for x, y in zip(a, b) if x.is_tensor), default=0.0)


def structure_problem(got: list[dict[str, Any]], ref: list[dict[str, Any]]) -> str | None:
    """Why two described outputs (``structure``) cannot be compared value by value, or None."""
    if len(got) != len(ref):
        return f"{len(got)} output leaves vs the reference's {len(ref)}"
    for g, r in zip(got, ref):
        if g["path"] != r["path"]:
            return f"output {g['path']} where the reference has {r['path']}"
        if g["kind"] != r["kind"]:
            return f"output {r['path']} is a {g['kind']}, the reference's a {r['kind']}"
        if g["kind"] == "tensor":
            if g["shape"] != r["shape"]:
                return f"output {r['path']} has shape {g['shape']}, the reference {r['shape']}"
            if g["dtype"] != r["dtype"]:
                return f"output {r['path']} is {g['dtype']}, the reference {r['dtype']}"
        elif g.get("value") != r.get("value"):
            return f"output {r['path']} is {g.get('value')!r}, the reference {r.get('value')!r}"
    return None


@dataclass
class OutputCheck:
    """A whole output against its reference: the structure first, then every tensor leaf."""

    ok: bool
    rule: str | None
    reason: str
    leaves: list[Comparison] = field(default_factory=list)

    @property
    def max_abs(self) -> float:
        if self.rule == STRUCTURE_RULE:
            return math.inf
        return max((c.max_abs for c in self.leaves), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "rule": self.rule,
            "reason": self.reason,
            "max_abs": self.max_abs,
            "leaves": [c.to_dict() for c in self.leaves],
        }


def check_leaves(got: list[Leaf], ref: list[Leaf], rtol: float, atol: float) -> OutputCheck:
    """Leaves of an output against the reference's leaves: structure, then values."""
    problem = structure_problem([x.describe() for x in got], [y.describe() for y in ref])
    if problem:
        return OutputCheck(False, STRUCTURE_RULE, problem)
    comps = [compare(y.path, x.value, y.value, rtol, atol) for x, y in zip(got, ref) if x.is_tensor]
    bad = [c for c in comps if not c.ok]
    if bad:
        c = bad[0]
        why = f"{c.name}: {c.mismatched}/{c.numel} elements outside rtol={rtol}, atol={atol} (max abs {c.max_abs:.3g})"
        return OutputCheck(False, "mismatch", why, comps)
    return OutputCheck(True, None, f"{len(comps)} tensor output(s) match", comps)


def check_outputs(got: Any, ref: Any, rtol: float, atol: float) -> OutputCheck:
    """``got`` against ``ref`` (both whole outputs, any nesting): structure, then values."""
    return check_leaves(flatten(got), flatten(ref), rtol, atol)


def leaves_from(described: list[dict[str, Any]], tensor_values: list[Any]) -> list[Leaf]:
    """Leaves of an output known by its ``structure`` (e.g. recorded at capture) whose tensors
    are ``tensor_values`` in order (e.g. the flat outputs of a compiled wrapper).  A count that
    does not match shows as an extra or missing leaf, which the structure check names."""
    it = iter(tensor_values)
    out = []
    for d in described:
        if d["kind"] == "tensor":
            v = next(it, None)
            out.append(Leaf(d["path"], v) if v is not None else Leaf(d["path"] + " (missing)", None))
        else:
            out.append(Leaf(d["path"], d.get("value")))
    out += [Leaf(f"extra output {i}", v) for i, v in enumerate(it)]
    return out
