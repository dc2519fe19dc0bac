"""wire-anthropic.json: developer messages projected onto Anthropic Messages (DM-035,
DM-043, DM-045..DM-048, DM-D003..DM-D006)."""

from __future__ import annotations

from typing import Any

from .build import BETA, BETAS, REQUEST, VectorFile, add, err, out, remove


def build() -> VectorFile:
    f = VectorFile("wire-anthropic", "Projection of developer messages onto Anthropic Messages: "
                   "mid-conversation system messages, beta header, defer_loading, placement, "
                   "empty content (DM-035, DM-043, DM-045..DM-048, DM-D003..DM-D006).")
    for section in (_tool_changes, _placement, _rejected_placement, _undeclared, _empty_content,
                    _outside_developer):
        section(f)
    return f


# --- canonical history in, Messages request out ------------------------------------------------

def tool(name: str, description: str, *, deferred: bool | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "description": description,
                           "inputSchema": {"type": "object"}}
    if deferred is not None:
        out["deferLoading"] = deferred
    return out


def wire_tool(name: str, description: str, *, deferred: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "description": description,
                           "input_schema": {"type": "object"}}
    if deferred:
        out["defer_loading"] = True
    return out


def text(role: str, value: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": value}]}


def developer(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "developer", "content": list(blocks)}


def wire_change(kind: str, name: str) -> dict[str, Any]:
    return {"type": kind, "tool": {"type": "tool_reference", "name": name}}


def wire_text(role: str, value: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": value}]}


SYSTEM = text("system", "You are a coding agent.")
TOOLS = [tool("read_file", "Read a file"), tool("search", "Search", deferred=True)]
WIRE_TOOLS = [wire_tool("read_file", "Read a file"), wire_tool("search", "Search", deferred=True)]


def _both(body: dict[str, Any], betas: list[str] | None) -> dict[str, Any]:
    """The request body (compared as a Messages request) and, when given, the betas it needs."""
    expect = {REQUEST: {"output": body, "compare": "anthropic-messages"}}
    if betas is not None:
        expect[BETAS] = out({"betas": betas})
    return expect


def _tool_changes(f: VectorFile) -> None:
    """Additions and removals become a system message of tool references; beta needed."""
    history_ = [SYSTEM, text("user", "find the bug"), developer(add("search")),
                text("assistant", "searching")]
    f.case("dm-wire-addition-before-assistant", ["DM-D003", "DM-D004", "DM-035", "DM-047"],
           "A tool addition after a user turn becomes a system message with a tool_addition "
           "reference before the assistant turn; the request needs the tool changes beta; the "
           "deferred tool is declared with defer_loading.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.",
                  "messages": [wire_text("user", "find the bug"),
                               {"role": "system",
                                "content": [wire_change("tool_addition", "search")]},
                               wire_text("assistant", "searching")],
                  "tools": WIRE_TOOLS}, [BETA]))

    history_ = [SYSTEM, text("user", "stop searching"), developer(remove("search"),
                                                                   add("read_file"))]
    f.case("dm-wire-removal-and-addition-at-end", ["DM-D003", "DM-D004", "DM-D005"],
           "A removal and an addition in one developer message end the request: one system "
           "message, blocks in order, after the user turn.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.",
                  "messages": [wire_text("user", "stop searching"),
                               {"role": "system", "content": [wire_change("tool_removal", "search"),
                                                              wire_change("tool_addition",
                                                                          "read_file")]}],
                  "tools": WIRE_TOOLS}, [BETA]))

    history_ = [SYSTEM, text("user", "no more searching"), developer(remove("search"))]
    f.case("dm-wire-removal-only-needs-the-beta", ["DM-D004", "DM-D003"],
           "A developer message holding only a tool removal: a system message with a "
           "tool_removal reference, and the request still needs the tool changes beta.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.",
                  "messages": [wire_text("user", "no more searching"),
                               {"role": "system", "content": [wire_change("tool_removal",
                                                                          "search")]}],
                  "tools": WIRE_TOOLS}, [BETA]))


def _placement(f: VectorFile) -> None:
    """The system message follows the user turn and precedes the next assistant turn."""
    history_ = [SYSTEM, text("user", "go"),
                {"role": "assistant", "content": [{"type": "tool-call", "id": "call-1",
                                                   "name": "read_file",
                                                   "arguments": "{\"path\":\"a.py\"}"}]},
                {"role": "tool", "toolCallId": "call-1", "content": [{"type": "text",
                                                                      "text": "print(1)"}]},
                developer(add("search")),
                text("assistant", "now I can search")]
    f.case("dm-wire-after-tool-result", ["DM-D005", "DM-D003"],
           "A developer message after a tool result: the tool-result user turn counts, the system "
           "message follows it and precedes the next assistant turn.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.",
                  "messages": [
                      wire_text("user", "go"),
                      {"role": "assistant", "content": [{"type": "tool_use", "id": "call-1",
                                                         "name": "read_file",
                                                         "input": {"path": "a.py"}}]},
                      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call-1",
                                                    "content": [{"type": "text",
                                                                 "text": "print(1)"}]}]},
                      {"role": "system", "content": [wire_change("tool_addition", "search")]},
                      wire_text("assistant", "now I can search")],
                  "tools": WIRE_TOOLS}, [BETA]))

    history_ = [SYSTEM, text("user", "first"), text("assistant", "done"),
                developer(add("search")), text("user", "second")]
    f.case("dm-wire-waits-for-the-next-user-turn", ["DM-D005"],
           "A developer message written after an assistant turn waits for the next user turn and "
           "ends the request after it; it is never placed after the assistant turn.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.",
                  "messages": [wire_text("user", "first"), wire_text("assistant", "done"),
                               wire_text("user", "second"),
                               {"role": "system", "content": [wire_change("tool_addition",
                                                                          "search")]}],
                  "tools": WIRE_TOOLS}, [BETA]))

    history_ = [SYSTEM, developer(add("search")), text("user", "hi"), text("assistant", "ok")]
    f.case("dm-wire-before-the-first-user-turn", ["DM-D005", "DM-D003"],
           "A developer message recorded before the turn's user input is placed after that user "
           "turn (later, never earlier) and before the assistant turn.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.",
                  "messages": [wire_text("user", "hi"),
                               {"role": "system", "content": [wire_change("tool_addition",
                                                                          "search")]},
                               wire_text("assistant", "ok")],
                  "tools": WIRE_TOOLS}, [BETA]))


def _rejected_placement(f: VectorFile) -> None:
    """No user turn to follow, or one whose input is all omitted: rejected."""
    f.case("dm-wire-never-first", ["DM-D005"],
           "A request holding only the system head and a tool change: the system message would "
           "be the first wire message, with no user turn before it. Rejected.",
           {"history": [SYSTEM, developer(add("search"))], "tools": TOOLS},
           {REQUEST: err("UNSUPPORTED_CONTENT")})

    history_ = [SYSTEM, text("user", "first"), text("assistant", "done"),
                developer(add("search")),
                {"role": "user", "content": [{"type": "reasoning", "text": "hidden"}]}]
    f.case("dm-wire-user-input-omitted-at-end", ["DM-D005"],
           "All user input after the developer message is omitted (reasoning only), so an "
           "assistant turn would precede the system message at the end: rejected.",
           {"history": history_, "tools": TOOLS},
           {REQUEST: err("UNSUPPORTED_CONTENT")})

    history_ = [SYSTEM, text("user", "first"), text("assistant", "done"),
                developer(remove("search")),
                {"role": "user", "content": [{"type": "tool-call", "id": "c", "name": "x",
                                              "arguments": "{}"}]},
                text("assistant", "next")]
    f.case("dm-wire-user-input-omitted-before-assistant", ["DM-D005"],
           "All user input after the developer message is omitted (a tool call in user input), "
           "so the system message would sit between two assistant turns: rejected.",
           {"history": history_, "tools": TOOLS},
           {REQUEST: err("UNSUPPORTED_CONTENT")})


def _undeclared(f: VectorFile) -> None:
    """A change naming an undeclared tool: rejected or left out (DM-D006, SHOULD)."""
    # DM-D006 (SHOULD): two accepted outcomes, the explicit rejection and the source runtime's
    # projection, which leaves the change out before serialization.
    left_out = {REQUEST: {"alternatives": [
        err("DM_UNDECLARED_TOOL"),
        {"output": {"system": "You are a coding agent.", "messages": [wire_text("user", "hi")],
                    "tools": WIRE_TOOLS}, "compare": "anthropic-messages"}]}}
    history_ = [SYSTEM, text("user", "hi"), developer(add("grep"))]
    f.case("dm-wire-undeclared-tool", ["DM-D006"],
           "A tool addition names a tool the request does not declare: rejected, or left out "
           "(the source runtime's projection drops it); never sent.",
           {"history": history_, "tools": TOOLS}, left_out)

    history_ = [SYSTEM, text("user", "hi"), developer(remove("grep"))]
    f.case("dm-wire-undeclared-removal", ["DM-D006"],
           "A tool removal names a tool the request does not declare: rejected, or left out; "
           "never sent.",
           {"history": history_, "tools": TOOLS}, left_out)


def _empty_content(f: VectorFile) -> None:
    """Empty developer content adds no message and never displaces the system head."""
    history_ = [SYSTEM, text("user", "hi"), developer(), text("assistant", "hello")]
    f.case("dm-wire-empty-developer-adds-nothing", ["DM-045"],
           "An empty developer message between a user and an assistant turn adds no message.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.",
                  "messages": [wire_text("user", "hi"), wire_text("assistant", "hello")],
                  "tools": WIRE_TOOLS}, None))

    history_ = [SYSTEM, text("user", "hi"), text("assistant", "hello"), developer()]
    f.case("dm-wire-empty-developer-after-assistant", ["DM-045"],
           "An empty developer message right after an assistant turn at the end of the request "
           "adds no message, so there is nothing to misplace.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.",
                  "messages": [wire_text("user", "hi"), wire_text("assistant", "hello")],
                  "tools": WIRE_TOOLS}, None))

    history_ = [developer(), SYSTEM, text("user", "hi")]
    f.case("dm-wire-empty-developer-before-system-head", ["DM-046", "DM-045"],
           "An empty developer message ahead of the system message does not displace the "
           "protected system head: the request's top-level system is still the system prompt.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.", "messages": [wire_text("user", "hi")],
                  "tools": WIRE_TOOLS}, None))

    history_ = [SYSTEM, developer(), text("user", "hi")]
    f.case("dm-wire-empty-developer-after-system-head", ["DM-046", "DM-045"],
           "An empty developer message right after the system head neither blanks it nor adds "
           "a system message.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.", "messages": [wire_text("user", "hi")],
                  "tools": WIRE_TOOLS}, None))

    history_ = [SYSTEM, text("user", "hi"), text("assistant", "hello")]
    f.case("dm-wire-predeclared-deferred-tool", ["DM-048", "DM-047"],
           "A deferred tool declared without any developer message: declared with defer_loading, "
           "and no tool_addition is fabricated for it.",
           {"history": history_, "tools": TOOLS},
           _both({"system": "You are a coding agent.",
                  "messages": [wire_text("user", "hi"), wire_text("assistant", "hello")],
                  "tools": WIRE_TOOLS}, None))


def _outside_developer(f: VectorFile) -> None:
    """A tool-change block outside a developer message has no wire form."""
    for role, label in (("user", "user"), ("assistant", "assistant")):
        history_ = [SYSTEM, text("user", "hi"),
                    {"role": role, "content": [{"type": "text", "text": "x"}, add("search")]}]
        # issue 21 C: a block with no wire form (UNSUPPORTED_CONTENT) and a tool change outside
        # a developer message (DM_TOOL_CHANGE_NOT_DEVELOPER): both codes' definitions fit
        f.case(f"dm-wire-tool-change-in-{label}-message", ["DM-043", "DM-D001"],
               f"A tool-addition block inside a {label} message has no wire form outside a "
               "developer message (rejected, DM-043): UNSUPPORTED_CONTENT, or "
               "DM_TOOL_CHANGE_NOT_DEVELOPER (a tool-change block in an ordinary message); "
               "either code is accepted (DM-D001).",
               {"history": history_, "tools": TOOLS},
               {REQUEST: {"alternatives": [err("UNSUPPORTED_CONTENT"),
                                           err("DM_TOOL_CHANGE_NOT_DEVELOPER")],
                          "checks": {"outcome": "DM-043", "error-code": "DM-D001"}}})
