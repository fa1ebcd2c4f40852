"""Sign-up on a Label Studio instance: closed to strangers, opened only by the organization's invite link.

Open-source Label Studio shows every project of its organization to every member, so an instance whose
sign-up page accepts anyone lets anyone read everything on it. Every instance this tool starts runs with
``DISABLE_SIGNUP_WITHOUT_LINK`` (:mod:`backend.labelstudio.local`), and ``review push`` refuses an instance
whose sign-up is open (:func:`signup_open`). Measured on 1.23.2: with sign-up closed the form is still
*shown*; only the POST is refused (403), unless it carries the organization's invite token. So the tool
signs its experts up through the invite link and resets the link's token right after, which leaves no
working link behind.
"""

from __future__ import annotations

from typing import Any

import httpx

SIGNUP_PATH = "/user/signup/"


class SignupRefused(ValueError):
    """Label Studio's sign-up form refused (closed without an invite, or the email exists)."""


def signup_open(url: str, *, timeout: float = 30.0) -> bool:
    """True when ``url``'s sign-up form accepts a POST without an invite token.

    The probe posts an empty form: a closed instance answers 403 before reading it, an open one
    re-renders the form with its errors (200) — no account is created either way.
    """
    with httpx.Client(base_url=url.rstrip("/"), timeout=timeout) as session:
        session.get(SIGNUP_PATH)
        resp = session.post(SIGNUP_PATH, data={"csrfmiddlewaretoken": session.cookies.get("csrftoken", "")},
                            headers={"Referer": f"{url.rstrip('/')}{SIGNUP_PATH}"})
    if resp.status_code == 403:
        return False
    if resp.status_code == 200:
        return True
    raise ValueError(f"cannot tell whether sign-up is open on {url}: the form answered HTTP {resp.status_code}")


def _raw(client: Any, method: str, path: str) -> dict[str, Any]:
    resp = client._client_wrapper.httpx_client.request(path, method=method)
    resp.raise_for_status()
    return resp.json()


def invite_token(client: Any) -> str:
    """The current invite token of the connected user's organization (never print it)."""
    return str(_raw(client, "GET", "api/invite")["token"])


def reset_invite(client: Any) -> None:
    """Give the organization a new invite token, so a link handed out before stops working."""
    _raw(client, "POST", "api/invite/reset-token")


def signup_user(url: str, email: str, password: str, *, invite: str | None = None) -> str:
    """Register a user through Label Studio's sign-up form and return their API token.

    The API can neither set a password nor read another user's token in open-source Label Studio; the
    form does both (the new user joins the instance's organization). ``invite`` is the organization's
    invite token, required where sign-up is closed. Raises :class:`SignupRefused` when the form refuses.
    """
    params = {} if invite is None else {"token": invite}
    with httpx.Client(base_url=url.rstrip("/"), timeout=30.0) as session:
        try:
            session.get(SIGNUP_PATH, params=params)
            resp = session.post(SIGNUP_PATH, params=params,
                                data={"email": email, "password": password,
                                      "csrfmiddlewaretoken": session.cookies.get("csrftoken", "")},
                                headers={"Referer": f"{url.rstrip('/')}{SIGNUP_PATH}"})
        except httpx.HTTPError as exc:  # its message holds the URL, invite token included
            raise SignupRefused(f"could not reach the sign-up form of {url} ({type(exc).__name__})") from None
        if resp.status_code != 302:
            raise SignupRefused(f"Label Studio refused to sign up {email} (HTTP {resp.status_code})")
        token = session.get("/api/current-user/token")
        if token.status_code != 200:
            raise SignupRefused(f"no token for {email} after sign-up (HTTP {token.status_code})")
        return str(token.json()["token"])


def invite_user(client: Any, email: str, password: str) -> str:
    """Sign ``email`` up on ``client``'s instance through a fresh invite link, then kill the link.

    Returns the new user's API token. The link's token is reset even when the form refuses.
    """
    url = client._client_wrapper.get_base_url()
    try:
        return signup_user(url, email, password, invite=invite_token(client))
    finally:
        reset_invite(client)
