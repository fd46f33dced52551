"""Every citation of a doc section points at a section that exists: a markdown
link ``FILE.md#anchor`` (or ``#anchor`` in the same page) and a plain-text
``docs/FILE.md, "Heading"`` or ``README, "Heading"``, in the README, the docs,
the experiment logs, the configs' comments, the Makefile and the sources'
docstrings and comments. Anchors follow GitHub's rule: the heading's text in
lower case, spaces to hyphens, punctuation other than hyphens and underscores
dropped, a repeated heading numbered ``-1``, ``-2``."""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Where citations are looked for: (folder, glob), relative to the repository root.
CITING = [(".", "README.md"), (".", "Makefile"), ("docs", "**/*.md"), ("configs", "**/*.yaml"),
          ("aluette_env", "**/*.py"), ("training", "**/*.py"), ("benchmarks", "**/*.py"),
          ("examples", "**/*.py"), ("tests", "*.py")]

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"""<a\s+(?:id|name)\s*=\s*["']([^"']+)["']""")
#: ``[text](target)`` whose target is a file of this repository, maybe with an anchor.
LINK = re.compile(r"\]\(\s*(?!https?:|mailto:)([^)\s]*?)(?:#([^)\s]+))?\s*\)")
#: ``docs/TRAINING.md, "Heading"``, ``TRAINING.md, "Heading"`` or ``README, "Heading"``.
QUOTED = re.compile(r"""(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md|README)[,:]\s+["“]([^"”]+)["”]""")
#: A page named in prose or a comment, maybe with an anchor: ``docs/TRAINING.md#threads``.
BARE = re.compile(r"(?<![\w/.-])(?<!\]\()((?:[\w.-]+/)*[A-Za-z][\w-]*\.md)(?:#([\w-]+))?(?![\w/-])")


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading's text (before numbering repeats)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)    # a link: its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    kept = "".join(ch for ch in text if ch in " -"
                   or unicodedata.category(ch)[0] in "LMN" or unicodedata.category(ch) == "Pc")
    return kept.replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """Every anchor of a markdown page: its headings' (outside code blocks,
    repeats numbered as GitHub does) and its explicit ``<a id=...>``."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        found.update(HTML_ANCHOR.findall(line))
        heading = HEADING.match(line)
        if heading:
            anchor = github_anchor(heading.group(2))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            found.add(anchor if count == 0 else f"{anchor}-{count}")
    return frozenset(found)


def _citing_files() -> list[Path]:
    files = {path for folder, pattern in CITING for path in (ROOT / folder).glob(pattern)
             if path.is_file() and path != Path(__file__)}
    return sorted(files)


def _prose(path: Path) -> str:
    """The file's text with comment markers between lines removed, so that a
    citation broken over two comment lines reads as one."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".md":
        text = re.sub(r"\n[ \t]*#[ \t]?", "\n", text)
    return re.sub(r"\s+", " ", text)


def _resolve(citing: Path, target: str, root: Path) -> Path | None:
    """The page a citation names: relative to the citing file, else to the
    repository root, else (a bare name) in docs/; README is README.md."""
    if target == "README":
        target = "README.md"
    for base in (citing.parent, root, root / "docs"):
        page = (base / target).resolve()
        if page.exists():
            return page
    return None


def citations(path: Path, root: Path = ROOT) -> list[tuple[str, Path | None, str | None, str]]:
    """(what the file says, the page it names or None, the anchor or None, how
    to find the section: 'link' or 'heading')."""
    text = _prose(path)
    found = []
    if path.suffix == ".md":
        lines = path.read_text(encoding="utf-8").splitlines()
        in_code = False
        body = []
        for line in lines:
            if FENCE.match(line):
                in_code = not in_code
            elif not in_code:
                body.append(line)
        for target, anchor in LINK.findall("\n".join(body)):
            if not target and not anchor:
                continue
            page = path if not target else _resolve(path, target, root)
            found.append((f"]({target}{'#' + anchor if anchor else ''})", page,
                          anchor or None, "link"))
    quoted = list(QUOTED.finditer(text))
    for match in quoted:
        target, heading = match.groups()
        found.append((f'{target}, "{heading}"', _resolve(path, target, root), heading, "heading"))
    for match in BARE.finditer(text):
        if any(q.start() <= match.start() < q.end() for q in quoted):
            continue
        target, anchor = match.groups()
        found.append((match.group(0), _resolve(path, target, root), anchor, "link"))
    return found


def _broken(path: Path, root: Path = ROOT) -> list[str]:
    broken = []
    for said, page, section, kind in citations(path, root):
        if page is None:
            broken.append(f"{said}: no such file")
        elif section is not None and page.suffix == ".md":
            anchor = section if kind == "link" else github_anchor(section)
            if anchor not in anchors(page):
                broken.append(f"{said}: {page.relative_to(root)} has no section "
                              f"with the anchor #{anchor}")
    return broken


@pytest.mark.parametrize("path", _citing_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_cited_doc_section_exists(path):
    broken = _broken(path)
    if broken:
        pytest.fail(f"{path.relative_to(ROOT)} cites what is not there:\n" + "\n".join(broken),
                    pytrace=False)


def test_anchors_follow_githubs_rule():
    assert github_anchor("Time to strength: `make train`") == "time-to-strength-make-train"
    assert github_anchor("The shipped AI, v4: PPO after distillation") == \
        "the-shipped-ai-v4-ppo-after-distillation"
    assert github_anchor("Aluette — the game's [rules](RULES.md)") == "aluette--the-games-rules"
    assert github_anchor("How it is built (`training/rllib/`)") == "how-it-is-built-trainingrllib"


def test_a_citation_of_a_missing_section_is_caught(tmp_path):
    page = tmp_path / "PAGE.md"
    page.write_text("# Page\n\n## Speed\n\n```\n## Not a heading\n```\n\n## Speed\n",
                    encoding="utf-8")
    cfg = tmp_path / "c.yaml"
    cfg.write_text('# figures: PAGE.md, "Speed"; PAGE.md, "Not a heading"; PAGE.md, "Time\n'
                   '# to strength"; PAGE.md#speed-1, PAGE.md#nope and NOPE.md\nkey: 1\n',
                   encoding="utf-8")
    doc = tmp_path / "d.md"
    doc.write_text("[a](PAGE.md#speed-1) [b](PAGE.md#speed-2) [c](NOPE.md) [d](#nope)\n",
                   encoding="utf-8")
    assert anchors(page) == {"page", "speed", "speed-1"}
    said = [s for s, *_ in citations(cfg)]
    assert said == ['PAGE.md, "Speed"', 'PAGE.md, "Not a heading"', 'PAGE.md, "Time to strength"',
                    "PAGE.md#speed-1", "PAGE.md#nope", "NOPE.md"]
    cfg_broken, doc_broken = _broken(cfg, tmp_path), _broken(doc, tmp_path)
    assert [b.split(":")[0] for b in cfg_broken] == \
        ['PAGE.md, "Not a heading"', 'PAGE.md, "Time to strength"', "PAGE.md#nope", "NOPE.md"]
    assert [b.split(":")[0] for b in doc_broken] == \
        ["](PAGE.md#speed-2)", "](NOPE.md)", "](#nope)"]


# ------------------------------------------------------------------ the configs

#: A config file named by its path from the repository root: ``configs/history/v5.yaml``.
CONFIG_PATH = re.compile(r"(?<![\w/.-])configs/(?:[\w-]+/)*[\w-]+\.yaml")


def layout_config_rows(text: str) -> dict[str, str]:
    """docs/LAYOUT.md's rows for the config folders: folder (``configs/``,
    ``configs/history/``) -> the row's text."""
    return {m[1]: m[0] for m in re.finditer(r"^\| `(configs/(?:[\w-]+/)*)` \|.*$", text, re.M)}


def unlisted_configs(root: Path) -> list[str]:
    """The config files under ``root/configs`` that docs/LAYOUT.md does not name in
    the row of their folder, and the names a row gives that are not there."""
    rows = layout_config_rows((root / "docs" / "LAYOUT.md").read_text(encoding="utf-8"))
    files = {p.relative_to(root).as_posix() for p in (root / "configs").rglob("*.yaml")}
    wrong = [f"{path}: not in docs/LAYOUT.md's row of {path.rsplit('/', 1)[0]}/" for path in
             sorted(files) if f"`{path.rsplit('/', 1)[1]}`" not in rows.get(
                 path.rsplit("/", 1)[0] + "/", "")]
    for folder, text in rows.items():
        for name in re.findall(r"`([\w-]+\.yaml)`", text):
            if folder + name not in files:
                wrong.append(f"docs/LAYOUT.md names {folder}{name}, which is not there")
    return wrong


def test_layout_md_lists_every_config_in_its_folder():
    wrong = unlisted_configs(ROOT)
    assert not wrong, "\n".join(wrong)


def test_an_unlisted_or_moved_config_is_caught(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "configs" / "history").mkdir(parents=True)
    for name in ("configs/a.yaml", "configs/history/old.yaml", "configs/history/new.yaml"):
        (tmp_path / name).write_text("seed: 0\n")
    (tmp_path / "docs" / "LAYOUT.md").write_text(
        "| path | what |\n|---|---|\n| `configs/` | `a.yaml`, `old.yaml` |\n"
        "| `configs/history/` | `old.yaml` |\n")
    assert unlisted_configs(tmp_path) == [
        "configs/history/new.yaml: not in docs/LAYOUT.md's row of configs/history/",
        "docs/LAYOUT.md names configs/old.yaml, which is not there"]


def test_every_config_path_named_anywhere_exists():
    """A config moved (into configs/history/, say) leaves no page, comment, test or
    default naming its old path."""
    missing = sorted({f"{path.relative_to(ROOT)}: {named}" for path in _citing_files()
                      for named in CONFIG_PATH.findall(_prose(path))
                      if not (ROOT / named).is_file()})
    assert not missing, "config files named but not there:\n" + "\n".join(missing)
