"""The cheating corpus on a real GPU unit, and what the hardened gates cost.

usage: python bench/trust_gpu.py WORKDIR OUT.json [--problem level1_1_Softmax] [--parallel 6]
                                 [--before DIR] [--cost-problems p1,p2] [--skip-corpus]
                                 [--candidates]

1. Every candidate of ``tests/fixtures/cheats/softmax.corpus`` and ``classes.corpus`` (written
   for the demo softmax unit's ``launch(in_out_ptr0, in_ptr0, xnumel, r0_numel)``) is adapted to
   the unit's own contract (its output, input and size arguments renamed, the signature put in
   the contract's order) and checked with ``kernelopt check``; the verdicts go next to each
   file's expectation, with what of its attempts reached the host (``tests/redteam.py``).
2. The cheats with a ``BENEATH`` line (the operating-system boundary's and the judge's) again
   with the form not checked: the layer beneath must stop them the same way on the GPU.
3. With ``--candidates``, the wrong candidates of ``tests/fixtures/candidates/softmax.corpus``
   (gate-2 rules: out-of-bounds, wrote-input, unwritten-output, mismatch) and the good one.
4. With ``--before DIR`` (a copy of an earlier ``kernelopt/`` package, e.g. ``git archive``
   of the landed commit), the wall seconds of gates 1-2 (``kernelopt check``) and of gates 3-4
   (``kernelopt stitch-check``) for Inductor's own kernel of each unit of ``--cost-problems``,
   with the earlier code and with this one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO_SIGNATURE = ("in_out_ptr0", "in_ptr0", "xnumel", "r0_numel")
sys.path.insert(0, str(ROOT / "tests"))
import redteam  # noqa: E402

# tests/fixtures/cheats/{softmax,classes}.corpus, written out one file per cheat
CORPORA = [redteam.corpus("cheats/softmax"), redteam.corpus("cheats/classes")]


def expectation(text: str) -> tuple[int | None, str]:
    m = re.match(r'"""EXPECT (?:gate (\d) ([\w-]+)|(pass))', text)
    return (None, "pass") if m.group(3) else (int(m.group(1)), m.group(2))


def adapt(source: str, contract: dict) -> str:
    """The demo candidate with its launch signature and argument names the unit's."""
    tensors = [a for a in contract["args"] if a["kind"] == "tensor"]
    out = next(a["name"] for a in tensors if a.get("access") in ("write", "readwrite"))
    inp = next(a["name"] for a in tensors if a.get("access") == "read")
    scalars = [a["name"] for a in contract["args"] if a["kind"] == "scalar"]
    names = {"in_out_ptr0": out, "in_ptr0": inp, "xnumel": scalars[0], "r0_numel": scalars[1]}
    head, sep, body = source.partition("def launch(")
    body = "def launch(" + body
    body = re.sub(
        r"def launch\([^)]*\)", "def launch(" + ", ".join(a["name"] for a in contract["args"]) + ")", body, count=1
    )
    for old, new in names.items():
        if old != new:
            body = re.sub(rf"\b{old}\b", f"__KO_{new}__", body)
    body = re.sub(r"__KO_(\w+?)__", r"\1", body)
    return head + body


def run(cmd: list[str], env: dict | None = None, cwd: Path = ROOT) -> tuple[float, subprocess.CompletedProcess]:
    """(wall seconds, result) of ``cmd``; ``python -m`` puts ``cwd`` first on sys.path, so the
    package it runs is the one under ``cwd``."""
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env={**os.environ, **(env or {})}, timeout=1200)
    return time.perf_counter() - t0, r


def verdicts(r: subprocess.CompletedProcess) -> list[dict]:
    try:
        return json.loads(r.stdout)["verdicts"]
    except (ValueError, KeyError):
        return [{"gate": 0, "verdict": "no-output", "rule": None, "reason": (r.stderr or "")[-500:]}]


def judged(name: str, gate: int | None, rule: str, vs: list[dict], seconds: float) -> dict:
    """One candidate's row: its first failing verdict against the expectation (``rule`` "pass",
    a rule, or "any" rule of ``gate``), printed as it comes."""
    got = next(((v["gate"], v["verdict"], v.get("rule")) for v in vs if v["verdict"] != "pass"), None)
    ok = got is None if rule == "pass" else got is not None and got[0] == gate and rule in ("any", got[2])
    print(f"{name:<26} expect {gate} {rule:<20} got {got} {'OK' if ok else 'UNEXPECTED'} ({seconds:.0f} s)", flush=True)
    return {
        "candidate": name,
        "expect_gate": gate,
        "expect_rule": rule,
        "got": got,
        "as_expected": ok,
        "seconds": round(seconds, 1),
        "reasons": [v["reason"][:300] for v in vs],
    }


def corpus(workdir: Path, problem: str, parallel: int) -> list[dict]:
    unit_dir = next(p for p in (workdir / problem / "units").iterdir() if (p / "contract.json").exists())
    contract = json.loads((unit_dir / "contract.json").read_text())
    tmp = Path(tempfile.mkdtemp(prefix="kernelopt-corpus-"))
    jobs = []
    for f in sorted(p for c in CORPORA for p in c.glob("*.py")):
        text = f.read_text()
        adapted = tmp / f"{f.parent.name}__{f.name}"
        adapted.write_text(adapt(text, contract))
        jobs.append((f"{f.parent.name}/{f.name}", expectation(text), adapted))

    def one(job):
        name, (gate, rule), path = job
        h = redteam.header(path)
        redteam.clear(h)
        seconds, r = run([sys.executable, "-m", "kernelopt.cli", "check", str(unit_dir), str(path), "--json"])
        vs = verdicts(r)
        return {**judged(name, gate, rule, vs, seconds), "escaped": redteam.escaped(h, workdir, None, wait_s=0.0)}

    with ThreadPoolExecutor(parallel) as pool:
        return list(pool.map(one, jobs))


def wrong_expectation(text: str) -> tuple[int | None, str]:
    """(gate, rule) of a ``tests/fixtures/candidates`` file: ``WRONG (expected: gate N[, rule])``
    (rule ``any`` where none is named), or (None, "pass") for the good ones."""
    m = re.match(r'"""WRONG \(expected: gate (\d)(?:, ([\w-]+))?', text)
    return (int(m.group(1)), m.group(2) or "any") if m else (None, "pass")


def candidates(workdir: Path, problem: str, parallel: int) -> list[dict]:
    """The hand-written wrong (and good) candidates of ``candidates/softmax.corpus`` on the GPU
    unit: the gates' rules that need a device of their own (out-of-bounds through the judge's
    guard bytes in CUDA IPC slots, wrote-input, unwritten-output) checked where they matter."""
    unit_dir = next(p for p in (workdir / problem / "units").iterdir() if (p / "contract.json").exists())
    contract = json.loads((unit_dir / "contract.json").read_text())
    tmp = Path(tempfile.mkdtemp(prefix="kernelopt-cands-"))

    def one(f: Path) -> dict:
        text = f.read_text()
        gate, rule = wrong_expectation(text)
        path = tmp / f.name
        path.write_text(adapt(text, contract))
        seconds, r = run([sys.executable, "-m", "kernelopt.cli", "check", str(unit_dir), str(path), "--json"])
        return judged(f.name, gate, rule, verdicts(r), seconds)

    files = sorted(redteam.corpus("candidates/softmax").glob("*.py"))
    with ThreadPoolExecutor(parallel) as pool:
        return list(pool.map(one, files))


BENEATH = """
import json, sys
from pathlib import Path
from kernelopt.core import runtime
from kernelopt.core.config import validate
from kernelopt.core.records import ProblemPaths
from kernelopt.gates.isolated import check_unit
from kernelopt.runner.harness import ProblemRuntime, UnitHarness
paths, unit = ProblemPaths.of_unit(sys.argv[1])
cfg = validate({"device": "cuda"})
device = runtime.prepare("cuda", paths.cache)
v1, v2 = check_unit(paths, unit, Path(sys.argv[2]), cfg, UnitHarness(paths, unit, ProblemRuntime(paths, device, 0)))
print("VERDICTS " + json.dumps([v.to_dict() for v in (v1, v2)]))
"""


def beneath(workdir: Path, problem: str, parallel: int = 4) -> list[dict]:
    """The cheats with a BENEATH line, the form not checked (each with its own markers and
    ports, so they may run side by side)."""
    unit_dir = next(p for p in (workdir / problem / "units").iterdir() if (p / "contract.json").exists())
    contract = json.loads((unit_dir / "contract.json").read_text())
    tmp = Path(tempfile.mkdtemp(prefix="kernelopt-beneath-"))
    files = [f for f in sorted(CORPORA[1].glob("*.py")) if redteam.header(f).beneath is not None]

    def one(f: Path) -> dict:
        h = redteam.header(f)
        path = tmp / f.name
        path.write_text(adapt(f.read_text(), contract))
        redteam.clear(h)
        listener = redteam.Listener(h.ports)
        seconds, r = run([sys.executable, "-c", BENEATH, str(unit_dir), str(path)])
        listener.close()
        line = next((l for l in r.stdout.splitlines() if l.startswith("VERDICTS ")), None)
        vs = json.loads(line[9:]) if line else [{"gate": 0, "verdict": "no-output", "reason": r.stderr[-500:]}]
        got = next(((v["gate"], v.get("rule")) for v in vs if v["verdict"] != "pass"), (None, "pass"))
        row = {
            "candidate": f.name,
            "class": h.cls,
            "layer": h.layer,
            "expect": list(h.beneath),
            "got": list(got),
            "as_expected": tuple(got) == tuple(h.beneath),
            "escaped": redteam.escaped(h, workdir, listener),
            "seconds": round(seconds, 1),
            "reasons": [v["reason"][:300] for v in vs],
        }
        print(json.dumps(row)[:400], flush=True)
        return row

    with ThreadPoolExecutor(parallel) as pool:
        return list(pool.map(one, files))


def cost(workdir: Path, problems: list[str], before: Path | None) -> list[dict]:
    rows = []
    for problem in problems:
        for unit_dir in sorted((workdir / problem / "units").iterdir()):
            if not (unit_dir / "inductor.py").exists() or unit_dir.name.startswith("fz_"):
                continue
            row = {"problem": problem, "unit": unit_dir.name}
            for label, cwd in (("after", ROOT), ("before", before)):
                if cwd is None:
                    continue
                env = {"PYTHONPATH": f"{cwd}:{os.environ.get('PYTHONPATH', '')}"}
                s12, r = run(
                    [
                        sys.executable,
                        "-m",
                        "kernelopt.cli",
                        "check",
                        str(unit_dir),
                        str(unit_dir / "inductor.py"),
                        "--json",
                    ],
                    env,
                    cwd,
                )
                row[f"{label}_gates12_s"] = round(s12, 1)
                row[f"{label}_gates12"] = [v["verdict"] for v in verdicts(r)]
                out = Path(tempfile.mkdtemp(prefix=f"kernelopt-sc-{label}-"))
                s34, r = run(
                    [
                        sys.executable,
                        "-m",
                        "kernelopt.cli",
                        "stitch-check",
                        str(workdir / problem),
                        f"{unit_dir.name}={unit_dir / 'inductor.py'}",
                        "--json",
                        "--out",
                        str(out),
                    ],
                    env,
                    cwd,
                )
                row[f"{label}_gates34_s"] = round(s34, 1)
                row[f"{label}_gates34"] = [v["verdict"] for v in verdicts(r)]
            print(json.dumps(row), flush=True)
            rows.append(row)
            break  # one unit per problem
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir")
    ap.add_argument("out")
    ap.add_argument("--problem", default="level1_1_Softmax")
    ap.add_argument("--parallel", type=int, default=6)
    ap.add_argument("--before")
    ap.add_argument("--cost-problems", default="")
    ap.add_argument("--skip-corpus", action="store_true")
    ap.add_argument("--candidates", action="store_true", help="also the wrong-candidate corpus")
    a = ap.parse_args()
    wd = Path(a.workdir).resolve()
    out: dict = {}
    if a.candidates:
        out["candidates"] = rows = candidates(wd, a.problem, a.parallel)
        out["candidates_summary"] = {"files": len(rows), "as_expected": sum(r["as_expected"] for r in rows)}
        print(json.dumps(out["candidates_summary"]), flush=True)
    if not a.skip_corpus:
        out["corpus"] = corpus(wd, a.problem, a.parallel)
        out["beneath"] = beneath(wd, a.problem)
        out["corpus_summary"] = {
            "candidates": len(out["corpus"]),
            "as_expected": sum(r["as_expected"] for r in out["corpus"]),
            "cheats_rejected": sum(1 for r in out["corpus"] if r["expect_rule"] != "pass" and r["got"] is not None),
            "honest_passed": sum(1 for r in out["corpus"] if r["expect_rule"] == "pass" and r["got"] is None),
            "escaped": sum(len(r["escaped"]) for r in out["corpus"] + out["beneath"]),
            "beneath": len(out["beneath"]),
            "beneath_as_expected": sum(r["as_expected"] for r in out["beneath"]),
        }
        print(json.dumps(out["corpus_summary"]), flush=True)
    if a.cost_problems:
        out["cost"] = cost(
            wd, [p for p in a.cost_problems.split(",") if p], Path(a.before).resolve() if a.before else None
        )
    Path(a.out).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
