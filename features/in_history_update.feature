Feature: In-history system updates on the Anthropic Messages wire
  A system message recorded after the conversation has started is an in-history update. On
  the Messages wire it becomes a system-role message that must directly follow a user turn
  (a turn of tool results counts) and precede the next assistant turn or end the request; it
  can never come first. When every piece of user input after an update is omitted (reasoning
  and tool calls in user input are not sent), the update has no turn to follow: the request is
  rejected, rather than moving the update to an earlier turn or making up a user message.

  How to read the histories: each row is one block of a message; rows with the same message
  number form one message. A system message before any other message is the system head (the
  top-level system prompt); a later one is an update. "(none)" makes a message without blocks.

  @IHU-001 @IHU-005 @IHU-006
  Scenario Outline: An update whose user input is entirely omitted is rejected before another assistant
    Given the recorded history:
      | message | role      | block   | value       |
      | 1       | user      | text    | hello       |
      | 2       | assistant | text    | answer      |
      | 3       | system    | text    | updated     |
      | 4       | user      | <block> | <value>     |
      | 5       | assistant | text    | next answer |
    When it is serialized for Anthropic Messages
    Then the Messages request is rejected with UNSUPPORTED_CONTENT

    Examples:
      | block     | value              |
      | reasoning | child reasoning    |
      | tool call | child-call read {} |
      | (none)    |                    |

  @IHU-002 @IHU-005 @IHU-006
  Scenario Outline: An update whose user input is entirely omitted is rejected at request end
    Given the recorded history:
      | message | role      | block   | value   |
      | 1       | user      | text    | hello   |
      | 2       | assistant | text    | answer  |
      | 3       | system    | text    | updated |
      | 4       | user      | <block> | <value> |
    When it is serialized for Anthropic Messages
    Then the Messages request is rejected with UNSUPPORTED_CONTENT

    Examples:
      | block     | value              |
      | reasoning | child reasoning    |
      | tool call | child-call read {} |
      | (none)    |                    |

  @IHU-001 @IHU-005
  Scenario: An earlier retained tool-result turn does not take in an update whose own turn is gone
    Given the recorded history:
      | message | role          | block     | value                |
      | 1       | user          | text      | read a               |
      | 2       | assistant     | tool call | a read {"path": "a"} |
      | 3       | tool result a | text      | contents             |
      | 4       | assistant     | text      | done                 |
      | 5       | system        | text      | updated              |
      | 6       | user          | reasoning | child reasoning      |
      | 7       | assistant     | text      | next                 |
    When it is serialized for Anthropic Messages
    Then the Messages request is rejected with UNSUPPORTED_CONTENT

  @IHU-003
  Scenario: Text that retains the turn makes the update acceptable
    Given the recorded history:
      | message | role      | block     | value           |
      | 1       | user      | text      | hello           |
      | 2       | assistant | text      | answer          |
      | 3       | system    | text      | updated         |
      | 4       | user      | reasoning | child reasoning |
      | 5       | user      | text      | continue        |
      | 6       | assistant | text      | done            |
    When it is serialized for Anthropic Messages
    Then the Messages request's turns are "user, assistant, user, system, assistant"
    And the system update "updated" directly follows the user turn holding "continue"
    And the system update "updated" directly precedes the assistant turn holding "done"

  @IHU-003 @IHU-D002
  Scenario: Text beside omitted blocks retains the turn at the end of the request
    Given the recorded history:
      | message | role      | block     | value           |
      | 1       | user      | text      | hello           |
      | 2       | assistant | text      | answer          |
      | 3       | system    | text      | updated         |
      | 4       | user      | reasoning | child reasoning |
      | 4       | user      | text      | continue        |
    When it is serialized for Anthropic Messages
    Then the system update "updated" directly follows the user turn holding "continue"
    And the system update "updated" ends the request

  @IHU-004
  Scenario: A tool result retains the turn even when nothing of its content is left
    Given the recorded history:
      | message | role                     | block     | value                |
      | 1       | user                     | text      | hello                |
      | 2       | assistant                | tool call | a read {"path": "a"} |
      | 3       | system                   | text      | updated              |
      | 4       | user                     | reasoning | child reasoning      |
      | 5       | tool result a, no error  | reasoning | child reasoning      |
      | 6       | assistant                | text      | done                 |
    When it is serialized for Anthropic Messages
    Then the Messages request's turns are "user, assistant, user, system, assistant"
    And the Messages tool result for call "a" holds nothing
    And the system update "updated" directly follows the user turn holding the tool result "a"

  @IHU-004 @IHU-D002
  Scenario: A tool result with text retains the turn at the end of the request
    Given the recorded history:
      | message | role          | block     | value                |
      | 1       | user          | text      | hello                |
      | 2       | assistant     | tool call | a read {"path": "a"} |
      | 3       | system        | text      | updated              |
      | 4       | tool result a | text      | contents             |
    When it is serialized for Anthropic Messages
    Then the system update "updated" directly follows the user turn holding the tool result "a"
    And the system update "updated" ends the request

  @IHU-007 @IHU-D005
  Scenario: Appending an update and later turns leaves the earlier request untouched
    Given the recorded history:
      | message | role   | block | value    |
      | 1       | system | text  | original |
      | 2       | user   | text  | first    |
    And the history continues with:
      | message | role      | block | value   |
      | 3       | assistant | text  | one     |
      | 4       | system    | text  | updated |
      | 5       | user      | text  | second  |
      | 6       | assistant | text  | two     |
      | 7       | user      | text  | third   |
    When it is serialized for Anthropic Messages
    Then the Messages request for the continued history begins with the request for the history
    And the Messages request has the top-level system prompt "original"
    And the Messages request for the continued history has the top-level system prompt "original"

  @IHU-D001
  Scenario: Updates between parallel tool results go after the whole turn, in order
    Given the recorded history:
      | message | role          | block     | value                |
      | 1       | system        | text      | original             |
      | 2       | user          | text      | hello                |
      | 3       | assistant     | tool call | a read {"path": "a"} |
      | 3       | assistant     | tool call | b read {"path": "b"} |
      | 4       | system        | text      | first update         |
      | 5       | tool result a | text      | result a             |
      | 6       | system        | text      | second update        |
      | 7       | tool result b | text      | result b             |
      | 8       | user          | text      | more input           |
      | 9       | assistant     | text      | done                 |
    When it is serialized for Anthropic Messages
    Then the Messages request's turns are "user, assistant, user, system, assistant"
    And the Messages system updates are, in order: "first update", "second update"
    And the system update "first update" directly follows the user turn holding "more input"
    And the system update "second update" directly precedes the assistant turn holding "done"

  @IHU-D002
  Scenario: An update may end the request
    Given the recorded history:
      | message | role   | block | value   |
      | 1       | user   | text  | hello   |
      | 2       | system | text  | updated |
    When it is serialized for Anthropic Messages
    Then the Messages request's turns are "user, system"
    And the system update "updated" ends the request
    And the Messages request has no top-level system prompt

  @IHU-D003
  Scenario Outline: The reference rejects an update that would come first on the wire (IHU-D003 also accepts it as the top-level prompt)
    Given the recorded history:
      | message | role      | block   | value   |
      | 1       | user      | <block> | <value> |
      | 2       | system    | text    | updated |
      | 3       | assistant | text    | answer  |
    When it is serialized for Anthropic Messages
    Then the Messages request is rejected with UNSUPPORTED_CONTENT

    Examples:
      | block     | value              |
      | reasoning | child reasoning    |
      | tool call | child-call read {} |

  @IHU-D004
  Scenario Outline: The reference rejects an empty update (IHU-D004 also accepts leaving it out)
    Given the recorded history:
      | message | role      | block   | value   |
      | 1       | user      | text    | hello   |
      | 2       | assistant | text    | answer  |
      | 3       | user      | text    | more    |
      | 4       | system    | <block> | <value> |
    When it is serialized for Anthropic Messages
    Then the Messages request is rejected with UNSUPPORTED_CONTENT

    Examples:
      | block  | value |
      | (none) |       |
      | text   | ""    |

  @IHU-D005
  Scenario: The system head is the top-level system prompt
    Given the recorded history:
      | message | role   | block | value          |
      | 1       | system | text  | You are terse. |
      | 2       | user   | text  | hi             |
    When it is serialized for Anthropic Messages
    Then the Messages request has the top-level system prompt "You are terse."
    And the Messages request's turns are "user"
