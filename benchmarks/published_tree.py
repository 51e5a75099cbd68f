"""The published tree of a set of workspaces, hashed: to show that a change leaves every byte a user
sees as it was.

    python -m benchmarks.published_tree generate DIR        # the sample and generated workspaces, kept
    python -m benchmarks.published_tree hash DIR OUT.sha256 # backfill each into a fresh database, hash
    diff BEFORE.sha256 AFTER.sha256                         # empty: the same bytes

`generate` writes the workspaces once, with a `manifest.json` naming each one's dates and
languages, so that the same inputs serve before and after a change (even one that changes a
generator). `hash` runs `predigest backfill` (a whole process, as a user runs it) per workspace and
language into its own fresh database (PREDIGEST_BENCH_DATABASE_URL names the server, else an
embedded PostgreSQL) and its own folder store, and writes one `sha256  path` line per published
object, sorted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.harness import Databases, fresh_database

REPO = Path(__file__).resolve().parents[1]


def generate(root: Path) -> dict[str, dict[str, object]]:
    """Write the workspaces under `root` and their manifest; returns the manifest."""
    from tests.generate import large
    from tests.generate import shared_papers as shared
    from tests.generate.ten_days import make_workspace as ten_days

    root.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, dict[str, object]] = {}
    shutil.copytree(REPO / "examples" / "workspace", root / "sample", copy_function=shutil.copy2)
    manifest["sample"] = {"from": "2026-10-06", "to": "2026-10-09", "langs": ["zh", "en"]}
    for n, spec in enumerate(shared.specs(6)):
        shared.make_workspace(root / f"shared{n}", spec)
        manifest[f"shared{n}"] = {"from": "2026-10-04", "to": "2026-10-05", "langs": ["zh"]}
    large.generate(root / "bench", notes=300, seed=3, days=12, anchors=200)
    manifest["bench"] = {"from": "2026-10-05", "to": "2026-10-09", "langs": ["zh"]}
    ten_days(root / "orch")
    manifest["orch"] = {"from": "2026-10-01", "to": "2026-10-10", "langs": ["zh", "en"]}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def _backfill(workspace: Path, first: str, last: str, lang: str, url: str, store: Path, home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREDIGEST_")}
    env.update(PREDIGEST_DATABASE_URL=url, PREDIGEST_STORAGE_URL=f"file://{store}", PREDIGEST_HOME=str(home))
    done = subprocess.run(  # noqa: S603 - our own console script
        [sys.executable, "-m", "predigest.cli", "backfill", "--workspace", str(workspace), "--from", first,
         "--to", last, "--lang", lang], env=env, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"backfill of {workspace} ({lang}) failed:\n{done.stdout}\n{done.stderr}")


def _down(home: Path) -> None:
    """Stop what the backfills kept running under `home` (the local Prefect API): `predigest down`,
    as a user would, before the scratch folder holding it is removed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREDIGEST_")}
    env.update(PREDIGEST_HOME=str(home))
    subprocess.run([sys.executable, "-m", "predigest.cli", "down"], env=env, cwd=REPO,  # noqa: S603 - our own CLI
                   capture_output=True, text=True, check=False)


def hash_tree(root: Path) -> list[str]:
    """Backfill every workspace of `root`'s manifest; `sha256  name-lang/key` lines, sorted."""
    manifest = json.loads((root / "manifest.json").read_text())
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="predigest-tree-") as scratch:
        dbs = Databases()
        try:
            for name, run in sorted(manifest.items()):
                for lang in run["langs"]:
                    store = Path(scratch) / f"{name}-{lang}"
                    with fresh_database(dbs, "tree") as url:
                        _backfill(root / name, run["from"], run["to"], lang, url, store, Path(scratch) / "home")
                    for path in sorted(p for p in store.rglob("*") if p.is_file()):
                        digest = hashlib.sha256(path.read_bytes()).hexdigest()
                        lines.append(f"{digest}  {name}-{lang}/{path.relative_to(store)}")
        finally:
            _down(Path(scratch) / "home")
            dbs.close()
    return sorted(lines, key=lambda line: line.split("  ", 1)[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.published_tree", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    verbs.add_parser("generate").add_argument("dir", type=Path)
    hashing = verbs.add_parser("hash")
    hashing.add_argument("dir", type=Path)
    hashing.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.verb == "generate":
        if args.dir.exists() and any(args.dir.iterdir()):
            parser.error(f"{args.dir} is not empty")
        print(f"{len(generate(args.dir))} workspaces in {args.dir}")
    else:
        lines = hash_tree(args.dir)
        args.out.write_text("".join(line + "\n" for line in lines))
        print(f"{len(lines)} published objects hashed into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
