"""The operating-system boundary around candidate code (``kernelopt/runner/jail.py``), on its own:
what a process inside it is, sees and may do, as root (CI) and as an ordinary user.

These need Linux namespaces (root, or unprivileged user namespaces) and libseccomp; under CI
(``KERNELOPT_CI=1``) a missing piece fails the test instead of skipping it."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT

from kernelopt.runner import jail

PROBE = textwrap.dedent(
    r"""
    import json, os, socket, subprocess, sys
    out = {"uid": [os.getuid(), os.geteuid(), os.getgid()], "groups": os.getgroups(), "cwd": os.getcwd()}
    status = dict(l.split(":", 1) for l in open("/proc/self/status") if ":" in l)
    keys = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp")
    out["status"] = {k: status[k].strip() for k in keys}
    out["ns"] = {n: os.readlink(f"/proc/self/ns/{n}") for n in ("pid", "mnt", "net", "ipc", "uts", "cgroup", "user")}
    out["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    out["dev"] = sorted(os.listdir("/dev"))
    out["env"] = sorted(os.environ)
    out["fds"] = sorted(int(f) for f in os.listdir("/proc/self/fd"))
    def attempt(name, fn):
        try:
            fn()
            out[name] = "done"
        except BaseException as e:
            out[name] = f"refused: {type(e).__name__}: {e}"
    attempt("write_scratch", lambda: open("/tmp/ok", "w").write("x"))
    attempt("write_usr", lambda: open("/usr/kernelopt-jail-test", "w").write("x"))
    attempt("write_root", lambda: open("/kernelopt-jail-test", "w").write("x"))
    try:
        out["secret_listing"] = os.listdir(sys.argv[1])
    except OSError as e:
        out["secret_listing"] = f"refused: {e}"
    attempt("read_secret", lambda: open(os.path.join(sys.argv[1], "secret.txt")).read())
    def inet():
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(("127.0.0.1", int(sys.argv[2])))
    attempt("inet_socket", inet)
    attempt("netlink_socket", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    def unshare_user():
        if libc.unshare(0x10000000) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    attempt("unshare_user", unshare_user)
    def ptrace_init():
        if libc.ptrace(16, 1, 0, 0) != 0:  # PTRACE_ATTACH
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    attempt("ptrace", ptrace_init)
    attempt("setuid_root", lambda: os.setuid(0))
    attempt("mount", lambda: subprocess.run(["mount", "-t", "tmpfs", "none", "/tmp"], check=True, capture_output=True))
    # a process in a session of its own, meant to outlive the sandbox and leave a mark
    subprocess.Popen(["/bin/sh", "-c", f"sleep 2; echo x > {sys.argv[3]}; sleep 30", "kernelopt-jail-survivor"],
                     start_new_session=True)
    print("PROBE " + json.dumps(out), flush=True)
    """
)


def _ci() -> bool:
    return os.environ.get("KERNELOPT_CI") == "1"


def _needs_namespaces() -> None:
    try:
        jail.load_libseccomp()
    except jail.JailError as e:
        if _ci():
            pytest.fail(f"the sandbox needs libseccomp under CI: {e}")
        pytest.skip(str(e))
    r = subprocess.run(["unshare", "--mount", "--pid", "--fork", "--net", "true"], capture_output=True)
    if r.returncode != 0 and os.geteuid() == 0:
        if _ci():
            pytest.fail(f"namespaces are refused here: {r.stderr.decode()[-300:]}")
        pytest.skip("namespaces are refused here")


# A zygote's launch of the probe: ``jail.launch`` with the probe run in the jailed process where
# ``execve`` would have started it, from a process that imported things first (``preload``) and
# has a second thread running (torch's import leaves one), as ``runner/child.py --zygote`` is.
FORKER = textwrap.dedent(
    r"""
    import json, os, runpy, sys, threading, time
    sys.path.insert(0, {jail_dir!r})
    {preload}
    import jail
    threading.Thread(target=lambda: time.sleep(600), daemon=True).start()
    spec = jail.Spec(**json.loads(sys.argv[1]))
    spec.parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        def run():
            sys.argv = spec.argv[1:]
            runpy.run_path(spec.argv[1], run_name="__main__")
        jail.launch(spec, run)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
    """
)


def _listen() -> tuple[int, list[bytes]]:
    """A TCP server on the host's loopback that records every connection it gets."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    got: list[bytes] = []

    def serve() -> None:
        end = time.time() + 60
        while time.time() < end:
            try:
                c, _ = srv.accept()
                got.append(b"connection")
                c.close()
            except OSError:
                pass

    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1], got


def _run_probe(
    tmp_path: Path,
    python: str,
    readonly: list[str],
    *,
    as_user: int | None = None,
    forked: bool = False,
    preload: str = "",
) -> dict:
    secret_dir = tmp_path / "run"  # stands for the run directory: bound in, then hidden
    secret_dir.mkdir()
    (secret_dir / "secret.txt").write_text("the reference outputs")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    marker = Path("/var/tmp") / f"kernelopt-jail-marker-{os.getpid()}-{as_user}"
    marker.unlink(missing_ok=True)
    port, got = _listen()
    if as_user is not None:
        for p in (tmp_path, scratch, secret_dir):
            os.chown(p, as_user, as_user)
        os.chmod(tmp_path, 0o755)
    elif os.geteuid() == 0:
        os.chown(scratch, 65534, 65534)
    spec = jail.Spec(
        argv=[python, "/job/probe.py", str(secret_dir), str(port), str(marker)],
        env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"},
        parent=os.getpid(),  # setpriv execs the launcher: its parent is this process either way
        readonly=readonly + [str(tmp_path)],
        readonly_at=[(str(probe), "/job/probe.py")],
        writable_at=[(str(scratch), "/tmp")],
        hidden=[str(secret_dir)],
        limits={"RLIMIT_NPROC": 512, "RLIMIT_NOFILE": 256, "RLIMIT_CORE": 0},
    )
    cmd = [python, "-I", "-S", jail.__file__, spec.to_json()]
    if forked:  # as a zygote does (runner/child.py --zygote): imports done, a thread running, then fork
        helper = tmp_path / "forker.py"
        helper.write_text(FORKER.format(jail_dir=str(Path(jail.__file__).parent), preload=preload))
        cmd = [python, str(helper), spec.to_json()]  # with site: a zygote imports torch
    if as_user is not None:
        cmd = ["setpriv", f"--reuid={as_user}", f"--regid={as_user}", "--clear-groups", "--inh-caps=-all", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    line = next((l for l in r.stdout.splitlines() if l.startswith("PROBE ")), None)
    assert line, f"rc {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    out = json.loads(line[6:])
    time.sleep(3)  # the survivor would have written its mark by now
    out["marker_written"] = marker.exists()
    out["connections"] = len(got)
    out["survivors"] = subprocess.run(["pgrep", "-f", "kernelopt-jail-survivor"], capture_output=True).stdout.decode()
    marker.unlink(missing_ok=True)
    return out


def _assert_confined(out: dict, host_ns: dict[str, str]) -> None:
    assert out["uid"] == [65534, 65534, 65534], out["uid"]
    st = out["status"]
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(st[cap], 16) == 0, (cap, st[cap])
    assert st["NoNewPrivs"] == "1" and st["Seccomp"] == "2", st
    for n in ("pid", "mnt", "net", "ipc", "uts"):
        assert out["ns"][n] != host_ns[n], f"the {n} namespace is the host's"
    assert len(out["pids"]) <= 3, out["pids"]  # init, the probe, the survivor it started
    assert set(out["dev"]) <= {"null", "zero", "full", "random", "urandom", "shm", "fd", "stdin", "stdout", "stderr"}
    assert set(out["env"]) <= {"PATH", "HOME", "PWD", "LC_CTYPE"}, out["env"]
    assert out["write_scratch"] == "done"
    assert "secret.txt" not in out["secret_listing"], out["secret_listing"]
    for what in ("write_usr", "write_root", "read_secret", "inet_socket", "netlink_socket"):
        assert out[what].startswith("refused"), (what, out[what])
    for what in ("unshare_user", "ptrace", "setuid_root", "mount"):
        assert out[what].startswith("refused"), (what, out[what])
    assert "Operation not permitted" in out["inet_socket"]  # the seccomp filter, not just an empty namespace
    assert not out["marker_written"] and out["connections"] == 0
    assert not out["survivors"], f"a process outlived the sandbox: {out['survivors']}"
    assert len(out["fds"]) <= 4, f"file descriptors besides stdin, stdout, stderr: {out['fds']}"


def _host_ns() -> dict[str, str]:
    return {n: os.readlink(f"/proc/self/ns/{n}") for n in ("pid", "mnt", "net", "ipc", "uts")}


def _python_roots() -> list[str]:
    roots = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    return sorted({os.path.realpath(r) for r in roots})


def test_a_jailed_process_is_unprivileged_and_confined_when_the_pipeline_is_root(tmp_path):
    """The pipeline runs as root here (CI, the GPU machine): the child is uid 65534 with every
    capability set empty, no_new_privs, a seccomp filter, its own namespaces; it sees no run
    directory, writes only its scratch, reaches no network, and nothing it starts survives it."""
    if os.geteuid() != 0:
        if _ci():
            pytest.fail("CI runs as root")
        pytest.skip("needs root (the pipeline as root)")
    _needs_namespaces()
    readonly = ["/usr", "/bin", "/lib", "/lib64", "/etc", *_python_roots()]
    out = _run_probe(tmp_path, sys.executable, [p for p in readonly if os.path.lexists(p)])
    _assert_confined(out, _host_ns())


@pytest.mark.parametrize("forked", [False, True], ids=["exec", "forked"])
def test_a_jailed_process_is_confined_when_the_pipeline_is_an_ordinary_user(tmp_path, forked):
    """The pipeline as an ordinary user (uid 4242 here): the launcher takes a user namespace for
    the mounts and another for the worker, which is then uid 65534 inside with no capabilities.
    Forked from a zygote too: the forked launcher is single-threaded (a fork copies one thread),
    so it may take the user namespace its zygote, with a thread running, could not."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        if _ci():
            pytest.fail("CI runs as root with setpriv (util-linux)")
        pytest.skip("needs root to become an ordinary user, and setpriv")
    _needs_namespaces()
    python = shutil.which("python3", path="/usr/bin") or "/usr/bin/python3"
    readonly = ["/usr", "/bin", "/lib", "/lib64", "/etc", str(Path(jail.__file__).parent)]
    tmp = Path(tempfile_dir()) / f"kernelopt-jail-user-{os.getpid()}-{forked}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(mode=0o755)
    try:
        out = _run_probe(tmp, python, [p for p in readonly if os.path.lexists(p)], as_user=4242, forked=forked)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _assert_confined(out, _host_ns())
    assert out["ns"]["user"] != os.readlink("/proc/self/ns/user")


def test_a_child_forked_from_a_zygote_is_confined_the_same(tmp_path):
    """Children forked from a zygote (``runner/child.py --zygote``: torch imported, a thread
    running) instead of started as new interpreters go through the same launcher steps, and the
    process that runs the job's code is as confined as an exec'd one: uid 65534, no capabilities,
    seccomp, its own namespaces, no run directory, no network, no survivor, no inherited file
    descriptor (the zygote's are closed before the job's code runs)."""
    if os.geteuid() != 0:
        if _ci():
            pytest.fail("CI runs as root")
        pytest.skip("needs root (the pipeline as root)")
    _needs_namespaces()
    readonly = ["/usr", "/bin", "/lib", "/lib64", "/etc", *_python_roots(), str(Path(jail.__file__).parent)]
    preload = "import torch; _held = open(os.devnull)"  # a zygote's imports and an open file
    out = _run_probe(
        tmp_path, sys.executable, [p for p in readonly if os.path.lexists(p)], forked=True, preload=preload
    )
    _assert_confined(out, _host_ns())


def tempfile_dir() -> str:
    """A directory an ordinary user can reach (pytest's tmp_path may sit under /root)."""
    return "/var/tmp" if os.path.isdir("/var/tmp") else "/tmp"


def test_the_jail_refuses_to_start_without_libseccomp(monkeypatch):
    """No filter, no child: a machine without libseccomp gets a clear error, never an
    unfiltered sandbox."""
    monkeypatch.setattr(jail.ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(jail.ctypes, "CDLL", _no_lib(jail.ctypes.CDLL))
    with pytest.raises(jail.JailError, match="libseccomp"):
        jail.load_libseccomp()


def _no_lib(real):
    def cdll(name, *a, **kw):
        if name and "seccomp" in str(name):
            raise OSError(f"{name}: cannot open shared object file")
        return real(name, *a, **kw)

    return cdll


def test_the_launcher_is_the_standard_library_only():
    """The launcher runs as ``python -I -S jail.py``: it imports nothing but the standard library
    (no site-packages, no kernelopt), so what it does before the worker starts is this file."""
    import ast

    tree = ast.parse(Path(jail.__file__).read_text())
    mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert mods <= set(sys.stdlib_module_names) | {"__future__"}, mods
    assert jail.command(jail.Spec(argv=["/bin/true"], env={}, parent=1))[1:3] == ["-I", "-S"]


def test_the_environment_the_child_gets_is_an_allowlist(monkeypatch, tmp_path):
    """No credentials, no KERNELOPT_* variables, nothing the judge did not name."""
    from kernelopt.runner import sandbox

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("KERNELOPT_FAULT", "oom:gate12")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("SOME_TOOL_SETTING", "1")
    box = sandbox.Box("cpu", 10.0)
    try:
        env = box.spec(["/bin/true"]).env
    finally:
        box.close()
    assert not [k for k in env if k.startswith(("ANTHROPIC", "KERNELOPT", "AWS")) or "SECRET" in k]
    assert "SOME_TOOL_SETTING" not in env
    assert env["HOME"] == "/tmp" and env["TMPDIR"] == "/tmp"


def test_the_run_directory_and_the_checkout_are_not_bound(tmp_path):
    """What the child may read: the system, the Python installation, the kernelopt package; not
    the checkout around the package (tests, run directories, .git), not the run directory."""
    from kernelopt.runner import sandbox

    box = sandbox.Box("cpu", 10.0, hidden=[ROOT / "workdir"])
    try:
        spec = box.spec(["/bin/true"])
    finally:
        box.close()
    readonly = {os.path.realpath(p) for p in spec.readonly}
    assert str(ROOT / "kernelopt") in readonly
    assert str(ROOT) not in readonly and str(ROOT / "tests") not in readonly
    assert str(ROOT / "workdir") in spec.hidden
    assert spec.writable_at == [(str(box.scratch), "/tmp")]
