"""One exception tree for the whole package.

The split follows allure-pytest on purpose: anything that subclasses ``AssertionError`` is a
*failed* test (the product or the site changed), anything else is *broken* (the run could not be
judged: unreachable site, model down, browser crash, a workflow file that cannot be read).
"""

from __future__ import annotations


class ReuseitError(Exception):
    """Base of every error the package raises on purpose."""


class WorkflowFormatError(ReuseitError):
    """A workflow file cannot be read or breaks the schema.

    ``problems`` holds one line per problem, each already naming ``file:line`` and the path
    inside the document, so the message can be shown as is.
    """

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__("\n".join(problems))


class PlaceholderError(ReuseitError):
    """A ``{placeholder}`` cannot be resolved."""


class BrokenRun(ReuseitError):
    """The run could not be judged (infrastructure): the item is *broken*, never *failed*."""


class WorkflowFailed(ReuseitError, AssertionError):
    """A check still failed after its attempts: the item is *failed*.

    ``result`` is the engine's ``RunResult`` so reporters can read everything that happened.
    """

    def __init__(self, message: str, result: object | None = None) -> None:
        super().__init__(message)
        self.result = result


class WorkflowBroken(BrokenRun):
    """The run ended broken; carries the ``RunResult`` like ``WorkflowFailed``."""

    def __init__(self, message: str, result: object | None = None) -> None:
        super().__init__(message)
        self.result = result
