Feature: Message parts keep runtime facts typed, ordered and out of the final answer
  An agent UI client receives runtime events: the user's message, streamed answer text,
  reasoning, tool calls and results, status, required actions, artifacts, evidence and errors.
  It keeps each fact as a typed part in the order it arrived, shows each fact in exactly one
  place (live inline while the run is active, folded into the turn's timeline archive after),
  keeps process detail out of the final answer, and reconciles a final payload with the text it
  already streamed without ever showing that text twice.

  How to read the steps: each "the runtime ..." step is one runtime event, sent in the order
  written. A turn's user message is the part "<turn>.user". Part kinds are written as the note
  writes them (reasoning_summary, tool_call, ...). Text in quotes is exact, spaces included.

  # --- the 11 standard parts -----------------------------------------------------------------

  @MP-010 @MP-001
  Scenario: A user message is shown at once, with its author
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    Then the parts of turn "t1" are, in order:
      | id      | kind      | surface      | author | text           |
      | t1.user | user_text | Conversation | alice  | What is 6 x 7? |
    And the view is "active" and turn "t1" shows:
      | part    | projection | display |
      | t1.user | message    | shown   |

  @MP-011 @MP-050
  Scenario: Assistant text renders as the final answer
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "6 x 7 " into part "a1"
    And the runtime streams "= 42." into part "a1"
    And the runtime completes turn "t1"
    Then part "a1" has:
      | kind    | assistant_text         |
      | surface | Conversation           |
      | text    | 6 x 7 = 42.            |
      | behaviour | render_as_final_answer |
    And the final answer of turn "t1" reads "6 x 7 = 42."

  @MP-012 @MP-034 @MP-106
  Scenario: A reasoning summary folds into the timeline archive once its turn completes
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Multiply six by seven." into part "r1"
    And the runtime completes part "r1"
    And the runtime completes turn "t1"
    Then part "r1" has:
      | surface   | Process               |
      | behaviour | collapse_or_summarize |
    And the view is "idle" and turn "t1" shows:
      | part    | projection | display   |
      | t1.user | message    | shown     |
      | r1      | timeline   | collapsed |

  @MP-013 @MP-D010
  Scenario Outline: Reasoning detail is shown only when both the policy and the user allow it
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    And the view's policy <policy> reasoning detail and the user <user> it
    When the runtime starts a reasoning_detail part "rd1"
    And the runtime streams "6*7 = 42, check 7*6" into part "rd1"
    And the runtime completes part "rd1"
    And the runtime completes turn "t1"
    Then part "rd1" has:
      | surface | Process             |
      | text    | 6*7 = 42, check 7*6 |
    And the view is "idle" and turn "t1" shows:
      | part    | projection | display   |
      | t1.user | message    | shown     |
      | rd1     | timeline   | <display> |

    Examples:
      | policy     | user       | display   |
      | allows     | allows     | collapsed |
      | allows     | forbids    | hidden    |
      | forbids    | allows     | hidden    |
      | is silent on | is silent on | hidden |

  @MP-014 @MP-084 @MP-D001
  Scenario: A runtime status is a compact status on the surface the runtime names, never answer text
    Given "alice" asks "Build it" in turn "t1"
    When the runtime starts a runtime_status part "s1" on the "Task" surface
    And the runtime streams "Build 3/5 running" into part "s1"
    Then part "s1" has:
      | surface   | Task                    |
      | behaviour | compact_status_not_body |
      | text      | Build 3/5 running       |
    And the view is "active" and turn "t1" shows:
      | part    | projection | display |
      | t1.user | message    | shown   |
      | s1      | task       | status  |
    And the final answer of turn "t1" reads ""

  @MP-015 @MP-016 @MP-083 @MP-070 @MP-101
  Scenario: Tool output is inspectable but folded outside the final answer
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts a tool call "c1" to "calculator"
    And the runtime streams "{\"expr\": \"6*7\"}" into part "c1"
    And the runtime completes part "c1" with summary "6*7"
    And the runtime starts a tool result "res1" for "c1"
    And the final payload of part "res1" is "{\"value\": 42}"
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "It is 42." into part "a1"
    And the runtime completes turn "t1"
    Then part "c1" has:
      | surface   | Process                         |
      | behaviour | compact_step_with_input_summary |
      | name      | calculator                      |
      | input     | {"expr": "6*7"}                 |
      | summary   | 6*7                             |
      | outcome   | succeeded                       |
    And part "res1" has:
      | behaviour | preview_summary_or_detail_drawer |
      | output    | {"value": 42}                    |
    And the final answer of turn "t1" reads "It is 42."
    And the view is "idle" and turn "t1" shows:
      | part    | projection | display   |
      | t1.user | message    | shown     |
      | c1      | timeline   | collapsed |
      | res1    | timeline   | collapsed |
      | a1      | message    | answer    |

  @MP-017 @MP-102 @MP-074 @MP-085 @MP-D008
  Scenario: A required action renders as a call to action with a pending state, not as Markdown
    Given "alice" asks "Write the report" in turn "t1"
    When the runtime asks "Allow writing ./out/report.md?" as action "act1" with payload {"tool": "write_file", "path": "./out/report.md"}
    Then part "act1" has:
      | surface   | Task                            |
      | behaviour | explicit_cta_with_pending_state |
      | pending   | true                            |
      | payload   | {"path": "./out/report.md", "tool": "write_file"} |
    And the view is "active" and turn "t1" shows:
      | part    | projection | display |
      | t1.user | message    | shown   |
      | act1    | task       | cta     |
    And the final answer of turn "t1" reads ""
    When the runtime completes part "act1"
    Then part "act1" has:
      | pending | false |

  @MP-018 @MP-103 @MP-086 @MP-062 @MP-097
  Scenario: An artifact is a summary card that opens the Artifact workspace
    Given "alice" asks "Draft the Q3 report" in turn "t1"
    When the runtime attaches artifact "art-report" titled "Q3 report" as part "ar1"
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "The report is ready." into part "a1"
    And the answer links artifact "art-report"
    And the runtime completes turn "t1"
    Then part "ar1" has:
      | surface   | Artifact                              |
      | behaviour | summary_card_opens_artifact_workspace |
      | opens     | artifact_workspace                    |
    And the view is "idle" and turn "t1" shows:
      | part    | projection | display |
      | t1.user | message    | shown   |
      | ar1     | message    | card    |
      | a1      | message    | answer  |
    And the final answer of turn "t1" links "art-report"
    And artifact "art-report" was produced by turn "t1" in part "ar1"

  @MP-019 @MP-063 @MP-055 @MP-075
  Scenario: Evidence is an entry; the answer cites it by id, never with the full pack
    Given "alice" asks "Do the tests pass?" in turn "t1"
    When the runtime attaches verification evidence "ev-7" as part "ev1" with pack {"files": ["junit.xml"], "lines": 1800}
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "All tests pass." into part "a1"
    And the answer cites evidence "ev-7"
    And the runtime completes turn "t1"
    Then part "ev1" has:
      | surface   | Evidence                            |
      | behaviour | source_verification_or_replay_entry |
      | entry     | verification                        |
    And the final answer of turn "t1" cites "ev-7"
    And the final answer of turn "t1" does not contain "junit.xml"
    And the final answer of turn "t1" reads "All tests pass."

  @MP-020 @MP-D001
  Scenario: An error keeps a recoverable diagnostic and the next step
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime reports a recoverable error "calculator timed out" as part "e1" on the "Process" surface with next step "Retry the calculation"
    And the runtime completes turn "t1"
    Then part "e1" has:
      | surface     | Process                              |
      | behaviour   | recoverable_diagnostic_and_next_step |
      | recoverable | true                                 |
      | next_step   | Retry the calculation                |
    And the view is "idle" and turn "t1" shows:
      | part    | projection | display    |
      | t1.user | message    | shown      |
      | e1      | timeline   | diagnostic |
    And the final answer of turn "t1" reads ""

  @MP-002 @MP-030 @MP-001
  Scenario: Every kind keeps its own typed part, in arrival order; nothing is flattened into the answer
    Given "alice" asks "Weather?" in turn "t1"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Plan the lookup." into part "r1"
    And the runtime starts a runtime_status part "s1" on the "Process" surface
    And the runtime streams "Searching" into part "s1"
    And the runtime starts a tool call "c1" to "search"
    And the runtime starts a tool result "res1" for "c1"
    And the runtime streams "{\"sky\": \"clear\"}" into part "res1"
    And the runtime asks "Share location?" as action "act1" with payload null
    And the runtime attaches artifact "art-map" titled "Map" as part "ar1"
    And the runtime attaches source evidence "ev-1" as part "ev1"
    And the runtime reports a recoverable error "one source failed" as part "e1" on the "Process" surface with next step "check other sources"
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "Clear skies today." into part "a1"
    And the runtime completes turn "t1"
    Then the parts of turn "t1" are, in order:
      | id      | kind              |
      | t1.user | user_text         |
      | r1      | reasoning_summary |
      | s1      | runtime_status    |
      | c1      | tool_call         |
      | res1    | tool_result       |
      | act1    | action_required   |
      | ar1     | artifact_ref      |
      | ev1     | evidence_ref      |
      | e1      | error             |
      | a1      | assistant_text    |
    And the final answer of turn "t1" reads "Clear skies today."

  # --- order and live projection -------------------------------------------------------------

  @MP-031 @MP-030
  Scenario: Reasoning that arrives after answer text is not hoisted to the top
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "Let me think. " into part "a1"
    And the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Six sevens." into part "r1"
    And the runtime starts an assistant_text part "a2"
    And the runtime streams "It is 42." into part "a2"
    And the runtime completes turn "t1"
    Then the parts of turn "t1" are, in order:
      | id      | kind              |
      | t1.user | user_text         |
      | a1      | assistant_text    |
      | r1      | reasoning_summary |
      | a2      | assistant_text    |

  @MP-032 @MP-060 @MP-061
  Scenario: Tool rows are not pushed to the end; the explanation and the conclusion are both answer
    Given "alice" asks "Weather in Oslo?" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "I'll check the weather. " into part "a1"
    And the runtime starts a tool call "c1" to "weather"
    And the runtime starts a tool result "res1" for "c1"
    And the final payload of part "res1" is "{\"sky\": \"clear\"}"
    And the runtime starts an assistant_text part "a2"
    And the runtime streams "Oslo is clear today." into part "a2"
    And the runtime completes turn "t1"
    Then the parts of turn "t1" are, in order:
      | id      | kind           |
      | t1.user | user_text      |
      | a1      | assistant_text |
      | c1      | tool_call      |
      | res1    | tool_result    |
      | a2      | assistant_text |
    And the final answer of turn "t1" reads "I'll check the weather. Oslo is clear today."

  @MP-105 @MP-033 @MP-035
  Scenario: A running turn shows reasoning, tool and answer text interleaved in part order
    Given "alice" asks "Weather in Oslo?" in turn "t1"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "I need the wea" into part "r1"
    And the runtime starts a tool call "c1" to "weather"
    And the runtime streams "{\"city\": \"Os" into part "c1"
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "Checking Oslo" into part "a1"
    Then the view is "active" and turn "t1" shows:
      | part    | projection | display |
      | t1.user | message    | shown   |
      | r1      | inline     | live    |
      | c1      | inline     | live    |
      | a1      | message    | answer  |

  @MP-106 @MP-036 @MP-035
  Scenario: A running tool is visible with a live body and folds into the archive only after completion
    Given "alice" asks "Build it" in turn "t1"
    When the runtime starts a tool call "c1" to "build"
    And the runtime streams "{\"target\": \"al" into part "c1"
    And the runtime starts a tool result "res1" for "c1"
    And the runtime streams "compiling 3/10" into part "res1"
    Then the view is "active" and turn "t1" shows:
      | part    | projection | display |
      | t1.user | message    | shown   |
      | c1      | inline     | live    |
      | res1    | inline     | live    |
    When the runtime streams "l\"}" into part "c1"
    And the runtime completes part "c1"
    And the runtime streams " done" into part "res1"
    And the runtime completes part "res1"
    And the runtime completes turn "t1"
    Then the view is "idle" and turn "t1" shows:
      | part    | projection | display   |
      | t1.user | message    | shown     |
      | c1      | timeline   | collapsed |
      | res1    | timeline   | collapsed |

  @MP-107 @MP-037 @MP-038
  Scenario: The active inline process and the timeline archive never show the same fact twice
    Given "alice" asks "A?" in turn "t1"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Look it up." into part "r1"
    And the runtime completes part "r1"
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "Found A." into part "a1"
    And the runtime completes turn "t1"
    And "alice" asks "And B?" in turn "t2"
    And the runtime starts a reasoning_summary part "r2"
    And the runtime streams "Now B" into part "r2"
    And the runtime starts a tool call "c2" to "search"
    Then every part is projected exactly once
    And the view is "active" and turn "t2" shows:
      | part    | projection | display |
      | t2.user | message    | shown   |
      | r2      | inline     | live    |
      | c2      | inline     | live    |
    And the view is "active" and turn "t1" shows:
      | part    | projection | display   |
      | t1.user | message    | shown     |
      | r1      | timeline   | collapsed |
      | a1      | message    | answer    |

  @MP-D008 @MP-033 @MP-105
  Scenario: A fact that finished while its turn still runs stays inline, collapsed in place
    Given "alice" asks "Search" in turn "t1"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Plan." into part "r1"
    And the runtime completes part "r1"
    And the runtime starts a tool call "c1" to "search"
    Then the view is "active" and turn "t1" shows:
      | part    | projection | display   |
      | t1.user | message    | shown     |
      | r1      | inline     | collapsed |
      | c1      | inline     | live      |

  @MP-040 @MP-039
  Scenario: A streaming fragment never takes the title; stable sources do
    Given "alice" asks "Weather?" in turn "t1"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Let me chec" into part "r1"
    And the runtime starts a tool call "c1" to "web_search"
    And the runtime streams "{\"query\": \"weath" into part "c1"
    Then part "r1" has no title
    And the title of part "c1" is "web_search"

  @MP-D009 @MP-039
  Scenario: Titles come from the supplied summary, then the tool name, then the complete reasoning summary
    Given "alice" asks "Weather?" in turn "t1"
    When the runtime starts a tool call "c1" to "web_search"
    And the runtime completes part "c1" with summary "oslo weather"
    And the runtime starts a tool result "res1" for "c1"
    And the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Compared two sources." into part "r1"
    And the runtime completes part "r1"
    Then the title of part "c1" is "oslo weather"
    And the title of part "res1" is "web_search"
    And the title of part "r1" is "Compared two sources."

  # --- the final-answer boundary -------------------------------------------------------------

  @MP-051 @MP-052 @MP-054 @MP-073 @MP-D019
  Scenario: Tool logs, queue events, runtime traces and provider debug logs stay out of the answer
    Given "alice" asks "Weather?" in turn "t1"
    When the runtime logs {"position": 2} on the "queue" channel
    And the runtime starts a tool call "c1" to "fetch"
    And the runtime starts a tool result "res1" for "c1"
    And the runtime streams "GET /forecast 200 (31 ms)" into part "res1"
    And the runtime logs {"line": "retrying socket"} on the "tool" channel
    And the runtime logs {"span": "llm.call", "ms": 812} on the "trace" channel
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "Sun" into part "a1"
    And the runtime logs {"provider": "deepseek", "request_id": "req-9"} on the "debug" channel
    And the runtime streams "ny." into part "a1"
    And the runtime completes turn "t1"
    Then the final answer of turn "t1" reads "Sunny."
    And the parts of turn "t1" are, in order:
      | id      | kind           |
      | t1.user | user_text      |
      | c1      | tool_call      |
      | res1    | tool_result    |
      | a1      | assistant_text |

  @MP-100 @MP-053 @MP-082
  Scenario: Reasoning text does not enter the final answer
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "We should say 42." into part "r1"
    And the runtime starts a reasoning_detail part "rd1"
    And the runtime streams "6*7=42, double-check 7*6" into part "rd1"
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "42" into part "a1"
    And the runtime completes turn "t1"
    Then the final answer of turn "t1" reads "42"
    And the final answer of turn "t1" does not contain "double-check"

  @MP-100 @MP-D012
  Scenario: Reasoning explicitly exported as answer enters the answer at its place
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Method: multiply. " into part "r1"
    And the runtime exports part "r1" as answer
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "Result: 42." into part "a1"
    And the runtime completes turn "t1"
    Then the final answer of turn "t1" reads "Method: multiply. Result: 42."
    And the view is "idle" and turn "t1" shows:
      | part    | projection | display |
      | t1.user | message    | shown   |
      | r1      | message    | answer  |
      | a1      | message    | answer  |

  @MP-064 @MP-102
  Scenario: Next steps written as answer are answer; the approval stays a call to action
    Given "alice" asks "Migrate the table" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "Next: review the diff, then approve the migration." into part "a1"
    And the runtime asks "Approve the migration?" as action "act1" with payload {"migration": "0042_add_index"}
    Then the final answer of turn "t1" reads "Next: review the diff, then approve the migration."
    And the final answer of turn "t1" does not contain "0042_add_index"
    And the view is "active" and turn "t1" shows:
      | part    | projection | display |
      | t1.user | message    | shown   |
      | a1      | message    | answer  |
      | act1    | task       | cta     |

  @MP-072
  Scenario: Hidden (redacted) reasoning leaves no marker in the answer
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts a redacted reasoning_detail part "rd1"
    And the runtime completes part "rd1"
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "42" into part "a1"
    And the runtime completes turn "t1"
    Then part "rd1" has:
      | redacted | true |
      | text     |      |
    And the final answer of turn "t1" reads "42"

  # --- reconciliation and stream faults ------------------------------------------------------

  @MP-104 @MP-071 @MP-080 @MP-087 @MP-088
  Scenario: A final payload equal to the streamed text does not repeat it
    Given "alice" asks "Greet me" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "Hel" into part "a1"
    And the runtime streams "lo, world" into part "a1"
    And the final payload of part "a1" is "Hello, world"
    And the runtime completes turn "t1"
    Then the final answer of turn "t1" reads "Hello, world"
    And part "a1" has:
      | final | matched |

  @MP-D002 @MP-087 @MP-080
  Scenario: A final payload that differs from the streamed text replaces it
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "The answr is 42" into part "a1"
    And the final payload of part "a1" is "The answer is 42."
    And the runtime completes turn "t1"
    Then the final answer of turn "t1" reads "The answer is 42."
    And part "a1" has:
      | final | replaced |

  @MP-D003
  Scenario: A duplicated delta is recognised by its seq and dropped
    Given "alice" asks "Greet me" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "Hel" into part "a1" as delta 0
    And the runtime streams "lo" into part "a1" as delta 1
    And the runtime streams "lo" into part "a1" as delta 1
    And the runtime completes turn "t1"
    Then the final answer of turn "t1" reads "Hello"

  @MP-D003
  Scenario Outline: A delta that contradicts or skips the sequence is rejected
    Given "alice" asks "Greet me" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "Hel" into part "a1" as delta 0
    And the runtime streams "<text>" into part "a1" as delta <seq>
    Then the events are rejected with "<code>" at event 3

    Examples:
      | text | seq | code              |
      | p!   | 0   | CONFLICTING_DELTA |
      | lo   | 2   | DELTA_GAP         |

  @MP-D004 @MP-088
  Scenario: A delta that arrives after the final is dropped
    Given "alice" asks "Greet me" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "Hel" into part "a1"
    And the final payload of part "a1" is "Hello"
    And the runtime streams "lo" into part "a1"
    And the final payload of part "a1" is "Hello"
    And the runtime completes turn "t1"
    Then the final answer of turn "t1" reads "Hello"

  @MP-D005
  Scenario: With no final payload the streamed text is the answer
    Given "alice" asks "Count" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "Forty" into part "a1"
    And the runtime streams "-two" into part "a1"
    And the runtime completes turn "t1"
    Then the final answer of turn "t1" reads "Forty-two"
    And part "a1" has:
      | state | done |
      | final | none |

  @MP-D006 @MP-081
  Scenario: Interleaved deltas of two parts each go to their own part
    Given "alice" asks "Two answers" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime starts an assistant_text part "a2"
    And the runtime streams "B1 " into part "a2"
    And the runtime streams "A1 " into part "a1"
    And the runtime streams "B2" into part "a2"
    And the runtime streams "A2" into part "a1"
    And the runtime completes turn "t1"
    Then part "a1" has:
      | text | A1 A2 |
    And part "a2" has:
      | text | B1 B2 |
    And the final answer of turn "t1" reads "A1 A2B1 B2"

  @MP-D007
  Scenario: A turn aborted mid-stream keeps its partial output and drops later events
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "The ans" into part "a1"
    And the runtime aborts turn "t1"
    And the runtime streams "wer" into part "a1"
    And the final payload of part "a1" is "The answer is 42."
    And the runtime completes turn "t1"
    Then part "a1" has:
      | state | aborted |
      | text  | The ans |
    And the final answer of turn "t1" reads "The ans"

  @MP-089
  Scenario: The same events always give the same parts, answer and view
    Given "alice" asks "What is 6 x 7?" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Ans" into part "a1" as delta 0
    And the runtime streams "hmm" into part "r1"
    And the runtime streams "Ans" into part "a1" as delta 0
    And the runtime streams "wer" into part "a1" as delta 1
    And the final payload of part "a1" is "Answer: 42"
    And the runtime streams " (late)" into part "a1"
    And the runtime completes turn "t1"
    Then the same events always give the same parts, answer and view
    And the final answer of turn "t1" reads "Answer: 42"

  # --- branches and retries ------------------------------------------------------------------

  @MP-090 @MP-091 @MP-092 @MP-093 @MP-094 @MP-095 @MP-D018
  Scenario: A regenerated branch keeps the user message, context, mode and artifacts, and owns its process
    Given "alice" asks "Plan the refactor" in turn "t1" with context "src/app.py", mode "plan" and artifact "art-spec"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Option A" into part "r1"
    And the runtime attaches source evidence "ev-a" as part "ev1"
    And the runtime starts an assistant_text part "a1"
    And the runtime streams "Plan A." into part "a1"
    And the runtime completes turn "t1"
    And the user regenerates turn "t1" as branch "t1b"
    And the runtime starts a reasoning_summary part "r2"
    And the runtime streams "Option B" into part "r2"
    And the runtime starts an assistant_text part "a2"
    And the runtime streams "Plan B." into part "a2"
    And the runtime completes turn "t1b"
    Then turn "t1b" is a branch of "t1" with:
      | user      | t1.user: alice: Plan the refactor |
      | context   | src/app.py                        |
      | mode      | plan                              |
      | artifacts | art-spec                          |
      | process   | r2                                |
      | evidence  |                                   |
    And turn "t1" keeps:
      | process  | r1  |
      | evidence | ev1 |
    And the final answer of turn "t1b" reads "Plan B."

  @MP-097 @MP-093
  Scenario: Each artifact is attributed to the branch that produced it
    Given "alice" asks "Plan the refactor" in turn "t1" with context "src/app.py", mode "plan" and artifact "art-spec"
    When the runtime attaches artifact "art-v1" titled "Plan v1" as part "ar1"
    And the runtime completes turn "t1"
    And the user regenerates turn "t1" as branch "t1b"
    And the runtime attaches artifact "art-v2" titled "Plan v2" as part "ar2"
    And the answer links artifact "art-spec"
    And the runtime completes turn "t1b"
    Then artifact "art-v1" was produced by turn "t1" in part "ar1"
    And artifact "art-v2" was produced by turn "t1b" in part "ar2"
    And the final answer of turn "t1b" links "art-spec"

  @MP-095 @MP-D011
  Scenario: A branch cannot cite the evidence of the branch it regenerates
    Given "alice" asks "Plan the refactor" in turn "t1"
    When the runtime attaches source evidence "ev-a" as part "ev1"
    And the runtime completes turn "t1"
    And the user regenerates turn "t1" as branch "t1b"
    And the answer cites evidence "ev-a"
    Then the events are rejected with "UNBACKED_CITATION" at event 4

  @MP-096
  Scenario: Retrying a failed tool creates a new attempt and keeps the failed one
    Given "alice" asks "Fetch x" in turn "t1"
    When the runtime starts a tool call "c1" to "fetch"
    And the runtime starts a failed tool result "res1" for "c1"
    And the final payload of part "res1" is "timeout after 30s"
    And the runtime retries tool call "c1" as "c2"
    And the runtime starts a tool result "res2" for "c2"
    And the final payload of part "res2" is "{\"ok\": true}"
    Then part "c1" has:
      | attempt | 1      |
      | outcome | failed |
    And part "res1" has:
      | is_error | true              |
      | output   | timeout after 30s |
    And part "c2" has:
      | attempt  | 2         |
      | retry_of | c1        |
      | outcome  | succeeded |

  # --- bad event sequences -------------------------------------------------------------------

  @MP-D013
  Scenario: An unknown part kind is rejected, naming the event
    Given "alice" asks "Hi" in turn "t1"
    When the runtime starts a thinking part "x1"
    Then the events are rejected with "UNKNOWN_PART_KIND" at event 1

  @MP-D014
  Scenario: A delta for a part that was never started is rejected, naming the event
    Given "alice" asks "Hi" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the runtime streams "hello" into part "a9"
    Then the events are rejected with "UNKNOWN_PART" at event 2

  @MP-D015
  Scenario: A malformed event is rejected, naming the event
    Given "alice" asks "Hi" in turn "t1"
    When the runtime sends the event {"type": "part.delta", "id": "a1"}
    Then the events are rejected with "MALFORMED_EVENT" at event 1

  @MP-D016
  Scenario: An event with no transition from its subject's state is rejected, naming the event
    Given "alice" asks "Hi" in turn "t1"
    When the runtime attaches artifact "art-1" titled "A" as part "ar1"
    And the runtime streams "more" into part "ar1"
    Then the events are rejected with "INVALID_TRANSITION" at event 2

  @MP-D017
  Scenario: A part outside a running turn is rejected, naming the event
    Given "alice" asks "Hi" in turn "t1"
    When the runtime completes turn "t1"
    And the runtime starts an assistant_text part "a1"
    Then the events are rejected with "NO_ACTIVE_TURN" at event 2

  @MP-D011
  Scenario: A citation the turn's evidence does not back is rejected
    Given "alice" asks "Hi" in turn "t1"
    When the runtime starts an assistant_text part "a1"
    And the answer cites evidence "ev-missing"
    Then the events are rejected with "UNBACKED_CITATION" at event 2

  # --- issue 16: cases no vector pinned ----------------------------------------------------------

  @MP-017 @MP-035 @MP-102
  Scenario: A turn that ends while its action is pending leaves the action pending
    Given "alice" asks "Deploy?" in turn "t1"
    When the runtime asks "Deploy to production?" as action "act1" with payload {"env": "prod"}
    And the runtime completes turn "t1"
    Then part "act1" has:
      | pending | true |
    And the view is "idle" and turn "t1" shows:
      | part    | projection | display |
      | t1.user | message    | shown   |
      | act1    | task       | cta     |

  @MP-040 @MP-039
  Scenario: The half word an aborted reasoning summary left never takes the title
    Given "alice" asks "Why misses?" in turn "t1"
    When the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Checking the cac" into part "r1"
    And the runtime aborts turn "t1"
    Then part "r1" has no title

  @MP-039
  Scenario: A finished reasoning detail, shown, is not titled by its own text
    Given the view's policy allows reasoning detail and the user allows it
    And "alice" asks "6 x 7?" in turn "t1"
    When the runtime starts a reasoning_detail part "rd1"
    And the runtime streams "Step 1: 6 x 7 = 42." into part "rd1"
    And the runtime completes part "rd1"
    Then part "rd1" has no title

  @MP-037 @MP-107 @MP-D008 @MP-105
  Scenario: Facts that finished inside a running turn are projected once
    Given "alice" asks "Weather?" in turn "t1"
    When the runtime starts a tool call "c1" to "search"
    And the runtime completes part "c1"
    And the runtime starts a reasoning_summary part "r1"
    And the runtime streams "Next I" into part "r1"
    Then every part is projected exactly once
    And the view is "active" and turn "t1" shows:
      | part    | projection | display   |
      | t1.user | message    | shown     |
      | c1      | inline     | collapsed |
      | r1      | inline     | live      |
