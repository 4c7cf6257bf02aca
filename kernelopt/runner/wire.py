"""How the judge and a jailed child talk, and how tensors cross between them.

**Messages** go over one Unix socket (``Channel``): an 8-byte length, then ``torch.save`` of a
dict of plain data (and, in CPU mode, small tensors).  Both sides read with
``torch.load(weights_only=True)``: nothing in a message can run code, and the judge refuses a
message longer than its cap.  The child's messages are claims (errors, advisory watches, timings
it measured); the judge bases no verdict on them but the candidate's own failure.

**Tensors never travel as tensors.**  They live in *slots*: byte buffers both processes map, whose
layouts only the judge decides.  The judge copies an argument's bytes into a slot and sends the
slot's index with the shape, stride, offset and dtype to view it by; after the call it reads the
results from the same slot through its own view.  So a child can never hand the judge a tensor
of its choosing (a huge zero-stride view, another storage, an overlap): what the judge judges is
bytes at places it chose.

* CUDA: the child allocates each slot (``cuMemAlloc``) and exports it (``cuIpcGetMemHandle``); the
  judge opens the handle (``cuIpcOpenMemHandle``).  This direction works from a child of another,
  unprivileged uid; the other one (the judge exporting) fails with "mapping of buffer object
  failed" (bench/README.md, "Isolation that holds").  An opened buffer stays valid after the
  exporting child exits.
* CPU: the judge creates each slot as a ``memfd`` and passes its descriptor over the socket
  (``SCM_RIGHTS``); the child maps it.
"""

from __future__ import annotations

import ctypes
import io
import mmap
import os
import socket
import struct
import time
from dataclasses import dataclass
from typing import Any

HEADER = struct.Struct("<Q")
DEFAULT_MAX_BYTES = 1 << 30  # a judge reads no message longer than this from a child


class ChannelClosed(ConnectionError):
    """The other side closed the socket (a child that exited or was killed)."""


class ChannelTimeout(TimeoutError):
    """No message before the deadline."""


class MessageRefused(ValueError):
    """A message the reader will not take (too long, not a dict, does not load)."""


class Channel:
    """One end of the judge-child socket."""

    def __init__(self, sock: socket.socket, max_bytes: int = DEFAULT_MAX_BYTES):
        self.sock = sock
        self.max_bytes = max_bytes

    def send(self, obj: dict[str, Any], fds: list[int] | None = None) -> None:
        import torch

        buf = io.BytesIO()
        torch.save(obj, buf)
        data = buf.getvalue()
        head = HEADER.pack(len(data))
        self.sock.settimeout(None)
        if fds:
            socket.send_fds(self.sock, [head], fds)
            self.sock.sendall(data)
        else:
            self.sock.sendall(head + data)

    def _read(self, n: int, deadline: float | None) -> bytes:
        chunks, got = [], 0
        while got < n:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ChannelTimeout("no message before the deadline")
                self.sock.settimeout(left)
            else:
                self.sock.settimeout(None)
            try:
                chunk = self.sock.recv(min(n - got, 1 << 20))
            except TimeoutError as e:
                raise ChannelTimeout("no message before the deadline") from e
            if not chunk:
                raise ChannelClosed("the other side closed the channel")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def recv(self, deadline: float | None = None, with_fds: int = 0) -> tuple[dict[str, Any], list[int]]:
        """The next message (and up to ``with_fds`` descriptors sent with its header)."""
        import torch

        fds: list[int] = []
        if with_fds:
            self.sock.settimeout(None if deadline is None else max(deadline - time.monotonic(), 0.001))
            try:
                head, fds, _, _ = socket.recv_fds(self.sock, HEADER.size, with_fds)
            except TimeoutError as e:
                raise ChannelTimeout("no message before the deadline") from e
            if not head:
                raise ChannelClosed("the other side closed the channel")
            if len(head) < HEADER.size:
                head += self._read(HEADER.size - len(head), deadline)
        else:
            head = self._read(HEADER.size, deadline)
        (n,) = HEADER.unpack(head)
        if n > self.max_bytes:
            raise MessageRefused(f"a message of {n} bytes (at most {self.max_bytes})")
        data = self._read(n, deadline)
        try:
            obj = torch.load(io.BytesIO(data), weights_only=True)
        except Exception as e:  # noqa: BLE001 - whatever the bytes are, they are refused
            raise MessageRefused(f"a message that does not load: {type(e).__name__}: {str(e)[:200]}") from e
        if not isinstance(obj, dict):
            raise MessageRefused(f"a message that is a {type(obj).__name__}, not a dict")
        return obj, fds

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


# --------------------------------------------------------------------------- layouts
@dataclass(frozen=True)
class Layout:
    """How to view a slot: the judge's decision, never the child's."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int  # in elements
    dtype: str  # torch dtype name, e.g. "float32"

    def nbytes(self) -> int:
        """The bytes from the slot's start that the view reaches (0 for an empty tensor)."""
        import torch

        item = torch.empty(0, dtype=dtype_of(self.dtype)).element_size()
        if any(s == 0 for s in self.shape):
            return self.offset * item
        last = self.offset + sum((s - 1) * st for s, st in zip(self.shape, self.stride))
        return (last + 1) * item

    def to_dict(self) -> dict[str, Any]:
        return {"shape": list(self.shape), "stride": list(self.stride), "offset": self.offset, "dtype": self.dtype}

    @staticmethod
    def of(t: Any) -> Layout:
        return Layout(tuple(t.shape), tuple(t.stride()), int(t.storage_offset()), str(t.dtype).removeprefix("torch."))

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Layout:
        shape, stride = tuple(int(x) for x in d["shape"]), tuple(int(x) for x in d["stride"])
        return Layout(shape, stride, int(d["offset"]), str(d["dtype"]))


def dtype_of(name: str) -> Any:
    import torch

    d = getattr(torch, str(name).removeprefix("torch."), None)
    if not isinstance(d, torch.dtype):
        raise ValueError(f"not a dtype: {name!r}")
    return d


def view(buffer: Any, layout: Layout) -> Any:
    """``layout``'s tensor over a slot's bytes (a uint8 tensor); refuses one that does not fit."""
    import torch

    if any(s < 0 for s in layout.shape) or any(st < 0 for st in layout.stride) or layout.offset < 0:
        raise ValueError(f"negative sizes or strides in {layout}")
    if layout.nbytes() > buffer.numel():
        raise ValueError(f"{layout} needs {layout.nbytes()} bytes, the slot has {buffer.numel()}")
    dtype = dtype_of(layout.dtype)
    item = torch.empty(0, dtype=dtype).element_size()
    usable = buffer.numel() // item * item
    typed = buffer[:usable].view(dtype)
    return torch.as_strided(typed, layout.shape, layout.stride, layout.offset)


def byte_view(t: Any) -> Any:
    """The bytes of ``t``'s storage from its start up to the last byte ``t`` reaches."""
    import torch

    n = Layout.of(t).nbytes()
    raw = torch.empty(0, dtype=torch.uint8, device=t.device)
    raw.set_(t.untyped_storage(), 0, (n,), (1,))
    return raw


# --------------------------------------------------------------------------- CUDA slots
class _IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_ubyte * 64)]


_cuda = None


def _libcuda() -> Any:
    global _cuda
    if _cuda is None:
        _cuda = ctypes.CDLL("libcuda.so.1")
    return _cuda


def _check(rc: int, what: str) -> None:
    if rc != 0:
        raise RuntimeError(f"{what}: CUDA driver error {rc}")


class _Device:
    """A device pointer as a tensor (``__cuda_array_interface__``); holds no ownership."""

    def __init__(self, ptr: int, nbytes: int):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False), "version": 3}


def _wrap_device(ptr: int, nbytes: int) -> Any:
    import torch

    if nbytes == 0:
        return torch.empty(0, dtype=torch.uint8, device="cuda")
    return torch.as_tensor(_Device(ptr, nbytes), device="cuda")


def cuda_alloc_export(nbytes: int) -> tuple[Any, bytes, int]:
    """(a uint8 tensor over a fresh allocation, its IPC handle, its pointer): the child's side."""
    import torch

    torch.cuda.init()
    torch.empty(0, device="cuda")  # the primary context is current on this thread
    cu = _libcuda()
    ptr = ctypes.c_uint64()
    _check(cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1))), f"cuMemAlloc({nbytes})")
    h = _IpcHandle()
    _check(cu.cuIpcGetMemHandle(ctypes.byref(h), ctypes.c_uint64(ptr.value)), "cuIpcGetMemHandle")
    return _wrap_device(ptr.value, nbytes), bytes(h.reserved), ptr.value


def cuda_free(ptr: int) -> None:
    _libcuda().cuMemFree_v2(ctypes.c_uint64(ptr))


def cuda_open(handle: bytes, nbytes: int) -> tuple[Any, int]:
    """(a uint8 tensor over a child's exported allocation, the mapped pointer): the judge's side."""
    import torch

    if len(handle) != 64:
        raise ValueError("a CUDA IPC handle is 64 bytes")
    torch.empty(0, device="cuda")
    cu = _libcuda()
    h = _IpcHandle()
    ctypes.memmove(ctypes.addressof(h), handle, 64)
    ptr = ctypes.c_uint64()
    _check(cu.cuIpcOpenMemHandle_v2(ctypes.byref(ptr), h, ctypes.c_uint(1)), "cuIpcOpenMemHandle")
    size = ctypes.c_size_t()
    base = ctypes.c_uint64()
    if cu.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(ptr.value)) == 0:
        if size.value < nbytes:  # the child exported less than it was asked for
            cu.cuIpcCloseMemHandle(ctypes.c_uint64(ptr.value))
            raise ValueError(f"the child's slot has {size.value} bytes, {nbytes} were asked for")
    return _wrap_device(ptr.value, nbytes), ptr.value


def cuda_close(ptr: int) -> None:
    _libcuda().cuIpcCloseMemHandle(ctypes.c_uint64(ptr))


# --------------------------------------------------------------------------- CPU slots
def memfd_slot(nbytes: int) -> tuple[Any, int, mmap.mmap]:
    """(a uint8 tensor over fresh shared memory, its descriptor, the mapping): the judge's side."""
    import torch

    fd = os.memfd_create("kernelopt-slot", os.MFD_CLOEXEC)
    size = max(nbytes, 1)
    os.ftruncate(fd, size)
    mm = mmap.mmap(fd, size)
    t = torch.frombuffer(mm, dtype=torch.uint8)[:nbytes]
    return t, fd, mm


def memfd_map(fd: int, nbytes: int) -> tuple[Any, mmap.mmap]:
    """The child's view of a slot the judge sent (the descriptor is closed once mapped)."""
    import torch

    size = os.fstat(fd).st_size
    if size < max(nbytes, 1):
        raise ValueError(f"a slot of {size} bytes, {nbytes} expected")
    mm = mmap.mmap(fd, size)
    os.close(fd)
    return torch.frombuffer(mm, dtype=torch.uint8)[:nbytes], mm
