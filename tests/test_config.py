import pytest

from kernelopt import config
from kernelopt.errors import ConfigError


def test_defaults_fill_in():
    cfg = config.validate({})
    assert cfg["device"] == "auto"
    assert cfg["classify"]["min_triton_share"] == 0.10
    assert cfg["isolate"]["seeds"] == [0, 1, 2]


def test_repo_config_is_valid(root):
    cfg = config.load(root / "config.yaml")
    assert cfg["capture"]["mode"] == "max-autotune"


def test_baseloader_strings_are_coerced():
    # snakemake --config passes values parsed with YAML's BaseLoader: all strings
    cfg = config.validate({"seed": "3", "classify": {"min_triton_share": "0.25"}, "isolate": {"seeds": ["4", "5"], "rtol": "1e-4"}})
    assert cfg["seed"] == 3
    assert cfg["classify"]["min_triton_share"] == 0.25
    assert cfg["isolate"]["seeds"] == [4, 5]
    assert cfg["isolate"]["rtol"] == 1e-4


def test_nested_override_given_as_yaml_string():
    cfg = config.validate({"measure": "{reps: 7, warmup: 1}"})
    assert cfg["measure"]["reps"] == 7 and cfg["measure"]["warmup"] == 1
    assert cfg["measure"]["rounds"] == 10  # untouched keys keep defaults


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"devce": "cpu"}, ["unknown config key", "devce", "device"]),
        ({"device": "tpu"}, ["device", "tpu"]),
        ({"classify": {"min_triton_share": "lots"}}, ["classify.min_triton_share", "number"]),
        ({"classify": {"min_triton_share": 2}}, ["classify.min_triton_share"]),
        ({"isolate": {"seeds": []}}, ["isolate.seeds"]),
        ({"capture": {"mode": "fast"}}, ["capture.mode"]),
    ],
)
def test_bad_values_name_the_key(bad, words):
    with pytest.raises(ConfigError) as e:
        config.validate(bad)
    for w in words:
        assert w in str(e.value)
