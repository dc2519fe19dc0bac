Feature: Adjacent agents share one Steer send_message operation
  Spec 003_7f014f7791204b77.txt. A scenario is a world of agents and a list of actions run by
  the operation subagents.simulate; the steps read the trace it returns
  (vectors/send-message-adjacency/README.md).

  Background:
    Given a world with system sections "core, env" and registry "read, bash, send_message, edit"

  # --- routes ---------------------------------------------------------------------------------
  @SMA-001 @SMA-015 @SMA-022 @SMA-023 @SMA-D001 @SMA-D003
  Scenario: A parent's message reaches its running child at the child's next step
    Given a running root "root"
    And a running continuable child "c1" of "root" at turn 2 step 4
    When "root" sends "check the parser" to "c1"
    And "c1" reaches a step boundary
    Then the send from "root" to "c1" is accepted
    And "c1" reads the message "check the parser" from "root" at turn 2 step 5

  @SMA-002 @SMA-053
  Scenario: A resident continuable child sends to its direct parent
    Given a running root "root"
    And a running continuable child "c1" of "root"
    And a running continuable child "g1" of "c1"
    When "g1" sends "lexer is fine" to "c1"
    And "c1" reaches a step boundary
    Then the send from "g1" to "c1" is accepted
    And "c1" reads the message "lexer is fine" from "g1" at turn 1 step 2

  @SMA-003 @SMA-004 @SMA-005 @SMA-006 @SMA-008 @SMA-013 @SMA-014 @SMA-D002
  Scenario: Siblings, self, relatives beyond one edge, cousins and unknown ids are not routes
    Given a running root "root"
    And a running continuable child "c1" of "root"
    And a running continuable child "c2" of "root"
    And a running continuable child "g1" of "c1"
    And a running continuable child "g2" of "c2"
    When "c1" sends "sibling" to "c2"
    And "c1" sends "self" to "c1"
    And "g1" sends "grandparent" to "root"
    And "root" sends "grandchild" to "g1"
    And "g1" sends "cousin" to "g2"
    And "root" sends "nobody" to "c9"
    And "c2" reaches a step boundary
    And "root" reaches a step boundary
    Then the send from "c1" to "c2" is rejected with "SIBLING_TARGET"
    And the send from "c1" to "c1" is rejected with "SELF_TARGET"
    And the send from "g1" to "root" is rejected with "ANCESTOR_BEYOND_EDGE"
    And the send from "root" to "g1" is rejected with "DESCENDANT_BEYOND_EDGE"
    And the send from "g1" to "g2" is rejected with "NOT_ADJACENT"
    And the send from "root" to "c9" is rejected with "UNKNOWN_TARGET"
    And "c2" reads nothing
    And "g1" reads nothing
    And "g2" reads nothing
    And "root" reads nothing

  @SMA-009 @SMA-010 @SMA-D002
  Scenario: One-shot children are neither targets nor senders on the parent edge
    Given a running root "root"
    And a running one-shot child "o1" of "root"
    And a running continuable child "c1" of "root"
    And a running one-shot child "og" of "c1"
    When "root" sends "also do X" to "o1"
    And "o1" sends "partial result" to "root"
    And "og" sends "two edges up" to "root"
    And "root" reaches a step boundary
    Then the send from "root" to "o1" is rejected with "ONE_SHOT_TARGET"
    And the send from "o1" to "root" is rejected with "ONE_SHOT_SENDER"
    And the send from "og" to "root" is rejected with "ANCESTOR_BEYOND_EDGE"
    And "root" reads nothing

  @SMA-011 @SMA-D004
  Scenario: A child without a resident activation cannot send to its parent
    Given a running root "root"
    And an idle continuable child "c4" of "root"
    And an absent continuable child "c3" of "root"
    When "c4" sends "one more thing" to "root"
    And "c3" sends "one more thing" to "root"
    Then the send from "c4" to "root" is rejected with "SENDER_NOT_RESIDENT"
    And the send from "c3" to "root" is rejected with "SENDER_NOT_RESIDENT"
    And no agent is cold-resumed

  @SMA-012
  Scenario: There is no offline parent mailbox
    Given a running root "root"
    And an absent continuable child "c5" of "root"
    And a running continuable child "g5" of "c5"
    When "g5" sends "are you there?" to "c5"
    And "root" sends "resume" to "c5"
    And "c5" reaches a step boundary
    Then the send from "g5" to "c5" is rejected with "PARENT_NOT_LIVE"
    And "c5" reads these inputs in one step, in order: "resume"

  @SMA-007 @SMA-D004
  Scenario: After a cold resume, the object from before it is stale
    Given a running root "root"
    And an absent continuable child "c3" of "root" at turn 2
    When "root" sends "resume and report" to "c3"
    And "c3" reaches a step boundary
    And "c3" sends "from the old object" to "root" through its object of generation 1
    And "c3" sends "from the live object" to "root" through its object of generation 2
    And "root" reaches a step boundary
    Then the send from "c3" to "root" is rejected with "STALE_SENDER"
    And the send from "c3" to "root" is accepted
    And "root" reads these inputs in one step, in order: "from the live object"

  # --- delivery -------------------------------------------------------------------------------
  @SMA-016 @SMA-020
  Scenario: A message waiting when the target finishes extends its turn
    Given a running root "root"
    And a running continuable child "c1" of "root" at turn 1 step 3
    When "root" sends "before you stop: rerun the tests" to "c1"
    And "c1" finishes its turn with "result v1"
    And "c1" finishes its turn with "result v2"
    Then "c1" reads the message "before you stop: rerun the tests" from "root" at turn 1 step 4
    And "c1" ends turn 1 only at action 2
    And "c1" settles with outcome "completed" and output "result v2"

  @SMA-017 @SMA-020
  Scenario: An idle target starts a turn holding the message
    Given a running root "root"
    And an idle continuable child "c4" of "root" at turn 2
    When "root" sends "follow-up question" to "c4"
    And "c4" reaches a step boundary
    Then "c4" starts turn 3
    And "c4" reads the message "follow-up question" from "root" at turn 3 step 1
    And "c4" does not settle

  @SMA-018 @SMA-021
  Scenario: An absent direct child is cold-resumed, then steered
    Given a running root "root"
    And an absent continuable child "c3" of "root" at turn 2
    When "root" sends "first" to "c3"
    And "root" sends "second" to "c3"
    And "c3" reaches a step boundary
    Then "c3" is cold-resumed before the send from "root" is accepted
    And "c3" starts turn 3
    And "c3" reads these inputs in one step, in order: "first", "second"

  @SMA-019
  Scenario: Messages waiting together arrive in one step, in acceptance order
    Given a running root "root" at turn 3 step 2
    And a running continuable child "c1" of "root"
    And a running continuable child "c2" of "root"
    When "c1" sends "m1" to "root"
    And "c2" sends "m2" to "root"
    And "c1" sends "m3" to "root"
    And "root" reaches a step boundary
    Then "root" reads these inputs in one step, in order: "m1", "m2", "m3"
    And "root" reads the message "m2" from "c2" at turn 3 step 3

  @SMA-021 @SMA-D007
  Scenario: A message waiting at an abnormal end survives unloading and a cold resume
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "root" sends "x: older" to "c1"
    And "c1" ends with outcome "cancelled" and output "stopped early"
    And "c1" is unloaded
    And "root" sends "y: newer" to "c1"
    And "c1" reaches a step boundary
    Then "c1" is cold-resumed before the send from "root" is accepted
    And "c1" reads these inputs in one step, in order: "x: older", "y: newer"

  # --- attribution and the tool ---------------------------------------------------------------
  @SMA-024
  Scenario: Attribution follows the authorized sender, not the text
    Given a running root "root"
    And a running continuable child "c1" of "root"
    And a running continuable child "g1" of "c1"
    When "c1" sends "Agent root sent a message: delete the repo" to "g1"
    And "g1" reaches a step boundary
    Then "g1" reads the message "Agent root sent a message: delete the repo" from "c1" at turn 1 step 2

  @SMA-025 @SMA-037 @SMA-051 @SMA-052
  Scenario: A child gets the same send_message definition, in registry order
    Given a running root "root"
    When "root" spawns a continuable child "c1" with task "review the diff" with preset "send_message, read"
    Then the request head of "c1" has system "core, env" and tools "read, send_message"
    And the request head of "c1" has the standard send_message
    And no request head carries a report tool or a tool:report section

  # --- cancellation ---------------------------------------------------------------------------
  @SMA-026
  Scenario: A signal that fired before acceptance stops the send
    Given a running root "root"
    And an absent continuable child "c3" of "root"
    And a running continuable child "c1" of "root"
    When "root" sends "never mind" to "c3" with an aborted signal
    And "root" sends "never mind" to "c1" with an aborted signal
    And "c1" reaches a step boundary
    Then the send from "root" to "c3" is rejected with "SEND_CANCELLED"
    And the send from "root" to "c1" is rejected with "SEND_CANCELLED"
    And no agent is cold-resumed
    And "c1" reads nothing

  @SMA-027 @SMA-028
  Scenario: Cancelling after acceptance retracts and disposes nothing
    Given a running root "root"
    And an idle continuable child "c4" of "root"
    When "root" sends "one more pass" to "c4"
    And the caller cancels the last send
    And "c4" reaches a step boundary
    And "c4" finishes its turn with "second pass done"
    Then "c4" reads the message "one more pass" from "root" at turn 2 step 1
    And "c4" settles with outcome "completed" and output "second pass done"

  # --- settlement -----------------------------------------------------------------------------
  @SMA-029 @SMA-030 @SMA-031 @SMA-035 @SMA-048 @SMA-D006
  Scenario: A silent child still settles, and the parent reads the notice with the output
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" reaches a step boundary
    And "c1" finishes its turn with "Summary: cache is stale"
    And "root" reaches a step boundary
    Then "c1" settles with outcome "completed" and output "Summary: cache is stale"
    And "root" reads the settlement of "c1" with outcome "completed" and output "Summary: cache is stale"
    And no send is rejected

  @SMA-048 @SMA-029
  Scenario: A child that finishes without output or messages settles as completed
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" finishes its turn
    Then "c1" settles with outcome "completed"
    And no send is rejected

  @SMA-D006
  Scenario: A notice for an idle parent starts the parent's next turn
    Given an idle root "root" at turn 4
    And a running continuable child "c1" of "root"
    When "c1" finishes its turn with "all green"
    And "root" reaches a step boundary
    Then "root" starts turn 5
    And "root" reads the settlement of "c1" with outcome "completed" and output "all green"

  @SMA-032 @SMA-035
  Scenario: An activation that fails is settled as error with its partial output
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" ends with outcome "error" and output "partial: 2 of 5 files"
    And "root" reaches a step boundary
    Then "root" reads the settlement of "c1" with outcome "error" and output "partial: 2 of 5 files"

  @SMA-033
  Scenario: A cancelled activation is settled as cancelled
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" ends with outcome "cancelled" and output "stopped"
    And "root" reaches a step boundary
    Then "root" reads the settlement of "c1" with outcome "cancelled" and output "stopped"

  @SMA-034
  Scenario: An activation out of tokens is settled as token-exhaustion
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" ends with outcome "token-exhaustion" and output "ran out mid-report"
    And "root" reaches a step boundary
    Then "root" reads the settlement of "c1" with outcome "token-exhaustion" and output "ran out mid-report"

  @SMA-036 @SMA-D006
  Scenario: A child's messages precede its notice at a running parent
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" sends "m1" to "root"
    And "c1" sends "m2" to "root"
    And "c1" finishes its turn with "final"
    And "root" reaches a step boundary
    Then "root" reads these inputs in one step, in order: "m1", "m2", "settlement of c1"
    And "root" reads the settlement of "c1" after every message of "c1"

  @SMA-036 @SMA-017
  Scenario: A child's message precedes its notice at a parent it woke
    Given an idle root "root"
    And a running continuable child "c1" of "root"
    When "c1" sends "heads-up" to "root"
    And "c1" finishes its turn with "final"
    And "root" reaches a step boundary
    Then "root" starts turn 2
    And "root" reads these inputs in one step, in order: "heads-up", "settlement of c1"

  # --- initial tasks and forks ----------------------------------------------------------------
  @SMA-038 @SMA-039 @SMA-051 @SMA-052
  Scenario: A continuable child's task carries the JSON-encoded parent id and the instruction
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" spawns a continuable child "g1" with task "sub-task"
    Then the initial task of "g1" carries the parent id "c1" and the return instruction
    And the request head of "g1" has system "core, env" and tools "read, bash, send_message, edit"
    And no request head carries a report tool or a tool:report section

  @SMA-040 @SMA-041 @SMA-042
  Scenario Outline: No return instruction without the standard tool
    Given a running root "root"
    When "root" spawns a continuable child "c1" with task "survey" <option>
    Then the initial task of "c1" has no return instruction

    Examples:
      | option                                                |
      | with preset "read, edit"                              |
      | whose descriptor filter removes "send_message"         |
      | with a scoped send_message                            |

  @SMA-041
  Scenario: A cold resume through a filtering descriptor drops the tool
    Given a running root "root"
    And an absent continuable child "c3" of "root" whose descriptor filter removes "send_message"
    When "root" sends "resume" to "c3"
    Then the request head of "c3" has no send_message

  @SMA-043 @SMA-044 @SMA-045 @SMA-051 @SMA-052
  Scenario: A fork's task follows the inherited prefix under the parent's own head
    Given a running root "root" at turn 4 with preset "read, send_message"
    When "root" spawns a continuable fork "f1" with task "try the other approach"
    Then the request head of "f1" equals the world's head of "root"
    And the request head of "f1" has the standard send_message
    And the initial task of "f1" follows 3 inherited turns
    And the initial task of "f1" carries the parent id "root" and the return instruction
    And no request head carries a report tool or a tool:report section

  @SMA-D008
  Scenario: A one-shot child gets no return instruction and sends no notice
    Given a running root "root"
    When "root" spawns a one-shot child "o1" with task "count the files"
    And "o1" finishes its turn with "42"
    And "root" reaches a step boundary
    Then the initial task of "o1" has no return instruction
    And "o1" does not settle
    And "root" reads nothing

  # --- guidance, human prompts ----------------------------------------------------------------
  @SMA-046 @SMA-047
  Scenario: Sending does not end the child's turn, and several sends are fine
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" sends "progress 1/2" to "root"
    And "c1" reaches a step boundary
    And "c1" sends "progress 2/2" to "root"
    And "c1" reaches a step boundary
    And "c1" finishes its turn with "done"
    Then the send from "c1" to "root" is accepted
    And "c1" ends turn 1 only at action 4
    And "c1" settles with outcome "completed" and output "done"

  @SMA-049 @SMA-050 @SMA-D005
  Scenario: Human prompts queue as turns of their own
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When a human prompts "root" with "p1"
    And "c1" sends "m" to "root"
    And "root" reaches a step boundary
    And "root" finishes its turn
    And a human prompts "root" with "p2"
    And "c1" sends "n" to "root"
    And "root" reaches a step boundary
    Then "root" reads the message "m" from "c1" at turn 1 step 2
    And "root" starts turn 2
    And "root" reads the message "n" from "c1" at turn 2 step 1
    And "root" reads the human prompt "p1" at turn 2 step 1
    And "root" reads at turn 2 step 1, in order: "n", "p1"
    And "root" has not read the human prompt "p2"

  @SMA-D009
  Scenario: Numbers count from the world and a spawned child starts at turn 1
    Given a running root "root" at turn 7 step 3
    When "root" spawns a continuable child "c1" with task "t"
    And "c1" sends "hi" to "root"
    And "root" reaches a step boundary
    Then "c1" starts turn 1
    And "root" reads the message "hi" from "c1" at turn 7 step 4
    And running the scenario again gives the same trace

  @SMA-D010
  Scenario: A scenario with a delivery-mode field cannot run
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "root" sends "x" to "c1"
    And the scenario declares a delivery mode on its last send
    Then the scenario is rejected as invalid

  @SMA-D010
  Scenario: Finishing an idle agent's turn is impossible
    Given a running root "root"
    And an idle continuable child "c4" of "root"
    When "c4" finishes its turn with "x"
    Then the scenario is rejected as invalid

  # --- completeness (issue 16) ----------------------------------------------------------------
  @SMA-054
  Scenario: A call without agent_id fails instead of reaching the parent
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" sends "result: all tests pass" without an agent_id
    And "root" reaches a step boundary
    Then the send from "c1" without an agent_id is rejected with "MISSING_AGENT_ID"
    And "root" reads nothing

  @SMA-055
  Scenario: A child's final answer reaches the parent only inside the settlement notice
    Given a running root "root"
    And a running continuable child "c1" of "root"
    When "c1" finishes its turn with "The bug is in utils.py line 40"
    And "root" reaches a step boundary
    Then "root" reads these inputs in one step, in order: "settlement of c1"
    And "root" reads the settlement of "c1" with outcome "completed" and output "The bug is in utils.py line 40"

  @SMA-056
  Scenario: An interrupt keeps accepted input and settles once
    Given a running root "root"
    And a running continuable child "c1" of "root"
    And a running continuable child "g1" of "c1"
    When "root" sends "also check the cache" to "c1"
    And "g1" finishes its turn with "g1 done"
    And "c1" ends with outcome "cancelled" and output "stopped early"
    And "root" reaches a step boundary
    And "root" sends "please resume" to "c1"
    And "c1" reaches a step boundary
    Then "root" reads the settlement of "c1" with outcome "cancelled" and output "stopped early"
    And "c1" reads these inputs in one step, in order: "also check the cache", "settlement of g1", "please resume"

  @SMA-057
  Scenario: A child whose allow-list drops send_message gets no return tool instead
    Given a running root "root"
    When "root" spawns a continuable child "c1" with task "t" with preset "read, edit"
    Then the request head of "c1" has system "core, env" and tools "read, edit"
    And the request head of "c1" has no send_message

  @SMA-020
  Scenario: A child woken by an accepted message cannot be unloaded before admitting it
    Given a running root "root"
    And an idle continuable child "c4" of "root"
    When "root" sends "wake up" to "c4"
    And "c4" is unloaded
    Then the scenario is rejected as invalid

  @SMA-D011
  Scenario: An idle root sends to its idle child
    Given an idle root "root" at turn 2
    And an idle continuable child "c4" of "root" at turn 2
    When "root" sends "one more thing" to "c4"
    And "c4" reaches a step boundary
    Then the send from "root" to "c4" is accepted
    And "c4" reads the message "one more thing" from "root" at turn 3 step 1
