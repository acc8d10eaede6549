from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import Book, Chapter, Publisher


@admin.register(Publisher)
class PublisherAdmin(admin.ModelAdmin):
    list_display = ["name", "city"]
    search_fields = ["name"]


class ChapterInline(admin.TabularInline):
    model = Chapter
    extra = 2


@admin.action(description="Mark selected books as out of print")
def mark_out_of_print(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Book]) -> None:
    count = queryset.update(in_print=False)
    modeladmin.message_user(request, f"{count} book(s) marked as out of print.", messages.SUCCESS)


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ["title", "publisher", "published", "in_print"]
    list_filter = ["in_print", "publisher"]
    search_fields = ["title", "publisher__name"]
    actions = [mark_out_of_print]
    inlines = [ChapterInline]


# The front desk: the same catalogue on a second admin site, as teams give their staff, where
# the publisher is chosen with Django's own autocomplete widget (the Select2 build the admin
# ships, loading publishers from the admin's autocomplete view as you type) instead of a
# <select>. Its workflows say "choose Faber as the publisher" as they do on /admin/.
desk = admin.AdminSite(name="desk")
desk.site_header = "Front desk"


@admin.register(Publisher, site=desk)
class DeskPublisherAdmin(admin.ModelAdmin):
    search_fields = ["name"]


@admin.register(Book, site=desk)
class DeskBookAdmin(admin.ModelAdmin):
    list_display = ["title", "publisher", "published", "in_print"]
    search_fields = ["title"]
    autocomplete_fields = ["publisher"]
