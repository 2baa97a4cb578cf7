"""The built-in probe set of a live audit: short open prompts in English and Chinese (they leave the
model room to show its own distribution) and tool-call probes whose tools carry JSON Schemas."""

from __future__ import annotations

from typing import Any

from analyzer.log.model import TaskSpec

TEXT_PROBES = (
    "Write one sentence about the sea.",
    "Name a colour and say why you like it, in one sentence.",
    "Give a short title for a story about a lost key.",
    "Describe a cup of coffee in ten words.",
    "Suggest a name for a small bakery.",
    "Write a haiku about autumn.",
    "Say something kind to a tired colleague, in one sentence.",
    "Give one tip for learning a language.",
    "用一句话描述春天。",
    "给一家小书店起个名字。",
    "写一句关于月亮的诗。",
    "用十个字以内形容一杯茶。",
    "说一个学习编程的小建议。",
    "用一句话安慰一个考试失利的朋友。",
)

_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
    },
}
_BOOKING = {
    "type": "function",
    "function": {
        "name": "book_table",
        "description": "Book a restaurant table.",
        "parameters": {
            "type": "object",
            "properties": {
                "restaurant": {"type": "string"},
                "people": {"type": "integer", "minimum": 1, "maximum": 20},
                "time": {"type": "string"},
            },
            "required": ["restaurant", "people", "time"],
            "additionalProperties": False,
        },
    },
}
TOOL_PROBES: tuple[tuple[str, list[dict[str, Any]]], ...] = (
    ("What is the weather in Lisbon right now, in celsius?", [_WEATHER]),
    ("北京现在的天气怎么样？用摄氏度。", [_WEATHER]),
    ("Book a table for 4 at Casa Nova at 19:30.", [_BOOKING]),
    ("帮我在老北京饭店订一张三个人的桌子，晚上七点。", [_BOOKING, _WEATHER]),
)


def probe_tasks() -> list[TaskSpec]:
    """The probes as tasks: text probes capped at 120 completion tokens, tool probes with their tools."""
    tasks = [TaskSpec(task_id=f"text-{i + 1}", prompt=p, max_tokens=120) for i, p in enumerate(TEXT_PROBES)]
    tasks += [
        TaskSpec.model_validate({"task_id": f"tool-{i + 1}", "prompt": p, "max_tokens": 120, "tools": tools})
        for i, (p, tools) in enumerate(TOOL_PROBES)
    ]
    return tasks
