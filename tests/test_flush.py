"""The test database between transactional tests (tests/conftest.py, django_db_setup): a
flush leaves the content types and permissions the migrations made, with their ids."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command

from games.models import Match


@pytest.mark.django_db(transaction=True)
def test_a_flush_puts_back_the_content_types_and_permissions_with_their_ids():
    kinds = dict(ContentType.objects.values_list("pk", "model"))
    permissions = dict(Permission.objects.values_list("pk", "codename"))
    match_kind = ContentType.objects.get_for_model(Match)
    assert "view_match" in permissions.values() and "match" in kinds.values()
    call_command("flush", interactive=False, verbosity=0)  # as after every transactional test
    assert dict(ContentType.objects.values_list("pk", "model")) == kinds
    assert dict(Permission.objects.values_list("pk", "codename")) == permissions
    assert ContentType.objects.get_for_model(Match) == match_kind
