"""The installed app's three doors (bunco_club/site/views.py): the web app manifest, the service
worker's script and the offline page it keeps."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from bunco_club.site import views
from tests.builders import make_user

pytestmark = pytest.mark.django_db


def worker_config(script: str) -> dict[str, Any]:
    """The CONFIG the view writes into the worker's script."""
    found = re.search(r"const CONFIG = (\{.*?\n\});", script, re.S)
    assert found, script[:500]
    return json.loads(found.group(1))


def test_the_manifest_is_served_as_a_manifest_with_what_installing_needs(client: Client) -> None:
    answer = client.get("/manifest.webmanifest")

    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/manifest+json"
    manifest = json.loads(answer.content)
    assert manifest["name"] == "Bunco Club"
    assert manifest["short_name"] == "Bunco"
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/"
    assert manifest["scope"] == "/"
    assert manifest["theme_color"] == manifest["background_color"] == "#16131d"
    sizes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes


def test_every_icon_of_the_manifest_is_a_png_of_its_stated_size(client: Client) -> None:
    manifest = json.loads(client.get("/manifest.webmanifest").content)
    for icon in manifest["icons"]:
        path = finders.find(icon["src"].removeprefix("/static/"))
        assert path, icon["src"]
        with open(path, "rb") as file:
            header = file.read(24)
        assert header[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(header[16:20]), int.from_bytes(header[20:24])
        assert f"{width}x{height}" == icon["sizes"]


def test_every_page_links_the_manifest(client: Client) -> None:
    assert b'<link rel="manifest" href="/manifest.webmanifest">' in client.get("/").content


def test_the_worker_is_served_from_the_root_never_cached_with_the_whole_site_as_its_scope(client: Client) -> None:
    answer = client.get("/sw.js")

    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    assert answer["Service-Worker-Allowed"] == "/"
    assert "no-cache" in answer["Cache-Control"]
    assert "max-age=0" in answer["Cache-Control"]


def test_the_worker_keeps_the_offline_page_and_static_files_and_no_other_page(client: Client) -> None:
    config = worker_config(client.get("/sw.js").content.decode())

    assert config["offline"] == "/offline/"
    assert config["static"] == "/static/"
    pages = [url for url in config["shell"] if not url.startswith("/static/")]
    assert pages == ["/offline/"]
    assert "/static/css/site.css" in config["shell"]
    assert "/static/js/offline.js" in config["shell"]
    for url in config["shell"][1:]:
        assert finders.find(url.removeprefix("/static/")), url


def test_the_worker_names_its_cache_after_the_static_version(client: Client, settings: Any) -> None:
    settings.STATIC_VERSION = "release-41"
    first = client.get("/sw.js").content.decode()
    settings.STATIC_VERSION = "release-42"
    second = client.get("/sw.js").content.decode()

    assert worker_config(first)["version"] == "release-41"
    assert worker_config(second)["version"] == "release-42"
    assert 'const CACHE = "bunco-static-" + CONFIG.version;' in second


def test_without_a_set_version_the_version_follows_the_static_files(settings: Any, tmp_path: Any) -> None:
    """A new release (its collected static files' manifest changed) is a new version."""
    settings.STATIC_VERSION = ""
    settings.STATIC_COLLECTED = True
    settings.STATIC_ROOT = tmp_path
    settings.DEBUG = True  # worked out at each call, not once per process
    (tmp_path / "staticfiles.json").write_text('{"paths": {"js/site.js": "js/site.0123456789ab.js"}}')
    before = views.static_version()
    (tmp_path / "staticfiles.json").write_text('{"paths": {"js/site.js": "js/site.ba9876543210.js"}}')

    assert views.static_version() != before


def test_the_files_version_is_a_short_hash_when_nothing_is_collected(settings: Any) -> None:
    settings.STATIC_VERSION = ""
    settings.STATIC_COLLECTED = False

    assert re.fullmatch(r"[0-9a-f]{12}", views.static_version())


def test_the_offline_page_says_there_is_no_connection_and_holds_nobodys_data(client: Client) -> None:
    someone = make_user("wilhelmina")
    client.force_login(someone)
    answer = client.get("/offline/")
    page = answer.content.decode()

    assert answer.status_code == 200
    assert "No connection" in page
    assert "js/offline.js" in page
    assert "wilhelmina" not in page
    assert "csrf" not in page.lower()


def test_the_content_security_policy_allows_the_worker_the_manifest_and_the_video(client: Client) -> None:
    policy = client.get("/")["Content-Security-Policy"]

    assert "worker-src 'self'" in policy
    assert "manifest-src 'self'" in policy
    assert "media-src 'self'" in policy
