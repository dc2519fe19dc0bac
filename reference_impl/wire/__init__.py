"""The provider wire model: one normal form of a request, one reply reader, one SSE codec.

Shared by vector comparison (``harness.run.compare``), the audit (``harness.audit.tracker``,
``harness.audit.rules``) and the mock provider (``harness.mock_provider.model``):

=====================  =========================================================================
``dialects``           the two wire formats by name (``ANTHROPIC``, ``OPENAI``)
``equivalences``       every equivalence the normal form applies, listed once with its reason
``normal_form``        a request (or one message, or the head) in the form the provider sees
``reply``              the complete assistant reply of a captured JSON or streamed response
``sse``                the one server-sent-events codec (decode and encode)
=====================  =========================================================================

Pure functions and values only: nothing here reads files, sockets or clocks.
"""
