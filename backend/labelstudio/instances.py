"""Where the blind review runs: a Label Studio instance that holds no source data.

Open-source Label Studio shows every project of an organization to every member, and every user of
an instance joins its one organization: an expert with an account on the source instance can open the
source project and read every original label, prediction and score. So the review projects live on
a *second* instance (``LABEL_AUDIT_REVIEW_URL`` / ``LABEL_AUDIT_REVIEW_API_KEY``) where the experts
have their only accounts; the source instance is only read (the items' inputs), the review instance
gets the projects, users and answers. Landing on the source instance is refused unless asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from backend.labelstudio.client import connect
from label_studio_sdk.core.api_error import ApiError

REVIEW_URL_ENV = "LABEL_AUDIT_REVIEW_URL"
REVIEW_KEY_ENV = "LABEL_AUDIT_REVIEW_API_KEY"
SAME_INSTANCE_LEAK = (
    "every user of an open-source Label Studio instance can open every project of its organization, "
    "so an expert there could open the source project and see its original labels, predictions and scores"
)


class SameInstanceRefused(ValueError):
    """The review would run on the source instance and the leak was not accepted."""


@dataclass(frozen=True)
class ReviewConnection:
    """How to reach the review instance (the token never leaves this object's ``connect``)."""

    url: str | None
    token: str | None = None

    def __repr__(self) -> str:  # never the token
        return f"ReviewConnection(url={self.url!r})"

    @property
    def configured(self) -> bool:
        return bool(self.url)


def source_url(settings: Any, url: str | None = None) -> str | None:
    """``--url`` or the settings' ``LABEL_STUDIO_URL``: the source instance's address (same-instance check)."""
    return url or settings.label_studio_url


def review_connection(settings: Any, url: str | None = None) -> ReviewConnection:
    """``--review-url`` or the settings' ``LABEL_AUDIT_REVIEW_URL``; the token from ``LABEL_AUDIT_REVIEW_API_KEY`` only."""
    return ReviewConnection(url=url or settings.review_url, token=settings.review_token)


def connect_review(conn: ReviewConnection, *, timeout: float = 120.0) -> Any:
    """An SDK client of the review instance (ValueError naming the variable when its token is missing)."""
    if not conn.url:
        raise ValueError(f"no review instance: pass --review-url or set {REVIEW_URL_ENV}")
    if not conn.token:
        raise ValueError(f"no API token for the review instance: set {REVIEW_KEY_ENV}")
    return connect(conn.url, conn.token, timeout=timeout)


def review_client_or(source_client: Any, *, settings: Any, url: str | None = None) -> Any:
    """The review instance's client when one is configured (``url`` or the settings), else ``source_client``.

    Whatever reads the experts' answers back must ask the instance holding the review projects: their ids
    mean other projects (or nothing) on the source instance.
    """
    conn = review_connection(settings, url)
    return connect_review(conn) if conn.configured else source_client


def origin(url: str | None) -> tuple[str, int] | None:
    if not url:
        return None
    parts = urlsplit(url if "://" in url else f"http://{url}")
    host = (parts.hostname or "").lower()
    host = "127.0.0.1" if host in ("localhost", "::1", "0.0.0.0") else host
    return host, parts.port or (443 if parts.scheme == "https" else 80)


def _project_stamp(client: Any, project_id: int) -> tuple[str, str] | None:
    """(title, created_at) of a project as this client sees it, or None when it cannot see it."""
    try:
        project = client.projects.get(id=project_id)
    except ApiError:
        return None
    return str(project.title), str(project.created_at)


def same_instance(source: Any, review: Any, *, source_project: int,
                  source_url: str | None = None, review_url: str | None = None) -> bool:
    """True when ``review`` reaches the instance holding the source project.

    The same origin decides it; otherwise the review client is asked for the source project: seeing a
    project with the same id, title and creation time means the same server behind another name.
    """
    if source is review:
        return True
    if origin(source_url) is not None and origin(source_url) == origin(review_url):
        return True
    stamp = _project_stamp(source, source_project)
    return stamp is not None and stamp == _project_stamp(review, source_project)


def check_review_instance(source: Any, review: Any, *, source_project: int, source_url: str | None,
                          review_url: str | None, allow_same_instance: bool) -> bool:
    """Refuse a review on the source instance unless ``allow_same_instance``; returns whether it is the same."""
    same = same_instance(source, review, source_project=source_project, source_url=source_url,
                         review_url=review_url)
    if same and not allow_same_instance:
        where = "no review instance is configured" if review_url is None else "the review instance is the source one"
        raise SameInstanceRefused(
            f"{where}: {SAME_INSTANCE_LEAK}. Run a second Label Studio for the review and set "
            f"{REVIEW_URL_ENV} / {REVIEW_KEY_ENV} (or --review-url), or pass --allow-same-instance to accept "
            "the leak"
        )
    return same
