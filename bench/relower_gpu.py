"""Inductor re-lowering (kernelopt/search/synth/relower.py) on units of a run, at their sizes:
for each unit and variant, the candidate or why not, its max abs difference from Inductor's own
kernel (inductor.py) on the same random inputs, and both kernels' times (CUDA events, median).

    python3 bench/relower_gpu.py OUT.json UNIT_DIR [UNIT_DIR ...]

UNIT_DIR: <workdir>/<problem>/units/<unit> with contract.json, reference.py, inductor.py.
On the CPU (no CUDA) the kernels run under the Triton interpreter and no time is taken.

    python3 bench/relower_gpu.py --team OUT.json UNIT_DIR [UNIT_DIR ...]

the same rows for the team variant of synth/rows.py (a long row split over a team of programs,
read once) at each (columns a program holds, num_warps) of TEAM_GRID, instead of the re-lowerings.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make_args(contract, device, seed):
    import torch

    g = torch.Generator(device="cpu").manual_seed(seed)
    args = []
    for a in contract["args"]:
        if a["kind"] != "tensor":
            args.append(a.get("value"))
            continue
        dtype = getattr(torch, a["dtype"])
        t = torch.empty_strided(a["shape"], a["stride"], dtype=dtype, device=device)
        if a.get("access") == "write":
            t.fill_(float("nan") if dtype.is_floating_point else 0)
        elif dtype.is_floating_point:
            t.copy_(torch.randn(a["shape"], generator=g).to(dtype))
        else:
            t.copy_(torch.randint(0, 2, a["shape"], generator=g).to(dtype))
        args.append(t)
    return args


def outputs(contract, args):
    return {a["name"]: t for a, t in zip(contract["args"], args) if a["kind"] == "tensor" and a.get("access") != "read"}


def diff(a, b) -> float:
    """Max abs difference; a NaN in both at the same place counts 0, in one only inf."""
    a, b = a.float(), b.float()
    both = a.isnan() & b.isnan()
    d = (a - b).abs().masked_fill(both, 0.0).nan_to_num(float("inf"))
    return float(d.max()) if d.numel() else 0.0


def time_ms(fn, device, reps=50):
    import torch

    if device != "cuda":
        return None
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


TEAM_GRID = [(c, w) for c in (4096, 8192, 16384) for w in (4, 8, 16)]


def variants(udir: Path, contract: dict, team: bool):
    """(name, a function making the candidate's source) per variant to time."""
    from kernelopt.core.records import Contract
    from kernelopt.search.synth.relower import VARIANTS, relower
    from kernelopt.search.synth.rows import synthesize_rows

    if not team:
        c = Contract.load(udir / "contract.json")
        return [(vname, lambda v=v: relower(c, udir, 2 * v + 1, v)) for v, (vname, _) in enumerate(VARIANTS)]
    c, ref = Contract.load(udir / "contract.json"), (udir / "reference.py").read_text()

    def team_src(cols: int, warps: int) -> str:
        return synthesize_rows(c, ref, 0, team=cols).replace("NUM_WARPS = 4", f"NUM_WARPS = {warps}", 1)

    return [(f"team {cols} cols, {w} warps", lambda cols=cols, w=w: team_src(cols, w)) for cols, w in TEAM_GRID]


def main() -> None:
    import torch

    from kernelopt.core import runtime
    from kernelopt.search.synth.ops import CannotSynthesize

    team = "--team" in sys.argv
    argv = [a for a in sys.argv[1:] if a != "--team"]
    out_path, units = Path(argv[0]), [Path(p) for p in argv[1:]]
    device = runtime.prepare("cuda" if torch.cuda.is_available() else "cpu", Path(tempfile.mkdtemp()) / "cache")
    rows = []
    for udir in units:
        contract = json.loads((udir / "contract.json").read_text())
        base = load(udir / "inductor.py", f"inductor_{udir.name}")
        ref_args = make_args(contract, device, 0)
        pristine = [t.clone() if isinstance(t, torch.Tensor) else t for t in ref_args]
        base.launch(*ref_args)
        want = {k: v.clone() for k, v in outputs(contract, ref_args).items()}
        base_ms = time_ms(lambda: base.launch(*ref_args), device)
        for v, (vname, make) in enumerate(variants(udir, contract, team)):
            row = {"problem": udir.parent.parent.name, "unit": udir.name, "variant": vname, "inductor_ms": base_ms}
            t0 = time.perf_counter()
            try:
                src = make()
            except CannotSynthesize as e:
                row.update(candidate=False, why=str(e)[:300], relower_s=round(time.perf_counter() - t0, 2))
                rows.append(row)
                print(json.dumps(row), flush=True)
                continue
            row["relower_s"] = round(time.perf_counter() - t0, 2)
            path = Path(tempfile.mkdtemp()) / f"relowered_{v}.py"
            path.write_text(src)
            try:
                cand = load(path, f"relowered_{udir.name}_{v}")
                args = [t.clone() if isinstance(t, torch.Tensor) else t for t in pristine]
                cand.launch(*args)
                got = outputs(contract, args)
                err = max(diff(got[k], want[k]) for k in want)
                ms = time_ms(lambda: cand.launch(*args), device)
                row.update(candidate=True, max_abs_diff=err, candidate_ms=ms)
                if ms and base_ms:
                    row["time_ratio"] = round(ms / base_ms, 4)
            except Exception as e:  # noqa: BLE001 - recorded per row
                row.update(candidate=True, error=f"{type(e).__name__}: {str(e)[:300]}")
            rows.append(row)
            print(json.dumps(row), flush=True)
            save(out_path, rows, torch, device)  # each row kept as it comes: a timeout loses none
            args = got = None  # free the candidate's tensors before the next
        ref_args = pristine = want = None
        if device == "cuda":
            torch.cuda.empty_cache()
    save(out_path, rows, torch, device)


def save(out_path: Path, rows: list, torch, device: str) -> None:
    env = {"torch": torch.__version__, "device": torch.cuda.get_device_name() if device == "cuda" else "cpu"}
    out_path.write_text(json.dumps({"environment": env, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
