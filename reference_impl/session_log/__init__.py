"""The chunk-free session log (family chunk-free-persistence, spec note 001).

=========================  ====================================================================
``format``                 the log format: header, envelopes, vocabulary, reader, writer, check
``recorder``               a runtime's event stream -> the durable log and the live view
``views``                  what a loaded log shows: transcript, durable view, resumed history
``dsh_v4``                 the source runtime's v4 format facts, as data
``profile_dsh``            the source runtime's own v4 strictness (``check-log --profile dsh``)
``retired_syntax``         syntax a v4 reader must refuse
``surface``                which surface events are current (``surfaceOp``)
``ext_log_rules``          the source runtime's vocabulary and multi-line log checks
``ext_developer_messages`` developer-message admission inside the log reader
``ops``                    operations ``session.*``
=========================  ====================================================================

:func:`format.default_vocabulary` loads every ``ext_*`` module of this package.
"""
