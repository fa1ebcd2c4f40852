"""One Label Studio instance per expert: the expert -> URL/token map and the clients of every review instance.

Why one instance per expert: open-source Label Studio (1.23.2) has no roles — every permission is
"is authenticated" (``core/permissions.py``), so every member of an organization can open, export,
import into and delete every project of it, invite people and read its members. Two experts in one
organization see each other's projects and answers. A second organization on the same instance would
hide them from each other, but open-source Label Studio cannot create one over its API unless the
server was started with ``ALLOW_ORGANIZATION_CREATION``, and moving users between organizations needs
its Django shell; separate instances need nothing but the public API, on any deployment. So each
expert's round-1 project lives on that expert's own instance (where they are the only user besides the
lead's admin account), and the shared review instance (``LABEL_AUDIT_REVIEW_URL``) keeps only the
reconciliation round, where both experts' answers are meant to be shown.

The map is a JSON file named by ``--expert-instances`` or ``LABEL_AUDIT_EXPERT_INSTANCES``::

    {"expert-a@example.org": {"url": "https://review-a.example.org", "token": "<admin token there>"}}

It holds tokens, so a file that the group or others can read is refused (like ``ssh`` keys).
The review store records the instance URL of every review project (fresh instances all number their
first project 1), and readers get the right client back with :meth:`ReviewClients.for_instance`.
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from backend.labelstudio.instances import connect_review, origin, review_client_or, review_connection, ReviewConnection
from backend.labelstudio import signup

EXPERT_INSTANCES_ENV = "LABEL_AUDIT_EXPERT_INSTANCES"


def load_expert_instances(path: str | Path) -> dict[str, ReviewConnection]:
    """``{email: ReviewConnection}`` from a map file (ValueError for a readable-by-others or bad file)."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the expert instances file {path}: {type(exc).__name__}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ValueError(f"{path} holds Label Studio tokens but others can read it: chmod 600 {path}")
    if not isinstance(raw, dict) or not raw:
        raise ValueError(f"{path} must map expert emails to {{\"url\": ..., \"token\": ...}}")
    out: dict[str, ReviewConnection] = {}
    for email, entry in raw.items():
        if "@" not in str(email) or not isinstance(entry, dict) or not entry.get("url") or not entry.get("token"):
            raise ValueError(f"{path}: the entry of {email!r} needs an email key, a url and a token")
        out[str(email).strip().lower()] = ReviewConnection(url=str(entry["url"]).rstrip("/"), token=str(entry["token"]))
    return out


def expert_instances(settings: Any, path: str | None = None) -> dict[str, ReviewConnection]:
    """The map of ``path`` or the settings' ``LABEL_AUDIT_EXPERT_INSTANCES``; empty when neither is set."""
    path = path or settings.expert_instances
    return load_expert_instances(path) if path else {}


@dataclass
class ReviewClients:
    """Every review-side instance: the shared one and each mapped expert's (clients made once, on demand).

    Parameters
    ----------
    shared : client
        The shared review instance's client (reconciliation; round 1 of experts without their own).
    shared_url : str, optional
        Its URL, for the links printed to the lead and the store (None: not known).
    experts : mapping
        Expert email -> connection of their own instance.
    """

    shared: Any
    shared_url: str | None = None
    experts: Mapping[str, ReviewConnection] = field(default_factory=dict)
    connect: Callable[[ReviewConnection], Any] = connect_review
    _clients: dict[str, Any] = field(default_factory=dict, repr=False)

    def _client(self, conn: ReviewConnection) -> Any:
        if conn.url not in self._clients:
            self._clients[conn.url] = self.connect(conn)
        return self._clients[conn.url]

    def instance_of(self, email: str) -> str | None:
        """The URL of the instance holding ``email``'s round-1 project (None: the shared one)."""
        conn = self.experts.get(email.strip().lower())
        return conn.url if conn is not None else None

    def for_expert(self, email: str) -> tuple[str | None, Any]:
        """(instance URL to store, client) for ``email``'s round-1 project."""
        conn = self.experts.get(email.strip().lower())
        return (None, self.shared) if conn is None else (conn.url, self._client(conn))

    def for_instance(self, url: str | None) -> Any:
        """The client of a stored project's instance (ValueError when no token for it is configured)."""
        if url is None or (self.shared_url and origin(url) == origin(self.shared_url)):
            return self.shared
        for conn in self.experts.values():
            if origin(conn.url) == origin(url):
                return self._client(conn)
        raise ValueError(f"a review project lives on {url}, which {EXPERT_INSTANCES_ENV} does not list: "
                         "add it (with its token) to the expert instances file")

    def url_of(self, instance: str | None) -> str | None:
        """The base URL of a stored instance (None stands for the shared one)."""
        return instance or self.shared_url

    def project_url(self, instance: str | None, project_id: int) -> str | None:
        """Where the lead opens a review project (None when the instance's URL is unknown)."""
        base = self.url_of(instance)
        return f"{base.rstrip('/')}/projects/{int(project_id)}/data" if base else None


def as_review_clients(clients: Any) -> ReviewClients:
    """``clients`` itself, or a bare SDK client wrapped as the only (shared) review instance."""
    return clients if isinstance(clients, ReviewClients) else ReviewClients(shared=clients)


def review_clients(source_client: Any, settings: Any, *, url: str | None = None, experts_path: str | None = None,
                   source_url: str | None = None) -> ReviewClients:
    """The review side as configured: shared instance (``--review-url`` / settings, else the source one) and the map."""
    shared_url = review_connection(settings, url).url
    return ReviewClients(shared=review_client_or(source_client, settings=settings, url=url),
                         shared_url=shared_url or source_url, experts=expert_instances(settings, experts_path))


class IsolationRefused(ValueError):
    """Round 1 would put experts where they can reach each other (or strangers can sign up)."""


SHARED_LEAK = ("in open-source Label Studio every member of an organization opens every project of it, so these "
               "experts would see each other's projects and answers")
OPEN_SIGNUP_LEAK = ("anyone who reaches it can sign up and then open every project there; close it "
                    "(DISABLE_SIGNUP_WITHOUT_LINK=true, see docs/experts.md)")


def check_isolation(clients: ReviewClients, experts: list[str], *, allow_shared: bool, allow_open_signup: bool,
                    signup_open: Callable[[str], bool] | None = None) -> list[str]:
    """Refuse a round 1 that is not isolated; returns the warnings of what was accepted.

    Two experts on one instance are refused unless ``allow_shared``; an instance whose sign-up form is
    open is refused unless ``allow_open_signup`` (checked over HTTP, through ``signup_open``).
    """
    probe = signup_open or signup.signup_open
    warnings: list[str] = []
    by_instance: dict[Any, list[str]] = {}
    for email in experts:
        url = clients.url_of(clients.instance_of(email))
        by_instance.setdefault(origin(url) if url else None, []).append(email)
    shared = [group for group in by_instance.values() if len(group) > 1]
    if shared:
        names = "; ".join(", ".join(g) for g in shared)
        if not allow_shared:
            raise IsolationRefused(f"experts on one review instance ({names}): {SHARED_LEAK}. Give each expert "
                                   f"their own instance ({EXPERT_INSTANCES_ENV}, docs/experts.md) or pass "
                                   "--allow-shared-review to accept it")
        warnings.append(f"experts share a review instance ({names}): they can see each other's answers")
    urls = list(dict.fromkeys(u for u in (clients.url_of(clients.instance_of(e)) for e in experts) if u))
    for url in urls:
        try:
            is_open = probe(url)
        except ValueError as exc:  # a proxy or SSO in front of the form: it may still be open behind it
            if not allow_open_signup:
                raise IsolationRefused(f"{exc}; check it is closed, then pass --allow-open-signup") from None
            warnings.append(str(exc))
            continue
        if is_open:
            if not allow_open_signup:
                raise IsolationRefused(f"sign-up is open on the review instance {url}: {OPEN_SIGNUP_LEAK}; or "
                                       "pass --allow-open-signup to accept it")
            warnings.append(f"sign-up is open on {url}: anyone who reaches it can read the review there")
    return warnings
