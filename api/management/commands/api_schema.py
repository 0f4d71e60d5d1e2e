"""Print the API's OpenAPI schema (``make api-schema`` writes it to api/openapi.json)."""

import json

from django.core.management.base import BaseCommand

from api.api import api


class Command(BaseCommand):
    help = "Print the API's OpenAPI schema as JSON."

    def handle(self, *args, **options):
        self.stdout.write(json.dumps(api.get_openapi_schema(), indent=2, sort_keys=True))
