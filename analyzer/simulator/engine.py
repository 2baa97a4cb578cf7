"""The simulator's model: answer distributions derived from prompts, and how backends sample them.

Pure functions over explicit random generators, so a seed fixes every reply. A task has candidate
answers with logits; each backend perturbs the logits in its own stable way (so backends disagree
on ambiguous tasks); temperature 0 takes the backend's favourite, except for tasks with inherent
model noise (`flake`); higher temperature samples from a wider softmax.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from dataclasses import dataclass

from analyzer.simulator.scenario import Backend, Scenario

WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}|\$?\d[\d,.:/-]*")
TOKEN = re.compile(r"\w+|[^\w\s]")
STOPWORDS = frozenset(
    [
        "what",
        "which",
        "when",
        "where",
        "that",
        "this",
        "with",
        "from",
        "your",
        "have",
        "will",
        "into",
        "then",
        "than",
        "them",
        "they",
        "their",
        "there",
        "about",
        "after",
        "before",
        "please",
        "reply",
        "answer",
        "only",
        "final",
        "task",
        "open",
        "find",
        "tell",
        "give",
        "show",
        "make",
        "send",
    ]
)


def stable_int(*parts: object) -> int:
    """A 64-bit integer hash of the parts that is the same in every process (unlike `hash`)."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def count_tokens(text: str) -> int:
    """Usage as the simulator bills it: words and punctuation marks, at least 1."""
    return max(1, len(TOKEN.findall(text)))


@dataclass(frozen=True)
class TaskDist:
    """Candidate answers for one prompt, their base logits and the task's inherent noise."""

    texts: tuple[str, ...]
    logits: tuple[float, ...]
    flake: float


def task_distribution(prompt: str, scenario: Scenario) -> TaskDist:
    """The answer distribution of a prompt: a matching answer rule, else one derived from the text."""
    for rule in scenario.answers:
        if rule.match in prompt:
            flake = rule.flake if rule.flake is not None else _derived_flake(prompt, scenario)
            return TaskDist(
                tuple(c.text for c in rule.choices), tuple(math.log(c.weight) for c in rule.choices), flake
            )
    if re.search(r"\bOK\b", prompt) and re.search(r"\b(reply|say|answer|respond)\b", prompt, re.I):
        return TaskDist(("OK",), (0.0,), 0.0)
    return _derived(prompt, scenario)


def _derived_flake(prompt: str, scenario: Scenario) -> float:
    rng = random.Random(stable_int(scenario.seed, "flake", prompt))
    return rng.uniform(0.25, 0.5) if rng.random() < scenario.flaky_share else 0.0


def _derived(prompt: str, scenario: Scenario) -> TaskDist:
    rng = random.Random(stable_int(scenario.seed, "dist", prompt))
    words = [w for w in WORD.findall(prompt) if w.lower() not in STOPWORDS]
    numbers = [w.rstrip(".,:") for w in words if any(ch.isdigit() for ch in w)]
    names = [w for w in words if not any(ch.isdigit() for ch in w)]
    base = (rng.choice(numbers) if numbers else rng.choice(names)) if words else "done"
    other = rng.choice(names or numbers or ["unknown"])
    texts = [base, f"The answer is {base}.", base.upper() if base.isalpha() else f"{base} (confirmed)", other]
    k = rng.choice((1, 2, 2, 3, 4))
    texts = texts[:k]
    spread = rng.uniform(0.3, 3.0)
    logits = [0.0] + [-spread * (i + rng.random()) for i in range(1, k)]
    return TaskDist(tuple(texts), tuple(logits), _derived_flake(prompt, scenario))


Nudge = tuple[str, float]
"""Another model served in a backend's place: (its id, how far its preferences stray from the backend's)."""


def backend_logits(
    dist: TaskDist, backend: Backend, scenario: Scenario, prompt: str, nudge: Nudge | None = None
) -> list[float]:
    """The task's logits as one backend sees them: a stable per-backend perturbation, and a substitute
    model's own stable perturbation on top of it (small for a quantised copy, large for another model)."""
    rng = random.Random(stable_int(scenario.seed, "backend", backend.name, prompt))
    logits = [lg + backend.bias * rng.gauss(0.0, 1.0) for lg in dist.logits]
    if nudge is None:
        return logits
    other = random.Random(stable_int(scenario.seed, "nudge", nudge[0], prompt))
    return [lg + nudge[1] * other.gauss(0.0, 1.0) for lg in logits]


def sample(logits: list[float], temperature: float, top_p: float, rng: random.Random) -> int:
    """Index drawn from softmax(logits / temperature) within the top_p nucleus; argmax at 0."""
    if temperature <= 0:
        return max(range(len(logits)), key=lambda i: logits[i])
    scaled = [lg / temperature for lg in logits]
    top = max(scaled)
    weights = [math.exp(s - top) for s in scaled]
    total = sum(weights)
    order = sorted(range(len(weights)), key=lambda i: -weights[i])
    kept, mass = [], 0.0
    for i in order:
        kept.append(i)
        mass += weights[i] / total
        if mass >= top_p:
            break
    return rng.choices(kept, weights=[weights[i] for i in kept])[0]


def choose_answer(
    prompt: str,
    backend: Backend,
    scenario: Scenario,
    *,
    temperature: float,
    top_p: float,
    seed: int | None,
    draw: random.Random,
    nudge: Nudge | None = None,
) -> str:
    """One reply for a prompt on a backend.

    With a request seed the sampling generator depends only on (simulator seed, backend, request seed,
    prompt, parameters), so a backend repeats itself; without one, `draw` (this request's own
    generator) decides. Model noise (`flake`) still resamples some temperature-0 answers, less often
    with a seed. `nudge` serves another model in the backend's place.
    """
    dist = task_distribution(prompt, scenario)
    logits = backend_logits(dist, backend, scenario, prompt, nudge)
    if seed is not None:
        rng = random.Random(
            stable_int(scenario.seed, "seeded", backend.name, seed, prompt, temperature, top_p)
        )
    else:
        rng = draw
    flake = dist.flake * (scenario.seeded_flake_factor if seed is not None else 1.0)
    if flake and draw.random() < flake:
        return dist.texts[sample(logits, max(temperature, 0.9), top_p, draw)]
    return dist.texts[sample(logits, temperature, top_p, rng)]


EMBEDDING_DIM = 256
"""Length of the simulator's embedding vectors."""


def text_embedding(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """A deterministic unit vector for a text: its character trigrams hashed into `dim` signed buckets.

    Texts that share most of their characters point the same way; there is no meaning in it (the
    simulator serves `/v1/embeddings` so the route's embeddings can be tested offline).
    """
    folded = " ".join(text.casefold().split())
    padded = f"  {folded}  "
    vector = [0.0] * dim
    for i in range(len(padded) - 2):
        digest = hashlib.blake2b(padded[i : i + 3].encode("utf-8"), digest_size=8).digest()
        bucket = int.from_bytes(digest[:4], "little") % dim
        vector[bucket] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [round(v / norm, 6) for v in vector]
