"""How the project's modules depend on each other, read from their source: no import cycles (imports
inside functions count too, so that a late import cannot hide one), the agents never build on the
evaluation, the evaluation never on the training, and no module imports another's private names."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("briscola_env", "agents", "evaluation", "training", "webtable", "briscola_cli")
LAYERS = PACKAGES  # each imports only from those before it


def project_modules(root: Path = ROOT) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (its file, whether it is a package's ``__init__``)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def imports_of(name: str, path: Path, is_package: bool, modules) -> list[tuple[str, list[str], int]]:
    """``(imported project module, names taken from it, line)`` for every import in the file, at any depth."""
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                taken = (submodule, []) if submodule in modules else (base, [alias.name])
                found.append((*taken, node.lineno))
    project = []
    for target, names, line in found:
        while target and target not in modules:  # a name inside a project module, or outside the project
            target = target.rpartition(".")[0]
        if target and target != name:
            project.append((target, names, line))
    return project


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = project_modules(root)
    return {name: {target for target, _, _ in imports_of(name, path, is_package, modules)}
            for name, (path, is_package) in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_even_through_imports_inside_functions():
    assert cycles(import_graph()) == []


@pytest.mark.parametrize("lower, upper", [(lower, upper) for i, lower in enumerate(LAYERS) for upper in LAYERS[i + 1:]])
def test_the_layers_import_only_downwards(lower, upper):
    """briscola_env (the game and its environments) < agents (the players) < evaluation < training (which
    evaluates what it trains) < webtable (the table in a browser) < briscola_cli (the ``briscola`` command)."""
    graph = import_graph()
    reaching = {name: sorted(t for t in targets if t.split(".")[0] == upper)
                for name, targets in graph.items() if name.split(".")[0] == lower}
    assert {name: targets for name, targets in reaching.items() if targets} == {}


def private_imports(root: Path = ROOT) -> list[str]:
    """Every import of a private name (``_x``, not ``__future__``'s) from another project module."""
    modules = project_modules(root)
    return [f"{path.relative_to(root)}:{line} takes {', '.join(names)} from {target}"
            for name, (path, is_package) in modules.items()
            for target, names, line in imports_of(name, path, is_package, modules)
            if any(n.startswith("_") and not n.startswith("__") for n in names)]


def test_no_module_imports_another_s_private_names():
    assert private_imports() == []


@pytest.mark.parametrize("source, expected", [
    ("from .engine.state import _LAYOUT, State\n", "briscola_env/x.py:1 takes _LAYOUT from briscola_env.engine.state"),
    ("def f():\n    from agents.pimc import _AUCTION\n", "briscola_env/x.py:2 takes _AUCTION from agents.pimc"),
])
def test_a_private_import_is_found(tmp_path, source, expected):
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "briscola_env" / "engine").mkdir()
    (tmp_path / "briscola_env" / "engine" / "__init__.py").write_text("")
    (tmp_path / "briscola_env" / "engine" / "state.py").write_text("_LAYOUT = {}\nclass State: ...\n")
    (tmp_path / "agents" / "pimc.py").write_text("_AUCTION = 0\n")
    (tmp_path / "briscola_env" / "x.py").write_text(source)
    assert private_imports(tmp_path) == [expected]


# Outside the tests, only the engine benchmark imports the reference: it times the engine against it (the
# ratio README's "Speed" and BENCHMARKS.md quote). The product plays by the engine alone.
REFERENCE = "briscola_env.reference"
REFERENCE_TIMED_BY = {"benchmarks/engine.py"}
NOT_SOURCE = {"tests", "build", "dist", "runs", "__pycache__"}  # the tests, build copies, run folders


def reference_importers(root: Path = ROOT) -> list[str]:
    """``file:line`` of every import of :data:`REFERENCE` (as a module or from its package, absolute or
    relative, at any depth) in the project's Python files outside :data:`NOT_SOURCE` and hidden folders."""
    found = []
    for path in sorted(root.rglob("*.py")):
        folders = path.relative_to(root).parts[:-1]
        if any(part in NOT_SOURCE or part.startswith(".") or part.endswith(".egg-info") for part in folders):
            continue
        package = ".".join(folders)  # what a relative import in this file is relative to
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)] if node.level else []
                base = ".".join(anchor + ([node.module] if node.module else []))
                names = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            if any(name == REFERENCE or name.startswith(REFERENCE + ".") for name in names):
                found.append(f"{path.relative_to(root).as_posix()}:{node.lineno}")
    return found


def test_nothing_outside_the_tests_imports_the_reference_but_the_benchmark_that_times_it():
    """``briscola_env.reference`` is the tests' oracle: the environments, records, text and web tables play
    by the engine (``briscola_env.game``), so the product has one rules implementation."""
    assert {where.rpartition(":")[0] for where in reference_importers()} == REFERENCE_TIMED_BY


@pytest.mark.parametrize("source", [
    "from .reference import ReferenceGame\n", "from . import reference\n", "import briscola_env.reference as r\n",
    "def f():\n    from briscola_env.reference import ReferenceGame\n", "from briscola_env import reference\n",
])
def test_an_import_of_the_reference_is_found(tmp_path, source):
    (tmp_path / "briscola_env").mkdir()
    (tmp_path / "briscola_env" / "x.py").write_text(source)
    (tmp_path / "briscola_env" / "y.py").write_text("from .references import x\nimport briscola_env.engine\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("from briscola_env.reference import ReferenceGame\n")
    assert reference_importers(tmp_path) == [f"briscola_env/x.py:{source.count(chr(10))}"]
