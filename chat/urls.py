from django.urls import path

from chat import views

urlpatterns = [
    path("m/<match:public_id>/chat/mute", views.mute, name="chat_mute"),
    path("m/<match:public_id>/chat/<int:pk>/report", views.report, name="chat_report"),
    path("m/<match:public_id>/chat/<str:room>", views.say, name="chat_say"),
]
