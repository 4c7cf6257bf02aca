"""The rewrites of issue 16 and their synthesized candidates, run under the interpreter.

The GEMM rewrites (search/synth/rewrite_gemm.py): the analysis marks the small triangular and
symmetric problems' findings as candidates with the roles the generator reads (and not a product
whose operand is a view); each attempt's candidate is in the checked form and matches the eager
product under the interpreter, on shapes that are no multiple of the tiles and on non-contiguous
operands and outputs, every output element written.

The broadcast-then-reduce rewrite: ``sum(f * s, dims)`` where the factor ``f`` does not vary
along the reduced dims is ``f * sum(s, dims)``.  The analysis marks it a candidate where both
factors are graph inputs reached through views that move no data, with each one's dim map; the
candidate (search/synth/rewrite_bcast.py) matches the FX graph of the small problem 8 and torch on
hand-built layouts (two reduced dims, keepdim, a summed operand broadcast along kept dims,
non-contiguous strides, sizes no block divides) under the interpreter."""

from __future__ import annotations

import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ROOT, load_candidate, rewrite_unit_contract

from kernelopt.capture import rewrites
from kernelopt.core import outputcode
from kernelopt.core.records import Contract
from kernelopt.search.synth import rewrite_gemm
from kernelopt.search.synth.ops import CannotSynthesize

sys.path.insert(0, str(ROOT / "bench"))
import rewrites_small  # noqa: E402


def _arg(name, shape, stride, access="read"):
    return {"kind": "tensor", "name": name, "shape": shape, "stride": stride, "dtype": "float32", "access": access}


def _strided(shape, stride, fill=None):
    """A tensor of ``shape`` laid out with ``stride`` over storage of its own, just large enough
    (gaps allowed): random, or ``fill``."""
    import torch

    size = 1 + sum((n - 1) * s for n, s in zip(shape, stride))
    base = torch.randn(size) if fill is None else torch.full((size,), fill)
    return base.as_strided(shape, stride)


PROBLEMS = ["level1/5_TriuMatmul", "level1/6_TrilMatmulOperands", "level1/7_SymmetricMatmul"]
# products the analysis finds but the generator does not take: an operand that is a view (here
# transposed), not a graph input as stored
NEGATIVE = {
    "triu_of_a_transposed_operand": "torch.triu(A @ B.T)",
    "symmetric_times_a_transposed_operand": "(A + A.T) @ B.T",
}


def _problem_source(expr: str) -> str:
    return textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def forward(self, A, B):
                return {expr}


        def get_inputs():
            return [torch.randn(16, 16), torch.randn(16, 16)]


        def get_init_inputs():
            return []
        """
    )


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """The small problems 5-7 and the NEGATIVE ones compiled once in CPU mode: their post-grad FX graphs."""
    import torch

    from kernelopt.capture.hooks import CompileHooks
    from kernelopt.core import problems, runtime

    top = tmp_path_factory.mktemp("rewrites-gemm")
    runtime.prepare("cpu", top / "cache", fresh=True)
    paths = {f"{p.parent.name}/{p.stem}": p for p in rewrites_small.write_small(top / "problems", PROBLEMS)}
    for name, expr in NEGATIVE.items():
        paths[name] = top / f"{name}.py"
        paths[name].write_text(_problem_source(expr))
    out = {}
    for name, path in paths.items():
        p = problems.load(path)
        hooks = CompileHooks()
        torch._dynamo.reset()
        with torch.no_grad(), hooks.active():
            torch.compile(problems.build_model(p, "cpu", 0), mode="max-autotune")(*problems.make_inputs(p, "cpu", 0))
        out[name] = hooks.graphs[0].gm
    return out


def test_the_triangular_and_symmetric_products_are_candidates_with_their_roles(graphs):
    (triu,) = rewrites.analyse(graphs["level1/5_TriuMatmul"])
    assert (triu["rewrite"], triu["candidate"]) == ("triangular-output", True)
    assert triu["roles"] == {
        **{"kind": "triu", "diagonal": 0, "matmul": "mm", "triangular_operands": False},
        **{"a": "arg0_1", "b": "arg1_1", "a_mask": None, "b_mask": None},
    }
    (tril,) = rewrites.analyse(graphs["level1/6_TrilMatmulOperands"])
    mask = {"kind": "tril", "diagonal": 0}
    assert (tril["rewrite"], tril["candidate"]) == ("triangular-output", True)
    assert tril["roles"] == {
        **{"kind": "tril", "diagonal": 0, "matmul": "mm", "triangular_operands": True},
        **{"a": "arg0_1", "b": "arg1_1", "a_mask": mask, "b_mask": mask},
    }
    assert "a sixth" in tril["win"] and "a sixth" not in triu["win"]
    (sym,) = rewrites.analyse(graphs["level1/7_SymmetricMatmul"])
    assert (sym["rewrite"], sym["node"], sym["candidate"]) == ("symmetric-operand", "mm", True)
    assert sym["roles"] == {"side": "left", "x": "arg0_1", "other": "arg1_1"}
    assert "16x16 intermediate's write and read" in sym["win"] and "gate 4 decides" in sym["win"]


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_a_product_the_generator_cannot_take_is_found_but_no_candidate(graphs, name):
    (f,) = [f for f in rewrites.analyse(graphs[name]) if f["rewrite"] in ("triangular-output", "symmetric-operand")]
    assert f["candidate"] is False


def _matches_on_three_draws(mod, ins_args, out_arg, reference):
    """``mod.launch`` on three seeded draws of the inputs (at their contract strides), the output
    pre-filled with NaN, matches ``reference`` at the gates' fp32 tolerances (rtol = atol = 1e-4)."""
    import torch

    for seed in (11, 12, 13):
        torch.manual_seed(seed)
        xs = [_strided(a["shape"], a["stride"]) for a in ins_args]
        y = _strided(out_arg["shape"], out_arg["stride"], float("nan"))
        mod.launch(*xs, y)
        torch.testing.assert_close(y, reference(*xs), rtol=1e-4, atol=1e-4)


def _check_gemm(contract, reference, attempts, name):
    """Every attempt is in the checked form, GEMMs with tl.dot, and matches ``reference(*inputs)``
    under the interpreter on three draws, the output pre-filled with NaN (the gates' tolerances:
    fp32, rtol = atol = 1e-4)."""

    from kernelopt.gates.form import static_problems

    ins, out = contract.args[:-1], contract.args[-1]
    for attempt in range(len(rewrite_gemm.ATTEMPTS)):
        src = rewrite_gemm.synthesize_gemm_rewrite(contract, attempt)
        assert static_problems(src, contract) == [], attempt
        precision = rewrite_gemm.ATTEMPTS[attempt][0]
        assert "tl.dot(" in src and f'input_precision="{precision}"' in src and "mm(" not in src
    assert rewrite_gemm.ATTEMPTS[0][0] == "ieee"
    for attempt in attempts:
        mod = load_candidate(rewrite_gemm.synthesize_gemm_rewrite(contract, attempt), f"{name}_{attempt}")
        _matches_on_three_draws(mod, ins, out, reference)


def _triangular(kind, diagonal, a_mask=None, b_mask=None, m=100, n=90, k=72):
    """``kind(A' @ B', diagonal)`` with A' = A or its mask, B' likewise: A [m, k] stored transposed,
    B [k, n] with padded rows, the output [m, n] column-major; the contract and the torch reference."""
    import torch

    args = [_arg("arg0_1", [m, k], [1, m], "read"), _arg("arg1_1", [k, n], [n + 3, 1], "read")]
    args.append(_arg("buf1", [m, n], [1, m], "write"))
    roles = {"kind": kind, "diagonal": diagonal, "matmul": "mm", "triangular_operands": bool(a_mask and b_mask)}
    roles.update(a="arg0_1", b="arg1_1", a_mask=a_mask, b_mask=b_mask)
    contract = Contract.from_dict(
        {
            "args": args,
            "rewrite": {"name": "triangular-output", "node": "where", "outputs": ["buf1"], "roles": roles},
        }
    )

    def band(x, mask):
        return x if mask is None else getattr(torch, mask["kind"])(x, mask["diagonal"])

    return contract, lambda a, b: getattr(torch, kind)(band(a, a_mask) @ band(b, b_mask), diagonal)


TRIANGULAR = {
    "triu": ("triu", 0, None, None),
    "triu_above": ("triu", 3, None, None),
    "tril": ("tril", 0, None, None),
    "tril_below": ("tril", -5, None, None),
    "tril_operands": ("tril", 0, {"kind": "tril", "diagonal": 0}, {"kind": "tril", "diagonal": 0}),
    "tril_operands_offset": ("tril", 1, {"kind": "tril", "diagonal": 2}, {"kind": "tril", "diagonal": -1}),
    "triu_operands_offset": ("triu", -2, {"kind": "triu", "diagonal": 1}, {"kind": "triu", "diagonal": 0}),
    "triu_one_tril_operand": ("triu", 0, None, {"kind": "tril", "diagonal": 4}),
}


@pytest.mark.parametrize("case", sorted(TRIANGULAR))
def test_a_triangular_product_matches_torch_on_ragged_strided_shapes(case):
    """100 x 90 outputs, K = 72: 64-tiles leave ragged edges and a tile wholly in the dropped
    triangle, 128-tiles one partial tile; the last attempt's small K tiles several k ranges."""
    contract, reference = _triangular(*TRIANGULAR[case])
    _check_gemm(contract, reference, (0, 1), f"gemm_{case}")


@pytest.mark.parametrize("kind, diagonal", [("tril", 1), ("triu", -1), ("tril", -3), ("triu", 2)])
def test_a_triangular_product_with_many_tiles_across_the_diagonal(monkeypatch, kind, diagonal):
    """Tiles of 16 (K tiles of 16) over 40 x 40, K = 40: most tiles are dropped or cut by the
    diagonal (diagonals +-1 put a tile's corner on it), and the operands' triangles (diagonals
    +-1: a k bound one past a K tile's start) cut the K loop short."""
    monkeypatch.setattr(rewrite_gemm, "ATTEMPTS", (("ieee", 16, 16, 16, 1, 1),))
    for da, db in ((None, None), (1, -1), (-1, 1)):
        masks = [None if x is None else {"kind": kind, "diagonal": x} for x in (da, db)]
        contract, reference = _triangular(kind, diagonal, *masks, m=40, n=40, k=40)
        _check_gemm(contract, reference, (0,), f"gemm_small_{kind}_{diagonal}_{da}")


@pytest.mark.parametrize("side", ["left", "right"])
def test_a_symmetric_product_matches_torch_on_ragged_strided_shapes(side):
    """``(X + X^T) @ B`` and ``B @ (X + X^T)``: X 72 x 72 stored transposed, B with padded rows,
    the output column-major."""
    m, k = 100, 72
    b_shape = [k, m] if side == "left" else [m, k]
    out_shape = [k, m] if side == "left" else [m, k]
    args = [_arg("arg0_1", [k, k], [1, k], "read"), _arg("arg1_1", b_shape, [b_shape[1] + 3, 1], "read")]
    args.append(_arg("buf1", out_shape, [1, out_shape[0]], "write"))
    roles = {"side": side, "x": "arg0_1", "other": "arg1_1"}
    contract = Contract.from_dict(
        {
            "args": args,
            "rewrite": {"name": "symmetric-operand", "node": "mm", "outputs": ["buf1"], "roles": roles},
        }
    )

    def reference(x, b):
        return (x + x.T) @ b if side == "left" else b @ (x + x.T)

    _check_gemm(contract, reference, (0, 1), f"gemm_sym_{side}")


def test_a_contract_the_generator_does_not_handle_is_refused():
    contract, _ = _triangular("triu", 0)
    with pytest.raises(CannotSynthesize, match="no generator"):
        rewrite_gemm.synthesize_gemm_rewrite(replace(contract, rewrite={**contract.rewrite, "name": "x"}), 0)
    bad = replace(contract, args=[contract.args[0], _arg("arg1_1", [5, 90], [90, 1], "read"), contract.args[2]])
    with pytest.raises(CannotSynthesize, match="is not a GEMM"):
        rewrite_gemm.synthesize_gemm_rewrite(bad, 0)
    roles = {"side": "left", "x": "arg0_1", "other": "arg1_1"}
    rect = replace(contract, rewrite={"name": "symmetric-operand", "node": "mm", "outputs": ["buf1"], "roles": roles})
    with pytest.raises(CannotSynthesize, match="not square"):
        rewrite_gemm.synthesize_gemm_rewrite(rect, 0)


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

    top = tmp_path_factory.mktemp("bcast")
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


def _check_bcast(contract, reference, name, attempts=range(4)):
    """Every attempt is in the checked form and matches ``reference(*inputs)`` under the
    interpreter on three fresh draws, the output (at its contract strides) pre-filled with NaN."""

    from kernelopt.gates.form import static_problems
    from kernelopt.search.synth.rewrites import synthesize_rewrite

    ins_args, out_arg = contract.args[:-1], contract.args[-1]
    for attempt in attempts:
        src = synthesize_rewrite(contract, attempt)
        assert static_problems(src, contract) == []
        mod = load_candidate(src, f"{name}_{attempt}")
        _matches_on_three_draws(mod, ins_args, out_arg, reference)


def test_the_candidate_from_problem_8s_unit_matches_the_fx_graph(problem8):
    g, _, rec = problem8
    contract = rewrite_unit_contract(rec)
    assert [a["name"] for a in contract.args] == ["arg0_1", "arg1_1", "buf0"]
    _check_bcast(contract, lambda *ins: g.gm(*ins)[0], "bcast_p8")


def _contract(args, factor, fdims, summed, sdims, dims, keepdim, shape):
    roles = {"factor": factor, "factor_dims": fdims, "summed": summed, "summed_dims": sdims}
    roles |= {"dims": dims, "keepdim": keepdim, "shape": shape}
    out = args[-1]["name"]
    return Contract(
        args=args, rewrite={"name": "broadcast-then-reduce", "node": "sum", "outputs": [out], "roles": roles}
    )


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
    _check_bcast(contract, reference, f"bcast_{layout}")


def test_a_contract_the_rewrite_does_not_hold_for_is_refused():
    from kernelopt.search.synth.ops import CannotSynthesize
    from kernelopt.search.synth.rewrites import synthesize_rewrite

    contract, _ = LAYOUTS["two_reduced_dims"]
    roles = contract.rewrite["roles"]
    swapped = {"factor": "y", "factor_dims": roles["summed_dims"], "summed": "x", "summed_dims": roles["factor_dims"]}
    varies = replace(contract, rewrite={**contract.rewrite, "roles": {**roles, **swapped}})
    with pytest.raises(CannotSynthesize, match="the factor y varies along the reduced dims"):
        synthesize_rewrite(varies, 0)
    unmapped = replace(contract, rewrite={**contract.rewrite, "roles": {**roles, "factor_dims": [0, 1, None, 0]}})
    with pytest.raises(CannotSynthesize, match="is not a map into"):
        synthesize_rewrite(unmapped, 0)
    wrong_out = replace(contract, args=contract.args[:-1] + [_arg("out", [3, 6], [6, 1], "write")])
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
