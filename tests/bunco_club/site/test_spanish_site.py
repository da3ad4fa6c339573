"""The site's own pages in Spanish (issue 44): the header, the error pages, the log in, the offline
page, the manifest and the scripts' catalog follow the phone's language, and the header's switch
changes it with one tap."""

from __future__ import annotations

import html
import json

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests.builders import PASSWORD, logged_in, make_user

pytestmark = pytest.mark.django_db

SPANISH = {"accept-language": "es"}


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_not_found_page_is_in_spanish():
    response = Client(headers=SPANISH).get("/no-such-page/")
    assert response.status_code == 404
    page = text(response)
    assert "No encontrado" in page and "No hay nada en esta dirección." in page and "Inicio de Bunco Club" in page
    assert "Saltar al contenido" in page and "Entrar como anfitrión" in page
    assert "Not found" not in page and "Skip to content" not in page and "Host log in" not in page


def test_the_log_in_page_is_in_spanish():
    page = text(Client(headers=SPANISH).get(reverse("login")))
    assert "Nombre de usuario" in page and "Contraseña" in page and "Entrar · Bunco Club" in page
    assert "Username" not in page and "Password" not in page and ">Log in<" not in page


def test_the_offline_page_is_in_spanish():
    page = text(Client(headers=SPANISH).get(reverse("offline")))
    assert '<html lang="es">' in page and "Sin conexión" in page and "Intentar de nuevo ahora" in page
    assert 'data-still="Sigue sin haber conexión. Se intentará de nuevo en %(seconds)s s."' in page
    assert "No connection" not in page and "Try again now" not in page


def test_the_manifest_describes_the_site_in_spanish():
    manifest = json.loads(Client(headers=SPANISH).get(reverse("manifest")).content)
    assert manifest["description"] == "Noches de club, puntuación de mesas en vivo y torneos de Fill or Bust."
    assert (manifest["name"], manifest["lang"]) == ("Bunco Club", "es")
    english = json.loads(Client().get(reverse("manifest")).content)
    assert english["description"] == "Club nights, live table scoring and Fill or Bust tournaments."


def test_the_scripts_catalog_holds_the_spanish_of_the_site_and_tournament_scripts():
    catalog = Client().get(reverse("javascript_catalog", args=["es"])).content.decode()
    assert "Reconectando\\u2026" in catalog or "Reconectando…" in catalog  # static/js/site.js
    assert "Queda un minuto." in catalog  # static/js/tournament.js
    assert "Oscuro" in catalog  # static/js/theme.js


def test_the_headers_switch_shows_the_home_page_in_spanish_and_back():
    phone = Client()
    assert "Saltar al contenido" not in text(phone.get("/"))
    switched = phone.post(reverse("switch_language"), {"language": "es", "next": "/"})
    assert switched.status_code == 302 and switched["Location"] == "/"
    assert phone.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"
    home = text(phone.get("/"))
    # The header (base.html); the home page's own words are the club pages' (templates/bunco_club).
    assert '<html lang="es">' in home and "Entrar como anfitrión" in home
    assert "Saltar al contenido" in home and "Skip to content" not in home
    assert 'value="en" lang="en">English</button>' in home  # one tap back

    phone.post(reverse("switch_language"), {"language": "en", "next": "/"})
    assert "Skip to content" in text(phone.get("/"))


def test_a_language_the_site_does_not_speak_is_refused():
    response = Client(headers=SPANISH).post(reverse("switch_language"), {"language": "xx", "next": "/"})
    assert response.status_code == 400
    assert response.content.decode() == "Elige inglés o español."


def test_a_host_who_chose_spanish_reads_it_on_the_next_phone_they_log_in_on():
    host = make_user("ana")
    laptop = logged_in(host)
    laptop.post(reverse("switch_language"), {"language": "es", "next": "/"})

    phone = Client(headers={"accept-language": "en"})
    assert "Skip to content" in text(phone.get(reverse("login")))
    response = phone.post(reverse("login"), {"username": "ana", "password": PASSWORD})
    assert response.status_code == 302
    assert phone.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"
    assert "Saltar al contenido" in text(phone.get("/"))


def test_a_phone_logged_in_by_a_host_who_never_chose_keeps_its_own_language():
    make_user("bo")
    phone = Client(headers=SPANISH)
    phone.post(reverse("login"), {"username": "bo", "password": PASSWORD})
    assert settings.LANGUAGE_COOKIE_NAME not in phone.cookies
    assert "Saltar al contenido" in text(phone.get("/"))


def test_a_page_served_over_asgi_is_in_the_phones_language_and_says_so():
    """Under uvicorn the middleware runs on the async side (bunco_club/site/language.py): the same
    language, and the headers that keep a cache from serving one reader's language to another."""
    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    spanish = async_to_sync(AsyncClient().get)(reverse("login"), headers=SPANISH)
    english = async_to_sync(AsyncClient().get)(reverse("login"), headers={"accept-language": "en"})
    assert "Contraseña" in text(spanish) and "Password" in text(english)
    assert spanish["Content-Language"] == "es" and english["Content-Language"] == "en"
    assert "Accept-Language" in spanish["Vary"] and "Accept-Language" in english["Vary"]


def test_the_switchs_cookie_wins_over_the_phones_accept_language():
    phone = Client(headers=SPANISH)
    phone.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    response = phone.get(reverse("login"))
    assert "Password" in text(response) and response["Content-Language"] == "en"


def test_reading_the_language_costs_a_request_no_hop_to_the_sync_thread(settings, monkeypatch):
    """Under uvicorn a MiddlewareMixin's hooks each hop to the sync thread and back; Django's
    LocaleMiddleware added two to every tap and move (15 % on the tap's answer through the server,
    docs/PERFORMANCE.md). The site's language middleware reads the language where it runs."""
    from asgiref import sync
    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    hops: list[object] = []
    hop = sync.SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        hops.append(self.func)
        return await hop(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted)

    def hops_of_a_request() -> int:
        async_to_sync(AsyncClient().get)(reverse("login"), headers=SPANISH)  # warm: the first loads
        hops.clear()
        async_to_sync(AsyncClient().get)(reverse("login"), headers=SPANISH)
        return len(hops)

    with_language = hops_of_a_request()
    settings.MIDDLEWARE = [name for name in settings.MIDDLEWARE if "language" not in name and "locale" not in name]
    assert hops_of_a_request() == with_language
