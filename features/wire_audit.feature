Feature: Auditing provider traffic on the wire
  An operator points a live agent at the audit proxy (or hands over recorded traffic) and gets
  the rule violations its requests show, without an adapter and without the agent's
  cooperation. Each request is checked on its own (wire.check), and the requests are grouped
  into conversations by their content (wire.conversation): within a conversation each request
  extends the previous one and its reply, and a fork keeps its parent's head.

  How to read the requests: each row is one block (or member) of a message; rows with the same
  message number form one message. "tool_use" and "tool call" values are an id, a name and JSON
  arguments; "tool_result" and "tool" values are the id answered and the text. "(none)" makes a
  message without content. In a conversation table, messages are separated by " ; " and written
  role:text; "user[]:" sends the text as one text block instead of a string, and a "(cached)"
  suffix puts a cache_control breakpoint on it.

  @BO-001 @BO-002
  Scenario: Reasoning and a tool call in a user message are findings at the blocks
    Given a captured Messages request:
      | message | role | block    | value                     |
      | 1       | user | text     | Subagent notice:          |
      | 1       | user | thinking | the child's reasoning     |
      | 1       | user | tool_use | child-1 grep {"p": "x"}   |
    When the wire audit checks it
    Then the findings are exactly:
      | rule   | severity | pointer                             |
      | BO-001 | error    | /request/body/messages/0/content/1  |
      | BO-002 | error    | /request/body/messages/0/content/2  |

  @WA-D001 @WA-D002
  Scenario: A tool result must answer the directly preceding calls, and every call is answered
    Given a captured Messages request:
      | message | role      | block       | value                  |
      | 1       | user      | text        | look up a and b        |
      | 2       | assistant | tool_use    | t1 lookup {"q": "a"}   |
      | 2       | assistant | tool_use    | t2 lookup {"q": "b"}   |
      | 3       | user      | tool_result | t1 a is 1              |
      | 3       | user      | tool_result | t9 nobody asked        |
    When the wire audit checks it
    Then the findings are exactly:
      | rule    | severity | pointer                             |
      | WA-D001 | error    | /request/body/messages/2/content/1  |
      | WA-D002 | error    | /request/body/messages/1/content/1  |

  @WA-D001
  Scenario: A Chat Completions tool message answering no call is a finding
    Given a captured Chat Completions request:
      | message | role      | block     | value                |
      | 1       | user      | text      | look up a            |
      | 2       | assistant | tool call | c1 lookup {"q":"a"}  |
      | 3       | tool      | tool      | c1 a is 1            |
      | 4       | tool      | tool      | c7 stray             |
    When the wire audit checks it
    Then the findings are exactly:
      | rule    | severity | pointer                   |
      | WA-D001 | error    | /request/body/messages/3  |

  @BO-001 @BO-D002
  Scenario: Chat Completions user input carries no reasoning, and an empty user message is a warning
    Given a captured Chat Completions request:
      | message | role      | block             | value          |
      | 1       | user      | text              | notice         |
      | 1       | user      | reasoning_content | child thoughts |
      | 2       | assistant | text              | ok             |
      | 3       | user      | (none)            |                |
    When the wire audit checks it
    Then the findings are exactly:
      | rule    | severity | pointer                                    |
      | BO-001  | error    | /request/body/messages/0/reasoning_content |
      | BO-D002 | warning  | /request/body/messages/2/content           |

  @WA-D003
  Scenario: A block type the suite does not know is a warning, not a verdict
    Given a captured Messages request:
      | message | role | block    | value      |
      | 1       | user | text     | look       |
      | 1       | user | hologram | (3d scene) |
    When the wire audit checks it
    Then the findings are exactly:
      | rule    | severity | pointer                            |
      | WA-D003 | warning  | /request/body/messages/0/content/1 |

  @WA-D004
  Scenario: A body that is not JSON is reported and not checked further
    Given a captured Messages request whose body could not be read as JSON
    When the wire audit checks it
    Then the findings are exactly:
      | rule    | severity | pointer       |
      | WA-D004 | warning  | /request/body |

  @WA-D005
  Scenario Outline: send_message keeps its one fixed schema
    Given a captured Messages request:
      | message | role | block | value |
      | 1       | user | text  | hi    |
    And the request offers the tool "send_message" with string parameters "<parameters>" all required
    When the wire audit checks it
    Then <outcome>

    Examples:
      | parameters               | outcome                                                         |
      | agent_id, message        | there is no finding                                             |
      | subagent_id, message     | there is one WA-D005 warning at /request/body/tools/0/input_schema |
      | agent_id, message, mode  | there is one WA-D005 warning at /request/body/tools/0/input_schema |

  @WA-D010
  Scenario: Token counting and other traffic are not audited
    Given a captured Messages request:
      | message | role | block    | value     |
      | 1       | user | thinking | reasoning |
    And it was sent to "https://api.anthropic.com/v1/messages/count_tokens"
    When the wire audit checks it
    Then there is no finding

  @WA-D006 @WA-D007 @WA-D008
  Scenario: Each turn extends the previous request and its reply
    Given a Messages conversation under the system prompt "You are careful." with the tool "lookup":
      | request | messages                                                  | reply   |
      | 1       | user:What is x?                                           | x is 1. |
      | 2       | user:What is x? ; assistant:x is 1. ; user:And y?         | y is 2. |
    When the wire audit follows the conversations
    Then the requests form the conversations:
      | conversation | requests | parent | fork at |
      | c1           | 1, 2     |        |         |
    And there is no conversation finding

  @WA-D009
  Scenario: A moved cache breakpoint and a string sent as one text block are no difference
    Given a Messages conversation under the system prompt "You are careful." with the tool "lookup":
      | request | messages                                                             | reply   |
      | 1       | user:What is x? (cached)                                             | x is 1. |
      | 2       | user[]:What is x? ; assistant:x is 1. ; user:And y? (cached)         | y is 2. |
    When the wire audit follows the conversations
    Then there is no conversation finding

  @WA-D006
  Scenario: An earlier message changed between turns is named
    Given a Messages conversation under the system prompt "You are careful." with the tool "lookup":
      | request | messages                                                                         | reply   |
      | 1       | user:What is x?                                                                  | x is 1. |
      | 2       | user:What is x? ; assistant:x is 1. ; user:And y?                                | y is 2. |
      | 3       | user:What is x? ; assistant:x is one. ; user:And y? ; assistant:y is 2. ; user:z? | z is 3. |
    When the wire audit follows the conversations
    Then the requests form the conversations:
      | conversation | requests | parent | fork at |
      | c1           | 1, 2, 3  |        |         |
    And the conversation findings are exactly:
      | request | rule    | severity | pointer                  |
      | 3       | WA-D006 | warning  | /request/body/messages/1 |

  @WA-D007
  Scenario: A changed system prompt within a conversation is named
    Given a Messages conversation under the system prompt "You are careful." with the tool "lookup":
      | request | messages                                          | reply   | system                   |
      | 1       | user:What is x?                                   | x is 1. |                          |
      | 2       | user:What is x? ; assistant:x is 1. ; user:And y? | y is 2. | You are careful. Monday. |
    When the wire audit follows the conversations
    Then the conversation findings are exactly:
      | request | rule    | severity | pointer              |
      | 2       | WA-D007 | warning  | /request/body/system |

  @WA-D008 @SMA-043
  Scenario: A fork child with its parent's head is recognized as a fork
    Given a Messages conversation under the system prompt "You are careful." with the tool "lookup":
      | request | messages                                                                          | reply   |
      | 1       | user:What is x?                                                                   | x is 1. |
      | 2       | user:What is x? ; assistant:x is 1. ; user:And y?                                 | y is 2. |
      | 3       | user:What is x? ; assistant:x is 1. ; user:And y? ; assistant:y is 2. ; user:z?   | z is 3. |
      | 4       | user:What is x? ; assistant:x is 1. ; user:And y? ; assistant:y is 2. ; user:Fork task: check w | w is 0. |
    When the wire audit follows the conversations
    Then the requests form the conversations:
      | conversation | requests | parent | fork at |
      | c1           | 1, 2, 3  |        |         |
      | c2           | 4        | c1     | 4       |
    And there is no conversation finding

  @WA-001 @SMA-044
  Scenario: A fork child with a child-only system prompt section is a warning
    Given a Messages conversation under the system prompt "You are careful." with the tool "lookup":
      | request | messages                                                                                        | reply   | system                                   |
      | 1       | user:What is x?                                                                                 | x is 1. |                                          |
      | 2       | user:What is x? ; assistant:x is 1. ; user:And y?                                               | y is 2. |                                          |
      | 3       | user:What is x? ; assistant:x is 1. ; user:And y? ; assistant:y is 2. ; user:z?                 | z is 3. |                                          |
      | 4       | user:What is x? ; assistant:x is 1. ; user:And y? ; assistant:y is 2. ; user:Fork task: check w | w is 0. | You are careful. Child: report() at end. |
    When the wire audit follows the conversations
    Then the requests form the conversations:
      | conversation | requests | parent | fork at |
      | c1           | 1, 2, 3  |        |         |
      | c2           | 4        | c1     | 4       |
    And the conversation findings are exactly:
      | request | rule   | severity | pointer              |
      | 4       | WA-001 | warning  | /request/body/system |
