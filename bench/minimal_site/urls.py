from django.urls import path

from bench.minimal_site import views

urlpatterns = [
    path("health/", views.health),
    path("hello/", views.hello),
    path("bump/", views.bump),
]
