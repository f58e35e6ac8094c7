"""The docs hold: docs/pages.md's generated part is what scripts/pages_doc.py prints, docs/predictions.md what
scripts/predictions_figure.py prints from the measured runs, every relative link in
the README and docs/ leads to a file of the repository (and to a heading, where it names one), and the
README's example is true."""

import doctest
import re
from pathlib import Path

import pytest

from scripts import pages_doc, predictions_figure

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: [text](target) and ![alt](target); a target with a scheme (https:, mailto:) leaves the repository.
LINK = re.compile(r"\]\(([^()\s]+)\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as hyphens,
    a repeated heading's numbered -1, -2, …"""
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} +(.+?) *$", markdown, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        if count:
            seen[f"{slug}-{count}"] = 1
    return set(seen)


def test_the_generated_part_of_the_page_reference_is_the_scripts_output():
    text = pages_doc.DOC.read_text(encoding="utf-8")
    start, end = text.index(pages_doc.BEGIN), text.index(pages_doc.END) + len(pages_doc.END) + 1
    assert text[start:end] == pages_doc.generated(), "run: .venv/bin/python scripts/pages_doc.py --write"


def test_the_predictions_page_reference_is_the_scripts_output_from_the_data_file():
    text = predictions_figure.DOC.read_text(encoding="utf-8")
    assert text == predictions_figure.generated(), "run: .venv/bin/python scripts/predictions_figure.py --write"


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_every_relative_link_leads_to_a_file_and_heading_of_the_repository(doc):
    text = doc.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(text):
        if EXTERNAL.match(target):
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not (file.is_file() and file.is_relative_to(ROOT)):
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            broken.append(target)
    assert not broken


def test_the_readmes_example_is_true():
    readme = DOCS[0].read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.MULTILINE | re.DOTALL)
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "README.md", str(DOCS[0]), 0)
    assert test.examples
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_the_readme_stays_short():
    """Issue 43: at most 100 lines, the page reference in docs/pages.md and the figures in docs/performance.md."""
    assert len(DOCS[0].read_text(encoding="utf-8").splitlines()) <= 100
