"""docs/CONFIG.md is generated from the config models (training/config/reference.py):
the page says what the models declare, every key of every config has a
description, and the generator shows a key's type, default, bounds and validator."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field, field_validator

from training.config.reference import PAGES, reference, table, undocumented

ROOT = Path(__file__).resolve().parents[1]


def test_config_md_is_generated_from_the_models():
    doc = (ROOT / "docs" / "CONFIG.md").read_text(encoding="utf-8")
    assert doc == reference(), (
        "docs/CONFIG.md is not the models': run `python -m training.config.reference`")


def test_every_config_key_has_a_description():
    missing = {model.__name__: undocumented(model) for _, _, model in PAGES}
    assert all(not keys for keys in missing.values()), missing


class _Inner(BaseModel):
    documented: int = Field(1, description="a key")
    bare: int = 2


class _Probe(BaseModel):
    width: int = Field(3, ge=1, le=10, description="how wide")
    inner: _Inner | None = Field(None, description="a section")
    names: list[str] = Field(default_factory=lambda: ["a"])

    @field_validator("names")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        """Each name once."""
        return v


def test_the_description_check_reports_an_undocumented_key():
    assert undocumented(_Probe) == ["names", "inner.bare"]


def test_the_table_shows_type_default_bounds_validator_and_description():
    rows = table(_Probe).splitlines()
    assert "| `width` | int | `3` | 1 to 10 | how wide |" in rows
    assert "| `names` | list of str | `[\"a\"]` | each name once |  |" in rows
    assert not any("`inner`" in row for row in rows)  # a section has its own table
