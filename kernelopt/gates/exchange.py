"""How tensors cross between the judging parent and the sandboxed child.

CPU tensors travel by value in the request and reply files (CPU mode's tensors are tiny).  CUDA
tensors travel as CUDA IPC handles (``torch.multiprocessing``'s reduction): the child writes
into the parent's own buffers and nothing is copied, which is what GiB-sized KernelBench inputs
need.  Set ``KERNELOPT_EXCHANGE=copy`` to move CUDA tensors by value instead (through host
memory), e.g. where IPC is not available.
"""

from __future__ import annotations

import os
from typing import Any

IPC_TAG = "__kernelopt_cuda_ipc__"


def _ipc() -> bool:
    return os.environ.get("KERNELOPT_EXCHANGE", "ipc") != "copy"


def pack(obj: Any) -> tuple[Any, list[Any]]:
    """``obj`` with every CUDA tensor replaced by an IPC handle (or a host copy); the list keeps
    the shared tensors alive until the child is done."""
    import torch

    keep: list[Any] = []

    def walk(o: Any) -> Any:
        if isinstance(o, torch.Tensor):
            if o.is_cuda and _ipc():
                from torch.multiprocessing.reductions import reduce_tensor

                keep.append(o)
                rebuild, args = reduce_tensor(o)
                return {IPC_TAG: True, "rebuild": rebuild.__name__, "args": args}
            if o.is_cuda:
                return {IPC_TAG: False, "tensor": o.detach().cpu(), "device": str(o.device)}
            return o
        if isinstance(o, dict):
            return {k: walk(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return type(o)(walk(v) for v in o)
        return o

    return walk(obj), keep


class Staging:
    """The buffers a stream hands its child, one per argument position, allocated once and
    refilled for every call (``put``), so that a stream of calls shares the same GPU memory with
    the child instead of new tensors per call.  A tensor shared through CUDA IPC stays allocated
    in this process until the child's reference count says it let go (torch's "limbo"); on the
    H200 those counts did not come back while the stream ran, so every call of a 6 GiB unit kept
    its 12 GiB of arguments: 115.5 GiB after six calls, out of memory on the seventh.  Reused
    buffers bound that to one call's arguments.  CPU tensors (CPU mode: sent by value) use the same
    buffers, so the tests run this path too."""

    def __init__(self) -> None:
        self._bufs: dict[Any, tuple[tuple[Any, ...], Any]] = {}

    def put(self, slot: Any, t: Any) -> Any:
        """A buffer laid out like ``t.clone()`` holding ``t``'s values (``empty_like``)."""
        import torch

        if not isinstance(t, torch.Tensor):
            return t
        return self.empty_like(slot, t).copy_(t)

    def empty_like(self, slot: Any, t: Any) -> Any:
        """A buffer laid out like ``torch.empty_like(t)`` (contents undefined): the one this
        ``slot`` had at the last call when shape, strides, dtype and device agree."""
        import torch

        key = (tuple(t.shape), tuple(t.stride()), t.dtype, t.device)
        held = self._bufs.get(slot)
        if held is None or held[0] != key:
            self._bufs.pop(slot, None)
            held = (key, torch.empty_like(t))
            self._bufs[slot] = held
        return held[1]


def collect() -> None:
    """Free the GPU memory of tensors this process shared with a child whose reference counts
    came back (torch keeps a shared CUDA tensor's block in its "limbo" until then).  On the H200
    calling it after every streamed call freed nothing while the child ran, which is why streams
    reuse their buffers (``Staging``); ``bench/ipc_stream_gpu.py`` measures both."""
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.ipc_collect()


def unpack(obj: Any) -> Any:
    """The child's view of a packed job: IPC handles opened, copies moved to the GPU."""

    def walk(o: Any) -> Any:
        if isinstance(o, dict) and IPC_TAG in o:
            if o[IPC_TAG]:
                from torch.multiprocessing import reductions

                return getattr(reductions, o["rebuild"])(*o["args"])
            return o["tensor"].to(o["device"])
        if isinstance(o, dict):
            return {k: walk(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return type(o)(walk(v) for v in o)
        return o

    return walk(obj)


def shared_in_place(t: Any) -> bool:
    """Whether the child's writes into ``t`` reach the parent's tensor without a reply."""
    return bool(getattr(t, "is_cuda", False)) and _ipc()
