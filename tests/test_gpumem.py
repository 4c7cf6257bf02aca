"""GPU memory as a scheduled resource (kernelopt/core/gpumem.py), on CPU: the ledger with
fake GPUs (KERNELOPT_GPUS), the needs derived from capture's record and from the problem's
shapes, the claim a job makes through run_stage, and Snakemake's retry of a failed GPU job on
a GPU of its own."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import ROOT, snakemake

from kernelopt.core import gpumem, runtime
from kernelopt.core.records import Capture, Contract, ProblemPaths
from kernelopt.core.stagelog import run_stage

HOLDER = textwrap.dedent(
    """
    import json, os, sys, time
    from kernelopt.core import gpumem
    need, alone, hold, out = int(sys.argv[1]), sys.argv[2] == "1", float(sys.argv[3]), sys.argv[4]
    with gpumem.claim(need, alone=alone, what=out, poll_s=0.05) as gpu:
        t0 = time.time()
        time.sleep(hold)
        rec = {"gpu": gpu, "visible": os.environ.get("CUDA_VISIBLE_DEVICES"), "start": t0, "end": time.time()}
    open(out, "w").write(json.dumps(rec))
    """
)


@pytest.fixture
def fake_gpus(tmp_path, monkeypatch):
    """Two processes of a test see the same ledger (a lock dir of the test's own)."""
    monkeypatch.setenv("KERNELOPT_LOCK_DIR", str(tmp_path / "locks"))
    monkeypatch.setenv("KERNELOPT_GPU_RESERVE_MB", "0")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)

    def use(spec: str) -> None:
        monkeypatch.setenv("KERNELOPT_GPUS", spec)

    return use


def _holders(tmp_path: Path, jobs: list[tuple[int, bool, float]], stagger: float = 0.3) -> list[dict]:
    procs, outs = [], []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for i, (need, alone, hold) in enumerate(jobs):
        out = tmp_path / f"holder{i}.json"
        outs.append(out)
        argv = [sys.executable, "-c", HOLDER, str(need), "1" if alone else "0", str(hold), str(out)]
        procs.append(subprocess.Popen(argv, env=env))
        time.sleep(stagger)  # in this order
    for p in procs:
        assert p.wait(timeout=60) == 0
    return [json.loads(o.read_text()) for o in outs]


def test_jobs_whose_needs_do_not_fit_together_run_one_after_the_other(tmp_path, fake_gpus):
    fake_gpus("0:10000")  # capacity 9,500 MiB (5 % kept free)
    a, b = _holders(tmp_path, [(6000, False, 1.5), (6000, False, 0.2)])
    assert b["start"] >= a["end"] - 0.05, "the second claim started while the first held its memory"
    assert a["visible"] == b["visible"] == "0"


def test_jobs_that_fit_share_a_gpu(tmp_path, fake_gpus):
    fake_gpus("0:10000")
    a, b = _holders(tmp_path, [(4000, False, 1.5), (4000, False, 0.2)])
    assert b["start"] < a["end"], "two claims that fit together were serialised"


def test_two_gpus_each_job_runs_on_the_gpu_it_claimed(tmp_path, fake_gpus):
    fake_gpus("0:10000,1:10000")
    a, b = _holders(tmp_path, [(6000, False, 1.5), (6000, False, 0.2)])
    assert b["start"] < a["end"], "the second GPU was left idle"
    assert {a["gpu"], b["gpu"]} == {"0", "1"}
    assert a["visible"] == a["gpu"] and b["visible"] == b["gpu"], "CUDA_VISIBLE_DEVICES is not the claimed GPU"


def test_a_job_alone_waits_for_an_empty_gpu_and_keeps_it(tmp_path, fake_gpus):
    fake_gpus("0:10000")
    small, alone, later = _holders(tmp_path, [(1000, False, 1.2), (10, True, 1.2), (10, False, 0.1)])
    assert alone["start"] >= small["end"] - 0.05, "the retry alone started next to another job"
    assert later["start"] >= alone["end"] - 0.05, "a job started next to a retry that runs alone"


def test_a_claim_waiting_for_a_gpu_does_not_hold_up_jobs_that_fit_on_another(tmp_path, fake_gpus):
    """Backfill: a retry waiting for a whole GPU reserves one; a small job asked later starts
    at once on the other GPU instead of queueing behind it (on the H200 pair, small jobs waited
    up to 192 s behind a big one), and the retry still gets its GPU alone when it empties."""
    fake_gpus("0:10000,1:10000")
    a, b, alone, small = _holders(
        tmp_path, [(6000, False, 2.5), (6000, False, 4.0), (10, True, 0.5), (1000, False, 0.2)]
    )
    assert {a["gpu"], b["gpu"]} == {"0", "1"}
    assert small["start"] < a["end"] - 0.5, "the small job queued behind the claim waiting for a whole GPU"
    assert small["gpu"] != alone["gpu"]
    assert alone["gpu"] == a["gpu"] and alone["start"] >= a["end"] - 0.05, "the retry did not get the GPU that emptied"
    assert alone["start"] < b["end"], "the retry waited for both GPUs to empty"


def test_a_need_larger_than_the_gpu_runs_alone_instead_of_never(tmp_path, fake_gpus):
    fake_gpus("0:10000")
    (big,) = _holders(tmp_path, [(50000, False, 0.1)])
    assert big["gpu"] == "0"


def test_claims_of_dead_processes_hold_nothing(tmp_path, fake_gpus):
    fake_gpus("0:10000")
    ledger, _ = gpumem._ledger()
    ledger.write_text(json.dumps([{"pid": 2**22 + 7, "started": "1", "gpu": "0", "mb": 9000, "alone": False}]))
    t0 = time.perf_counter()
    with gpumem.claim(6000, poll_s=0.05) as gpu:
        assert gpu == "0"
        assert [e["pid"] for e in json.loads(ledger.read_text())] == [os.getpid()]
    assert time.perf_counter() - t0 < 5
    assert json.loads(ledger.read_text()) == [], "the claim outlived its block"


def test_no_gpu_no_claim(monkeypatch):
    monkeypatch.setenv("KERNELOPT_GPUS", "")
    monkeypatch.setattr(gpumem, "devices", lambda: {})
    with gpumem.claim(1000) as gpu:
        assert gpu is None


def test_needs_come_from_the_capture_record_and_the_units_tensors():
    mem = {"job_peak_mb": 10000.0}
    assert gpumem.need_mb("capture", mem, None) == 10000 + 1 * gpumem.CONTEXT_MB
    g3 = int(10000 * gpumem.FACTORS["gate3"])
    assert gpumem.need_mb("gate3", mem, None) == g3 + 2 * gpumem.CONTEXT_MB  # eager + stitched + FP64
    iso = int(10000 * gpumem.FACTORS["isolate"])
    assert gpumem.need_mb("isolate", mem, None) == iso + 1 * gpumem.CONTEXT_MB
    assert gpumem.need_mb("gate12", mem, None) == 15000 + 2 * gpumem.CONTEXT_MB  # the unit not yet isolated
    # once isolated, a unit's gates 1-2 need a multiple of the unit's own tensors
    contract = Contract.from_dict(
        {
            "args": [
                {"kind": "tensor", "shape": [1024, 1024], "dtype": "float32"},
                {"kind": "tensor", "shape": [1024, 1024], "dtype": "float32"},
                {"kind": "scalar", "value": 1048576},
            ]
        }
    )
    assert gpumem.unit_mb(contract) == 8.0
    # a region's member kernels' arguments count too (its inputs are drawn through them)
    member = {"args": contract.args[:1] + [{"kind": "tensor", "shape": [16], "dtype": "float32"}]}
    region = replace(contract, region={"member_contracts": [member, member]})
    assert gpumem.unit_mb(region) == 8.0 + 2 * (4.0 + 64 / 2**20)
    # ... plus a share of the problem's (the judging process rebuilds the problem)
    f, judge = gpumem.UNIT_FACTORS["gate12"], int(10000 * gpumem.UNIT_PROBLEM_SHARES["gate12"])
    assert gpumem.need_mb("gate12", mem, None, unit_mb=8.0) == int(8 * f + judge) + 2 * gpumem.CONTEXT_MB
    assert (
        gpumem.need_mb("gate12", mem, None, factor=2.0, unit_mb=8.0) == int((8 * f + judge) * 2) + 2 * gpumem.CONTEXT_MB
    )
    assert gpumem.need_mb("profile", mem, None, unit_mb=8.0) == int(8 * 3.0 + 1500) + 2 * gpumem.CONTEXT_MB
    assert gpumem.need_mb("gate12", None, None, unit_mb=8.0) == int(8 * f) + 2 * gpumem.CONTEXT_MB
    g4 = int(10000 * gpumem.FACTORS["gate4"])
    assert gpumem.need_mb("gate4", mem, None, unit_mb=8.0) == g4 + 2 * gpumem.CONTEXT_MB  # not a unit rule
    # a GiB-sized problem: its own tensors decide when the capture's peak under-counts them (the
    # capture holds one copy of the inputs while isolate and the gates hold several)
    big = {"job_peak_mb": 24000.0, "inputs_mb": 6144.0, "params_mb": 0.0, "outputs_mb": 6144.0}
    assert gpumem.problem_mb(big) == 12288.0 and gpumem.problem_mb(mem) == 0.0
    for rule in ("isolate", "gate3", "gate4"):
        want = max(24000 * gpumem.FACTORS[rule], 12288 * gpumem.PROBLEM_FACTORS[rule])
        assert (
            gpumem.need_mb(rule, big, None) == int(math.ceil(want)) + gpumem.PROCESSES.get(rule, 2) * gpumem.CONTEXT_MB
        )
    assert gpumem.need_mb("isolate", big, None) > 24000 * gpumem.FACTORS["isolate"] + gpumem.CONTEXT_MB
    # a small one with large intermediates: the capture's peak decides
    small = {"job_peak_mb": 5000.0, "inputs_mb": 128.0, "params_mb": 0.0, "outputs_mb": 256.0}
    assert gpumem.need_mb("isolate", small, None) == int(5000 * gpumem.FACTORS["isolate"]) + gpumem.CONTEXT_MB
    # a unit's gates 1-2: the problem's tensors are rebuilt beside the unit's
    assert (
        gpumem.need_mb("gate12", big, None, unit_mb=12288.0)
        == int(math.ceil(12288 * f + 24000 * gpumem.UNIT_PROBLEM_SHARES["gate12"])) + 2 * gpumem.CONTEXT_MB
    )
    # the measured 6 GiB ReLU (a 12 GiB unit, capture's peak 33.2 GB): its gates 1-2 job used
    # 54.2 GB (judge 35.8, child 18.4); the need covers it with a margin, not the 90.5 GB of before
    relu = {"job_peak_mb": 33150.0, "inputs_mb": 6144.0, "params_mb": 0.0, "outputs_mb": 6144.0}
    assert 54212 * 1.1 < gpumem.need_mb("gate12", relu, None, unit_mb=12288.0) < 54212 * 1.3
    # before capture: the shape estimate; with neither: unknown (the caller's default)
    assert gpumem.need_mb("capture", None, 5000.0) == 5000 + gpumem.CONTEXT_MB
    assert gpumem.need_mb("capture", None, None) == 0


def _problem(tmp_path: Path, body: str, name: str = "p.py") -> Path:
    p = tmp_path / name
    p.write_text("import torch\nimport torch.nn as nn\n\n" + textwrap.dedent(body))
    return p


def test_a_capture_need_is_estimated_from_shapes_without_allocating(tmp_path):
    # KernelBench's softmax size: 4096 x 393216 fp32 = 6 GiB in, 6 GiB out; on meta, instantly
    p = _problem(
        tmp_path,
        """
        class Model(nn.Module):
            def forward(self, x):
                return torch.softmax(x, dim=1)

        def get_inputs():
            return [torch.randn(4096, 393216)]

        def get_init_inputs():
            return []
        """,
    )
    t0 = time.perf_counter()
    est = gpumem.estimate_mb(p)
    assert time.perf_counter() - t0 < 20
    gib = 1024
    # two copies of the inputs, three of the outputs, no intermediates (softmax is one operator)
    assert est == pytest.approx(2.5 * 6 * gib + 3 * 6 * gib + 3072), est
    # a convolution's weights count too
    q = _problem(
        tmp_path,
        """
        class Model(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3, padding=1)
            def forward(self, x):
                return torch.relu(self.conv(x))

        def get_inputs():
            return [torch.randn(64, 256, 128, 128)]

        def get_init_inputs():
            return [256]
        """,
        "q.py",
    )
    est_q = gpumem.estimate_mb(q)
    # 1 GiB in, 1 GiB out, the weights, and the convolution's 1 GiB output that the ReLU reads:
    # the intermediate counts (views and in-place results would not)
    weights = (256 * 256 * 9 + 256) * 4 / 2**20
    assert est_q == pytest.approx(2.5 * (gib + weights) + 3 * gib + 2 * gib + 3072), est_q


def test_a_problem_that_cannot_run_on_meta_gets_the_default(tmp_path):
    p = _problem(
        tmp_path,
        """
        class Model(nn.Module):
            def forward(self, x):
                return x * float(x.sum().item())

        def get_inputs():
            return [torch.randn(8, 8)]

        def get_init_inputs():
            return []
        """,
    )
    assert gpumem.estimate_mb(p) is None
    cfg = {"need_factor": 1.0, "default_mb": 12345}
    assert gpumem.rule_need_mb("capture", tmp_path / "none.json", p, cfg) == 12345
    rec = tmp_path / "capture.json"
    Capture(memory={"job_peak_mb": 1000.0}).save(rec)
    g4 = int(1000 * gpumem.FACTORS["gate4"])
    assert gpumem.rule_need_mb("gate4", rec, p, cfg) == g4 + 2 * gpumem.CONTEXT_MB
    unit = tmp_path / "contract.json"
    arg = {"kind": "tensor", "shape": [256, 1024], "dtype": "float32"}
    Contract.from_dict({"unit": "u", "problem": "p", "graph": 0, "kernel": "k", "device": "cuda", "args": [arg]}).save(
        unit
    )
    g12 = 1 * gpumem.UNIT_FACTORS["gate12"] + 1000 * gpumem.UNIT_PROBLEM_SHARES["gate12"]  # a 1 MiB unit
    assert gpumem.rule_need_mb("gate12", rec, p, cfg, unit) == int(math.ceil(g12)) + 2 * gpumem.CONTEXT_MB


def test_run_stage_claims_the_jobs_need_and_records_what_it_used(tmp_path, fake_gpus, monkeypatch):
    fake_gpus("0:10000,1:20000")
    seen = {}

    def body():
        seen["before"] = os.environ.get("CUDA_VISIBLE_DEVICES"), gpumem.CLAIM.get("gpu")
        runtime.prepare("cuda", None)  # a stage's first device work: the claim is made here
        seen["visible"] = os.environ.get("CUDA_VISIBLE_DEVICES")
        seen["ledger"] = json.loads(gpumem._ledger()[0].read_text())

    monkeypatch.setattr(runtime, "resolve_device", lambda device: "cuda")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)  # left by the in-process claims above
    gpumem.CLAIM.clear()
    job = SimpleNamespace(resources={"gpu": 1, "gpu_mb": 3000, "gpu_alone": 0}, wildcards=["p", "u"])
    log = tmp_path / "job.log"
    try:
        run_stage("gate12", log, body, job=job)
        rec = json.loads(Path(f"{log}.gpu.json").read_text())["memory"]
    finally:
        os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        gpumem.CLAIM.clear()
    assert seen["before"] == (None, None), "claimed before the job prepared the device"
    assert seen["visible"] == "1", "not the GPU with the most room"
    assert [(e["gpu"], e["mb"]) for e in seen["ledger"]] == [("1", 3000)]
    assert rec["gpu"] == "1" and rec["declared_mb"] == 3000 and rec["alone"] is False
    assert json.loads(gpumem._ledger()[0].read_text()) == [], "the claim outlived the job"


def test_a_job_with_no_device_work_claims_nothing(tmp_path, fake_gpus, monkeypatch):
    """Gate 3 of an attempt that stitched nothing, gate 4 after a failed gate 3, an empty slot:
    the job never prepares the device, so it claims no memory and waits for nobody, even when
    its need could not be met now (the whole GPU is claimed by another process)."""
    fake_gpus("0:10000")
    path, lock = gpumem._ledger()
    other = {"pid": os.getppid(), "started": gpumem._started(os.getppid()), "what": "a big job", "alone": True}
    with gpumem._locked(lock):
        gpumem._write(path, [{**other, "state": "held", "gpu": "0", "mb": 10000, "since": 0.0}])
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    gpumem.CLAIM.clear()
    job = SimpleNamespace(resources={"gpu": 1, "gpu_mb": 9000, "gpu_alone": 0}, wildcards=["p"])
    log = tmp_path / "job.log"
    t0 = time.perf_counter()
    assert run_stage("gate3", log, lambda: "skipped", job=job) == "skipped"
    assert time.perf_counter() - t0 < 5, "the job waited for GPU memory it never used"
    assert os.environ.get("CUDA_VISIBLE_DEVICES") is None
    rec_path = Path(f"{log}.gpu.json")
    assert not rec_path.exists() or not json.loads(rec_path.read_text()).get("memory")
    assert [e["what"] for e in json.loads(path.read_text())] == ["a big job"]


@pytest.mark.slow
def test_a_failed_gpu_job_is_retried_on_a_gpu_of_its_own(tmp_path):
    """The capture job fails as a machine fault would (KERNELOPT_FAULT=jobfault:capture); Snakemake
    retries it (gpu.retries) with gpu_alone=1, and the retry claims a whole (fake) GPU and passes."""
    wd = tmp_path / "wd"
    env_before = dict(os.environ)
    os.environ.update(
        KERNELOPT_FAULT="jobfault:capture",
        KERNELOPT_GPUS="0:4000",
        KERNELOPT_LOCK_DIR=str(tmp_path / "locks"),
    )
    try:
        r = snakemake(
            "--cores",
            "2",
            f"{wd}/level1_8_ReLU/capture/capture.json",
            "--config",
            "problems=[problems/demo/level1/8_ReLU.py]",
            "device=cpu",
            f"workdir={wd}",
            timeout=900,
        )
    finally:
        os.environ.clear()
        os.environ.update(env_before)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    # the failed attempt's log survives the retry (Snakemake deletes the log of a failed job)
    (failed,) = (wd / "logs/capture").glob("level1_8_ReLU.log.failed-*")
    assert "injected by KERNELOPT_FAULT=jobfault:capture" in failed.read_text()
    assert "injected by KERNELOPT_FAULT=jobfault:capture" in out
    log = (wd / "logs/capture/level1_8_ReLU.log").read_text()
    assert "a retry after a failed attempt, on a GPU of its own" in log
    rec = json.loads((wd / "logs/capture/level1_8_ReLU.log.gpu.json").read_text())["memory"]
    assert rec["alone"] is True and rec["gpu"] == "0"
    assert json.loads((wd / "level1_8_ReLU/capture/capture.json").read_text())["problem"] == "level1_8_ReLU"


def test_capture_out_of_memory_is_a_job_fault_then_an_infrastructure_error(tmp_path, monkeypatch):
    """An out-of-memory error in capture is never the problem's verdict: in a job that shares its
    GPU it fails the job (Snakemake retries it alone); alone, it is recorded as `infrastructure:`."""
    from kernelopt.capture import stage as capture
    from kernelopt.core.errors import JobFault
    from kernelopt.core.records import ProblemPaths

    paths = ProblemPaths(tmp_path, "level1_1_Big")

    def oom(*a, **k):
        raise RuntimeError("CUDA out of memory. Tried to allocate 12.00 GiB")

    monkeypatch.setattr(capture, "run", oom)
    monkeypatch.setattr(gpumem, "CLAIM", {"gpu": "0", "alone": False})
    with pytest.raises(JobFault, match="retried on a GPU of its own"):
        capture.run_or_record_failure(tmp_path / "p.py", paths, {})
    assert not paths.capture_record.exists()
    monkeypatch.setattr(gpumem, "CLAIM", {"gpu": "0", "alone": True})
    rec = capture.run_or_record_failure(tmp_path / "p.py", paths, {})
    assert rec["failed"] and rec["error"].startswith("infrastructure: out of GPU memory even on a GPU of its own")
    assert json.loads(paths.capture_record.read_text())["error"] == rec["error"]

    def bug(*a, **k):
        raise ValueError("a bug of ours, not a fault")

    monkeypatch.setattr(capture, "run", bug)
    with pytest.raises(ValueError):
        capture.run_or_record_failure(tmp_path / "p.py", paths, {})


def test_a_gate_fault_that_persists_fails_a_shared_job_and_is_recorded_alone(monkeypatch):
    from kernelopt.core.errors import JobFault
    from kernelopt.gates.faults import retry_alone

    def check():
        raise RuntimeError("CUDA out of memory. Tried to allocate 1.00 GiB")  # in the judging process

    recorded = []
    monkeypatch.setattr(gpumem, "CLAIM", {"gpu": "0", "alone": False})
    with pytest.raises(JobFault):
        retry_alone("cpu", "gates 1-2 p/u", check, recorded.append)
    monkeypatch.setattr(gpumem, "CLAIM", {"gpu": "0", "alone": True})
    retry_alone("cpu", "gates 1-2 p/u", check, recorded.append)
    assert recorded and "out of memory" in recorded[0]

    def bug():
        raise KeyError("not a fault")

    with pytest.raises(KeyError):
        retry_alone("cpu", "gates 1-2 p/u", bug, recorded.append)


def _stream_candidate(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "cand.py"
    p.write_text(textwrap.dedent(body))
    return p


def test_gate_calls_are_streamed_one_at_a_time_to_one_child(tmp_path):
    """Gates 1-2 hand the sandboxed child one call at a time (sandbox.Stream): call k+1 is
    written only after call k's result was judged, all in one child process, so that only one
    call's tensors exist at a time (what lets units of GiB-sized tensors fit on a GPU)."""
    import torch

    from kernelopt.runner import sandbox

    cand = _stream_candidate(
        tmp_path,
        """
        SEEN = [0]  # calls this process ran: one process for all calls counts 1, 2, 3, ...
        def launch(x, out):
            SEEN[0] += 1
            out.copy_(x * 2)
            out[0] = float(SEEN[0])
            if x[1].item() == 3.0:
                raise ValueError("call 3 fails")
        """,
    )
    events = []

    class Calls(sandbox.Stream):
        calls = 5

        def send(self, k, slots):
            events.append(("send", k))
            return {
                "args": [slots.put(0, torch.full((4,), float(k))), slots.put(1, torch.zeros(4))],
                "interleave": False,
            }

        def receive(self, k, result, sent):
            events.append(("receive", k))
            out = result["args"][1]
            counts.append(int(out[0]))
            assert result["error"] is not None or torch.equal(out[1:], torch.full((3,), 2.0 * k))
            return True

    counts: list[int] = []
    job = {"kind": "unit", "device": "cpu", "candidate": "cand.py", "point": "gate12"}
    outcome = sandbox.run(job, 120, stream=Calls(), files={"cand.py": cand})
    assert outcome.status == "ok", outcome.detail + outcome.log_tail
    assert events == [(e, k) for k in range(4) for e in ("send", "receive")], events  # stopped at the error
    assert counts == [1, 2, 3, 4], "the calls did not all run in one process"
    calls = outcome.reply["calls"]
    assert [c["error"] is None for c in calls] == [True, True, True, False]
    assert "call 3 fails" in calls[3]["error"]["message"]


@pytest.mark.slow
def test_the_judges_own_time_is_not_charged_to_a_streamed_candidate(tmp_path):
    """Gates 1-2 of a GiB-sized unit spend minutes drawing inputs and judging between calls
    while the child waits (on the H200, Inductor's own kernels then 'timed out' in gate 2): the
    child's budget runs only while it has a call; a candidate that hangs in a call is still
    killed at its budget."""
    import time

    import torch

    from kernelopt.runner import sandbox

    cand = _stream_candidate(
        tmp_path,
        """
        def launch(x, out):
            out.copy_(x)
            while x[0].item() == 9.0:  # call 2 hangs
                pass
        """,
    )

    class SlowJudge(sandbox.Stream):
        def __init__(self, calls, hang_at=None):
            self.calls, self.hang_at = calls, hang_at

        def send(self, k, slots):
            v = 9.0 if k == self.hang_at else float(k)
            return {"args": [torch.full((4,), v), torch.zeros(4)], "interleave": False}

        def receive(self, k, result, sent):
            time.sleep(9)  # the judge's own work, longer than the child's budget in all
            return True

    job = {"kind": "unit", "device": "cpu", "candidate": "cand.py", "point": "gate12"}
    files = {"cand.py": cand}
    t0 = time.perf_counter()
    outcome = sandbox.run(job, 15, stream=SlowJudge(2), files=files)
    assert time.perf_counter() - t0 > 18  # the parent's 2 x 9 s alone passed the 15 s budget
    assert outcome.status == "ok", outcome.detail + outcome.log_tail
    assert outcome.seconds < 15
    hung = sandbox.run(job, 15, stream=SlowJudge(3, hang_at=2), files=files)
    assert hung.status == "timeout", hung.detail + hung.log_tail


def test_a_stream_hands_the_child_the_same_slots_every_call(tmp_path):
    """One slot per argument position, refilled for every call (CUDA IPC kept every call's fresh
    tensors allocated in the judge until the job ended: 115.5 GiB after six calls of a 6 GiB
    unit on the H200); each call's values and each call's results are its own, and the judge
    reads them through views it laid out itself."""
    import torch

    from kernelopt.runner import sandbox

    cand = _stream_candidate(
        tmp_path,
        """
        def launch(x, out):
            out.copy_(x * 2)
        """,
    )

    class Calls(sandbox.Stream):
        calls = 4

        def __init__(self):
            self.sent, self.got = [], []

        def send(self, k, slots):
            a = slots.put(0, torch.arange(6.0).reshape(2, 3).t() + k)  # a transposed view keeps its layout
            args = [slots.put(1, torch.full((4,), float(k))), slots.put(2, torch.full((4,), -1.0))]
            assert a.stride() == (1, 3)
            self.sent.append([t.data_ptr() for t in args])
            return {"args": args, "interleave": False}

        def receive(self, k, result, sent):
            self.got.append(result["args"][1].tolist())
            return True

    calls = Calls()
    job = {"kind": "unit", "device": "cpu", "candidate": "cand.py", "point": "gate12"}
    outcome = sandbox.run(job, 120, stream=calls, files={"cand.py": cand})
    assert outcome.status == "ok", outcome.detail + outcome.log_tail
    assert all(ptrs == calls.sent[0] for ptrs in calls.sent), "a call got new slots"
    assert calls.got == [[2.0 * k] * 4 for k in range(4)]


TOL = {"rtol": 1e-3, "atol": 1e-3}


def test_unwritten_elements_are_counted_a_chunk_at_a_time(monkeypatch):
    """Counting with one sum() of a bool tensor takes an int64 temporary of the whole output (12
    GiB for a 6 GiB output: the judge ran out of memory on it); counted per chunk, the same."""
    import torch

    from kernelopt.gates import isolated

    monkeypatch.setattr(isolated, "CHUNK", 3)
    h = SimpleNamespace(contract=Contract(args=[{"name": "x", "access": "read"}, {"name": "out", "access": "write"}]))
    ref = torch.arange(10.0)
    out = ref.clone()
    out[[1, 4, 8]] = float("nan")
    assert isolated._unwritten(out, [ref, torch.full((10,), float("nan"))], h, "out", ref, "nan", TOL) == 3
    was = torch.full((10,), 123.0)
    out = ref.clone()
    out[[0, 5, 6, 9]] = 123.0
    assert isolated._unwritten(out, [ref, was], h, "out", ref, "random", TOL) == 4
    # an element that holds the poison's value but is right is not unwritten
    ref2 = ref.clone()
    ref2[0] = 123.0
    assert isolated._unwritten(out, [ref2, was], h, "out", ref2, "random", TOL) == 3


@pytest.mark.parametrize("forked", ["0", "1"])
def test_a_child_dies_with_its_killed_job(tmp_path, forked):
    """Run 9 on the H200: jobs killed by a timeout (SIGKILL, no ``finally``) left their
    sandboxed children, in sessions of their own, waiting for their next streamed call and
    holding GPU memory into the next run.  A child now ends with the job that started it,
    started as a new interpreter or forked from a zygote (then the zygote, its launcher, the
    namespace's init and the child all end)."""
    import signal
    import time

    cand = _stream_candidate(tmp_path, "def launch(x, out):\n    out.copy_(x)\n")
    marker = tmp_path / "judging"
    script = tmp_path / "job.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, time, torch
            from kernelopt.runner import sandbox

            class Judge(sandbox.Stream):
                calls = 3
                def send(self, k, slots):
                    return {{"args": [torch.full((4,), float(k)), torch.zeros(4)], "interleave": False}}
                def receive(self, k, result, sent):
                    open({str(marker)!r}, "w").write(str(os.getpid()))
                    time.sleep(600)  # judging call 0 when the job is killed
                    return True

            job = {{"kind": "unit", "device": "cpu", "candidate": "cand.py", "point": "gate12"}}
            sandbox.run(job, 600, stream=Judge(), files={{"cand.py": {str(cand)!r}}})
            """
        )
    )
    env = {**os.environ, "KERNELOPT_FORK_CHILDREN": forked}
    proc = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, env=env)
    try:
        deadline = time.time() + 240
        while not marker.exists() and time.time() < deadline:
            time.sleep(0.5)
        assert marker.exists(), "the child never answered call 0"

        def children(pid: int) -> list[int]:
            """The jailed child among the job's descendants (launcher, the namespace's init, the child)."""
            parent, cmds = {}, {}
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    fields = stat.read_text().rsplit(")", 1)[1].split()
                    cmds[int(stat.parent.name)] = (stat.parent / "cmdline").read_bytes()
                except OSError:
                    continue
                parent[int(stat.parent.name)] = int(fields[1])

            def descends(p: int) -> bool:
                while p in parent and p > 1:
                    p = parent[p]
                    if p == pid:
                        return True
                return False

            return [p for p, cmd in cmds.items() if b"-m\x00kernelopt.runner.child" in cmd and descends(p)]

        kids = children(proc.pid)
        # a new interpreter: the child alone has the command; forked: the zygote, and the
        # launcher, init and child it forked (no exec: its command line)
        assert len(kids) == (1 if forked == "0" else 4), kids
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()

        def running(k: int) -> bool:
            try:
                return Path(f"/proc/{k}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
            except OSError:
                return False  # gone

        t0 = time.time()
        while any(running(k) for k in kids) and time.time() - t0 < 15:
            time.sleep(0.2)  # a zombie is dead, waiting to be reaped
        alive = [k for k in kids if running(k)]
        for k in alive:
            os.kill(k, signal.SIGKILL)
        assert not alive, "the child outlived its killed job"
    finally:
        if proc.poll() is None:
            proc.kill()


def test_out_of_memory_in_capture_s_standalone_check_is_a_fault_not_an_unstitchable_graph(monkeypatch):
    """The standalone check (the saved wrapper run with the real arguments, the write probe's
    second launch on copies, the site profile) recorded any exception as the graph being not
    stitchable: at 6 GiB inputs an out-of-memory error there would have become the problem's
    verdict.  It now reaches capture's own handling (a job fault, retried on a GPU of its own);
    other errors are still recorded with the reason."""
    from types import SimpleNamespace

    from kernelopt.capture import stage as capture

    cap = SimpleNamespace(constants={})

    def check(error):
        def load(*a, **k):
            raise error

        monkeypatch.setattr(capture.outputcode, "load", load)
        return capture._standalone_check(None, None, cap, [], {}, capture._Compiled(None, [], None, "cpu", {}, 1))

    with pytest.raises(RuntimeError, match="out of memory"):
        check(RuntimeError("CUDA out of memory. Tried to allocate 6.00 GiB"))
    rec = check(ValueError("the wrapper cannot run standalone"))
    assert rec["ok"] is False and rec["reason"] == "ValueError: the wrapper cannot run standalone"


def test_the_scheduler_never_imports_a_problem_file(tmp_path):
    """The shape estimate the scheduler asks for while building the DAG runs the problem in a
    helper process: a problem file is trusted code, and its import-time effects (and prints)
    stay out of the scheduler's process."""
    import os

    marker = tmp_path / "imported_by"
    p = _problem(
        tmp_path,
        f"""
        import os
        open({str(marker)!r}, "a").write(str(os.getpid()) + "\\n")
        print("{{'not': 'an answer'}}")

        class Model(nn.Module):
            def forward(self, x):
                return torch.relu(x)

        def get_inputs():
            return [torch.randn(1024, 1024)]

        def get_init_inputs():
            return []
        """,
    )
    cfg = {"need_factor": 1.0, "default_mb": 12345}
    need = gpumem.rule_need_mb("capture", tmp_path / "none.json", p, cfg)
    pids = marker.read_text().split()
    assert pids and str(os.getpid()) not in pids
    assert need != cfg["default_mb"]  # the helper's estimate came back (its answer, not the print)


def test_gates_1_2_learn_the_judges_share_from_the_units_isolate_job(tmp_path):
    """On the H200 the dilated max pools' gates-1-2 judge held 20 GB where the capture's peak
    (8 GB) said 10.5: the isolate job of the same unit had measured 20.1 GB, as it rebuilds the
    problem and draws the unit's input sets the way the judge does.  Once that record exists,
    the need covers it; before, or without a peak in it, the need is as it was."""
    from kernelopt.core.records import JobGpu, job_gpu_record, unit_job_log

    mem = {"job_peak_mb": 8052.0, "inputs_mb": 1024.0, "params_mb": 0.0, "outputs_mb": 1016.0}
    before = gpumem.need_mb("gate12", mem, None, unit_mb=2040.0)
    after = gpumem.need_mb("gate12", mem, None, unit_mb=2040.0, isolate_mb=20106.0)
    child, judge = 2040.0 * gpumem.UNIT_FACTORS["gate12"], 20106.0 * gpumem.UNIT_JUDGE_FACTORS["gate12"]
    assert after == int(math.ceil(child + judge)) + 2 * gpumem.CONTEXT_MB and after > 23106 > before
    # a small isolate peak never lowers the need; rules without a judge factor ignore it
    assert gpumem.need_mb("gate12", mem, None, unit_mb=2040.0, isolate_mb=10.0) == before
    assert gpumem.need_mb("profile", mem, None, unit_mb=2040.0, isolate_mb=20106.0) == gpumem.need_mb(
        "profile", mem, None, unit_mb=2040.0
    )

    # through the files the scheduler reads: capture record, contract, the isolate job's record
    wd, problem, unit = tmp_path, "p", "k0"
    paths = ProblemPaths(wd, problem)
    paths.capture_record.parent.mkdir(parents=True)
    Capture.from_dict({"problem": problem, "memory": mem}).save(paths.capture_record)
    paths.contract(unit).parent.mkdir(parents=True)
    big = {"kind": "tensor", "shape": [1024, 1024, 255], "dtype": "float32"}
    Contract.from_dict(
        {"unit": unit, "problem": problem, "graph": 0, "kernel": unit, "device": "cuda", "args": [big, big]}
    ).save(paths.contract(unit))
    log = unit_job_log(wd, "isolate", problem, unit)
    cfg = {"need_factor": 1.0, "default_mb": 4096}
    need = gpumem.rule_need_mb("gate12", paths.capture_record, "p.py", cfg, paths.contract(unit), log)
    assert need == gpumem.need_mb("gate12", mem, None, unit_mb=2040.0)
    log.parent.mkdir(parents=True)
    JobGpu(memory={"declared_mb": 9882, "job_peak_mb": 20106.0}).save(job_gpu_record(log))
    need = gpumem.rule_need_mb("gate12", paths.capture_record, "p.py", cfg, paths.contract(unit), log)
    assert need == after
