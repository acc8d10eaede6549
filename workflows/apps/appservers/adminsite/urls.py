"""The site is the admin, at /admin/ (/ redirects there), and the front desk, a second admin
site whose book form chooses its publisher with Django's autocomplete widget, at /desk/."""

from __future__ import annotations

from django.contrib import admin
from django.urls import path
from django.views.generic import RedirectView
from library.admin import desk

urlpatterns = [
    path("admin/", admin.site.urls),
    path("desk/", desk.urls),
    path("", RedirectView.as_view(url="/admin/")),
]
