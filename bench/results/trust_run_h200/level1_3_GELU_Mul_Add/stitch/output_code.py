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



# kernel path: /tmp/kernelopt-trust/level1_3_GELU_Mul_Add/capture/cache/inductor/dp/cdpydspg43rdnnrlqvk24h533s2fzkh77h7zsbctxhwylkoufqej.py
# Topologically Sorted Source Nodes: [gelu, mul, h, tanh, mul_1, mul_2, add_1], Original ATen: [aten.gelu, aten.mul, aten.add, aten.tanh]
# Source node to ATen node mapping:
#   add_1 => add_2
#   gelu => add, erf, mul, mul_1, mul_2
#   h => add_1
#   mul => mul_3
#   mul_1 => mul_4
#   mul_2 => mul_5
#   tanh => tanh
# Graph fragment:
#   %arg0_1 : Tensor "f32[4096, 16384][16384, 1]cuda:0" = PlaceHolder[target=arg0_1]
#   %arg1_1 : Tensor "f32[4096, 16384][16384, 1]cuda:0" = PlaceHolder[target=arg1_1]
#   %mul : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%arg0_1, 0.5), kwargs = {})
#   %mul_1 : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%arg0_1, 0.7071067811865476), kwargs = {})
#   %erf : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.erf.default](args = (%mul_1,), kwargs = {})
#   %add : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%erf, 1), kwargs = {})
#   %mul_2 : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul, %add), kwargs = {})
#   %mul_3 : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_2, %arg1_1), kwargs = {})
#   %add_1 : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_3, 1.0), kwargs = {})
#   %tanh : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.tanh.default](args = (%add_1,), kwargs = {})
#   %mul_4 : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%tanh, 0.5), kwargs = {})
#   %mul_5 : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%arg0_1, %arg1_1), kwargs = {})
#   %add_2 : Tensor "f32[4096, 16384][16384, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_4, %mul_5), kwargs = {})
#   return %add_2


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

# kernelopt: Inductor's triton_poi_fused_add_gelu_mul_tanh_0 replaced by candidates/triton_poi_fused_add_gelu_mul_tanh_0.py (sha256 5c265d2f27f57aed; from /tmp/kernelopt-trust/level1_3_GELU_Mul_Add/units/triton_poi_fused_add_gelu_mul_tanh_0/cands/c0/candidate.py)
triton_poi_fused_add_gelu_mul_tanh_0 = _kernelopt_candidate('triton_poi_fused_add_gelu_mul_tanh_0', 'candidates/triton_poi_fused_add_gelu_mul_tanh_0.py')

def partition_0(args):
    arg0_1, arg1_1 = args
    args.clear()
    assert_size_stride(arg0_1, (4096, 16384), (16384, 1))
    assert_size_stride(arg1_1, (4096, 16384), (16384, 1))
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        buf0 = empty_strided_cuda((4096, 16384), (16384, 1), torch.float32)
        # Topologically Sorted Source Nodes: [gelu, mul, h, tanh, mul_1, mul_2, add_1], Original ATen: [aten.gelu, aten.mul, aten.add, aten.tanh]
        stream0 = get_raw_stream(0)
        triton_poi_fused_add_gelu_mul_tanh_0.run(arg0_1, arg1_1, buf0, 67108864, stream=stream0)
        del arg0_1
        del arg1_1
    return (buf0, )


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
        arg0_1, arg1_1 = args
        args.clear()
        partition0_args = [arg0_1, arg1_1]
        del arg0_1, arg1_1
        (buf0,) = self.partitions[0](partition0_args)
        del partition0_args
        return (buf0, )

runner = Runner(partitions=[partition_0,])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    arg0_1 = rand_strided((4096, 16384), (16384, 1), device='cuda:0', dtype=torch.float32)
    arg1_1 = rand_strided((4096, 16384), (16384, 1), device='cuda:0', dtype=torch.float32)
    return [arg0_1, arg1_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
