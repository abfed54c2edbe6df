"""Shared steps of the dataset builders: fetch a package through its registry's own client into
bench/datasets/.cache (git-ignored), and write corpus.jsonl / questions.jsonl in the
../shared/datasets format ({"id","title","text"} and {"id","question","answer","aliases",
"gold_titles","type"})."""
import json
import subprocess
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"


def fetch_pypi(package: str, version: str) -> Path:
    """The wheel of package==version, downloaded once with pip (no dependencies)."""
    target = CACHE / "packages" / f"{package}-{version}"
    found = sorted(target.glob("*.whl")) if target.exists() else []
    if not found:
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["pip", "download", f"{package}=={version}", "--no-deps", "--only-binary", ":all:", "-q", "-d", str(target)],
            check=True,
        )
        found = sorted(target.glob("*.whl"))
    return found[0]


def fetch_npm(package: str, version: str) -> Path:
    """The tarball of package@version, downloaded once with npm pack."""
    target = CACHE / "packages" / f"{package}-{version}"
    found = sorted(target.glob("*.tgz")) if target.exists() else []
    if not found:
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "pack", f"{package}@{version}", "--silent", "--pack-destination", str(target)], check=True)
        found = sorted(target.glob("*.tgz"))
    return found[0]


def write_set(name: str, corpus: list[dict], questions: list[dict]) -> Path:
    titles = [p["title"] for p in corpus]
    assert len(set(titles)) == len(titles), "passage titles must be unique: gold is matched by title"
    known = set(titles)
    for q in questions:
        missing = [t for t in q["gold_titles"] if t not in known]
        assert not missing, f"gold passage missing from the corpus: {missing}"
    out = CACHE / name
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
        for p in corpus:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    with open(out / "questions.jsonl", "w", encoding="utf-8") as f:
        for q in questions:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")
    print(f"{out}: {len(corpus)} passages, {len(questions)} questions")
    return out
