import pytest

from kernelopt.core import problems
from kernelopt.core.errors import ConfigError, ProblemError


def test_demo_suite_discovered(root):
    found = problems.discover("problems/demo", base=root)
    assert len(found) >= 12
    assert "level1_1_Softmax" in found and "level3_2_TransformerBlock" in found
    levels = {pid.split("_")[0] for pid in found}
    assert levels == {"level1", "level2", "level3"}


def test_gpu_suite_mirrors_demo(root):
    demo = set(problems.discover("problems/demo", base=root))
    gpu = set(problems.discover("problems/gpu", base=root))
    assert demo == gpu


def test_ids_are_sanitised(tmp_path):
    d = tmp_path / "level 9"
    d.mkdir()
    (d / "1_Weird-name.v2.py").write_text("class Model: pass\ndef get_inputs(): return []\n")
    found = problems.discover(str(tmp_path))
    assert list(found) == ["level_9_1_Weird_name_v2"]


def test_unknown_directory_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="neither a directory nor a file"):
        problems.discover(str(tmp_path / "nope"))


def test_list_of_files(root):
    found = problems.discover(["problems/demo/level1/1_Softmax.py", "problems/demo/level1/8_ReLU.py"], base=root)
    assert list(found) == ["level1_1_Softmax", "level1_8_ReLU"]


def test_broken_problems_are_kept_and_fail_clearly(root):
    found = problems.discover("tests/fixtures/bad_problems", base=root)
    assert "level1_2_NoModel" in found  # has get_inputs but no Model: reported, not skipped
    with pytest.raises(ProblemError, match="does_not_exist"):
        problems.load(found["level1_1_ImportError"])
    with pytest.raises(ProblemError, match="missing Model"):
        problems.load(found["level1_2_NoModel"])


def test_build_is_deterministic(root):
    p = problems.load(root / "problems/demo/level2/1_Linear_Bias_ReLU_Scale.py")
    a = problems.param_fingerprint(problems.build_model(p, "cpu", 0))
    b = problems.param_fingerprint(problems.build_model(p, "cpu", 0))
    c = problems.param_fingerprint(problems.build_model(p, "cpu", 1))
    assert a == b != c
