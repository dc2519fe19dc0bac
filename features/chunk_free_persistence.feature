Feature: Chunk-free session persistence
  The canonical session log keeps each model step as one assembled assistant/message, never as
  the stream's token chunks. Sequence numbers stay contiguous, the format version is the current
  one (4) and other versions are refused, replay fixtures own the model's token stream, and a
  loaded log shows and resumes from complete messages. Partial output of a failed or aborted
  stream stays in the log, where the user can recover it.

  How to read the tables. A replay fixture's script has one row per entry. An "event" row is a
  runtime event the recorder stores as it is: a turn boundary, a user message (value: its
  text), a tool call ("call-1 read_file {...}": id, name, arguments) or a tool result
  ("call-1 <text>"). A "model" row is one chunk of a model stream: a text, reasoning or tool
  call delta, a usage report, or the finish (stop, tool-calls, max-tokens, aborted or error).
  A loaded transcript marks an assistant entry holding partial output "partial", whether the
  implementation kept it as a failed attempt or as an interrupted message (both are allowed).
  Consecutive model rows form one stream; a stream ends with its finish. The first tool call
  delta of a call is "id name arguments-fragment", later ones "id arguments-fragment". In a
  session log table, each row is one event with its seq; the value is read the same way, an
  assistant/message value being the assistant's text and an assistant/chunk value the delta.
  A value in double quotes is taken literally, spaces included.

  # --- recording: chunks are live, the durable log is assembled ---------------------------------

  @CFP-001 @CFP-003 @CFP-009 @CFP-013 @CFP-022 @CFP-028
  Scenario: A streamed answer is persisted once, assembled, with contiguous seq
    Given a replay fixture whose script is:
      | entry | kind        | value      |
      | event | turn/start  | 1          |
      | event | user/message| Say hello  |
      | model | text        | Hel        |
      | model | text        | "lo, wor"  |
      | model | text        | ld!        |
      | model | finish      | stop       |
      | event | turn/end    | 1          |
    When the implementation records the fixture
    Then the durable log declares format version 4
    And the durable log has no assistant/chunk event
    And the durable log's seq numbers are contiguous
    And the durable log holds, in order:
      | record            | content               |
      | turn/start        |                       |
      | user/message      | Say hello             |
      | assistant/message | text "Hello, world!"  |
      | turn/end          |                       |
    And loading the recorded log shows:
      | role      | status   | content              |
      | user      |          | Say hello            |
      | assistant | complete | text "Hello, world!" |

  @CFP-008
  Scenario: A live UI still receives the token deltas, which are never persisted
    Given a replay fixture whose script is:
      | entry | kind      | value        |
      | event | turn/start| 1            |
      | model | reasoning | Greet        |
      | model | reasoning | " warmly"    |
      | model | text      | Hi           |
      | model | text      | " there"     |
      | model | finish    | stop         |
    When the implementation records the fixture
    Then the live stream showed:
      | block     | text           |
      | reasoning | Greet warmly   |
      | text      | Hi there       |
    And the durable log has no assistant/chunk event

  @CFP-030 @CFP-028
  Scenario: Any split of the same content into deltas records the same log, byte for byte
    Given a replay fixture whose script is:
      | entry | kind       | value   |
      | event | turn/start | 1       |
      | model | text       | Hello   |
      | model | text       | " you"  |
      | model | finish     | stop    |
    And another replay fixture whose script is:
      | entry | kind       | value   |
      | event | turn/start | 1       |
      | model | text       | H       |
      | model | text       | "ello " |
      | model | text       | y       |
      | model | text       | ou      |
      | model | finish     | stop    |
    When the implementation records each fixture as log text
    Then both durable logs are identical, byte for byte
    And recording the first fixture again gives the same bytes

  @CFP-003 @CFP-004 @CFP-005 @CFP-006 @CFP-007 @CFP-009
  Scenario: Tool steps keep their calls, results and boundaries, one message per step
    Given a replay fixture whose script is:
      | entry | kind        | value                       |
      | event | turn/start  | 1                           |
      | event | user/message| What is in README.md?       |
      | event | step/start  | 1                           |
      | model | reasoning   | "Read it first."            |
      | model | text        | "Let me look."              |
      | model | tool call   | call-1 read_file {"pa       |
      | model | tool call   | call-1 th":"README.md"}     |
      | model | usage       | 40 in, 9 out                |
      | model | finish      | tool-calls                  |
      | event | tool/call   | call-1 read_file {"path":"README.md"} |
      | event | tool/result | call-1 "# agent-tck"        |
      | event | step/end    | 1                           |
      | event | step/start  | 2                           |
      | model | text        | "It is the README."         |
      | model | finish      | stop                        |
      | event | step/end    | 2                           |
      | event | turn/end    | 1                           |
    When the implementation records the fixture
    Then the durable log's seq numbers are contiguous
    And the durable log holds, in order:
      | record            | content                                                                                   |
      | turn/start        |                                                                                           |
      | user/message      | What is in README.md?                                                                     |
      | step/start        |                                                                                           |
      | assistant/message | reasoning "Read it first." + text "Let me look." + tool call call-1 read_file {"path":"README.md"} |
      | tool/call         | call-1 read_file {"path":"README.md"}                                                     |
      | tool/result       | call-1 "# agent-tck"                                                                      |
      | step/end          |                                                                                           |
      | step/start        |                                                                                           |
      | assistant/message | text "It is the README."                                                                  |
      | step/end          |                                                                                           |
      | turn/end          |                                                                                           |

  # --- failed, aborted and max-token streams ------------------------------------------------------

  @CFP-017 @CFP-019 @CFP-029 @CFP-D007
  Scenario: A failed stream's partial output survives, and its retry is the answer
    Given a replay fixture whose script is:
      | entry | kind        | value                      |
      | event | turn/start  | 1                          |
      | event | user/message| Write a poem               |
      | model | text        | "Roses "                   |
      | model | text        | are                        |
      | model | finish      | error                      |
      | model | text        | "Roses are red."           |
      | model | finish      | stop                       |
      | event | turn/end    | 1                          |
    When the implementation records the fixture
    Then the durable log has no assistant/chunk event
    And the durable log holds, in order:
      | record            | content                 |
      | turn/start        |                         |
      | user/message      | Write a poem            |
      | assistant/partial | text "Roses are"        |
      | assistant/message | text "Roses are red."   |
      | turn/end          |                         |
    And loading the recorded log shows:
      | role      | status   | content               |
      | user      |          | Write a poem          |
      | assistant | partial  | text "Roses are"      |
      | assistant | complete | text "Roses are red." |

  @CFP-018 @CFP-019 @CFP-D007
  Scenario: An aborted stream's partial output survives for the user to recover
    Given a replay fixture whose script is:
      | entry | kind        | value                  |
      | event | turn/start  | 1                      |
      | event | user/message| Check README.md        |
      | model | text        | "I will "              |
      | model | text        | read                   |
      | model | tool call   | call-7 read_file {"pa  |
      | model | finish      | aborted                |
      | event | turn/end    | 1                      |
    When the implementation records the fixture
    Then the durable log holds, in order:
      | record            | content                                              |
      | turn/start        |                                                      |
      | user/message      | Check README.md                                      |
      | assistant/partial | text "I will read" + tool call call-7 read_file {"pa |
      | turn/end          |                                                      |
    And loading the recorded log shows:
      | role      | status      | content                                              |
      | user      |             | Check README.md                                      |
      | assistant | partial     | text "I will read" + tool call call-7 read_file {"pa |

  @CFP-020 @CFP-009
  Scenario: A max-token step that produced nothing needs no assistant message
    Given a replay fixture whose script is:
      | entry | kind        | value       |
      | event | turn/start  | 1           |
      | event | user/message| Long task   |
      | event | step/start  | 1           |
      | model | usage       | 900 in, 0 out |
      | model | finish      | max-tokens  |
      | event | step/end    | 1           |
      | event | turn/end    | 1           |
    When the implementation records the fixture
    Then the durable log's seq numbers are contiguous
    And the durable log holds, in order:
      | record       | content   |
      | turn/start   |           |
      | user/message | Long task |
      | step/start   |           |
      | step/end     |           |
      | turn/end     |           |

  # --- replay fixtures ----------------------------------------------------------------------------

  @CFP-016 @CFP-D010
  Scenario Outline: A fixture recorded for another format is refreshed, not replayed
    Given a replay fixture whose script is:
      | entry | kind       | value |
      | event | turn/start | 1     |
      | model | text       | Hi    |
      | model | finish     | stop  |
    And the fixture declares <field> <value>
    When the implementation records the fixture
    Then the recording is rejected with UNSUPPORTED_VERSION

    Examples:
      | field                | value |
      | sessionFormatVersion | 3     |
      | sessionFormatVersion | 5     |
      | fixtureVersion       | 2     |

  @CFP-027 @CFP-D010
  Scenario: A session log is not a token tape
    Given the session log:
      | seq | type              | value |
      | 0   | turn/start        | 1     |
      | 1   | user/message      | hi    |
      | 2   | assistant/chunk   | Hel   |
      | 3   | assistant/chunk   | lo    |
    When the implementation is asked to replay the session log as a fixture
    Then the recording is rejected with FIXTURE_INVALID

  # --- reading and checking logs ------------------------------------------------------------------

  @CFP-002
  Scenario: A log that persists chunks is rejected, however they are marked
    Given the session log:
      | seq | type              | value |
      | 0   | turn/start        | 1     |
      | 1   | user/message      | hi    |
      | 2   | assistant/chunk   | Hel   |
      | 3   | assistant/chunk   | lo    |
      | 4   | assistant/message | Hello |
    When the implementation checks the log
    Then the log is rejected with CHUNK_PERSISTED
    Given the same log with its chunk events marked ignorable
    When the implementation checks the log
    Then the log is rejected with CHUNK_PERSISTED

  @CFP-010 @CFP-011 @CFP-012
  Scenario Outline: seq must stay contiguous
    Given the session log:
      | seq      | type              | value |
      | 0        | turn/start        | 1     |
      | 1        | user/message      | hi    |
      | <third>  | assistant/message | Hello |
    When the implementation checks the log
    Then the log is rejected with <code>

    Examples:
      | third | code          |
      | 9     | SEQ_GAP       |
      | 1     | SEQ_DUPLICATE |
      | 0     | SEQ_DECREASE  |

  # A seeded or forked child numbers from 0 too: it re-stores what it inherits, then marks the cut.
  @CFP-D003
  Scenario: A seeded child log numbers from 0 and counts up by one across its inherited cut
    Given the session log text:
      """
      {"type":"session","version":4,"id":"s-child","createdAt":1760000000000,"parentSession":"s-1","isSeeded":true,"delegationDepth":1}
      {"type":"turn/start","seq":0,"time":1760000000000,"data":{"turn":1}}
      {"type":"user/message","seq":1,"time":1760000000001,"data":{"id":"u1","role":"user","content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}},"surfaceOp":"append"}
      {"type":"turn/end","seq":2,"time":1760000000002,"data":{"turn":1,"reason":{"kind":"completed"}}}
      {"type":"session/end-seed","seq":3,"time":1760000000003,"data":{"inherited":true}}
      {"type":"turn/start","seq":4,"time":1760000000004,"data":{"turn":2}}
      {"type":"turn/end","seq":5,"time":1760000000005,"data":{"turn":2,"reason":{"kind":"completed"}}}
      """
    When the implementation checks the log
    Then the log is accepted with 6 events

  @CFP-014 @CFP-015 @CFP-013 @CFP-D001
  Scenario Outline: Only the current format version is read
    Given the session log with format version <version>:
      | seq | type       | value |
      | 0   | turn/start | 1     |
      | 1   | turn/end   | 1     |
    When the implementation checks the log
    Then <verdict>

    Examples:
      | version | verdict                                       |
      | 0       | the log is rejected with UNSUPPORTED_VERSION  |
      | 3       | the log is rejected with UNSUPPORTED_VERSION  |
      | 4       | the log is accepted with 2 events             |
      | 5       | the log is rejected with UNSUPPORTED_VERSION  |

  @CFP-D004
  Scenario: An unknown event type is read only when marked ignorable
    Given the session log:
      | seq | type             | value          |
      | 0   | turn/start       | 1              |
      | 1   | plugin/telemetry | {"spans": 3}   |
    When the implementation checks the log
    Then the log is rejected with UNKNOWN_EVENT_TYPE
    Given the same log with its plugin/telemetry events marked ignorable
    When the implementation checks the log
    Then the log is accepted with 2 events

  @CFP-D006
  Scenario Outline: A malformed line is rejected with a stable code
    Given the session log text:
      """
      {"type":"session","version":4,"id":"s-1","createdAt":1760000000000,"isSeeded":false,"delegationDepth":0}
      {"type":"turn/start","seq":0,"time":1760000000001,"data":{"turn":1}}
      <line>
      """
    When the implementation checks the log
    Then the log is rejected with <code>

    Examples:
      | line                                                        | code           |
      | {"type":"turn/end","seq":1,"time":1760000000002,"data":{"tu | MALFORMED_JSON |
      | {"type":"turn/end","time":1760000000002,"data":{"turn":1,"reason":{"kind":"completed"}}} | MISSING_FIELD |
      | {"type":"turn/end","seq":"1","time":1760000000002,"data":{"turn":1,"reason":{"kind":"completed"}}} | INVALID_FIELD |
      | [1, 2, 3]                                                   | INVALID_FIELD  |

  # What a loader keeps of a damaged log: exactly what a crash can leave (the source runtime's
  # scanner, session-persistence-jsonl/src/format.ts); a failing turn/end is never dropped.
  @CFP-D012
  Scenario Outline: A loader recovers a torn tail, never a turn/end or a field error
    Given the session log text:
      """
      {"type":"session","version":4,"id":"s-1","createdAt":1760000000000,"isSeeded":false,"delegationDepth":0}
      {"type":"turn/start","seq":0,"time":1760000000001,"data":{"turn":1}}
      {"type":"step/start","seq":1,"time":1760000000002,"data":{"turn":1,"step":1}}
      <line>
      """
    When the implementation recovers the log
    Then <outcome>

    Examples:
      | line                                                                                             | outcome                                       |
      | {"type":"step/end","seq":2,"time":1760000000003,"data":{"tu                                      | a tail of 1 line from line 4 is dropped       |
      | {"type":"step/end","seq":7,"time":1760000000003,"data":{"turn":1,"step":1}}                      | a tail of 1 line from line 4 is dropped       |
      | {"type":"turn/end","seq":7,"time":1760000000003,"data":{"turn":1,"reason":{"kind":"completed"}}} | the recovery is refused with SEQ_GAP          |
      | {"type":"step/end","seq":2,"time":1760000000003,"data":{"turn":1,"step":"1"}}                    | the recovery is refused with INVALID_FIELD    |
      | {"type":"step/start","seq":1,"time":1760000000003,"data":{"turn":1,"step":1}}                    | the recovery is refused with SEQ_DUPLICATE    |

  @CFP-031
  Scenario: A step's answer is one assistant/message, never split across events
    Given the session log text:
      """
      {"type":"session","version":4,"id":"s-1","createdAt":1760000000000,"isSeeded":false,"delegationDepth":0}
      {"type":"turn/start","seq":0,"time":1760000000000,"data":{"turn":1}}
      {"type":"step/start","seq":1,"time":1760000000001,"data":{"turn":1,"step":1}}
      {"type":"assistant/message","seq":2,"time":1760000000002,"data":{"turn":1,"step":1,"message":{"id":"a1","role":"assistant","content":[{"type":"text","text":"Hel"}],"source":{"kind":"model"}}},"surfaceOp":"append"}
      {"type":"assistant/message","seq":3,"time":1760000000003,"data":{"turn":1,"step":1,"message":{"id":"a2","role":"assistant","content":[{"type":"text","text":"lo"}],"source":{"kind":"model"}}},"surfaceOp":"append"}
      """
    When the implementation checks the log
    Then the log is rejected with STEP_MESSAGE_REPEATED

  @CFP-D011
  Scenario Outline: A v4 log holds none of the syntax v4 retired
    Given the session log text:
      """
      {"type":"session","version":4,"id":"s-1","createdAt":1760000000000,"isSeeded":false,"delegationDepth":0}
      {"type":"turn/start","seq":0,"time":1760000000000,"data":{"turn":1}}
      <line>
      """
    When the implementation checks the log
    Then the log is rejected with RETIRED_SYNTAX

    Examples:
      | line |
      | {"type":"request/header","seq":1,"time":1760000000001,"data":{"header":{"system":""},"reason":"initial"}} |
      | {"type":"user/message","seq":1,"time":1760000000001,"data":{"id":"u1","role":"user","source":{"kind":"user"},"content":[{"type":"tool-result","toolCallId":"c1","content":[]}]},"surfaceOp":"append"} |

  @CFP-D005
  Scenario: Members the reader does not know survive a read and write, byte for byte
    Given the session log text:
      """
      {"version": 4, "type": "session", "id": "s-1", "createdAt": 1760000000000, "isSeeded": false, "delegationDepth": 0}
      {"type":"turn/start","seq":0,"time":1760000000001,"data":{"turn":1,"trigger":"prompt","future":{"a":[1, 2.50]}}}
      {"type":"user/message","seq":1,"time":1760000000002,"data":{"id":"u1","role":"user","content":[{"type":"text","text":"caf\u00e9"}],"source":{"kind":"user"},"x":null},"surfaceOp":"append"}
      """
    When the implementation reads the log and writes it back
    Then the written log is the same text

  # --- load and resume ----------------------------------------------------------------------------

  @CFP-021 @CFP-022 @CFP-023 @CFP-D002 @CFP-D008
  Scenario: Load shows complete assistant messages, not a replay of the stream
    Given the session log text:
      """
      {"type":"session","version":4,"id":"s-1","createdAt":1760000000000,"isSeeded":false,"delegationDepth":0}
      {"type":"turn/start","seq":0,"time":1760000000001,"data":{"turn":1}}
      {"type":"user/message","seq":1,"time":1760000000002,"data":{"id":"u1","role":"user","content":[{"type":"text","text":"Say hello"}],"source":{"kind":"user"}},"surfaceOp":"append"}
      {"type":"step/start","seq":2,"time":1760000000002,"data":{"turn":1,"step":1}}
      {"type":"assistant/message","seq":3,"time":1760000000003,"data":{"turn":1,"step":1,"message":{"id":"a1","role":"assistant","content":[{"type":"text","text":"Hello there, friend."}],"source":{"kind":"model"}},"stream":[{"type":"text-chunks","index":0,"time0":1760000000002,"dt":[1],"texts":["Hel","lo"]}]},"surfaceOp":"append"}
      {"type":"step/end","seq":4,"time":1760000000003,"data":{"turn":1,"step":1}}
      {"type":"turn/end","seq":5,"time":1760000000004,"data":{"turn":1,"reason":{"kind":"completed"}}}
      """
    When the implementation loads the log
    Then the transcript is:
      | role      | status   | content                     |
      | user      |          | Say hello                   |
      | assistant | complete | text "Hello there, friend." |

  # Dropping the unanswered call and answering it with a synthetic error result are both valid
  # provider histories: the note rules (CFP-024/025) only check validity; the drop is our choice.
  @CFP-024 @CFP-025
  Scenario: A log cut short by an abort resumes with a valid request on both wires
    Given a replay fixture whose script is:
      | entry | kind        | value                  |
      | event | turn/start  | 1                      |
      | event | user/message| Check README.md        |
      | model | text        | "I will read"          |
      | model | tool call   | call-7 read_file {"pa  |
      | model | finish      | aborted                |
      | event | turn/end    | 1                      |
    When the implementation records the fixture
    And the recorded log is resumed with the user message "Go on."
    Then the Anthropic Messages request is valid
    And the Chat Completions request is valid

  @CFP-D009
  Scenario: Resume drops an aborted stream's unanswered tool call (suite decision)
    Given a replay fixture whose script is:
      | entry | kind        | value                  |
      | event | turn/start  | 1                      |
      | event | user/message| Check README.md        |
      | model | text        | "I will read"          |
      | model | tool call   | call-7 read_file {"pa  |
      | model | finish      | aborted                |
      | event | turn/end    | 1                      |
    When the implementation records the fixture
    And the recorded log is resumed with the user message "Go on."
    Then the Anthropic Messages request's roles are "user, assistant, user"
    And the Anthropic Messages request carries no tool call "call-7"
    And the Chat Completions request's roles are "user, assistant, user"
    And the Chat Completions request carries no tool call "call-7"

  @CFP-026 @CFP-024 @CFP-025 @CFP-D009
  Scenario: Resume takes the assistant turn from the retried message, not the failed attempt
    Given a replay fixture whose script is:
      | entry | kind        | value               |
      | event | turn/start  | 1                   |
      | event | user/message| Write a haiku       |
      | model | text        | "Old pond"          |
      | model | finish      | error               |
      | model | text        | "Old pond, a frog." |
      | model | finish      | stop                |
      | event | turn/end    | 1                   |
    When the implementation records the fixture
    And the recorded log is resumed with the user message "Another"
    Then the Anthropic Messages request is valid
    And the Anthropic Messages request's roles are "user, assistant, user"
    And the Anthropic Messages request's assistant text is "Old pond, a frog."
    And the Chat Completions request is valid
    And the Chat Completions request's assistant text is "Old pond, a frog."

  # The source runtime's v4 attempt is {turn, step, stream}: the partial output is only in the stream.
  @CFP-019 @CFP-D007
  Scenario: Load shows a v4 failed attempt's partial output from its stream
    Given the session log text:
      """
      {"type":"session","version":4,"id":"s-1","createdAt":1760000000000,"isSeeded":false,"delegationDepth":0}
      {"type":"turn/start","seq":0,"time":1760000000000,"data":{"turn":1}}
      {"type":"user/message","seq":1,"time":1760000000001,"data":{"id":"u1","role":"user","content":[{"type":"text","text":"Write a poem"}],"source":{"kind":"user"}},"surfaceOp":"append"}
      {"type":"step/start","seq":2,"time":1760000000002,"data":{"turn":1,"step":1}}
      {"type":"assistant/attempt","seq":3,"time":1760000000003,"data":{"turn":1,"step":1,"stream":[{"type":"chunk","chunk":{"type":"block-start","index":0,"blockType":"text"}},{"type":"chunk","chunk":{"type":"text-delta","index":0,"text":"Roses are"}},{"type":"chunk","chunk":{"type":"finish","reason":{"kind":"error","failure":{"code":"network","message":"connection reset"}}}}]}}
      {"type":"assistant/message","seq":4,"time":1760000000004,"data":{"turn":1,"step":1,"message":{"id":"a1","role":"assistant","content":[{"type":"text","text":"Roses are red."}],"source":{"kind":"model","provider":"deepseek","model":"deepseek-chat"}}},"surfaceOp":"append"}
      {"type":"step/end","seq":5,"time":1760000000005,"data":{"turn":1,"step":1}}
      {"type":"turn/end","seq":6,"time":1760000000006,"data":{"turn":1,"reason":{"kind":"completed"}}}
      """
    When the implementation loads the log
    Then the transcript is:
      | role      | status   | content               |
      | user      |          | Write a poem          |
      | assistant | failed   | text "Roses are"      |
      | assistant | complete | text "Roses are red." |

  # surface.ts: a failed attempt projects no message; the next request holds the retried answer.
  @CFP-D009
  Scenario: Resume leaves a v4 failed attempt out, as the source runtime's surface does
    Given the session log text:
      """
      {"type":"session","version":4,"id":"s-1","createdAt":1760000000000,"isSeeded":false,"delegationDepth":0}
      {"type":"turn/start","seq":0,"time":1760000000000,"data":{"turn":1}}
      {"type":"user/message","seq":1,"time":1760000000001,"data":{"id":"u1","role":"user","content":[{"type":"text","text":"Write a poem"}],"source":{"kind":"user"}},"surfaceOp":"append"}
      {"type":"step/start","seq":2,"time":1760000000002,"data":{"turn":1,"step":1}}
      {"type":"assistant/attempt","seq":3,"time":1760000000003,"data":{"turn":1,"step":1,"stream":[{"type":"chunk","chunk":{"type":"block-start","index":0,"blockType":"text"}},{"type":"chunk","chunk":{"type":"text-delta","index":0,"text":"Roses are"}},{"type":"chunk","chunk":{"type":"finish","reason":{"kind":"error","failure":{"code":"network","message":"connection reset"}}}}]}}
      {"type":"assistant/message","seq":4,"time":1760000000004,"data":{"turn":1,"step":1,"message":{"id":"a1","role":"assistant","content":[{"type":"text","text":"Roses are red."}],"source":{"kind":"model","provider":"deepseek","model":"deepseek-chat"}}},"surfaceOp":"append"}
      {"type":"step/end","seq":5,"time":1760000000005,"data":{"turn":1,"step":1}}
      {"type":"turn/end","seq":6,"time":1760000000006,"data":{"turn":1,"reason":{"kind":"completed"}}}
      """
    When the implementation resumes the log with the user message "Another"
    Then the Anthropic Messages request's roles are "user, assistant, user"
    And the Anthropic Messages request's assistant text is "Roses are red."
    And the Chat Completions request's roles are "user, assistant, user"
    And the Chat Completions request's assistant text is "Roses are red."
