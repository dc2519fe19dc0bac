"""``agent-tck audit``: rule violations of a live agent, read off its provider traffic.

The rules themselves are pure functions in :mod:`harness.audit.rules` (with ``findings`` and
``checks``) and :mod:`harness.audit.tracker` (no file, socket or clock); the other modules only
move data in and out (STYLE 1, 7):

=====================  ========================================================================
module                 role
=====================  ========================================================================
``findings``           the rule table (rule key -> catalogue ID, severity) and findings
``checks``             the wire checks: one request -> (rule key, pointer, message) (sans-I/O)
``rules``              the check table and running it: one exchange -> findings (sans-I/O)
``tracker``            requests grouped into conversations, cross-request findings (sans-I/O)
``conversation_state`` what the tracker keeps and compares: turn fingerprints, shapes (sans-I/O)
``operations``         the wire-audit family's operations ``wire.check``, ``wire.conversation``
``capture``            a captured exchange as bytes (:class:`RawExchange`) and its decoding into
                       the JSON exchange the rules read (content-encoding, JSON, SSE, limits)
``readers``            offline captures: mitmproxy flow files, HAR, the JSONL capture format
``har_stream``         a HAR file read one entry at a time (memory follows the largest entry)
``engine``             :class:`Auditor`: exchanges in, findings, conversations and notes out;
                       an exception inside a rule is a reported value
``redact``             the salted secret scrubber every artifact goes through
``report``             audit results -> case records, ``audit.json`` entries, verdicts (pure)
``sink``               the reports written as the audit goes (memory follows findings)
``timeline``           the per-conversation timeline section of report.html
``addon``              the mitmproxy addon, a thin shell (``mitmdump -s harness/audit/addon.py``)
``worker``             the audit process the addon feeds over a pipe (engine and sink out of
                       mitmdump's process), and the addon's handle on it
=====================  ========================================================================

docs/AUDIT.md is the operator guide.
"""
