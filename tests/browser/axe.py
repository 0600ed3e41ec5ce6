"""axe-core, the accessibility checker, vendored from the npm registry at test time.

``npm pack axe-core@VERSION`` fetches the package once into ``build/axe-core/`` (git-ignored);
the script is checked against its pinned sha256 and injected into the page by the test, so no
page ever fetches it. Without npm or the registry the tests that need it are skipped with the
reason.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import pytest
from helpers import PATIENCE_S

ROOT = Path(__file__).resolve().parents[2]
VERSION = "4.14.1"
SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"  # package/axe.min.js
FOLDER = ROOT / "build" / "axe-core" / VERSION
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
RUN_JS = """([context, kind, values]) => axe.run(context || document,
    {runOnly: {type: kind, values: values}, resultTypes: ['violations']})
  .then(r => r.violations.map(v => ({id: v.id, help: v.help,
      nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)})))"""


def _sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def axe_script():
    """The text of ``axe.min.js`` (fetched with npm on first use); skips the test if npm or the
    registry is not available."""
    script = FOLDER / "axe.min.js"
    if not script.is_file() or _sha256(script) != SHA256:
        _fetch(script)
    return script.read_text(encoding="utf-8")


def _fetch(script):
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"accessibility tests skipped: npm not found (they vendor axe-core {VERSION} "
                    "from the npm registry; install Node.js and npm)")
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([npm, "pack", f"axe-core@{VERSION}", "--pack-destination", tmp],
                              capture_output=True, text=True, timeout=PATIENCE_S, cwd=tmp)
        packed = sorted(Path(tmp).glob("axe-core-*.tgz"))
        if done.returncode or not packed:
            pytest.skip(f"accessibility tests skipped: `npm pack axe-core@{VERSION}` failed "
                        f"(registry unreachable?): {done.stderr.strip()[-300:]}")
        with tarfile.open(packed[0]) as archive:
            member = archive.getmember("package/axe.min.js")
            data = archive.extractfile(member).read()
    if hashlib.sha256(data).hexdigest() != SHA256:
        raise AssertionError(f"axe-core {VERSION} from the registry is not the pinned file "
                             f"(sha256 {hashlib.sha256(data).hexdigest()} != {SHA256})")
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_bytes(data)


def violations(page, script, context=None, tags=WCAG_21_AA, *, rules=None):
    """axe's violations of ``tags`` (or, when given, of the rules named ``rules`` only: axe
    matches rule ids only as rules, never as tags) on ``page`` (or inside the element
    ``context``)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=script)
    if rules is not None:
        return page.evaluate(RUN_JS, [context, "rule", list(rules)])
    return page.evaluate(RUN_JS, [context, "tag", list(tags)])
