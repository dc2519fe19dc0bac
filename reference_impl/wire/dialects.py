"""The two provider wire formats the kit reads and writes, by name."""

from __future__ import annotations

from typing import Final

#: Anthropic Messages (``POST .../v1/messages``)
ANTHROPIC: Final = "anthropic"
#: OpenAI Chat Completions (``POST .../chat/completions``)
OPENAI: Final = "openai"
