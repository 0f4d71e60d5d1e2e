from django.urls import path

from people import views

urlpatterns = [
    path("challenges/", views.challenges_page, name="challenges"),
    path("challenges/<str:public_id>/accept", views.accept, name="challenge_accept"),
    path("challenges/<str:public_id>/decline", views.decline, name="challenge_decline"),
    path("challenges/<str:public_id>/cancel", views.cancel, name="challenge_cancel"),
    path("players/<str:username>/challenge/", views.challenge_player, name="challenge_player"),
    path(
        "players/<str:username>/challenge/<game:game>/",
        views.challenge_player_game,
        name="challenge_player_game",
    ),
    path("friends/", views.friends_page, name="friends"),
    path("notifications/", views.notifications_page, name="notifications"),
    path("notifications/read", views.notifications_read, name="notifications_read"),
    path("notifications/<int:pk>/open", views.notification_open, name="notification_open"),
    path("notifications/choices", views.notification_choices, name="notification_choices"),
    path("push/subscribe", views.push_subscribe, name="push_subscribe"),
    path("push/unsubscribe", views.push_unsubscribe, name="push_unsubscribe"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("players/<str:username>/follow", views.follow, name="follow"),
    path("players/<str:username>/unfollow", views.unfollow, name="unfollow"),
    path("players/<str:username>/block", views.block, name="block"),
    path("players/<str:username>/unblock", views.unblock, name="unblock"),
]
