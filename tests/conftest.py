import atexit
import functools
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from kernelopt.core.records import Contract

ROOT = Path(__file__).resolve().parents[1]

# hermetic: agent.backend=auto must mean the heuristic backend here, never a paid API call made
# because the developer's shell has a key (the LLM tests set their own fake key and server)
for _var in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
    os.environ.pop(_var, None)


@functools.cache
def unpacked(archive: str) -> Path:
    """``tests/fixtures/<archive>`` (a .tar.gz of files cut from a run) unpacked once per process
    into a temporary directory, removed when the process exits: the directory."""
    top = Path(tempfile.mkdtemp(prefix="kernelopt-fixture-"))
    atexit.register(shutil.rmtree, top, ignore_errors=True)
    with tarfile.open(ROOT / "tests" / "fixtures" / archive) as t:
        t.extractall(top, filter="data")
    return top


def tool(name: str) -> str:
    """The console script ``name`` of this interpreter's environment (found even when the
    environment is not activated), else the one on PATH; a failed test when neither exists."""
    import shutil

    here = Path(sys.executable).parent / name
    exe = str(here) if here.exists() else shutil.which(name)
    if exe is None:
        pytest.fail(f"{name} is not installed (pip install -e .[test])")
    return exe


def snakemake(
    *args: str, cwd: Path = ROOT, timeout: int = 1800, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run the real snakemake CLI of this environment in a subprocess (``env``: variables set
    for it besides this process's)."""
    env = {**os.environ, **(env or {})}
    env["PYTHONUNBUFFERED"] = "1"
    r = subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if r.returncode != 0:  # tests show the output's tail: put what failed, and its logs, there
        r.stderr += failed_jobs(r.stdout + r.stderr, cwd)
    return r


def failed_jobs(out: str, cwd: Path, per_log: int = 2500) -> str:
    """Snakemake's "Error in rule" blocks of ``out`` with the tail of each failed job's log: what a
    failed pipeline test should print last (the output's tail is otherwise the jobs that finished
    after the failure)."""
    import re

    blocks = re.findall(r"^Error in rule .*?(?=^\S|\Z)", out, flags=re.M | re.S)
    parts = ["", "=== failed jobs ==="]
    for b in blocks:
        parts.append(b.rstrip())
        m = re.search(r"^\s+log: (\S+)", b, flags=re.M)
        log = Path(m.group(1)) if m else None
        if log is not None and not log.is_absolute():
            log = cwd / log
        if log is not None and log.is_file():
            parts.append(f"--- {log} (tail) ---\n" + log.read_text(errors="replace")[-per_log:])
    if len(parts) == 2:
        parts.append("(no 'Error in rule' in the output)")
    return "\n".join(parts) + "\n"


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory):
    """The whole pipeline on every demo problem, CPU mode, with one hand-written candidate and
    Inductor's kernels stitched back (so gates 3-4 run for every optimizable problem).
    Shared by test_gates.py and test_fusion.py (one run per session)."""
    if os.environ.get("KERNELOPT_DEMO_RUN"):  # a finished run of the same config, while iterating on tests
        return Path(os.environ["KERNELOPT_DEMO_RUN"])
    wd = tmp_path_factory.mktemp("demo_run")
    r = snakemake("--cores", "2", "--config", *demo_run_config(wd), timeout=3000)
    assert r.returncode == 0, (r.stdout + r.stderr)[-6000:]
    return wd


def load_candidate(src: str, name: str):
    """A generated candidate's source, written to a file and imported (CPU mode installed first,
    so that its kernels run under the Triton interpreter)."""
    import importlib.util

    from kernelopt.core import cpu_mode

    cpu_mode.install()
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"kernelopt_{os.getpid()}_{name}.py"  # xdist workers apart
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rewrite_unit_contract(rec: dict) -> "Contract":
    """The launch contract (CPU) of the one graph-level unit ``capture/graphunits`` found
    (``rec``: its record), as the isolate stage writes it."""
    from kernelopt.core.records import Capture, DispatchUnit
    from kernelopt.isolate.graphunits import rewrite_contract

    (u,) = rec["units"]
    unit = DispatchUnit(id=u["id"], rewrite={**u, "member_units": []})
    return rewrite_contract(Capture(device="cpu", problem="p"), {}, unit)


def demo_run_config(wd, gates: str = "replace_with_inductor: true") -> list[str]:
    """The --config of ``demo_run`` (every demo problem, CPU mode, no search), with one stitch
    retry slot, not the default two (the slot is what tests check; in CPU mode every retry passes
    through, and each costs three jobs per problem)."""
    return [
        "problems=problems/demo",
        "device=cpu",
        f"workdir={wd}",
        "candidates=tests/fixtures/candidates_demo",
        f"gates={{{gates}, retries: 1}}",
        "search={iterations: 0}",
    ]


def job_counts(out: str) -> dict[str, int]:
    """Snakemake's "Job stats" table (a dry run's plan) as {rule: jobs}."""
    counts, inside = {}, False
    for line in out.splitlines():
        if line.startswith("Job stats"):
            inside, counts = True, {}
            continue
        parts = line.split()
        if inside and len(parts) == 2 and parts[1].isdigit() and parts[0] != "total":
            counts[parts[0]] = int(parts[1])
        elif inside and parts and parts[0] == "total":
            inside = False
    return counts


# Fixtures that run the pipeline end to end (minutes each): a test that takes one is slow,
# whatever its own marks say, so the fast lane (``-m "not slow"``) never starts a pipeline.
PIPELINE_FIXTURES = {
    "demo_run",
    "structured_run",
    "llm_run",
    "user_run",
    "helion_run",
    "rewrites_run",
    "library_pool_run",
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Pipeline fixtures make a test slow.  For pytest-xdist (``--dist loadgroup``, pyproject's
    addopts), a test runs in the worker of its pipeline fixture, if it takes one (each run is
    made once, by one worker), else in the worker of its file (a file's module- and
    session-scoped fixtures, e.g. test_slurm's cluster, are made once too)."""
    for item in items:
        pipelines = sorted(PIPELINE_FIXTURES & set(getattr(item, "fixturenames", ())))
        if pipelines:
            item.add_marker(pytest.mark.slow)
        if getattr(config.option, "loadgroup", False) and "@" not in item.nodeid:  # an xdist worker
            _group(item, pipelines[0] if pipelines else item.path.name)


def _group(item, name: str) -> None:
    """What ``xdist_group`` marks do: xdist's scheduler groups tests by a "@<group>" suffix of
    their node id, which xdist 3.8 writes into ``item._nodeid``; pytest 9.2 keeps the id in
    ``item._id`` (a NodeId), so the marks no longer group anything and the suffix is set here."""
    nodeid = f"{item.nodeid}@{name}"
    if hasattr(item, "_id"):
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(nodeid)
    else:
        item._nodeid = nodeid


def sm90_kernels(src: str, contract: "Contract") -> list[tuple[str, str, str]]:
    """Every Triton kernel a candidate module ``src`` launches, compiled for an H100/H200 (sm_90)
    by Triton's own compiler, which needs no GPU: (name, TTGIR, PTX) per launch.  In a process of
    its own (CPU mode's patches of ``triton.language`` stay out of it).  ``launch`` runs on meta
    tensors of the contract's shapes (nothing allocated: a unit of KernelBench size costs
    nothing); each ``kernel[grid](...)`` is recorded instead of run, then compiled with the
    arguments it was given (pointers 16-byte aligned, as a GPU's allocator gives them)."""
    import json

    work = Path(tempfile.mkdtemp(prefix="kernelopt-sm90-"))
    (work / "candidate.py").write_text(src)
    (work / "args.json").write_text(json.dumps([dict(a) for a in contract.args]))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    code = f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); import conftest; conftest._sm90_compile()"
    r = subprocess.run([sys.executable, "-c", code, str(work)], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads((work / "kernels.json").read_text())
    shutil.rmtree(work, ignore_errors=True)
    return [tuple(k) for k in out]


def _sm90_compile() -> None:
    """``sm90_kernels``'s child: the directory in argv[1] holds candidate.py and args.json."""
    import importlib.util
    import json

    import torch
    import triton
    import triton.runtime.jit as jit
    from triton.backends.compiler import GPUTarget

    work = Path(sys.argv[1])
    dtypes = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64"}
    dtypes.update({torch.int64: "i64", torch.int32: "i32", torch.int8: "i8", torch.uint8: "u8", torch.bool: "i1"})
    launches = []
    jit.JITFunction.__getitem__ = lambda fn, grid: lambda *a, **kw: launches.append((fn, a, kw))
    spec = importlib.util.spec_from_file_location("candidate", work / "candidate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.launch(
        *[
            torch.empty_strided(a["shape"], a["stride"], dtype=getattr(torch, a["dtype"]), device="meta")
            if a["kind"] == "tensor"
            else a["value"]
            for a in json.loads((work / "args.json").read_text())
        ]
    )
    out = []
    for fn, a, kw in launches:
        bound = {**dict(zip(fn.arg_names, a)), **{k: v for k, v in kw.items() if k in fn.arg_names}}
        sig, consts, attrs = {}, {}, {}
        for i, p in enumerate(fn.params):
            v = bound.get(p.name, p.default)
            if p.is_constexpr or v is None:
                sig[p.name], consts[(i,)] = "constexpr", v
            elif isinstance(v, torch.Tensor):
                sig[p.name], attrs[(i,)] = "*" + dtypes[v.dtype], [["tt.divisibility", 16]]
            elif isinstance(v, float):
                sig[p.name] = "fp32"
            else:
                sig[p.name] = "i64" if abs(v) >= 2**31 else "i32"
        k = triton.compile(
            triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs),
            target=GPUTarget("cuda", 90, 32),
            options={"num_warps": kw.get("num_warps", 4), "num_stages": kw.get("num_stages", 3)},
        )
        out.append((fn.__name__, k.asm["ttgir"], k.asm["ptx"]))
    (work / "kernels.json").write_text(json.dumps(out))
