"""`make test` runs the browser tests from the modules named ``test_*_browser.py`` alone (collecting the
whole tree again costs about 15 s), so a test that drives the browser must live in such a module."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
USES_BROWSER = re.compile(r"^from tests\.browser import|^import tests\.browser|mark\.browser", re.MULTILINE)


def browser_modules_elsewhere(root: Path) -> list[str]:
    """Test modules under ``root`` that use the browser harness or mark but are not named ``test_*_browser.py``."""
    return sorted(
        str(path.relative_to(root))
        for path in root.rglob("test_*.py")
        if not path.name.endswith("_browser.py") and USES_BROWSER.search(path.read_text(encoding="utf-8"))
    )


def test_every_browser_test_lives_in_a_module_make_test_runs_as_one():
    assert browser_modules_elsewhere(TESTS) == []


def test_the_check_sees_a_browser_test_in_another_module(tmp_path):
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "test_report_page.py").write_text("from tests.browser import MARKS\n")
    (tmp_path / "cli" / "test_report_browser.py").write_text("from tests.browser import MARKS\n")
    assert browser_modules_elsewhere(tmp_path) == ["cli/test_report_page.py"]
