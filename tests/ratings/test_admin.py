"""Ratings in the admin: viewable, never added, edited or deleted; the inlines for the
user admin show a user's ratings and newest rating changes, read only."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory

from games.models import Match
from ratings.admin import HISTORY_SHOWN, RatingChangeInline, RatingInline
from ratings.models import Rating, RatingChange
from tests.ratings.helpers import account, rated_match, resign

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    user = get_user_model().objects.create_superuser("boss", password="a-long-password-42")
    client = Client()
    client.force_login(user)
    return user, client


@pytest.fixture
def rated():
    ada, bob = account("ada"), account("bob")
    match, _, token2 = rated_match(ada, bob)
    resign(match, token2)
    return Match.objects.get(pk=match.pk), ada, bob


def test_ratings_and_changes_are_listed_and_shown(staff, rated):
    _, client = staff
    match, ada, _ = rated
    listing = client.get("/admin/ratings/rating/").content.decode()
    assert "ada" in listing and "1662?" in listing and "1338?" in listing
    changes = client.get("/admin/ratings/ratingchange/").content.decode()
    assert match.public_id in changes and "+162" in changes and "\u2212162" in changes
    change = RatingChange.objects.get(user=ada)
    page = client.get(f"/admin/ratings/ratingchange/{change.pk}/change/").content.decode()
    assert f"/m/{match.public_id}/replay/" in page and "win" in page
    assert 'name="rating_after"' not in page  # shown, not an input


def test_nothing_can_be_added_changed_or_deleted(staff, rated):
    _, client = staff
    rating = Rating.objects.get(user__username="ada")
    change = RatingChange.objects.get(user__username="ada")
    for model, row in (("rating", rating), ("ratingchange", change)):
        base = f"/admin/ratings/{model}/"
        assert client.get(f"{base}add/").status_code == 403
        assert client.post(f"{base}{row.pk}/change/", {"rating": "3000"}).status_code == 403
        assert client.get(f"{base}{row.pk}/delete/").status_code == 403
        assert client.post(f"{base}{row.pk}/delete/", {"post": "yes"}).status_code == 403
        listing = client.get(base).content.decode()
        assert "delete_selected" not in listing
    assert Rating.objects.get(pk=rating.pk).rating == rating.rating
    assert RatingChange.objects.filter(pk=change.pk).exists()


def test_a_rated_matchs_deletion_is_refused_while_its_changes_stand(staff, rated):
    _, client = staff
    match, _, _ = rated
    page = client.get(f"/admin/games/match/{match.pk}/delete/").content.decode()
    assert "<title>Cannot delete match" in page and "rating change" in page
    client.post(f"/admin/games/match/{match.pk}/delete/", {"post": "yes"})
    assert Match.objects.filter(pk=match.pk).exists()


def test_the_user_admins_inlines_are_read_only_and_show_the_newest_changes(staff, rated):
    user, _ = staff
    _, ada, bob = rated
    for _ in range(HISTORY_SHOWN + 2):
        match, _, token2 = rated_match(ada, bob)
        resign(match, token2)
    request = RequestFactory().get("/admin/auth/user/")
    request.user = user
    User = get_user_model()
    ratings = RatingInline(User, admin.site)
    history = RatingChangeInline(User, admin.site)
    for inline in (ratings, history):
        assert not inline.has_add_permission(request, ada)
        assert not inline.has_change_permission(request, ada)
        assert not inline.has_delete_permission(request, ada)
        assert inline.has_view_permission(request, ada)
    formset = history.get_formset(request, ada)(
        instance=ada, queryset=history.get_queryset(request)
    )
    shown = [form.instance for form in formset.forms]
    newest = list(RatingChange.objects.filter(user=ada).order_by("-created_at", "-pk"))
    assert shown == newest[:HISTORY_SHOWN]
    assert history.after(shown[0]).startswith(shown[0].shown_after)
    rows = ratings.get_formset(request, ada)(instance=ada, queryset=ratings.get_queryset(request))
    assert [form.instance.game for form in rows.forms] == ["bit-flip"]
    assert ratings.record(rows.forms[0].instance) == f"{HISTORY_SHOWN + 3} / 0 / 0"


def test_the_user_admin_shows_the_accounts_ratings_and_history(staff, rated):
    _, client = staff
    match, ada, _ = rated
    page = client.get(f"/admin/auth/user/{ada.pk}/change/").content.decode()
    assert "1662?" in page  # her rating after her win, provisional, in the inline
    assert f"/m/{match.public_id}/replay/" in page  # the rating change's match
    assert 'name="ratings-0-rating"' not in page  # shown, not an input
