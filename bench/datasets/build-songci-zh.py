"""Builds bench/datasets/.cache/songci-zh: a Chinese two-hop set over 6,000 distinct passages from
the npm package chinese-poetry (全宋词: 21,053 ci and the biographies of their authors; MIT).

Questions are generated, not crowd-written (no Chinese QA set with gold passages ships inside a
PyPI or npm package; see bench/datasets/README.md):
- bridge: 写下“<一句词>”的词人字什么？ The line is found only in one ci (across all 21,053); that
  passage names its author, whose biography passage gives the courtesy name (字). Gold: the ci
  and the biography. The question never names the author.
- comparison: “<句A>”与“<句B>”出自同一位词人之手吗？ Gold: both ci.
Distractors: the other biographies and ci sampled at random (fixed seed) to 6,000 passages.
Run: python3 bench/datasets/build-songci-zh.py
"""
import json
import random
import re
import tarfile
from collections import Counter

from build_common import fetch_npm, write_set

PACKAGE, VERSION = "chinese-poetry", "2.0.1"
PASSAGES, BRIDGE, COMPARISON = 6000, 150, 40
COURTESY_NAME = re.compile(r"字([^\s，。、；：（）()]{1,4})[，。；]")
CLAUSE = re.compile(r"[，。？！、；：\s]+")


def main() -> None:
    authors, cis = read_package()
    rng = random.Random(15)
    bios = {a["name"]: clean_bio(a["description"]) for a in authors if len(a.get("description", "")) >= 40}
    ci_passages = titled_ci(cis)
    clause_count = Counter(c for p in ci_passages for c in set(clauses(p["body"])))
    by_author: dict[str, list[dict]] = {}
    for p in ci_passages:
        by_author.setdefault(p["author"], []).append(p)

    questions, gold = [], set()
    for name in rng.sample(sorted(bios), len(bios)):
        m = COURTESY_NAME.search(bios[name])
        cue = m and cue_line(by_author.get(name, []), name, clause_count, rng)
        if not cue or len(questions) >= BRIDGE:
            continue
        line, p = cue
        gold.update([p["title"], name])
        questions.append(question(len(questions), f"写下“{line}”的词人字什么？", m.group(1), [p["title"], name], "bridge"))
    while len(questions) < BRIDGE + COMPARISON:
        a, b = rng.sample(ci_passages, 2)
        same = rng.random() < 0.5
        if same:
            b = rng.choice(by_author[a["author"]])
        la, lb = (unique_clause(p, clause_count, rng) for p in (a, b))
        if a is b or not la or not lb or a["title"] in gold or b["title"] in gold:
            continue
        gold.update([a["title"], b["title"]])
        answer = "是" if a["author"] == b["author"] else "否"
        questions.append(question(len(questions), f"“{la}”与“{lb}”出自同一位词人之手吗？", answer, [a["title"], b["title"]], "comparison"))

    corpus = [{"title": name, "text": text} for name, text in bios.items()]
    corpus += [{"title": p["title"], "text": p["text"]} for p in ci_passages if p["title"] in gold]
    others = [p for p in ci_passages if p["title"] not in gold]
    corpus += [{"title": p["title"], "text": p["text"]} for p in rng.sample(others, PASSAGES - len(corpus))]
    rng.shuffle(corpus)
    write_set("songci-zh", [{"id": f"s{i}", **p} for i, p in enumerate(corpus)], questions)


def read_package() -> tuple[list[dict], list[dict]]:
    authors, cis = [], []
    with tarfile.open(fetch_npm(PACKAGE, VERSION)) as tar:
        for member in tar.getmembers():
            name = member.name
            if name == "package/dist/songci/author.song.json":
                authors = json.load(tar.extractfile(member))
            elif re.fullmatch(r"package/dist/songci/ci\.song\.\d+\.json", name):
                cis += json.load(tar.extractfile(member))
    return authors, cis


def clean_bio(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("--", " ")).strip()


def titled_ci(cis: list[dict]) -> list[dict]:
    """Each ci as a passage titled 词牌（首句）, kept once per title (titles identify gold passages)."""
    out, seen = [], set()
    for c in cis:
        body = "".join(c["paragraphs"])
        first = next((x for x in clauses(body) if x), "")
        title = f"{c['rhythmic']}（{first}）"
        if not first or "□" in body or title in seen:
            continue
        seen.add(title)
        out.append({"title": title, "author": c["author"], "body": body, "text": f"《{c['rhythmic']}》，作者{c['author']}。{body}"})
    return out


def clauses(body: str) -> list[str]:
    return [c for c in CLAUSE.split(body) if c]


def unique_clause(p: dict, counts: Counter, rng: random.Random) -> str | None:
    candidates = [c for c in clauses(p["body"]) if 5 <= len(c) <= 8 and counts[c] == 1 and p["author"] not in c]
    return rng.choice(candidates) if candidates else None


def cue_line(passages: list[dict], author: str, counts: Counter, rng: random.Random) -> tuple[str, dict] | None:
    for p in rng.sample(passages, len(passages)):
        line = unique_clause(p, counts, rng)
        if line:
            return line, p
    return None


def question(i: int, text: str, answer: str, gold: list[str], kind: str) -> dict:
    return {"id": f"{kind}-{i}", "question": text, "answer": answer, "aliases": [], "gold_titles": gold, "type": kind}


if __name__ == "__main__":
    main()
