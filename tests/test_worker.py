"""Warm workers (``kernelopt/runner/worker.py``): the GPU stages' jobs as thin clients of a
long-lived worker per problem, with sandboxed children started ahead (``runner/sandbox.py``,
``keep_warm``).  CPU mode runs the same code path the GPU does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import ROOT, snakemake

from kernelopt.runner import worker

TWO = "problems=[problems/demo/level1/1_Softmax.py, problems/demo/level1/8_ReLU.py]"
SEARCH = "search={iterations: 1, beam_width: 1, synthesis_attempts: 1, retries: 0}"
GATES = "gates={user_candidates: 0, retries: 0}"  # no stitch retry slots: three jobs per problem fewer


def _pipeline(wd: Path, *extra: str, env: dict | None = None, problems: str = TWO) -> subprocess.CompletedProcess:
    old = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        return snakemake("--cores", "2", "--config", problems, f"workdir={wd}", "device=cpu", SEARCH, GATES, *extra)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _decisions(wd: Path) -> dict:
    out = {}
    for r in sorted(wd.glob("*/result.json")):
        d = json.loads(r.read_text())
        out[d["problem"]] = (d["category"], d.get("fallback_reason"))
    for g in sorted(wd.glob("*/units/*/**/gate2.json")):
        d = json.loads(g.read_text())
        out[str(g.relative_to(wd))] = (d["verdict"], d.get("rule"))
    return out


def _worker_processes(wd: Path) -> list[str]:
    ps = subprocess.run(["pgrep", "-af", "kernelopt.runner.worker"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if str(wd) in line]


@pytest.mark.slow
def test_workers_decide_what_jobs_of_their_own_decide(tmp_path):
    """The same problem (a softmax: one unit, synthesized and searched) with one search iteration,
    the executor off and on: the same category and the same gate-2 verdicts; on, the GPU stages'
    jobs ran in workers (no device preparation of their own), and no worker is left when the run
    ends.  (Two problems ran here until CI outgrew its hour; the second added no kind of job.)"""
    off, on = tmp_path / "off", tmp_path / "on"
    one = "problems=[problems/demo/level1/1_Softmax.py]"
    r = _pipeline(off, "executor={enabled: false}", problems=one)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    r = _pipeline(on, problems=one)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    a, b = _decisions(off), _decisions(on)
    assert a.keys() == b.keys() and a == b, {
        k: (a.get(k), b.get(k)) for k in a.keys() | b.keys() if a.get(k) != b.get(k)
    }
    logs = list((on / "logs" / "gate12").rglob("*.log"))
    assert logs and all("[worker] pid" in p.read_text() for p in logs)
    assert not any("[worker] pid" in p.read_text() for p in (off / "logs" / "gate12").rglob("*.log"))
    assert sorted(p.name for p in (on / "logs" / "workers").iterdir())
    time.sleep(1)
    assert not _worker_processes(on), "a worker outlived its run"


@pytest.mark.slow
def test_a_worker_killed_mid_run_is_started_again_and_the_run_finishes(tmp_path):
    """A worker that dies during a job (``KERNELOPT_FAULT=killworker:gate12``: the first gate-12
    job's worker exits at once) is started again by the job's client, which sends the job
    once more: the run finishes with every verdict, none of them infrastructure.  One problem:
    a second added no kind of job (CI time)."""
    wd = tmp_path / "run"
    r = _pipeline(
        wd, env={"KERNELOPT_FAULT": "killworker:gate12"}, problems="problems=[problems/demo/level1/8_ReLU.py]"
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert (wd / ".kernelopt" / "killworker-gate12").exists(), "the fault was not injected"
    (log,) = (wd / "logs" / "workers").glob("level1_8_ReLU-*-0.log")  # the GPU lane's worker, gate12's
    assert log.read_text().count("[worker] pid") >= 2  # the killed worker, started once more
    for g in wd.glob("*/units/*/**/gate2.json"):
        assert json.loads(g.read_text())["verdict"] in ("pass", "fail", "skipped"), g


def test_a_worker_serves_requests_in_one_process_and_ends_when_told(tmp_path):
    """Requests of one problem reach one long-lived process, each with its own log; a code
    change is noticed (another worker replaces the old one); ``stop_all`` ends the run's workers
    and removes the run's lock files (another run's stay)."""
    settings = {"idle_s": 30, "warm_children": 0}
    run = tmp_path / "run"
    (run / "p").mkdir(parents=True)
    pids = []
    for k in range(2):
        log = tmp_path / f"job{k}.log"
        req = {
            "fn": "builtins:str",
            "workdir": str(run),
            "problem": "p",
            "args": [],
            "rule": "probe",
            "log": str(log),
        }
        reply = worker.call(run, "p", req, settings)
        assert reply.get("ok"), reply
        assert "[worker] pid" in log.read_text()
        pids.append(worker.ping(worker.socket_path(run, "p"))["pid"])
    assert pids[0] == pids[1]
    mine = [worker.lock_path(run, "p", 0, "lock"), worker.lock_path(run, "p", 0, "busy", gpu="slots")]
    assert all(f.exists() for f in mine)
    other = worker.lock_path(tmp_path / "other", "p", 0, "busy")
    other.touch()
    try:
        assert worker.stop_all(run) == 1
        assert not any(f.exists() for f in mine) and other.exists()
    finally:
        other.unlink()
    time.sleep(0.5)
    assert worker.ping(worker.socket_path(run, "p")) is None


def _probe(run: Path, problem: str, log: Path, **extra) -> dict:
    return {
        "fn": "builtins:str",
        "workdir": str(run),
        "problem": problem,
        "args": [],
        "rule": "probe",
        "log": str(log),
    } | extra


def _wait_gone(run: Path, problem: str, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if worker.ping(worker.socket_path(run, problem)) is None:
            return True
        time.sleep(0.5)
    return False


def test_idle_workers_beyond_max_workers_end_least_recently_used_first_and_with_their_snakemake(tmp_path):
    """``executor.max_workers: 1``: when a second problem's worker has served, the first one's
    (used less recently, idle) ends by itself, long before ``idle_s``; a worker whose run's
    Snakemake (the ``scheduler`` of its latest request) is gone ends too."""
    settings = {"idle_s": 600, "warm_children": 0, "max_workers": 1}
    run = tmp_path / "run"
    for p in ("a", "b"):
        (run / p).mkdir(parents=True)
    assert worker.call(run, "a", _probe(run, "a", tmp_path / "a.log"), settings).get("ok")
    time.sleep(0.2)
    scheduler = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        reply = worker.call(run, "b", _probe(run, "b", tmp_path / "b.log", scheduler=scheduler.pid), settings)
        assert reply.get("ok"), reply
        assert _wait_gone(run, "a"), "the least recently used worker did not end"
        assert worker.ping(worker.socket_path(run, "b")) is not None  # the recent one stays
        log_a = (run / "logs" / "workers").glob("a-*.log")
        assert any("used least recently" in f.read_text() for f in log_a)
        scheduler.kill()
        scheduler.wait()
        assert _wait_gone(run, "b"), "a worker outlived its Snakemake"
        assert any("Snakemake" in f.read_text() for f in (run / "logs" / "workers").glob("b-*.log"))
    finally:
        scheduler.kill()
        worker.stop_all(run)


def test_when_the_host_is_short_of_memory_the_least_recently_used_idle_worker_ends(tmp_path, monkeypatch):
    """Below ``max_workers`` a worker stays while it is idle, unless the host is short of memory
    (``memory_short``): then the run's least recently used idle worker ends, and only that one."""
    me = worker.Worker(tmp_path / "run", "p", 0, idle_s=600, warm_children=0, max_live=8)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        me._touch()
        mark = me.mark.parent / str(other.pid)
        mark.touch()
        os.utime(me.mark, (time.time() - 30, time.time() - 30))  # mine is the older one
        monkeypatch.setattr(worker, "memory_short", lambda: False)
        assert me._why_end(10.0) is None
        monkeypatch.setattr(worker, "memory_short", lambda: True)
        me._looked = 0.0
        assert "short of memory" in (me._why_end(10.0) or "")
        me._looked = 0.0
        assert me._why_end(1.0) is None  # not idle long enough
        os.utime(mark, (time.time() - 60, time.time() - 60))  # now the other one is older
        me._looked = 0.0
        assert me._why_end(10.0) is None
    finally:
        other.kill()
    assert isinstance(worker.memory_short(), bool)


def test_stop_all_kills_a_registered_worker_that_does_not_answer_and_nothing_else(tmp_path):
    """A worker of the run in its registry that answers no ping (stuck, or still warming up) is
    killed with its group; a registered pid the system gave another process is left alone."""
    run = (tmp_path / "run").resolve()
    reg = run / ".kernelopt" / "workers"
    reg.mkdir(parents=True)
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    silent = subprocess.Popen([*sleep, "kernelopt.runner.worker", str(run)], start_new_session=True)
    other = subprocess.Popen(sleep, start_new_session=True)
    try:
        for proc in (silent, other):
            (reg / str(proc.pid)).touch()
        assert worker.stop_all(run, wait_s=2) == 0
        assert silent.wait(timeout=10) is not None
        assert other.poll() is None
    finally:
        silent.kill()
        other.kill()


def test_a_step_that_never_touches_the_gpu_does_not_queue_behind_gpu_work(tmp_path):
    """The light lane: while the problem's one worker slot is busy (a job holds it), a request
    marked ``"lane": "light"`` (synthesize) runs at once, in a worker of its own."""
    settings = {"idle_s": 30, "warm_children": 0, "workers_per_problem": 1}
    run = tmp_path / "run"
    (run / "p").mkdir(parents=True)
    req = {"fn": "builtins:str", "workdir": str(run), "problem": "p", "args": [], "rule": "x"}
    with worker._a_worker(run, "p", 1) as held:  # a GPU job of the problem holds its worker
        assert held == 0
        t = time.monotonic()
        reply = worker.call(run, "p", {**req, "lane": "light"}, settings)
        assert reply.get("ok"), reply
        assert time.monotonic() - t < 60
    light = worker.ping(worker.socket_path(run, "p", worker.LIGHT_INDEX))
    assert light is not None and worker.ping(worker.socket_path(run, "p", 0)) is None
    assert worker.call(run, "p", req, settings)["ok"]  # the GPU lane's worker, another process
    assert worker.ping(worker.socket_path(run, "p", 0))["pid"] != light["pid"]
    assert worker.stop_all(run) == 2


def test_a_jobs_failure_in_a_worker_is_the_jobs_not_the_workers(tmp_path):
    run = tmp_path / "run"
    (run / "p").mkdir(parents=True)
    settings = {"idle_s": 30, "warm_children": 0}
    bad = {
        "fn": "kernelopt.core.records:no_such_function",
        "workdir": str(run),
        "problem": "p",
        "args": [],
        "rule": "x",
    }
    reply = worker.call(run, "p", bad, settings)
    assert not reply["ok"] and not reply.get("fault") and "no_such_function" in reply["error"]
    ok = {"fn": "builtins:str", "workdir": str(run), "problem": "p", "args": [], "rule": "x"}
    assert worker.call(run, "p", ok, settings)["ok"]  # the same worker goes on
    worker.stop_all(run)


def test_a_client_that_gave_up_never_ends_the_worker(tmp_path, monkeypatch):
    """CI, under load: a ping that timed out left its connection in the worker's queue; the
    worker's reply to the closed connection raised BrokenPipeError and ended the worker, and the
    job that started it failed with no log.  A ping (and a job) whose client has gone costs the
    reply only; the worker then serves the next job in the same process."""
    import socket
    import threading

    (tmp_path / "slow_job.py").write_text("import time\n\ndef wait(paths, s):\n    time.sleep(s)\n")
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    run = tmp_path / "run"
    (run / "p").mkdir(parents=True)
    settings = {"idle_s": 30, "warm_children": 0}
    busy = {"fn": "slow_job:wait", "workdir": str(run), "problem": "p", "args": [2], "rule": "x"}
    assert worker.call(run, "p", {**busy, "args": [0]}, settings)["ok"]  # started
    pid = worker.ping(worker.socket_path(run, "p"))["pid"]
    t = threading.Thread(target=worker.call, args=(run, "p", busy, settings))
    t.start()
    time.sleep(0.5)  # the worker is in the 2-s job: these wait in its queue
    for op in ("ping", "x"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(str(worker.socket_path(run, "p")))
        worker._send(s, {"op": "ping"} if op == "ping" else {**busy, "args": [0]})
        s.close()  # gone before the reply
    t.join()
    time.sleep(0.5)
    info = worker.ping(worker.socket_path(run, "p"))
    assert info is not None and info["pid"] == pid, "the worker ended on a closed connection"
    assert worker.call(run, "p", {**busy, "args": [0]}, settings)["ok"]
    worker.stop_all(run)


def test_out_of_memory_in_a_worker_ends_it_and_the_retry_runs_in_its_own_process(tmp_path):
    """An OOM in the shared context (``KERNELOPT_FAULT=oom:<rule>``) fails that job, as a
    fault the job's retry handles, and ends the worker, so nothing of it is shared again; a
    retry (``gpu_alone``) never goes to a worker at all."""
    run = tmp_path / "run"
    (run / "p").mkdir(parents=True)
    settings = {"idle_s": 30, "warm_children": 0}
    base = {"fn": "builtins:str", "workdir": str(run), "problem": "p", "args": [], "rule": "x"}
    assert worker.call(run, "p", base, settings)["ok"]
    first = worker.ping(worker.socket_path(run, "p"))["pid"]
    reply = worker.call(run, "p", {**base, "faults": ["oom:x"]}, settings)
    assert not reply["ok"] and "out of memory" in reply["error"], reply
    deadline = time.time() + 10
    while time.time() < deadline and worker.ping(worker.socket_path(run, "p")) is not None:
        time.sleep(0.1)
    assert worker.ping(worker.socket_path(run, "p")) is None, "the worker outlived its OOM"
    assert worker.call(run, "p", base, settings)["ok"]  # the next job meets a new worker
    assert worker.ping(worker.socket_path(run, "p"))["pid"] != first
    worker.stop_all(run)

    class Job:
        resources = {"gpu_alone": 1}

    assert worker._a_retry(Job()) and not worker._a_retry(None)


def test_a_warm_child_that_died_while_it_waited_is_never_a_jobs_fault(tmp_path):
    """A child started ahead that is dead by the time a job takes it is discarded; the job gets
    a fresh one."""
    import torch

    from kernelopt.runner import sandbox

    cand = tmp_path / "cand.py"
    cand.write_text("def launch(x, out):\n    out.copy_(x * 2)\n")
    sandbox.keep_warm(1)
    try:
        sandbox._POOL.fill("cpu", None, None)
        deadline = time.time() + 120
        while time.time() < deadline and not sandbox._POOL.ready.get(sandbox._POOL.key("cpu", None, None)):
            time.sleep(0.2)
        boxes = sandbox._POOL.ready[sandbox._POOL.key("cpu", None, None)]
        assert boxes, "no warm child started"
        boxes[0].kill()  # it dies while it waits

        class One(sandbox.Stream):
            calls = 1

            def send(self, k, slots):
                return {"args": [slots.put(0, torch.ones(4)), slots.put(1, torch.zeros(4))], "interleave": False}

            def receive(self, k, result, sent):
                assert torch.equal(result["args"][1], torch.full((4,), 2.0))
                return True

        job = {"kind": "unit", "device": "cpu", "candidate": "cand.py", "point": "gate12"}
        out = sandbox.run(job, 120, stream=One(), files={"cand.py": cand})
        assert out.status == "ok", out.detail + out.log_tail
        # and a warm one serves the next job without a start of its own
        deadline = time.time() + 120
        while time.time() < deadline and not sandbox._POOL.ready.get(sandbox._POOL.key("cpu", None, None)):
            time.sleep(0.2)
        t0 = time.time()
        out = sandbox.run(job, 120, stream=One(), files={"cand.py": cand})
        assert out.status == "ok" and time.time() - t0 < 5, (out.detail, time.time() - t0)
    finally:
        sandbox.keep_warm(0)


def _doubles(value: float = 1.0):
    """A one-call stream: ``launch(x, out)`` on x = ``value`` everywhere, judged right when
    ``out`` holds 2x."""
    import torch

    from kernelopt.runner import sandbox

    class Doubles(sandbox.Stream):
        calls = 1

        def send(self, k, slots):
            x = torch.full((4,), value)
            return {"args": [slots.put(0, x), slots.put(1, torch.zeros(4))], "interleave": False}

        def receive(self, k, result, sent):
            return torch.equal(result["args"][1], torch.full((4,), 2 * value))

    return Doubles()


def test_children_forked_from_a_zygote_run_jobs_and_their_deaths_are_seen(tmp_path, monkeypatch):
    """``KERNELOPT_FORK_CHILDREN=1``: a child costs a fork of the zygote, not an interpreter
    start; its job runs as an exec'd child's does; a child that dies (the candidate calls
    ``os._exit``) is a crash with the status the judge observed itself; a zygote that cannot
    start leaves children to start as new interpreters, never a job's failure."""

    from kernelopt.runner import sandbox

    monkeypatch.setenv(sandbox.FORK_ENV, "1")
    cand = tmp_path / "cand.py"
    cand.write_text("import os\ndef launch(x, out):\n    out.copy_(x * 2)\n    if x[0] < 0:\n        os._exit(7)\n")

    job = {"kind": "unit", "device": "cpu", "candidate": "cand.py", "point": "gate12"}
    try:
        first = sandbox.run(job, 120, stream=_doubles(1.0), files={"cand.py": cand})
        assert first.status == "ok", first.detail + first.log_tail
        (z,) = [z for z in sandbox._ZYGOTES.values() if z.device == "cpu" and not z.dead]
        t0 = time.time()
        again = sandbox.run(job, 120, stream=_doubles(3.0), files={"cand.py": cand})
        assert again.status == "ok" and time.time() - t0 < 3, (again.detail, time.time() - t0)
        died = sandbox.run(job, 120, stream=_doubles(-1.0), files={"cand.py": cand})
        assert died.status == "crash" and "exit status 7" in died.detail, died.detail
        assert len(z.exits) >= 3  # every launcher reaped and reported by the zygote
    finally:
        sandbox._close_zygotes()
        sandbox._ZYGOTES.clear()
    monkeypatch.setattr(sandbox, "zygote_command", lambda: [sys.executable, "-c", "import sys; sys.exit(3)"])
    try:
        cold = sandbox.run(job, 120, stream=_doubles(1.0), files={"cand.py": cand})
        assert cold.status == "ok", cold.detail + cold.log_tail
        (z,) = sandbox._ZYGOTES.values()
        assert z.dead and "exited (3)" in z.dead
    finally:
        sandbox._close_zygotes()
        sandbox._ZYGOTES.clear()


def test_a_forked_candidate_cannot_reach_its_zygote_or_the_run_through_what_the_fork_left(tmp_path, monkeypatch):
    """A cheat of a class exec never offered: a forked child's memory still holds the launcher's
    jail spec (the zygote's host pid, the hidden run directory's host path).  The candidate finds
    it, kills the zygote by that pid, reads the hidden directory and writes into it and beside it:
    the pid names nothing in the child's pid namespace, the paths nothing in its root.  The
    zygote serves the next child; nothing the candidate wrote reached the host."""
    from kernelopt.runner import sandbox

    monkeypatch.setenv(sandbox.FORK_ENV, "1")
    secret = tmp_path / "run"
    secret.mkdir()
    (secret / "expected.pt").write_text("the reference outputs")
    cand = tmp_path / "cand.py"
    cand.write_text(
        textwrap.dedent(
            """
            import gc, os, signal
            FOUND = []
            for o in gc.get_objects():
                if type(o).__name__ == "Spec" and hasattr(o, "hidden"):
                    FOUND.append(o)
            for spec in FOUND:
                try:
                    os.kill(spec.parent, signal.SIGKILL)
                except OSError:
                    pass
                for path in spec.hidden:
                    try:
                        open(os.path.join(path, "expected.pt")).read()
                        raise SystemExit("read the run directory")
                    except OSError:
                        pass
                    for where in (path, os.path.dirname(path)):
                        try:
                            open(os.path.join(where, "planted"), "w").write("x")
                        except OSError:
                            pass
            def launch(x, out):
                out.copy_(x * 2)
                if not FOUND:
                    raise RuntimeError("no spec in memory: the cheat had nothing to try")
            """
        )
    )
    job = {"kind": "unit", "device": "cpu", "candidate": "cand.py", "point": "gate12"}
    try:
        out = sandbox.run(job, 120, stream=_doubles(), files={"cand.py": cand}, hidden=[secret])
        assert out.status == "ok" and out.reply["calls"][0]["error"] is None, out.detail + out.log_tail
        (z,) = [z for z in sandbox._ZYGOTES.values() if not z.dead]
        assert z.proc.poll() is None  # the zygote lives
        again = sandbox.run(job, 120, stream=_doubles(2.0), files={"cand.py": cand}, hidden=[secret])
        assert again.status == "ok" and z.verified and not z.dead
        assert not (secret / "planted").exists() and not (tmp_path / "planted").exists()
    finally:
        sandbox._close_zygotes()
        sandbox._ZYGOTES.clear()


FAKE_ZYGOTE = """
import json, os, sys
def say(m):
    os.write(1, (json.dumps(m) + "\\n").encode())
say({"op": "ready", "pid": os.getpid()})
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        os.write(2, b"this launcher never starts a child")
        os._exit(1)
    say({"op": "spawned", "pid": pid})
    _, status = os.waitpid(pid, 0)
    say({"op": "exit", "pid": pid, "rc": os.waitstatus_to_exitcode(status)})
"""


def test_a_zygote_whose_first_child_does_not_start_is_retired(tmp_path, monkeypatch):
    """A zygote that forks children which never start (on a machine where a fork cannot set up
    what a child needs) is retired at its first child: that child, and every later one, starts
    as a new interpreter; the job never sees the failure."""

    from kernelopt.runner import sandbox

    monkeypatch.setenv(sandbox.FORK_ENV, "1")
    fake = tmp_path / "fake_zygote.py"
    fake.write_text(FAKE_ZYGOTE)
    monkeypatch.setattr(sandbox, "zygote_command", lambda: [sys.executable, str(fake)])
    cand = tmp_path / "cand.py"
    cand.write_text("def launch(x, out):\n    out.copy_(x * 2)\n")

    job = {"kind": "unit", "device": "cpu", "candidate": "cand.py", "point": "gate12"}
    try:
        out = sandbox.run(job, 120, stream=_doubles(), files={"cand.py": cand})
        assert out.status == "ok", out.detail + out.log_tail
        (z,) = sandbox._ZYGOTES.values()
        assert z.dead and "first child did not start" in z.dead and not z.verified
        assert sandbox.run(job, 120, stream=_doubles(), files={"cand.py": cand}).status == "ok"
    finally:
        sandbox._close_zygotes()
        sandbox._ZYGOTES.clear()


def test_the_executor_settings_reach_jobs_and_change_no_output(root):
    """executor.* say where a job's work runs: no rule is handed them, so no job re-runs when
    they change (docs/configuration.md, README's table)."""
    from kernelopt.core import config

    keys = ("enabled", "workers_per_problem", "warm_children", "idle_s", "max_workers")
    for key in (f"executor.{k}" for k in keys):
        assert config.invalidated_by(key) == [], key
    assert "KERNELOPT_EXECUTOR" in (root / "kernelopt/workflow/rules/common.smk").read_text()
    assert sys.executable


def test_a_warm_child_copies_a_cache_with_a_directory_it_cannot_write(tmp_path, monkeypatch):
    """A warm child is started before its job; the host may create cache directories after it
    (the compile of the job's own candidate), which the jail did not make the child's.  Writing
    there failed a re-lowered GroupNorm candidate on the H200 with EACCES as a gate-1 crash: the
    judge's fault as a verdict.  The child now uses a scratch copy of such a cache."""
    from kernelopt.runner import child

    root, scratch = tmp_path / "cache", tmp_path / "scratch"
    (root / "triton" / "NEWKEY").mkdir(parents=True)
    (root / "triton" / "NEWKEY" / "k.cubin").write_bytes(b"x")
    (root / "inductor" / "ab").mkdir(parents=True)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(root / "triton"))
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(root / "inductor"))
    real = child.os.access
    monkeypatch.setattr(child.os, "access", lambda p, m: real(p, m) and not str(p).endswith("NEWKEY"))
    assert child.writable_caches(str(root), str(scratch)) == ["triton"]
    assert child.os.environ["TRITON_CACHE_DIR"] == str(scratch / "triton")
    assert (scratch / "triton" / "NEWKEY" / "k.cubin").read_bytes() == b"x"
    assert child.os.environ["TORCHINDUCTOR_CACHE_DIR"] == str(root / "inductor")  # all writable: kept


def test_sandbox_directories_of_ended_processes_are_swept_and_no_others(tmp_path):
    """A worker killed at the end of a run took its warm children with it, and their sandbox
    directories stayed in /tmp (hundreds after a day of runs).  Each directory names its owner;
    the next worker (and the end of a run) removes those whose owner has ended."""
    from kernelopt.runner import sandbox

    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()

    def box(name: str, owner: int | None) -> Path:
        d = tmp_path / f"{sandbox.SANDBOX_PREFIX}{name}"
        (d / "scratch").mkdir(parents=True)
        (d / "child.log").write_text("a warm child's log\n")
        if owner is not None:
            (d / sandbox.OWNER_FILE).write_text(f"{owner} {ns}")
        return d

    ns = os.readlink("/proc/self/ns/pid")
    dead, live, unknown = box("dead", ended.pid), box("live", os.getpid()), box("unknown", None)
    ns = "pid:[1]"  # the same pid, meant in another container's namespace: not ours to judge
    elsewhere = box("elsewhere", ended.pid)
    other = tmp_path / "kernelopt-relower-x"
    other.mkdir()
    (other / sandbox.OWNER_FILE).write_text(str(ended.pid))
    assert sandbox.sweep_stale(tmp_path) == 1
    assert not dead.exists() and live.exists() and unknown.exists() and elsewhere.exists() and other.exists()
    # a box this process opens says so, and goes when closed
    b = sandbox.Box("cpu", 10.0)
    try:
        assert (b.tmp / sandbox.OWNER_FILE).read_text() == f"{os.getpid()} {os.readlink('/proc/self/ns/pid')}"
    finally:
        b.close()
    assert not b.tmp.exists()


def test_a_zygote_refuses_to_fork_once_the_gpu_driver_holds_a_device_file():
    """A zygote forks only while CUDA is not initialised in it: the driver library may be mapped
    (the imports load it on a GPU machine), but a device file the driver opened (``/dev/nvidia*``,
    played here by ``/dev/null``) or torch's initialised CUDA ends it with status 124 and says
    why (the judge then starts children as new interpreters)."""
    for setup in (
        "child.DRIVER_FILES = ('/dev/null',); held = open('/dev/null')",
        "import torch; torch.cuda.is_initialized = lambda: True",
        "",
    ):
        code = f"import os\nfrom kernelopt.runner import child\n{setup}\nchild.zygote(os.getppid())\n"
        p = subprocess.run(
            [sys.executable, "-c", code], input="", capture_output=True, text=True, timeout=120, cwd=ROOT
        )
        if setup:
            assert p.returncode == 124 and "CUDA is initialised after the imports" in p.stderr, (p.returncode, p.stderr)
            assert ("/dev/null" in p.stderr) == ("DRIVER_FILES" in setup)
        else:  # no driver: it serves (stdin closed at once: it ends)
            assert '"op": "ready"' in p.stdout and p.returncode == 0, (p.returncode, p.stderr[-500:])


def test_children_fork_by_default_on_every_device_and_not_when_told(monkeypatch):
    from kernelopt.runner import sandbox

    monkeypatch.delenv(sandbox.FORK_ENV, raising=False)
    assert sandbox.fork_children("cpu") and sandbox.fork_children("cuda")
    for off in ("0", "off", "no"):
        monkeypatch.setenv(sandbox.FORK_ENV, off)
        assert not sandbox.fork_children("cuda")
    monkeypatch.setenv(sandbox.FORK_ENV, "auto")
    assert sandbox.fork_children("cuda")
