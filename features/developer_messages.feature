Feature: Developer messages record tool changes bound to historical request headers
  A developer/message records a model-visible tool change in conversation order. An addition
  stores only the tool's name; the event's headerSeq names an earlier request/header that holds
  exactly one complete schema for each added name, so the definition can always be found again,
  exactly as it was, whatever the registry or the latest header says later. Readers and writers
  reject broken references and inline definitions, keep JSON fields they do not interpret, and
  keep the developer role in its own slot. On the Anthropic wire a tool change becomes a
  mid-conversation system message.

  How to read the logs: every event has a seq number, given in the step that writes it, and
  the log is built in that order. "search v1" is a complete schema of the tool search whose
  description says "search v1"; "search v1 deferred" is the same schema marked deferLoading.
  A session "whose turn 1 step 1 is open" starts with turn/start (seq 1) and step/start (seq 2).

  # --- binding additions to request headers ----------------------------------------------------

  @DM-001
  Scenario: An addition resolves through headerSeq to the schema of the header it names
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1 and read_file v1
    And developer message 4 adding search bound to header 3
    When developer admission reads the log
    Then developer admission accepts the log
    And developer message 4 adds search as search v1 from header 3
    And search is active as search v1 from header 3

  @DM-002
  Scenario: An addition without a header reference is rejected
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search with no header reference
    When developer admission reads the log
    Then developer admission rejects the log with DM_HEADER_SEQ_MISSING

  @DM-003 @DM-D001
  Scenario Outline: A header reference that is not earlier than the event is forward
    Given a log whose turn 1 step 1 is open
    And developer message 3 adding search bound to header <reference>
    And request header 4 defining search v1
    When developer admission reads the log
    Then developer admission rejects the log with DM_HEADER_SEQ_FORWARD

    Examples:
      | reference |
      | 4         |
      | 3         |
      | 99        |

  @DM-004 @DM-D001
  Scenario: A header reference to a record the reader does not know is unknown
    Given a log whose turn 1 step 1 is open
    And an ignorable "x/request-header-draft" record 3 holding search v1
    And developer message 4 adding search bound to header 3
    When developer admission reads the log
    Then developer admission rejects the log with DM_HEADER_SEQ_UNKNOWN

  @DM-005
  Scenario Outline: A header reference to a known event that is not a request header is rejected
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And user message 4
    And developer message 5 removing grep
    And developer message 6 adding search bound to header <reference>
    When developer admission reads the log
    Then developer admission rejects the log with DM_HEADER_SEQ_NOT_HEADER

    Examples:
      | reference |
      | 4         |
      | 5         |
      | 2         |

  @DM-006
  Scenario: A header that defines the added name twice is ambiguous
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1, read_file v1 and search v2
    And developer message 4 adding search bound to header 3
    When developer admission reads the log
    Then developer admission rejects the log with DM_DEFINITION_AMBIGUOUS

  @DM-007
  Scenario: A header that does not define the added name cannot bind it
    Given a log whose turn 1 step 1 is open
    And request header 3 defining read_file v1
    And developer message 4 adding search bound to header 3
    When developer admission reads the log
    Then developer admission rejects the log with DM_DEFINITION_MISSING

  @DM-008 @DM-D002
  Scenario Outline: An incomplete referenced definition is rejected
    Given a log whose turn 1 step 1 is open
    And request header 3 whose only search definition has no <member>
    And developer message 4 adding search bound to header 3
    When developer admission reads the log
    Then developer admission rejects the log with DM_DEFINITION_INCOMPLETE

    Examples:
      | member      |
      | description |
      | parameters  |

  @DM-009 @DM-010
  Scenario Outline: A retired inline definition is rejected whatever its value
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3 with an inline tool field set to <value>
    When developer admission reads the log
    Then developer admission rejects the log with DM_INLINE_DEFINITION

    Examples:
      | value                                                    |
      | {"name": "search", "description": "x", "parameters": {}} |
      | null                                                     |
      | false                                                    |
      | "search"                                                 |

  @DM-011
  Scenario: A message without additions carries no header reference
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 removing search bound to header 3
    When developer admission reads the log
    Then developer admission rejects the log with DM_HEADER_SEQ_UNEXPECTED

  @DM-012
  Scenario: One event binds all its additions to one header revision
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And request header 4 defining read_file v1
    And developer message 5 adding read_file and search bound to header 4
    When developer admission reads the log
    Then developer admission rejects the log with DM_DEFINITION_MISSING

  @DM-013
  Scenario: Additions from different header revisions go in separate events
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And request header 4 defining read_file v1
    And developer message 5 adding search bound to header 3
    And developer message 6 adding read_file bound to header 4
    When developer admission reads the log
    Then developer admission accepts the log
    And developer message 5 adds search as search v1 from header 3
    And developer message 6 adds read_file as read_file v1 from header 4

  @DM-014 @DM-016
  Scenario: A newer addition replaces the active same-name definition, the older keeps its own
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And request header 5 defining search v2
    And developer message 6 adding search bound to header 5
    When developer admission reads the log
    Then developer admission accepts the log
    And developer message 4 adds search as search v1 from header 3
    And developer message 6 adds search as search v2 from header 5
    And search is active as search v2 from header 5

  @DM-015
  Scenario: A removal names the tool only and deactivates it
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And developer message 5 removing search
    When developer admission reads the log
    Then developer admission accepts the log
    And developer message 5 removes search
    And search is not active

  # --- historical identity ---------------------------------------------------------------------

  @DM-016 @DM-020
  Scenario: A later header redefining the tool does not reinterpret an earlier addition
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And request header 5 defining search v2
    When developer admission reads the log
    Then developer admission accepts the log
    And developer message 4 adds search as search v1 from header 3
    And search is active as search v1 from header 3

  @DM-017 @DM-020
  Scenario: After a restart the earlier additions resolve as before
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And step 1 of turn 1 ends at seq 5
    And turn 1 ends at seq 6
    And turn 2 step 1 starts at seq 7
    And restart header 9 defining search v2 and read_file v1
    When developer admission reads the log with a current registry defining search v3
    Then developer admission accepts the log
    And developer message 4 adds search as search v1 from header 3
    And search is active as search v1 from header 3

  @DM-018 @DM-021
  Scenario: A fork child resolves its inherited additions as the parent did at the fork point
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And request header 5 defining search v2
    And developer message 6 adding search bound to header 5
    When the log is forked at seq 5
    Then developer admission accepts the log
    And developer message 4 adds search as search v1 from header 3
    And search is active as search v1 from header 3
    And developer message 6 is not listed

  @DM-019
  Scenario: A surface replacement keeps the header it selected
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And request header 5 defining search v2
    And developer message 6 adding search bound to header 3, replacing developer message 4
    When developer admission reads the log
    Then developer admission accepts the log
    And developer message 6 adds search as search v1 from header 3

  @DM-020
  Scenario: The current registry is never consulted
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    When developer admission reads the log with a current registry defining search v3 and grep v1
    Then developer admission accepts the log
    And developer message 4 adds search as search v1 from header 3

  @DM-022
  Scenario: A compaction summary over a header does not take it away
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1 and read_file v1
    And user message 4
    And a compaction summary 5 covering seq 3 to 4
    And developer message 6 adding read_file bound to header 3
    When developer admission reads the log
    Then developer admission accepts the log
    And developer message 6 adds read_file as read_file v1 from header 3

  @DM-023
  Scenario: sourceEventSeqs does not stand in for a missing headerSeq
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search with no header reference but sourceEventSeqs naming seq 3
    When developer admission reads the log
    Then developer admission rejects the log with DM_HEADER_SEQ_MISSING

  @DM-024
  Scenario: Registry changes no request exposed need no developer record
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And user message 4
    And request header 5 defining search v1 and read_file v1
    When developer admission reads the log with a current registry defining search v3, read_file v1 and grep v1
    Then developer admission accepts the log
    And no developer message is listed

  @DM-025
  Scenario: A migration that drops events remaps headerSeq to the same header
    Given a log whose turn 1 step 1 is open
    And an ignorable "x/telemetry" record 3 holding nothing
    And request header 4 defining search v1
    And an ignorable "x/telemetry" record 5 holding nothing
    And developer message 6 adding search bound to header 4
    When a migration drops seq 3 and 5
    Then the migrated log has 4 events numbered 1 to 4
    And the migrated developer message 4 is bound to header 3, a request header defining search v1

  @DM-025
  Scenario: A migration may not drop a header an addition references
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    When a migration drops seq 3
    Then the migration is refused with DM_REFERENCED_HEADER_DROPPED

  # --- reading, writing, required fields ----------------------------------------------------------

  @DM-026 @DM-035
  Scenario: Reading and writing back keeps every field nobody interprets
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And every line of the log carries an extra field "x-kept"
    And an ignorable "x/future" record 5 holding nothing
    When the log is read and written back
    Then the written log equals the original log
    And the written developer message 4 is still a developer-role message

  @DM-027
  Scenario Outline: A developer message missing a required field is malformed
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And developer message 4 has lost its <field>
    When developer admission reads the log
    Then developer admission rejects the log with DM_MALFORMED

    Examples:
      | field    |
      | turn     |
      | step     |
      | toolName |
      | content  |

  @DM-028
  Scenario: Look-alike fields do not supply a missing turn
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And developer message 4 has lost its turn but carries turnNumber 1 and coordinates for turn 1 step 1
    When developer admission reads the log
    Then developer admission rejects the log with DM_MALFORMED

  @DM-029 @DM-036
  Scenario: Extra fields do not turn a user-role message into a developer message
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And developer message 4 carries a user-role message with fields claiming a developer role
    When developer admission reads the log
    Then developer admission rejects the log with DM_ROLE_MISMATCH

  @DM-030 @DM-031
  Scenario: Extra fields do not reopen an ended step
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And step 1 of turn 1 ends at seq 4
    And developer message 5 adding search bound to header 3, claiming its step is open
    When developer admission reads the log
    Then developer admission rejects the log with DM_STEP_NOT_OPEN

  @DM-031
  Scenario: A developer message outside any open step is rejected
    Given a log with no open step
    And request header 1 defining search v1
    And developer message 2 adding search bound to header 1
    When developer admission reads the log
    Then developer admission rejects the log with DM_STEP_NOT_OPEN

  @DM-032
  Scenario: An ignorable marker does not excuse a malformed developer message
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And developer message 4 is marked ignorable
    And developer message 4 has lost its step
    When developer admission reads the log
    Then developer admission rejects the log with DM_MALFORMED

  @DM-033
  Scenario: The writer refuses an unbound addition and writes a valid one intact
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    When the writer appends a developer message adding search with no header reference
    Then the writer refuses it with DM_HEADER_SEQ_MISSING
    When the writer appends a developer message adding search bound to header 3 with an extra field
    Then the writer writes it at seq 4 with the extra field intact

  @DM-034
  Scenario: Developer admission leaves a malformed ordinary message to the decoder
    Given a log whose turn 1 step 1 is open
    And a user message 3 whose content is not an array
    When developer admission reads the log
    Then developer admission accepts the log

  # --- the developer role stays in its slot -----------------------------------------------------

  @DM-036
  Scenario: The developer/message slot holds a developer-role message
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 adding search bound to header 3
    And developer message 4 carries a system-role message
    When developer admission reads the log
    Then developer admission rejects the log with DM_ROLE_MISMATCH

  Scenario Outline: A developer-role message anywhere else is rejected
    Given a log whose turn 1 step 1 is open
    And user message 3
    And a <event> event 4 carrying a developer-role message
    When developer admission reads the log
    Then developer admission rejects the log with DM_ROLE_CONFINED

    @DM-037 @DM-038 @DM-039 @DM-040 @DM-041 @DM-042
    Examples:
      | event                     |
      | user/message              |
      | assistant/message         |
      | tool/result               |
      | system/message            |
      | agent/inbox/spliced       |
      | session/title-llm-request |

  @DM-043
  Scenario Outline: A tool-change block outside a developer message is rejected
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And a <event> event 4 carrying a <block> block
    When developer admission reads the log
    Then developer admission rejects the log with DM_TOOL_CHANGE_NOT_DEVELOPER

    Examples:
      | event               | block         |
      | user/message        | tool-addition |
      | assistant/message   | tool-removal  |
      | agent/inbox/spliced | tool-addition |
      | compaction/summary  | tool-removal  |

  # --- empty developer content and deferred loading -----------------------------------------------

  @DM-044
  Scenario: Empty developer content keeps its place in conversation order
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And developer message 4 with empty content
    And developer message 5 adding search bound to header 3
    When developer admission reads the log
    Then developer admission accepts the log
    And developer message 4 has no changes and comes before developer message 5

  @DM-050
  Scenario: A developer replacement cites every surface node it shadows
    Given a log whose turn 1 step 1 is open
    And system message 3 heading the surface
    And user message 4
    And user message 5
    And developer message 6 with text content replacing seq 4 to 5, citing 4 and 5
    When developer admission reads the log
    Then developer admission accepts the log
    Given developer message 7 with text content replacing seq 6 to 6, citing 4
    When developer admission reads the log
    Then developer admission rejects the log with DM_REPLACEMENT_UNCITED

  @DM-051
  Scenario: Empty developer content never replaces the protected system head
    Given a log whose turn 1 step 1 is open
    And system message 3 heading the surface
    And user message 4
    And developer message 5 with empty content replacing seq 4 to 4, citing 4
    When developer admission reads the log
    Then developer admission accepts the log
    Given developer message 6 with empty content replacing seq 3 to 3, citing 3
    When developer admission reads the log
    Then developer admission rejects the log with DM_PROTECTED_HEAD_SHADOWED

  @DM-047 @DM-049
  Scenario: An addition may bind to a deferred schema, which keeps its marker
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1 deferred and read_file v1
    And developer message 4 adding search and read_file bound to header 3
    When developer admission reads the log
    Then developer admission accepts the log
    And developer message 4 adds search as search v1 deferred from header 3
    And developer message 4 adds read_file as read_file v1 from header 3

  @DM-048
  Scenario: A predeclared deferred tool needs no addition record in the log
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1 deferred
    And user message 4
    When developer admission reads the log
    Then developer admission accepts the log
    And no developer message is listed

  # --- the Anthropic Messages wire -----------------------------------------------------------------

  @DM-D003 @DM-D004 @DM-035 @DM-047
  Scenario: A tool addition becomes a mid-conversation system message behind the beta header
    Given the conversation:
      | role      | content                 |
      | system    | You are a coding agent. |
      | user      | find the bug            |
      | developer | add search              |
      | assistant | searching               |
    And the request declares read_file and deferred search
    When it is projected onto Anthropic Messages
    Then the wire messages are:
      | role      | content              |
      | user      | find the bug         |
      | system    | tool_addition search |
      | assistant | searching            |
    And the request needs the beta "mid-conversation-tool-changes-2026-07-01"
    And the tool search is declared with defer_loading
    And the tool read_file is declared without defer_loading

  @DM-D005
  Scenario: A tool change waits for the next user turn and never follows an assistant turn
    Given the conversation:
      | role      | content       |
      | user      | first         |
      | assistant | done          |
      | developer | remove search |
      | user      | second        |
    And the request declares read_file and deferred search
    When it is projected onto Anthropic Messages
    Then the wire messages are:
      | role      | content             |
      | user      | first               |
      | assistant | done                |
      | user      | second              |
      | system    | tool_removal search |

  @DM-D005
  Scenario: A tool change whose following user input is all omitted cannot be placed
    Given the conversation:
      | role      | content          |
      | user      | first            |
      | assistant | done             |
      | developer | add search       |
      | user      | (reasoning only) |
    And the request declares read_file and deferred search
    When it is projected onto Anthropic Messages
    Then the projection is rejected with UNSUPPORTED_CONTENT

  @DM-D006
  Scenario: A tool change naming an undeclared tool is not sent (the reference rejects it)
    Given the conversation:
      | role      | content  |
      | user      | hi       |
      | developer | add grep |
    And the request declares read_file and deferred search
    When it is projected onto Anthropic Messages
    Then the projection is rejected with DM_UNDECLARED_TOOL

  @DM-045 @DM-046
  Scenario: Empty developer content adds no message and leaves the system head alone
    Given the conversation:
      | role      | content                 |
      | developer | (empty)                 |
      | system    | You are a coding agent. |
      | user      | hi                      |
      | developer | (empty)                 |
      | assistant | hello                   |
      | developer | (empty)                 |
    And the request declares read_file and deferred search
    When it is projected onto Anthropic Messages
    Then the top-level system is "You are a coding agent."
    And the wire messages are:
      | role      | content |
      | user      | hi      |
      | assistant | hello   |

  @DM-048
  Scenario: A predeclared deferred tool gets no fabricated addition on the wire
    Given the conversation:
      | role      | content |
      | user      | hi      |
      | assistant | hello   |
    And the request declares read_file and deferred search
    When it is projected onto Anthropic Messages
    Then the wire messages are:
      | role      | content |
      | user      | hi      |
      | assistant | hello   |
    And the tool search is declared with defer_loading

  @DM-043
  Scenario: A tool-change block in a user message has no wire form
    Given the conversation:
      | role | content                |
      | user | hi                     |
      | user | (tool-addition search) |
    And the request declares read_file and deferred search
    When it is projected onto Anthropic Messages
    Then the projection is rejected with UNSUPPORTED_CONTENT

  # --- issue 16: adoption of an installed session ------------------------------------------------

  @DM-052
  Scenario: Adopting an installed session keeps its developer records
    Given a log whose turn 1 step 1 is open
    And request header 3 defining search v1
    And user message 4
    And request header 5 defining search v1 and read_file v1
    And developer message 6 adding read_file bound to header 5
    And developer message 7 removing search
    When the log is read and written back
    Then the written log equals the original log
    And the written developer message 6 is still a developer-role message
    And the written developer message 7 is still a developer-role message
