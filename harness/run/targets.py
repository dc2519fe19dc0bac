"""The one small interface the runner and the Gherkin steps talk to (an injected transport).

``InProcessTarget`` calls the reference implementation's operation registry directly;
``harness.run.subprocess_target.SubprocessTarget`` speaks the adapter protocol to any program.
Both return :mod:`harness.run.outcome` values and never raise for a misbehaving implementation.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from agent_tck.harness.run.outcome import CallResult, Errored, Observed, Output, Rejected
from agent_tck.harness.run.protocol import OBSERVE


@dataclass(frozen=True)
class PlannedCall:
    """A call the runner will make, in order (``plan`` of a target that pipelines,
    :meth:`harness.run.subprocess_target.SubprocessTarget.plan`): its command may
    be sent before the call itself, and the call then only waits for the reply."""

    operation: str
    payload: Any
    case: str | None
    observe: bool = False

    def matches(self, operation: str, payload: Any, case: str | None, observe: bool) -> bool:
        return (self.operation == operation and self.case == case and self.observe == observe
                and (self.payload is payload or self.payload == payload))


class Target(Protocol):
    """An implementation under test."""

    @property
    def name(self) -> str: ...

    @property
    def operations(self) -> frozenset[str]: ...

    @property
    def observe(self) -> frozenset[str]:
        """Protocol 1.1 observations the implementation offers (``input-after``, ``repeat``)."""
        ...

    def call(self, operation: str, payload: Any, case: str | None = None,
             observe: bool = False) -> CallResult | Observed:
        """The operation's result; with ``observe`` (only when :attr:`observe` covers
        ``OBSERVE``), the operation run twice on one input, as an :class:`Observed`."""
        ...

    def close(self) -> None: ...


class InProcessTarget:
    """Runs operations from a registry in this process (default: the reference implementation).

    Input and output are passed through a JSON round trip, so the implementation sees exactly
    what an adapter would receive and cannot hand back anything JSON cannot carry.
    """

    def __init__(
        self,
        registry: Mapping[str, Callable[[Any], Any]] | None = None,
        name: str = "reference",
    ) -> None:
        if registry is None:  # the operations every family descriptor names
            from agent_tck.harness.families import operations

            registry = operations()
        self._registry = dict(registry)
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def operations(self) -> frozenset[str]:
        return frozenset(self._registry)

    @property
    def observe(self) -> frozenset[str]:
        return frozenset(OBSERVE)

    def call(self, operation: str, payload: Any, case: str | None = None,
             observe: bool = False) -> CallResult | Observed:
        fn = self._registry.get(operation)
        if fn is None:
            return Errored(f"operation {operation!r} is not implemented")
        data = json.loads(json.dumps(payload))
        first = self._once(fn, data)
        if not observe or isinstance(first, Errored):
            return _copied(first)
        second = self._once(fn, data)  # the same in-memory object, as an adapter must
        if isinstance(second, Errored):
            return second
        # copied only now, after both calls: an output that aliases the input shows the change
        return Observed(_copied(first), _copied(second),  # type: ignore[arg-type]
                        json.loads(json.dumps(data)))

    @staticmethod
    def _once(fn: Callable[[Any], Any], data: Any) -> CallResult:
        from agent_tck.reference_impl.errors import TckError

        try:
            return Output(fn(data))
        except TckError as err:
            return Rejected(err.code, err.message, err.pointer)
        except Exception as exc:  # an in-process crash is a result, not an aborted run
            return Errored(
                f"{type(exc).__name__}: {exc}",
                tuple(traceback.format_exc().splitlines()),
            )

    def close(self) -> None:
        return None


def _copied(result: CallResult) -> CallResult:
    """An output through a JSON round trip: nothing JSON cannot carry, nothing shared."""
    if isinstance(result, Output):
        try:
            return Output(json.loads(json.dumps(result.value)))
        except (TypeError, ValueError) as exc:
            return Errored(f"the output is not JSON: {exc}")
    return result
