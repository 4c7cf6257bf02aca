"""The launch contract of a unit: each argument's shape, stride, dtype and access (read, write,
readwrite), the buffer it is in the wrapper, scalars, grid and the config Inductor chose; the
aten ops the unit implements.  Built from the capture record and the classify checkpoint.
"""

from __future__ import annotations

from typing import Any


def access_of(name: str, written: bool) -> str:
    if name.startswith("in_out_ptr"):
        return "readwrite"
    if name.startswith("out_ptr"):
        return "write"
    if name.startswith("in_ptr"):
        return "readwrite" if written else "read"
    return "write" if written else "read"


def build_contract(capture: dict[str, Any], dispatch: dict[str, Any], unit: str) -> dict[str, Any]:
    u = next((x for x in dispatch["units"] if x["id"] == unit), None)
    if u is None:
        raise KeyError(f"unit {unit} is not in dispatch.json")
    grec = capture["graphs"][u["graph"]]
    kernel = u["kernel"]
    kinfo = grec["kernels"][kernel]
    launches = [l for l in (grec.get("standalone") or {}).get("launches", []) if l["kernel"] == kernel]
    if not launches:
        raise RuntimeError(
            f"kernel {kernel} was never launched in the standalone run "
            f"({(grec.get('standalone') or {}).get('reason', '')})"
        )
    first = launches[0]
    site = (kinfo.get("sites") or [{}])[0]
    buffer_of: dict[str, str] = {}
    for outer, inner in {**site.get("inputs", {}), **site.get("outputs", {})}.items():
        buffer_of[inner] = outer
    for inner, bufs in site.get("inplace", {}).items():
        buffer_of[inner] = bufs[-1]
    ref = kinfo.get("reference") or {}
    args = []
    for i, a in enumerate(first["args"]):
        spec = dict(a)
        if a["kind"] == "tensor":
            spec["access"] = (
                "write" if a["name"] in ref.get("write_only", []) else access_of(a["name"], i in first["written"])
            )
            spec["buffer"] = buffer_of.get(a["name"])
        args.append(spec)
    return {
        "unit": unit,
        "problem": capture["problem"],
        "graph": u["graph"],
        "kernel": kernel,
        "heuristic": kinfo.get("heuristic"),
        "template": kinfo.get("heuristic") == "template",
        "user": bool(kinfo.get("user")),  # the user's own kernel (isolate/user.py)
        "device": capture["device"],
        "args": args,
        "launch_config": first.get("config"),
        "grid": first.get("grid"),
        "grid_expr": first.get("grid_expr"),
        "launches": len(launches),
        "launch_shapes_identical": all(l["args"] == first["args"] for l in launches),
        "aten_ops": ref.get("aten_ops", []),
        "reference": {k: v for k, v in ref.items() if k != "file"},
        "fx_origins": site.get("origins", []),
        "share": u.get("share"),
    }
