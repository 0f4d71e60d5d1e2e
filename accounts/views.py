"""Signing up, in and out, My games, and password reset (only when email can be sent).

Signing in is Django's LoginView with its AuthenticationForm, so django-axes counts its
failures with the admin's (the same counters, by address and by user name). Every
sign-in, the sign-up's included, takes the browser's seats into the account
(accounts/signin.py). Signing out is a POST (a GET shows the button) and flushes the
session. A ``next`` address is followed only when it is on this site.
"""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordChangeForm
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.db import IntegrityError, transaction
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse, reverse_lazy
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods

from accounts import bots, devices, my_games
from accounts.forms import GamesFilter, SignInForm, SignUpForm
from accounts.signin import profile_of, signed_in_as_bot
from bitsite.signin import on_this_site
from games.browsers import keep_browser_key
from games.http import see_other
from games.views import limited

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _next(request) -> str:
    """The ``next`` address of the request, if it is on this site; else ""."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    return target if on_this_site(request, target) else ""


def password_reset_enabled() -> bool:
    return bool(getattr(settings, "PASSWORD_RESET_BY_EMAIL", False))


# ---- sign up, in, out ------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request):
    if request.method == "POST":
        return _sign_up(request)
    return keep_browser_key(request, _signup_page(request, SignUpForm()))


def _signup_page(request, form, status: int = 200):
    context = {"form": form, "next": _next(request)}
    return render(request, "accounts/signup.html", context, status=status)


@limited("account", by_browser=True)  # each sign-up starts a new session
def _sign_up(request):
    form = SignUpForm(request.POST)
    if not form.is_valid():
        return _signup_page(request, form, status=400)
    try:
        with transaction.atomic():
            user = form.save()  # and its profile (accounts/names.py)
    except IntegrityError:  # the same name, signed up by someone else a moment ago
        form.add_error("username", "That user name was just taken: please choose another.")
        return _signup_page(request, form, status=400)
    login(request, user, backend=MODEL_BACKEND)  # takes this browser's seats
    messages.success(
        request,
        f"Welcome, {user.get_username()}! Your games now follow you to every device "
        "you sign in on.",
    )
    return see_other(_next(request) or reverse("my_games"))


@require_http_methods(["GET", "HEAD", "POST"])
def login_view(request):
    """Django's LoginView (its form is what django-axes throttles), with a form that
    refuses an over-long user name before it authenticates; its ``next`` is followed only
    on this site."""
    view = auth_views.LoginView.as_view(
        template_name="accounts/login.html",
        authentication_form=SignInForm,
        extra_context={"password_reset": password_reset_enabled()},
    )
    return view(request)


@require_http_methods(["GET", "HEAD", "POST"])
def logout_view(request):
    """Signing out is a POST: the page a GET shows has the button. The session is
    flushed, so this browser no longer holds the account's seats."""
    if request.method == "POST":
        was_signed_in = request.user.is_authenticated
        logout(request)
        if was_signed_in:
            messages.info(request, "You signed out. Sign in again to get back to your games.")
        return see_other(reverse("home"))
    return render(request, "accounts/logout.html")


# ---- My games --------------------------------------------------------------------------


@require_GET
def my_games_page(request):
    """The account's ongoing matches (their turn first), then the finished ones, which
    the GET form filters by game and by result; htmx asks for the finished list alone
    (the page reads it again when one of its matches ends)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    user_id = request.user.pk
    filters = GamesFilter(request.GET)
    game = result = ""
    status = 200
    if filters.is_valid():
        game, result = filters.cleaned_data["game"], filters.cleaned_data["result"]
    else:
        status = 400  # the errors are shown next to the filters; the list is unfiltered
    pages = Paginator(
        my_games.finished(user_id, game=game, result=result), my_games.FINISHED_PER_PAGE
    )
    page = pages.get_page(request.GET.get("page"))
    context = {
        "filters": filters,
        "filtered": bool(game or result),
        "page": page,
        "finished": [my_games.row(match, user_id) for match in page.object_list],
    }
    if request.htmx:
        response = render(request, "accounts/my_games.html#finished", context, status=status)
    else:
        context.update(my_games.ongoing_context(user_id))
        response = render(request, "accounts/my_games.html", context, status=status)
    patch_vary_headers(response, ("HX-Request",))
    return response


# ---- password reset: only when this site can send email ----------------------------------


def _needs_email(view):
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not password_reset_enabled():
            raise Http404("Password reset by email is not available on this site.")
        return view(request, *args, **kwargs)

    return wrapper


_reset_request = auth_views.PasswordResetView.as_view(
    template_name="accounts/password_reset.html",
    email_template_name="accounts/password_reset_email.txt",
    subject_template_name="accounts/password_reset_subject.txt",
    success_url=reverse_lazy("password_reset_done"),
)


@_needs_email
@require_http_methods(["GET", "HEAD", "POST"])
def password_reset(request):
    if request.method == "POST":
        return _limited_reset(request)
    return _reset_request(request)


@limited("account", by_browser=True)
def _limited_reset(request):
    return _reset_request(request)


password_reset_done = _needs_email(
    auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_done.html")
)
password_reset_confirm = _needs_email(
    auth_views.PasswordResetConfirmView.as_view(
        template_name="accounts/password_reset_confirm.html",
        success_url=reverse_lazy("password_reset_complete"),
    )
)
password_reset_complete = _needs_email(
    auth_views.PasswordResetCompleteView.as_view(
        template_name="accounts/password_reset_complete.html",
        extra_context={"login_url": reverse_lazy("login")},
    )
)


# ---- Settings: the password, and where the account is signed in ---------------------------


def _settings_page(request, password_form=None, status: int = 200, bot_refusal: str = ""):
    current = request.session.session_key
    context = {
        "profile": profile_of(request.user),
        "bot_refusal": bot_refusal,
        "password_form": password_form or PasswordChangeForm(request.user),
        "devices": [
            {
                "device": d,
                "browser": devices.describe(d.user_agent),
                "this": d.session_key == current,
            }
            for d in devices.signed_in(request.user)
        ],
    }
    return render(request, "accounts/settings.html", context, status=status)


@require_GET
def settings_page(request):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    return _settings_page(request)


@require_http_methods(["POST"])
@limited("account", by_browser=True)  # the current password is checked: no guessing
def change_password(request):
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("account_settings"))
    form = PasswordChangeForm(request.user, request.POST)
    if not form.is_valid():
        return _settings_page(request, password_form=form, status=400)
    old_key = request.session.session_key
    user = form.save()
    update_session_auth_hash(request, user)  # this browser stays signed in (a new key)
    devices.renewed(user, old_key, request.session.session_key)
    messages.success(
        request,
        "Your password is changed. Every other browser signed in to your account "
        "has been signed out.",
    )
    return see_other(reverse("account_settings"))


@require_http_methods(["POST"])
def sign_out_others(request):
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("account_settings"))
    count = devices.sign_out_others(request.user, request.session.session_key)
    if count:
        messages.success(
            request, f"Signed out of {count} other browser{'s' if count != 1 else ''}."
        )
    else:
        messages.info(request, "No other browser was signed in to your account.")
    return see_other(reverse("account_settings"))


# ---- Settings: bots (accounts/bots.py) ----------------------------------------------------


@require_http_methods(["POST"])
def make_bot(request):
    """Make the account a bot, for good: only with the box ticked, and only while it has
    played no match (else the settings page again, with why, and a 400)."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("account_settings"))
    if request.POST.get("confirm") != "1":
        refusal = "Tick “I understand this cannot be undone” to make the account a bot."
        return _settings_page(request, status=400, bot_refusal=refusal)
    try:
        bots.make_bot(request.user)
    except bots.NotABot as refusal:
        return _settings_page(request, status=refusal.status, bot_refusal=refusal.message)
    # This browser stays signed in, holding a secret of its own: not the account's.
    signed_in_as_bot(request.session, request.user)
    messages.success(request, "This account is now a bot: it plays through the API.")
    return see_other(reverse("account_settings"))


@require_http_methods(["POST"])
def rated_against_bots(request):
    """A human's choice: may bots challenge them to rated games?"""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("account_settings"))
    if bots.is_bot(request.user):
        return bots.refused(request, "A bot does not choose this: it is for people.", 400)
    allowed = request.POST.get("allowed") == "1"
    bots.let_bots_rate(request.user, allowed)
    if allowed:
        messages.success(request, "Bots may now challenge you to rated games.")
    else:
        messages.success(request, "Bots may challenge you to casual games only.")
    return see_other(reverse("account_settings"))
