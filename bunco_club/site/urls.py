from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from bunco_club.site import views

urlpatterns = [
    path("", views.home, name="home"),
    path("alive/", views.alive, name="alive"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("offline/", views.offline, name="offline"),
    path("health/", views.health, name="health"),
    path("accounts/login/", views.login, name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/login/", views.admin_login),  # before the admin's own, which it guards
    path("admin/", admin.site.urls),
    path("language/", views.switch_language, name="switch_language"),
    path("jsi18n/<str:language>.js", views.javascript_catalog, name="javascript_catalog"),
    path("", include("live.urls")),
    path("", include("games.night.urls")),
    path("", include("games.table.urls")),
    path("", include("tournaments.urls")),
    path("clubs/", include("bunco_club.club_urls")),
]

if settings.TESTS_BETWEEN_TESTS_HOOKS:  # a server the test suite started, never a real site
    urlpatterns.append(path("between-tests/", include("bunco_club.site.between_tests")))
