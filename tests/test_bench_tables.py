"""bench/level1_table.py's in-model bound (issue 8's H200 table), on a hand-made dispatch."""

import importlib.util

from conftest import ROOT

spec = importlib.util.spec_from_file_location("level1_table", ROOT / "bench" / "level1_table.py")
table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table)

MS_PER_GB = 1e9 / (table.PEAK_GBS * 1e9) * 1e3  # ms to move 1 GB at the copy bandwidth


def test_in_model_bound_counts_each_kernel_once_and_keeps_library_time():
    # run 14's LayerNorm in miniature: a split reduction (0.1 ms, 1 GB, at the roof 0.2326 ms:
    # already faster, from L2, keeps its time), a normalize kernel (1.0 ms, 2 GB), the region
    # of both (its members again: not counted), 0.5 ms of a library call and gaps
    disp = {
        "units": [
            {"id": "red", "time_ms": 0.1},
            {"id": "poi", "time_ms": 1.0},
            {"id": "rg_red__poi", "time_ms": 1.1, "region": {"members": ["red", "poi"]}},
        ]
    }
    roof = {"units": [{"unit": "red", "bytes": 10**9}, {"unit": "poi", "bytes": 2 * 10**9}, {"unit": "rg_red__poi"}]}
    t, bound = table.in_model_bound(disp, roof, 1.6)
    assert abs(t - 1.1) < 1e-12
    assert abs(bound - 1.6 / (0.5 + 0.1 + 2 * MS_PER_GB)) < 1e-9
    # a row read twice: the re-read roof halves what the kernel can reach
    roof["units"][1]["reread_roof_pct"] = 50.0
    assert abs(table.in_model_bound(disp, roof, 1.6)[1] - 1.6 / (0.5 + 0.1 + min(1.0, 4 * MS_PER_GB))) < 1e-9
    # a kernel without capture's time or without bytes: no bound (not a guess)
    assert table.in_model_bound({"units": [{"id": "red", "time_ms": None}, disp["units"][1]]}, roof, 1.6) == (
        None,
        None,
    )
    assert table.in_model_bound(disp, {"units": roof["units"][1:]}, 1.6) == (None, None)
    assert table.in_model_bound(disp, roof, None) == (None, None)
    # never below 1: the output code cannot be made slower by bringing kernels to their roof
    assert table.in_model_bound({"units": [{"id": "red", "time_ms": 0.1}]}, roof, 0.1)[1] == 1.0


def test_in_model_bound_counts_every_launch_and_no_negative_gap():
    roof = {"units": [{"unit": "k", "bytes": 10**9}]}
    # launched twice at its roof: capture's time is both launches, the bytes one launch's
    at_roof = 2 * MS_PER_GB
    assert (
        abs(table.in_model_bound({"units": [{"id": "k", "time_ms": at_roof, "launches": 2}]}, roof, at_roof)[1] - 1)
        < 1e-9
    )
    # kernels timed one by one a little over the graph's time: the gap is 0, not negative
    t, bound = table.in_model_bound({"units": [{"id": "k", "time_ms": 1.05}]}, roof, 1.0)
    assert abs(bound - 1.0 / MS_PER_GB) < 1e-9
