"""The README and the documentation site (docs/, mkdocs): the site builds with --strict (no
broken link or anchor), its generated pages hold every command, template, node kind and
relationship type, the README stays short, every command and Python name they show exists,
every file they name is there, and they name no commit.

Run alone:  ``pytest tests/test_docs.py``
"""

from __future__ import annotations

import importlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

import lineage
from lineage import model
from lineage.query import templates
from lineage.cli import main as cli_main

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = sorted(p for p in (REPO / "docs").rglob("*.md") if "gen" not in p.relative_to(
    REPO / "docs").parts)
TEXTS = [README, *PAGES]

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def build(config: Path, site: Path, cwd: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of ``config`` into ``site``."""
    env = {**os.environ, "DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                           str(config), "-d", str(site)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    done = build(REPO / "mkdocs.yml", out, REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not re.search(r"^WARNING\s+-", done.stderr, re.M), done.stderr
    return out


def _html_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# ------------------------------------------------------------------------- the site
def test_the_site_builds_with_strict(site):
    assert (site / "index.html").is_file()
    assert (site / "guide" / "why-failed" / "index.html").is_file()


def test_the_command_reference_holds_every_command(site):
    page = _html_text(site / "reference" / "cli" / "index.html")

    def paths(command: click.Command, prefix: str):
        yield prefix
        for name, sub in getattr(command, "commands", {}).items():
            if not sub.hidden:
                yield from paths(sub, f"{prefix} {name}")

    missing = [p for p in paths(cli_main, "lineage") if f'id="{p.replace(" ", "-")}"' not in page]
    assert missing == []


def test_the_template_reference_holds_every_template_with_its_parameters(site):
    page = _html_text(site / "reference" / "templates" / "index.html")
    every = templates.all_templates()
    assert len(every) > 40
    for t in every:
        section = page[page.index(f'id="{t.name.replace("/", "-")}"'):]
        section = section[:section.find("<h3", 1)]
        assert [p.name for p in t.params if f"<code>{p.name}</code>" not in section] == [], t.name
        assert f"lineage query {t.name}" in re.sub(r"<[^>]+>", "", section), t.name


def test_the_model_page_holds_every_kind_and_relationship_type(site):
    page = _html_text(site / "model" / "index.html")
    kinds = [k for k in model.NODE_KINDS.values() if f'id="kind-{k.label.lower()}"' not in page]
    rels = [r for r in model.REL_TYPES if f'id="rel-{r.lower()}"' not in page]
    assert (kinds, rels) == ([], [])
    job = page[page.index('id="kind-job"'):]
    job = job[:job.index("<h4", 1)]
    assert "pegasus:job:&lt;xwf_id&gt;:&lt;job_id&gt;" in job
    assert all(f"<code>{p}</code>" in job for p in model.kind("Job").props
               if p not in ("uid", "kind", "name", "loads"))


def test_a_broken_link_or_anchor_fails_the_build(tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(REPO / "docs", copy / "docs")
    shutil.copy(REPO / "mkdocs.yml", copy / "mkdocs.yml")
    page = copy / "docs" / "guide" / "diff.md"
    page.write_text(page.read_text() + "\n[gone](no-such-page.md) and "
                    "[not there](why-failed.md#no-such-heading)\n")
    done = build(copy / "mkdocs.yml", tmp_path / "site", copy)
    assert done.returncode != 0
    assert "no-such-page.md" in done.stderr and "no-such-heading" in done.stderr, done.stderr


# ------------------------------------------------------------------------- the README
def test_the_readme_is_at_most_300_lines():
    assert len(README.read_text().splitlines()) <= 300


def test_the_readme_keeps_the_two_commands():
    text = README.read_text()
    assert "bash scripts/setup.sh && .venv/bin/lineage demo" in text
    assert "bash scripts/setup.sh && .venv/bin/python -m pytest" in text
    assert "bash scripts/setup.sh && .venv/bin/python -m pytest" in (REPO / ".ci" / "run").read_text()


def test_every_link_of_the_readme_reaches_a_file():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text())
    assert links
    assert [link for link in links if "://" not in link and not (REPO / link).exists()] == []


# --------------------------------------------------------- what the texts show exists
def _command_lines(text: str) -> list[str]:
    """``lineage ...`` command lines: in fenced blocks, and inline code spans."""
    lines = []
    for block in FENCE.findall(text):
        for line in block.splitlines():
            line = line.strip().removeprefix("$ ")
            for prefix in (".venv/bin/lineage ", "lineage "):
                if line.startswith(prefix):
                    lines.append("lineage " + line[len(prefix):])
    lines += [span for span in INLINE.findall(text) if span.startswith("lineage ")]
    return lines


def _placeholder(word: str) -> bool:
    """NAME, RUN_UID, PATH..., <uuid>: a word that stands for a value, not for itself."""
    if any(c in word for c in "<>*") or "..." in word:
        return True
    word = word.strip("[]")
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*(?:=[A-Z0-9_]+)?", word))


def _words(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True)
    except ValueError:
        return line.split()


def _option(command: click.Command, name: str) -> click.Parameter | None:
    for param in command.get_params(click.Context(command)):
        if name in (*param.opts, *param.secondary_opts):
            return param
    return None


def _template_names() -> set[str]:
    from lineage.query import analysis  # templates computed in Python (pegasus/critical_path)

    return {t.name for t in templates.all_templates()} | set(analysis.COMPUTED)


def command_problems(line: str) -> list[str]:
    """What in one ``lineage ...`` line does not exist: commands, options, templates,
    template parameters.

    >>> command_problems("lineage --profile laptop query ancestors -p uid=x --limit 3")
    []
    >>> command_problems("lineage querry runs")
    ["lineage querry runs: no command 'querry'"]
    """
    words = _words(line)[1:]
    command: click.Command = cli_main
    problems: list[str] = []

    def check_option(word: str) -> click.Parameter | None:
        found = None
        for alternative in word.strip("[]").split("|"):
            name = alternative.split("=")[0]
            found = _option(command, name)
            if found is None:
                problems.append(f"{line}: {command.name} has no option {name!r}")
        return found

    i = 0
    while i < len(words) and isinstance(command, click.Group):
        word = words[i].strip("[]")
        i += 1
        if word.startswith("-"):
            option = check_option(word)
            takes_value = (isinstance(option, click.Option) and not option.is_flag
                           and not option.count and "=" not in word)
            i += takes_value
            continue
        if _placeholder(word):
            return problems
        names = word.split("|")
        missing = [n for n in names if n not in command.commands]
        if missing:
            return problems + [f"{line}: no command {missing[0]!r}"]
        command = command.commands[names[0]]
    rest = words[i:]
    for word in rest:
        if word.startswith("-") and len(word) > 1 and not word[1].isdigit():
            check_option(word)
    if command.name in ("query", "show") and rest and not _placeholder(rest[0]) \
            and templates.is_template_name(rest[0]):
        name = rest[0]
        if name not in _template_names():
            problems.append(f"{line}: no template {name!r}")
        elif name in {t.name for t in templates.all_templates()}:
            params = {p.name for p in templates.get(name).params}
            given = [rest[j + 1].split("=")[0] for j, w in enumerate(rest[:-1])
                     if w in ("-p", "--param")]
            problems += [f"{line}: template {name} has no parameter {p!r}" for p in given
                         if not _placeholder(p) and p not in params]
    return problems


def test_every_command_the_readme_and_the_pages_show_exists():
    lines = [(path, line) for path in TEXTS for line in _command_lines(path.read_text())]
    assert len(lines) > 50
    problems = [f"{path.relative_to(REPO)}: {p}" for path, line in lines
                for p in command_problems(line)]
    assert problems == []


def test_a_command_that_does_not_exist_is_found():
    assert command_problems("lineage quer ancestors")
    assert command_problems("lineage load --bulky x")
    assert command_problems("lineage query pegasus/failed_job -p workflow=x")
    assert command_problems("lineage query uids_like -p kind=Job")
    assert command_problems("lineage neo4j start|halt")


def _python_names(text: str) -> list[str]:
    """``lin.method`` and ``lineage.name`` as Python code and inline spans use them."""
    spans = FENCE.findall(text) + INLINE.findall(text)
    found = []
    for span in spans:
        found += re.findall(r"(?<![\w./-])(lin\.\w+|lineage(?:\.\w+)+)(?=[\s(\[,.)`:]|$)", span)
    return found


def _exists(dotted: str) -> bool:
    if dotted.startswith("lin."):
        return hasattr(lineage.Lineage, dotted[len("lin."):])
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            thing = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(thing, attr):
                return False
            thing = getattr(thing, attr)
        return True
    return False


def test_every_python_name_the_readme_and_the_pages_show_exists():
    names = {n for path in TEXTS for n in _python_names(path.read_text())}
    assert "lin.query" in names and "lineage.connect" in names
    assert sorted(n for n in names if not _exists(n)) == []
    assert not _exists("lin.quarry") and not _exists("lineage.sources.pegasus.nonesuch")


PATH = re.compile(r"(?<![\w/.-])((?:lineage|tests|bench|cypher|scripts|docs|\.ci)/[\w./*-]*)")


def _spans(text: str) -> list[str]:
    """Inline code, link targets and fenced blocks: where a text names files."""
    return INLINE.findall(text) + re.findall(r"\]\(([^)]+)\)", text) + FENCE.findall(text)


def test_every_file_the_readme_and_the_pages_name_is_there():
    named = {(path, found.rstrip(".")) for path in TEXTS for span in _spans(path.read_text())
             for found in PATH.findall(span)}
    assert len(named) > 20

    def there(path: Path, name: str) -> bool:
        if name.startswith("bench/out/"):  # what the benchmarks write
            return True
        return any(base.glob(name) if "*" in name else (base / name).exists()
                   for base in (REPO, path.parent))

    assert [f"{p.relative_to(REPO)}: {n}" for p, n in sorted(named) if not there(p, n)] == []


# ------------------------------------------------------------------ true now, no diary
HISTORY = re.compile(r"sessions? (?:later|before)|\bissue \d+|\bthen and now\b", re.I)


def test_the_texts_keep_no_diary():
    found = [f"{p.relative_to(REPO)}: {m.group(0)}" for p in TEXTS
             for m in HISTORY.finditer(p.read_text())]
    assert found == []


def commits_named(texts: list[str]) -> list[str]:
    """The hex words of ``texts`` that name a commit of this repository."""
    words = {w for text in texts for w in re.findall(r"(?<![\w:-])[0-9a-f]{7,40}(?![\w-])", text)}
    if not words:
        return []
    answer = subprocess.run(["git", "cat-file", "--batch-check"],
                            input="\n".join(sorted(words)) + "\n", cwd=REPO,
                            capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in answer.splitlines() if line.split()[1:2] == ["commit"]]


def test_the_texts_name_no_commit():
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: commits cannot be told from other hex strings")
    head = subprocess.run(["git", "rev-parse", "--short=7", "HEAD"], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout.strip()
    assert commits_named([f"measured against {head} in a worktree"]) != []
    assert commits_named([p.read_text() for p in TEXTS]) == []
