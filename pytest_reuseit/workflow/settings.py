"""The models of how a workflow runs: timeouts and dialogs (``settings``), the browser
context (``browser``) and the session it starts from (``session``)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from .op_args import DialogAnswer
from .strict import Seconds, Strict

# How long a page may take to answer a navigation by default: Playwright's own navigation timeout.
# A login POST that hashes a password, a busy database: real sites take seconds, not one.
NAVIGATION_TIMEOUT_S = 30.0


class Viewport(Strict):
    width: int = Field(gt=0)
    height: int = Field(gt=0)


class HttpCredentials(Strict):
    """HTTP authentication (basic auth of a staging site); placeholders and secrets allowed."""

    username: str
    password: str


class Geolocation(Strict):
    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)
    accuracy: float | None = Field(None, ge=0)


class BrowserOptions(Strict):
    """Playwright browser-context options for this workflow."""

    viewport: Viewport | None = None
    locale: str | None = None
    timezone_id: str | None = None
    color_scheme: Literal["light", "dark", "no-preference"] | None = None
    user_agent: str | None = None
    extra_http_headers: dict[str, str] | None = None
    ignore_https_errors: bool | None = None
    java_script_enabled: bool | None = None
    device: str | None = Field(
        None, description="a Playwright device name, e.g. 'iPhone 13' (viewport, user agent, touch)"
    )
    http_credentials: HttpCredentials | None = None
    geolocation: Geolocation | None = None
    permissions: tuple[str, ...] | None = Field(None, description="browser permissions granted, e.g. [geolocation]")
    offline: bool | None = None
    storage_state: str | None = Field(
        None, description="saved cookies and local storage to start from (a file relative to the workflow file)"
    )

    # Options the runtime builds itself: a device expands to several options, credentials are
    # filled in (secrets revealed) only when the context is created, the storage path is resolved.
    RUNTIME_BUILT: ClassVar[tuple[str, ...]] = ("device", "http_credentials", "storage_state")

    def context_kwargs(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True, exclude=set(self.RUNTIME_BUILT))


class SessionFrom(Strict):
    """``session: {from: login.reuseit.yaml}``: start from the browser storage that workflow leaves."""

    model_config = ConfigDict(populate_by_name=True)

    from_: str = Field(alias="from", description="the login workflow file (relative to this file)")

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = [str(k) for k in data if k != "from"]
            if unknown:
                raise PydanticCustomError("unknown_key", "unknown key '{key}'; expected: from", {"key": unknown[0]})
        return data


class Settings(Strict):
    retries: int = Field(3, ge=0, le=20, description="recovery attempts per failing check")
    check_timeout: Seconds = Field(5, description="seconds a DOM assertion waits")
    step_timeout: Seconds = Field(30, description="seconds one step may take, recovery included")
    action_timeout: Seconds = Field(10, description="seconds one op waits for its element")
    navigation_timeout: Seconds = Field(
        NAVIGATION_TIMEOUT_S,
        description="seconds a page may take to answer a navigation (a link, a form's submission, goto, a "
        "script's) before it counts as not answering; element waits do not cut it short",
    )
    dialog: DialogAnswer = Field("dismiss", description="how dialogs are answered unless an op says otherwise")
