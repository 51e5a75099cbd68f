"""Contract: a flow is configured by its parameters, however it was started.

- A daily-briefing run started as a deployment (UI) run starts it (the flow called with the run's
  JSON parameters only, `workspace`, `lang` and `rehash` among them, in an environment naming no
  PREDIGEST_WORKSPACE, PREDIGEST_LANG or PREDIGEST_REHASH) and a CLI run (`predigest run
  --workspace --date --lang --rehash`) publish the same bytes (sha256 of every published file),
  each on a fresh database; `rehash` reaches the change detection of both. Without `lang` the run
  publishes other bytes (the parameter is what made them equal).
- The CLI hands --workspace (absolute), --lang and --rehash to the flows of `run` and `backfill`
  as parameters and applies them to `explain`'s settings, and leaves os.environ as it found it.
- `resolve_workspace` applies a run's parameters to the settings (unset: the configured value),
  makes the workspace absolute, and refuses a run that names no workspace.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tasks.config.settings import Settings, resolve_workspace
from tests.generate.ten_days import DAYS, make_workspace
from tests.helpers import point_flows_at

RUN_OPTIONS = ("PREDIGEST_WORKSPACE", "PREDIGEST_LANG", "PREDIGEST_REHASH")
DAY = DAYS[4]


def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp: Path, database_url: str) -> Path:
    """Point the flows at `database_url` and storage under `tmp`, with no run option in the
    environment; returns the storage folder."""
    out = tmp / "published"
    point_flows_at(monkeypatch, Settings(_env_file=None, home=tmp / "home", database_url=database_url,  # type: ignore[call-arg]
                                         storage_url=out.as_uri()))
    for var in RUN_OPTIONS:
        monkeypatch.delenv(var, raising=False)
    return out


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _spy_on_rehash(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The `rehash` each change detection of this process is asked for, in order."""
    from tasks.stages import workspace

    asked: list[bool] = []
    real = workspace.changed_files

    def changed_files(*args: Any, rehash: bool = False, **kwargs: Any) -> Any:
        asked.append(rehash)
        return real(*args, rehash=rehash, **kwargs)

    monkeypatch.setattr(workspace, "changed_files", changed_files)
    return asked


def test_a_ui_run_and_a_cli_run_with_the_same_parameters_publish_the_same_bytes(
    prefect_harness: None, migrated_database: Callable[[str], str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    from flows.daily import daily_briefing
    from predigest import cli

    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    asked = _spy_on_rehash(monkeypatch)
    # As a deployment run stores them: JSON values, validated into the flow's types by Prefect.
    parameters = {"date": DAY.isoformat(), "workspace": str(ws), "lang": "en", "rehash": True}
    ui_out = _clean_environment(monkeypatch, tmp_path / "ui", migrated_database("pdg_ui_run"))
    ui_results = asyncio.run(daily_briefing(**parameters))  # type: ignore[arg-type]
    assert sorted(r.topic for r in ui_results) == ["inference", "rag"] and all(r.written for r in ui_results)

    cli_out = _clean_environment(monkeypatch, tmp_path / "cli", migrated_database("pdg_cli_run"))
    assert cli.main(["run", "--workspace", str(ws), "--date", DAY.isoformat(), "--lang", "en", "--rehash"]) == 0
    assert "inference 2026-10-05 published" in capsys.readouterr().out
    ui_tree = _tree(ui_out)
    assert any(path.endswith(".json") for path in ui_tree)
    assert _tree(cli_out) == ui_tree
    assert asked == [True, True]

    # The control: the same run without `lang` (the settings' zh) publishes other bytes.
    zh_out = _clean_environment(monkeypatch, tmp_path / "zh", migrated_database("pdg_zh_run"))
    asyncio.run(daily_briefing(date=DAY, workspace=str(ws)))
    assert _tree(zh_out) != ui_tree
    assert asked == [True, True, False]


def _predigest_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("PREDIGEST_")}


def test_the_cli_passes_its_options_as_parameters_and_leaves_the_environment_alone(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    import flows.backfill
    import flows.daily
    from predigest import cli, explain

    ws = tmp_path / "ws"
    make_workspace(ws)
    _clean_environment(monkeypatch, tmp_path, database_url)
    seen: dict[str, dict[str, Any]] = {}

    async def daily(**kwargs: Any) -> list[Any]:  # the flow is async: the CLI runs it with asyncio.run
        seen["run"] = kwargs
        return []

    def backfill(**kwargs: Any) -> list[Any]:
        seen["backfill"] = kwargs
        return []

    def explanations(settings: Settings, *args: Any) -> list[Any]:
        seen["explain"] = {"lang": settings.lang, "rehash": settings.rehash, "workspace": str(settings.workspace)}
        return []

    monkeypatch.setattr(flows.daily, "daily_briefing", daily)
    monkeypatch.setattr(flows.backfill, "backfill_briefings", backfill)
    monkeypatch.setattr(explain, "explanations", explanations)
    before = _predigest_environment()
    options = ["--workspace", os.path.relpath(ws, Path.cwd()), "--lang", "en", "--rehash"]
    assert cli.main(["run", "--date", DAY.isoformat(), *options]) == 0
    assert cli.main(["backfill", "--from", DAYS[0].isoformat(), "--to", DAYS[1].isoformat(), *options]) == 0
    assert cli.main(["explain", "--date", DAY.isoformat(), "--topic", "rag", *options]) == 0
    capsys.readouterr()
    assert _predigest_environment() == before
    assert not set(RUN_OPTIONS) & set(os.environ)
    absolute = str(ws.resolve())
    for command in ("run", "backfill", "explain"):
        assert {k: seen[command][k] for k in ("workspace", "lang", "rehash")} == {
            "workspace": absolute, "lang": "en", "rehash": True}, command
    # Without --rehash the flow is given none, so PREDIGEST_REHASH (unset here: false) decides.
    assert cli.main(["run", "--date", DAY.isoformat(), "--workspace", str(ws)]) == 0
    assert seen["run"]["rehash"] is None and seen["run"]["lang"] is None


def test_resolve_workspace_applies_the_parameters_of_one_run(tmp_path: Path) -> None:
    configured = Settings(_env_file=None, workspace=os.path.relpath(tmp_path / "configured", Path.cwd()),  # type: ignore[call-arg]
                          lang="zh", rehash=False)
    settings, root = resolve_workspace(None, None, None, settings=configured)
    assert (root, settings.lang, settings.rehash) == (str((tmp_path / "configured").resolve()), "zh", False)
    relative = os.path.relpath(tmp_path / "given", Path.cwd())
    settings, root = resolve_workspace(relative, "en", True, settings=configured)
    assert root == str((tmp_path / "given").resolve()) and settings.workspace == Path(root)
    assert (settings.lang, settings.rehash) == ("en", True)
    assert (configured.lang, configured.rehash) == ("zh", False)  # a derived copy: the settings stay as they were
    with pytest.raises(ValueError, match="no workspace"):
        resolve_workspace(None, "en", settings=Settings(_env_file=None, workspace=None))  # type: ignore[call-arg]


def test_today_is_the_local_date_of_the_timezone() -> None:
    from tasks.model.windows import local_date

    evening_utc = dt.datetime(2026, 10, 5, 20, 0, tzinfo=dt.UTC)  # 04:00 on the 6th in Shanghai
    assert local_date("Asia/Shanghai", evening_utc) == dt.date(2026, 10, 6)
    assert local_date("America/New_York", evening_utc) == dt.date(2026, 10, 5)
