"""Issue 21: a serving session never answers from a load of fact files that have since changed on disk
(deleted, then written back by a rescan that leaves the manifest as it was)."""

from __future__ import annotations

from rofl.servers.session import Session

from rofl.loading.kernel import CODE_BUDGET


def _files(session: Session) -> int:
    lease = session.lease((), CODE_BUDGET)
    try:
        return len(lease.kernel.rows("src_file", "code"))
    finally:
        session.release(lease)


def test_fact_files_written_back_are_loaded_again(tmp_path):
    from click.testing import CliRunner
    from rofl.scanner.api import scan

    from rofl.cli import main

    src, facts = tmp_path / "src", tmp_path / "facts"
    src.mkdir()
    (src / "a.ts").write_text('import { x } from "./b";\nexport const y = x;\n')
    (src / "b.ts").write_text("export const x = 2;\n")
    assert CliRunner().invoke(main, ["scan", str(src), "--out", str(facts)]).exit_code == 0
    session = Session(facts, src)
    assert _files(session) == 2
    for path in (facts / "code").glob("*.rofl"):
        path.unlink()
    assert _files(session) == 0  # the deletion is seen
    scan(str(src), str(facts))  # the rescan writes them back
    assert len(list((facts / "code").glob("*.rofl"))) == 2
    assert _files(session) == 2  # and so is their return
