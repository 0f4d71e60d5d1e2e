"""WSGI entry point, for management tooling only: the site itself runs on ASGI (daphne)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bitsite.settings")

application = get_wsgi_application()
