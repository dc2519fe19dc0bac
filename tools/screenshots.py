"""Regenerate the report screenshots in docs/screenshots/ (headless Chromium).

    python tools/screenshots.py [--matrix-json reports/matrix/matrix.json] [--out docs/screenshots]

Runs, from this checkout, the real commands a user runs and photographs what they wrote:

* ``run-passing.png``: ``agent-tck run`` against the built-in reference (the whole suite);
* ``run-failing.png``: ``agent-tck run --family block-omission`` against the fake adapter that
  flattens reasoning into text (tests/fakes/flattening.py);
* ``run-failing-case.png``: the same adapter on ``--rule BO-001``, with the first failing case
  and the rule's row opened, as a click would open them: the highlighted difference and the
  rule's text;
* ``matrix.png`` (its first cell opened): ``agent-tck matrix --offline`` for the Python
  ``anthropic`` and ``openai`` clients (installed with the test extras; about two minutes), or
  the page rendered from a matrix.json you give with ``--matrix-json`` (its ``cells/`` folder
  beside it);
* ``audit.png``: the audit report (``agent-tck audit``, behind the matrix) of the first cell
  with a finding.

Needs ``chromium`` (Debian: ``apt-get install chromium``). Chromium runs with a new profile in a
temporary folder, no network services, no sandbox (it runs as root in CI containers).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLATTENING = ROOT / "tests" / "fakes" / "flattening.py"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--force-device-scale-factor=1")


def find_chromium() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def chromium(browser: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium once with a fresh profile (a bound, not a timing assumption)."""
    with tempfile.TemporaryDirectory(prefix="agent-tck-chromium-") as profile:
        return subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout, check=False)


def screenshot(browser: str, page: Path, png: Path, size: str) -> Path:
    proc = chromium(browser, f"--window-size={size}", f"--screenshot={png}", page.as_uri())
    if not png.is_file() or png.stat().st_size == 0:
        raise SystemExit(f"chromium wrote no screenshot of {page}: {proc.stderr[-2000:]}")
    return png


def agent_tck(*args: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "agent_tck", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):  # 1: the failing run fails, as it should
        raise SystemExit(f"agent-tck {' '.join(args)} exited {proc.returncode}:\n"
                         f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")


def opened(html: str, rule: str) -> str:
    """The page as it is after a click on the first failing case and on ``rule``'s row."""
    html = html.replace('<details class="case" id="case-0">',
                        '<details class="case" id="case-0" open>', 1)
    row = html.index(f'<tr id="rule-{rule}"')
    at = html.index("<details>", row)
    return html[:at] + "<details open>" + html[at + len("<details>"):]


def only(html: str, start: str, end: str) -> str:
    """The page with the sections between ``start`` and ``end`` left out (the part a reader
    scrolls past), so one screenshot shows the header and the part that matters."""
    a, b = html.index(start), html.index(end)
    return html[:a] + html[b:]


def run_reports(work: Path) -> dict[str, Path]:
    impl = f"{sys.executable} {FLATTENING.relative_to(ROOT)}"  # run from the checkout
    agent_tck("run", "--report-dir", str(work / "passing"))
    agent_tck("run", "--impl", impl, "--family", "block-omission",
              "--report-dir", str(work / "failing"))
    agent_tck("run", "--impl", impl, "--rule", "BO-001", "--report-dir", str(work / "case"))
    case = work / "case" / "report.html"
    text = opened(case.read_text(encoding="utf-8"), "BO-001")
    text = only(text, "<dl class=\"facts\">", "<h2>Rules</h2>")
    focused = work / "case" / "opened.html"
    focused.write_text(text, encoding="utf-8")
    return {"run-passing.png": work / "passing" / "report.html",
            "run-failing.png": work / "failing" / "report.html",
            "run-failing-case.png": focused}


def matrix_pages(work: Path, matrix_json: Path | None) -> dict[str, Path]:
    """matrix.html and the audit report of the first cell with a finding (re-rendered from its
    results.jsonl, so it is in this checkout's look)."""
    if matrix_json is None:
        agent_tck("matrix", "--offline", "--clients", "py-anthropic", "py-openai",
                  "--report-dir", str(work / "matrix"))
        matrix_json = work / "matrix" / "matrix.json"
    sys.path.insert(0, str(ROOT / "src"))
    from agent_tck.harness.reports import matrix_html

    doc = json.loads(matrix_json.read_text(encoding="utf-8"))
    pages = {"matrix.png": work / "matrix.html"}
    # the first cell opened, as a click opens it
    page = matrix_html.render(doc).replace('<td class="cell"><details>',
                                           '<td class="cell"><details open>', 1)
    pages["matrix.png"].write_text(page, encoding="utf-8")
    reports = [f["report"] for c in doc["columns"] for cell in c["cells"]
               for f in cell.get("findings", ())]
    results = matrix_json.parent / reports[0] / "results.jsonl" if reports else None
    if results is not None and results.is_file():
        proc = subprocess.run([sys.executable, "-m", "agent_tck", "report", str(results),
                               "--format", "html"], cwd=ROOT, capture_output=True, text=True,
                              check=True)
        pages["audit.png"] = work / "audit.html"
        pages["audit.png"].write_text(proc.stdout, encoding="utf-8")
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--matrix-json", type=Path, help="render this matrix.json instead of "
                                                         "running the matrix")
    args = parser.parse_args(argv)
    browser = find_chromium()
    if browser is None:
        raise SystemExit("no chromium on the PATH (Debian: apt-get install chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agent-tck-screenshots-") as tmp:
        work = Path(tmp)
        pages = run_reports(work)
        pages.update(matrix_pages(work, args.matrix_json))
        sizes = {"run-failing-case.png": "1400,2300", "matrix.png": "1400,1300",
                 "audit.png": "1400,1300"}
        for name, page in pages.items():
            png = screenshot(browser, page, args.out / name, sizes.get(name, "1400,1200"))
            print(f"{png.relative_to(ROOT) if png.is_relative_to(ROOT) else png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
