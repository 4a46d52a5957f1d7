"""ktune's report pages from Python: ``ktune.report(results, html=DIR)`` is ``ktune report RESULTS... --html DIR``
(docs/report.md)."""
import os

from ktune import _ktune


def report(results, html, objectives=None, top=20, title=None):
    """Writes self-contained HTML pages of tuning results (Kernel Tuner caches, T4 files, ktune CSV, results stores,
    ``ktune compare --output`` reports; a path or a list of paths) into the folder ``html``: ``index.html`` with every
    run side by side, and a page of each run when there are several. ``objectives``: names (``"GFLOP/s"``,
    ``"energy:min"``), two for a Pareto front; default each run's own, else time. Returns ``{"pages": [{"path",
    "name"}...], "items": [...]}``; a results file that cannot be read raises ``ktune.JobError`` naming it."""
    if isinstance(results, (str, bytes, os.PathLike)):
        results = [results]
    paths = [os.fspath(r) for r in results]
    if not paths:
        raise ValueError("report: no results named")
    if isinstance(objectives, str):
        objectives = [objectives]
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValueError(f"report: top must be a positive integer, not {top!r}")
    return _ktune.report(paths, os.fspath(html), list(objectives or []), top, title or "")
