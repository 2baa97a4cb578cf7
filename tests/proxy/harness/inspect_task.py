"""A small multi-turn Inspect task for the wrap tests: three samples, each asked twice."""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, user_message


@task
def two_turns() -> Task:
    samples = [
        Sample(id="capital", input="What is the capital of France? Answer in one word.", target="Paris"),
        Sample(id="sum", input="What is 17 plus 25? Answer with the number.", target="42"),
        Sample(id="colour", input="Name the colour of a clear daytime sky in one word.", target="blue"),
    ]
    return Task(
        dataset=samples,
        solver=[generate(), user_message("Are you sure? Answer again in one word."), generate()],
        scorer=includes(),
    )
