"""The package's shape: one package per rule file, every module importable on its own, no import
circle (imports inside functions included), no private name reached across modules, and imports
that only point from a stage to the core or to the stages before it.

The code style CI enforces: ruff's lint and formatter (configured in pyproject.toml)."""

import ast
import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, tool

PKG = ROOT / "kernelopt"
# the workflow is package data (kernelopt/workflow/: Snakefile, rules/, scripts/): its scripts are
# Snakemake's script files, not modules
WORKFLOW = PKG / "workflow"
# pipeline order: a package may import the core and the packages before it, never one after it
# core and runner are shared floors (runner: running candidate code, below every stage that does)
LAYERS = [
    "core",
    "runner",
    "capture",
    "classify",
    "isolate",
    "gates",
    "search",
    "select",
    "stitch",
    "report",
    "deploy",
    "runcli",
    "cli",
    "__main__",
]


def modules() -> dict[str, Path]:
    out = {}
    for f in sorted(PKG.rglob("*.py")):
        if WORKFLOW in f.parents:
            continue
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def _resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(mods: dict[str, Path]) -> dict[str, list[tuple[str, list[str], int]]]:
    """module -> [(imported kernelopt module, names taken from it, line)] over the whole file."""
    out: dict[str, list[tuple[str, list[str], int]]] = {}
    for mod, path in mods.items():
        edges = []
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                edges += [(a.name, [], node.lineno) for a in node.names if a.name.split(".")[0] == "kernelopt"]
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(mod, path.name == "__init__.py", node)
                if target.split(".")[0] != "kernelopt":
                    continue
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    edges.append((sub, [], node.lineno) if sub in mods else (target, [a.name], node.lineno))
        out[mod] = edges
    return out


def test_one_package_per_rule_file():
    rule_files = {p.stem for p in (WORKFLOW / "rules").glob("*.smk")} - {"common"}
    # core and runner are floors; deploy runs after the pipeline (kernelopt.load / export), not as a rule
    packages = {p.name for p in PKG.iterdir() if (p / "__init__.py").exists()} - {"core", "runner", "deploy"}
    assert rule_files == packages, (rule_files, packages)
    for pkg in packages:
        assert (PKG / pkg / "stage.py").exists(), f"kernelopt/{pkg}/stage.py holds the rules' entry points"


def test_every_module_imports_on_its_own():
    names = sorted(modules())
    script = (
        "import importlib, sys\n"
        f"names = {names!r}\n"
        "bad = []\n"
        "for n in names:\n"
        "    for k in [k for k in sys.modules if k == 'kernelopt' or k.startswith('kernelopt.')]:\n"
        "        del sys.modules[k]\n"
        "    try:\n"
        "        importlib.import_module(n)\n"
        "    except Exception as e:\n"
        "        bad.append(f'{n}: {type(e).__name__}: {e}')\n"
        "print('\\n'.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]


def test_no_import_circle():
    mods = modules()
    graph = {m: sorted({t for t, _, _ in edges if t in mods and t != m}) for m, edges in imports(mods).items()}
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            strong(v)
    assert not sccs, f"import circles: {sccs}"


def test_no_private_name_crosses_a_module_boundary():
    mods = modules()
    bad = []
    for mod, edges in imports(mods).items():
        for target, names, line in edges:
            bad += [f"{mod}:{line} imports {target}.{n}" for n in names if n.startswith("_") and not n.startswith("__")]
        # module.attribute access to a private name of another kernelopt module
        tree = ast.parse(mods[mod].read_text())
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and _resolve(mod, mods[mod].name == "__init__.py", node).startswith(
                "kernelopt"
            ):
                base = _resolve(mod, mods[mod].name == "__init__.py", node)
                aliases |= {a.asname or a.name for a in node.names if f"{base}.{a.name}" in mods}
            elif isinstance(node, ast.Import):
                aliases |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith("kernelopt")}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                if node.attr.startswith("_") and not node.attr.startswith("__"):
                    bad.append(f"{mod}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert not bad, bad


def test_imports_point_from_a_stage_to_the_core_or_an_earlier_stage():
    mods = modules()
    layer = {name: i for i, name in enumerate(LAYERS)}
    bad = []
    for mod, edges in imports(mods).items():
        if mod == "kernelopt":
            continue
        src = mod.split(".")[1]
        for target, _, line in edges:
            dst = target.split(".")[1] if target.count(".") else None
            if dst and dst != src and layer[dst] > layer[src]:
                bad.append(f"{mod}:{line} ({src}) imports {target} ({dst}, a later stage)")
    assert not bad, bad


def test_rule_scripts_use_the_path_layer_and_code_cites_docs_in_the_repo():
    for f in (WORKFLOW / "scripts").glob("*.py"):
        text = f.read_text()
        assert "parents[" not in text and ".parent.parent" not in text, f"{f.name} finds directories by hand"
        assert "ProblemPaths" in text or "tables" in text, f"{f.name} does not use the path layer"
    cited = [
        p
        for p in [
            *PKG.rglob("*.py"),
            *(WORKFLOW / "rules").glob("*.smk"),
            ROOT / "Snakefile",
            WORKFLOW / "Snakefile",
        ]
        if "DESIGN.md" in p.read_text()
    ]
    assert not cited, f"cite docs/architecture.md or docs/gpu.md, not a file outside the repository: {cited}"
    for doc in ("architecture.md", "gpu.md"):
        assert (ROOT / "docs" / doc).exists()


# every file one stage hands another; only kernelopt/core/records.py spells them
ARTIFACT = re.compile(
    r"(^|[/.{}])("
    r"candidate\.py|slot\.json|gate\d?\.json|gate\{[^}]*\}\.json|timing\.json|plan\.json|output_code(_g[^/]*)?\.py|"
    r"beam\.json|memory\.json|analysis\.json|summary\.(json|txt|md)|report\.ncu-rep|contract\.json|"
    r"reference\.py|reference_constants\.pt|inductor\.py|isolate_check\.json|best\.json|dispatch\.json|"
    r"capture\.json|profile\.json|baseline\.json|call_args_saved\.pt|constants(_g[^/]*)?\.pt|"
    r"fx_graph_post_grad(_g[^/]*)?\.py|isolate\.json|result\.json|problem_set\.json|results\.csv|"
    r"stages\.(json|csv)|ledger\.jsonl|settings\.json|"
    # beside a job's log (<log>.gpu.json, <log>.span.json); a GPU's busy samples (logs/gpu-busy-<gpu>.jsonl)
    r"gpu\.json|span\.json|gpu-busy-[^/]*"
    r")$"
    # the LLM's directories: transcripts (<where>/llm/<role>-<k>.json) and the run's state (<workdir>/llm/);
    # a bare "llm" is a direction's kind, so only a path names it (a path join's operand gets a "/")
    r"|(^|/)llm/|/llm$"
)
RECORDS = PKG / "core" / "records.py"


def _path_parts(tree: ast.AST) -> set[int]:
    """The ids of the string constants that a path is joined from (``p / "llm"``, ``Path(p, "llm")``)."""
    parts = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            parts |= {id(n) for n in (node.left, node.right)}
        elif isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in ("Path", "joinpath", "join"):
            parts |= {id(n) for n in node.args}
    return parts


def _names_in_python(path: Path) -> list[str]:
    """String constants (f-string parts included) that are or end in an artifact's file name."""
    found = []
    tree = ast.parse(path.read_text())
    parts = _path_parts(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            s = node.value
            if len(s) < 120 and not any(c in s for c in " \n") and ARTIFACT.search(f"/{s}" if id(node) in parts else s):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {s!r}")
    return found


def _names_in_rules(path: Path) -> list[str]:
    found = []
    for no, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        for lit in re.findall(r"[\"']([^\"'\s]*)[\"']", line):
            if ARTIFACT.search(lit):
                found.append(f"{path.relative_to(ROOT)}:{no}: {lit!r}")
    return found


def test_artifact_names_are_spelled_only_by_the_records_module():
    assert _names_in_python(RECORDS), "the pattern no longer finds the names records.py defines"
    bad = []
    for f in PKG.rglob("*.py"):  # the workflow's scripts included
        if f != RECORDS:
            bad += _names_in_python(f)
    for f in [*(WORKFLOW / "rules").glob("*.smk"), WORKFLOW / "Snakefile", ROOT / "Snakefile"]:
        bad += _names_in_rules(f)
    assert not bad, "artifact paths built outside kernelopt/core/records.py:\n" + "\n".join(bad)


def test_every_fixture_that_runs_the_pipeline_makes_its_tests_slow():
    """A fixture that calls ``snakemake(`` (the pipeline, minutes) must be in conftest's
    PIPELINE_FIXTURES, so the fast lane never starts one."""
    from conftest import PIPELINE_FIXTURES

    found = set()
    for f in (ROOT / "tests").glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.FunctionDef) and any("fixture" in ast.unparse(d) for d in node.decorator_list):
                calls = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
                if any(ast.unparse(c.func) == "snakemake" for c in calls):
                    found.add(node.name)
    assert found, "no pipeline fixture found: the scan is broken"
    assert found <= PIPELINE_FIXTURES, f"pipeline fixtures not marked slow: {sorted(found - PIPELINE_FIXTURES)}"


def test_every_import_of_the_package_names_a_module_that_exists():
    """Imports inside functions too: a moved module must not leave a lazy import behind."""
    import importlib

    mods = modules()
    bad = []
    for mod, edges in imports(mods).items():
        for target, names, line in edges:
            if target not in mods:
                bad.append(f"{mod}:{line} imports {target}, which does not exist")
                continue
            missing = [n for n in names if n != "*" and not hasattr(importlib.import_module(target), n)]
            bad += [f"{mod}:{line} imports {n} from {target}, which has no such name" for n in missing]
    assert not bad, bad


def test_no_function_of_the_package_is_longer_than_a_reader_can_hold():
    """80 lines at most, decorators aside (issue 14: split by the decisions a function makes)."""
    long = []
    for f in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > 80:
                    long.append(f"{f.relative_to(ROOT)}:{node.lineno} {node.name} ({n} lines)")
    assert not long, long


def _ruff(*args: str, root) -> subprocess.CompletedProcess:
    return subprocess.run([tool("ruff"), *args], cwd=root, capture_output=True, text=True)


def test_ruff_lint_is_clean(root):
    r = _ruff("check", ".", root=root)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr


def test_ruff_format_is_clean(root):
    r = _ruff("format", "--check", ".", root=root)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr
