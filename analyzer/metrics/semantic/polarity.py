"""Sentence-level polarity: which kinds of denial an answer holds, so that an assertion and a denial
are never joined.

An answer's polarity is the set of denial kinds it holds, read from its words in English and Chinese:

- **deny**: a negation (`not`, `no`, `never`, `none`, `neither` / `nor`, `cannot`, `n't`, `without`,
  `unable`, `no longer`, `non-`, `un-`), a refusal or failure (`refuse(d) to`, `fail(ed) to`), a
  negative status said without a negation word (`closed`, `failed`, `rejected`, `illegal`, `失败`,
  `缺货`: `semantic/antonyms`), a near-negation (`hardly`, `barely`, `rarely`, `seldom`), an
  exception (`except`, `excluding`, `other than`, `apart from`), and in Chinese
  `不 没 没有 无 無 非 未 别 勿 否`, `拒绝`, `除了`;
- **partial**: a negated quantifier (`not always`, `not all`, `not every`, `not necessarily`,
  `不一定`, `未必`, `不都`, `不总是`, `并非所有`): "not always punctual" says neither "punctual" nor
  "never punctual";
- **ask**: a Chinese A-not-A question (`是不是`, `能不能`, `有没有`, `可不可以`) or a sentence-final
  `不？` / `没有？`, and a `吗` question that holds a negation ("这不是免费的吗" asks, it does not deny).

Two answers must hold the same set. A word one answer has with a negating prefix (`un in im il ir
dis non`) whose stem the other has (`refundable` / `nonrefundable`, `eligible` / `ineligible`) is a
denial of that pair's answer, so "not eligible" and "ineligible" agree and "eligible" and
"ineligible" do not. A few words that hold a negation character or word but deny nothing do not
count (`不客气`, `不错`, `非常`, `未来`, the nouns `无人机` drone, `无线` wireless, `非洲` Africa,
`no problem`, `not only`).

The one exception: a denying answer that also states the other answer whole in a clause of its own
holding no denial ("It was not signed on July 4; it was signed on August 2" / "signed on August 2"),
when the other answer holds no denial and affirms nothing the first denies. Then that clause is
compared with the other answer instead (its facts, numbers and dates, must agree).
"""

from __future__ import annotations

import re
from functools import lru_cache

from analyzer.metrics.semantic.antonyms import NEGATIVE_STATUS
from analyzer.metrics.semantic.scope import affirmed_words, affirms_any, negated_phrases

__all__ = ["pair_polarity", "polarity", "restated_clause"]

# fmt: off
_DENY_WORDS = frozenset([
    "not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor", "cannot", "cant",
    "without", "unable", "isnt", "arent", "wasnt", "werent", "dont", "doesnt", "didnt", "wont", "wouldnt",
    "shouldnt", "couldnt", "hasnt", "havent", "hadnt", "aint", "mustnt", "neednt", "hardly", "barely",
    "rarely", "seldom", "scarcely", "except", "excluding", "nope", "lacks", "lacking",
])
# fmt: on
_DENY_PHRASES = re.compile(
    r"\b(?:refus(?:e|es|ed|ing)\s+to|fail(?:s|ed|ing)?\s+to|other\s+than|apart\s+from|no\s+longer)\b"
    r"|\bnon[-\s]|\bun-"
)
_PARTIAL = re.compile(
    r"\bnot\s+(?:always|all|every|everyone|everything|necessarily|entirely|completely|fully|quite|"
    r"usually|most|many|much|both)\b|\bnever\s+all\b"
    r"|不一定|未必|不都|都不是所有|不总是|不全|不完全|并非所有|并不是所有|不是所有|不是每|不是都"
)
_NOT_DENIALS = re.compile(
    r"\bnot\s+only\b|\bno\s+problem\b|\bno\s+worries\b|\bno\s+doubt\b|\bnothing\s+else\b"
    r"|不客气|不用谢|不错|不仅|不但|不过|不好意思|没关系|无论|非常|未读|未接|未来"
    r"|无人机|无人驾驶|无线|非洲|不丹|否则|不断|不久|不少"
)
_ZH_DENY = re.compile(r"[不没無无未非别勿否]|拒绝|除了")
_ZH_A_NOT_A = re.compile(r"([\u4e00-\u9fff])[不没]\1|[不没]有?[?？]|可不可以")
_SENTENCE_END = re.compile(r"[。！？!?.]")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_PREFIXES = ("non-", "non", "dis", "un", "in", "im", "il", "ir")
_CLAUSE_WITH_END = re.compile(
    r"((?:(?!\bbut\b|\binstead\b|\brather\b|但是|而是|但)[^.;:!?。；：！？\n])*)"
    r"([.;:!?。；：！？\n]|\bbut\b|\binstead\b|\brather\b|但是|而是|但|$)"
)


@lru_cache(maxsize=65536)
def polarity(text: str) -> frozenset[str]:
    """The denial kinds (`deny`, `partial`, `ask`) a normalized answer holds; empty when it asserts."""
    text = text.casefold().replace("’", "'")
    kinds: set[str] = set()
    if any(_ZH_DENY.search(q) for q in _zh_questions(_NOT_DENIALS.sub(" ", text))):
        kinds.add("ask")
    if _ZH_A_NOT_A.search(text):
        kinds.add("ask")
        text = _ZH_A_NOT_A.sub(" ", text)
    text = _NOT_DENIALS.sub(" ", text)
    if _PARTIAL.search(text):
        kinds.add("partial")
        text = _PARTIAL.sub(" ", text)
    words = _WORD.findall(text)
    if (
        any(w.replace("'", "") in _DENY_WORDS or w.endswith("n't") for w in words)
        or _DENY_PHRASES.search(text)
        or _ZH_DENY.search(text)
        or NEGATIVE_STATUS.search(text)
    ):
        kinds.add("deny")
    return frozenset(kinds)


def _zh_questions(text: str) -> list[str]:
    """Each sentence's text up to its last `吗`: the `吗` questions, found in one pass (a pattern that
    looks for `吗` from every character is quadratic in a long answer with no sentence end)."""
    questions = []
    for sentence in _SENTENCE_END.split(text):
        end = sentence.rfind("吗")
        if end >= 0:
            questions.append(sentence[: end + 1])
    return questions


@lru_cache(maxsize=65536)
def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.casefold()))


def _prefixed(a: str, b: str) -> bool:
    """`a` has a word that is a word of `b` with a negating prefix (`nonrefundable` / `refundable`)."""
    wa, wb = _words(a), _words(b)
    return any(
        w.startswith(p) and len(w) - len(p) >= 5 and w[len(p) :] in wb
        for w in wa - wb
        if len(w) >= 7
        for p in _PREFIXES
    )


def pair_polarity(a: str, b: str) -> tuple[frozenset[str], frozenset[str]]:
    """Each answer's polarity as read beside the other (a prefix-negated word counts as `deny`)."""
    pa, pb = polarity(a), polarity(b)
    if _prefixed(a, b):
        pa = pa | {"deny"}
    if _prefixed(b, a):
        pb = pb | {"deny"}
    return pa, pb


def restated_clause(negated: str, plain: str) -> str | None:
    """The clause of `negated` that holds no denial and states every content word of `plain`, when
    `plain` holds no denial and affirms nothing `negated` denies; else None.

    The restating clause must be a statement (not a question: "Is it refundable? No." restates
    nothing), and every other clause that holds a denial must deny something named, a plain
    `deny` with a scope of its own ("not signed on July 4"), so "It is refundable. Actually, it
    isn't." is no exception."""
    plain_words = set(affirmed_words(plain))
    if polarity(plain) or len(plain_words) < 2:
        return None
    affirmed_plain = affirmed_words(plain)
    if affirms_any(affirmed_plain, negated_phrases(negated)):
        return None
    restating = None
    for m in _CLAUSE_WITH_END.finditer(negated):
        clause, end = m[1].strip(), m[2]
        if not clause:
            continue
        kinds = polarity(clause)
        if kinds:
            if kinds != {"deny"} or not negated_phrases(clause):
                return None
            continue
        question = end in ("?", "？") or "吗" in clause
        restates = plain_words <= set(affirmed_words(clause))
        if restating is None and restates and not question and not _prefixed(clause, plain):
            restating = clause
    return restating
