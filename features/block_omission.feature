Feature: Block omission in user and tool-result input
  Saved subagent notices can hold a child's reasoning and tool calls inside a parent's user
  message. A serializer for the Anthropic Messages API leaves those two kinds of block out of
  user input and tool-result input (as Chat Completions does), keeps the assistant's own
  reasoning and tool calls, rejects any other block it cannot represent, and never rewrites
  the recorded history.

  How to read the histories: each row is one block of a message; rows with the same message
  number form one message. A value in double quotes is taken literally, spaces and \n
  included. A tool call's value is its id, its name and its arguments (JSON). "(none)" makes a
  message without blocks.

  @BO-001
  Scenario: Reasoning in a user message is left out on both wire formats
    Given the recorded history:
      | message | role | block     | value                     |
      | 1       | user | text      | Summarize the log.        |
      | 1       | user | reasoning | the user never wrote this |
      | 1       | user | text      | Thanks.                   |
    When it is serialized for both wire formats
    Then the Messages request is accepted
    And Messages user turn 1 holds exactly:
      | block | value              |
      | text  | Summarize the log. |
      | text  | Thanks.            |
    And Chat Completions user turn 1 holds exactly:
      | block | value              |
      | text  | Summarize the log. |
      | text  | Thanks.            |

  @BO-002
  Scenario: A tool call in a user message is left out on both wire formats
    Given the recorded history:
      | message | role      | block     | value                                 |
      | 1       | user      | text      | start                                 |
      | 2       | assistant | text      | ok                                    |
      | 3       | user      | tool call | child-call grep {"pattern": "TODO"}   |
      | 3       | user      | text      | Subagent report: nothing left to do.  |
    When it is serialized for both wire formats
    Then the Messages request holds no tool call "child-call"
    And the Chat Completions request holds no tool call "child-call"
    And Messages user turn 2 holds exactly:
      | block | value                                |
      | text  | Subagent report: nothing left to do. |
    And Chat Completions user turn 2 holds exactly:
      | block | value                                |
      | text  | Subagent report: nothing left to do. |

  @BO-003
  Scenario: Reasoning inside a tool result is left out on both wire formats
    Given the recorded history:
      | message | role          | block     | value                 |
      | 1       | user          | text      | read a                |
      | 2       | assistant     | tool call | a read {"path": "a"}  |
      | 3       | tool result a | reasoning | tool-side reasoning   |
      | 3       | tool result a | text      | contents of a         |
    When it is serialized for both wire formats
    Then the Messages tool result for call "a" holds exactly the texts:
      | text          |
      | contents of a |
    And the Chat Completions tool result for call "a" holds exactly the texts:
      | text          |
      | contents of a |

  @BO-004
  Scenario: A tool call inside a tool result is left out on both wire formats
    Given the recorded history:
      | message | role          | block     | value                  |
      | 1       | user          | text      | read a                 |
      | 2       | assistant     | tool call | a read {"path": "a"}   |
      | 3       | tool result a | tool call | nested read {"x": 1}   |
      | 3       | tool result a | text      | done                   |
    When it is serialized for both wire formats
    Then the Messages request holds no tool call "nested"
    And the Chat Completions request holds no tool call "nested"
    And the Messages tool result for call "a" holds exactly the texts:
      | text |
      | done |
    And the Chat Completions tool result for call "a" holds exactly the texts:
      | text |
      | done |

  @BO-005
  Scenario Outline: Messages rejects other unsupported blocks in user input
    Given the recorded history:
      | message | role | block   | value  |
      | 1       | user | text    | hi     |
      | 1       | user | <block> | opaque |
    When it is serialized for Anthropic Messages
    Then the Messages request is rejected with UNSUPPORTED_CONTENT

    Examples:
      | block         |
      | plugin:note   |
      | file          |
      | tool-addition |

  @BO-005
  Scenario: Omitting reasoning does not license ignoring a plugin block beside it
    Given the recorded history:
      | message | role | block       | value           |
      | 1       | user | reasoning   | child reasoning |
      | 1       | user | plugin:card | opaque          |
      | 1       | user | text        | hi              |
    When it is serialized for Anthropic Messages
    Then the Messages request is rejected with UNSUPPORTED_CONTENT

  @BO-006
  Scenario: Messages rejects a plugin block inside a tool result
    Given the recorded history:
      | message | role          | block        | value    |
      | 1       | user          | text         | go       |
      | 2       | assistant     | tool call    | a run {} |
      | 3       | tool result a | plugin:table | opaque   |
      | 3       | tool result a | text         | result   |
    When it is serialized for Anthropic Messages
    Then the Messages request is rejected with UNSUPPORTED_CONTENT

  @BO-007
  Scenario: Text kept beside omitted blocks is sent exactly as recorded
    Given the recorded history:
      | message | role | block     | value                             |
      | 1       | user | text      | "  leading and trailing spaces  " |
      | 1       | user | reasoning | child reasoning                   |
      | 1       | user | text      | "line one\nline two\n"            |
      | 1       | user | tool call | k run {"cmd": "ls"}               |
      | 1       | user | text      | unicode: 你好 ✓                   |
    When it is serialized for both wire formats
    Then Messages user turn 1 holds exactly:
      | block | value                             |
      | text  | "  leading and trailing spaces  " |
      | text  | "line one\nline two\n"            |
      | text  | unicode: 你好 ✓                   |
    And Chat Completions user turn 1 holds exactly:
      | block | value                             |
      | text  | "  leading and trailing spaces  " |
      | text  | "line one\nline two\n"            |
      | text  | unicode: 你好 ✓                   |

  @BO-008
  Scenario: The same record gives the same request, and a later request repeats it
    Given the recorded history:
      | message | role      | block     | value                       |
      | 1       | user      | text      | Audit the repo.             |
      | 2       | assistant | text      | Started.                    |
      | 3       | user      | text      | Background subagent done.   |
      | 3       | user      | reasoning | child reasoning             |
      | 3       | user      | tool call | child-call read {}          |
    And the history continues with:
      | message | role      | block | value           |
      | 4       | assistant | text  | Summary: clean. |
      | 5       | user      | text  | Thanks.         |
    When it is serialized for both wire formats
    Then serializing the same history again gives the same Messages request
    And serializing the same history again gives the same Chat Completions request
    And the Messages request for the continued history begins with the request for the history
    And the Chat Completions request for the continued history begins with the request for the history

  @BO-009
  Scenario Outline: Omission does not depend on who recorded the message or when
    Given the recorded history:
      | message | role | block     | value           | source   | date   |
      | 1       | user | text      | Child finished. | <source> | <date> |
      | 1       | user | reasoning | child reasoning | <source> | <date> |
      | 1       | user | tool call | c read {}       | <source> | <date> |
    And another recorded history:
      | message | role | block     | value           |
      | 1       | user | text      | Child finished. |
      | 1       | user | reasoning | child reasoning |
      | 1       | user | tool call | c read {}       |
    When both histories are serialized for <wire>
    Then both histories give the same <wire> request
    And <wire> user turn 1 holds exactly:
      | block | value           |
      | text  | Child finished. |

    Examples:
      | wire               | source                     | date                 |
      | Anthropic Messages | plugin subagent-settlement | 2026-08-01T10:00:00Z |
      | Anthropic Messages | user                       | 2026-12-01T09:30:00Z |
      | Chat Completions   | plugin subagent-settlement | 2026-08-01T10:00:00Z |

  @BO-010
  Scenario: Newly supplied user input and tool results are filtered too
    Given the recorded history:
      | message | role          | block     | value                            |
      | 1       | user          | text      | read a                           |
      | 2       | assistant     | tool call | a read {"path": "a"}             |
      | 3       | tool result a | reasoning | tool-side reasoning              |
      | 3       | tool result a | text      | file contents                    |
      | 4       | user          | text      | Here is what my script printed:  |
      | 4       | user          | reasoning | pasted reasoning                 |
      | 4       | user          | tool call | p run {"cmd": "ls"}              |
    When it is serialized for both wire formats
    Then the text "pasted reasoning" appears nowhere in the Messages request
    And the text "tool-side reasoning" appears nowhere in the Messages request
    And the Messages request holds no tool call "p"
    And the Chat Completions request holds no tool call "p"
    And the Messages tool result for call "a" holds exactly the texts:
      | text          |
      | file contents |

  @BO-011
  Scenario: The assistant's own reasoning stays in the Messages request
    Given the recorded history:
      | message | role      | block     | value            |
      | 1       | user      | text      | question         |
      | 2       | assistant | signed reasoning | sig-Qm9x assistant thinks |
      | 2       | assistant | text             | answer                    |
      | 3       | user      | text             | more                      |
    When it is serialized for Anthropic Messages
    Then Messages assistant turn 1 holds, in order:
      | block           | value                     |
      | signed thinking | sig-Qm9x assistant thinks |
      | text            | answer                    |

  @BO-012
  Scenario: The assistant's own tool calls stay on both wire formats
    Given the recorded history:
      | message | role          | block     | value                        |
      | 1       | user          | text      | read both                    |
      | 2       | assistant     | text      | Reading both.                |
      | 2       | assistant     | tool call | a read {"path": "a"}         |
      | 2       | assistant     | tool call | b search {"query": "最快", "limit": 3} |
      | 3       | tool result a | text      | A                            |
      | 4       | tool result b | text      | B                            |
    When it is serialized for both wire formats
    Then Messages assistant turn 1 makes the tool calls:
      | id | name   | arguments                      |
      | a  | read   | {"path": "a"}                  |
      | b  | search | {"limit": 3, "query": "最快"}  |
    And Chat Completions assistant turn 1 makes the tool calls:
      | id | name   | arguments                      |
      | a  | read   | {"path": "a"}                  |
      | b  | search | {"limit": 3, "query": "最快"}  |

  @BO-013 @BO-014
  Scenario: A saved notice with text continues, in this request and in later ones
    Given the recorded history:
      | message | role      | block     | value                              |
      | 1       | user      | text      | Run the audit in the background.   |
      | 2       | assistant | text      | Started.                           |
      | 3       | user      | text      | "Background subagent finished.\n"  |
      | 3       | user      | reasoning | child reasoning                    |
      | 3       | user      | tool call | child-call read {"path": "notes"}  |
      | 3       | user      | text      | "  child answer  "                 |
    And the history continues with:
      | message | role      | block | value                     |
      | 4       | assistant | text  | The audit found nothing.  |
      | 5       | user      | text  | Thanks, continue.         |
    When it is serialized for both wire formats
    Then the Messages request is accepted
    And the Messages request for the continued history is accepted
    And the Chat Completions request for the continued history is accepted
    And Messages user turn 2 holds exactly:
      | block | value                             |
      | text  | "Background subagent finished.\n" |
      | text  | "  child answer  "                |

  @BO-015
  Scenario: Omitted reasoning and tool calls do not come back as text
    Given the recorded history:
      | message | role          | block     | value                                        |
      | 1       | user          | reasoning | CHILD-REASONING-MUST-NOT-BE-SENT             |
      | 1       | user          | text      | visible text                                 |
      | 2       | assistant     | tool call | a run {}                                     |
      | 3       | tool result a | reasoning | TOOL-REASONING-MUST-NOT-BE-SENT              |
      | 3       | tool result a | tool call | n grep {"pattern": "NESTED-ARGUMENT"}        |
      | 3       | tool result a | text      | visible result                               |
    When it is serialized for both wire formats
    Then the text "CHILD-REASONING-MUST-NOT-BE-SENT" appears nowhere in the Messages request
    And the text "TOOL-REASONING-MUST-NOT-BE-SENT" appears nowhere in the Messages request
    And the text "NESTED-ARGUMENT" appears nowhere in the Messages request
    And the text "CHILD-REASONING-MUST-NOT-BE-SENT" appears nowhere in the Chat Completions request
    And the text "TOOL-REASONING-MUST-NOT-BE-SENT" appears nowhere in the Chat Completions request
    And the text "NESTED-ARGUMENT" appears nowhere in the Chat Completions request

  @BO-D001
  Scenario Outline: A user message with nothing left is not sent (Messages)
    Given the recorded history:
      | message | role      | block   | value   |
      | 1       | user      | text    | hello   |
      | 2       | assistant | text    | answer  |
      | 3       | user      | <block> | <value> |
    When it is serialized for Anthropic Messages
    Then the Messages request's turns are "user, assistant"
    And the Messages request has no empty user turn

    Examples:
      | block     | value              |
      | reasoning | child reasoning    |
      | tool call | child-call read {} |
      | (none)    |                    |
      | text      | ""                 |

  @BO-D002
  Scenario: A user message with nothing left is not sent (Chat Completions)
    Given the recorded history:
      | message | role      | block     | value              |
      | 1       | user      | reasoning | child reasoning    |
      | 2       | user      | text      | hello              |
      | 3       | assistant | text      | answer             |
      | 4       | user      | tool call | child-call read {} |
    When it is serialized for Chat Completions
    Then the Chat Completions request's turns are "user, assistant"
    And the Chat Completions request has no empty user turn

  @BO-D003
  Scenario: A tool result with nothing left keeps its call id and error flag
    Given the recorded history:
      | message | role                 | block     | value                |
      | 1       | user                 | text      | read a and b         |
      | 2       | assistant            | tool call | a read {"path": "a"} |
      | 2       | assistant            | tool call | b read {"path": "b"} |
      | 3       | tool result a, error | tool call | nested read {}       |
      | 4       | tool result b        | (none)    |                      |
    When it is serialized for Anthropic Messages
    Then the Messages tool result for call "a" holds nothing
    And the Messages tool result for call "a" is marked as an error
    And the Messages tool result for call "b" holds nothing
    And the Messages tool result for call "b" is not marked as an error

  @BO-D004
  Scenario: Chat Completions leaves other unsupported blocks out
    Given the recorded history:
      | message | role          | block        | value           |
      | 1       | user          | text         | hi              |
      | 1       | user          | plugin:note  | OPAQUE-PLUGIN   |
      | 2       | assistant     | tool call    | a run {}        |
      | 3       | tool result a | plugin:table | OPAQUE-TABLE    |
      | 3       | tool result a | text         | result          |
    When it is serialized for Chat Completions
    Then the Chat Completions request is accepted
    And the text "OPAQUE-PLUGIN" appears nowhere in the Chat Completions request
    And the text "OPAQUE-TABLE" appears nowhere in the Chat Completions request
    And the Chat Completions tool result for call "a" holds exactly the texts:
      | text   |
      | result |

  @BO-D005
  Scenario: Tool results open the user turn that answers the tool calls
    Given the recorded history:
      | message | role                 | block     | value                |
      | 1       | user                 | text      | hello                |
      | 2       | assistant            | tool call | a read {"path": "a"} |
      | 2       | assistant            | tool call | b read {"path": "a"} |
      | 3       | user                 | text      | follow-up            |
      | 4       | tool result a        | text      | result               |
      | 5       | tool result b, error | text      | permission denied    |
    When it is serialized for Anthropic Messages
    Then the Messages request's turns are "user, assistant, user"
    And Messages user turn 2 opens with the tool results "a, b" followed by:
      | block | value     |
      | text  | follow-up |

  @BO-D006
  Scenario: An image in user input is kept beside the omission
    Given the recorded history:
      | message | role | block     | value                       |
      | 1       | user | text      | What is in this picture?    |
      | 1       | user | image     | image/png iVBORw0KGgo=      |
      | 1       | user | reasoning | child reasoning             |
    When it is serialized for both wire formats
    Then Messages user turn 1 holds exactly:
      | block | value                    |
      | text  | What is in this picture? |
      | image | image/png iVBORw0KGgo=   |
    And Chat Completions user turn 1 holds exactly:
      | block | value                    |
      | text  | What is in this picture? |
      | image | image/png iVBORw0KGgo=   |

  @BO-D007
  Scenario: Input that is not a canonical history is rejected as such
    Given the recorded history:
      | message | role     | block | value |
      | 1       | narrator | text  | x     |
    When it is serialized for both wire formats
    Then the Messages request is rejected with INVALID_HISTORY
    And the Chat Completions request is rejected with INVALID_HISTORY

  @BO-D008
  Scenario: Empty text blocks are not sent (Messages)
    Given the recorded history:
      | message | role          | block     | value                  |
      | 1       | user          | text      | first                  |
      | 1       | user          | text      | ""                     |
      | 1       | user          | text      | second                 |
      | 2       | assistant     | tool call | a touch {"path": "a"}  |
      | 3       | tool result a | text      | ""                     |
    When it is serialized for Anthropic Messages
    Then Messages user turn 1 holds exactly:
      | block | value  |
      | text  | first  |
      | text  | second |
    And the Messages tool result for call "a" holds nothing

  # ---- every request is one the provider accepts (reference_impl/wire/validity.py) ----------

  @BO-D005 @BO-D011
  Scenario: Tool calls, their results and the user text after them make a request both providers accept
    Given the recorded history:
      | message | role          | block     | value                 |
      | 1       | user          | text      | read a                |
      | 2       | assistant     | tool call | a read {"path": "a"}  |
      | 3       | user          | text      | and hurry             |
      | 4       | tool result a | text      | A                     |
      | 5       | assistant     | text      | done                  |
      | 6       | user          | text      | thanks                |
    When it is serialized for both wire formats
    Then the Messages request is one the provider accepts
    And the Chat Completions request is one the provider accepts

  @BO-D009 @BO-D010
  Scenario: A developer message with nothing to send adds no empty system message or text block
    Given the recorded history:
      | message | role      | block | value       |
      | 1       | user      | text  | hello       |
      | 2       | developer | text  | ""          |
      | 3       | assistant | text  | hi          |
      | 4       | user      | text  | go on       |
      | 5       | developer | text  | ""          |
      | 5       | developer | text  | Be brief.   |
      | 6       | assistant | text  | ok          |
    When it is serialized for Anthropic Messages
    Then the Messages request is one the provider accepts
