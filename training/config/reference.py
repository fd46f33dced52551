"""docs/CONFIG.md, the reference of every config key, generated from the models
of :mod:`.schemas`: each key's type, default, allowed values (the field's bounds,
pattern and choices, and the first line of each validator's docstring) and its
``description``. ``python -m training.config.reference`` rewrites the page;
tests/test_config_reference.py fails when it differs from the models, or when a
field has no description.
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from . import schemas
from .schemas import LoopConfig, RecipeConfig, TrainConfig

#: The page's parts: title, the command that reads such a file, and its model.
PAGES: tuple[tuple[str, str, type[BaseModel]], ...] = (
    ("Training run", "aluette train configs/default.yaml", TrainConfig),
    ("Expert iteration", "aluette expert-iteration configs/history/expert_iteration.yaml",
     LoopConfig),
    ("Recipe", "aluette train configs/recipe.yaml", RecipeConfig),
)

HEAD = """# Config reference

Every key of the three kinds of config file in `configs/`, with its type, its
default, what it allows and what it does. Any key can be overridden on the
command line with `--set key.path=value` (the value is read as YAML). A key
that is not listed here, a wrong type or a value out of range is refused before
anything runs, with one line naming the file, the key and what is allowed.
Types are not guessed: YAML's `yes` or `true` is no number, and `1` is no flag
(an integer is a float's value, as `learning_rate: 1`).

Some settings only work together (a backend and a feature, the signs variant
and its learner, a minibatch and its rollout): those rules are in
[training/config/compatibility.py](../training/config/compatibility.py) and
[training/config/rules.py](../training/config/rules.py).

<!-- generated from training/config/schemas.py by `python -m training.config.reference`;
edit the fields' descriptions there, not this page -->
"""


def _section(annotation: Any) -> type[BaseModel] | None:
    """The model of a section field (``X``, ``X | None`` or ``list[X]``), or None."""
    for kind in (annotation, *get_args(annotation)):
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return kind
    return None


def sections(model: type[BaseModel], prefix: str = "") -> list[tuple[str, FieldInfo | None,
                                                                       type[BaseModel]]]:
    """(key path, field, model) of ``model`` and of each of its sections, depth first;
    a list of sections shows as ``key[]``."""
    found: list[tuple[str, FieldInfo | None, type[BaseModel]]] = [(prefix, None, model)]
    for key, field in model.model_fields.items():
        sub = _section(field.annotation)
        if sub is not None:
            path = f"{prefix}{key}{'[]' if get_origin(field.annotation) is list else ''}"
            inner = sections(sub, path + ".")
            found.append((path, field, sub))
            found += inner[1:]
    return found


def undocumented(model: type[BaseModel]) -> list[str]:
    """The key paths of ``model`` (sections included) whose field has no description."""
    return [f"{path.rstrip('.')}{'.' if path else ''}{key}"
            for path, _, sub in sections(model) for key, field in sub.model_fields.items()
            if not (field.description or "").strip()]


def _yaml_value(value: Any) -> str:
    """A literal as a config file writes it (YAML's ``true``, not Python's True)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _type(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        return " or ".join("null" if a is type(None) else _type(a) for a in args)
    if origin is Literal:  # the types of its values, in their order (bool before str)
        return " or ".join(dict.fromkeys(type(v).__name__ for v in args))
    if origin is list:
        return f"list of {_type(args[0])}"
    if origin is dict:
        return f"map of {_type(args[0])} to {_type(args[1])}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "section"
    return getattr(annotation, "__name__", str(annotation))


def _value(value: Any) -> str:
    if isinstance(value, BaseModel):
        value = value.model_dump()
    return f"`{json.dumps(value) if not isinstance(value, str) else value}`"


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    return _value(field.get_default(call_default_factory=True))


def _doc_line(func: Any) -> str:
    """A validator's allowed values: its docstring's first line, a ``MAX_...``
    constant of the schemas written as its value."""
    doc = (getattr(func, "__doc__", None) or "").strip().splitlines()
    text = doc[0].strip().rstrip(".") if doc else ""
    text = text[:1].lower() + text[1:]
    return re.sub(r"\bMAX_[A-Z_]+\b",
                  lambda m: f"{getattr(schemas, m[0]):,}" if isinstance(
                      getattr(schemas, m[0], None), int) else m[0], text)


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _allowed(model: type[BaseModel], key: str, field: FieldInfo) -> str:
    parts = []
    for kind in (field.annotation, *get_args(field.annotation)):
        if get_origin(kind) is Literal:
            parts.append("one of " + ", ".join(f"`{_yaml_value(v)}`" for v in get_args(kind)))
    bounds = {name: getattr(meta, name) for meta in field.metadata
              for name in ("ge", "gt", "le", "lt") if getattr(meta, name, None) is not None}
    if "ge" in bounds and "le" in bounds:
        parts.append(f"{_number(bounds['ge'])} to {_number(bounds['le'])}")
    elif bounds:
        parts.append(", ".join(f"{sign} {_number(bounds[name])}" for name, sign in (
            ("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")) if name in bounds))
    for meta in field.metadata:
        if getattr(meta, "min_length", None) is not None:
            parts.append("not empty" if meta.min_length == 1 else
                         f"at least {meta.min_length} long")
        if getattr(meta, "max_length", None) is not None:
            parts.append(f"at most {meta.max_length} long")
        if getattr(meta, "pattern", None) is not None:
            parts.append(f"matches `{meta.pattern}`")
        if hasattr(meta, "func") and _doc_line(meta.func):
            parts.append(_doc_line(meta.func))
    for decorator in model.__pydantic_decorators__.field_validators.values():
        if key in decorator.info.fields and _doc_line(decorator.func):
            parts.append(_doc_line(decorator.func))
    return "; ".join(parts)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def table(model: type[BaseModel]) -> str:
    """The markdown table of ``model``'s own keys (its sections have their own)."""
    rows = ["| key | type | default | allowed | what it does |", "|---|---|---|---|---|"]
    for key, field in model.model_fields.items():
        if _section(field.annotation) is not None:
            continue
        rows.append("| " + " | ".join(_cell(c) for c in (
            f"`{key}`", _type(field.annotation), _default(field),
            _allowed(model, key, field), field.description or "")) + " |")
    return "\n".join(rows)


def reference() -> str:
    """The whole of docs/CONFIG.md."""
    out = [HEAD]
    for title, command, root in PAGES:
        out.append(f"## {title}\n\n`{command}`\n")
        for path, field, model in sections(root):
            if field is not None:
                optional = type(None) in get_args(field.annotation)
                note = " Unset (null) by default." if optional else ""
                text = _cell(field.description or "")
                out.append(f"### `{path}`\n\n{text[:1].upper()}{text[1:]}.{note}\n")
            if any(_section(f.annotation) is None for f in model.model_fields.values()):
                out.append(table(model) + "\n")
    return "\n".join(out)


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    doc = root / "docs" / "CONFIG.md"
    if not doc.parent.is_dir():
        sys.exit(f"{root} is not a checkout of the project: no docs/")
    doc.write_text(reference(), encoding="utf-8")
    print(f"wrote {doc}")


if __name__ == "__main__":
    main()
