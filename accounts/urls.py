from django.urls import path

from accounts import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.login_view, name="login"),
    path("logout/", views.logout_view, name="logout"),
    path("games/", views.my_games_page, name="my_games"),
    path("settings/", views.settings_page, name="account_settings"),
    path("settings/password/", views.change_password, name="change_password"),
    path("settings/sign-out-others/", views.sign_out_others, name="sign_out_others"),
    path("settings/bot/", views.make_bot, name="make_bot"),
    path("settings/rated-against-bots/", views.rated_against_bots, name="rated_against_bots"),
    # Only when this site can send email (settings.PASSWORD_RESET_BY_EMAIL); else 404.
    path("password-reset/", views.password_reset, name="password_reset"),
    path("password-reset/sent/", views.password_reset_done, name="password_reset_done"),
    path("reset/<uidb64>/<token>/", views.password_reset_confirm, name="password_reset_confirm"),
    path("reset/done/", views.password_reset_complete, name="password_reset_complete"),
]
