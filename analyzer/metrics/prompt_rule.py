"""What a request's prompt costs by the OpenAI cookbook's rules, or why it cannot be counted offline.

The rules are those of the cookbook notebook "How to count tokens with tiktoken"
(github.com/openai/openai-cookbook, examples/How_to_count_tokens_with_tiktoken.ipynb, sections 6 and 7,
`num_tokens_from_messages` and `num_tokens_for_tools`), which the notebook checks against the API's
own `prompt_tokens` (101 for its weather tool on gpt-4o and gpt-4o-mini, 105 on gpt-4 and gpt-3.5-turbo;
tests/metrics/test_prompt_rule.py counts the same request here):
- each message costs `PER_MESSAGE` plus every text it carries (role, content, name; a name adds
  `PER_NAME`), and the reply is primed with `REPLY_PRIMING`;
- each function definition costs `func_init` plus `name:description`, its properties `prop_init` and
  each `prop_key` plus `name:type:description`, each enum `enum_init` plus `enum_item` and its text per
  item; a description loses one final full stop; the definitions together add `func_end` once.
  The notebook gives the constants for gpt-4o and gpt-4o-mini (o200k_base: `func_init` 7) and for
  gpt-4 and gpt-3.5-turbo (cl100k_base: 10); the others are the same for both. A model it does not
  name gets the constants of its vocabulary's family.
A request whose shape the rules do not cover gets no count, with the reason (`Uncovered`), never a
count that is silently too low: images, audio and files, a content part of another type, an
assistant message's tool calls (the notebook has no rule for them), a tool that is not a function, a
parameter that is itself an object or an array of objects or carries a schema keyword the rule does not
read (`default`, `minimum`, `anyOf`, ...), a forced `tool_choice`, a JSON-schema response format.
The Responses API's request is read as the chat request it stands for (`instructions` a system
message, a string `input` one user message, message items as messages, function tools as functions);
a request that continues a stored response or conversation is not counted (its prompt is not in it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from analyzer.metrics.token_count import CL100K, PER_MESSAGE, PER_NAME, REPLY_PRIMING, count_text


@dataclass(frozen=True)
class ToolConstants:
    func_init: int
    prop_init: int = 3
    prop_key: int = 3
    enum_init: int = -3
    enum_item: int = 3
    func_end: int = 12


O200K_TOOLS = ToolConstants(func_init=7)
"""The notebook's constants for gpt-4o and gpt-4o-mini."""
CL100K_TOOLS = ToolConstants(func_init=10)
"""The notebook's constants for gpt-4 and gpt-3.5-turbo."""
TEXT_PARTS = ("text", "input_text", "output_text")
"""Content parts that are text (chat's `text`, the Responses API's input and output text)."""
_FUNCTION_KEYS = {"name", "description", "parameters", "strict"}
_PARAMETERS_KEYS = {"type", "properties", "required", "additionalProperties"}
_PROPERTY_KEYS = {"type", "description", "enum", "items"}
_PLAIN_TYPES = {"string", "number", "integer", "boolean"}
_FREE_CHOICES = (None, "auto", "none")
_PLAIN_FORMATS = (None, "text", "json_object")
_STORED = ("previous_response_id", "conversation", "prompt")


@dataclass(frozen=True)
class Uncovered:
    """Why a request's prompt is not counted (one line)."""

    reason: str


SHOWN_CHARS = 60
"""The most of a name from the request (a tool's, a part's type) a reason shows: the journal keeps
counts and reasons, never the request's text."""


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else "none" if value is None else type(value).__name__
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


class _Outside(Exception):
    """A shape the cookbook's rules do not cover (its message is the reason)."""


@dataclass(frozen=True)
class ToolList:
    """A request's tool definitions as sent, checked only when counted (`tools_tokens`): they repeat
    every turn, so a caller may keep their count, or why they are not counted, by their content."""

    tools: list[Any]
    """Chat's `tools` (each nested under `function`) or the Responses API's (flat)."""
    functions: list[Any]
    """Chat's older `functions`."""
    flat: bool = False

    def __bool__(self) -> bool:
        return bool(self.tools or self.functions)


@dataclass(frozen=True)
class PromptParts:
    """A prompt whose messages the rules cover: fixed tokens, the texts each counted on its own, and
    the tool definitions (counted, or refused, as one unit)."""

    fixed: int
    texts: list[str]
    tools: ToolList


def tool_constants(encoding: str) -> ToolConstants:
    return CL100K_TOOLS if encoding == CL100K else O200K_TOOLS


def _trimmed(description: str) -> str:
    return description[:-1] if description.endswith(".") else description


def tool_parts(functions: list[dict[str, Any]], encoding: str) -> tuple[int, list[str]]:
    """The function definitions' fixed tokens and texts by the notebook's `num_tokens_for_tools`."""
    if not functions:
        return 0, []
    k = tool_constants(encoding)
    fixed, texts = k.func_end, []
    for f in functions:
        fixed += k.func_init
        texts.append(f"{f['name']}:{_trimmed(f.get('description') or '')}")
        properties = (f.get("parameters") or {}).get("properties") or {}
        fixed += k.prop_init if properties else 0
        for name, prop in properties.items():
            fixed += k.prop_key
            if "enum" in prop:
                fixed += k.enum_init + k.enum_item * len(prop["enum"])
                texts += prop["enum"]
            texts.append(f"{name}:{prop.get('type')}:{_trimmed(prop.get('description') or '')}")
    return fixed, texts


def checked_functions(tools: ToolList) -> list[dict[str, Any]] | Uncovered:
    """The function definitions the rule covers, or why not."""
    try:
        nested = [_tool(t, nested=not tools.flat) for t in tools.tools]
        return nested + [_function(f) for f in tools.functions]
    except _Outside as outside:
        return Uncovered(str(outside))


def tools_tokens(tools: ToolList, encoding: str) -> int | Uncovered:
    """Tokens of a request's tool definitions by the notebook's rule, or why they are not counted."""
    functions = checked_functions(tools)
    if isinstance(functions, Uncovered):
        return functions
    fixed, texts = tool_parts(functions, encoding)
    return fixed + sum(count_text(t, encoding) for t in texts)


def count_prompt(parts: PromptParts, encoding: str) -> int | Uncovered:
    """A prompt's tokens, or why its tool definitions are not counted."""
    tools = tools_tokens(parts.tools, encoding)
    if isinstance(tools, Uncovered):
        return tools
    return parts.fixed + sum(count_text(t, encoding) for t in parts.texts) + tools


def chat_tokens(body: dict[str, Any], encoding: str) -> int | Uncovered:
    """A chat completion request's prompt tokens by the cookbook's rules, or why not counted."""
    parts = chat_prompt(body)
    return parts if isinstance(parts, Uncovered) else count_prompt(parts, encoding)


def chat_prompt(body: dict[str, Any]) -> PromptParts | Uncovered:
    """A chat completion request's prompt parts, or why the rules do not cover it (its tool
    definitions are checked when counted)."""
    try:
        messages = body.get("messages")
        if not isinstance(messages, list):
            raise _Outside("the request has no list of messages")
        fixed, texts = _messages(messages)
        tools = ToolList(_list(body, "tools"), _list(body, "functions"))
        _check_choices(body, tools)
        form = body.get("response_format")
        _check_format(form.get("type") if isinstance(form, dict) else form, "response_format")
    except _Outside as outside:
        return Uncovered(str(outside))
    return PromptParts(fixed, texts, tools)


def responses_prompt(body: dict[str, Any]) -> PromptParts | Uncovered:
    """A Responses API request's prompt parts (as the chat request it stands for), or why not."""
    try:
        stored = next((k for k in _STORED if body.get(k) is not None), None)
        if stored is not None:
            raise _Outside(f"it continues a stored prompt (`{stored}`) that the request does not carry")
        raw = body.get("input")
        items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
        if not isinstance(items, list):
            raise _Outside("its `input` is neither a text nor a list of items")
        instructions = body.get("instructions")
        if not isinstance(instructions, str | None):
            raise _Outside("its `instructions` are not a text")
        system = [{"role": "system", "content": instructions}] if instructions is not None else []
        fixed, texts = _messages(system + [_input_message(i) for i in items])
        tools = ToolList(_list(body, "tools"), [], flat=True)
        _check_choices(body, tools)
        text = body.get("text")
        form = text.get("format") if isinstance(text, dict) else None
        _check_format(form.get("type") if isinstance(form, dict) else form, "text.format")
    except _Outside as outside:
        return Uncovered(str(outside))
    return PromptParts(fixed, texts, tools)


def _list(body: dict[str, Any], name: str) -> list[Any]:
    value = body.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Outside(f"its `{name}` is not a list")
    return value


def _messages(messages: list[Any]) -> tuple[int, list[str]]:
    """The notebook's `num_tokens_from_messages`: every text a message carries, each on its own."""
    fixed, texts = REPLY_PRIMING, []
    for m in messages:
        if not isinstance(m, dict):
            raise _Outside("a message is not an object")
        fixed += PER_MESSAGE
        for key, value in m.items():
            if value is None or value == []:
                continue
            if key in ("tool_calls", "function_call"):
                raise _Outside("an assistant message carries tool calls (the cookbook has no rule for them)")
            if key == "content":
                texts.append(_content(value))
            elif isinstance(value, str):
                texts.append(value)
                fixed += PER_NAME if key == "name" else 0
            else:
                raise _Outside(f"a message's `{_shown(key)}` is not text")
    return fixed, texts


def _content(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise _Outside("a message's content is neither text nor a list of parts")
    out = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in TEXT_PARTS or not isinstance(part.get("text"), str):
            raise _Outside(f"a content part of type `{_shown(kind)}` (only text is counted offline)")
        out.append(part["text"])
    return "".join(out)


def _input_message(item: Any) -> dict[str, Any]:
    """A Responses input item as the chat message it stands for (a message item only)."""
    kind = item.get("type", "message") if isinstance(item, dict) else None
    if kind != "message" or not isinstance(item.get("role"), str):
        raise _Outside(f"an input item of type `{_shown(kind)}` (only messages are counted offline)")
    return {"role": item["role"], "content": item.get("content")}


def _tool(tool: Any, nested: bool = True) -> dict[str, Any]:
    """A function tool's definition, checked (chat nests it under `function`; Responses does not)."""
    kind = tool.get("type") if isinstance(tool, dict) else None
    if kind != "function":
        raise _Outside(f"a tool of type `{_shown(kind)}` (only function definitions have a rule)")
    return _function(tool.get("function") if nested else {k: v for k, v in tool.items() if k != "type"})


def _function(f: Any) -> dict[str, Any]:
    if not isinstance(f, dict) or not isinstance(f.get("name"), str):
        raise _Outside("a function definition without a name")
    where = f"function `{_shown(f['name'])}`"
    extra = sorted(set(f) - _FUNCTION_KEYS)
    if extra or not isinstance(f.get("description", ""), str):
        raise _Outside(f"{where} carries `{_shown((extra or ['description'])[0])}` the rule does not read")
    parameters = f.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise _Outside(f"{where} has parameters that are not a schema object")
    extra = sorted(set(parameters) - _PARAMETERS_KEYS)
    properties = parameters.get("properties") or {}
    if extra or parameters.get("type", "object") != "object" or not isinstance(properties, dict):
        shown = _shown((extra or ["type"])[0])
        raise _Outside(f"{where}'s parameters carry `{shown}` the rule does not read")
    for name, prop in properties.items():
        _check_property(f["name"], name, prop)
    return f


def _check_property(function: str, name: str, prop: Any) -> None:
    """A parameter the rule's `name:type:description` line covers: a plain type, an enum of texts, an
    array of a plain type; nothing nested, no other schema keyword."""
    where = f"parameter `{_shown(name)}` of `{_shown(function)}`"
    if not isinstance(prop, dict):
        raise _Outside(f"{where} is not a schema object")
    kind, items = prop.get("type"), prop.get("items")
    if kind == "object" or not isinstance(kind, str) and kind is not None:
        raise _Outside(f"{where} has type `{_shown(kind)}` (an object or a union: nested, no rule)")
    extra = sorted(set(prop) - _PROPERTY_KEYS)
    if extra:
        raise _Outside(f"{where} carries `{_shown(extra[0])}` the rule does not read")
    plain = isinstance(items, dict) and set(items) <= {"type"} and str(items.get("type")) in _PLAIN_TYPES
    if kind == "array" and not plain:
        raise _Outside(f"{where} is an array of objects or of an unnamed type (nested: no rule)")
    if kind not in _PLAIN_TYPES | {"array"} or (items is not None and kind != "array"):
        raise _Outside(f"{where} has type `{_shown(kind)}`, which the rule does not name")
    enum = prop.get("enum")
    if enum is not None and not (isinstance(enum, list) and all(isinstance(e, str) for e in enum)):
        raise _Outside(f"{where} has an enum of other values than texts")
    if not isinstance(prop.get("description", ""), str):
        raise _Outside(f"{where} has a description that is not text")


def _check_choices(body: dict[str, Any], tools: ToolList) -> None:
    choice = body.get("tool_choice", body.get("function_call"))
    if tools and choice not in _FREE_CHOICES:
        shown = choice if isinstance(choice, str) else "a named function"
        raise _Outside(f"tool_choice `{shown}` forces a call (the rule was checked without one)")


def _check_format(kind: Any, name: str) -> None:
    if kind not in _PLAIN_FORMATS:
        raise _Outside(f"{name} `{_shown(kind)}` adds a schema the rule does not count")
