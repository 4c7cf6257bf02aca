"""The broadcast-then-reduce rewrite (issue 16): ``sum(f * s, dims)`` where the factor ``f`` does
not vary along the reduced dims is ``f * sum(s, dims)``.  The analysis marks it a candidate where
both factors are graph inputs reached through views that move no data, with each one's dim map;
the candidate (search/synth/rewrite_bcast.py) matches the FX graph of the small problem 8 and
torch on hand-built layouts (two reduced dims, keepdim, a summed operand broadcast along kept
dims, non-contiguous strides, sizes no block divides) under the interpreter."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT, load_candidate

from kernelopt.capture import rewrites
from kernelopt.core import outputcode

sys.path.insert(0, str(ROOT / "bench"))
import rewrites_small  # noqa: E402

PROBLEM = "level1/8_BroadcastThenSum"


@pytest.fixture(scope="module")
def problem8(tmp_path_factory):
    """The small problem 8 compiled once in CPU mode, and its graph rewrites as capture forms them
    (``graph_rewrites``): the graph capture, the wrapper source, the record."""
    import torch

    from kernelopt.capture.hooks import CompileHooks
    from kernelopt.capture.stage import graph_rewrites
    from kernelopt.core import problems, runtime
    from kernelopt.core.records import ProblemPaths

    top = Path(tempfile.mkdtemp(prefix="kernelopt-bcast-"))
    runtime.prepare("cpu", top / "cache", fresh=True)
    (path,) = rewrites_small.write_small(top / "problems", [PROBLEM])
    p = problems.load(path)
    hooks = CompileHooks()
    torch._dynamo.reset()
    with torch.no_grad(), hooks.active():
        torch.compile(problems.build_model(p, "cpu", 0), mode="max-autotune")(*problems.make_inputs(p, "cpu", 0))
    g = hooks.graphs[0]
    src = Path(g.path).read_text()
    paths = ProblemPaths(tmp_path_factory.mktemp("bcast"), "p")
    paths.kernel_reference("x").parent.mkdir(parents=True)
    kernels = {}
    for k, kd in outputcode.parse(src).kernels.items():
        (paths.capture / f"{k}.py").write_text(kd.source)
        kernels[k] = {"source": f"{k}.py"}
    return g, src, graph_rewrites(g, src, kernels, paths)


def test_the_analysis_marks_problem_8_a_candidate_with_its_dim_maps(problem8):
    g, _, rec = problem8
    (f,) = rewrites.analyse(g.gm)
    assert (f["rewrite"], f["node"], f["candidate"], f["shape"]) == ("broadcast-then-reduce", "sum_1", True, [4, 16])
    assert f["roles"] == {
        "factor": "arg0_1",  # x [4, 16] as x.unsqueeze(2)
        "factor_dims": [0, 1, None],
        "summed": "arg1_1",  # y [4, 8] as y.unsqueeze(1)
        "summed_dims": [0, None, 1],
        "dims": [2],
        "keepdim": False,
        "shape": [4, 16, 8],
    }
    assert "8x fewer multiplications" in f["win"] and "arg1_1 is read once" in f["win"]
    assert rec["refused"] == [] and [u["rewrite"]["rewrite"] for u in rec["units"]] == ["broadcast-then-reduce"]


def _strided(shape, stride, fill=None):
    """A tensor of ``shape`` with ``stride`` over storage just large enough (gaps allowed)."""
    import torch

    size = 1 + sum((n - 1) * s for n, s in zip(shape, stride))
    base = torch.randn(size) if fill is None else torch.full((size,), fill)
    return base.as_strided(shape, stride)


def _check(contract, reference, name, attempts=range(4)):
    """Every attempt is in the checked form and matches ``reference(*inputs)`` under the
    interpreter on three fresh draws, the output (at its contract strides) pre-filled with NaN."""
    import torch

    from kernelopt.gates.form import static_problems
    from kernelopt.search.synth.rewrites import synthesize_rewrite

    ins_args, out_arg = contract["args"][:-1], contract["args"][-1]
    for attempt in attempts:
        src = synthesize_rewrite(contract, attempt)
        assert static_problems(src, contract) == []
        mod = load_candidate(src, f"{name}_{attempt}")
        for seed in (11, 12, 13):
            torch.manual_seed(seed)
            ins = [_strided(a["shape"], a["stride"]) for a in ins_args]
            out = _strided(out_arg["shape"], out_arg["stride"], float("nan"))
            mod.launch(*ins, out)
            torch.testing.assert_close(out, reference(*ins), rtol=1e-4, atol=1e-4)


def test_the_candidate_from_problem_8s_unit_matches_the_fx_graph(problem8):
    from kernelopt.isolate.graphunits import rewrite_contract

    g, _, rec = problem8
    (u,) = rec["units"]
    contract = rewrite_contract(
        {"device": "cpu", "problem": "p"}, {}, {"id": u["id"], "rewrite": {**u, "member_units": []}}
    )
    assert [a["name"] for a in contract["args"]] == ["arg0_1", "arg1_1", "buf0"]
    _check(contract, lambda *ins: g.gm(*ins)[0], "bcast_p8")


def _arg(name, shape, stride, access="read"):
    return {"kind": "tensor", "name": name, "shape": shape, "stride": stride, "dtype": "float32", "access": access}


def _contract(args, factor, fdims, summed, sdims, dims, keepdim, shape):
    roles = {"factor": factor, "factor_dims": fdims, "summed": summed, "summed_dims": sdims}
    roles |= {"dims": dims, "keepdim": keepdim, "shape": shape}
    out = args[-1]["name"]
    return {"args": args, "rewrite": {"name": "broadcast-then-reduce", "node": "sum", "outputs": [out], "roles": roles}}


# name -> (contract, reference): B, N, M, K are sizes no block divides
LAYOUTS = {
    # x [B, N] factored out of a sum over two dims of y [B, M, K] (y transposed in its last two dims)
    "two_reduced_dims": (
        _contract(
            [_arg("x", [3, 5], [5, 1]), _arg("y", [3, 6, 7], [42, 1, 6]), _arg("out", [3, 5], [5, 1], "write")],
            "x", [0, 1, None, None], "y", [0, None, 1, 2], [2, 3], False, [3, 5, 6, 7],
        ),
        lambda x, y: (x[:, :, None, None] * y[:, None]).sum(dim=(2, 3)),
    ),
    # keepdim, x column-major, y with a gap between rows, the output column-major too
    "keepdim_strided": (
        _contract(
            [_arg("x", [3, 37], [1, 3]), _arg("y", [3, 13], [20, 1]), _arg("out", [3, 37, 1], [1, 3, 111], "write")],
            "x", [0, 1, None], "y", [0, None, 1], [2], True, [3, 37, 13],
        ),
        lambda x, y: (x.unsqueeze(2) * y.unsqueeze(1)).sum(dim=2, keepdim=True),
    ),
    # y [M] broadcast along both kept dims (S is one value), the reduced dim first
    "summed_broadcast_on_kept_dims": (
        _contract(
            [_arg("y", [19], [2]), _arg("x", [3, 5], [5, 1]), _arg("out", [3, 5], [5, 1], "write")],
            "x", [None, 0, 1], "y", [0, None, None], [0], False, [19, 3, 5],
        ),
        lambda y, x: (y[:, None, None] * x[None]).sum(dim=0),
    ),
    # x [N] broadcast along the batch; y [B, M] broadcast along N; keepdim in the middle
    "factor_and_summed_broadcast": (
        _contract(
            [_arg("x", [9], [1]), _arg("y", [4, 300], [300, 1]), _arg("out", [4, 1, 9], [9, 9, 1], "write")],
            "x", [None, None, 0], "y", [0, 1, None], [1], True, [4, 300, 9],
        ),
        lambda x, y: (x[None, None, :] * y[:, :, None]).sum(dim=1, keepdim=True),
    ),
    # y expanded along a reduced dim it does not vary along: each value summed K times
    "expanded_reduced_dim": (
        _contract(
            [_arg("x", [3, 5], [5, 1]), _arg("y", [3, 6], [6, 1]), _arg("out", [3, 5], [5, 1], "write")],
            "x", [0, 1, None, None], "y", [0, None, 1, None], [2, 3], False, [3, 5, 6, 7],
        ),
        lambda x, y: (x[:, :, None, None] * y[:, None, :, None].expand(3, 5, 6, 7)).sum(dim=(2, 3)),
    ),
    # one input as both factors: sum_j x[b, i] * x[b, j]
    "one_input_twice": (
        _contract(
            [_arg("x", [3, 11], [11, 1]), _arg("out", [3, 11], [11, 1], "write")],
            "x", [0, 1, None], "x", [0, None, 1], [2], False, [3, 11, 11],
        ),
        lambda x: (x.unsqueeze(2) * x.unsqueeze(1)).sum(dim=2),
    ),
}  # fmt: skip


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_attempt_matches_torch_on_a_layout(layout):
    contract, reference = LAYOUTS[layout]
    _check(contract, reference, f"bcast_{layout}")


def test_a_contract_the_rewrite_does_not_hold_for_is_refused():
    from kernelopt.search.synth.ops import CannotSynthesize
    from kernelopt.search.synth.rewrites import synthesize_rewrite

    contract, _ = LAYOUTS["two_reduced_dims"]
    roles = contract["rewrite"]["roles"]
    swapped = {"factor": "y", "factor_dims": roles["summed_dims"], "summed": "x", "summed_dims": roles["factor_dims"]}
    varies = {**contract, "rewrite": {**contract["rewrite"], "roles": {**roles, **swapped}}}
    with pytest.raises(CannotSynthesize, match="the factor y varies along the reduced dims"):
        synthesize_rewrite(varies, 0)
    unmapped = {**contract, "rewrite": {**contract["rewrite"], "roles": {**roles, "factor_dims": [0, 1, None, 0]}}}
    with pytest.raises(CannotSynthesize, match="is not a map into"):
        synthesize_rewrite(unmapped, 0)
    wrong_out = {**contract, "args": contract["args"][:-1] + [_arg("out", [3, 6], [6, 1], "write")]}
    with pytest.raises(CannotSynthesize, match="is not the sum of"):
        synthesize_rewrite(wrong_out, 0)


def _traced(fn, *shapes):
    """``fn``'s aten graph over fake inputs of ``shapes`` (placeholders ``x_1``, ``y_1``, ...)."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    return make_fx(fn, tracing_mode="fake")(*[torch.randn(s) for s in shapes])


def _y_sum(x, y):
    """A factor that varies along dim 1: y is the one factored out of the sum over dim 1."""
    return (x.unsqueeze(2) * y.unsqueeze(1)).sum(1)


# name -> (fn, shapes, candidate, roles it must have; None: no finding)
GRAPHS = {
    "view_as_unsqueeze_two_dims": (
        lambda x, y: (x.view(3, 5, 1, 1) * y.unsqueeze(1)).sum([2, 3]),
        ([3, 5], [3, 6, 7]),
        True,
        {"factor": "x_1", "factor_dims": [0, 1, None, None], "summed_dims": [0, None, 1, 2], "dims": [2, 3]},
    ),
    "keepdim_and_expand": (
        lambda x, y: (x.unsqueeze(2).expand(3, 5, 4) * y.unsqueeze(1)).sum(2, keepdim=True),
        ([3, 5], [3, 4]),
        True,
        {"factor": "x_1", "factor_dims": [0, 1, None], "summed": "y_1", "keepdim": True, "shape": [3, 5, 4]},
    ),
    "the_second_factor_factored": (
        _y_sum,
        ([3, 5], [3, 4]),
        True,
        {"factor": "y_1", "factor_dims": [0, None, 1], "summed": "x_1", "summed_dims": [0, 1, None], "dims": [1]},
    ),
    "a_computed_factor": (lambda x, y: (x.exp().unsqueeze(2) * y.unsqueeze(1)).sum(2), ([3, 5], [3, 4]), False, {}),
    "a_permuted_factor": (lambda x, y: (x.t().unsqueeze(2) * y.unsqueeze(1)).sum(2), ([5, 3], [3, 4]), False, {}),
    "a_dtype": (
        lambda x, y: (x.unsqueeze(2) * y.unsqueeze(1)).sum(2, dtype=torch_float64()),
        ([3, 5], [3, 4]),
        False,
        {},
    ),
    "both_vary_along_the_sum": (lambda x, y: (x.unsqueeze(2) * y).sum(1), ([3, 5], [3, 5, 4]), None, {}),
}


def torch_float64():
    import torch

    return torch.float64


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_the_analysis_on_small_graphs(name):
    fn, shapes, candidate, roles = GRAPHS[name]
    found = [f for f in rewrites.analyse(_traced(fn, *shapes)) if f["rewrite"] == "broadcast-then-reduce"]
    if candidate is None:
        assert found == []
        return
    (f,) = found
    assert f["candidate"] is candidate and f["why"] and f["win"]
    assert {k: f["roles"][k] for k in roles} == roles
