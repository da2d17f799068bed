"""One vocabulary (issue 14 §3): every control name, state word and selector the ChatGPT driver
reads lives in `providers/chatgpt/vocabulary.py`, and nothing there is dead.

The check reads the driver's source: a label, selector or in-page script written anywhere else
fails it. Standard ARIA (role names, `aria-*` attribute names) and key names are the platform's,
not ChatGPT's, and stay where they are used."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import ModuleType

import oraculum
from oraculum.providers.chatgpt import vocabulary

PACKAGE = Path(oraculum.__file__).parent
DRIVER = PACKAGE / "providers" / "chatgpt"
DRIVER_MODULES = sorted(p for p in DRIVER.glob("*.py") if p.name != "vocabulary.py")

# Locator calls whose first argument is page text or a selector.
TEXT_ARGUMENT_CALLS = {
    "get_by_label",
    "get_by_text",
    "get_by_placeholder",
    "get_by_title",
    "get_by_test_id",
    "get_by_alt_text",
    "locator",
    "query_selector",
    "query_selector_all",
    "wait_for_selector",
    "evaluate",
    "wait_for_function",
}
STANDARD_ATTRIBUTE = re.compile(r"^aria-[a-z]+$")


def _literal(node: ast.AST | None) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def ui_strings_outside_vocabulary(source: str) -> list[str]:
    """Quoted UI strings in one driver module's source, as `line: call(...)` descriptions."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        method = node.func.attr
        first = node.args[0] if node.args else None
        script_name = isinstance(first, ast.Constant) and str(first.value).endswith(".js")
        if method in TEXT_ARGUMENT_CALLS and _literal(first) and not script_name:
            found.append(f"{node.lineno}: {method}({ast.unparse(first)})")  # type: ignore[arg-type]
        if method == "get_attribute" and _literal(first):
            value = first.value if isinstance(first, ast.Constant) else ""  # type: ignore[union-attr]
            if not STANDARD_ATTRIBUTE.match(str(value)):
                found.append(f"{node.lineno}: get_attribute({value!r})")
        if method in ("get_by_role", "filter"):
            for keyword in node.keywords:
                if keyword.arg in ("name", "has_text") and _literal(keyword.value):
                    found.append(f"{node.lineno}: {method}({keyword.arg}=...)")
    return found


def test_the_check_catches_what_it_should() -> None:
    bad = (
        "page.get_by_role('button', name='Send prompt')\n"
        "page.locator('#prompt-textarea')\n"
        "el.evaluate('(e) => e.id')\n"
        "el.get_attribute('data-state')\n"
        "page.get_by_text(f'{x} Pro')\n"
    )
    assert len(ui_strings_outside_vocabulary(bad)) == 5
    good = (
        "page.get_by_role('button', name=vocab.SEND)\n"
        "el.get_attribute('aria-expanded')\n"
        "page.keyboard.press('Escape')\n"
    )
    assert ui_strings_outside_vocabulary(good) == []


def test_no_driver_module_quotes_a_ui_string() -> None:
    problems = {
        path.name: found
        for path in DRIVER_MODULES
        if (found := ui_strings_outside_vocabulary(path.read_text(encoding="utf-8")))
    }
    assert problems == {}


def _labels() -> set[str]:
    """Every string the vocabulary defines (4 characters or more), in and out of tuples."""
    labels: set[str] = set()
    for name, value in vars(vocabulary).items():
        if not name.isupper():
            continue
        items = value.values() if isinstance(value, dict) else value
        if isinstance(value, str):
            items = (value,)
        if isinstance(items, tuple | type({}.values())):
            labels |= {v for v in items if isinstance(v, str) and len(v) >= 4}
    return labels


def _string_constants(source: str) -> list[tuple[int, str]]:
    """String literals in code, without docstrings (prose may name a label)."""
    tree = ast.parse(source)
    docstrings = {
        id(body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and (body := node.body)
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
    ]  # fmt: skip


def repeated_labels(driver: Path, modules: list[Path], labels: set[str]) -> list[str]:
    """Where a driver's modules (as string literals) or in-page scripts quote a label."""
    repeats = [
        f"{path.name}:{line}: {value!r}"
        for path in modules
        for line, value in _string_constants(path.read_text(encoding="utf-8"))
        if value in labels
    ]
    for path in sorted((driver / "js").glob("*.js")):
        text = path.read_text(encoding="utf-8")
        repeats += [f"{path.name}: {label!r}" for label in labels if f'"{label}"' in text]
    return repeats


def unused_vocabulary_names(names: ModuleType, driver: Path) -> list[str]:
    """Upper-case names of a driver's vocabulary module that nothing in the package uses."""
    sources = "\n".join(
        p.read_text(encoding="utf-8")
        for p in PACKAGE.rglob("*.py")
        if p != driver / "vocabulary.py"
    )
    vocabulary_source = (driver / "vocabulary.py").read_text(encoding="utf-8")
    return [
        name
        for name in vars(names)
        if name.isupper()
        and not re.search(rf"\b{name}\b", sources)
        # used by another vocabulary entry (or page_vocabulary) counts too
        and len(re.findall(rf"\b{name}\b", vocabulary_source)) < 2
    ]


def test_no_driver_module_repeats_a_vocabulary_label() -> None:
    assert repeated_labels(DRIVER, DRIVER_MODULES, _labels()) == []


def test_every_vocabulary_name_is_used() -> None:
    assert unused_vocabulary_names(vocabulary, DRIVER) == []
