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



# kernel path: /tmp/kernelopt-search/level3_3_SmallCNN/capture/cache/inductor/7t/c7twcmbwdiaeloqixcjzutcqrkbyynk45okjj7gi2xkcmxvvkdkp.py
# Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
# Source node to ATen node mapping:
#   conv2d => convolution
# Graph fragment:
#   %arg2_1 : Tensor "f32[16, 3, 224, 224][150528, 50176, 224, 1]cuda:0" = PlaceHolder[target=arg2_1]
#   %convolution : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%arg2_1, %arg0_1, %arg1_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   return %buf0


# --- kernelopt: loader for replaced kernels (the rest of this file is Inductor's, unchanged) ---
def _kernelopt_candidate(name, relpath):
    import importlib.util as _ilu
    import os as _os

    path = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), relpath)
    spec = _ilu.spec_from_file_location("kernelopt_candidate_" + name, path)
    mod = _ilu.module_from_spec(spec)
    spec.loader.exec_module(mod)

    class KerneloptCandidate:
        """Stands where Inductor's kernel object stood: the wrapper calls .run(*args, stream=...)."""

        kernelopt_candidate = path

        def run(self, *args, stream=None, **kwargs):
            return mod.launch(*args)

    return KerneloptCandidate()
# --- end kernelopt loader ---

triton_poi_fused_convolution_0 = async_compile.triton('triton_poi_fused_convolution_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 64, 'x': 65536}, tile_hint=TileHint.SQUARE,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_convolution_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': False, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': True, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'coordinate_descent_tuning': True, 'coordinate_descent_search_radius': 1, 'coordinate_descent_check_all_directions': False, 'tiling_scores': {'y': 19267584, 'x': 9633792}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_convolution_0(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 48
    xnumel = 50176
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = (yindex % 3)
    y1 = yindex // 3
    tmp0 = tl.load(in_ptr0 + (x2 + 50176*y3), xmask & ymask, eviction_policy='evict_last')
    tl.store(out_ptr0 + (y0 + 3*x2 + 150528*y1), tmp0, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/kernelopt-search/level3_3_SmallCNN/capture/cache/inductor/he/chee5exzae37pka5zcliqfpehynpnzu26uw7hzm7lobz74d7zshg.py
# Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
# Source node to ATen node mapping:
#   conv2d => convolution
# Graph fragment:
#   %arg0_1 : Tensor "f32[64, 3, 3, 3][27, 9, 3, 1]cuda:0" = PlaceHolder[target=arg0_1]
#   %convolution : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%arg2_1, %arg0_1, %arg1_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   return %buf1
# kernelopt: Inductor's triton_poi_fused_convolution_1 replaced by candidates/triton_poi_fused_convolution_1.py (sha256 a96872cadb157b42; from /tmp/kernelopt-search/level3_3_SmallCNN/units/triton_poi_fused_convolution_1/synth/a0/candidate.py)
triton_poi_fused_convolution_1 = _kernelopt_candidate('triton_poi_fused_convolution_1', 'candidates/triton_poi_fused_convolution_1.py')


# kernel path: /tmp/kernelopt-search/level3_3_SmallCNN/capture/cache/inductor/t7/ct7xgic77tih2mfuggiwmc44eig3dg3znzglj722exhcvpml4snc.py
# Topologically Sorted Source Nodes: [conv2d, relu], Original ATen: [aten.convolution, aten.relu]
# Source node to ATen node mapping:
#   conv2d => convolution
#   relu => relu
# Graph fragment:
#   %buf2 : Tensor "f32[16, 64, 224, 224][3211264, 1, 14336, 64]cuda:0" = PlaceHolder[target=buf2]
#   %arg1_1 : Tensor "f32[64][1]cuda:0" = PlaceHolder[target=arg1_1]
#   %convolution : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%arg2_1, %arg0_1, %arg1_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution,), kwargs = {})
#   return %relu
triton_poi_fused_convolution_relu_2 = async_compile.triton('triton_poi_fused_convolution_relu_2', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 67108864}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_convolution_relu_2', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': False, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': True, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'coordinate_descent_tuning': True, 'coordinate_descent_search_radius': 1, 'coordinate_descent_check_all_directions': False, 'tiling_scores': {'x': 616562944}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_convolution_relu_2(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 51380224
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x2 = xindex
    x0 = (xindex % 64)
    tmp0 = tl.load(in_out_ptr0 + (x2), None)
    tmp1 = tl.load(in_ptr0 + (x0), None, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = tl.full([1], 0, tl.int32)
    tmp4 = triton_helpers.maximum(tmp3, tmp2)
    tl.store(in_out_ptr0 + (x2), tmp4, None)
''', device_str='cuda')


# kernel path: /tmp/kernelopt-search/level3_3_SmallCNN/capture/cache/inductor/en/cenqr7orvfcway5isniw6abprjwwfjqdlr3nelqroyhay44ztsyf.py
# Topologically Sorted Source Nodes: [conv2d, relu, x], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices]
# Source node to ATen node mapping:
#   conv2d => convolution
#   relu => relu
#   x => _low_memory_max_pool_with_offsets
# Graph fragment:
#   %relu : Tensor "f32[16, 64, 224, 224][3211264, 1, 14336, 64]cuda:0" = PlaceHolder[target=relu]
#   %convolution : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%arg2_1, %arg0_1, %arg1_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution,), kwargs = {})
#   %_low_memory_max_pool_with_offsets : [num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_with_offsets.default](args = (%relu, [2, 2], [2, 2], [0, 0], [1, 1], False), kwargs = {})
#   return %getitem
# kernelopt: Inductor's triton_poi_fused_convolution_max_pool2d_with_indices_relu_3 replaced by candidates/triton_poi_fused_convolution_max_pool2d_with_indices_relu_3.py (sha256 95b8f2837712f8cf; from /tmp/kernelopt-search/level3_3_SmallCNN/units/fz_triton_poi_fused_convolution_relu_2__triton_poi_fused_convolution_max_pool2d_with_indices_relu_3/synth/a0/candidate.py)
triton_poi_fused_convolution_max_pool2d_with_indices_relu_3 = _kernelopt_candidate('triton_poi_fused_convolution_max_pool2d_with_indices_relu_3', 'candidates/triton_poi_fused_convolution_max_pool2d_with_indices_relu_3.py')


# kernel path: /tmp/kernelopt-search/level3_3_SmallCNN/capture/cache/inductor/wr/cwrcrusepvw7ees3k4wxtgp5fvs6jbftozjee3bkla5kmjwqzlbo.py
# Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices]
# Source node to ATen node mapping:
#   conv2d => convolution
#   conv2d_1 => convolution_1
#   relu => relu
#   x => _low_memory_max_pool_with_offsets
# Graph fragment:
#   %arg3_1 : Tensor "f32[128, 64, 3, 3][576, 9, 3, 1]cuda:0" = PlaceHolder[target=arg3_1]
#   %convolution : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%arg2_1, %arg0_1, %arg1_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution,), kwargs = {})
#   %_low_memory_max_pool_with_offsets : [num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_with_offsets.default](args = (%relu, [2, 2], [2, 2], [0, 0], [1, 1], False), kwargs = {})
#   %convolution_1 : Tensor "f32[16, 128, 112, 112][1605632, 12544, 112, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%getitem, %arg3_1, %arg4_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   return %buf5
triton_poi_fused_convolution_max_pool2d_with_indices_relu_4 = async_compile.triton('triton_poi_fused_convolution_max_pool2d_with_indices_relu_4', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 8192, 'x': 16}, tile_hint=TileHint.SQUARE,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_convolution_max_pool2d_with_indices_relu_4', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': False, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': True, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'coordinate_descent_tuning': True, 'coordinate_descent_search_radius': 1, 'coordinate_descent_check_all_directions': False, 'tiling_scores': {'y': 589824, 'x': 294912}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_convolution_max_pool2d_with_indices_relu_4(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 8192
    xnumel = 9
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = tl.full([YBLOCK], True, tl.int1)[:, None]
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = (yindex % 64)
    y1 = yindex // 64
    tmp0 = tl.load(in_ptr0 + (x2 + 9*y3), xmask, eviction_policy='evict_last')
    tl.store(out_ptr0 + (y0 + 64*x2 + 576*y1), tmp0, xmask)
''', device_str='cuda')


# kernel path: /tmp/kernelopt-search/level3_3_SmallCNN/capture/cache/inductor/3m/c3mfn47m6nfueyhnyotbaegmqp5bqooijzrvjtsftrnjzhxgj2q7.py
# Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1, relu_1], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices]
# Source node to ATen node mapping:
#   conv2d => convolution
#   conv2d_1 => convolution_1
#   relu => relu
#   relu_1 => relu_1
#   x => _low_memory_max_pool_with_offsets
# Graph fragment:
#   %buf6 : Tensor "f32[16, 128, 112, 112][1605632, 1, 14336, 128]cuda:0" = PlaceHolder[target=buf6]
#   %arg4_1 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=arg4_1]
#   %convolution : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%arg2_1, %arg0_1, %arg1_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution,), kwargs = {})
#   %_low_memory_max_pool_with_offsets : [num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_with_offsets.default](args = (%relu, [2, 2], [2, 2], [0, 0], [1, 1], False), kwargs = {})
#   %convolution_1 : Tensor "f32[16, 128, 112, 112][1605632, 12544, 112, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%getitem, %arg3_1, %arg4_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu_1 : Tensor "f32[16, 128, 112, 112][1605632, 12544, 112, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution_1,), kwargs = {})
#   return %relu_1
# kernelopt: Inductor's triton_poi_fused_convolution_max_pool2d_with_indices_relu_5 replaced by candidates/triton_poi_fused_convolution_max_pool2d_with_indices_relu_5.py (sha256 e6f3e25b68d65374; from /tmp/kernelopt-search/level3_3_SmallCNN/units/triton_poi_fused_convolution_max_pool2d_with_indices_relu_5/iter1/cand1/candidate.py)
triton_poi_fused_convolution_max_pool2d_with_indices_relu_5 = _kernelopt_candidate('triton_poi_fused_convolution_max_pool2d_with_indices_relu_5', 'candidates/triton_poi_fused_convolution_max_pool2d_with_indices_relu_5.py')


# kernel path: /tmp/kernelopt-search/level3_3_SmallCNN/capture/cache/inductor/ar/car5uss4xmgyn3bv6fyues36rzkct6nvqghyfatgamp42bpi547j.py
# Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1, relu_1, x_1, adaptive_avg_pool2d], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices, aten.mean]
# Source node to ATen node mapping:
#   adaptive_avg_pool2d => mean
#   conv2d => convolution
#   conv2d_1 => convolution_1
#   relu => relu
#   relu_1 => relu_1
#   x => _low_memory_max_pool_with_offsets
#   x_1 => _low_memory_max_pool_with_offsets_1
# Graph fragment:
#   %relu_1 : Tensor "f32[16, 128, 112, 112][1605632, 1, 14336, 128]cuda:0" = PlaceHolder[target=relu_1]
#   %convolution : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%arg2_1, %arg0_1, %arg1_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution,), kwargs = {})
#   %_low_memory_max_pool_with_offsets : [num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_with_offsets.default](args = (%relu, [2, 2], [2, 2], [0, 0], [1, 1], False), kwargs = {})
#   %convolution_1 : Tensor "f32[16, 128, 112, 112][1605632, 12544, 112, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%getitem, %arg3_1, %arg4_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu_1 : Tensor "f32[16, 128, 112, 112][1605632, 12544, 112, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution_1,), kwargs = {})
#   %_low_memory_max_pool_with_offsets_1 : [num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_with_offsets.default](args = (%relu_1, [2, 2], [2, 2], [0, 0], [1, 1], False), kwargs = {})
#   %mean : Tensor "f32[16, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%getitem_2, [-1, -2], True), kwargs = {})
#   return %buf8
triton_red_fused_convolution_max_pool2d_with_indices_mean_relu_6 = async_compile.triton('triton_red_fused_convolution_max_pool2d_with_indices_mean_relu_6', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 65536, 'r0_': 128},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_convolution_max_pool2d_with_indices_mean_relu_6', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 4, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': False, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': True, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'coordinate_descent_tuning': True, 'coordinate_descent_search_radius': 1, 'coordinate_descent_check_all_directions': False, 'tiling_scores': {'x': 103628800, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_convolution_max_pool2d_with_indices_mean_relu_6(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 51200
    r0_numel = 126
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x1 = ((xindex // 128) % 25)
    x0 = (xindex % 128)
    x2 = xindex // 3200
    _tmp13 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    x4 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_3 = r0_index
        tmp0 = r0_3 + 126*x1
        tmp1 = tl.full([1, 1], 3136, tl.int32)
        tmp2 = tmp0 < tmp1
        tmp3 = tl.load(in_ptr0 + (x0 + 256*(((r0_3 + 126*x1) % 56)) + 28672*((((r0_3 + 126*x1) // 56) % 56)) + 1605632*x2), r0_mask & tmp2 & xmask, eviction_policy='evict_last', other=0.0)
        tmp4 = tl.load(in_ptr0 + (128 + x0 + 256*(((r0_3 + 126*x1) % 56)) + 28672*((((r0_3 + 126*x1) // 56) % 56)) + 1605632*x2), r0_mask & tmp2 & xmask, eviction_policy='evict_last', other=0.0)
        tmp5 = triton_helpers.maximum(tmp3, tmp4)
        tmp6 = tl.load(in_ptr0 + (14336 + x0 + 256*(((r0_3 + 126*x1) % 56)) + 28672*((((r0_3 + 126*x1) // 56) % 56)) + 1605632*x2), r0_mask & tmp2 & xmask, eviction_policy='evict_last', other=0.0)
        tmp7 = triton_helpers.maximum(tmp5, tmp6)
        tmp8 = tl.load(in_ptr0 + (14464 + x0 + 256*(((r0_3 + 126*x1) % 56)) + 28672*((((r0_3 + 126*x1) // 56) % 56)) + 1605632*x2), r0_mask & tmp2 & xmask, eviction_policy='evict_first', other=0.0)
        tmp9 = triton_helpers.maximum(tmp7, tmp8)
        tmp10 = tl.full(tmp9.shape, 0, tmp9.dtype)
        tmp11 = tl.where(tmp2, tmp9, tmp10)
        tmp12 = tl.broadcast_to(tmp11, [XBLOCK, R0_BLOCK])
        tmp14 = _tmp13 + tmp12
        _tmp13 = tl.where(r0_mask & xmask, tmp14, _tmp13)
    tmp13 = tl.sum(_tmp13, 1)[:, None]
    tl.store(out_ptr0 + (x4), tmp13, xmask)
''', device_str='cuda')


# kernel path: /tmp/kernelopt-search/level3_3_SmallCNN/capture/cache/inductor/sy/csycedqf5euk3ho6fwq2na7tsb7ocj2ezyjmf4qmjzoyyx37wfrd.py
# Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1, relu_1, x_1, adaptive_avg_pool2d], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices, aten.mean]
# Source node to ATen node mapping:
#   adaptive_avg_pool2d => mean
#   conv2d => convolution
#   conv2d_1 => convolution_1
#   relu => relu
#   relu_1 => relu_1
#   x => _low_memory_max_pool_with_offsets
#   x_1 => _low_memory_max_pool_with_offsets_1
# Graph fragment:
#   %buf8 : Tensor "f32[16, 128, 1, 1, 25][3200, 1, 51200, 51200, 128]cuda:0" = PlaceHolder[target=buf8]
#   %buf9 : Tensor "f32[16, 128, 1, 1][128, 1, 2048, 2048]cuda:0" = PlaceHolder[target=buf9]
#   %convolution : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%arg2_1, %arg0_1, %arg1_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution,), kwargs = {})
#   %_low_memory_max_pool_with_offsets : [num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_with_offsets.default](args = (%relu, [2, 2], [2, 2], [0, 0], [1, 1], False), kwargs = {})
#   %convolution_1 : Tensor "f32[16, 128, 112, 112][1605632, 12544, 112, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%getitem, %arg3_1, %arg4_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu_1 : Tensor "f32[16, 128, 112, 112][1605632, 12544, 112, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution_1,), kwargs = {})
#   %_low_memory_max_pool_with_offsets_1 : [num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_with_offsets.default](args = (%relu_1, [2, 2], [2, 2], [0, 0], [1, 1], False), kwargs = {})
#   %mean : Tensor "f32[16, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%getitem_2, [-1, -2], True), kwargs = {})
#   return %buf9,%mean
triton_per_fused_convolution_max_pool2d_with_indices_mean_relu_7 = async_compile.triton('triton_per_fused_convolution_max_pool2d_with_indices_mean_relu_7', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 2048, 'r0_': 32},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_convolution_max_pool2d_with_indices_mean_relu_7', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': False, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': True, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'coordinate_descent_tuning': True, 'coordinate_descent_search_radius': 1, 'coordinate_descent_check_all_directions': False, 'tiling_scores': {'x': 221184, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_convolution_max_pool2d_with_indices_mean_relu_7(in_out_ptr0, in_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 2048
    r0_numel = 25
    R0_BLOCK: tl.constexpr = 32
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = r0_index < r0_numel
    roffset = r0_offset
    rindex = r0_index
    r0_2 = r0_index
    x0 = (xindex % 128)
    x1 = xindex // 128
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 128*r0_2 + 3200*x1), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tmp5 = tl.full([1, 1], 3136.0, tl.float32)
    tmp6 = (tmp4 / tmp5)
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x3), tmp6, xmask)
''', device_str='cuda')


# kernel path: /tmp/kernelopt-search/level3_3_SmallCNN/capture/cache/inductor/yx/cyxaefrth37fgaculbijnryl3bvwbzcnnoboolyidsexq4wgybku.py
# Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1, relu_1, x_1, adaptive_avg_pool2d, x_2, linear], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices, aten.mean, aten.view, aten.t, aten.addmm]
# Source node to ATen node mapping:
#   adaptive_avg_pool2d => mean
#   conv2d => convolution
#   conv2d_1 => convolution_1
#   linear => addmm, permute
#   relu => relu
#   relu_1 => relu_1
#   x => _low_memory_max_pool_with_offsets
#   x_1 => _low_memory_max_pool_with_offsets_1
#   x_2 => view
# Graph fragment:
#   %arg6_1 : Tensor "f32[1000][1]cuda:0" = PlaceHolder[target=arg6_1]
#   %mean : Tensor "f32[16, 128, 1, 1][128, 1, 2048, 2048]cuda:0" = PlaceHolder[target=mean]
#   %arg5_1 : Tensor "f32[1000, 128][128, 1]cuda:0" = PlaceHolder[target=arg5_1]
#   %convolution : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%arg2_1, %arg0_1, %arg1_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu : Tensor "f32[16, 64, 224, 224][3211264, 50176, 224, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution,), kwargs = {})
#   %_low_memory_max_pool_with_offsets : [num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_with_offsets.default](args = (%relu, [2, 2], [2, 2], [0, 0], [1, 1], False), kwargs = {})
#   %convolution_1 : Tensor "f32[16, 128, 112, 112][1605632, 12544, 112, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%getitem, %arg3_1, %arg4_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
#   %relu_1 : Tensor "f32[16, 128, 112, 112][1605632, 12544, 112, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convolution_1,), kwargs = {})
#   %_low_memory_max_pool_with_offsets_1 : [num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_with_offsets.default](args = (%relu_1, [2, 2], [2, 2], [0, 0], [1, 1], False), kwargs = {})
#   %mean : Tensor "f32[16, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%getitem_2, [-1, -2], True), kwargs = {})
#   %view : Tensor "f32[16, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mean, [16, 128]), kwargs = {})
#   %permute : Tensor "f32[128, 1000][1, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%arg5_1, [1, 0]), kwargs = {})
#   %addmm : Tensor "f32[16, 1000][1000, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.addmm.default](args = (%arg6_1, %view, %permute), kwargs = {})
#   return %addmm
# kernelopt: Inductor's triton_tem_fused_addmm_convolution_max_pool2d_with_indices_mean_relu_t_view_8 replaced by candidates/triton_tem_fused_addmm_convolution_max_pool2d_with_indices_mean_relu_t_view_8.py (sha256 db6c032e26a16e7e; from /tmp/kernelopt-search/level3_3_SmallCNN/units/triton_tem_fused_addmm_convolution_max_pool2d_with_indices_mean_relu_t_view_8/iter1/cand0/candidate.py)
triton_tem_fused_addmm_convolution_max_pool2d_with_indices_mean_relu_t_view_8 = _kernelopt_candidate('triton_tem_fused_addmm_convolution_max_pool2d_with_indices_mean_relu_t_view_8', 'candidates/triton_tem_fused_addmm_convolution_max_pool2d_with_indices_mean_relu_t_view_8.py')

def partition_0(args):
    arg2_1, arg0_1, arg1_1, arg3_1, arg4_1, arg6_1, arg5_1 = args
    args.clear()
    assert_size_stride(arg2_1, (16, 3, 224, 224), (150528, 50176, 224, 1))
    assert_size_stride(arg0_1, (64, 3, 3, 3), (27, 9, 3, 1))
    assert_size_stride(arg1_1, (64, ), (1, ))
    assert_size_stride(arg3_1, (128, 64, 3, 3), (576, 9, 3, 1))
    assert_size_stride(arg4_1, (128, ), (1, ))
    assert_size_stride(arg6_1, (1000, ), (1, ))
    assert_size_stride(arg5_1, (1000, 128), (128, 1))
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        buf0 = empty_strided_cuda((16, 3, 224, 224), (150528, 1, 672, 3), torch.float32)
        # Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
        stream0 = get_raw_stream(0)
        triton_poi_fused_convolution_0.run(arg2_1, buf0, 48, 50176, stream=stream0)
        del arg2_1
        buf1 = empty_strided_cuda((64, 3, 3, 3), (27, 1, 9, 3), torch.float32)
        # Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
        stream0 = get_raw_stream(0)
        triton_poi_fused_convolution_1.run(arg0_1, buf1, 192, 9, stream=stream0)
        del arg0_1
        # Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
        buf2 = extern_kernels.convolution(buf0, buf1, stride=(1, 1), padding=(1, 1), dilation=(1, 1), transposed=False, output_padding=(0, 0), groups=1, bias=None)
        assert_size_stride(buf2, (16, 64, 224, 224), (3211264, 1, 14336, 64), 'unknown_op')
        del buf0
        del buf1
        buf3 = buf2; del buf2  # reuse
        # Topologically Sorted Source Nodes: [conv2d, relu], Original ATen: [aten.convolution, aten.relu]
        stream0 = get_raw_stream(0)
        # kernelopt: triton_poi_fused_convolution_relu_2's launch dropped: fused into triton_poi_fused_convolution_max_pool2d_with_indices_relu_3 (unit fz_triton_poi_fused_convolution_relu_2__triton_poi_fused_convolution_max_pool2d_with_indices_relu_3)
        buf4 = empty_strided_cuda((16, 64, 112, 112), (802816, 1, 7168, 64), torch.float32)
        # Topologically Sorted Source Nodes: [conv2d, relu, x], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices]
        stream0 = get_raw_stream(0)
        triton_poi_fused_convolution_max_pool2d_with_indices_relu_3.run(buf3, buf4, 12845056, arg1_1, stream=stream0)
        del arg1_1
        del buf3
        buf5 = empty_strided_cuda((128, 64, 3, 3), (576, 1, 192, 64), torch.float32)
        # Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices]
        stream0 = get_raw_stream(0)
        triton_poi_fused_convolution_max_pool2d_with_indices_relu_4.run(arg3_1, buf5, 8192, 9, stream=stream0)
        del arg3_1
        # Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices]
        buf6 = extern_kernels.convolution(buf4, buf5, stride=(1, 1), padding=(1, 1), dilation=(1, 1), transposed=False, output_padding=(0, 0), groups=1, bias=None)
        assert_size_stride(buf6, (16, 128, 112, 112), (1605632, 1, 14336, 128), 'unknown_op')
        del buf4
        del buf5
        buf7 = buf6; del buf6  # reuse
        # Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1, relu_1], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices]
        stream0 = get_raw_stream(0)
        triton_poi_fused_convolution_max_pool2d_with_indices_relu_5.run(buf7, arg4_1, 25690112, stream=stream0)
        del arg4_1
        buf8 = empty_strided_cuda((16, 128, 1, 1, 25), (3200, 1, 51200, 51200, 128), torch.float32)
        # Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1, relu_1, x_1, adaptive_avg_pool2d], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices, aten.mean]
        stream0 = get_raw_stream(0)
        triton_red_fused_convolution_max_pool2d_with_indices_mean_relu_6.run(buf7, buf8, 51200, 126, stream=stream0)
        del buf7
        buf9 = empty_strided_cuda((16, 128, 1, 1), (128, 1, 2048, 2048), torch.float32)
        buf10 = buf9; del buf9  # reuse
        # Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1, relu_1, x_1, adaptive_avg_pool2d], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices, aten.mean]
        stream0 = get_raw_stream(0)
        triton_per_fused_convolution_max_pool2d_with_indices_mean_relu_7.run(buf10, buf8, 2048, 25, stream=stream0)
        del buf8
        buf11 = empty_strided_cuda((16, 1000), (1000, 1), torch.float32)
        # Topologically Sorted Source Nodes: [conv2d, relu, x, conv2d_1, relu_1, x_1, adaptive_avg_pool2d, x_2, linear], Original ATen: [aten.convolution, aten.relu, aten.max_pool2d_with_indices, aten.mean, aten.view, aten.t, aten.addmm]
        stream0 = get_raw_stream(0)
        triton_tem_fused_addmm_convolution_max_pool2d_with_indices_mean_relu_t_view_8.run(arg6_1, buf10, arg5_1, buf11, 8, 1, 1, stream=stream0)
        del arg5_1
        del arg6_1
        del buf10
    return (buf11, )


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
        arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1 = args
        args.clear()
        partition0_args = [arg2_1, arg0_1, arg1_1, arg3_1, arg4_1, arg6_1, arg5_1]
        del arg2_1, arg0_1, arg1_1, arg3_1, arg4_1, arg6_1, arg5_1
        (buf11,) = self.partitions[0](partition0_args)
        del partition0_args
        return (buf11, )

runner = Runner(partitions=[partition_0,])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    arg0_1 = rand_strided((64, 3, 3, 3), (27, 9, 3, 1), device='cuda:0', dtype=torch.float32)
    arg1_1 = rand_strided((64, ), (1, ), device='cuda:0', dtype=torch.float32)
    arg2_1 = rand_strided((16, 3, 224, 224), (150528, 50176, 224, 1), device='cuda:0', dtype=torch.float32)
    arg3_1 = rand_strided((128, 64, 3, 3), (576, 9, 3, 1), device='cuda:0', dtype=torch.float32)
    arg4_1 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    arg5_1 = rand_strided((1000, 128), (128, 1), device='cuda:0', dtype=torch.float32)
    arg6_1 = rand_strided((1000, ), (1, ), device='cuda:0', dtype=torch.float32)
    return [arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
