"""The operating-system boundary around every process that runs candidate code.

A jailed process is started by this file run as a script (``python -I -S jail.py SPEC``), which
does what bubblewrap does, with the kernel's own calls, before any candidate code exists:

1. ``unshare`` new mount, pid, network, IPC, UTS and cgroup namespaces (and a user namespace
   when the pipeline is not root), then ``fork``: the child is pid 1 of the new pid namespace
   (``init``); when it exits, the kernel kills every process left in the namespace, so nothing a
   candidate starts (``setsid``, a daemon) outlives it.  ``init`` dies with the launcher, and the
   launcher with the judge (``PR_SET_PDEATHSIG``).
2. A new root: a tmpfs with read-only bind mounts of an allowlist of host paths (the system,
   the Python installation, the packages the child imports), the scratch directory as ``/tmp``
   (the only writable place), a fresh ``/proc``, a ``/dev`` holding ``null``, ``zero``,
   ``full``, ``random``, ``urandom`` and the GPU's device nodes, nothing else; paths that must
   stay unseen (the run directory) are covered with an empty read-only tmpfs when an allowed
   path contains them; ``pivot_root`` into it and the host's tree is detached.
3. The worker (``init``'s child) drops to an unprivileged uid with no capabilities (bounding,
   ambient, permitted, effective, inheritable sets all empty) and ``no_new_privs``, sets every
   resource limit, installs a seccomp filter (libseccomp) that refuses sockets other than
   ``AF_UNIX``, ``ptrace``, ``process_vm_*``, mounts, namespaces (``setns``, ``unshare``,
   ``clone`` with namespace flags, ``clone3``), ``bpf``, keyrings, kernel modules, ``io_uring``,
   ``pidfd_getfd``, ``userfaultfd``, ``perf_event_open`` and clock or system administration,
   closes every file descriptor it was not given, and ``exec``s the job's command with the
   environment the judge built (an allowlist: no credentials, no ``KERNELOPT_*``).

Why our own launcher and not a tool: bubblewrap is not installed on the GPU machine and there is
no package index there; util-linux's ``unshare`` and ``setpriv`` exist on both machines but
cannot build a read-only root with a hidden run directory or load a seccomp filter.  The
launcher uses only the standard library and libseccomp (``libseccomp.so.2``, present on both);
without libseccomp it refuses to start.  Linux only.

This module is also imported by the judge (``Spec``, ``command``); running it imports nothing
of kernelopt.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import json
import os
import platform
import resource
import signal
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

# --------------------------------------------------------------------------- the kernel's constants
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACE_FLAGS = (
    CLONE_NEWNS,
    CLONE_NEWCGROUP,
    CLONE_NEWUTS,
    CLONE_NEWIPC,
    CLONE_NEWUSER,
    CLONE_NEWPID,
    CLONE_NEWNET,
)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 1, 24, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 0x1, 0x2, 0x4
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
SYSCALLS = {  # the calls glibc has no wrapper for
    "x86_64": {"pivot_root": 155, "capset": 126, "mount_setattr": 442},
    "aarch64": {"pivot_root": 41, "capset": 91, "mount_setattr": 442},
}
LAST_CAP = 63  # PR_CAPBSET_DROP past the kernel's last capability fails with EINVAL: ignored
AF_UNIX = 1

# system calls a candidate's process never needs: refused with EPERM
DENIED_SYSCALLS = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "setns",
    "unshare",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
    "bpf",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "syslog",
    "acct",
    "quotactl",
    "userfaultfd",
    "perf_event_open",
    "open_by_handle_at",
    "name_to_handle_at",
    "iopl",
    "ioperm",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "vhangup",
    "pidfd_getfd",
    "kcmp",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "uselib",
    "fanotify_init",
    "lookup_dcookie",
    "nfsservctl",
)


class JailError(RuntimeError):
    """The boundary could not be built: nothing of the job ran."""


@dataclass
class Spec:
    """What the launcher builds.  Paths are host paths unless they say ``inside``."""

    argv: list[str]
    env: dict[str, str]
    parent: int  # the judge's pid: the launcher exits at once if it is not its parent
    readonly: list[str] = field(default_factory=list)  # visible read-only, at the same path
    readonly_at: list[tuple[str, str]] = field(default_factory=list)  # (host, inside), read-only
    writable_at: list[tuple[str, str]] = field(default_factory=list)  # (host, inside), read-write
    overlays: list[tuple[str, str]] = field(default_factory=list)  # (lower, inside): writes stay inside
    hidden: list[str] = field(default_factory=list)  # never visible, even under an allowed path
    devices: list[str] = field(default_factory=list)  # /dev entries besides the basic ones
    uid: int = 65534
    gid: int = 65534
    cwd: str = "/tmp"
    keep_fds: list[int] = field(default_factory=list)  # besides 0, 1, 2
    limits: dict[str, int] = field(default_factory=dict)  # RLIMIT_* name -> soft and hard value
    seccomp: bool = True

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def command(spec: Spec) -> list[str]:
    """The argv that starts ``spec``'s process inside the boundary: this file, run by the same
    interpreter in isolated mode without ``site`` (it needs only the standard library)."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), spec.to_json()]


BASIC_DEVICES = ("null", "zero", "full", "random", "urandom")


def gpu_devices() -> list[str]:
    """The NVIDIA device nodes of this machine (``/dev/nvidia*``, ``/dev/nvidia-caps``)."""
    try:
        return sorted(f"/dev/{n}" for n in os.listdir("/dev") if n.startswith("nvidia"))
    except OSError:
        return []


# --------------------------------------------------------------------------- inside the launcher
_libc = None


def _c():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _check(ret: int, what: str) -> int:
    if ret < 0 or ret == -1:
        e = ctypes.get_errno()
        raise JailError(f"{what}: {os.strerror(e)} (errno {e})")
    return ret


def _syscall(name: str, *args) -> int:
    nr = SYSCALLS.get(platform.machine(), {}).get(name)
    if nr is None:
        raise JailError(f"{name}: unknown system call number on {platform.machine()}")
    return _c().syscall(ctypes.c_long(nr), *args)


def _prctl(option: int, arg: int = 0) -> int:
    zero = ctypes.c_ulong(0)
    return _c().prctl(ctypes.c_int(option), ctypes.c_ulong(arg), zero, zero, zero)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    ret = _c().mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data))
    _check(ret, f"mount {source or fstype} on {target}")


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _read_only(target: str, recursive: bool = True) -> None:
    """``target`` and (recursively) every mount below it read-only, nosuid, nodev."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0)
    ret = _syscall(
        "mount_setattr",
        ctypes.c_int(AT_FDCWD),
        target.encode(),
        ctypes.c_uint(AT_RECURSIVE if recursive else 0),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
    )
    if ret == 0:
        return
    # kernels before 5.12: remount the top mount (submounts of an allowed path keep their flags)
    _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _mountpoint(path: str, like: str) -> None:
    """An empty directory or file at ``path`` (in the new root) to mount ``like`` on."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.isdir(like):
        os.makedirs(path, exist_ok=True)
    elif not os.path.exists(path):
        with open(path, "w"):
            pass


def _bind(host: str, inside: str, read_only: bool, device: bool = False) -> None:
    src = "/oldroot" + host
    dst = "/newroot" + inside
    if os.path.islink(src) and host == inside:
        # /bin -> usr/bin and the like: the same link in the new root
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.lexists(dst):
            os.symlink(os.readlink(src), dst)
        return
    if not os.path.exists(src):
        return
    _mountpoint(dst, src)
    _mount(src, dst, None, MS_BIND | MS_REC)
    if read_only:
        _read_only(dst)
    else:
        _mount(None, dst, None, MS_REMOUNT | MS_BIND | MS_NOSUID | (0 if device else MS_NODEV))


def _devices(spec: Spec) -> None:
    dev = "/newroot/dev"
    os.makedirs(dev, exist_ok=True)
    _mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=1m")
    for name in BASIC_DEVICES:
        _bind(f"/dev/{name}", f"/dev/{name}", read_only=False, device=True)
    for path in spec.devices:
        _bind(path, path, read_only=False, device=True)
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{i}", f"{dev}/{name}")
    os.symlink("/proc/self/fd", f"{dev}/fd")
    os.makedirs(f"{dev}/shm")
    _mount("tmpfs", f"{dev}/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=64m")
    _mount(None, dev, None, MS_REMOUNT | MS_NOSUID | MS_NOEXEC | MS_RDONLY)


def _hide(path: str) -> None:
    """An empty read-only tmpfs over ``path`` when an allowed path made it visible."""
    dst = "/newroot" + path
    if os.path.isdir(dst):
        _mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=0555")
    elif os.path.lexists(dst):
        _mount("/newroot/dev/null", dst, None, MS_BIND)


def _overlay(i: int, lower: str, inside: str, spec: Spec, userns: bool) -> None:
    """``lower`` (a host directory: the problem's compile caches) at ``inside``, writable, its
    writes kept in a tmpfs that goes with the sandbox; the host's directory is never written.
    Its directories are the worker's (a copy-up of their metadata), so it can add files.
    Where overlayfs is refused, an empty writable directory (everything recompiles)."""
    dst = "/newroot" + inside
    os.makedirs(dst, exist_ok=True)
    layer = f"/overlay-{i}"
    os.makedirs(layer)
    _mount("tmpfs", layer, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=8g")
    owner = (0, 0) if userns else (spec.uid, spec.gid)
    for d in ("upper", "work"):
        os.makedirs(f"{layer}/{d}")
    os.chown(f"{layer}/upper", *owner)
    try:
        opts = f"lowerdir=/oldroot{lower},upperdir={layer}/upper,workdir={layer}/work"
        _mount("overlay", dst, "overlay", MS_NOSUID | MS_NODEV, opts)
    except JailError as e:
        os.write(2, f"kernelopt jail: no overlay for {lower} ({e}); an empty cache instead\n".encode())
        _mount(f"{layer}/upper", dst, None, MS_BIND)
        return
    if not userns:
        for root, dirs, _ in os.walk(dst):
            os.chown(root, *owner)
            for d in dirs:
                os.chown(os.path.join(root, d), *owner)


def build_root(spec: Spec, userns: bool = False) -> None:
    """The new root (step 2 of the module docstring); runs as root in the new namespaces."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m")
    os.chdir("/tmp")
    os.mkdir("newroot")
    os.mkdir("oldroot")
    _mount("newroot", "newroot", None, MS_BIND | MS_REC)
    _check(_syscall("pivot_root", b".", b"oldroot"), "pivot_root into the staging tmpfs")
    os.chdir("/")
    # the writable places first: a read-only path under one of them (a package directory under
    # /tmp on the host, where the scratch is /tmp inside) is then bound on top, not hidden by it
    for host, inside in spec.writable_at:
        _bind(host, inside, read_only=False)
    for path in spec.readonly:
        _bind(path, path, read_only=True)
    for host, inside in spec.readonly_at:
        _bind(host, inside, read_only=True)
    for i, (lower, inside) in enumerate(spec.overlays):
        _overlay(i, lower, inside, spec, userns)
    os.makedirs("/newroot/proc", exist_ok=True)
    _mount("proc", "/newroot/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _devices(spec)
    for path in spec.hidden:
        _hide(path)
    for d in ("/newroot/tmp", "/newroot" + spec.cwd):
        os.makedirs(d, exist_ok=True)
    # into the new root; the host's tree goes
    os.chdir("/newroot")
    _check(_syscall("pivot_root", b".", b"."), "pivot_root into the new root")
    _check(_c().umount2(b".", ctypes.c_int(MNT_DETACH)), "detach the host's root")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


# --------------------------------------------------------------------------- the worker's privileges
def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _map_ids(inside_uid: int, outside_uid: int, inside_gid: int, outside_gid: int) -> None:
    """This process's new user namespace maps one uid and one gid (no other groups)."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{inside_uid} {outside_uid} 1")
    _write("/proc/self/gid_map", f"{inside_gid} {outside_gid} 1")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _no_capabilities() -> None:
    for cap in range(LAST_CAP + 1):
        _prctl(PR_CAPBSET_DROP, cap)  # EINVAL past the last capability: nothing to drop
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    _check(_syscall("capset", ctypes.byref(header), ctypes.byref(data)), "capset (drop every capability)")


def drop_privileges(spec: Spec, userns: bool) -> None:
    """To ``spec.uid``/``spec.gid`` with no capabilities and ``no_new_privs``.  As root: real
    ids.  In a user namespace (the pipeline is not root): one more user namespace that maps
    ``spec.uid`` onto this process's id, whose capabilities are then dropped too."""
    if userns:
        _check(_c().unshare(ctypes.c_int(CLONE_NEWUSER)), "unshare a user namespace for the worker")
        _map_ids(spec.uid, 0, spec.gid, 0)
        _no_capabilities()
    else:
        for cap in range(LAST_CAP + 1):
            _prctl(PR_CAPBSET_DROP, cap)
        os.setgroups([])
        os.setresgid(spec.gid, spec.gid, spec.gid)
        os.setresuid(spec.uid, spec.uid, spec.uid)  # from root: every capability set is cleared
        _no_capabilities()
    _check(_prctl(PR_SET_NO_NEW_PRIVS, 1), "no_new_privs")


def set_limits(limits: dict[str, int]) -> None:
    for name, value in limits.items():
        kind = getattr(resource, name)
        _, hard = resource.getrlimit(kind)
        v = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (v, v))


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_NE, SCMP_CMP_MASKED_EQ = 1, 7


def _errno_action(e: int) -> int:
    return 0x00050000 | (e & 0xFFFF)


def load_libseccomp():
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as e:
        raise JailError(f"libseccomp is not installed ({e}); install libseccomp2 (Debian/Ubuntu)") from e
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


def install_seccomp() -> None:
    """The filter of the module docstring (step 3); every later process inherits it."""
    lib = load_libseccomp()
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise JailError("seccomp_init failed")
    deny = _errno_action(errno.EPERM)

    def rule(action: int, name: str, *cmps: _ArgCmp) -> None:
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:
            return  # not a system call on this architecture
        arr = (_ArgCmp * len(cmps))(*cmps) if cmps else None
        ret = lib.seccomp_rule_add_array(ctypes.c_void_p(ctx), action, nr, len(cmps), arr)
        if ret < 0:
            raise JailError(f"seccomp rule for {name}: {os.strerror(-ret)}")

    for name in DENIED_SYSCALLS:
        rule(deny, name)
    rule(deny, "socket", _ArgCmp(0, SCMP_CMP_NE, AF_UNIX, 0))
    rule(deny, "socketpair", _ArgCmp(0, SCMP_CMP_NE, AF_UNIX, 0))
    for flag in NAMESPACE_FLAGS:  # threads and plain forks stay possible
        rule(deny, "clone", _ArgCmp(0, SCMP_CMP_MASKED_EQ, flag, flag))
    rule(_errno_action(errno.ENOSYS), "clone3")  # its flags are out of a filter's reach: glibc falls back to clone
    ret = lib.seccomp_load(ctypes.c_void_p(ctx))
    lib.seccomp_release(ctypes.c_void_p(ctx))
    if ret < 0:
        raise JailError(f"seccomp_load: {os.strerror(-ret)}")


# --------------------------------------------------------------------------- the processes
def fail(msg: str) -> None:
    """Say why on stderr and exit 125: nothing of the job ran."""
    os.write(2, f"kernelopt jail: {msg}\n".encode())
    os._exit(125)


def die_with_parent() -> None:
    """This process is killed when its parent ends (``PR_SET_PDEATHSIG``)."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _status(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _worker(spec: Spec, userns: bool, run: Callable[[], None] | None = None) -> None:
    try:
        os.chdir(spec.cwd)
        set_limits(spec.limits)
        drop_privileges(spec, userns)
        if spec.seccomp:
            install_seccomp()
        keep = {0, 1, 2, *spec.keep_fds}
        for fd in _open_fds():
            if fd not in keep:
                try:
                    os.close(fd)
                except OSError:
                    pass
        for fd in spec.keep_fds:
            os.set_inheritable(fd, True)
        if run is None:
            os.execve(spec.argv[0], spec.argv, spec.env)
        os.environ.clear()
        os.environ.update(spec.env)
    except BaseException as e:  # noqa: BLE001 - nothing of the job may run past a failed step
        fail(f"worker: {type(e).__name__}: {e}")
    os._exit(_run_here(run))


def _run_here(run: Callable[[], None]) -> int:
    """``run`` in this process where ``execve`` would have started the job's command (a child
    forked from a process that had the job's imports done, ``runner/child.py --zygote``): its
    exit status as the interpreter's would be."""
    code = 0
    try:
        run()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - reported as the interpreter would, then exit 1
        import traceback

        traceback.print_exc()
        code = 1
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:  # noqa: BLE001 - a closed stream: nothing more to say
            pass
    return code


def _open_fds() -> list[int]:
    try:
        return sorted(int(n) for n in os.listdir("/proc/self/fd"))
    except OSError:
        return list(range(3, 1024))


def _init(spec: Spec, userns: bool, run: Callable[[], None] | None = None) -> None:
    """pid 1 of the new pid namespace: builds the root, starts the worker, reaps; its exit
    ends every process of the namespace."""
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        build_root(spec, userns)
        _c().sethostname(b"kernelopt-sandbox", ctypes.c_size_t(17))
    except BaseException as e:  # noqa: BLE001
        fail(f"init: {type(e).__name__}: {e}")
    worker = os.fork()
    if worker == 0:
        _worker(spec, userns, run)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(125)
        if pid == worker:
            os._exit(_status(status))


def main() -> None:
    spec = Spec(**json.loads(sys.argv[1]))
    launch(spec)


def launch(spec: Spec, run: Callable[[], None] | None = None) -> None:
    """Build the boundary of ``spec`` and run its command inside (``run``, where given: called
    in the jailed worker where ``execve`` would have run ``spec.argv``); never returns: this
    process exits with the jailed worker's status (128 + n for signal n)."""
    spec.readonly_at = [tuple(x) for x in spec.readonly_at]
    spec.writable_at = [tuple(x) for x in spec.writable_at]
    spec.overlays = [tuple(x) for x in spec.overlays]
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != spec.parent:
        fail("the judge is gone")
    userns = os.geteuid() != 0
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP
    uid, gid = os.geteuid(), os.getegid()
    try:
        _check(_c().unshare(ctypes.c_int(flags | (CLONE_NEWUSER if userns else 0))), "unshare namespaces")
        if userns:
            _map_ids(0, uid, 0, gid)
    except JailError as e:
        fail(str(e))
    child = os.fork()
    if child == 0:
        _init(spec, userns, run)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, f: os.kill(child, signal.SIGKILL))
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    os._exit(_status(status))


if __name__ == "__main__":
    main()
