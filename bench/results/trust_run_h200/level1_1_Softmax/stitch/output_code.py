# AOT ID: ['0_inference']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p
from torch._C import _cuda_getCurrentRawStream as get_raw_stream



# kernel path: /tmp/kernelopt-trust/level1_1_Softmax/capture/cache/inductor/3c/c3cxyxqzvb2hlwrb52e6nclphs577esb7gkqcnuugxauct3isxq5.py
# Topologically Sorted Source Nodes: [softmax], Original ATen: [prims.prepare_softmax_online, aten.sub, aten.exp, aten._softmax]
# Source node to ATen node mapping:
#   softmax => div
# Graph fragment:
#   %arg0_1 : Tensor "f32[4096, 16384][16384, 1]cuda:0" = PlaceHolder[target=arg0_1]
#   %getitem : Tensor "f32[4096, 1][1, 4096]cuda:0" = PlaceHolder[target=getitem]
#   %getitem_1 : Tensor "f32[4096, 1][1, 4096]cuda:0" = PlaceHolder[target=getitem_1]
#   %prepare_softmax_online_default : [num_users=2] = call_function[target=torch.ops.prims.prepare_softmax_online.default](args = (%arg0_1, -1), kwargs = {})
#   %sub_tensor : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%arg0_1, %getitem), kwargs = {})
#   %exp_default : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%sub_tensor,), kwargs = {})
#   %div : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%exp_default, %getitem_1), kwargs = {})
#   return %getitem,%getitem_1,%div


# --- kernelopt: loader for replaced kernels (the rest of this file is Inductor's, unchanged) ---
def _kernelopt_candidate_loader(path):
    """Import the candidate file ``path`` as a fresh module named ``kernelopt_candidate``."""
    import hashlib
    import linecache
    import types

    with open(path, encoding="utf-8") as f:
        source = f.read()
    filename = "kernelopt-candidate/" + hashlib.sha256(source.encode()).hexdigest()[:16] + ".py"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType("kernelopt_candidate")
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def _kernelopt_candidate(name, relpath):
    import os as _os

    path = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), relpath)
    mod = _kernelopt_candidate_loader(path)

    class KerneloptCandidate:
        """Stands where Inductor's kernel object stood: the wrapper calls .run(*args, stream=...)."""

        kernelopt_candidate = name

        def run(self, *args, stream=None, **kwargs):
            return mod.launch(*args)

    return KerneloptCandidate()
# --- end kernelopt loader ---

# kernelopt: Inductor's triton_red_fused__softmax_exp_prepare_softmax_online_sub_0 replaced by candidates/triton_red_fused__softmax_exp_prepare_softmax_online_sub_0.py (sha256 4e2e89f1a0a853fd; from /tmp/kernelopt-trust/level1_1_Softmax/units/triton_red_fused__softmax_exp_prepare_softmax_online_sub_0/cands/c1/candidate.py)
triton_red_fused__softmax_exp_prepare_softmax_online_sub_0 = _kernelopt_candidate('triton_red_fused__softmax_exp_prepare_softmax_online_sub_0', 'candidates/triton_red_fused__softmax_exp_prepare_softmax_online_sub_0.py')

def partition_0(args):
    arg0_1, = args
    args.clear()
    assert_size_stride(arg0_1, (4096, 16384), (16384, 1))
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        buf2 = empty_strided_cuda((4096, 16384), (16384, 1), torch.float32)
        # Topologically Sorted Source Nodes: [softmax], Original ATen: [prims.prepare_softmax_online, aten.sub, aten.exp, aten._softmax]
        stream0 = get_raw_stream(0)
        triton_red_fused__softmax_exp_prepare_softmax_online_sub_0.run(arg0_1, buf2, 4096, 16384, stream=stream0)
        del arg0_1
    return (buf2, )


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        arg0_1, = args
        args.clear()
        partition0_args = [arg0_1,]
        del arg0_1
        (buf2,) = self.partitions[0](partition0_args)
        del partition0_args
        return (buf2, )

runner = Runner(partitions=[partition_0,])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    arg0_1 = rand_strided((4096, 16384), (16384, 1), device='cuda:0', dtype=torch.float32)
    return [arg0_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
