"""The heuristic synthesizer's reductions over a whole tensor or to an index, run under the Triton
interpreter against PyTorch.

Full reductions (kernelopt/search/synth/fullreduce.py: a loss), against PyTorch's own losses, with
the post-grad graphs Inductor wrote for problems/headroom's MSE, Huber, KL-divergence and hinge
losses on the H200 (bench/templates_gpu.py reads FORWARDS and _loss from here).

Index reductions (kernelopt/search/synth/argreduce.py), against torch.argmax/argmin: the first
index of the best value, ties and NaNs as PyTorch breaks them, a middle dimension through strides,
rows longer than one chunk."""

import math

import pytest
import torch
import torch.nn.functional as F
from conftest import load_candidate

from kernelopt.core.records import Contract
from kernelopt.search.synth import fullreduce, generate
from kernelopt.search.synth.fullreduce import synthesize_full_reduction
from kernelopt.search.synth.ops import CannotSynthesize


def _arg(name, shape, access, dtype="float32"):
    stride = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
    return {"name": name, "kind": "tensor", "shape": shape, "stride": stride, "dtype": dtype, "access": access}


FORWARDS = {
    "mse": """
        sub = torch.ops.aten.sub.Tensor(x0, x1);  x0 = x1 = None
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(sub, 2);  sub = None
        mean = torch.ops.aten.mean.default(pow_1);  pow_1 = None
        return (mean,)""",
    "huber": """
        sub = torch.ops.aten.sub.Tensor(x0, x1);  x0 = x1 = None
        abs_1 = torch.ops.aten.abs.default(sub);  sub = None
        lt = torch.ops.aten.lt.Scalar(abs_1, 0.5)
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(abs_1, 2)
        mul = torch.ops.aten.mul.Tensor(pow_1, 0.5);  pow_1 = None
        div = torch.ops.aten.div.Tensor(mul, 0.5);  mul = None
        sub_1 = torch.ops.aten.sub.Tensor(abs_1, 0.25);  abs_1 = None
        where = torch.ops.aten.where.self(lt, div, sub_1);  lt = div = sub_1 = None
        mean = torch.ops.aten.mean.default(where);  where = None
        return (mean,)""",
    "kl": """
        isnan = torch.ops.aten.isnan.default(x1)
        full_default_1 = torch.ops.aten.full.default([], nan, dtype = torch.float32, layout = torch.strided)
        eq = torch.ops.aten.eq.Scalar(x1, 0)
        full_default = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, layout = torch.strided)
        log_1 = torch.ops.aten.log.default(x1)
        mul_1 = torch.ops.aten.mul.Tensor(x1, log_1);  log_1 = None
        where = torch.ops.aten.where.self(eq, full_default, mul_1);  eq = full_default = mul_1 = None
        where_1 = torch.ops.aten.where.self(isnan, full_default_1, where);  isnan = full_default_1 = where = None
        log = torch.ops.aten.log.default(x0);  x0 = None
        mul = torch.ops.aten.mul.Tensor(x1, log);  x1 = log = None
        sub = torch.ops.aten.sub.Tensor(where_1, mul);  where_1 = mul = None
        sum_1 = torch.ops.aten.sum.default(sub);  sub = None
        div = torch.ops.aten.div.Tensor(sum_1, 6);  sum_1 = None
        return (div,)""",
    # BCEWithLogitsLoss as Inductor decomposes it (once refused: aten.log1p was no pointwise op)
    "bce_logits": """
        sub = torch.ops.aten.sub.Tensor(1, x0)
        mul = torch.ops.aten.mul.Tensor(sub, x1);  sub = None
        full_default = torch.ops.aten.full.default([], 0, dtype = torch.float32, layout = torch.strided)
        minimum = torch.ops.aten.minimum.default(full_default, x1);  full_default = None
        abs_1 = torch.ops.aten.abs.default(x1);  x1 = None
        neg = torch.ops.aten.neg.default(abs_1);  abs_1 = None
        exp = torch.ops.aten.exp.default(neg);  neg = None
        log1p = torch.ops.aten.log1p.default(exp);  exp = None
        sub_1 = torch.ops.aten.sub.Tensor(minimum, log1p);  minimum = log1p = None
        sub_2 = torch.ops.aten.sub.Tensor(mul, sub_1);  mul = sub_1 = None
        mean = torch.ops.aten.mean.default(sub_2);  sub_2 = None
        return (mean,)""",
    "hinge": """
        mul = torch.ops.aten.mul.Tensor(x0, x1);  x0 = x1 = None
        sub = torch.ops.aten.sub.Tensor(1, mul);  mul = None
        clamp_min = torch.ops.aten.clamp_min.default(sub, 0);  sub = None
        mean = torch.ops.aten.mean.default(clamp_min);  clamp_min = None
        return (mean,)""",
    # HingeEmbeddingLoss(margin=1.5): zeros of the inputs' shape where a label says so (aten.full of
    # [6, 1000], once refused as "aten.full with keyword arguments")
    "hinge_embedding": """
        full_default = torch.ops.aten.full.default([6, 1000], 0, dtype = torch.float32, layout = torch.strided)
        ne_1 = torch.ops.aten.ne.Scalar(x0, -1)
        where_1 = torch.ops.aten.where.self(ne_1, x1, full_default);  ne_1 = None
        full_default_1 = torch.ops.aten.full.default([6, 1000], 1.5, dtype = torch.float32, layout = torch.strided)
        sub = torch.ops.aten.sub.Tensor(full_default_1, x1);  full_default_1 = x1 = None
        clamp_min = torch.ops.aten.clamp_min.default(sub, 0);  sub = None
        ne = torch.ops.aten.ne.Scalar(x0, 1);  x0 = None
        where = torch.ops.aten.where.self(ne, clamp_min, full_default);  ne = clamp_min = full_default = None
        add = torch.ops.aten.add.Tensor(where, where_1);  where = where_1 = None
        mean = torch.ops.aten.mean.default(add);  add = None
        return (mean,)""",
}


def _loss(kind, p, t):
    if kind == "mse":
        return torch.mean((p - t) ** 2)
    if kind == "huber":
        return F.smooth_l1_loss(p, t, beta=0.5)
    if kind == "kl":
        return F.kl_div(torch.log(p), t, reduction="batchmean")
    if kind == "hinge_embedding":
        return F.hinge_embedding_loss(t, p, margin=1.5)
    if kind == "bce_logits":  # x0: the targets, x1: the logits
        return F.binary_cross_entropy_with_logits(t, p)
    return torch.mean(torch.clamp(1 - p * t, min=0))


@pytest.mark.parametrize("attempt", [0, 3])
@pytest.mark.parametrize("kind", sorted(FORWARDS))
def test_losses_as_one_pass_and_an_ordered_sum_of_partials(kind, attempt):
    shape = [6, 1000]
    label = [6, 1] if kind == "hinge" else shape  # one label per row, broadcast
    torch.manual_seed(7)
    if kind == "kl":
        p, t = torch.randn(shape).softmax(-1), torch.randn(shape).softmax(-1)
    elif kind == "hinge":
        p, t = torch.randn(shape), torch.randint(0, 2, label).float() * 2 - 1
    elif kind == "hinge_embedding":
        p, t = torch.randint(0, 2, shape).float() * 2 - 1, torch.randn(shape) * 2
    elif kind == "bce_logits":  # targets in [0, 1], logits large enough that log(1 + e^-|x|) is small
        p, t = torch.rand(shape), torch.randn(shape) * 8
    else:
        p, t = torch.randn(shape), torch.randn(shape)
    ref = f"""
LEVEL = 'kernel'
INPUTS = ['in_ptr0', 'in_ptr1']
OUTPUTS = ['out_ptr0']
SHAPES = {{'in_ptr0': {shape!r}, 'in_ptr1': {label!r}}}
OUT_SHAPES = {{'out_ptr0': []}}


class Reference(torch.nn.Module):
    def forward(self, x0, x1):{FORWARDS[kind]}
"""
    contract = Contract.from_dict(
        {"args": [_arg("in_ptr0", shape, "read"), _arg("in_ptr1", label, "read"), _arg("out_ptr0", [], "write")]}
    )
    src = generate.generate(contract, ref, attempt)
    assert "synth_partial" in src and "synth_total" in src
    if kind == "hinge_embedding":  # a full of a larger shape would change the mean's count: refused
        with pytest.raises(CannotSynthesize, match="aten.full"):
            synthesize_full_reduction(contract, ref.replace("[6, 1000], 0,", "[2, 6, 1000], 0,"), attempt)
    mod = load_candidate(src, f"loss_{kind}_{attempt}")
    out = torch.full((), float("nan"))
    mod.launch(p, t, out)
    torch.testing.assert_close(out, _loss(kind, p, t), rtol=1e-5, atol=1e-6)


def test_a_frobenius_norm_sums_over_dims_none_and_divides_by_a_0d_input():
    """``x / torch.norm(x, p="fro")`` on a fresh problem: Inductor's graph sums the squares with
    ``sum.dim_IntList(x, None)`` (every dim), then divides by the 0-d result's square root.  The
    heuristic synthesizer crashed on both (a TypeError, not a reason): the sum is a full
    reduction, and a 0-d input of the pointwise kernel has the shape [], not "no shape"."""
    shape = [4, 8, 20, 20]

    def ref(shapes, out_shape, forward):
        return (
            f"LEVEL = 'kernel'\nINPUTS = {list(shapes)!r}\nOUTPUTS = ['out_ptr0']\nSHAPES = {shapes!r}\n"
            f"OUT_SHAPES = {{'out_ptr0': {out_shape!r}}}\n\n\nclass Reference(torch.nn.Module):\n{forward}"
        )

    total = ref(
        {"in_ptr0": shape},
        [],
        """    def forward(self, x0):
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(x0, 2);  x0 = None
        sum_1 = torch.ops.aten.sum.dim_IntList(pow_1, None);  pow_1 = None
        return (sum_1,)
""",
    )
    scale = ref(
        {"in_ptr0": shape, "in_ptr1": []},
        shape,
        """    def forward(self, x0, x1):
        pow_2 = torch.ops.aten.pow.Tensor_Scalar(x1, 0.5);  x1 = None
        div = torch.ops.aten.div.Tensor(x0, pow_2);  x0 = pow_2 = None
        return (div,)
""",
    )
    torch.manual_seed(3)
    x = torch.randn(shape)
    c1 = Contract.from_dict({"args": [_arg("in_ptr0", shape, "read"), _arg("out_ptr0", [], "write")]})
    s = torch.full((), float("nan"))
    load_candidate(generate.generate(c1, total, 0), "fro_sum").launch(x, s)
    torch.testing.assert_close(s, (x.double() ** 2).sum().float(), rtol=1e-5, atol=1e-5)
    c2 = Contract.from_dict(
        {"args": [_arg("in_ptr0", shape, "read"), _arg("in_ptr1", [], "read"), _arg("out_ptr0", shape, "write")]}
    )
    out = torch.full(shape, float("nan"))
    load_candidate(generate.generate(c2, scale, 0), "fro_div").launch(x, s, out)
    torch.testing.assert_close(out, x / torch.norm(x, p="fro"), rtol=1e-5, atol=1e-6)


def test_a_max_over_everything_and_a_kept_sum_are_refused():
    contract = Contract.from_dict({"args": [_arg("in_ptr0", [4, 8], "read"), _arg("out_ptr0", [], "write")]})
    ref = """
LEVEL = 'kernel'
INPUTS = ['in_ptr0']
OUTPUTS = ['out_ptr0']
SHAPES = {'in_ptr0': [4, 8]}
OUT_SHAPES = {'out_ptr0': []}


class Reference(torch.nn.Module):
    def forward(self, x0):
        amax = torch.ops.aten.amax.default(x0);  x0 = None
        return (amax,)
"""
    with pytest.raises(CannotSynthesize):
        generate.generate(
            contract, ref.replace("aten.amax.default(x0)", "aten.sum.default(x0)").replace("sum", "amax"), 0
        )

    with pytest.raises(CannotSynthesize, match="only a sum or mean over every element"):
        synthesize_full_reduction(contract, ref.replace("amax.default(x0)", "sum.dim_IntList(x0, [0, 1], True)"), 0)


def _ref(op: str, shape: list, dim: int, keep: bool, out_shape: list) -> str:
    return f"""
LEVEL = 'kernel'
INPUTS = ['in_ptr0']
OUTPUTS = ['out_ptr0']
SHAPES = {{'in_ptr0': {shape!r}}}
OUT_SHAPES = {{'out_ptr0': {out_shape!r}}}


class Reference(torch.nn.Module):
    def forward(self, x0):
        neg = torch.ops.aten.abs.default(x0);  x0 = None
        r = torch.ops.aten.{op}.default(neg, {dim}, {keep});  neg = None
        return (r,)
"""


@pytest.mark.parametrize("attempt", [0, 1])
@pytest.mark.parametrize(
    "op,shape,dim,keep",
    [
        ("argmax", [4, 16, 32], 1, False),
        ("argmin", [6, 3000], -1, False),
        ("argmax", [3, 5000], 1, True),
        ("argmin", [3, 40, 100], 1, True),  # rows adjacent, 100 of them a slab: chunks of many rows
    ],
)
def test_index_reductions_match_torch_with_ties_and_nans(attempt, op, shape, dim, keep):
    torch.manual_seed(6)
    x = torch.randn(*shape).round(decimals=1)  # many ties: the first index must win
    x.view(-1)[7] = float("nan")  # one row with a NaN: its index wins
    want = getattr(torch, op)(x.abs(), dim, keepdim=keep)
    contract = Contract.from_dict(
        {"args": [_arg("in_ptr0", shape, "read"), _arg("out_ptr0", list(want.shape), "write", "int64")]}
    )
    src = generate.generate(contract, _ref(op, shape, dim, keep, list(want.shape)), attempt)
    mod = load_candidate(src, f"arg_{op}_{attempt}_{len(shape)}_{keep}")
    out = torch.full(want.shape, -1, dtype=torch.int64)
    mod.launch(x, out)
    assert torch.equal(out, want), (out, want)


def test_index_reduction_refuses_every_dimension_and_float_outputs():
    src = _ref("argmax", [4, 8], "None", False, [])
    contract = Contract.from_dict({"args": [_arg("in_ptr0", [4, 8], "read"), _arg("out_ptr0", [], "write", "int64")]})
    with pytest.raises(CannotSynthesize, match="every dimension"):
        generate.generate(contract, src, 0)
    contract = Contract.from_dict(
        {"args": [_arg("in_ptr0", [4, 8], "read"), _arg("out_ptr0", [4], "write", "float32")]}
    )
    with pytest.raises(CannotSynthesize, match="not the int64 index"):
        generate.generate(contract, _ref("argmax", [4, 8], 1, False, [4]), 0)


LSE_FORWARD = """
class Reference(torch.nn.Module):
    def forward(self, x0):
        amax = torch.ops.aten.amax.default(x0, [{d}], True)
        full_default = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, layout = torch.strided)
        abs_1 = torch.ops.aten.abs.default(amax)
        eq = torch.ops.aten.eq.Scalar(abs_1, inf);  abs_1 = None
        where = torch.ops.aten.where.self(eq, full_default, amax);  eq = full_default = amax = None
        squeeze = torch.ops.aten.squeeze.dims(where, [{d}])
        sub = torch.ops.aten.sub.Tensor(x0, where);  x0 = where = None
        exp = torch.ops.aten.exp.default(sub);  sub = None
        sum_1 = torch.ops.aten.sum.dim_IntList(exp, [{d}]);  exp = None
        log = torch.ops.aten.log.default(sum_1);  sum_1 = None
        add = torch.ops.aten.add.Tensor(log, squeeze);  log = squeeze = None
        return (add,)
"""


@pytest.mark.parametrize("shape, dim", [([6, 50], 1), ([4, 23, 15], 1)])
def test_logsumexp_without_keepdim_squeezes_the_kept_maximum(shape, dim):
    """torch.logsumexp(x, dim) without keepdim adds the row maximum, kept and then squeezed, to
    the log of the sum: the squeeze of a row value along its reduced dimension is that value per
    row (once refused: "aten.squeeze is not supported by the row synthesizer").  A squeeze along
    another dimension stays refused."""
    out_shape = [n for d, n in enumerate(shape) if d != dim]
    head = f"""
LEVEL = 'kernel'
INPUTS = ['in_ptr0']
OUTPUTS = ['out_ptr0']
SHAPES = {{'in_ptr0': {shape!r}}}
OUT_SHAPES = {{'out_ptr0': {out_shape!r}}}
"""
    contract = Contract.from_dict({"args": [_arg("in_ptr0", shape, "read"), _arg("out_ptr0", out_shape, "write")]})
    ref = head + LSE_FORWARD.format(d=dim)
    torch.manual_seed(3)
    x = torch.randn(shape) * 20
    x.view(-1)[:3] = torch.tensor([float("-inf"), float("inf"), float("nan")])
    for attempt in (0, 2):
        mod = load_candidate(generate.generate(contract, ref, attempt), f"lse_{len(shape)}_{attempt}")
        out = torch.full(out_shape, float("nan"))
        mod.launch(x, out)
        torch.testing.assert_close(out, torch.logsumexp(x, dim), equal_nan=True)
    other = ref.replace(f"squeeze.dims(where, [{dim}])", "squeeze.dims(where, [0])")
    with pytest.raises(CannotSynthesize, match="squeeze"):
        generate.generate(contract, other, 0)


# A group norm averaged per sample, as Inductor's post-grad graph writes the region of its
# statistics and its mean (a convolution's output, channels-last, affine weights), and a form
# without weights (x - mean, times rstd, seen as [N, C, ...], then the mean).
GN_MEAN_AFFINE = """
        view_2 = torch.ops.aten.reshape.default(x2, [1, {G}, {cpg}, 1]);  x2 = None
        view_1 = torch.ops.aten.reshape.default(x1, [1, {G}, {cpg}, 1]);  x1 = None
        view = torch.ops.aten.reshape.default(x0, [{N}, {G}, {cpg}, {S}])
        var_mean = torch.ops.aten.var_mean.correction(view, [2, 3], correction = 0, keepdim = True);  view = None
        getitem = var_mean[0]
        add = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt = torch.ops.aten.rsqrt.default(add);  add = None
        mul = torch.ops.aten.mul.Tensor(rsqrt, view_1);  rsqrt = view_1 = None
        getitem_1 = var_mean[1];  var_mean = None
        neg = torch.ops.aten.neg.default(getitem_1);  getitem_1 = None
        mul_1 = torch.ops.aten.mul.Tensor(neg, mul);  neg = None
        add_1 = torch.ops.aten.add.Tensor(mul_1, view_2);  mul_1 = view_2 = None
        as_strided_1 = torch.ops.aten.as_strided.default(add_1, [{N}, {C}], [{C}, 1]);  add_1 = None
        unsqueeze_2 = torch.ops.aten.unsqueeze.default(as_strided_1, 2);  as_strided_1 = None
        unsqueeze_3 = torch.ops.aten.unsqueeze.default(unsqueeze_2, 3);  unsqueeze_2 = None
        as_strided = torch.ops.aten.as_strided.default(mul, [{N}, {C}], [{C}, 1]);  mul = None
        unsqueeze = torch.ops.aten.unsqueeze.default(as_strided, 2);  as_strided = None
        unsqueeze_1 = torch.ops.aten.unsqueeze.default(unsqueeze, 3);  unsqueeze = None
        mul_2 = torch.ops.aten.mul.Tensor(x0, unsqueeze_1);  x0 = unsqueeze_1 = None
        add_2 = torch.ops.aten.add.Tensor(mul_2, unsqueeze_3);  mul_2 = unsqueeze_3 = None
        mean = torch.ops.aten.mean.dim(add_2, {dims});  add_2 = None
        return (mean,)"""
GN_MEAN_PLAIN = """
        view = torch.ops.aten.reshape.default(x0, [{N}, {G}, {cpg}, {S}]);  x0 = None
        var_mean = torch.ops.aten.var_mean.correction(view, [2, 3], correction = 0, keepdim = True)
        getitem = var_mean[0]
        getitem_1 = var_mean[1];  var_mean = None
        add = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt = torch.ops.aten.rsqrt.default(add);  add = None
        sub = torch.ops.aten.sub.Tensor(view, getitem_1);  view = getitem_1 = None
        mul = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = rsqrt = None
        view_1 = torch.ops.aten.reshape.default(mul, {shape});  mul = None
        mean = torch.ops.aten.mean.dim(view_1, {dims});  view_1 = None
        return (mean,)"""


@pytest.mark.parametrize("attempt", [0, 3])
@pytest.mark.parametrize(
    "shape, groups, affine, channels_last, shifted",
    [
        ([6, 16, 9, 11], 4, True, True, False),
        ([3, 12, 4, 5, 6], 3, True, False, True),
        ([5, 8, 7, 9], 2, False, False, False),
    ],
)
def test_a_group_norm_averaged_per_sample_is_one_pass_over_its_input(
    shape, groups, affine, channels_last, shifted, attempt
):
    """GroupNorm(x).mean(every dim but the batch) from the channel sums and centred squares of one
    pass over x (the normalised tensor never formed), held to float64 GroupNorm on inputs whose
    channels have offsets far larger than their spread (a sum of squares less the squared sum
    would lose them); ``shifted``: x is a convolution's raw output and its bias is added first (a
    region that starts at a library call run without its bias); a nonlinearity between the norm
    and the mean is refused."""
    N, C, S = shape[0], shape[1], math.prod(shape[2:])
    dims = list(range(1, len(shape)))
    ins = ["in_ptr0", "in_ptr1", "in_ptr2"] if affine else ["in_ptr0"]
    shapes = {"in_ptr0": shape, "in_ptr1": [C], "in_ptr2": [C]}
    forward = (GN_MEAN_AFFINE if affine else GN_MEAN_PLAIN).format(
        N=N, C=C, G=groups, cpg=C // groups, S=S, dims=dims, shape=shape
    )
    if shifted:  # as fxref writes a raw convolution output's bias added back
        ins, shapes["in_ptr3"] = ins + ["in_ptr3"], [C]
        view = f"torch.ops.aten.reshape.default(x{len(ins) - 1}, [1, {C}" + ", 1" * (len(shape) - 2) + "])"
        forward = forward.replace("(x0,", "(conv,").replace(
            "\n", f"\n        bview = {view}\n        conv = torch.ops.aten.add.Tensor(x0, bview)\n", 1
        )
    params = ", ".join(f"x{i}" for i in range(len(ins)))
    ref = f"""
LEVEL = 'kernel'
INPUTS = {ins!r}
OUTPUTS = ['out_ptr0']
SHAPES = {{{", ".join(f"{n!r}: {shapes[n]!r}" for n in ins)}}}
OUT_SHAPES = {{'out_ptr0': [{N}]}}


class Reference(torch.nn.Module):
    def forward(self, {params}):{forward}
"""
    torch.manual_seed(11)
    x = torch.randn(shape) * 0.5 + torch.randn([1, C] + [1] * (len(shape) - 2)) * 300
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    gamma, beta, bias = torch.randn(C), torch.randn(C), torch.randn(C) * 50
    args = [_arg(n, shapes[n], "read") for n in ins] + [_arg("out_ptr0", [N], "write")]
    args[0]["stride"] = list(x.stride())
    contract = Contract.from_dict({"args": args})
    src = generate.generate(contract, ref, attempt)
    assert "synth_gn_partial" in src and "never written" in src and ("per-channel shift" in src) == shifted
    mod = load_candidate(src, f"gn_mean_{len(shape)}_{affine}_{attempt}")
    out = torch.full((N,), float("nan"))
    mod.launch(*([x, gamma, beta] if affine else [x]), *([bias] if shifted else []), out)
    xb = x.double() + (bias.double().view([1, C] + [1] * (len(shape) - 2)) if shifted else 0.0)
    want = F.group_norm(xb, groups, gamma.double() if affine else None, beta.double() if affine else None)
    torch.testing.assert_close(out.double(), want.mean(dim=dims), rtol=1e-4, atol=1e-5)
    relu = ref.replace("torch.ops.aten.mean.dim(", "torch.ops.aten.relu.default(").replace(f", {dims});", ");")
    relu = relu.replace("return (mean,)", f"mean = torch.ops.aten.mean.dim(mean, {dims})\n        return (mean,)")
    with pytest.raises(CannotSynthesize, match="relu"):
        fullreduce.synthesize_norm_mean(contract, relu, attempt)


# A norm's statistics, then a LogSumExp over the channels it normalised, as Inductor's post-grad
# graph writes the region of its two kernels (a convolution's raw output, channels-last, its bias
# added back): the group norm of conv + GroupNorm + scale + tanh + LogSumExp, and the instance
# norm of conv + InstanceNorm(affine) + x2 + LogSumExp.  Reductions over two sets of dims.
CHAIN_STATS = """
        getitem = var_mean[0]
        add = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt = torch.ops.aten.rsqrt.default(add);  add = None
        getitem_1 = var_mean[1];  var_mean = None
        sub = torch.ops.aten.sub.Tensor(view, getitem_1);  view = getitem_1 = None
        mul = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = rsqrt = None"""
CHAIN_GN = (
    """
        unsqueeze_3 = torch.ops.aten.unsqueeze.default(x3, 0);  x3 = None
        unsqueeze_4 = torch.ops.aten.unsqueeze.default(unsqueeze_3, 2);  unsqueeze_3 = None
        unsqueeze_5 = torch.ops.aten.unsqueeze.default(unsqueeze_4, 3);  unsqueeze_4 = None
        unsqueeze = torch.ops.aten.unsqueeze.default(x2, 0);  x2 = None
        unsqueeze_1 = torch.ops.aten.unsqueeze.default(unsqueeze, 2);  unsqueeze = None
        unsqueeze_2 = torch.ops.aten.unsqueeze.default(unsqueeze_1, 3);  unsqueeze_1 = None
        reshape_default = torch.ops.aten.reshape.default(x1, [1, {C}, 1, 1]);  x1 = None
        add_tensor = torch.ops.aten.add.Tensor(x0, reshape_default);  x0 = reshape_default = None
        view = torch.ops.aten.reshape.default(add_tensor, [{N}, {G}, {cpg}, {HW}]);  add_tensor = None
        var_mean = torch.ops.aten.var_mean.correction(view, [2, 3], correction = 0, keepdim = True)"""
    + CHAIN_STATS
    + """
        view_1 = torch.ops.aten.reshape.default(mul, [{N}, {C}, {H}, {W}]);  mul = None
        mul_1 = torch.ops.aten.mul.Tensor(view_1, unsqueeze_2);  view_1 = unsqueeze_2 = None
        add_1 = torch.ops.aten.add.Tensor(mul_1, unsqueeze_5);  mul_1 = unsqueeze_5 = None
        mul_2 = torch.ops.aten.mul.Tensor(add_1, x4);  add_1 = x4 = None
        tanh = torch.ops.aten.tanh.default(mul_2);  mul_2 = None
        amax = torch.ops.aten.amax.default(tanh, [1], True)"""
)
CHAIN_IN = (
    """
        repeat_1 = torch.ops.aten.repeat.default(x3, [{N}]);  x3 = None
        unsqueeze_2 = torch.ops.aten.unsqueeze.default(repeat_1, -1);  repeat_1 = None
        unsqueeze_3 = torch.ops.aten.unsqueeze.default(unsqueeze_2, -1);  unsqueeze_2 = None
        repeat = torch.ops.aten.repeat.default(x2, [{N}]);  x2 = None
        unsqueeze = torch.ops.aten.unsqueeze.default(repeat, -1);  repeat = None
        unsqueeze_1 = torch.ops.aten.unsqueeze.default(unsqueeze, -1);  unsqueeze = None
        reshape_default = torch.ops.aten.reshape.default(x1, [1, {C}, 1, 1]);  x1 = None
        add_tensor = torch.ops.aten.add.Tensor(x0, reshape_default);  x0 = reshape_default = None
        view = torch.ops.aten.reshape.default(add_tensor, [1, {NC}, {H}, {W}]);  add_tensor = None
        var_mean = torch.ops.aten.var_mean.correction(view, [0, 2, 3], correction = 0, keepdim = True)"""
    + CHAIN_STATS
    + """
        mul_1 = torch.ops.aten.mul.Tensor(mul, unsqueeze_1);  mul = unsqueeze_1 = None
        add_1 = torch.ops.aten.add.Tensor(mul_1, unsqueeze_3);  mul_1 = unsqueeze_3 = None
        view_1 = torch.ops.aten.reshape.default(add_1, [{N}, {C}, {H}, {W}]);  add_1 = None
        tanh = torch.ops.aten.mul.Tensor(view_1, 2.0);  view_1 = None
        amax = torch.ops.aten.amax.default(tanh, [1], True)"""
)
CHAIN_LSE = """
        full_default = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, device = device(type='cpu'))
        abs_1 = torch.ops.aten.abs.default(amax)
        eq = torch.ops.aten.eq.Scalar(abs_1, inf);  abs_1 = None
        where = torch.ops.aten.where.self(eq, full_default, amax);  eq = full_default = amax = None
        sub_1 = torch.ops.aten.sub.Tensor(tanh, where);  tanh = None
        exp = torch.ops.aten.exp.default(sub_1);  sub_1 = None
        sum_1 = torch.ops.aten.sum.dim_IntList(exp, [1], True);  exp = None
        log = torch.ops.aten.log.default(sum_1);  sum_1 = None
        add_2 = torch.ops.aten.add.Tensor(log, where);  log = where = None
        return (add_2,)"""


def chain_unit(norm: str, N: int, C: int, G: int, H: int, W: int, device: str = "cpu") -> tuple[Contract, str]:
    """(contract, reference) of the region of a norm's statistics and a LogSumExp over the channels
    (``CHAIN_GN`` or ``CHAIN_IN``) at this size, the input channels-last (bench/templates_gpu.py's
    ``chain`` times it on the GPU)."""
    sizes = {"N": N, "C": C, "G": G, "cpg": C // G, "HW": H * W, "NC": N * C, "H": H, "W": W}
    ins = ["in_ptr0", "in_ptr1", "in_ptr2", "in_ptr3"] + (["in_ptr4"] if norm == "group" else [])
    shapes = {"in_ptr0": [N, C, H, W], "in_ptr1": [C], "in_ptr2": [C], "in_ptr3": [C], "in_ptr4": [C, 1, 1]}
    forward = (CHAIN_GN if norm == "group" else CHAIN_IN).format(**sizes) + CHAIN_LSE.replace("'cpu'", repr(device))
    ref = f"""
LEVEL = 'kernel'
INPUTS = {ins!r}
OUTPUTS = ['out_ptr0']
SHAPES = {{{", ".join(f"{n!r}: {shapes[n]!r}" for n in ins)}}}
OUT_SHAPES = {{'out_ptr0': [{N}, 1, {H}, {W}]}}


class Reference(torch.nn.Module):
    def forward(self, {", ".join(f"x{i}" for i in range(len(ins)))}):{forward}
"""
    args = [_arg(n, shapes[n], "read") for n in ins] + [_arg("out_ptr0", [N, 1, H, W], "write")]
    args[0]["stride"] = [C * H * W, 1, W * C, C]  # channels-last
    return Contract.from_dict({"args": args, "device": device}), ref


def reference_module(ref: str) -> torch.nn.Module:
    """The unit reference's ``Reference`` module (bench/templates_gpu.py compiles it)."""
    ns: dict = {}
    exec(compile("import torch\nfrom torch import device\nfrom math import inf, nan\n" + ref, "<ref>", "exec"), ns)
    return ns["Reference"]()


def run_reference(ref: str, *vals: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The reference module's outputs on ``vals``."""
    with torch.no_grad():
        return reference_module(ref)(*vals)


def check_chain(src: str, name: str, contract: Contract, ref: str, seed: int) -> None:
    """Run a chain candidate on a channels-last input whose channels have offsets far larger
    than their spread (and weights to match) and hold it to the reference."""
    N, C, H, W = contract.args[0]["shape"]
    torch.manual_seed(seed)
    x = (torch.randn(N, C, H, W) + torch.randn(1, C, 1, 1) * 300).contiguous(memory_format=torch.channels_last)
    vals = [x, torch.randn(C) * 50, torch.randn(C), torch.randn(C), torch.rand(C, 1, 1) + 0.5]
    vals = vals[: len(contract.args) - 1]
    out = torch.full([N, 1, H, W], float("nan"))
    load_candidate(src, name).launch(*vals, out)
    torch.testing.assert_close(out, run_reference(ref, *vals)[0], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("attempt", [0, 1])
@pytest.mark.parametrize("norm", ["group", "instance"])
def test_norm_statistics_then_a_logsumexp_over_channels_are_a_chain_of_two_row_kernels(norm, attempt):
    """A unit whose reductions run over two sets of dims (a norm's statistics over each group or
    channel, then a LogSumExp over the channels) is cut after the first: one module, two row
    kernels, the statistics in buffers ``launch`` allocates.  The second kernel is synthesized in
    the common refinement of the unit's dims and the norm's view ([N, G, C/G, H, W]), its
    statistics read per sample and group.  Held to the reference on channels-last inputs whose
    channels have offsets far larger than their spread."""
    from kernelopt.search.synth.rows import chain_split

    N, C, G, H, W = 3, 8, 4, 5, 6
    contract, ref = chain_unit(norm, N, C, G, H, W)
    chain = chain_split(contract, ref)
    assert list(chain.stats.values()) == [[N, G, 1, 1]] * 2 if norm == "group" else [[1, N * C, 1, 1]] * 2
    src = generate.generate(contract, ref, attempt)
    assert "chain" in src.split("\n")[1] and src.count("@triton.jit") >= 2 and "stats_launch(" in src
    check_chain(src, f"chain_{norm}_{attempt}", contract, ref, seed=5)


@pytest.mark.parametrize("norm", ["group", "instance"])
def test_a_chains_statistics_longer_than_a_program_are_split_over_two_launches(norm):
    """Where a group is longer than one program's registers (``MAX_BLOCK_N``), the chain's first
    stage is the split variant (``CHAIN_FIRST_SPLITS``): one launch publishes each part's
    partials, the next combines them once per member's rows, so the statistics stage reads its
    input once and no program waits for another (a team's members do)."""
    N, C, G, H, W = 2, 4, 2, 130, 256  # a channel of 33,280 values (a group: two of them)
    contract, ref = chain_unit(norm, N, C, G, H, W)
    src = generate.generate(contract, ref, 0)
    assert "def stats_synth_part(" in src and "stats_synth_part[" in src
    # a member holds the rows that interleave in memory (a group's 2 channels, then the next
    # group's; an instance norm's 4 channels), and the partials are combined once per rows
    assert f"stats_CONFIG = {{'ROWS': {2 if norm == 'group' else 4}," in src
    assert "stats_synth_rows[(triton.cdiv(" in src
    # at level2/1's size on a GPU (text only): a member reads whole 256-byte positions
    big = generate.generate(*chain_unit(norm, 64, 64, 8 if norm == "group" else 1, 254, 254, "cuda"), 0)
    rows, cols = (8, 1024) if norm == "group" else (64, 128)
    assert f"stats_CONFIG = {{'ROWS': {rows}, 'BLOCK_N': {cols}," in big
    check_chain(src, f"chain_split_{norm}", contract, ref, seed=6)
