"""``label-audit review`` refuses bad input with one clear line (exit 2), never a traceback or a secret."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from backend.cli import app

SECRET = "s3cr3t-token-that-must-never-be-printed-00"


def invoke(args: list[str], env: dict[str, str | None]):
    return CliRunner().invoke(app, args, env=env)


def test_missing_connection_settings_are_named(tmp_path):
    env = {"LABEL_STUDIO_URL": None, "LABEL_STUDIO_API_KEY": None, "DATABASE_URL": f"sqlite:///{tmp_path}/a.sqlite"}
    result = invoke(["review", "push", "--project", "1", "--experts", "a@x.org"], env)
    assert result.exit_code == 2 and "LABEL_STUDIO_URL" in result.output
    env["LABEL_STUDIO_URL"] = "http://127.0.0.1:9"
    result = invoke(["review", "status", "--project", "1"], env)
    assert result.exit_code == 2 and "LABEL_STUDIO_API_KEY" in result.output


def test_bad_options_fail_before_any_request_and_hide_the_token(tmp_path):
    env = {"LABEL_STUDIO_URL": "http://127.0.0.1:9", "LABEL_STUDIO_API_KEY": SECRET,
           "DATABASE_URL": f"sqlite:///{tmp_path}/a.sqlite"}
    result = invoke(["review", "push", "--project", "1", "--experts", "a@x.org", "--order", "random"], env)
    assert result.exit_code == 2 and "order must be one of confidence, shuffled" in result.output
    result = invoke(["review", "push", "--project", "1", "--experts", "a@x.org", "--budget", "-1"], env)
    assert result.exit_code == 2 and "budget" in result.output
    assert SECRET not in result.output
    assert "Traceback" not in result.output


def test_an_unreachable_label_studio_is_one_line(tmp_path):
    env = {"LABEL_STUDIO_URL": "http://127.0.0.1:9", "LABEL_STUDIO_API_KEY": SECRET,
           "DATABASE_URL": f"sqlite:///{tmp_path}/a.sqlite"}
    result = invoke(["review", "gold", "--project", "1"], env)
    assert result.exit_code == 2 and "cannot reach Label Studio" in result.output
    assert SECRET not in result.output and "Traceback" not in result.output


COOKIE = "sessionid=c00k1e-that-must-never-be-printed"


@pytest.fixture()
def error_page():
    """A real HTTP server answering every GET like a proxy in front of a down Label Studio: HTML 502."""

    class ErrorPage(BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"<html><body>Bad Gateway</body></html>"
            self.send_response(502)
            self.send_header("Content-Type", "text/html")
            self.send_header("Set-Cookie", COOKIE)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), ErrorPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("args", [["review", "gold", "--project", "1"], ["audit", "--project", "1"]])
def test_a_non_json_error_page_is_one_line_without_the_response_headers(tmp_path, error_page, args):
    """Status and text only: str(ApiError) would print the response headers (session cookies)."""
    env = {"LABEL_STUDIO_URL": error_page, "LABEL_STUDIO_API_KEY": SECRET,
           "DATABASE_URL": f"sqlite:///{tmp_path}/a.sqlite"}
    result = invoke(args, env)
    assert result.exit_code == 2 and "Label Studio answered 502" in result.output
    assert "Bad Gateway" in result.output
    assert "c00k1e" not in result.output and "set-cookie" not in result.output.lower()
    assert SECRET not in result.output and "Traceback" not in result.output


def test_a_review_instance_without_its_token_is_named(tmp_path):
    env = {"LABEL_STUDIO_URL": "http://127.0.0.1:9", "LABEL_STUDIO_API_KEY": SECRET,
           "LABEL_AUDIT_REVIEW_URL": "http://127.0.0.1:10", "LABEL_AUDIT_REVIEW_API_KEY": None,
           "DATABASE_URL": f"sqlite:///{tmp_path}/a.sqlite"}
    result = invoke(["review", "push", "--project", "1", "--experts", "a@x.org"], env)
    assert result.exit_code == 2 and "LABEL_AUDIT_REVIEW_API_KEY" in result.output
    assert SECRET not in result.output and "Traceback" not in result.output
