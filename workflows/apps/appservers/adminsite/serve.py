"""Serve the example admin site on 127.0.0.1 until stdin closes or the process is terminated.

    ADMIN_PASSWORD=... python serve.py [--port 0]

A line ``reset`` on stdin puts the catalogue back to its seed rows (what workflows added, changed
or deleted is gone; users and login sessions stay) and answers ``RESET`` on stdout: a workflow run
as often as mutation testing runs it meets the same rows every time.

Creates a fresh SQLite database in a temporary folder, migrates it, adds the superuser ``admin``
(password from ``ADMIN_PASSWORD``) and the seed rows the example workflows start from, then prints
``READY http://127.0.0.1:PORT`` on stdout. Django runs with ``DEBUG = False``; its static files are
served by Django's own static files handler, as ``runserver --insecure`` does.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ["DJANGO_SETTINGS_MODULE"] = "settings"

# Seed rows: each example workflow changes only its own rows, so they run in any order.
PUBLISHERS = [("Penguin", "London"), ("Faber", "London"), ("Gallimard", "Paris")]
BOOKS = [
    ("Dune", "Penguin", "1965-08-01"),
    ("Emma", "Penguin", "1815-12-23"),
    ("Ulysses", "Faber", "1922-02-02"),
    ("The Stranger", "Gallimard", "1942-05-19"),
    ("Old Catalogue 1998", "Faber", "1998-01-10"),
    ("Old Catalogue 1999", "Faber", "1999-01-10"),
    ("Old Catalogue 2000", "Faber", "2000-01-10"),
    ("Remainder A", "Gallimard", "2001-03-01"),
    ("Remainder B", "Gallimard", "2001-04-01"),
    ("Misprint", "Penguin", "2010-06-01"),
]
CHAPTERS = {"Dune": ["Dune", "Muad'Dib", "The Prophet"]}


def prepare(password: str) -> None:
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)

    from django.contrib.auth.models import User

    User.objects.create_superuser("admin", "admin@example.com", password)
    seed()


def seed() -> None:
    """The catalogue's seed rows, in place of whatever it holds."""
    from django.db import transaction
    from library.models import Book, Chapter, Publisher

    with transaction.atomic():
        Chapter.objects.all().delete()
        Book.objects.all().delete()
        Publisher.objects.all().delete()
        _seed_rows(Book, Chapter, Publisher)


def _seed_rows(Book: Any, Chapter: Any, Publisher: Any) -> None:  # noqa: N803 - the models
    pubs = {name: Publisher.objects.create(name=name, city=city) for name, city in PUBLISHERS}
    for title, pub, date in BOOKS:
        book = Book.objects.create(title=title, publisher=pubs[pub], published=datetime.date.fromisoformat(date))
        for n, chapter in enumerate(CHAPTERS.get(title, []), start=1):
            Chapter.objects.create(book=book, number=n, title=chapter)


def _commands(httpd: object) -> None:
    """``reset`` lines until stdin closes, then shut the server down."""
    from django.db import connection

    for line in sys.stdin:
        if line.strip() == "reset":
            seed()
            connection.close()  # this thread's; the server's threads have their own
            print("RESET", flush=True)
    httpd.shutdown()  # type: ignore[attr-defined]


def serve(port: int) -> None:
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            pass

    httpd = ThreadedWSGIServer(("127.0.0.1", port), QuietHandler)
    httpd.daemon_threads = True
    httpd.set_app(StaticFilesHandler(get_wsgi_application()))
    host, bound = httpd.server_address[:2]
    # The parent reads this line to learn the port; stdin closing means the parent is gone.
    print(f"READY http://{host}:{bound}", flush=True)
    threading.Thread(target=_commands, args=(httpd,), daemon=True).start()
    httpd.serve_forever()
    httpd.server_close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args()
    password = os.environ.get("ADMIN_PASSWORD", "")
    if not password:
        print("ADMIN_PASSWORD is not set: the admin user needs a password", file=sys.stderr)
        return 2
    folder = tempfile.mkdtemp(prefix="reuseit-adminsite-")
    os.environ["ADMINSITE_DB"] = str(Path(folder) / "db.sqlite3")
    try:
        prepare(password)
        serve(args.port)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
