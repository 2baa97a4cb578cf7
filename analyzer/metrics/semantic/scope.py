"""What a negation negates: the words in its scope, so two negated answers can still disagree.

The polarity guard (`semantic/guards`) tells "refundable" from "not refundable", but not two answers
that both hold a negation: "you shouldn't sit close to the TV because it can permanently damage your
eyes" and "sitting close to the TV won't permanently damage your eyes" are both negated, and a
sentence embedding puts them close. Here each answer's words are split into those a negation word
governs (up to `_SCOPE_WORDS` content words after it, within its clause) and those it affirms; two
answers conflict when the one negates a phrase the other affirms.

A phrase is the first two content words of a scope ("permanently damage"), or its one word when it
has only one ("not refundable"), and it must appear in the other answer's affirmed words in that
order: a word merely shared ("no rigorous studies show ..." / "in studies people could not ...") is
not a denial. Chinese has no spaces, so there a character is a word and the scope is two characters.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["affirmed_words", "affirms_any", "negated_phrases", "scope_conflict"]

_SCOPE_WORDS = 3
_ZH_SCOPE = 2
_TOKEN = re.compile(r"[\u4e00-\u9fff]|[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|[,.;:!?，。；：！？]")
# fmt: off
_NEGATORS = frozenset([
    "not", "no", "never", "none", "nor", "cannot", "cant", "without", "unable", "isnt", "arent", "wasnt",
    "werent", "dont", "doesnt", "didnt", "wont", "wouldnt", "shouldnt", "couldnt", "hasnt", "havent",
    "hadnt", "nothing", "nobody", "non",
])
_ZH_NEGATORS = frozenset("不没未无非别勿否")
_CLAUSE_ENDS = frozenset([
    ",", ".", ";", ":", "!", "?", "，", "。", "；", "：", "！", "？", "but", "because", "and", "or",
    "instead", "however", "although", "though", "so", "while", "if", "when", "但", "而", "因", "却",
])
_WEAK = frozenset([
    "the", "a", "an", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "will",
    "would", "it", "its", "this", "that", "of", "to", "in", "on", "at", "for", "by", "with", "from", "as",
    "i", "you", "your", "we", "our", "they", "their", "he", "she", "his", "her", "can", "could", "should",
    "may", "might", "must", "do", "does", "did", "any", "all", "really", "actually", "even", "yet",
    "still", "only", "very", "just", "necessarily", "always", "ever", "instead", "rather", "更", "的",
    "了", "会", "能", "是",
    "要", "可", "也", "都",
])
# fmt: on


@lru_cache(maxsize=65536)
def _split(text: str) -> tuple[frozenset[tuple[str, ...]], tuple[str, ...]]:
    """(negated phrases, affirmed content words in order) of one normalized answer."""
    tokens = _TOKEN.findall(text.casefold().replace("’", "'"))
    phrases: set[tuple[str, ...]] = set()
    affirmed: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if _is_negator(tok):
            limit = _ZH_SCOPE if tok in _ZH_NEGATORS else _SCOPE_WORDS
            scope: list[str] = []
            i += 1
            while i < len(tokens) and tokens[i] not in _CLAUSE_ENDS and len(scope) < limit:
                if tokens[i] not in _WEAK and not _is_negator(tokens[i]):
                    scope.append(tokens[i])
                i += 1
            if scope:
                phrases.add(tuple(scope[:2]))
            continue
        if tok not in _WEAK and tok not in _CLAUSE_ENDS:
            affirmed.append(tok)
        i += 1
    return frozenset(phrases), tuple(affirmed)


def _is_negator(token: str) -> bool:
    return token.replace("'", "") in _NEGATORS or token.endswith("n't") or token in _ZH_NEGATORS


def negated_phrases(text: str) -> frozenset[tuple[str, ...]]:
    """The phrases an answer's negations govern: ("refundable",) for "the ticket is not refundable"."""
    return _split(text)[0]


def affirmed_words(text: str) -> tuple[str, ...]:
    """The content words an answer affirms (outside every negation's scope), in order."""
    return _split(text)[1]


def affirms_any(words: tuple[str, ...], phrases: frozenset[tuple[str, ...]]) -> bool:
    """Some phrase (of one or two words) occurs in `words`: one pass over the words' pairs, so a long
    answer with many negations is linear, not phrases x words."""
    if not phrases:
        return False
    if any((w,) in phrases for w in words):
        return True
    return any(pair in phrases for pair in zip(words, words[1:], strict=False))


def scope_conflict(a: str, b: str) -> bool:
    """True when one answer negates a phrase the other affirms ("won't permanently damage your eyes"
    against "it can permanently damage your eyes")."""
    neg_a, aff_a = _split(a)
    neg_b, aff_b = _split(b)
    return affirms_any(aff_b, neg_a) or affirms_any(aff_a, neg_b)
