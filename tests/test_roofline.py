"""Issue 8, item 4: the roofline in a problem's result (kernelopt/report/roofline.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from kernelopt.core.jsonio import write_json
from kernelopt.core.records import Capture, Contract, Dispatch, DispatchUnit, ProblemPaths
from kernelopt.report import roofline

# what every contract holds besides its arguments (no kernel: no reread analysis unless a test names it)
HEAD = {"problem": "p", "graph": 0, "kernel": "", "device": "cuda"}


def _unit(paths: ProblemPaths, unit: str, shape: list[int], inductor_ms: float, ratios: dict[str, float]) -> None:
    """A unit reading one float32 tensor and writing one, Inductor's kernel profiled at
    ``inductor_ms`` (the timed roofline profile), the given candidates timed against it."""
    write_json(
        paths.contract(unit),
        {
            "unit": unit,
            **HEAD,
            "args": [
                {"name": "in_ptr0", "kind": "tensor", "access": "read", "shape": shape, "dtype": "float32"},
                {"name": "out_ptr0", "kind": "tensor", "access": "write", "shape": shape, "dtype": "float32"},
                {"name": "xnumel", "kind": "scalar"},
            ],
        },
    )
    write_json(
        paths.iter_dir(unit, 0) / "profile" / "m0" / "summary.json",
        {
            "empty": False,
            "member": "inductor",
            "source": "roofline",
            "metrics": {"time_ms": inductor_ms, "meaningful": True},
        },
    )
    cands = {"cands/c0/candidate.py": {"origin": "inductor", "ratio": 1.0, "meaningful": True}}
    cands.update({p: {"origin": "search", "ratio": r, "meaningful": True} for p, r in ratios.items()})
    write_json(paths.best(unit), {"unit": unit, "candidates": cands, "ranked": list(cands), "meaningful": True})


def test_bandwidth_of_inductor_and_of_the_best_candidate(tmp_path):
    paths = ProblemPaths(tmp_path, "p")
    Capture(device="cuda").save(paths.capture_record)
    # 2 x 1 GiB moved in 0.5 ms = 4294.97 GB/s: 99.9 % of 4300
    _unit(paths, "a", [2**28], 0.5, {"iter1/cand0/candidate.py": 1.25, "synth/a0/candidate.py": 2.0})
    # 2 x 256 MiB moved; Inductor at 0.25 ms (50 %), a candidate at 0.8 of its time (62.4 %)
    _unit(paths, "b", [2**26], 0.25, {"iter1/cand0/candidate.py": 0.8})
    roof = roofline.problem_roofline(paths, ["a", "b"], 4300.0)
    a, b = roof["units"]
    assert a["bytes"] == 2 * 2**30 and a["inductor_pct"] == pytest.approx(99.88, abs=0.01)
    assert a["best_candidate"]["path"] == "iter1/cand0/candidate.py"
    assert a["best_candidate"]["pct"] == pytest.approx(99.88 / 1.25, abs=0.01)
    assert b["inductor_pct"] == pytest.approx(49.94, abs=0.01) and b["best_candidate"]["pct"] == pytest.approx(
        49.94 / 0.8, abs=0.01
    )
    total = 2 * 2**30 + 2 * 2**28
    assert roof["inductor_bw_pct"] == pytest.approx(100 * total / 0.75e-3 / 1e9 / 4300, abs=0.01)
    assert roof["best_candidate_bw_pct"] == pytest.approx(100 * total / (0.5 * 1.25 + 0.25 * 0.8) / 1e-3 / 1e9 / 4300)
    text = roofline.describe(roof)
    assert text.startswith("Inductor's kernels ran at 83 % of the 4.3 TB/s copy bandwidth")
    assert text.endswith("the best candidates at 76 %")


def test_a_dropped_candidate_counts_and_no_candidate_is_said(tmp_path):
    paths = ProblemPaths(tmp_path, "p")
    Capture(device="cuda").save(paths.capture_record)
    _unit(paths, "a", [2**20], 0.002, {})
    assert roofline.describe(roofline.problem_roofline(paths, ["a"], 4300.0)).endswith("no other candidate was timed")
    best = paths.best("a")
    d = __import__("json").loads(best.read_text())
    d["timed_out_of_beam"] = [{"id": "synth/a0", "path": "synth/a0/candidate.py", "ratio": 1.5, "meaningful": True}]
    write_json(best, d)
    roof = roofline.problem_roofline(paths, ["a"], 4300.0)
    assert roof["units"][0]["best_candidate"]["path"] == "synth/a0/candidate.py"
    assert roof["best_candidate_bw_pct"] == pytest.approx(roof["inductor_bw_pct"] / 1.5)


def test_on_the_cpu_only_the_bytes_are_recorded(tmp_path):
    paths = ProblemPaths(tmp_path, "p")
    Capture(device="cpu").save(paths.capture_record)
    _unit(paths, "a", [1024], 0.5, {"iter1/cand0/candidate.py": 0.5})
    roof = roofline.problem_roofline(paths, ["a"], 4300.0)
    assert roof["units"][0]["bytes"] == 8192 and roof["units"][0]["inductor_pct"] is None
    assert roof["inductor_bw_pct"] is None and roofline.describe(roof) is None


def test_units_without_a_time_are_said(tmp_path):
    paths = ProblemPaths(tmp_path, "p")
    Capture(device="cuda").save(paths.capture_record)
    _unit(paths, "a", [2**20], 0.002, {})
    # e.g. a split reduction's partial kernel, never profiled
    write_json(paths.contract("b"), {"unit": "b", **HEAD, "args": []})
    text = roofline.describe(roofline.problem_roofline(paths, ["a", "b"], 4300.0))
    assert "(the 1 of 2 kernels with a time)" in text


def test_the_report_and_the_roofline_agree_on_which_timings_count(tmp_path):
    """A candidate whose own timing was not meaningful (noise) counts as passed gates 1-2 but
    is never named with its ratio: not as the roofline's best, not as select's "closest"."""
    from kernelopt.core.jsonio import read_json
    from kernelopt.select import stage as select_stage

    paths = ProblemPaths(tmp_path, "p")
    _unit(paths, "a", [1024], 0.001, {"cands/c1/candidate.py": 1.2})
    best = read_json(paths.best("a"))
    best["candidates"]["cands/c2/candidate.py"] = {"origin": "search", "ratio": 0.9, "meaningful": False}
    best["timed_out_of_beam"] = [{"path": "synth/a0/candidate.py", "ratio": 0.8, "meaningful": False}]
    write_json(paths.best("a"), best)
    alts = select_stage.valid_alternatives(paths, ["a"])
    assert sorted(alts) == [
        ("a", "cands/c1/candidate.py", 1.2),
        ("a", "cands/c2/candidate.py", None),
        ("a", "synth/a0/candidate.py", None),
    ]
    assert roofline.timed_candidates(paths, "a") == [("cands/c1/candidate.py", 1.2)]
    why = select_stage.no_candidate_reason(alts)
    assert "3 candidate(s)" in why and "cands/c1/candidate.py at 1.2000" in why


LOOPED = """
@triton.jit
def k(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    x0 = tl.program_id(0)
    acc = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        tmp0 = tl.load(in_ptr0 + (r0_offset + r0_numel * x0), None, eviction_policy='evict_last')
        acc = acc + tmp0
    s = tl.sum(acc, 1)[:, None]
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        tmp1 = tl.load(in_ptr0 + (r0_offset + r0_numel * x0), None, eviction_policy='evict_first')
        tl.store(out_ptr0 + (r0_offset + r0_numel * x0), tmp1 / s, None)
"""


@pytest.mark.parametrize(("row", "fits"), [(393216, False), (16384, True)])
def test_a_looped_reduction_that_reads_its_row_twice(tmp_path, row, fits):
    """Inductor's kernel loads in_ptr0 in two loops: with a row larger than one SM's registers
    and shared memory any kernel reads it twice (the roof at that traffic is 2/3 of the copy
    bandwidth, reported with how close Inductor came); a row that fits is headroom, no floor."""
    paths = ProblemPaths(tmp_path, "p")
    Capture(device="cuda").save(paths.capture_record)
    rows = 2**28 // row
    _unit(paths, "u", [rows, row], 0.75, {})
    c = Contract.load(paths.contract("u"))
    replace(c, kernel="k", args=[*c.args, {"name": "r0_numel", "kind": "scalar", "value": row}]).save(
        paths.contract("u")
    )
    paths.inductor_kernel("u").write_text(LOOPED)
    roof = roofline.problem_roofline(paths, ["u"], 4300.0)
    (u,) = roof["units"]
    (r,) = u["rereads"]
    assert r["arg"] == "in_ptr0" and r["loops"] == 2 and r["extra_bytes"] == 4 * rows * row
    assert r["row_bytes"] == 4 * row and r["row_fits_on_chip"] is fits
    text = roofline.describe(roof)
    if fits:
        assert "reread_roof_pct" not in u and "reread_roof_pct" not in roof and "read twice" not in text
    else:
        assert u["reread_roof_pct"] == pytest.approx(200 / 3) and roof["reread_roof_pct"] == pytest.approx(200 / 3)
        # 2 x 1.0 GiB at 0.75 ms: 66.5 % of 4.3 TB/s, 99.8 % of the roof at three passes
        assert "a row of up to 1.5 MiB does not fit" in text and "the roof at that traffic is 67 %" in text
        assert text.endswith("Inductor reached 100 % of it")


def test_a_single_loop_reduction_reads_once(tmp_path):
    paths = ProblemPaths(tmp_path, "p")
    Capture(device="cuda").save(paths.capture_record)
    _unit(paths, "u", [64, 2**22], 0.5, {})
    one_loop = LOOPED.split("    s = tl.sum")[0]
    replace(Contract.load(paths.contract("u")), kernel="k").save(paths.contract("u"))
    paths.inductor_kernel("u").write_text(one_loop)
    (u,) = roofline.problem_roofline(paths, ["u"], 4300.0)["units"]
    assert "rereads" not in u and "reread_roof_pct" not in u


def test_reread_counts_one_more_read_and_no_gathers():
    """A third loop over the row is Inductor's choice (two passes always suffice): one extra
    read is counted, not two; a load through an index read from memory (a gather, as in a
    cross-entropy's target lookup) is not a re-read of its tensor."""
    from kernelopt.core.roofline import reread_inputs, reread_roof_pct

    three = LOOPED.replace(
        "    s = tl.sum(acc, 1)[:, None]\n",
        "    s = tl.sum(acc, 1)[:, None]\n"
        "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n"
        "        v = tl.load(in_ptr0 + (r0_offset + r0_numel * x0))\n"
        "        tmp9 = tl.load(in_ptr1 + (x0))\n"
        "        g = tl.load(in_ptr1 + (tmp9 + r0_offset))\n",
    )
    args = [
        {"name": "in_ptr0", "kind": "tensor", "access": "read", "shape": [64, 2**20], "dtype": "float32"},
        {"name": "in_ptr1", "kind": "tensor", "access": "read", "shape": [64, 2**20], "dtype": "float32"},
        {"name": "out_ptr0", "kind": "tensor", "access": "write", "shape": [64, 2**20], "dtype": "float32"},
        {"name": "r0_numel", "kind": "scalar", "value": 2**20},
    ]
    (r,) = reread_inputs(three, "k", Contract(args=args))
    assert r["arg"] == "in_ptr0" and r["loops"] == 3 and r["extra_bytes"] == 4 * 64 * 2**20
    gather = (
        three + "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        w = tl.load(in_ptr1 + (tmp9 + 1))\n"
    )
    (r,) = reread_inputs(gather, "k", Contract(args=args))  # in_ptr1: once plainly, once gathered: no re-read
    assert r["arg"] == "in_ptr0"
    # three tensors of 256 MiB move 768 MiB; one more read of in_ptr0: the roof is 3/4
    assert reread_roof_pct(Contract(args=args), [r]) == pytest.approx(75.0)


def test_an_inplace_argument_the_kernel_only_loads_is_read_not_written():
    """Inductor keeps the in/out name of a reused buffer whose store it dropped (conv + GroupNorm
    + tanh + LogSumExp on the H100: the unit's roofline said 71 % of the copy roof, the kernel
    moved 35 %).  Its bytes count once; any other use of the name (a store, an atomic, a
    pointer handed on) still counts as a write, and so does everything without the kernel."""
    from kernelopt.core.roofline import estimate, loaded_only, moved_bytes, read_written_bytes, unit_loaded_only

    kernel = (
        "import triton\nimport triton.language as tl\n\n@triton.jit\n"
        "def k(in_out_ptr0, in_out_ptr1, in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):\n"
        "    x0 = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)\n"
        "    a = tl.load(in_out_ptr0 + (x0 // 64), None)\n"
        "    b = tl.load(in_out_ptr1 + x0)\n"
        "    tl.store(in_out_ptr1 + x0, b * a)\n"
        "    tl.store(out_ptr0 + x0 // 64, tl.load(in_ptr0 + x0) + a)\n\n"
        "def launch(in_out_ptr0, in_out_ptr1, in_ptr0, out_ptr0, xnumel):\n"
        "    k[(1,)](in_out_ptr0, in_out_ptr1, in_ptr0, out_ptr0, xnumel, XBLOCK=1024)\n"
    )
    mb = {"kind": "tensor", "dtype": "float32", "shape": [2**18]}  # 1 MiB each
    args = [
        {**mb, "name": "in_out_ptr0", "access": "readwrite"},
        {**mb, "name": "in_out_ptr1", "access": "readwrite"},
        {**mb, "name": "in_ptr0", "access": "read"},
        {**mb, "name": "out_ptr0", "access": "write"},
    ]
    c = Contract(args=args, kernel="k")
    assert loaded_only(kernel, "k", c) == {"in_out_ptr0"}
    assert read_written_bytes(c) == (3 * 2**20, 3 * 2**20)
    assert read_written_bytes(c, {"in_out_ptr0"}) == (3 * 2**20, 2 * 2**20)
    assert estimate(c, 1.0, "cuda", 4300.0, 132, {"in_out_ptr0"})["bytes_written"] == 2 * 2**20
    assert moved_bytes(c, {"in_out_ptr0"}) == 5 * 2**20
    store = "    tl.store(in_out_ptr1"
    handed_on = kernel.replace(store, "    helper(in_out_ptr0)\n" + store)
    atomic = kernel.replace(store, "    tl.atomic_add(in_out_ptr0 + x0, a)\n" + store)
    assert loaded_only(handed_on, "k", c) == loaded_only(atomic, "k", c) == set()
    assert loaded_only(kernel, "other", c) == loaded_only("def k(:", "k", c) == set()
    assert unit_loaded_only(Path("/nonexistent/inductor.py"), c) == set()


def test_the_roof_arithmetic_search_and_report_share():
    """Bytes over a time against the copy bandwidth, the least time bytes take under a roof, and
    a % of the copy bandwidth as a % of a roof (core/roofline.py)."""
    from kernelopt.core.roofline import achieved_gbs, bandwidth_pct, floor_ms, roof_share_pct

    assert achieved_gbs(2 * 2**30, 0.5) == pytest.approx(4294.97, abs=0.01)
    assert bandwidth_pct(2 * 2**30, 0.5, 4300.0) == pytest.approx(99.88, abs=0.01)
    assert floor_ms(4.3e9, 100.0, 4300.0) == pytest.approx(1.0)
    assert floor_ms(4.3e9, 50.0, 4300.0) == pytest.approx(2.0)  # half the roof: twice the traffic
    assert bandwidth_pct(4.3e9, floor_ms(4.3e9, 75.0, 4300.0), 4300.0) == pytest.approx(75.0)
    assert roof_share_pct(60.0, 75.0) == pytest.approx(80.0)


def test_a_region_is_its_members_again_and_counts_once(tmp_path):
    """Run 14's LayerNorm: the region of its kernels and the kernels themselves are all units;
    the problem's totals count each kernel once (the region's time is its members')."""
    paths = ProblemPaths(tmp_path, "p")
    Capture(device="cuda").save(paths.capture_record)
    _unit(paths, "a", [2**26], 0.25, {})
    _unit(paths, "b", [2**26], 0.25, {})
    _unit(paths, "rg_a__b", [2**26], 0.75, {"synth/a0/candidate.py": 0.5})
    region = {"members": ["a", "b"], "member_units": ["a", "b"]}
    kernels = [DispatchUnit(id=k, kernel=k, time_ms=0.25) for k in ("a", "b")]
    composite = DispatchUnit(id="rg_a__b", kernel="b", time_ms=0.5, region=region)
    Dispatch(problem="p", verdict="optimizable", units=[*kernels, composite]).save(paths.dispatch)
    roof = roofline.problem_roofline(paths, ["a", "b", "rg_a__b"], 4300.0)
    assert [u.get("composite", False) for u in roof["units"]] == [False, False, True]
    assert roof["inductor_bw_pct"] == pytest.approx(100 * 4 * 2**26 * 4 / 0.5e-3 / 1e9 / 4300, abs=0.01)
    assert roof["best_candidate_bw_pct"] is None  # the region's candidate is not a kernel's
    text = roofline.describe(roof)
    assert "kernels with a time" not in text and "only candidates of fused pairs or regions were timed" in text
    # members without a time of their own (a split reduction's, not checkable alone): the
    # region's time stands in for them; a fused pair likewise
    for f in ("a", "b"):
        for p in paths.iter_dir(f, 0).glob("profile/m0/summary.json"):
            p.unlink()
        paths.best(f).unlink()
    roof = roofline.problem_roofline(paths, ["a", "b", "rg_a__b"], 4300.0)
    assert roof["inductor_bw_pct"] == pytest.approx(100 * 2 * 2**26 * 4 / 0.75e-3 / 1e9 / 4300, abs=0.01)
    fused = {"producer_unit": "a", "consumer_unit": "b"}
    composite = replace(composite, region=None, fused=fused)
    Dispatch(problem="p", verdict="optimizable", units=[*kernels, composite]).save(paths.dispatch)
    assert roofline.problem_roofline(paths, ["a", "b", "rg_a__b"], 4300.0)["inductor_bw_pct"] == roof["inductor_bw_pct"]


def test_the_hardware_facts_are_declared_once_and_agree():
    """Issue 14: one table of the GPU's facts (core/hardware.py) that the roofline, the memory
    ledger and the search read; the roof's setting defaults to the H200's measured copy roof."""
    from kernelopt.core import config, gpumem, hardware, measure
    from kernelopt.core import roofline as core_roofline

    h200 = hardware.H200
    assert h200.l2_bytes == 60 * 2**20 and h200.sm_count == 132  # as the H200 reports it
    assert h200.on_chip_bytes == core_roofline.ON_CHIP_BYTES == (228 + 256) * 1024
    assert config.defaults()["search"]["peak_bandwidth_gbs"] == h200.copy_gbs
    assert gpumem.CONTEXT_MB == h200.cuda_context_mb
    assert measure.L2_FLUSH_BYTES > 4 * h200.l2_bytes
    assert hardware.declared("NVIDIA H200 NVL") is h200 and hardware.declared("an unknown GPU") is hardware.TARGET
    h100 = hardware.declared("NVIDIA H100 80GB HBM3")  # as the device machine's H100 names itself
    assert h100 is hardware.H100 and h100.copy_gbs < h200.copy_gbs and h100.l2_bytes == 50 * 2**20
    cpu = hardware.current("cpu")
    assert cpu.sm_count == 1 and cpu.on_chip_bytes == h200.on_chip_bytes and cpu.measured == ()


def test_on_the_gpu_what_the_device_reports_stands_in_for_the_table(monkeypatch):
    import sys
    import types

    from kernelopt.core import hardware

    props = types.SimpleNamespace(
        name="NVIDIA H200",
        multi_processor_count=132,
        L2_cache_size=62914560,
        shared_memory_per_multiprocessor=233472,
        shared_memory_per_block_optin=232448,
        regs_per_multiprocessor=65536,
    )
    cuda = types.SimpleNamespace(get_device_properties=lambda i: props)
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=cuda))
    hardware.current.cache_clear()
    try:
        got = hardware.current("cuda")
        assert _same_facts(got, hardware.H200) and len(got.measured) == 5
        props.name, props.multi_processor_count, props.L2_cache_size = "NVIDIA A100-SXM4-80GB", 108, 0
        hardware.current.cache_clear()
        other = hardware.current("cuda")  # not in the table: the H200's figures, the device's where it tells
        assert other.name == props.name and other.sm_count == 108 and other.l2_bytes == hardware.H200.l2_bytes
        assert "l2_bytes" not in other.measured
        props.name = "NVIDIA H100 80GB HBM3"  # in the table: its own figures where the device is silent
        hardware.current.cache_clear()
        h100 = hardware.current("cuda")
        assert h100.l2_bytes == hardware.H100.l2_bytes and h100.copy_gbs == hardware.H100.copy_gbs
    finally:
        hardware.current.cache_clear()


def _same_facts(a, b) -> bool:
    """Equal but for ``measured``."""
    import dataclasses

    return dataclasses.replace(a, measured=()) == dataclasses.replace(b, measured=())


def test_the_memory_ledger_counts_a_tensor_as_the_roofline_does():
    from kernelopt.core import gpumem
    from kernelopt.core import roofline as core_roofline

    args = [
        {"name": "a", "kind": "tensor", "shape": [1024, 1024], "dtype": "bfloat16"},
        {"name": "b", "kind": "tensor", "shape": [2048], "dtype": "int8"},
        {"name": "n", "kind": "scalar", "value": 7},
    ]
    want = sum(core_roofline.tensor_bytes(a) for a in args if a["kind"] == "tensor")
    assert want == 2 * 2**20 + 2048
    assert gpumem.unit_mb(Contract(args=args)) == want / 2**20


def test_the_gpu_state_gate_4_records_is_what_nvidia_smi_says(tmp_path, monkeypatch):
    """hardware.gpu_state: gate 4's record of the GPU's clocks, temperature and power around its
    timing (the same kernels measured 20-40 % apart on two H200 runs), read from a stand-in
    nvidia-smi that writes down how it was asked."""
    import os

    from kernelopt.core import hardware

    assert hardware.gpu_state("cpu") is None
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "nvidia-smi"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,4")

    def answer(text, rc=0):
        fake.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/asked\necho "{text}"\nexit {rc}\n')
        fake.chmod(0o755)

    answer("1755, 1980, 3201, 47, 412.50")
    state = hardware.gpu_state("cuda")
    assert state == {
        "gpu": "3",
        "sm_mhz": 1755.0,
        "sm_max_mhz": 1980.0,
        "mem_mhz": 3201.0,
        "temp_c": 47.0,
        "power_w": 412.5,
    }
    asked = (tmp_path / "asked").read_text().split()
    assert asked[asked.index("-i") + 1] == "3" and "clocks.sm" in asked[0]
    answer("[N/A], 1980, 3201, 47, [N/A]")
    state = hardware.gpu_state("cuda")
    assert state["sm_mhz"] is None and state["power_w"] is None and state["temp_c"] == 47.0
    answer("Field clocks.max.sm is not a valid field to query.", rc=2)
    assert "not a valid field" in hardware.gpu_state("cuda")["error"]
    answer("1755, 1980")  # too few fields: an error, never a misread
    assert "error" in hardware.gpu_state("cuda")
    fake.unlink()
    monkeypatch.setenv("PATH", str(bindir))
    assert hardware.gpu_state("cuda") == {"gpu": "3", "error": "no nvidia-smi"}
