"""A throwaway single-node SLURM cluster, for tests and for trying profiles/slurm by hand.

Everything lives in one directory: munged with its own key and socket, a MariaDB server with a
fresh data directory, slurmdbd (so that ``sacct`` works: the executor plugin polls job states
with it), slurmctld and one slurmd, all on free TCP ports above 30000 on 127.0.0.1, all in the
foreground as children of this process, all stopped by ``stop()`` (jobs are cancelled first).
Clients find the cluster through ``SLURM_CONF`` (``cluster.env``).

The node is built for a container run as root (Debian bookworm, slurm-wlm 22.05):
``proctrack/linuxproc``, ``task/none``, no cgroups, SlurmUser and SlurmdUser root.  It has two
partitions (``cpu`` and ``gpu``, both on the one node), an account, and ``gpus`` fake GPUs:
GRES ``gpu`` backed by character devices made with ``mknod`` (copies of /dev/null; slurmd drops
a GPU without a device file), so ``--gpus=1`` is scheduled, accounted (``sacct``: AllocTRES
``gres/gpu=1``) and sets ``CUDA_VISIBLE_DEVICES`` as on a real GPU node.  The node may claim
more CPUs and memory than the machine has (``SlurmdParameters=config_overrides``), so that a
profile's real requests fit; nothing enforces them here.

By hand (Debian: ``apt-get install slurm-wlm slurmdbd munge mariadb-server``)::

    python tests/slurm_cluster.py /tmp/kotest      # prints `export SLURM_CONF=...`, Ctrl-C stops it
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

# what the cluster needs on PATH (Debian: slurm-wlm, slurmdbd, munge, mariadb-server)
DAEMONS = ["munged", "mariadbd", "mariadb-install-db", "slurmdbd", "slurmctld", "slurmd"]
CLIENTS = ["sbatch", "srun", "squeue", "sacct", "sacctmgr", "scontrol", "sinfo", "scancel"]
PACKAGES = "slurm-wlm slurmdbd munge mariadb-server"


def missing() -> list[str]:
    """The programs of DAEMONS and CLIENTS that are not installed."""
    return [p for p in DAEMONS + CLIENTS if shutil.which(p) is None and not Path("/usr/sbin", p).exists()]


def _exe(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_ports(n: int) -> list[int]:
    socks, ports = [], []
    try:
        while len(ports) < n:
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            if s.getsockname()[1] > 30000:
                ports.append(s.getsockname()[1])
        return ports
    finally:
        for s in socks:
            s.close()


class ClusterError(RuntimeError):
    pass


class SlurmCluster:
    """``with SlurmCluster(root) as c:`` starts the cluster, and stops it however the block
    ends.  ``c.env``: the environment for clients (SLURM_CONF); ``c.run([...])``: a client."""

    def __init__(
        self,
        root: str | Path,
        *,
        cpus: int | None = None,
        mem_mb: int = 16000,
        gpus: int = 2,
        account: str = "kernelopt",
        partitions: tuple[str, ...] = ("cpu", "gpu"),
        name: str = "kotest",
    ):
        self.root = Path(root).resolve()
        self.cpus = cpus or os.cpu_count() or 2
        self.mem_mb, self.gpus, self.account, self.partitions, self.name = mem_mb, gpus, account, partitions, name
        self.procs: dict[str, subprocess.Popen] = {}
        self.conf = self.root / "etc" / "slurm.conf"
        self.bin = self.root / "bin"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf), "PATH": f"{self.bin}:{os.environ.get('PATH', '')}"}
        for var in [v for v in self.env if v.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_"))]:
            if var != "SLURM_CONF":
                del self.env[var]

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> SlurmCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self, timeout: float = 90) -> None:
        if missing():
            raise ClusterError(f"not installed: {' '.join(missing())} (Debian: apt-get install {PACKAGES})")
        for d in ("etc", "munge", "db", "state", "spool", "log", "dev"):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o755)
        os.chmod(self.root / "munge", 0o700)
        self.ports = dict(zip(("mysql", "dbd", "ctld", "slurmd"), _free_ports(4)))
        self._client_wrappers()
        self._munge(timeout)
        self._mariadb(timeout)
        self._write_confs()
        self._daemon("slurmdbd", [_exe("slurmdbd"), "-D"])
        dbd_up = lambda: self.run(["sacctmgr", "-n", "list", "cluster"], check=False).returncode == 0  # noqa: E731
        self._wait(dbd_up, timeout, "slurmdbd")
        self.run(["sacctmgr", "-i", "add", "cluster", self.name])
        self.run(["sacctmgr", "-i", "add", "account", self.account, f"cluster={self.name}"])
        self.run(["sacctmgr", "-i", "add", "user", "root", f"account={self.account}", f"cluster={self.name}"])
        self._daemon("slurmctld", [_exe("slurmctld"), "-D", "-i"])
        self._wait(lambda: self.run(["scontrol", "ping"], check=False).stdout.count("UP") > 0, timeout, "slurmctld")
        self._daemon("slurmd", [_exe("slurmd"), "-D", "-N", "konode"])

        def idle() -> bool:
            states = self.run(["sinfo", "-h", "-N", "-o", "%t"], check=False).stdout.split()
            return bool(states) and all(s.rstrip("*") in ("idle", "mix", "alloc") for s in states)

        self._wait(idle, timeout, "slurmd (node idle)")

    def stop(self) -> None:
        """Cancel every job, then stop the daemons, newest first (each with its process group)."""
        if "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            with contextlib.suppress(Exception):
                self.run(["scancel", "--full", f"--user={os.getuid()}"], check=False, timeout=20)
                deadline = time.time() + 30
                while time.time() < deadline and self.run(["squeue", "-h"], check=False, timeout=20).stdout.strip():
                    time.sleep(1)
        for name in reversed(list(self.procs)):
            p = self.procs.pop(name)
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(p.pid, signal.SIGKILL)
                    p.wait(timeout=10)
            # a daemon's own children (slurmctld's slurmscriptd, slurmd's slurmstepd) left behind
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(p.pid, signal.SIGKILL)

    # ------------------------------------------------------------------ clients
    def run(self, args: list[str], check: bool = True, timeout: float = 60, **kw) -> subprocess.CompletedProcess:
        r = subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=timeout, **kw)
        if check and r.returncode != 0:
            raise ClusterError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[-2000:]}")
        return r

    def sacct(self, fields: str = "JobIDRaw,JobName,State,Partition,Account,AllocTRES%80,Comment%200,ExitCode"):
        """Every job of the cluster (no steps) as a list of dicts, from the accounting database."""
        r = self.run(["sacct", "-a", "-X", "-n", "--parsable2", f"--format={fields}", "--starttime=2000-01-01"])
        names = [f.split("%")[0] for f in fields.split(",")]
        return [dict(zip(names, line.split("|"))) for line in r.stdout.splitlines() if line.strip()]

    def logs(self, tail: int = 40) -> str:
        """The end of every daemon log, for a failed test's message."""
        out = []
        for f in sorted((self.root / "log").glob("*.log")):
            lines = f.read_text(errors="replace").splitlines()[-tail:]
            out.append(f"--- {f.name}\n" + "\n".join(lines))
        return "\n".join(out)

    # ------------------------------------------------------------------ daemons
    def _daemon(self, name: str, argv: list[str]) -> subprocess.Popen:
        log = open(self.root / "log" / f"{name}.out", "ab")  # noqa: SIM115 - lives as long as the daemon
        p = subprocess.Popen(argv, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.procs[name] = p
        return p

    def _wait(self, ready, timeout: float, what: str) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            for name, p in self.procs.items():
                if p.poll() is not None:
                    raise ClusterError(f"{name} exited ({p.returncode}) while waiting for {what}\n{self.logs()}")
            with contextlib.suppress(Exception):
                if ready():
                    return
            time.sleep(0.5)
        raise ClusterError(f"{what} not ready after {timeout:.0f} s\n{self.logs()}")

    def _client_wrappers(self) -> None:
        """``bin/<client>``: the client with ``SLURM_CONF`` set, first on ``env``'s PATH.  The
        executor plugin's job step (snakemake-executor-plugin-slurm-jobstep 0.6) drops every
        ``SLURM_*`` variable but the job's ids before it calls ``srun``, SLURM_CONF included, so
        a cluster whose slurm.conf is not at the default path needs this (a real site: the
        default path, or configless slurmd)."""
        self.bin.mkdir(parents=True, exist_ok=True)
        for name in CLIENTS:
            w = self.bin / name
            w.write_text(f'#!/bin/sh\nSLURM_CONF="{self.conf}" exec {shutil.which(name) or name} "$@"\n')
            w.chmod(0o755)

    def _munge(self, timeout: float) -> None:
        key = self.root / "munge" / "munge.key"
        if not key.exists():
            key.write_bytes(os.urandom(1024))
            key.chmod(0o400)
        self.munge_socket = self.root / "munge" / "munge.socket"
        self._daemon(
            "munged",
            [
                _exe("munged"),
                "--foreground",
                "--force",
                f"--key-file={key}",
                f"--socket={self.munge_socket}",
                f"--pid-file={self.root / 'munge' / 'munged.pid'}",
                f"--log-file={self.root / 'log' / 'munged.log'}",
                f"--seed-file={self.root / 'munge' / 'munged.seed'}",
            ],
        )
        self._wait(self.munge_socket.exists, timeout, "munged")

    def _mariadb(self, timeout: float) -> None:
        data = self.root / "db" / "data"
        if not data.exists():
            r = subprocess.run(
                [
                    _exe("mariadb-install-db"),
                    "--no-defaults",
                    f"--datadir={data}",
                    "--user=root",
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db",
                ],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if r.returncode != 0:
                raise ClusterError(f"mariadb-install-db: {(r.stdout + r.stderr)[-2000:]}")
        self._daemon(
            "mariadbd",
            [
                _exe("mariadbd"),
                "--no-defaults",
                f"--datadir={data}",
                f"--socket={self.root / 'db' / 'mysqld.sock'}",
                f"--port={self.ports['mysql']}",
                "--bind-address=127.0.0.1",
                "--user=root",
                f"--pid-file={self.root / 'db' / 'mysqld.pid'}",
                f"--log-error={self.root / 'log' / 'mariadb.log'}",
                "--skip-log-bin",
                "--innodb-buffer-pool-size=64M",
                "--innodb-lock-wait-timeout=900",
            ],
        )

        def up() -> bool:
            with socket.create_connection(("127.0.0.1", self.ports["mysql"]), timeout=1):
                return True

        self._wait(up, timeout, "mariadbd")

    def _fake_gpus(self) -> str:
        """Device files for the fake GPUs (slurmd keeps only GPUs with a device file)."""
        files = [self.root / "dev" / f"fakegpu{i}" for i in range(self.gpus)]
        for f in files:
            if not f.exists():
                try:
                    os.mknod(f, 0o666 | 0o020000, os.makedev(1, 3))  # a character device like /dev/null
                except OSError:
                    f.touch()  # no mknod here: slurmd complains in its log, but counts the GPU
        return f"{self.root / 'dev'}/fakegpu[0-{self.gpus - 1}]" if self.gpus > 1 else str(files[0])

    def _write_confs(self) -> None:
        r, host = self.root, socket.gethostname().split(".")[0]
        dbd = self.conf.parent / "slurmdbd.conf"
        dbd.write_text(
            "\n".join(
                [
                    "AuthType=auth/munge",
                    f"AuthInfo=socket={self.munge_socket}",
                    "DbdHost=localhost",
                    "DbdAddr=127.0.0.1",
                    f"DbdPort={self.ports['dbd']}",
                    "SlurmUser=root",
                    "StorageType=accounting_storage/mysql",
                    "StorageHost=127.0.0.1",
                    f"StoragePort={self.ports['mysql']}",
                    "StorageUser=root",
                    "StorageLoc=slurm_acct_db",
                    f"PidFile={r / 'state' / 'slurmdbd.pid'}",
                    f"LogFile={r / 'log' / 'slurmdbd.log'}",
                    "DebugLevel=info",
                    "",
                ]
            )
        )
        dbd.chmod(0o600)
        gres = f"Gres=gpu:{self.gpus}" if self.gpus else ""
        (self.conf.parent / "gres.conf").write_text(
            f"NodeName=konode Name=gpu File={self._fake_gpus()}\n" if self.gpus else ""
        )
        parts = [
            f"PartitionName={p} Nodes=konode MaxTime=INFINITE State=UP{' Default=YES' if i == 0 else ''}"
            for i, p in enumerate(self.partitions)
        ]
        self.conf.write_text(
            "\n".join(
                [
                    f"ClusterName={self.name}",
                    f"SlurmctldHost={host}(127.0.0.1)",
                    f"SlurmctldPort={self.ports['ctld']}",
                    f"SlurmdPort={self.ports['slurmd']}",
                    "SlurmUser=root",
                    "SlurmdUser=root",
                    "AuthType=auth/munge",
                    f"AuthInfo=socket={self.munge_socket}",
                    "CredType=cred/munge",
                    f"StateSaveLocation={r / 'state'}",
                    f"SlurmdSpoolDir={r / 'spool'}",
                    f"SlurmctldPidFile={r / 'state' / 'slurmctld.pid'}",
                    f"SlurmdPidFile={r / 'state' / 'slurmd.pid'}",
                    f"SlurmctldLogFile={r / 'log' / 'slurmctld.log'}",
                    f"SlurmdLogFile={r / 'log' / 'slurmd.log'}",
                    "SlurmctldDebug=info",
                    "SlurmdDebug=info",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/none",
                    "JobAcctGatherType=jobacct_gather/none",
                    "AccountingStorageType=accounting_storage/slurmdbd",
                    "AccountingStorageHost=localhost",
                    f"AccountingStoragePort={self.ports['dbd']}",
                    # the munge socket for slurmdbd connections (sacct, sacctmgr, slurmctld)
                    f"AccountingStoragePass={self.munge_socket}",
                    "AccountingStorageTRES=gres/gpu",
                    # sacct's Comment: the plugin writes rule_<rule>_wildcards_<...> there
                    "AccountingStoreFlags=job_comment",
                    "SelectType=select/cons_tres",
                    "SelectTypeParameters=CR_Core_Memory",
                    "SchedulerType=sched/backfill",
                    "SchedulerParameters=sched_interval=2",
                    "MpiDefault=none",
                    "ReturnToService=2",
                    "SlurmdParameters=config_overrides",
                    "GresTypes=gpu",
                    "MinJobAge=600",
                    "InactiveLimit=0",
                    "KillWait=5",
                    "SlurmctldTimeout=30",
                    "SlurmdTimeout=60",
                    f"NodeName=konode NodeAddr=127.0.0.1 NodeHostname={host} CPUs={self.cpus} Boards=1 "
                    f"SocketsPerBoard=1 CoresPerSocket={self.cpus} ThreadsPerCore=1 RealMemory={self.mem_mb} "
                    f"{gres} State=UNKNOWN",
                    *parts,
                    "",
                ]
            )
        )


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/kotest")
    # stop cleanly on SIGTERM too, and on SIGINT even when started in the background
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with SlurmCluster(root, cpus=16, mem_mb=256000) as c:
        print(f"SLURM cluster up (partitions {', '.join(c.partitions)}; account {c.account}; {c.gpus} fake GPUs).")
        print(f"  export SLURM_CONF={c.conf}")
        print("Ctrl-C stops it.", flush=True)
        with contextlib.suppress(KeyboardInterrupt, SystemExit):
            while all(p.poll() is None for p in c.procs.values()):
                time.sleep(2)


if __name__ == "__main__":
    main()
