"""The arguments of a wrapper's ``call``: where each comes from (an input, a parameter or a
tensor capture saved), how to rebuild them for any seed, and which wrapper output holds each
model output.
"""

from __future__ import annotations

from typing import Any


def map_call_args(call_args: list[Any], model: Any, inputs: list[Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Say where each argument of ``call`` comes from: a parameter/buffer, an input, or a saved tensor."""
    import torch

    def key(t: torch.Tensor) -> tuple:
        return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype, t.storage_offset())

    known: dict[tuple, tuple[str, Any]] = {}
    for i, t in enumerate(inputs):
        if isinstance(t, torch.Tensor):
            known.setdefault(key(t), ("input", i))
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        known.setdefault(key(t), ("param", name))
    mapping: list[dict[str, Any]] = []
    saved: dict[str, Any] = {}
    for i, a in enumerate(call_args):
        if isinstance(a, torch.Tensor):
            hit = known.get(key(a))
            if hit:
                mapping.append({"source": hit[0], "ref": hit[1]})
            else:
                name = f"call_arg_{i}"
                saved[name] = a.detach().cpu()
                mapping.append({"source": "saved", "ref": name})
        else:
            mapping.append({"source": "scalar", "value": a if isinstance(a, (int, float, bool)) else repr(a)})
    return mapping, saved


def build_call_args(
    mapping: list[dict[str, Any]], model: Any, inputs: list[Any], saved: dict[str, Any], device: str
) -> list[Any]:
    params = dict(model.named_parameters())
    params.update(dict(model.named_buffers()))
    out: list[Any] = []
    for m in mapping:
        src = m["source"]
        if src == "input":
            out.append(inputs[m["ref"]])
        elif src == "param":
            out.append(params[m["ref"]].detach())
        elif src == "saved":
            out.append(saved[m["ref"]].to(device))
        else:
            out.append(m["value"])
    return out


def match_outputs(model_outs: list[Any], call_outs: list[Any]) -> list[int | None]:
    """For each model output, the index of the wrapper output holding the same values
    (bitwise first; else within 1e-5, for kernels with nondeterministic accumulation; else,
    when exactly one wrapper output has that shape and dtype, that one if within 1e-3: the
    fresh import re-autotunes, and a reduction run with another block size sums in another
    order: a row sum over 16384 elements differs by ~1e-4 between configs)."""
    import torch

    res: list[int | None] = []
    for mo in model_outs:
        cands = [
            j
            for j, co in enumerate(call_outs)
            if isinstance(co, torch.Tensor) and co.shape == mo.shape and co.dtype == mo.dtype
        ]
        hit = next((j for j in cands if torch.equal(call_outs[j].nan_to_num(0.5), mo.nan_to_num(0.5))), None)
        if hit is None:
            hit = next(
                (j for j in cands if torch.allclose(call_outs[j], mo, rtol=1e-5, atol=1e-5, equal_nan=True)), None
            )
        if (
            hit is None
            and len(cands) == 1
            and mo.is_floating_point()
            and torch.allclose(call_outs[cands[0]], mo, rtol=1e-3, atol=1e-3, equal_nan=True)
        ):
            hit = cands[0]
        res.append(hit)
    return res
