"""An agent over Lorebase Herald's tools, in process, with PydanticAI: the agent hands
Herald's tools to the model, runs its tool calls against Keeper with the agent's own
key, and gives the results back to the model. The model here is scripted (PydanticAI's
``FunctionModel``: no network, no API key): it asks for one Record, then answers from
what the tool returned, errors included. Swap in a real one: ``Agent("openai:gpt-5", ...)``.

    pip install 'lorebase-herald[pydantic-ai]'
    LOREBASE_URL=http://127.0.0.1:8080 LOREBASE_API_KEY=lbk_... LOREBASE_DOMAIN=supply \\
    python examples/agent.py Supplier/S-1001
"""

from __future__ import annotations

import sys
from typing import List

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from lorebase_herald import Herald
from lorebase_herald.adapters.pydantic_ai import to_pydantic_ai_tools


def scripted_model(ref: str) -> FunctionModel:
    """Turn 1 asks ``lorebase_get`` for ``ref``; turn 2 answers from the tool's result."""

    def respond(messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
        results = [part for message in messages for part in message.parts if isinstance(part, ToolReturnPart)]
        if not results:
            return ModelResponse(parts=[ToolCallPart("lorebase_get", {"ref": ref}, tool_call_id="call_1")])
        text = str(results[0].content)
        return ModelResponse(parts=[TextPart(f"Lorebase says about {ref}:\n{text}")])

    return FunctionModel(respond)


def main() -> None:
    ref = sys.argv[1] if len(sys.argv) > 1 else "Supplier/S-1001"
    herald = Herald()  # LOREBASE_URL, LOREBASE_API_KEY, LOREBASE_DOMAIN, ...
    agent = Agent(scripted_model(ref), tools=to_pydantic_ai_tools(herald))
    result = agent.run_sync(f"What do you know about {ref}?")
    for message in result.all_messages():
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                print(f"tool call: {part.tool_name} {part.args_as_json_str()}", file=sys.stderr)
    print(result.output)


if __name__ == "__main__":
    main()
