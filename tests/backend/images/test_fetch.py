"""The image fetcher against real HTTP servers on 127.0.0.1: what it fetches, what it refuses, and that a
refused reference costs no request anywhere.

Two ``http.server`` instances stand in for the configured Label Studio (``instance``) and for any other
server a task could point at (``target``); each records every request it receives (path and
``Authorization`` header), so "nothing was fetched" is read from the server, not assumed.
"""

from __future__ import annotations

import base64
from typing import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from backend.images.fetch import ImageFetcher, ImageRefused
from tests.support.http_recorder import Recorder, image_bytes

TOKEN = "tok-" + "s3cr3t" * 6


PNG = image_bytes()
JPEG = image_bytes("JPEG", (9, 4), "blue")


@pytest.fixture
def target() -> Iterator[Recorder]:
    """Any other server a task's URL could name: it must never be asked anything."""
    rec = Recorder(routes={"/img.png": (200, {"Content-Type": "image/png"}, PNG)}).start()
    yield rec
    rec.stop()


@pytest.fixture
def instance(target: Recorder) -> Iterator[Recorder]:
    """The configured Label Studio: a few paths serving images, redirects, oversized and fake images."""
    routes = {
        "/data/upload/3/cat.png": (200, {"Content-Type": "image/png"}, PNG),
        "/data/local-files/": (200, {"Content-Type": "image/jpeg"}, JPEG),
        "/tasks/7/resolve/": (200, {"Content-Type": "image/png"}, PNG),
        "/redirect-out": (302, {"Location": f"{target.url}/img.png"}, b""),
        "/redirect-storage": (303, {"Location": f"http://localhost:{target.server.server_address[1]}/img.png"}, b""),
        "/redirect-home": (302, {"Location": "/user/login/?next=/data/upload/3/cat.png"}, b""),
        "/big-declared": (200, {"Content-Type": "image/png"}, PNG + b"\0" * 5000),
        "/big-chunked": (200, {"Content-Type": "image/png", "Transfer-Encoding": "chunked"}, PNG + b"\0" * 50_000),
        "/not-an-image.png": (200, {"Content-Type": "image/png"}, b"<html>hello</html>"),
        "/truncated.png": (200, {"Content-Type": "image/png"}, image_bytes(size=(64, 64))[:60]),
        "/bitmap.bmp": (200, {"Content-Type": "image/bmp"}, image_bytes("BMP")),
    }
    rec = Recorder(routes=routes).start()
    yield rec
    rec.stop()


def fetcher_for(instance: Recorder, **options) -> ImageFetcher:
    return ImageFetcher(instance.url, TOKEN, **options)


def refused(fetcher: ImageFetcher, reference: str, **kw) -> ImageRefused:
    with pytest.raises(ImageRefused) as info:
        fetcher.fetch(reference, variable="image", **kw)
    assert TOKEN not in str(info.value) and TOKEN not in info.value.detail
    return info.value


def test_uploaded_file_is_fetched_with_the_token_and_checked_from_its_bytes(instance):
    part = fetcher_for(instance).fetch("/data/upload/3/cat.png", variable="image")
    assert part.data == PNG and part.mime == "image/png" and (part.width, part.height) == (7, 5)
    assert part.variable == "image"
    assert instance.seen == [("/data/upload/3/cat.png", f"Token {TOKEN}")]


def test_local_files_path_and_absolute_instance_url_are_the_instance(instance):
    fetcher = fetcher_for(instance)
    part = fetcher.fetch("/data/local-files/?d=images/dog.jpg", variable="photo")
    assert part.data == JPEG and part.mime == "image/jpeg" and (part.width, part.height) == (9, 4)
    assert fetcher.fetch(f"{instance.url}/data/upload/3/cat.png", variable="photo").data == PNG
    assert [path for path, _ in instance.seen] == ["/data/local-files/?d=images/dog.jpg", "/data/upload/3/cat.png"]


def test_storage_uri_is_resolved_through_the_task_on_the_instance(instance):
    part = fetcher_for(instance).fetch("s3://bucket/pets/cat.png", variable="image", task_id=7)
    assert part.data == PNG
    (path, auth), = instance.seen
    assert urlsplit(path).path == "/tasks/7/resolve/" and auth == f"Token {TOKEN}"
    fileuri = parse_qs(urlsplit(path).query)["fileuri"][0]
    assert base64.urlsafe_b64decode(fileuri).decode() == "s3://bucket/pets/cat.png"
    assert refused(fetcher_for(instance), "gs://bucket/cat.png").reason == "image_reference"  # no task id


def test_another_host_is_refused_before_any_request(instance, target):
    fetcher = fetcher_for(instance)
    port = target.server.server_address[1]
    assert refused(fetcher, f"{target.url}/img.png").reason == "image_private_address"
    assert refused(fetcher, f"http://localhost:{port}/img.png").reason == "image_host"
    assert refused(fetcher, "https://images.example.com/cat.png").reason == "image_host"
    # the instance's own name with another port is another server
    assert refused(fetcher, f"http://127.0.0.1:{port}/data/upload/3/cat.png").reason == "image_private_address"
    assert target.seen == [] and instance.seen == []


@pytest.mark.parametrize("url", ["http://10.0.0.1/cat.png", "http://169.254.169.254/latest/meta-data/",
                                 "http://192.168.1.20:8080/cat.png", "http://[::1]/cat.png",
                                 "http://[::ffff:10.0.0.1]/cat.png", "http://0.0.0.0:8080/cat.png"])
def test_private_and_link_local_addresses_are_refused(instance, url):
    error = refused(fetcher_for(instance), url)
    assert error.reason == "image_private_address"
    assert instance.seen == []


def test_an_allowed_storage_host_on_a_private_address_is_still_refused(instance, target):
    fetcher = fetcher_for(instance, allowed_hosts=("localhost",))
    error = refused(fetcher, f"http://localhost:{target.server.server_address[1]}/img.png")
    assert error.reason == "image_private_address" and "localhost" in error.detail
    assert target.seen == []


def test_a_redirect_on_the_instance_is_not_followed(instance, target):
    fetcher = fetcher_for(instance)
    error = refused(fetcher, "/redirect-out")
    assert error.reason == "image_redirect" and "302" in error.detail
    assert refused(fetcher, "/redirect-home").reason == "image_redirect"  # to the instance itself: neither
    assert target.seen == []
    assert [path for path, _ in instance.seen] == ["/redirect-out", "/redirect-home"]


def test_a_storage_redirect_is_checked_like_any_url_before_it_is_followed(instance, target):
    """The resolve endpoint's 303 to an allowed storage host is the one redirect followed; here that host
    resolves to loopback, so it is refused, and the target (which would have got no token) gets nothing."""
    assert refused(fetcher_for(instance), "/redirect-storage").reason == "image_redirect"  # host not allowed
    error = refused(fetcher_for(instance, allowed_hosts=("localhost",)), "/redirect-storage")
    assert error.reason == "image_private_address"
    assert target.seen == []


def test_size_limits_stop_the_download(instance):
    fetcher = fetcher_for(instance, max_bytes=len(PNG) + 100)
    assert refused(fetcher, "/big-declared").reason == "image_too_large"
    assert refused(fetcher, "/big-chunked").reason == "image_too_large"
    assert fetcher.fetch("/data/upload/3/cat.png", variable="image").data == PNG
    too_many_pixels = fetcher_for(instance, max_pixels=34)
    assert refused(too_many_pixels, "/data/upload/3/cat.png").reason == "image_too_large"  # 7 x 5 = 35


def test_type_comes_from_the_bytes_never_the_header(instance):
    fetcher = fetcher_for(instance)
    assert refused(fetcher, "/not-an-image.png").reason == "image_type"
    assert refused(fetcher, "/truncated.png").reason == "image_type"
    bmp = refused(fetcher, "/bitmap.bmp")
    assert bmp.reason == "image_type" and "BMP" in bmp.detail


def test_inline_data_urls_are_decoded_without_any_request(instance):
    fetcher = fetcher_for(instance, max_bytes=len(JPEG) + 10)
    url = "data:image/png;base64," + base64.b64encode(JPEG).decode()  # the declared type is not trusted
    part = fetcher.fetch(url, variable="image")
    assert part.data == JPEG and part.mime == "image/jpeg"
    assert refused(fetcher, "data:image/png;base64,not*base64").reason == "image_reference"
    assert refused(fetcher, "data:text/plain;base64,aGVsbG8=").reason == "image_reference"
    big = "data:image/png;base64," + base64.b64encode(b"\0" * (len(JPEG) + 100)).decode()
    assert refused(fetcher, big).reason == "image_too_large"
    assert instance.seen == []


@pytest.mark.parametrize("reference", ["file:///etc/passwd", "ftp://files.example.com/cat.png", "cat.png",
                                       "javascript:alert(1)", "", "   "])
def test_other_references_are_refused(instance, reference):
    assert refused(fetcher_for(instance), reference).reason == "image_reference"
    assert instance.seen == []


def test_credentials_in_a_url_and_http_errors(instance):
    fetcher = fetcher_for(instance)
    assert refused(fetcher, "http://user:pw@images.example.com/cat.png").reason == "image_host"
    missing = refused(fetcher, "/data/upload/3/missing.png")
    assert missing.reason == "image_fetch" and "404" in missing.detail


def test_the_token_never_leaves_the_instance_nor_shows(instance):
    fetcher = fetcher_for(instance)
    assert TOKEN not in repr(fetcher)
    fetcher.fetch("/data/upload/3/cat.png", variable="image")
    refused(fetcher, "/redirect-out")
    assert all(auth == f"Token {TOKEN}" for _, auth in instance.seen)
    anonymous = ImageFetcher(instance.url, None)
    anonymous.fetch("/data/upload/3/cat.png", variable="image")
    assert instance.seen[-1][1] is None


def test_constructor_validates():
    with pytest.raises(ValueError):
        ImageFetcher("", TOKEN)
    with pytest.raises(ValueError):
        ImageFetcher("ftp://ls.example.com", TOKEN)
    with pytest.raises(ValueError):
        ImageFetcher("http://ls.example.com", TOKEN, max_bytes=0)


def test_an_error_shows_where_it_fetched_without_credentials_or_query():
    from backend.images.fetch import _shown

    assert _shown("http://user:pw@127.0.0.1:8080/data/upload/1/a.png?sig=SECRET") == \
        "http://127.0.0.1:8080/data/upload/1/a.png"
    assert _shown("https://[::1]:9000/b.png") == "https://[::1]:9000/b.png"
    assert _shown("https://bucket.example.org/c.png?X-Amz-Signature=s") == "https://bucket.example.org/c.png"
