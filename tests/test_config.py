import pytest

from kernelopt.core import config
from kernelopt.core.errors import ConfigError


def test_defaults_fill_in():
    cfg = config.validate({})
    assert cfg["device"] == "auto"
    assert cfg["classify"]["min_triton_share"] == 0.10
    assert cfg["isolate"]["seeds"] == [0, 1, 2]


def test_repo_config_is_valid(root):
    cfg = config.load(root / "config.yaml")
    assert cfg["capture"]["mode"] == "max-autotune"
    quick = config.load(root / "quickstart.yaml")
    assert len(quick["problems"]) == 4 and quick["search"]["iterations"] == 1


def test_baseloader_strings_are_coerced():
    # snakemake --config passes values parsed with YAML's BaseLoader: all strings
    cfg = config.validate(
        {"seed": "3", "classify": {"min_triton_share": "0.25"}, "isolate": {"seeds": ["4", "5"], "rtol": "1e-4"}}
    )
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


def test_defaults_have_one_source_the_schema():
    import kernelopt.core.config as mod

    assert not hasattr(mod, "DEFAULTS")
    d = config.defaults()
    assert d["gates"]["perf_margin"] == 0.03 and d["search"]["iterations"] == 5
    # the protocol is defined once ($defs) and filled for both of its uses
    assert d["measure"] == d["capture"]["timing"] == {"rounds": 10, "reps": 20, "warmup": 5, "flush_l2": True}
    assert config.validate({}) == d


def test_the_repo_configs_set_only_what_they_mean_to_change(root):
    import yaml

    d = config.defaults()
    for name in ("config.yaml", "quickstart.yaml"):
        own = yaml.safe_load((root / name).read_text())
        config.validate(own)
        for section, value in own.items():
            if isinstance(value, dict):
                for k, v in value.items():
                    assert d[section][k] != v, f"{name} repeats the default {section}.{k}={v}"
            else:
                assert d[section] != value, f"{name} repeats the default {section}={value}"


def test_every_rule_declares_the_settings_it_reads(root):
    import re

    rules = set()
    for f in (root / "kernelopt/workflow/rules").glob("*.smk"):
        text = f.read_text()
        rules |= set(re.findall(r"^(?:rule|checkpoint) (\w+):", text, re.M))
        for used in re.findall(r'settings\("(\w+)"\)', text):
            assert used in config.RULE_SETTINGS, used
        if f.name != "common.smk":  # common.smk sizes the DAG from CONFIG; rules get settings(rule)
            assert "config=CONFIG" not in text and "CONFIG[" not in text, f"{f.name} hands a rule the whole config"
    bookkeeping = {"all", "isolated", "stages_report", "report"}  # read no setting
    assert rules - bookkeeping == set(config.RULE_SETTINGS)
    cfg = config.validate({})
    g4 = config.settings_for(cfg, "gate4")
    assert set(g4) == {"device", "seed", "gates", "measure"}
    assert set(g4["gates"]) == {"perf_margin", "timeout_s", "timeout_factor"}


def test_tuning_a_gate_or_the_search_never_invalidates_capture_classify_or_isolate():
    for setting in (
        "gates.perf_margin",
        "gates.model_rtol",
        "gates.rtol",
        "search.iterations",
        "search.beam_width",
        "agent.backend",
        "measure.rounds",
        "measure.flush_l2",
    ):
        hit = config.invalidated_by(setting)
        assert not {"capture", "classify", "isolate"} & set(hit), (setting, hit)
        assert hit, f"no rule reads {setting}"
    assert "capture" in config.invalidated_by("capture.mode") and "capture" in config.invalidated_by("seed")


def test_the_readme_table_of_invalidations_matches_the_code(root):
    from kernelopt.core.config import invalidation_table

    assert invalidation_table() in (root / "README.md").read_text()


def test_the_configuration_reference_is_the_schema(root):
    assert config.reference_table() in (root / "docs/configuration.md").read_text()
