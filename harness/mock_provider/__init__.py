"""The scripted mock provider: a stand-in for the Anthropic Messages and OpenAI Chat APIs.

=============  ===============================================================================
``model``      sans-I/O: an HTTP request in, a plan of bytes to send out (no socket, no clock)
``server``     the thin HTTP shell that carries plans out
``openapi/``   the OpenAPI document the server publishes and the model validates against
=============  ===============================================================================

docs/MOCK_PROVIDER.md is the guide; ``agent-tck simulate-provider`` starts it.
"""
