"""Fetch a task's image the way Label Studio serves it to its own users, and nothing else.

Why a guarded fetcher: an image reference is task data, and task data is written by whoever can import
tasks. Fetched naively it is a server-side request forgery: ``http://169.254.169.254/...`` reads the cloud
metadata service from the worker, ``http://10.0.0.5/admin`` reaches the internal network, and any URL on
another host would receive the Label Studio token. So a reference is fetched only when it is

- a path on the configured instance (``/data/upload/...``, ``/data/local-files/?d=...``,
  ``/tasks/<id>/resolve/?fileuri=...``) or an absolute URL of exactly that instance (scheme, host, port):
  the only requests that carry the token (``Authorization: Token`` for a legacy token; a personal
  access token, a JWT, exchanged by the SDK for a short-lived ``Bearer`` token, as every other call);
- a cloud storage URI (``s3://``, ``gs://``, ``azure-blob://``, ``azure-spi://``, ``b2://``), asked of the
  instance's own resolve endpoint for the task (Label Studio 1.23.2 ``TaskResolveStorageUri``: it proxies
  the bytes when the storage has presigning off, else answers ``303`` to a presigned URL);
- a URL on a storage host named in ``allowed_hosts`` (fetched without the token), every address of which
  is public (checked when the name is resolved here; the connection resolves it again, so list only
  storage hosts whose DNS you trust);
- an inline ``data:image/...;base64,`` URL (size-checked, nothing fetched).

No redirect is followed, except the instance's answer pointing at an allowed storage host (a presigned
URL, fetched once without the token). Private, loopback, link-local and reserved addresses are refused
unless the URL is the configured instance itself. The body is streamed and dropped past ``max_bytes``;
its type is read from the bytes (Pillow decodes it; a header alone is never trusted). Each refusal is an
:class:`ImageRefused` with a stable reason code, which the caller records as that item's error. The
token is never logged, never put in an error and never sent anywhere but the instance.
"""

from __future__ import annotations

import base64
import binascii
import io
import ipaddress
import socket
import threading
import warnings
from typing import Sequence
from urllib.parse import urljoin, urlsplit

import httpx

from backend.common import defaults
from backend.providers.image_part import IMAGE_TYPES, ImagePart

#: Stable reason codes of :class:`ImageRefused` (what summaries count).
REASONS = ("image_reference", "image_host", "image_private_address", "image_redirect", "image_too_large",
           "image_type", "image_fetch")
#: URI schemes of Label Studio's cloud storages, resolved through the instance.
STORAGE_SCHEMES = frozenset({"s3", "gs", "azure-blob", "azure-spi", "b2"})
#: Pillow format -> MIME type a judge may be sent.
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}


class ImageRefused(ValueError):
    """An image reference that is not fetched (or not an image); ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, detail: str):
        if reason not in REASONS:
            raise ValueError(f"unknown image refusal reason {reason!r}")
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = (parts.scheme or "").lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise ImageRefused("image_reference", f"bad port in {_shown(url)}") from None
    return scheme, host, port


def _shown(url: str) -> str:
    """A URL as errors show it: scheme, host, port and path (no user info, no query: a presigned URL's
    signature stays out)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    try:
        host += f":{parts.port}" if parts.port is not None else ""
    except ValueError:  # a port that is no number: the host alone
        pass
    text = f"{parts.scheme}://{host}{parts.path}" if parts.scheme else parts.path
    return text if len(text) <= 160 else text[:157] + "..."


def _public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    mapped = getattr(ip, "ipv4_mapped", None)
    if mapped is not None:
        ip = mapped
    return ip.is_global and not ip.is_multicast


class ImageFetcher:
    """Fetches image references of one Label Studio instance's tasks (see the module docstring).

    Parameters
    ----------
    base_url : str
        The configured instance (``LABEL_STUDIO_URL``): the one origin that gets the token.
    token : str or None
        Its API token (legacy token or personal access token).
    max_bytes : int
        Largest image accepted (bytes fetched or decoded from a data URL).
    allowed_hosts : sequence of str
        Storage hosts whose URLs (and presigned redirects) may be fetched, without the token.
    timeout : float
        Seconds for the connection and for each read.
    """

    def __init__(self, base_url: str, token: str | None, *, max_bytes: int = defaults.IMAGE_MAX_BYTES,
                 allowed_hosts: Sequence[str] = (), timeout: float = defaults.IMAGE_FETCH_TIMEOUT,
                 max_pixels: int = defaults.IMAGE_MAX_PIXELS):
        scheme, host, _ = _origin(base_url or "")
        if scheme not in ("http", "https") or not host:
            raise ValueError("the image fetcher needs the Label Studio URL (http or https, with a host)")
        if max_bytes < 1 or max_pixels < 1 or timeout <= 0:
            raise ValueError("max_bytes, max_pixels and timeout must be positive")
        self.base_url = base_url.rstrip("/")
        self.max_bytes = int(max_bytes)
        self.max_pixels = int(max_pixels)
        self.allowed_hosts = frozenset(h.strip().lower() for h in allowed_hosts if h and h.strip())
        self._origin = _origin(self.base_url)
        self._token = token or None
        self._sdk = None  # the SDK client whose token handling is reused (built on the first fetch)
        self._lock = threading.Lock()
        self._client = httpx.Client(follow_redirects=False, timeout=timeout, trust_env=False)

    def __repr__(self) -> str:
        return f"ImageFetcher({self.base_url!r}, allowed_hosts={sorted(self.allowed_hosts)})"

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "ImageFetcher":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public API --------------------------------------------------------------------------------

    def fetch(self, reference: str, *, variable: str, task_id: int | None = None) -> ImagePart:
        """The image ``reference`` names, as an :class:`ImagePart` for ``variable``; raises :class:`ImageRefused`."""
        if not isinstance(reference, str) or not reference.strip():
            raise ImageRefused("image_reference", f"field {variable!r} holds no image reference")
        ref = reference.strip()
        if ref[:5].lower() == "data:":
            return self.decode(self._inline(ref), variable=variable)
        url = self._target(ref, task_id)
        return self.decode(self._download(url), variable=variable)

    def decode(self, data: bytes, *, variable: str) -> ImagePart:
        """Check that ``data`` is an image a judge takes (decoded by Pillow) and wrap it; raises :class:`ImageRefused`."""
        # heavy: PIL (~22 ms), not loaded by label-audit --help
        from PIL import Image, UnidentifiedImageError

        if len(data) > self.max_bytes:
            raise ImageRefused("image_too_large", f"{len(data)} bytes, more than the limit of {self.max_bytes}")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                with Image.open(io.BytesIO(data)) as image:
                    fmt, (width, height) = image.format, image.size
                    if width * height <= self.max_pixels:  # the header's size, read before any pixel
                        image.load()  # decodes every pixel: a truncated or corrupt file fails here
        except Image.DecompressionBombError as exc:
            raise ImageRefused("image_too_large", str(exc)) from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
            raise ImageRefused("image_type", f"the bytes are not an image Pillow can decode ({type(exc).__name__})") from None
        if width * height > self.max_pixels:
            raise ImageRefused("image_too_large", f"{width}x{height} pixels, more than {self.max_pixels}")
        mime = _FORMATS.get(fmt or "")
        if mime is None:
            raise ImageRefused("image_type", f"{fmt} images are not sent to judges (accepted: {', '.join(IMAGE_TYPES)})")
        return ImagePart(variable=variable, mime=mime, data=bytes(data), width=width, height=height)

    # -- internals ---------------------------------------------------------------------------------

    def _inline(self, ref: str) -> bytes:
        header, comma, payload = ref.partition(",")
        if not comma or not header.lower().endswith(";base64") or not header[5:].lower().startswith("image/"):
            raise ImageRefused("image_reference", "only data:image/...;base64, URLs are taken inline")
        if (len(payload) // 4) * 3 > self.max_bytes + 3:
            raise ImageRefused("image_too_large", f"the data URL holds more than {self.max_bytes} bytes")
        try:
            return base64.b64decode(payload.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise ImageRefused("image_reference", "the data URL is not valid base64") from None

    def _target(self, ref: str, task_id: int | None) -> str:
        """The URL to request for ``ref`` (checked: the instance, or an allowed public storage host)."""
        parts = urlsplit(ref)
        scheme = parts.scheme.lower()
        if scheme in STORAGE_SCHEMES:
            if task_id is None or isinstance(task_id, bool):
                raise ImageRefused("image_reference", f"a {scheme}:// image is resolved through its task, and no task id was given")
            encoded = base64.urlsafe_b64encode(ref.encode("utf-8")).decode("ascii")
            url = f"{self.base_url}/tasks/{int(task_id)}/resolve/?fileuri={encoded}"
        elif not scheme and not parts.netloc and ref.startswith("/"):
            base_path = urlsplit(self.base_url).path.rstrip("/")
            root = self.base_url[: len(self.base_url) - len(base_path)] if base_path else self.base_url
            url = root + ref if base_path and ref.startswith(base_path + "/") else self.base_url + ref
        elif scheme in ("http", "https") or (not scheme and ref.startswith("//")):
            url = ref if scheme else f"{self._origin[0]}:{ref}"
        else:
            raise ImageRefused("image_reference", f"{_shown(ref)!r} is not a Label Studio path, an http(s) URL, "
                               "a storage URI or a data:image URL")
        self._check(url)
        return url

    def _on_instance(self, url: str) -> bool:
        return _origin(url) == self._origin

    def _check(self, url: str) -> None:
        """Refuse a URL that is neither the instance nor an allowed storage host with only public addresses."""
        parts = urlsplit(url)
        if parts.username is not None or parts.password is not None:
            raise ImageRefused("image_host", f"{_shown(url)} carries credentials in the URL")
        if self._on_instance(url):
            return
        scheme, host, port = _origin(url)
        try:
            literal = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None and not _public(literal):
            raise ImageRefused("image_private_address", f"{host} is a private, loopback, link-local or reserved "
                               "address (only the configured Label Studio may be one)")
        if host not in self.allowed_hosts:
            raise ImageRefused("image_host", f"{host} is not the configured Label Studio ({self._origin[1]}) nor an "
                               "allowed storage host (LABEL_AUDIT_IMAGE_HOSTS)")
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise ImageRefused("image_fetch", f"{host} does not resolve ({type(exc).__name__})") from None
        for info in infos:
            address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
            if not _public(address):
                raise ImageRefused("image_private_address", f"allowed storage host {host} resolves to a private, "
                                   f"loopback, link-local or reserved address ({address})")

    def _download(self, url: str) -> bytes:
        on_instance = self._on_instance(url)
        try:
            response = self._get(url, on_instance)
            try:
                if response.is_redirect:
                    return self._redirected(url, response, on_instance)
                if response.status_code != 200:
                    raise ImageRefused("image_fetch", f"{_shown(url)} answered HTTP {response.status_code}")
                return self._read(response, url)
            finally:
                response.close()
        except httpx.HTTPError as exc:
            raise ImageRefused("image_fetch", f"{_shown(url)}: {type(exc).__name__}") from None

    def _get(self, url: str, on_instance: bool) -> httpx.Response:
        headers = self._auth_headers() if on_instance else {}
        request = self._client.build_request("GET", url, headers=headers)
        return self._client.send(request, stream=True)

    def _redirected(self, url: str, response: httpx.Response, on_instance: bool) -> bytes:
        """Follow only the instance's redirect to an allowed storage host (a presigned URL), once, tokenless."""
        location = response.headers.get("location", "")
        target = urljoin(url, location)
        host = _origin(target)[1] if location else ""
        if not (on_instance and host and host in self.allowed_hosts and not self._on_instance(target)):
            raise ImageRefused("image_redirect", f"{_shown(url)} answered {response.status_code} to "
                               f"{host or 'nowhere'}: redirects are not followed (except the instance's storage "
                               "resolve to an allowed storage host)")
        self._check(target)
        second = self._client.send(self._client.build_request("GET", target), stream=True)
        try:
            if second.is_redirect or second.status_code != 200:
                raise ImageRefused("image_redirect" if second.is_redirect else "image_fetch",
                                   f"{_shown(target)} answered HTTP {second.status_code}")
            return self._read(second, target)
        finally:
            second.close()

    def _read(self, response: httpx.Response, url: str) -> bytes:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise ImageRefused("image_too_large", f"{_shown(url)} is {declared} bytes, more than the limit of {self.max_bytes}")
        buffer = bytearray()
        for chunk in response.iter_bytes():
            buffer += chunk
            if len(buffer) > self.max_bytes:
                raise ImageRefused("image_too_large", f"{_shown(url)} is more than the limit of {self.max_bytes} bytes")
        return bytes(buffer)

    def _auth_headers(self) -> dict[str, str]:
        """The instance's ``Authorization`` header, exactly as the SDK client (:mod:`backend.labelstudio.client`)
        sends it: a legacy token as ``Token``, a personal access token (a JWT refresh token) exchanged for a
        short-lived access token sent as ``Bearer`` (the SDK refreshes it when it expires)."""
        if not self._token:
            return {}
        with self._lock:
            if self._sdk is None:
                # heavy: label_studio_sdk's client, ~1.1 s at import; only a fetch with a token needs it
                from label_studio_sdk import LabelStudio

                try:
                    self._sdk = LabelStudio(base_url=self.base_url.rstrip("/"), api_key=self._token, timeout=120.0)
                except Exception as exc:  # an expired personal access token: the SDK refuses it up front
                    raise ImageRefused("image_fetch", f"the Label Studio token is not usable ({type(exc).__name__})") from None
            try:
                header = self._sdk._client_wrapper.get_headers()["Authorization"]
            except Exception as exc:  # the token exchange failed (network, revoked token)
                raise ImageRefused("image_fetch", f"could not get a Label Studio access token ({type(exc).__name__})") from None
        return {"Authorization": header}


__all__ = ["REASONS", "STORAGE_SCHEMES", "ImageFetcher", "ImageRefused"]
