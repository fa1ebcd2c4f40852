"""The expert -> instance map and the review clients, without a server (the live checks are in
tests/backend/review/test_expert_isolation.py)."""

from __future__ import annotations

import json
import os

import pytest

from backend.labelstudio.expert_instances import (
    IsolationRefused,
    ReviewClients,
    check_isolation,
    load_expert_instances,
)


def write(path, data, mode=0o600):
    path.write_text(json.dumps(data))
    os.chmod(path, mode)
    return path


def test_the_map_is_read_and_a_file_others_can_read_is_refused(tmp_path):
    data = {"Ann@X.org": {"url": "http://a.test:8081/", "token": "t" * 40}}
    conns = load_expert_instances(write(tmp_path / "m.json", data))
    assert list(conns) == ["ann@x.org"] and conns["ann@x.org"].url == "http://a.test:8081"
    assert "t" * 40 not in repr(conns)  # the token never shows in a repr
    with pytest.raises(ValueError, match="chmod 600"):
        load_expert_instances(write(tmp_path / "loose.json", data, 0o644))
    for bad in ({}, {"ann": {"url": "u", "token": "t"}}, {"a@x.org": {"url": "u"}}, ["a@x.org"]):
        with pytest.raises(ValueError):
            load_expert_instances(write(tmp_path / "bad.json", bad))
    with pytest.raises(ValueError, match="cannot read"):
        load_expert_instances(tmp_path / "missing.json")


def test_each_project_is_read_on_its_own_instance(tmp_path):
    conns = load_expert_instances(write(tmp_path / "m.json", {
        "a@x.org": {"url": "http://127.0.0.1:8081", "token": "a" * 40},
        "b@x.org": {"url": "http://127.0.0.1:8082", "token": "b" * 40}}))
    clients = ReviewClients(shared="shared", shared_url="http://127.0.0.1:8090", experts=conns)  # SDK clients: no request yet
    base = lambda client: client._client_wrapper.get_base_url()  # noqa: E731
    url, client_a = clients.for_expert("A@x.org")
    assert url == "http://127.0.0.1:8081" and base(client_a) == url
    assert clients.for_expert("c@x.org") == (None, "shared")
    assert base(clients.for_instance("http://localhost:8082")) == "http://127.0.0.1:8082"
    assert clients.for_instance(None) == clients.for_instance("http://127.0.0.1:8090") == "shared"
    assert clients.for_instance("http://127.0.0.1:8081") is client_a  # one client per instance
    assert clients.project_url(None, 3) == "http://127.0.0.1:8090/projects/3/data"
    with pytest.raises(ValueError, match="does not list"):
        clients.for_instance("http://127.0.0.1:9999")


def test_experts_on_one_instance_are_refused_before_any_request(tmp_path):
    clients = ReviewClients(shared="shared", shared_url="http://127.0.0.1:8090")
    with pytest.raises(IsolationRefused, match="--allow-shared-review"):
        check_isolation(clients, ["a@x.org", "b@x.org"], allow_shared=False, allow_open_signup=False)
