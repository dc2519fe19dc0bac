"""The scripted mock provider: a stand-in for the Anthropic Messages and OpenAI Chat APIs.

=============  ===============================================================================
``model``      sans-I/O: an HTTP request in, a plan of bytes to send out (no socket, no clock)
``script``     the routes and provider vocabulary as tables; the script's values and parser
``plan``       a request, the provider's state, the steps of a plan and the exchange recorded
``problems``   error bodies and error replies as each provider shapes them; request validation
``render``     a scripted reply rendered as a JSON body or an event stream, per provider
``server``     the thin HTTP shell that carries plans out (socket, threads, clock)
``openapi/``   the OpenAPI document the server publishes and the model validates against
=============  ===============================================================================

docs/MOCK_PROVIDER.md is the guide; ``agent-tck simulate-provider`` starts it.
"""
