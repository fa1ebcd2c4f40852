"""Talking to Label Studio through its SDK: connect, page through tasks, users, bulk imports.

Every call that touches many tasks is a bulk call (one request per page or per chunk): per-task
requests cost ~100-200 ms each on Label Studio 1.23.2, so 10 000 tasks would take half an hour.
The API token is read from the environment and never logged nor put in an exception message.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Iterator, Mapping, Sequence

from label_studio_sdk import LabelStudio
from backend.labelstudio.signup import invite_user

DEFAULT_PAGE_SIZE = 100
IMPORT_CHUNK = 1000
SELECT_CHUNK = 200


def connect(url: str | None, token: str | None, *, timeout: float = 120.0) -> LabelStudio:
    """An SDK client of ``url`` with ``token`` (``--url``/``--token`` or the settings' ``LABEL_STUDIO_URL`` /
    ``LABEL_STUDIO_API_KEY``, chosen by the command).

    Raises ValueError (without echoing the token) when either is missing.
    """
    if not url:
        raise ValueError("no Label Studio URL: pass --url or set LABEL_STUDIO_URL")
    if not token:
        raise ValueError("no Label Studio API token: set LABEL_STUDIO_API_KEY")
    return LabelStudio(base_url=url.rstrip("/"), api_key=token, timeout=timeout)


def organization_id(client: LabelStudio) -> int:
    """The organization of the connected user (where new users and projects go)."""
    org = client.users.whoami().active_organization
    if org is None:
        raise ValueError("the connected Label Studio user has no active organization")
    return int(org)


def iter_tasks(
    client: LabelStudio,
    project_id: int,
    *,
    page_size: int = DEFAULT_PAGE_SIZE,
    with_annotations: bool = False,
    task_ids: Sequence[int] | None = None,
) -> Iterator[Any]:
    """Every task of a project, one request per page.

    ``with_annotations`` asks for annotations and predictions too (``fields="all"``); ``task_ids``
    restricts the listing to those tasks (still paged, one request per page).
    """
    if page_size < 1:
        raise ValueError("page_size must be positive")
    fields = "all" if with_annotations else None
    if task_ids is None:
        yield from client.tasks.list(project=project_id, page_size=page_size, fields=fields)
        return
    ids = [int(t) for t in task_ids]
    for start in range(0, len(ids), SELECT_CHUNK):  # the selection travels in the URL: keep it short
        query = json.dumps({"selectedItems": {"all": False, "included": ids[start:start + SELECT_CHUNK]}})
        yield from client.tasks.list(project=project_id, page_size=page_size, fields=fields, query=query)


def find_user(client: LabelStudio, email: str) -> Any | None:
    """The user with this email (case-insensitive), or None."""
    wanted = email.strip().lower()
    for user in client.users.list():
        if (user.email or "").lower() == wanted:
            return user
    return None


def ensure_user(client: LabelStudio, email: str, *, org_id: int) -> int:
    """The id of the user with this email, created in ``org_id`` when missing.

    A user created through the API has no active organization, so their token answers 404 everywhere
    until it is set; an existing user is moved to ``org_id`` only when they have none.
    Created users have no password: they set one with ``label-studio reset_password`` (or sign up first).
    """
    if "@" not in email:
        raise ValueError(f"not an email address: {email!r}")
    user = find_user(client, email)
    if user is None:
        user = client.users.create(username=email.strip().lower(), email=email.strip().lower())
    if user.active_organization is None:
        client.users.update(user.id, active_organization=org_id)
    return int(user.id)


def sign_up_user(client: LabelStudio, email: str, *, org_id: int) -> str | None:
    """Create a user who can log in: sign them up with a fresh random password; returns that password.

    The API can create users but not give them a password (that needs ``label-studio reset_password`` on
    the server); Label Studio's own sign-up form does both, over HTTP, through a one-use invite link
    (:func:`backend.labelstudio.signup.invite_user`), so it works where sign-up is closed. Returns None
    when the user exists already (their password is theirs). Raises ValueError when the form refuses.
    """
    if find_user(client, email) is not None:
        return None
    password = secrets.token_urlsafe(12)
    invite_user(client, email.strip().lower(), password)
    ensure_user(client, email, org_id=org_id)
    return password


def import_tasks(client: LabelStudio, project_id: int, tasks: Sequence[Mapping[str, Any]]) -> list[int]:
    """Bulk-import task dicts (``{"data": {...}}`` or bare data); the created task ids, in order."""
    ids: list[int] = []
    for start in range(0, len(tasks), IMPORT_CHUNK):
        chunk = [dict(t) for t in tasks[start:start + IMPORT_CHUNK]]
        resp = client.projects.import_tasks(project_id, request=chunk, return_task_ids=True)
        got = list(resp.task_ids or [])
        if len(got) != len(chunk):
            raise RuntimeError(f"Label Studio created {len(got)} tasks for {len(chunk)} sent to project {project_id}")
        ids.extend(int(t) for t in got)
    return ids


def create_project(
    client: LabelStudio, *, title: str, label_config: str, description: str = "", **settings: Any
) -> int:
    """Create a project and return its id (``settings`` pass through, e.g. ``maximum_annotations``)."""
    project = client.projects.create(title=title, label_config=label_config, description=description, **settings)
    return int(project.id)

