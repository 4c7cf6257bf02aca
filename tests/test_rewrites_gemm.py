"""The GEMM rewrites of issue 16 (search/synth/rewrite_gemm.py): the analysis marks the small
triangular and symmetric problems' findings as candidates with the roles the generator reads (and
not a product whose operand is a view); each attempt's candidate is in
the checked form and matches the eager product under the interpreter, on shapes that are no
multiple of the tiles and on non-contiguous operands and outputs, every output element written."""

from __future__ import annotations

import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT, load_candidate

from kernelopt.capture import rewrites
from kernelopt.search.synth import rewrite_gemm
from kernelopt.search.synth.ops import CannotSynthesize

sys.path.insert(0, str(ROOT / "bench"))
import rewrites_small  # noqa: E402

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
def graphs():
    """The small problems 5-7 and the NEGATIVE ones compiled once in CPU mode: their post-grad FX graphs."""
    import torch

    from kernelopt.capture.hooks import CompileHooks
    from kernelopt.core import problems, runtime

    top = Path(tempfile.mkdtemp(prefix="kernelopt-rewrites-gemm-"))
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


def _arg(name, shape, stride, access):
    return {"kind": "tensor", "name": name, "shape": shape, "stride": stride, "dtype": "float32", "access": access}


def _strided(shape, stride, fill=None):
    """A tensor of ``shape`` laid out with ``stride`` over storage of its own (random, or ``fill``)."""
    import torch

    size = 1 + sum((n - 1) * s for n, s in zip(shape, stride))
    base = torch.randn(size) if fill is None else torch.full((size,), fill)
    return base.as_strided(shape, stride)


def _check(contract, reference, attempts, name):
    """Every attempt is in the checked form, GEMMs with tl.dot, and matches ``reference(*inputs)``
    under the interpreter on three draws, the output pre-filled with NaN (the gates' tolerances:
    fp32, rtol = atol = 1e-4)."""
    import torch

    from kernelopt.gates.form import static_problems

    ins, out = contract["args"][:-1], contract["args"][-1]
    for attempt in range(len(rewrite_gemm.ATTEMPTS)):
        src = rewrite_gemm.synthesize_gemm_rewrite(contract, attempt)
        assert static_problems(src, contract) == [], attempt
        precision = rewrite_gemm.ATTEMPTS[attempt][0]
        assert "tl.dot(" in src and f'input_precision="{precision}"' in src and "mm(" not in src
    assert rewrite_gemm.ATTEMPTS[0][0] == "ieee"
    for attempt in attempts:
        mod = load_candidate(rewrite_gemm.synthesize_gemm_rewrite(contract, attempt), f"{name}_{attempt}")
        for seed in (11, 12, 13):
            torch.manual_seed(seed)
            xs = [_strided(a["shape"], a["stride"]) for a in ins]
            y = _strided(out["shape"], out["stride"], float("nan"))
            mod.launch(*xs, y)
            torch.testing.assert_close(y, reference(*xs), rtol=1e-4, atol=1e-4)


def _triangular(kind, diagonal, a_mask=None, b_mask=None, m=100, n=90, k=72):
    """``kind(A' @ B', diagonal)`` with A' = A or its mask, B' likewise: A [m, k] stored transposed,
    B [k, n] with padded rows, the output [m, n] column-major; the contract and the torch reference."""
    import torch

    args = [_arg("arg0_1", [m, k], [1, m], "read"), _arg("arg1_1", [k, n], [n + 3, 1], "read")]
    args.append(_arg("buf1", [m, n], [1, m], "write"))
    roles = {"kind": kind, "diagonal": diagonal, "matmul": "mm", "triangular_operands": bool(a_mask and b_mask)}
    roles.update(a="arg0_1", b="arg1_1", a_mask=a_mask, b_mask=b_mask)
    contract = {
        "args": args,
        "rewrite": {"name": "triangular-output", "node": "where", "outputs": ["buf1"], "roles": roles},
    }

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
    _check(contract, reference, (0, 1), f"gemm_{case}")


@pytest.mark.parametrize("kind, diagonal", [("tril", 1), ("triu", -1), ("tril", -3), ("triu", 2)])
def test_a_triangular_product_with_many_tiles_across_the_diagonal(monkeypatch, kind, diagonal):
    """Tiles of 16 (K tiles of 16) over 40 x 40, K = 40: most tiles are dropped or cut by the
    diagonal (diagonals +-1 put a tile's corner on it), and the operands' triangles (diagonals
    +-1: a k bound one past a K tile's start) cut the K loop short."""
    monkeypatch.setattr(rewrite_gemm, "ATTEMPTS", (("ieee", 16, 16, 16, 1, 1),))
    for da, db in ((None, None), (1, -1), (-1, 1)):
        masks = [None if x is None else {"kind": kind, "diagonal": x} for x in (da, db)]
        contract, reference = _triangular(kind, diagonal, *masks, m=40, n=40, k=40)
        _check(contract, reference, (0,), f"gemm_small_{kind}_{diagonal}_{da}")


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
    contract = {
        "args": args,
        "rewrite": {"name": "symmetric-operand", "node": "mm", "outputs": ["buf1"], "roles": roles},
    }

    def reference(x, b):
        return (x + x.T) @ b if side == "left" else b @ (x + x.T)

    _check(contract, reference, (0, 1), f"gemm_sym_{side}")


def test_a_contract_the_generator_does_not_handle_is_refused():
    contract, _ = _triangular("triu", 0)
    with pytest.raises(CannotSynthesize, match="no generator"):
        rewrite_gemm.synthesize_gemm_rewrite({**contract, "rewrite": {**contract["rewrite"], "name": "x"}}, 0)
    bad = {**contract, "args": [contract["args"][0], _arg("arg1_1", [5, 90], [90, 1], "read"), contract["args"][2]]}
    with pytest.raises(CannotSynthesize, match="is not a GEMM"):
        rewrite_gemm.synthesize_gemm_rewrite(bad, 0)
    roles = {"side": "left", "x": "arg0_1", "other": "arg1_1"}
    rect = {**contract, "rewrite": {"name": "symmetric-operand", "node": "mm", "outputs": ["buf1"], "roles": roles}}
    with pytest.raises(CannotSynthesize, match="not square"):
        rewrite_gemm.synthesize_gemm_rewrite(rect, 0)
