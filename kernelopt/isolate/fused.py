"""Neighbour fusion, the isolate half: a fused unit's launch contract (C's arguments, then P's
other inputs ``p_*``), its baseline (Inductor's two kernels launched one after the other, as
the wrapper launches them) and its composed eager reference (P's reference, then C's).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..classify.fusion import NotFusible
from ..core.records import (
    REFERENCE_CONSTANTS_FILE,
    REFERENCE_FILE,
    Contract,
    unit_reference,
    unit_reference_constants,
)
from .inductor import launcher_lines, strip_heuristics_decorator
from .reference import reference_constants


def fused_contract(pc: Contract, cc: Contract, pair: dict[str, Any], unit: str) -> Contract:
    """The fused unit's launch contract: C's arguments, then P's other inputs (``p_<name>``)."""
    args = []
    for a in cc.args:
        spec = dict(a)
        if a["name"] == pair["consumer_param"]:
            spec["access"] = "readwrite"  # scratch: the Inductor pair writes it, nobody reads it after the unit
            spec["note"] = (
                (
                    f"the intermediate {pair['buffer']}: holds {pair['producer']}'s input here "
                    "(the Inductor pair rewrites it "
                    "in place, the fused kernel only reads it); never read after the unit"
                )
                if pair["producer_inplace"]
                else f"the intermediate {pair['buffer']}: written by the Inductor pair, ignored by the fused kernel"
            )
        args.append(spec)
    pargs = {a["name"]: a for a in pc.args}
    for e in pair["extra"]:
        args.append({**pargs[e["producer_param"]], "name": e["fused_param"], "access": "read"})
    taken = ("args", "unit", "reference", "aten_ops", "fx_origins", "share")
    return Contract.from_dict(
        {
            **{k: v for k, v in cc.as_dict().items() if k not in taken},
            "unit": unit,
            "args": args,
            "aten_ops": list(dict.fromkeys(pc.aten_ops + cc.aten_ops)),
            "fx_origins": list(dict.fromkeys(pc.fx_origins + cc.fx_origins)),
            "reference": {"composed": True, "producer": pc.reference, "consumer": cc.reference},
            "fused": {**pair, "producer_contract": pc.as_dict(), "consumer_contract": cc.as_dict()},
        }
    )


def render_pair(contract: Contract, p_src: str, c_src: str) -> str:
    """The fused unit's baseline: Inductor's two kernels launched one after the other, as the
    wrapper launches them.  CONFIG / NUM_WARPS / NUM_STAGES are the consumer's."""
    f = contract.fused
    pc, cc = (Contract.from_dict(f[k]) for k in ("producer_contract", "consumer_contract"))
    pbound = {a["name"]: (a["name"] if a["kind"] == "tensor" else repr(a.get("value"))) for a in pc.args}
    for e in f["extra"]:
        pbound[e["producer_param"]] = e["fused_param"]
    pbound[f["producer_param"]] = f["consumer_param"]
    cparams = [a["name"] for a in cc.args]
    return "\n".join(
        [
            f'"""Inductor\'s kernels for the fused unit {contract.unit}: {f["producer"]} then {f["consumer"]},',
            "launched one after the other with the configs Inductor chose, as the wrapper launches them.",
            f"This is the baseline the fused candidates are timed against.  launch(*args) takes {f['consumer']}'s",
            f"arguments followed by {f['producer']}'s other inputs (p_*).",
            '"""',
            strip_heuristics_decorator(p_src, f["producer"]).rstrip(),
            "",
            strip_heuristics_decorator(c_src, f["consumer"]).rstrip(),
            "",
            "",
            *launcher_lines(f["producer"], pc, "P_", "P_"),
            "",
            "",
            *launcher_lines(f["consumer"], cc, "", "C_"),
            "",
            "",
            f"def launch({', '.join(a['name'] for a in contract.args)}):",
            f"    P_launch({', '.join(str(pbound[a['name']]) for a in pc.args)})",
            f"    C_launch({', '.join(cparams)})",
            "",
        ]
    )


REFERENCE = '''"""Composed eager reference of the fused unit {unit}: {producer}'s reference (producer/),
then {consumer}'s (consumer/), with the producer's output {buffer} passed as the consumer's
{consumer_param}.  Inputs are the fused unit's argument names.
"""
import importlib.util as _ilu
import os as _os

LEVEL = {level!r}  # "graph": the producer's reference reads the compiled graph's inputs
INPUTS = {inputs!r}
OUTPUTS = {outputs!r}
_PRODUCER_ARG = {producer_arg!r}  # producer argument name -> fused argument name
_BUFFER = ({producer_param!r}, {consumer_param!r})


def _load(sub):
    path = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), sub, {reference_file!r})
    spec = _ilu.spec_from_file_location("kernelopt_fused_ref_" + sub, path)
    mod = _ilu.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def reference(**args):
    producer, consumer = _load("producer"), _load("consumer")
    produced = producer.reference(**{{n: args[_PRODUCER_ARG[n]] for n in producer.INPUTS}})
    ins = {{n: (produced[_BUFFER[0]] if n == _BUFFER[1] else args[n]) for n in consumer.INPUTS}}
    return consumer.reference(**ins)
'''


def write_reference(udir: Path, contract: Contract, p_ref: Path, c_ref: Path) -> None:
    f = contract.fused
    for sub, ref in (("producer", p_ref), ("consumer", c_ref)):
        d = udir / sub
        d.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ref, unit_reference(d))
        consts = ref.with_name(ref.name.replace(REFERENCE_FILE, REFERENCE_CONSTANTS_FILE))
        if consts.exists():
            shutil.copyfile(consts, unit_reference_constants(d))
    pr, cr = reference_constants(p_ref.read_text()), reference_constants(c_ref.read_text())
    if cr.get("LEVEL") != "kernel":
        raise NotFusible(f"{c_ref.name} is a graph-level reference; composing it is not supported")
    level = pr.get("LEVEL")  # graph: the producer's reference starts from the graph inputs
    p_inputs = pr.get("INPUTS")
    if f["producer_param"] not in (pr.get("OUTPUTS") or []):
        raise NotFusible(f"the producer's reference does not output {f['producer_param']}")
    pmap = {e["producer_param"]: e["fused_param"] for e in f["extra"]}
    pmap[f["producer_param"]] = f["consumer_param"]
    if level == "graph":
        pmap = {n: n for n in p_inputs}
    inputs = list(
        dict.fromkeys([pmap[n] for n in p_inputs] + [n for n in cr.get("INPUTS") if n != f["consumer_param"]])
    )
    unit_reference(udir).write_text(
        REFERENCE.format(
            reference_file=REFERENCE_FILE,
            level=level,
            unit=contract.unit,
            producer=f["producer"],
            consumer=f["consumer"],
            buffer=f["buffer"],
            consumer_param=f["consumer_param"],
            producer_param=f["producer_param"],
            inputs=inputs,
            outputs=cr.get("OUTPUTS"),
            producer_arg=pmap,
        )
    )
