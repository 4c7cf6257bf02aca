"""Use the result (issue "15 · Use the result"): ``kernelopt.load`` and ``kernelopt export``.

The pipeline tests share ``demo_run`` (CPU mode, Inductor's kernels stitched back so that every
optimizable problem has a stitch attempt that passed gate 3)."""

from __future__ import annotations

import collections
import dataclasses
import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

import kernelopt
from kernelopt.core import deployed, outputcode, problems
from kernelopt.core.records import ExportPaths, ProblemPaths
from kernelopt.deploy import export as ex

ROOT = Path(__file__).resolve().parents[1]


def _eager(run: Path, pid: str):
    rec = json.loads(ProblemPaths(run, pid).capture_record.read_text())
    prob = problems.load(rec["path"])
    return prob, problems.build_model(prob, "cpu", rec["seed"])


def _close(a, b) -> bool:
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("pid", ["level1_1_Softmax", "level2_2_Conv2d_BatchNorm_ReLU", "level3_1_MLP"])
def test_load_equals_eager_on_20_calls(demo_run, pid):
    m = kernelopt.load(demo_run, pid, fallback="eager")
    prob, ref = _eager(demo_run, pid)
    # the problem's own class (``_eager`` imported the file once more: a class of the same name)
    assert type(ref).__name__ in [c.__name__ for c in type(m).__mro__[1:]]
    assert m.kernelopt_info["deployed"]["kind"] == "inductor"
    with torch.no_grad():
        for seed in range(20):
            x = problems.make_inputs(prob, "cpu", 1000 + seed)
            assert _close(m(*x), ref(*x)), f"call {seed}"
    assert m.kernelopt_stats == {"deployed_calls": 20, "fallback_calls": 0, "first_fallback": None}


def test_a_stitched_attempt_runs_its_candidates_and_matches_eager(demo_run):
    """CPU mode never deploys a stitched attempt (gate 4 is skipped): the attempt that passed
    gate 3 is loaded the way ``load`` would load an optimized problem's."""
    pid = "level1_1_Softmax"
    paths = ProblemPaths(demo_run, pid)
    prob, model, record = ex._model(paths)
    spec, _ = ex.spec_of(paths, model, prob)
    code = paths.attempt(0).output_code
    assert json.loads(paths.attempt(0).gate(3).read_text())["verdict"] == "pass"
    spec["kernels"] = sorted(outputcode.parse(code.read_text()).kernels)
    m = deployed.deploy(model, spec, str(code), ex._tensors(paths, "cpu"), "eager")
    w = m._kernelopt.wrapper
    assert any(getattr(getattr(w, k), "kernelopt_candidate", None) for k in dir(w))
    _, ref = _eager(demo_run, pid)
    with torch.no_grad():
        for seed in range(5):
            x = problems.make_inputs(prob, "cpu", 2000 + seed)
            assert _close(m(*x), ref(*x))
    assert m.kernelopt_stats["deployed_calls"] == 5


def test_another_shape_falls_back_to_torch_compile_with_the_right_answer_and_one_warning(demo_run):
    m = kernelopt.load(demo_run, "level1_1_Softmax")
    _, ref = _eager(demo_run, "level1_1_Softmax")
    x = torch.randn(32, 256)
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        a, b = m(x), m(x * 2)
    assert a.shape == (32, 256) and _close(a, ref(x)) and _close(b, ref(x * 2))
    msgs = [str(w.message) for w in caught if "kernelopt" in str(w.message)]
    assert len(msgs) == 1 and "input 0 has shape [32, 256], captured [16, 256]" in msgs[0]
    assert "torch.compile" in msgs[0]
    assert m.kernelopt_stats["fallback_calls"] == 2 and m.kernelopt_stats["deployed_calls"] == 0


def test_dtype_strides_training_grad_and_kwargs_each_fall_back_with_their_reason(demo_run):
    m = kernelopt.load(demo_run, "level1_1_Softmax", fallback="eager")
    x = torch.randn(16, 256)
    cases = [
        (lambda: m(x.double()), "dtype float64, captured float32"),
        (lambda: m(torch.randn(256, 16).t()), "stride [1, 16], captured [256, 1]"),
        (lambda: m(torch.randn(16 * 256 + 1)[1:].view(16, 256)), "16-byte aligned False"),
        (lambda: m(x.clone().requires_grad_()), "requires_grad True"),
        (lambda: m(x, x), "2 inputs, captured 1"),  # the fallback then raises what eager raises
    ]
    for call, why in cases:
        m._kernelopt.stats["first_fallback"] = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                call()
            except TypeError:
                assert why.startswith("2 inputs")
        assert why in m.kernelopt_stats["first_fallback"], (why, m.kernelopt_stats)
    m.train()
    m._kernelopt.stats["first_fallback"] = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m(x)
    assert "training mode" in m.kernelopt_stats["first_fallback"]


def test_the_users_state_dict_loads_and_the_next_call_uses_it(demo_run):
    pid = "level2_2_Conv2d_BatchNorm_ReLU"
    m = kernelopt.load(demo_run, pid, fallback="eager")
    prob, _ = _eager(demo_run, pid)
    theirs = problems.build_model(prob, "cpu", 12345)
    m.load_state_dict(theirs.state_dict())
    x = problems.make_inputs(prob, "cpu", 7)
    with torch.no_grad():
        assert _close(m(*x), theirs(*x))
    assert m.kernelopt_stats["deployed_calls"] == 1 and m.kernelopt_stats["fallback_calls"] == 0


def _copy_problem(run: Path, pid: str, dest: Path) -> Path:
    shutil.copytree(run / pid, dest / pid, symlinks=True)
    return dest / pid


_FRESH = """
import json, sys, torch
out = sys.argv[1]
sys.path.insert(0, out)
import loader, problem
m = loader.load(out, fallback="eager")
ref = problem.Model(*problem.get_init_inputs())
ref.load_state_dict(torch.load(out + "/state_dict.pt"))
torch.manual_seed(3)
x = problem.get_inputs()
with torch.no_grad():
    err = (m(*x) - ref.eval()(*x)).abs().max().item()
print(json.dumps({"err": err, "stats": m.kernelopt_stats, "kind": m.kernelopt_info["deployed"]["kind"],
                  "candidates": sorted(k for k in dir(m._kernelopt.wrapper)
                                       if getattr(getattr(m._kernelopt.wrapper, k), "kernelopt_candidate", None))}))
"""


def _load_fresh(out: Path, cwd: Path) -> dict:
    r = subprocess.run([sys.executable, "-c", _FRESH, str(out)], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_an_export_loads_in_a_fresh_process_without_the_run_directory(demo_run, tmp_path):
    copy = _copy_problem(demo_run, "level2_2_Conv2d_BatchNorm_ReLU", tmp_path / "run")
    out = tmp_path / "exported"
    r = subprocess.run(
        [sys.executable, "-m", "kernelopt", "export", str(copy), str(out)], capture_output=True, text=True, timeout=300
    )  # the command line, as docs/use.md writes it
    assert r.returncode == 0 and f"kernelopt export: {out.resolve()}" in r.stdout, r.stderr[-3000:]
    shutil.rmtree(tmp_path / "run")  # the run is gone; the export stands alone
    got = _load_fresh(out, tmp_path)
    assert got["err"] < 1e-5 and got["stats"]["deployed_calls"] == 1 and got["kind"] == "inductor"
    paths = ExportPaths(out)
    assert {p.name for p in paths.records.iterdir()} >= {"capture.json", "result.json", "dispatch.json"}
    assert paths.readme.exists() and paths.loader.read_text() == Path(deployed.__file__).read_text()


def test_an_optimized_problems_export_carries_its_stitched_kernels(demo_run, tmp_path):
    """The stitched attempt of an optimized problem is what is exported: the run's result is
    marked optimized on a copy (CPU mode never deploys), and the export runs its candidates."""
    copy = _copy_problem(demo_run, "level1_1_Softmax", tmp_path / "run")
    res = json.loads((copy / "result.json").read_text())
    res.update(category="optimized", stitched_attempt=0)
    (copy / "result.json").write_text(json.dumps(res))
    out = ex.export(copy, tmp_path / "exported")
    assert ExportPaths(out).candidates.is_dir() and (ExportPaths(out).records / "gate4.json").exists()
    shutil.rmtree(tmp_path / "run")
    got = _load_fresh(out, tmp_path)
    assert got["kind"] == "stitched" and got["candidates"] and got["err"] < 1e-5


def test_an_export_refuses_a_nonempty_directory_and_load_names_the_known_problems(demo_run, tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "f").write_text("")
    with pytest.raises(ex.NotDeployable, match="not empty"):
        ex.export(demo_run / "level1_1_Softmax", tmp_path / "x")
    with pytest.raises(ex.NotDeployable, match="level1_1_Softmax"):
        kernelopt.load(demo_run, "level1_99_Nope")


# ------------------------------------------------------------------ without a run (fast)
def test_the_loaders_manifest_name_is_the_records_one():
    assert ExportPaths(Path("x")).manifest.name == deployed.MANIFEST


def test_a_nested_output_is_rebuilt_in_flatten_order():
    @dataclasses.dataclass
    class Out:
        logits: torch.Tensor
        extra: tuple

    Pair = collections.namedtuple("Pair", "a b")
    template = {"x": Out(torch.zeros(1), (torch.zeros(2), 3)), "y": [Pair(torch.zeros(3), "s")]}
    t = [torch.ones(1), torch.ones(2) * 2, torch.ones(3) * 3]
    got = deployed.fill(template, t)
    assert got["x"].logits is t[0] and got["x"].extra[0] is t[1] and got["x"].extra[1] == 3
    assert isinstance(got["y"][0], Pair) and got["y"][0].a is t[2] and got["y"][0].b == "s"
    ok, out = deployed.simple_output([{"path": "out", "kind": "tensor"}], t[:1])
    assert ok and out is t[0]
    ok, out = deployed.simple_output(
        [{"path": "out[0]", "kind": "tensor"}, {"path": "out[1]", "kind": "int", "value": 4}], t[:1]
    )
    assert ok and out == (t[0], 4)
    assert deployed.simple_output([{"path": "out['a']", "kind": "tensor"}], t[:1]) == (False, None)


def test_a_signature_difference_is_named():
    want = deployed.signature_of(torch.zeros(4, 8))
    assert deployed.differs("input 0", want, torch.zeros(4, 8)) is None
    assert deployed.differs("input 0", want, torch.zeros(4, 9)) == "input 0 has shape [4, 9], captured [4, 8]"
    assert deployed.differs("input 1", ["value", 3], 4) == "input 1 is 4, captured 3"
    assert deployed.differs("input 1", ["value", 3], torch.zeros(1)) == "input 1 is a tensor, captured 3"


class _Launcher:
    def __init__(self, cfg):
        self.config = cfg


def test_pins_on_a_gpu_keep_the_recorded_launcher_and_stop_the_descent():
    """On a GPU the wrapper's import precompiles every config into a launcher and sets
    ``configs`` to None: pins that looked at ``configs`` only pinned nothing there, and every
    gate's baseline autotuned again at its first call (bench/README.md, "Pinned baselines").
    The recorded config's launcher is kept alone and marked as found by the coordinate descent,
    so the first call neither benchmarks nor descends; a config the capture's descent found is
    compiled; what could not be pinned says why."""
    import triton

    def autotuner(*cfgs):
        obj = type("CachingAutotuner", (), {})()
        obj.configs, obj.launchers = None, [_Launcher(c) for c in cfgs]
        obj.compiled = []

        def precompile(cfg):
            obj.compiled.append(cfg)
            return type("Result", (), {"make_launcher": lambda self: _Launcher(cfg)})()

        obj._precompile_config = precompile
        return obj

    a = triton.Config({"XBLOCK": 1, "R0_BLOCK": 2048}, num_warps=16, num_stages=1)
    b = triton.Config({"XBLOCK": 1, "R0_BLOCK": 8192}, num_warps=32, num_stages=1)
    mod = type("Wrapper", (), {})()
    mod.k_listed, mod.k_descended, mod.k_unknown = autotuner(a, b), autotuner(a, b), autotuner(a, b)
    mod.k_candidate = autotuner(a, b)
    mod.k_candidate.kernelopt_candidate = True
    want_b = {"kwargs": {"XBLOCK": 1, "R0_BLOCK": 8192}, "num_warps": 32, "num_stages": 1}
    found = {"kwargs": {"XBLOCK": 1, "R0_BLOCK": 4096}, "num_warps": 32, "num_stages": 1}
    status = deployed.pin_configs(
        mod,
        ["k_listed", "k_descended", "k_unknown", "k_candidate", "k_absent"],
        {"k_listed": want_b, "k_descended": found},
    )
    assert status == {
        "k_listed": "pinned",
        "k_descended": "pinned (the recorded config compiled: the capture's coordinate descent found it)",
        "k_unknown": "unpinned: no recorded config",
    }
    assert [lc.config for lc in mod.k_listed.launchers] == [b] and b.found_by_coordesc
    (only,) = mod.k_descended.launchers
    assert only.config.kwargs == found["kwargs"] and only.config.num_warps == 32 and only.config.found_by_coordesc
    assert len(mod.k_unknown.launchers) == 2 and not getattr(a, "found_by_coordesc", False)
    assert len(mod.k_candidate.launchers) == 2  # a candidate's kernel is never touched

    # before precompiling (CPU mode's interpreter launches configs[0]) the configs are narrowed
    cpu = type("CachingAutotuner", (), {})()
    cpu.configs, cpu.launchers = [a, b], []
    mod.k_cpu = cpu
    assert deployed.pin_configs(mod, ["k_cpu"], {"k_cpu": want_b}) == {"k_cpu": "pinned"}
    assert cpu.configs == [b]
