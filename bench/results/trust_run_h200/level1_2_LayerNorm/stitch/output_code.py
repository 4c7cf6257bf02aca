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



# kernel path: /tmp/kernelopt-trust/level1_2_LayerNorm/capture/cache/inductor/2p/c2p42ukewbwikeuhwlgo7ipgrzkqjydddpkoov24herykdlxd3bs.py
# Topologically Sorted Source Nodes: [layer_norm], Original ATen: [aten.native_layer_norm]
# Source node to ATen node mapping:
#   layer_norm => add, add_1, mul, mul_1, rsqrt, sub, var_mean
# Graph fragment:
#   %arg2_1 : Tensor "f32[8192, 8192][8192, 1]cuda:0" = PlaceHolder[target=arg2_1]
#   %getitem_1 : Tensor "f32[8192, 1][1, 8192]cuda:0" = PlaceHolder[target=getitem_1]
#   %buf1 : Tensor "f32[8192, 1][1, 8192]cuda:0" = PlaceHolder[target=buf1]
#   %arg0_1 : Tensor "f32[8192][1]cuda:0" = PlaceHolder[target=arg0_1]
#   %arg1_1 : Tensor "f32[8192][1]cuda:0" = PlaceHolder[target=arg1_1]
#   %var_mean : [num_users=2] = call_function[target=torch.ops.aten.var_mean.correction](args = (%arg2_1, [1]), kwargs = {correction: 0, keepdim: True})
#   %sub : Tensor "f32[8192, 8192][8192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%arg2_1, %getitem_1), kwargs = {})
#   %add : Tensor "f32[8192, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%getitem, 1e-05), kwargs = {})
#   %rsqrt : Tensor "f32[8192, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add,), kwargs = {})
#   %mul : Tensor "f32[8192, 8192][8192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub, %rsqrt), kwargs = {})
#   %mul_1 : Tensor "f32[8192, 8192][8192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul, %arg0_1), kwargs = {})
#   %add_1 : Tensor "f32[8192, 8192][8192, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_1, %arg1_1), kwargs = {})
#   return %getitem_1,%buf1,%add_1


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

# kernelopt: Inductor's triton_red_fused_native_layer_norm_0 replaced by candidates/triton_red_fused_native_layer_norm_0.py (sha256 55fc85fbaa687984; from /tmp/kernelopt-trust/level1_2_LayerNorm/units/triton_red_fused_native_layer_norm_0/cands/c0/candidate.py)
triton_red_fused_native_layer_norm_0 = _kernelopt_candidate('triton_red_fused_native_layer_norm_0', 'candidates/triton_red_fused_native_layer_norm_0.py')

def partition_0(args):
    arg2_1, arg0_1, arg1_1 = args
    args.clear()
    assert_size_stride(arg2_1, (8192, 8192), (8192, 1))
    assert_size_stride(arg0_1, (8192, ), (1, ))
    assert_size_stride(arg1_1, (8192, ), (1, ))
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        buf3 = empty_strided_cuda((8192, 8192), (8192, 1), torch.float32)
        # Topologically Sorted Source Nodes: [layer_norm], Original ATen: [aten.native_layer_norm]
        stream0 = get_raw_stream(0)
        triton_red_fused_native_layer_norm_0.run(arg2_1, arg0_1, arg1_1, buf3, 8192, 8192, stream=stream0)
        del arg0_1
        del arg1_1
        del arg2_1
    return (buf3, )


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
        arg0_1, arg1_1, arg2_1 = args
        args.clear()
        partition0_args = [arg2_1, arg0_1, arg1_1]
        del arg2_1, arg0_1, arg1_1
        (buf3,) = self.partitions[0](partition0_args)
        del partition0_args
        return (buf3, )

runner = Runner(partitions=[partition_0,])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    arg0_1 = rand_strided((8192, ), (1, ), device='cuda:0', dtype=torch.float32)
    arg1_1 = rand_strided((8192, ), (1, ), device='cuda:0', dtype=torch.float32)
    arg2_1 = rand_strided((8192, 8192), (8192, 1), device='cuda:0', dtype=torch.float32)
    return [arg0_1, arg1_1, arg2_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
