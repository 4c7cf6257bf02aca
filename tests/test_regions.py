"""Regions as units (kernelopt/capture/regions.py and its halves in capture/, isolate/, stitch/):
detection on a real wrapper (the CPU capture of problems/generalize/level2/2_Conv2d_GroupNorm_Swish,
whose group norm Inductor splits into a statistics kernel that writes buffers no FX node holds
and a kernel that reads them), the refusals, the region's baseline module, the stitcher's
call-site edits and gate 3's proof of them, and the choice between a region and its members."""

import json

import pytest
import torch
from conftest import ROOT, load_candidate

from kernelopt.capture import regions
from kernelopt.core import cpu_mode, outputcode
from kernelopt.core.records import Capture, Contract, Dispatch, DispatchUnit
from kernelopt.isolate.regions import region_contract, render_region
from kernelopt.runner.regionio import RegionIO
from kernelopt.stitch.fusion import choose_fusions
from kernelopt.stitch.proof import REGION_KEYS, diff_proof
from kernelopt.stitch.splice import write_stitched

WRAPPER = ROOT / "tests/fixtures/regions/groupnorm_cpu_output_code.py"
STATS, AFFINE = "triton_per_fused_native_group_norm_2", "triton_poi_fused_native_group_norm_3"
FX_VALUES = {"buf2", "buf6", "buf7", "buf8", "arg3_1", "arg4_1"}  # buffers that hold an FX node's value
RID = regions.region_id([STATS, AFFINE])


def _find(src: str | None = None, mappable=FX_VALUES.__contains__):
    src = src if src is not None else WRAPPER.read_text()
    oc = outputcode.parse(WRAPPER.read_text())
    sources = {k: v.source for k, v in oc.kernels.items()}
    return regions.find_regions(src, sources, {k: v.heuristic for k, v in oc.kernels.items()}, [STATS], mappable)


def _region():
    found, refused = _find()
    assert refused == [] and len(found) == 1
    return found[0]


def test_the_group_norm_region_is_found():
    r = _region()
    assert r["members"] == [STATS, AFFINE]
    assert (r["inputs"], r["outputs"], r["intermediates"]) == (
        ["buf2", "arg3_1", "arg4_1"],
        ["buf6", "buf7"],
        ["buf4", "buf5"],
    )
    # buf4 is the statistics kernel's in_out_ptr0, but a fresh allocation (buf3, aliased): written, not read
    assert r["calls"][0]["args"][0] == {"param": "in_out_ptr0", "buffer": "buf4"}
    assert r["calls"][1]["args"][-1] == {"param": "xnumel", "value": 16}


def test_a_region_absorbs_the_kernel_that_alone_reads_its_outputs():
    """Issue 13 (GroupNorm as one kernel): with ``absorb`` (the capture stage's setting) the
    statistics region grows by the launch that applies the per-channel scale and shift, the
    only reader of both: they become intermediates, and the one unit may be one kernel."""
    oc = outputcode.parse(WRAPPER.read_text())
    sources = {k: v.source for k, v in oc.kernels.items()}
    heur = {k: v.heuristic for k, v in oc.kernels.items()}
    apply_ = "triton_poi_fused_mul_native_group_norm_sigmoid_4"
    found, refused = regions.find_regions(
        WRAPPER.read_text(), sources, heur, [STATS], FX_VALUES.__contains__, absorb=True
    )
    assert refused == [] and [r["members"] for r in found] == [[STATS, AFFINE, apply_]]
    assert {"buf6", "buf7"} <= set(found[0]["intermediates"]) and found[0]["outputs"] == ["buf8"]
    # the grown region's output must be an FX node's value too: else the split region as it was
    unmapped = (FX_VALUES - {"buf8"}).__contains__
    found, _ = regions.find_regions(WRAPPER.read_text(), sources, heur, [STATS], unmapped, absorb=True)
    assert [r["members"] for r in found] == [[STATS, AFFINE]]


# Inductor's CUDA wrapper of ConvTranspose2d + GELU + GroupNorm (problems/headroom/level2/2 on the
# H100): the group norm's statistics split over five launches, a partial Welford kernel, three
# combining ones and the kernel that applies them
FIVE_LAUNCHES = """
def partition_0(args):
    buf2, arg1_1, arg3_1, arg4_1 = args
    args.clear()
    with torch.cuda._DeviceGuard(0):
        buf3 = empty_strided_cuda((32, 8, 1, 1, 4, 129), (4128, 4, 132096, 132096, 1, 32), torch.float32)
        buf4 = empty_strided_cuda((32, 8, 1, 1, 4, 129), (4128, 4, 132096, 132096, 1, 32), torch.float32)
        buf5 = empty_strided_cuda((32, 8, 1, 1, 4, 129), (4128, 4, 132096, 132096, 1, 32), torch.float32)
        stream0 = get_raw_stream(0)
        k2.run(buf2, arg1_1, buf3, buf4, buf5, 132096, 1032, stream=stream0)
        buf6 = empty_strided_cuda((32, 8, 1, 1, 4, 2), (64, 4, 2048, 2048, 1, 32), torch.float32)
        buf7 = empty_strided_cuda((32, 8, 1, 1, 4, 2), (64, 4, 2048, 2048, 1, 32), torch.float32)
        buf8 = empty_strided_cuda((32, 8, 1, 1, 4, 2), (64, 4, 2048, 2048, 1, 32), torch.float32)
        stream0 = get_raw_stream(0)
        k3.run(buf3, buf4, buf5, buf6, buf7, buf8, 2048, 65, stream=stream0)
        del buf3
        del buf4
        del buf5
        buf9 = empty_strided_cuda((32, 8, 1, 1, 4), (32, 4, 1024, 1024, 1), torch.float32)
        buf10 = empty_strided_cuda((32, 8, 1, 1, 4), (32, 4, 1024, 1024, 1), torch.float32)
        buf11 = empty_strided_cuda((32, 8, 1, 1, 4), (32, 4, 1024, 1024, 1), torch.float32)
        stream0 = get_raw_stream(0)
        k4.run(buf6, buf7, buf8, buf9, buf10, buf11, 1024, 2, stream=stream0)
        del buf6
        del buf7
        del buf8
        buf12 = empty_strided_cuda((32, 8, 1, 1), (8, 1, 256, 256), torch.float32)
        buf13 = empty_strided_cuda((32, 8, 1, 1), (8, 1, 256, 256), torch.float32)
        stream0 = get_raw_stream(0)
        k5.run(buf9, buf10, buf11, buf12, buf13, 256, 4, stream=stream0)
        del buf10
        del buf11
        del buf9
        buf15 = empty_strided_cuda((32, 64, 258, 258), (4260096, 66564, 258, 1), torch.float32)
        stream0 = get_raw_stream(0)
        k6.run(buf2, arg1_1, buf12, buf13, arg3_1, arg4_1, buf15, 2130048, 64, stream=stream0)
        del arg1_1
        return (buf15, )
"""


def test_a_group_norm_split_over_five_launches_is_one_region():
    """The region grows up to six launches: at four (the limit before) it began at the first
    combining kernel, whose input (the partial statistics) no FX node holds, and was refused."""

    def kernel(name: str, ins: int, outs: int, sizes: str) -> str:
        params = [f"in_ptr{i}" for i in range(ins)] + [f"out_ptr{i}" for i in range(outs)]
        return f"@triton.jit\ndef {name}({', '.join(params)}, {sizes}):\n    pass\n"

    sources = {
        "k2": kernel("k2", 2, 3, "xnumel, r0_numel"),
        "k3": kernel("k3", 3, 3, "xnumel, r0_numel"),
        "k4": kernel("k4", 3, 3, "xnumel, r0_numel"),
        "k5": kernel("k5", 3, 2, "xnumel, r0_numel"),
        "k6": kernel("k6", 6, 1, "ynumel, xnumel"),
    }
    heur = {"k2": "reduction", "k3": "persistent_reduction", "k4": "persistent_reduction"}
    heur.update({"k5": "persistent_reduction", "k6": "pointwise"})
    fx = {"buf2", "arg1_1", "arg3_1", "arg4_1", "buf15"}.__contains__
    found, refused = regions.find_regions(FIVE_LAUNCHES, sources, heur, ["k2", "k3"], fx, absorb=True)
    assert refused == [] and [r["members"] for r in found] == [["k2", "k3", "k4", "k5", "k6"]]
    assert found[0]["inputs"] == ["buf2", "arg1_1", "arg3_1", "arg4_1"] and found[0]["outputs"] == ["buf15"]


# Inductor's CUDA wrapper of Conv2d + GroupNorm + scale + tanh + LogSumExp over channels
# (problems/headroom/level2/1 on the H100, 2026-12-06): the last kernel gets the convolution's
# output as ``in_out_ptr0`` under a new name (its store of the tanh was dropped: it only loads
# it) and writes the LogSumExp into a reinterpreted fresh allocation
REUSED_INPUT = """
def partition_0(args):
    buf2, arg3_1, arg4_1, arg5_1 = args
    args.clear()
    with torch.cuda._DeviceGuard(0):
        buf3 = empty_strided_cuda((64, 8, 1, 1), (8, 1, 512, 512), torch.float32)
        buf4 = empty_strided_cuda((64, 8, 1, 1), (8, 1, 512, 512), torch.float32)
        stream0 = get_raw_stream(0)
        k2.run(buf2, arg3_1, buf3, buf4, 512, 516128, stream=stream0)
        buf8 = buf2; del buf2  # reuse
        buf10 = empty_strided_cuda((64, 1, 254, 254), (64516, 4129024, 254, 1), torch.float32)
        buf11 = reinterpret_tensor(buf10, (64, 1, 254, 254), (64516, 64516, 254, 1), 0); del buf10  # reuse
        stream0 = get_raw_stream(0)
        k3.run(buf8, buf11, buf3, buf4, arg4_1, arg5_1, 4129024, 64, stream=stream0)
        del buf3
        del buf4
        return (buf11, )
"""


def test_a_region_reads_a_reused_input_under_its_last_name():
    """A member's ``in_out_ptr`` that it only loads from is read, not written; a statement
    between the launches that renames an input (``buf8 = buf2; del buf2``) or reinterprets a
    fresh allocation (the output) is allowed; every call passes the input's last name, which
    the region's launch can use where the last member's was, and ``read_as`` keeps the first
    (the name of the FX node its memory holds).  A member that stores to it is refused."""
    last = "@triton.jit\ndef k3(in_out_ptr0, in_out_ptr1, in_ptr0, in_ptr1, in_ptr2, in_ptr3, xnumel, r0_numel):\n"
    body = "    tmp0 = tl.load(in_out_ptr0 + x)\n    tl.store(in_out_ptr1 + x, tmp0)\n"
    sources = {
        "k2": "@triton.jit\ndef k2(in_ptr0, in_ptr1, out_ptr0, out_ptr1, xnumel, r0_numel):\n    pass\n",
        "k3": last + body,
    }
    heur = {"k2": "reduction", "k3": "persistent_reduction"}
    fx = {"buf2", "arg3_1", "arg4_1", "arg5_1", "buf11"}.__contains__
    found, refused = regions.find_regions(REUSED_INPUT, sources, heur, ["k2"], fx, absorb=True)
    assert refused == [] and [r["members"] for r in found] == [["k2", "k3"]], refused
    r = found[0]
    assert r["inputs"] == ["buf8", "arg3_1", "arg4_1", "arg5_1"] and r["outputs"] == ["buf11"]
    assert r["read_as"] == {"buf8": "buf2"} and r["intermediates"] == ["buf3", "buf4"]
    assert r["calls"][0]["args"][0] == {"param": "in_ptr0", "buffer": "buf8"}
    assert r["calls"][1]["args"][0] == {"param": "in_out_ptr0", "buffer": "buf8"}
    from kernelopt.stitch.regions import edit_call_sites

    stitched = edit_call_sites(REUSED_INPUT, [{**r, "unit": "rg"}])
    assert "k2.run(" not in stitched and "k3.run(buf8, arg3_1, arg4_1, arg5_1, buf11, stream=stream0)" in stitched
    assert stitched.index("buf8 = buf2; del buf2") < stitched.index("k3.run(")
    # a view of the input under the new name (another shape, strides or offset) is not one tensor
    view = REUSED_INPUT.replace("buf8 = buf2;", "buf8 = reinterpret_tensor(buf2, (64, 64, 254, 254), (1, 1, 1, 1), 8);")
    found, refused = regions.find_regions(view, sources, heur, ["k2"], fx, absorb=True)
    assert found == [] and "may touch the region's buffers: buf8 = reinterpret_tensor" in refused[0]["reason"]
    sources["k3"] = last + body + "    tl.store(in_out_ptr0 + x, tmp0)\n"  # a real in-place write
    found, refused = regions.find_regions(REUSED_INPUT, sources, heur, ["k2"], fx, absorb=True)
    assert found == [] and "in place" in refused[0]["reason"], refused


def test_regions_are_refused_with_a_reason():
    src = WRAPPER.read_text()
    launch = f"        {AFFINE}.run(buf5, arg3_1, buf4, arg4_1, buf6, buf7, 16, stream=raw_streamNone)\n"
    assert launch in src
    # the statistics read after the region: they become outputs, and no FX node holds them
    found, refused = _find(src.replace(launch, launch + "        print(buf5.sum())\n"))
    assert found == [] and "hold no FX node's value" in refused[0]["reason"]
    # something between the launches touches an intermediate
    found, refused = _find(src.replace(launch, "        buf5.add_(1)\n" + launch))
    assert found == [] and "between the launches" in refused[0]["reason"]
    # the second kernel writes a buffer the region reads from outside
    found, refused = _find(src.replace(launch, launch.replace("buf6, buf7", "arg3_1, buf7")))
    assert found == [] and "in place" in refused[0]["reason"]
    # an alias made before the region and read after it: the buffer is an output, not an
    # intermediate the stitched model could leave unwritten (review of the first version)
    stats = f"        {STATS}.run(buf4, buf2, buf5, 8, 128, stream=raw_streamNone)\n"
    aliased = src.replace(stats, "        buf9 = reinterpret_tensor(buf5, (8,), (1,), 0)\n" + stats)
    aliased = aliased.replace("return (buf8, )", "return (buf8, buf9, )")
    found, refused = _find(aliased)
    assert found == [] and "['buf5']" in refused[0]["reason"] and "hold no FX node's value" in refused[0]["reason"]
    # a write to memory the function did not allocate (a graph input mutated in place)
    found, refused = _find(src.replace(launch, launch.replace("buf6, buf7", "arg0_1, buf7")))
    assert found == [] and "did not allocate" in refused[0]["reason"]
    # the in_out_ptr's buffer is not fresh once its allocation was read under another name
    touched = src.replace(stats, "        print(buf3)\n" + stats)
    touched = touched.replace("buf4 = buf3; del buf3  # reuse", "buf4 = buf3")
    found, refused = _find(touched)
    assert found == [] and "reads from outside (in place)" in refused[0]["reason"]
    # the outputs must be FX values, or the region grows (here: up to the function's end)
    found, refused = _find(mappable=lambda b: False)
    assert found == [] and refused[0]["start"] == STATS


def _member_contract(kernel, args, config):
    return {
        "unit": kernel,
        "kernel": kernel,
        "graph": 0,
        "device": "cpu",
        "args": args,
        "launch_config": {"kwargs": config, "num_warps": 1, "num_stages": 1},
        "grid_expr": None,
    }


def _tensor(name, shape, stride, access="read"):
    return {
        "name": name,
        "kind": "tensor",
        "shape": shape,
        "stride": stride,
        "dtype": "float32",
        "device": "cpu",
        "storage_offset": 0,
        "access": access,
    }


def test_the_region_contract_names_the_buffers_and_its_inputs_are_drawn_through_the_members():
    r = {**_region(), "member_units": [STATS, AFFINE], "reference": {"aten_ops": ["aten.var_mean.correction"]}}
    stats = _member_contract(
        STATS,
        [
            _tensor("in_out_ptr0", [2, 4, 1, 1], [4, 1, 8, 8], "readwrite"),
            _tensor("in_ptr0", [2, 8, 8, 8], [512, 1, 64, 8]),
            _tensor("out_ptr0", [2, 4, 1, 1], [4, 1, 8, 8], "write"),
            {"name": "xnumel", "kind": "scalar", "value": 8},
            {"name": "r0_numel", "kind": "scalar", "value": 128},
        ],
        {"XBLOCK": 8},
    )
    affine = _member_contract(
        AFFINE,
        [
            _tensor("in_ptr0", [2, 4, 1, 1], [4, 1, 8, 8]),
            _tensor("in_ptr1", [8], [1]),
            _tensor("in_ptr2", [2, 4, 1, 1], [4, 1, 8, 8]),
            _tensor("in_ptr3", [8], [1]),
            _tensor("out_ptr0", [2, 4, 2, 1], [8, 2, 1, 1], "write"),
            _tensor("out_ptr1", [2, 4, 2, 1], [8, 2, 1, 1], "write"),
            {"name": "xnumel", "kind": "scalar", "value": 16},
        ],
        {"XBLOCK": 16},
    )
    c = region_contract([Contract.from_dict(stats), Contract.from_dict(affine)], r, RID)
    assert [(a["name"], a["access"], a["shape"]) for a in c.args] == [
        ("buf2", "read", [2, 8, 8, 8]),
        ("arg3_1", "read", [8]),
        ("arg4_1", "read", [8]),
        ("buf6", "write", [2, 4, 2, 1]),
        ("buf7", "write", [2, 4, 2, 1]),
    ]
    assert c.kernel == AFFINE and c.region["intermediate_specs"]["buf5"]["stride"] == [4, 1, 8, 8]

    class Kernel:  # what the wrapper launches: writes 1 + its first argument into its outputs
        def __init__(self, written):
            self.written = written

        def run(self, *args, **kwargs):
            for i in self.written:
                args[i].fill_(1.0 + float(args[0].flatten()[0]))

    obs = RegionIO(c)
    b4, x, b5 = torch.zeros(1), torch.full((1,), 7.0), torch.zeros(1)
    w, b, o6, o7 = torch.full((1,), 2.0), torch.full((1,), 3.0), torch.full((1,), -1.0), torch.full((1,), -2.0)
    obs.on_kernel(STATS, Kernel([0, 2]), 0, (b4, x, b5, 8, 128), {})
    obs.on_kernel(AFFINE, Kernel([4, 5]), 0, (b5, w, b4, b, o6, o7, 16), {})
    before, after = obs.io()
    # inputs as the first reader got them; outputs before their first writer and after their last
    assert [float(t) for t in before] == [7.0, 2.0, 3.0, -1.0, -2.0]
    assert [float(t) for t in after] == [7.0, 2.0, 3.0, 3.0, 3.0]
    assert before[0] is after[0] and before[0] is not x  # a clone, held once
    with pytest.raises(RuntimeError, match="not launched"):
        RegionIO(c).io()


@pytest.mark.slow
def test_the_region_baseline_runs_the_wrappers_kernels_in_order(tmp_path):
    """render_region's module under the Triton interpreter: its launch gives what the captured
    wrapper's two kernels give (intermediates allocated inside it)."""
    cpu_mode.install()
    oc = outputcode.parse(WRAPPER.read_text())
    rec = json.loads((ROOT / "tests/fixtures/regions/groupnorm_cpu_contracts.json").read_text())
    r = {**_region(), "member_units": [STATS, AFFINE], "reference": {"aten_ops": []}}
    c = region_contract([Contract.from_dict(m) for m in rec["members"]], r, RID)
    mod = load_candidate(render_region(c, [oc.kernels[STATS].source, oc.kernels[AFFINE].source]), "region_base")
    torch.manual_seed(0)
    x = torch.randn(2, 8, 8, 8).to(memory_format=torch.channels_last)
    w, b = torch.randn(8), torch.randn(8)
    o6, o7 = torch.full((2, 4, 2, 1), float("nan")), torch.full((2, 4, 2, 1), float("nan"))
    mod.launch(x, w, b, o6, o7)
    var, mean = torch.var_mean(x.reshape(2, 4, 2 * 64), dim=-1, correction=0)
    rstd = torch.rsqrt(var + 1e-5)[:, :, None]
    scale = (rstd * w.reshape(4, 2)).reshape(2, 4, 2, 1)
    torch.testing.assert_close(o6, scale)
    torch.testing.assert_close(o7, (-mean[:, :, None] * rstd * w.reshape(4, 2) + b.reshape(4, 2)).reshape(2, 4, 2, 1))


def _declared():
    return {**{k: v for k, v in _region().items() if k in REGION_KEYS}, "unit": RID}


def test_the_stitch_drops_the_first_launch_and_gate_3_proves_it(tmp_path):
    cand = tmp_path / "cand.py"
    cand.write_text("def launch(*args):\n    pass\n")
    info = write_stitched(WRAPPER, tmp_path / "s", {AFFINE: cand}, regions=[_declared()])
    text = (tmp_path / "s/output_code.py").read_text()
    assert f"{STATS}.run(" not in text and f"# kernelopt: {STATS}'s launch dropped: part of region {RID}" in text
    assert f"{AFFINE}.run(buf2, arg3_1, arg4_1, buf6, buf7, stream=raw_streamNone)" in text
    assert info["dropped"] == [STATS]
    p = info["proof"]
    assert p["identical_except_replaced"] and p["regions_not_allowed_on_baseline"] == [], p
    # a stitched file whose edits are not the declared ones fails the proof
    wrong = text.replace("buf6, buf7, stream", "buf7, buf6, stream")
    assert not diff_proof(WRAPPER.read_text(), wrong, {AFFINE}, None, [_declared()])["identical_except_replaced"]
    kept = text.replace(
        f"# kernelopt: {STATS}'s launch dropped: part of region {RID}",
        f"{STATS}.run(buf4, buf2, buf5, 8, 128, stream=raw_streamNone)",
    )
    assert not diff_proof(WRAPPER.read_text(), kept, {AFFINE}, None, [_declared()])["identical_except_replaced"]
    # a declared region that the baseline does not allow (another input) fails it, edits agreeing or not
    bad = {**_declared(), "inputs": ["buf2", "arg3_1"]}
    info = write_stitched(WRAPPER, tmp_path / "b", {AFFINE: cand}, regions=[bad])
    assert info["proof"]["regions_not_allowed_on_baseline"] == [RID]
    assert not info["proof"]["identical_except_replaced"]


def test_a_region_and_its_members_are_never_both_replaced(tmp_path):
    from kernelopt.core.records import Best, ProblemPaths

    paths = ProblemPaths(tmp_path, "p")
    units = [
        DispatchUnit(id=STATS, kernel=STATS, time_ms=1.0),
        DispatchUnit(id=AFFINE, kernel=AFFINE, time_ms=1.0),
        DispatchUnit(id=RID, kernel=AFFINE, time_ms=2.0, region={"member_units": [STATS, AFFINE]}),
    ]
    Dispatch(problem="p", verdict="optimizable", units=units).save(paths.dispatch)
    files = {u.id: str(paths.unit(u.id) / "synth/a0/candidate.py") for u in units}

    def best(ratio):
        return Best("u", {"synth/a0/candidate.py": {"ratio": ratio}}, meaningful=True)

    # the region saves 2 x 0.5 ms; a member alone (were it checkable) 1 x 0.2 ms: the region wins
    out, why = choose_fusions(paths, dict(files), {STATS: best(0.8), AFFINE: best(1.0), RID: best(0.5)})
    assert set(out) == {RID} and why[0]["taken"]
    out, why = choose_fusions(paths, dict(files), {STATS: best(0.1), AFFINE: best(0.1), RID: best(0.9)})
    assert set(out) == {STATS, AFFINE} and not why[0]["taken"]


def test_a_whole_tensor_reduction_is_one_region_of_four_launches():
    """problems/generalize/level1/7_WholeTensorStandardize (written after the region code): the
    mean and std of a whole tensor split into partial sums, two combines and the pointwise
    standardize.  The three kernels with no reference start one region, not three."""
    wrapper = ROOT / "tests/fixtures/regions/standardize_cpu_output_code.py"
    oc = outputcode.parse(wrapper.read_text())
    order = ["triton_red_fused_mean_std_0", "triton_per_fused_mean_1", "triton_per_fused_std_2"]
    found, refused = regions.find_regions(
        wrapper.read_text(),
        {k: v.source for k, v in oc.kernels.items()},
        {k: v.heuristic for k, v in oc.kernels.items()},
        list(reversed(order)),  # any order: regions start from the earliest launch
        {"arg0_1", "buf8"}.__contains__,
    )
    assert refused == [] and len(found) == 1
    r = found[0]
    assert r["members"] == [*order, "triton_poi_fused_add_div_mean_std_sub_3"]
    assert (r["inputs"], r["outputs"]) == (["arg0_1"], ["buf8"])
    assert r["intermediates"] == ["buf0", "buf2", "buf3", "buf4", "buf1", "buf6"]


def test_classify_adds_the_region_as_one_more_unit():
    from kernelopt.classify.stage import add_region_units

    r = {**_region(), "id": RID, "reference": {"file": f"kernels/{RID}.reference.py", "aten_ops": []}}
    dispatch = {
        "total_ms": 4.0,
        "units": [
            {"id": STATS, "kernel": STATS, "graph": 0, "heuristic": "persistent_reduction", "time_ms": 1.0},
            {"id": AFFINE, "kernel": AFFINE, "graph": 0, "heuristic": "pointwise", "time_ms": 0.5},
            # a fused unit carries its consumer's kernel: never taken for the kernel's own unit
            {"id": "fz_p__s", "kernel": STATS, "graph": 0, "time_ms": 2.0, "fused": {"consumer": STATS}},
        ],
    }
    add_region_units(
        dispatch, Capture(graphs=[{"regions": {"found": [r], "refused": [{"start": "k", "reason": "x"}]}}])
    )
    unit = dispatch["units"][-1]
    assert (unit["id"], unit["kernel"], unit["time_ms"], unit["share"]) == (RID, AFFINE, 1.5, 0.375)
    assert unit["region"]["member_units"] == [STATS, AFFINE] and unit["region"]["inputs"] == r["inputs"]
    assert dispatch["regions"] == {"region_units": [RID], "refused_starts": [{"start": "k", "reason": "x"}]}


def _fusible(path, mappable=lambda b: True):
    src = path.read_text()
    oc = outputcode.parse(src)
    sources = {k: v.source for k, v in oc.kernels.items()}
    heur = {k: v.heuristic for k, v in oc.kernels.items()}
    return regions.find_regions(src, sources, heur, [], mappable, fusible=list(sources))


def test_a_scan_and_the_flip_of_its_result_are_one_fusible_region():
    """problems/headroom/level1/15_Cumsum_Reverse (flip, cumsum, flip): Inductor scans the reversed
    row into buf0 and flips buf0 into the output in a second kernel; buf0 is a round trip through
    memory only the two kernels make, so they become one fusible region."""
    found, refused = _fusible(ROOT / "tests/fixtures/regions/cumsum_reverse_cpu_output_code.py")
    assert refused == [] and len(found) == 1
    r = found[0]
    assert r["kind"] == "fusible"
    assert r["members"] == ["triton_per_fused_cumsum_flip_0", "triton_poi_fused_flip_1"]
    assert (r["inputs"], r["outputs"], r["intermediates"]) == (["arg0_1"], ["buf1"], ["buf0"])
    # an output no FX node holds is not a region (its reference could not be cut)
    assert _fusible(ROOT / "tests/fixtures/regions/cumsum_reverse_cpu_output_code.py", lambda b: b != "buf1") == (
        [],
        [],
    )


def test_a_split_region_is_found_first_and_fusible_ones_never_overlap_it():
    """The group norm's statistics kernel has no reference: its split region is found from it; no
    fusible region is made of its members again."""
    src = WRAPPER.read_text()
    oc = outputcode.parse(src)
    sources = {k: v.source for k, v in oc.kernels.items()}
    heur = {k: v.heuristic for k, v in oc.kernels.items()}
    found, _ = regions.find_regions(src, sources, heur, [STATS], FX_VALUES.__contains__, fusible=list(sources))
    assert [r["kind"] for r in found if STATS in r["members"]] == ["split"]
    members = [m for r in found for m in r["members"]]
    assert len(members) == len(set(members))
    # pointwise-only runs are the fused pairs' business (classify/fusion.py), never a fusible region
    assert all(any(heur[m] != "pointwise" for m in r["members"]) for r in found)


def test_a_split_loss_whose_output_is_a_renamed_allocation_is_a_region(tmp_path):
    """problems/headroom/level1/21_MSELoss on the H200: Inductor's partial sums (no reference) and
    the kernel that sums them into a scalar Inductor allocated as buf2 and renamed buf3 between
    the launches (``buf3 = buf2; del buf2  # reuse``).  The rename stays where it is, so the two
    kernels are one split region whose output is buf3."""
    path = ROOT / "tests/fixtures/regions/mse_h200_output_code.py"
    src = path.read_text()
    oc = outputcode.parse(src)
    sources = {k: v.source for k, v in oc.kernels.items()}
    heur = {k: v.heuristic for k, v in oc.kernels.items()}
    first = "triton_red_fused_mean_pow_sub_0"
    found, refused = regions.find_regions(src, sources, heur, [first], lambda b: b != "buf1")
    assert refused == [] and [r["members"] for r in found] == [[first, "triton_red_fused_mean_pow_sub_1"]]
    assert (found[0]["outputs"], found[0]["intermediates"]) == (["buf3"], ["buf1"])
    # stitched: the first launch dropped, the rename kept before the last launch, and the proof
    # (the declared edits applied on the baseline's AST) agrees with the text
    declared = {k: found[0][k] for k in REGION_KEYS}
    cand = tmp_path / "cand.py"
    cand.write_text("def launch(*args):\n    pass\n")
    last = "triton_red_fused_mean_pow_sub_1"
    info = write_stitched(path, tmp_path / "s", {last: cand}, regions=[{**declared, "unit": "rg"}])
    text = (tmp_path / "s/output_code.py").read_text()
    assert f"{first}.run(" not in text and text.index("buf3 = buf2") < text.index(f"{last}.run(")
    assert info["proof"]["identical_except_replaced"], info["proof"]
    # a rename of a buffer the region reads from outside is still refused
    bad = src.replace("buf3 = buf2; del buf2  # reuse", "buf3 = arg0_1")
    found, refused = regions.find_regions(bad, sources, heur, [first], lambda b: b != "buf1")
    assert found == [] and refused


def test_a_region_after_a_convolution_run_without_its_bias_has_a_reference(tmp_path):
    """On the GPU Inductor may call the convolution with ``bias=None`` and add the bias in the
    Triton kernels after it (Conv3d + GroupNorm + mean on the H100, 2026-12-06): the call's buffer
    holds no FX node's value, and the region after it had no reference.  The buffer is now the
    convolution's value less its bias: the reference adds the bias (an input of the region) back,
    and matches the graph on the raw output; a call whose weight is not the FX node's is not
    taken."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from kernelopt.capture import fxref
    from kernelopt.capture.stage import raw_convolutions

    conv = torch.ops.aten.convolution.default

    def f(x, w, b):
        c = conv(x, w, b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
        return (torch.ops.aten.mean.dim(torch.ops.aten.relu.default(c) * 2.0, [1, 2, 3]),)

    torch.manual_seed(0)
    x, w, b = torch.randn(2, 3, 8, 8), torch.randn(5, 3, 3, 3), torch.randn(5) * 3
    gm = make_fx(f)(x, w, b)
    ph = {n.name: n for n in gm.graph.nodes if n.op == "placeholder"}
    x_, w_, b_ = list(ph.values())
    source = (
        "        buf0 = extern_kernels.convolution(arg2_1, arg0_1, stride=(1, 1), padding=(0, 0), "
        "dilation=(1, 1), transposed=False, output_padding=(0, 0), groups=1, bias=None)\n"
        "        buf7 = extern_kernels.convolution(arg2_1, arg2_1, stride=(1, 1), bias=None)\n"
    )
    names = {"arg2_1": x_, "arg0_1": w_, "arg1_1": b_}

    def node_of(buf):
        if buf not in names:
            raise fxref.ReferenceUnavailable(f"buffer {buf} has no origin FX node")
        return names[buf]

    raw = raw_convolutions(source, node_of)
    assert list(raw) == ["buf0"] and raw["buf0"][1] is b_ and raw["buf0"][0].target is conv
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0][0]
    ref = fxref.build(gm, {"buf0": raw["buf0"][0], "arg1_1": b_}, {"buf9": out}, raw={"buf0": b_})
    assert ref.level == "kernel" and "aten.convolution.default" not in ref.aten_ops
    ns: dict = {"__file__": str(tmp_path / "rg_test.reference.py")}
    exec(fxref.render("rg_test", ref), ns)
    got = ns["reference"](buf0=conv(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1), arg1_1=b)["buf9"]
    torch.testing.assert_close(got, f(x, w, b)[0])
    with pytest.raises(fxref.ReferenceUnavailable, match="does not read"):  # the bias must be an input
        fxref.build(gm, {"buf0": raw["buf0"][0]}, {"buf9": out}, raw={"buf0": b_})


def test_a_convolution_fed_by_layout_copies_maps_through_them():
    """Conv2d + InstanceNorm and ConvTranspose2d + GroupNorm on the H100 (2026-12-06): Inductor
    copied the input and the weight to channels-last before the library call, the call's input
    was the copy (no FX node), and the region after it had no reference.  A kernel that only
    copies (one load, that value stored) maps through; one that computes does not."""
    from kernelopt.capture import fxref
    from kernelopt.capture.stage import layout_copies, raw_convolutions

    copy = (
        "@triton.jit\ndef k(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):\n"
        "    y0 = (yindex % 32)\n"
        "    tmp0 = tl.load(in_ptr0 + (x2 + 65536*y3), None, eviction_policy='evict_last')\n"
        "    tl.store(out_ptr0 + (y0 + 32*x2 + 2097152*y1), tmp0, None)\n"
    )
    scaled = copy.replace("    tl.store", "    tmp1 = tmp0 * 2.0\n    tl.store")
    scaled = scaled.replace(", tmp0, None)", ", tmp1, None)")
    source = (
        "        triton_poi_fused_convolution_0.run(arg2_1, buf0, 2048, 65536, stream=stream0)\n"
        "        triton_poi_fused_convolution_1.run(arg0_1, buf1, 2048, 9, stream=stream0)\n"
        "        triton_poi_fused_mul_2.run(arg3_1, buf5, 64, stream=stream0)\n"
        "        buf2 = extern_kernels.convolution(buf0, buf1, stride=(1, 1), padding=(1, 1), bias=None)\n"
        "        buf6 = extern_kernels.convolution(buf5, buf1, stride=(1, 1), padding=(1, 1), bias=None)\n"
    )
    kernels = {"triton_poi_fused_convolution_0": copy, "triton_poi_fused_convolution_1": copy}
    copies = layout_copies(source, {**kernels, "triton_poi_fused_mul_2": scaled})
    assert copies == {"buf0": "arg2_1", "buf1": "arg0_1"}
    conv = torch.ops.aten.convolution.default
    graph = torch.fx.Graph()
    x, w, b, x2 = (graph.placeholder(n) for n in ("arg2_1", "arg0_1", "arg1_1", "arg3_1"))
    c = graph.call_function(conv, (x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1))
    graph.call_function(conv, (x2, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1))
    names = {"arg2_1": x, "arg0_1": w, "arg1_1": b, "arg3_1": x2}

    def node_of(buf):
        if buf not in names:
            raise fxref.ReferenceUnavailable(f"buffer {buf} has no origin FX node")
        return names[buf]

    assert raw_convolutions(source, node_of) == {}  # without the copies: no origin, as before
    assert raw_convolutions(source, node_of, copies) == {"buf2": (c, b)}  # buf6's input computes
