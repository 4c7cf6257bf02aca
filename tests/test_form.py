"""Gate 1's candidate form (``kernelopt/gates/form.py``): an allowlist, wide enough for every
kernel the pipeline itself writes, and nothing beyond it."""

from __future__ import annotations

import ast
import re
import tarfile
from pathlib import Path

import pytest
from conftest import ROOT, unpacked

from kernelopt.core import outputcode
from kernelopt.core.records import Contract
from kernelopt.gates.form import static_problems
from kernelopt.isolate.inductor import strip_heuristics_decorator
from kernelopt.search import transform

FIXTURES = ROOT / "tests/fixtures"
# files of an old run that were broken when written (a launcher whose grid reads a name its
# signature lacks: a NameError at the first call, which the form refuses as an unbound name)
OLD_BROKEN = {"triton_per_fused__log_softmax_nll_loss_forward_sub_2"}


def _launch_stub(source: str) -> str:
    return source + "\n\ndef launch():\n    pass\n"


def _kernels_of(wrapper: Path) -> list[tuple[str, str]]:
    oc = outputcode.parse(wrapper.read_text(), wrapper)
    return [(name, k.source) for name, k in oc.kernels.items() if getattr(k, "source", None)]


def test_every_kernel_inductor_wrote_on_the_h200_is_in_the_form(tmp_path):
    """Inductor's kernels of the H200 fixtures (problems/gpu, the level-3 models) and of the
    large suite at KernelBench sizes (runs 10-11, every unit's kernel, synthesized candidate and
    search candidate), as the pipeline writes them standalone now."""
    with tarfile.open(FIXTURES / "form/large_h200_kernels.tar.gz") as t:
        t.extractall(tmp_path, filter="data")
    checked = 0
    sources = [(p.stem, p.read_text()) for p in sorted((tmp_path / "wrappers").rglob("*.py"))]
    wrappers = [*FIXTURES.rglob("output_code.py"), *unpacked("h200.tar.gz").rglob("output_code.py")]
    for wrapper in sorted(wrappers):
        sources += _kernels_of(wrapper)
    for name, src in sources:
        found = [p for p in static_problems(_launch_stub(strip_heuristics_decorator(src, name)), Contract())]
        found = [p for p in found if p[0] != "signature"]
        assert not found, (name, found[:3])
        checked += 1
    for f in sorted((tmp_path / "units").rglob("*.py")):
        unit = next(p for p in f.parents if p.parent.name == "units")
        if unit.name in OLD_BROKEN:
            continue
        contract = Contract.load(unit / "contract.json")
        # written before the driver selection left the form (isolate/inductor.py drops it now)
        src = re.sub(r"^triton_helpers\.set_driver_to_(cpu|gpu)\(\)\n", "", f.read_text(), flags=re.M)
        assert not static_problems(src, contract), (f.relative_to(tmp_path), static_problems(src, contract)[:3])
        checked += 1
    assert checked >= 110, checked


def test_the_transforms_keep_a_kernel_in_the_form():
    """The heuristic executor's edits (programs per SM, block order, eviction hints, launch
    parameters) of Inductor's kernels stay in the form."""
    for f in sorted((FIXTURES / "programs").glob("*.py")) + sorted((FIXTURES / "swizzle").glob("*.py")):
        src = f.read_text()
        launch = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "launch")
        contract = Contract.from_dict({"args": [{"name": a.arg} for a in launch.args.args]})
        assert not static_problems(src, contract), f
        for edit in (lambda s: transform.set_programs(s, 8), lambda s: transform.set_swizzle(s, 16)):
            try:
                out = edit(src)
            except transform.TransformError:
                continue
            assert not static_problems(out, contract), (f.name, static_problems(out, contract)[:3])


CONTRACT = Contract.from_dict({"args": [{"name": "out_ptr"}, {"name": "in_ptr"}, {"name": "n"}]})
GOOD = '''"""An honest copy."""
import math

import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice

SCALE = 2.0
CONFIG = {"BLOCK": 128}
DTYPE = torch.float32
LIMIT: tl.constexpr = tl.constexpr(4)


@triton.jit
def helper(x):
    return libdevice.exp(x) * 0 + x


@triton.jit
def kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(in_ptr + offs, mask=mask, other=0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for _ in tl.range(0, 1):
        acc += helper(x.to(tl.float32))
    m = triton_helpers.maximum(acc, acc)
    tl.store(out_ptr + offs, tl.where(mask, m, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def grid(n):
    return (triton.cdiv(n, CONFIG["BLOCK"]), 1, 1)


def launch(out_ptr, in_ptr, n):
    assert in_ptr.is_contiguous() and out_ptr.shape == in_ptr.shape, "contiguous inputs"
    tmp = torch.empty_like(in_ptr)
    blocks = max(1, math.ceil(n / CONFIG["BLOCK"]))
    if blocks > 0 and in_ptr.stride(0) == 1:
        kernel[grid(n)](tmp, in_ptr, n, **CONFIG, num_warps=4)
    kernel[(blocks,)](out_ptr, tmp, in_ptr.numel(), BLOCK=CONFIG["BLOCK"])
'''


def test_an_honest_kernel_in_every_allowed_construct_is_in_the_form():
    assert static_problems(GOOD, CONTRACT) == []


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        # reachability: what an allowed module leads to is not allowed by being reachable
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = triton.runtime.driver.active"), "harness-tampering"),
        (("    m = triton_helpers.maximum(acc, acc)", "    m = triton_helpers.triton.runtime"), "harness-tampering"),
        (("    m = triton_helpers.maximum(acc, acc)", "    m = tl.core.builtins.print(acc)"), "harness-tampering"),
        (("    m = triton_helpers.maximum(acc, acc)", "    m = tl.extra.pkgutil"), "harness-tampering"),
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = torch.softmax(in_ptr, 0)"), "torch-compute"),
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = in_ptr.clone()"), "torch-compute"),
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = in_ptr.data_ptr()"), "torch-compute"),
        # names: dunders, builtins beyond the few allowed, module objects as values
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = __builtins__"), "harness-tampering"),
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = getattr(torch, 'softmax')"), "harness-tampering"),
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = torch"), "form"),
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = open('/etc/passwd')"), "file-access"),
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = print(in_ptr)"), "form"),
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = in_ptr.__class__"), "harness-tampering"),
        # state and process-wide effects
        (("SCALE = 2.0", "SCALE = []\nSCALE.append(1)"), "form"),
        (("SCALE = 2.0", "SCALE = iter(range(3))"), "state-across-calls"),
        (("    tmp = torch.empty_like(in_ptr)", "    CONFIG['BLOCK'] = 64\n    tmp = in_ptr"), "state-across-calls"),
        (("def grid(n):", "def grid(n, memo=[]):"), "state-across-calls"),
        (("def grid(n):", "@triton.autotune(configs=[], key=[])\ndef grid(n):"), "state-across-calls"),
        (("SCALE = 2.0", "class Seen:\n    calls = 0"), "state-across-calls"),
        (("    tmp = torch.empty_like(in_ptr)", "    global SCALE\n    tmp = in_ptr"), "state-across-calls"),
        (("SCALE = 2.0", "triton_helpers.set_driver_to_gpu()"), "form"),
        # imports beyond the table
        (("import math", "import os"), "file-access"),
        (("import math", "import numpy"), "torch-compute"),
        (("import math", "from torch._inductor import config"), "forbidden-import"),
        (("import math", "from triton.language.extra import pkgutil"), "form"),
        # kernel code: randomness, inline assembly, Python statements
        (("    acc = tl.zeros([BLOCK], dtype=tl.float32)", "    acc = tl.rand(0, offs)"), "randomness"),
        (
            (
                "    acc = tl.zeros([BLOCK], dtype=tl.float32)",
                "    acc = tl.inline_asm_elementwise('', '', [x], tl.int32, True, 1)",
            ),
            "form",
        ),
        (("    acc = tl.zeros([BLOCK], dtype=tl.float32)", "    acc = [v for v in range(3)]"), "form"),
        (("    acc = tl.zeros([BLOCK], dtype=tl.float32)", "    acc = CONFIG.update({})"), "form"),
        (("    return libdevice.exp(x) * 0 + x", "    with x:\n        return x"), "form"),
        (
            (
                "    return libdevice.exp(x) * 0 + x",
                "    try:\n        return x\n    except Exception:\n        return x",
            ),
            "form",
        ),
        # host code: while loops, stores into tensors, direct kernel calls
        (("    tmp = torch.empty_like(in_ptr)", "    while True:\n        pass\n    tmp = in_ptr"), "form"),
        (("    tmp = torch.empty_like(in_ptr)", "    in_ptr[0] = 1\n    tmp = in_ptr"), "torch-compute"),
        (("    tmp = torch.empty_like(in_ptr)", "    kernel(out_ptr, in_ptr, n, 128)\n    tmp = in_ptr"), "form"),
        (("    tmp = torch.empty_like(in_ptr)", "    tmp = in_ptr.shape.__len__()"), "harness-tampering"),
    ],
)
def test_anything_outside_the_form_is_refused_with_its_line(edit, rule):
    old, new = edit
    assert old in GOOD, old
    src = GOOD.replace(old, new, 1)
    found = static_problems(src, CONTRACT)
    assert found, src
    assert found[0][0] == rule, found[:3]
    assert found[0][2] > 0  # the line


def test_the_signature_and_a_kernel_are_required():
    other = Contract(args=[{"name": "a"}, {"name": "b"}, {"name": "c"}])
    assert [p[0] for p in static_problems(GOOD, other)] == ["signature"]
    no_jit = "def launch(out_ptr, in_ptr, n):\n    pass\n"
    assert [p[0] for p in static_problems(no_jit, CONTRACT)] == ["no-triton-kernel"]
    assert static_problems("def launch(:\n", CONTRACT)[0][0] == "syntax"


@pytest.mark.slow
def test_every_kernel_the_pipeline_writes_for_the_demo_suite_is_in_the_form(demo_run):
    """Inductor's kernel of every demo unit (``inductor.py``, as isolate writes it), every
    candidate the run holds, and what each synthesizer (the hand-written generators on even
    attempts, Inductor re-lowering on odd ones, up to four each) writes for every unit."""
    from kernelopt.core import runtime
    from kernelopt.search.synth.generate import synthesize_attempt
    from kernelopt.search.synth.ops import CannotSynthesize

    runtime.prepare("cpu", None)
    files = sorted(demo_run.glob("*/units/*/inductor.py")) + sorted(demo_run.glob("*/units/*/**/candidate.py"))
    assert len(files) >= 20
    for f in files:
        unit = next(p for p in f.parents if p.parent.name == "units")
        contract = Contract.load(unit / "contract.json")
        assert not static_problems(f.read_text(), contract), (
            f.relative_to(demo_run),
            static_problems(f.read_text(), contract)[:3],
        )
    synthesized = 0
    for unit in sorted(demo_run.glob("*/units/*")):
        if not (unit / "reference.py").exists() or not (unit / "isolate_check.json").exists():
            continue
        contract = Contract.load(unit / "contract.json")
        for attempt in range(4):
            try:
                src, source = synthesize_attempt(contract, unit, attempt)
            except CannotSynthesize:
                continue
            except Exception:  # noqa: BLE001 - the stage records a generator's failure the same way
                continue
            synthesized += 1
            assert not static_problems(src, contract), (unit.name, source, static_problems(src, contract)[:3])
    assert synthesized >= 15, synthesized
