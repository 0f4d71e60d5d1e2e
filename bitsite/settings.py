"""Settings for bitsite, read from the environment.

The embedded default needs nothing installed: SQLite in the project folder and
the in-process channel layer (one server process). Set DATABASE_URL and
REDIS_URL for the scale-out configuration (PostgreSQL, Redis, several daphne
processes). docs/operations.md lists every variable.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from bitsite import runtime

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name, default=""):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", False)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. With DJANGO_DEBUG off the site refuses to start "
            "without a secret key: set DJANGO_SECRET_KEY to a long random string "
            '(python -c "import secrets; print(secrets.token_urlsafe(50))"), '
            "or set DJANGO_DEBUG=1 for local development."
        )
    SECRET_KEY = "django-insecure-local-development-only-" + "x" * 20

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "axes",
    "games",
    "learn",
    "accounts",
    "ratings",
    "lobby",
    "tournaments",
    "people",
    "chat",
    "ninja",  # the API's browsable docs, served from its own static files
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Every error under /api/ is JSON, whichever layer below made it (api/middleware.py).
    "api.middleware.JsonErrorsMiddleware",
    "csp.middleware.CSPMiddleware",
    # A NUL anywhere, or an over-long address or field: 400 before anything reads it.
    "bitsite.edge.EdgeMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files: precompressed
    # On PostgreSQL: a view that finds the connection pool empty is a 503 with Retry-After
    # (so is a middleware, through handler500: bitsite/database.py). Sync-only, as are the
    # two before it: side by side, Django's async chain crosses threads once for them.
    "bitsite.database.PoolMiddleware",
    # Pages compressed on the wire (Django masks the CSRF token and adds gzip padding
    # against BREACH).
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in browser holds its account's seats (accounts/signin.py).
    "accounts.signin.AccountTokenMiddleware",
    # A bot plays only through the API: the pages that play as the account refuse it.
    "accounts.bots.BotWebMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A button pressed after the session ended takes the whole page to sign in, and back.
    "bitsite.signin.SignInRedirectMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

# Logins (the admin's, and any later one) are throttled by django-axes: after
# BITSITE_LOGIN_FAILURES failed attempts for one user name from one address, or from one
# address whatever the names, logins from there are refused with 429 for
# BITSITE_LOGIN_COOLOFF_MINUTES. Never by the user name alone: wrong passwords typed for
# someone else's name must not lock its owner out from their own address.
# Attempts are kept in the database (and listed in the admin).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("BITSITE_LOGIN_FAILURES", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("BITSITE_LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["ip_address", "username"], "ip_address"]  # the pair; the address
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "lockout.html"
# The user name axes records, cut to what its records hold (a longer one overflowed them).
AXES_USERNAME_CALLABLE = "accounts.forms.axes_username"

# Accounts (accounts/): optional; signing in takes the browser's seats into the account.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my_games"
LOGOUT_REDIRECT_URL = "home"
# Password reset by email, only when the site can send email (EMAIL_HOST set): otherwise
# no link to it is shown and its pages are 404.
PASSWORD_RESET_BY_EMAIL = bool(os.environ.get("EMAIL_HOST"))
if PASSWORD_RESET_BY_EMAIL:
    EMAIL_HOST = os.environ["EMAIL_HOST"]
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
    EMAIL_TIMEOUT = 10
    DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "bitsite <noreply@localhost>")

ROOT_URLCONF = "bitsite.urls"

# Speed bought with private names of the libraries (bitsite/runtime/): every hook is on
# unless BITSITE_HOOKS says otherwise ("none", or the hooks to keep, comma-separated).
RUNTIME_HOOKS = runtime.parse(os.environ.get("BITSITE_HOOKS"))

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "people.context.inbox",
            ],
        },
    },
]

ASGI_APPLICATION = "bitsite.asgi.application"
WSGI_APPLICATION = "bitsite.wsgi.application"

# Database: DATABASE_URL, or a SQLite file in the project folder.
# SQLite runs in WAL mode with BEGIN IMMEDIATE transactions and a busy timeout,
# so concurrent moves queue for the write lock instead of failing with
# "database is locked".
SQLITE_PATH = BASE_DIR / "db.sqlite3"
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{SQLITE_PATH}",
        # Kept open by the threads that live as long as the process: the request threads
        # (REQUEST_THREADS, the sync_chain hook), the SQLite writer, the pusher and the
        # websocket consumers' database threads. Without the hook, Django's ASGI handler
        # runs each request in a thread of its own, which opens its own either way.
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "600")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": (
                "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;PRAGMA busy_timeout=20000;"
            ),
        }
    )

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A pool per process bounds the connections (Django's persistent connections would
    # be one per thread, and without the sync_chain hook every request has a thread of
    # its own; with it, each request gives its connection back when it ends). Every
    # connection of the process comes from it (requests, and the sockets' database
    # threads), so PostgreSQL's max_connections must exceed processes x DJANGO_DB_POOL_SIZE
    # plus room for migrations, cron and psql (docs/operations.md: three processes of 20
    # stay well under the default of 100).
    _POOL_MAX = int(os.environ.get("DJANGO_DB_POOL_SIZE", "20"))
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, _POOL_MAX),
        "max_size": _POOL_MAX,
        # How long a request waits for a connection: a request holds one for milliseconds,
        # so a longer wait means a burst larger than the pool, or PostgreSQL gone. Past it
        # the request is answered 503 with Retry-After (bitsite/database.py).
        "timeout": float(os.environ.get("DJANGO_DB_POOL_TIMEOUT", "5")),
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Channel layer: Redis when REDIS_URL is set, else in-process (one server only).
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis's layer, whose receive never raises into a socket
            # (bitsite/layers.py), reading a process's queue in batches while the
            # redis_batch hook is on (bitsite/runtime/layers.py).
            "BACKEND": (
                "bitsite.runtime.layers.RedisChannelLayer"
                if "redis_batch" in RUNTIME_HOOKS
                else "bitsite.layers.RedisChannelLayer"
            ),
            # redis-py 8 times reads out after 5 s by default, but the layer's receive
            # blocks in BZPOPMIN for 5 s: without a longer timeout every idle socket
            # is torn down (django/channels_redis#422).
            # redis-py's pool refuses a 101st connection in use: a burst of sockets
            # joining or leaving at once needs more.
            # All the sockets of one process share one Redis queue, and a group send
            # to a full queue is dropped with nothing but an INFO log: the default
            # capacity of 100 lost pushes under load. Messages still expire in 60 s.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 15, "max_connections": 1000}],
                "capacity": 5000,
            },
        }
    }
else:
    # A group send to a full channel is dropped silently: room for a slow socket.
    # Channels' in-memory layer (bitsite/layers.py), with its clean-up scan once a second
    # while the layer_cleanup hook is on (bitsite/runtime/layers.py).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": (
                "bitsite.runtime.layers.InProcessChannelLayer"
                if "layer_cleanup" in RUNTIME_HOOKS
                else "bitsite.layers.InProcessChannelLayer"
            ),
            "CONFIG": {"capacity": 1000},
        }
    }

# Django's cache holds what must expire by itself: which sockets are open and who is
# connected (games/presence.py). Redis when REDIS_URL is set, so every process sees the
# same; in-process memory otherwise. Short timeouts: a hung Redis must not hold a socket.
# Sessions are read through a cache of their own ("sessions"), which with Redis never
# fails its caller (bitsite/caches.py).
if REDIS_URL:
    _REDIS_CACHE = {
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "bitsite",
        "OPTIONS": {"socket_timeout": 0.5, "socket_connect_timeout": 0.5},
    }
    CACHES = {
        # Django's Redis cache, but clear() removes its own keys, not the whole
        # database (which the channel layer shares): bitsite/caches.py.
        "default": {"BACKEND": "bitsite.caches.RedisCache", **_REDIS_CACHE},
        "sessions": {"BACKEND": "bitsite.caches.ForgivingRedisCache", **_REDIS_CACHE},
        # The learn app's solved answers (learn/answers.py): shared by every process, kept
        # an hour, and a miss when Redis fails.
        "learn": {
            "BACKEND": "bitsite.caches.ForgivingRedisCache",
            **_REDIS_CACHE,
            "KEY_PREFIX": "bitsite-learn",
            "TIMEOUT": 3600,
        },
    }
else:
    # Room for every socket's slot: the default of 300 entries would evict live ones.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 200_000},
        },
        "sessions": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "sessions",
            "OPTIONS": {"MAX_ENTRIES": 200_000},
        },
        # A cache of its own, so that a flood of distinct positions evicts only its own
        # entries (a few KB each), never the rate limits' counts.
        "learn": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "learn",
            "TIMEOUT": 3600,
            "OPTIONS": {"MAX_ENTRIES": 5_000},
        },
    }


# How fast one browser (session) and one client address may act (games/limits.py):
# "per session,per address", each a count per second, minute, hour or day ("20/m"), or
# per so many of them ("30/10s").
def env_rates(name, default):
    per_session, _, per_address = os.environ.get(name, default).partition(",")
    return (per_session.strip(), (per_address or per_session).strip())


RATE_LIMITS = {
    "create": env_rates("BITSITE_RATE_CREATE", "60/m,300/m"),
    "join": env_rates("BITSITE_RATE_JOIN", "60/m,300/m"),
    "move": env_rates("BITSITE_RATE_MOVE", "1200/m,6000/m"),
    "socket": env_rates("BITSITE_RATE_SOCKET", "120/m,1200/m"),
    # Creating accounts and asking for password-reset emails (accounts/).
    "account": env_rates("BITSITE_RATE_ACCOUNT", "10/h,30/h"),
    # Listing a challenge in the lobby and "Play anyone" (besides "create"): what keeps one
    # address from filling the lobby with challenges made from fresh sessions.
    "lobby": env_rates("BITSITE_RATE_LOBBY", "10/m,30/m"),
    # The learn app's answers (learn/answers.py): every analysis board, theory and puzzle
    # answer counts against "analysis", cached or not (a short window: a burst is cut off
    # within seconds); one that cost the server over learn.answers.COSTLY_SECONDS of CPU
    # (a cold solve, a very long line) counts against "solve" as well, which is checked
    # before such work starts.
    "analysis": env_rates("BITSITE_RATE_ANALYSIS", "60/10s,120/10s"),
    "solve": env_rates("BITSITE_RATE_SOLVE", "5/10s,10/10s"),
    # Chat messages and reports (chat/): a few a second is talking; more is flooding.
    "chat": env_rates("BITSITE_RATE_CHAT", "8/10s,30/10s"),
}
# The API (api/): requests one personal access token may make (per token, then per
# client address, as above), and the streams one token may hold open at once.
API_RATE = env_rates("BITSITE_RATE_API", "600/m,1200/m")
# Requests with a bad token one client address may make: past it, 429 before the token is
# even looked up (guessing tokens, or a flood of bad ones, costs no query).
API_BAD_TOKENS = os.environ.get("BITSITE_RATE_API_BAD_TOKENS", "30/m")
API_STREAMS_PER_TOKEN = int(os.environ.get("BITSITE_API_STREAMS", "4"))
# Not counted per address: none by default (behind a proxy that does not pass the
# client's address, an exempt proxy would exempt every player); a load test on the same
# host, or the tests' own harness, names 127.0.0.1 here.
RATE_LIMIT_EXEMPT = env_list("BITSITE_RATE_EXEMPT", "")
RATELIMIT_FAIL_OPEN = True  # if the cache cannot count, do not refuse

# The learn app's pool for cold solves (learn/pool.py), per server process: "process"
# (worker processes, so a solve never holds the server's GIL) or "thread"; how many
# solve at once, and how many more may wait before a request is answered "busy" at once.
ANALYSIS_POOL = os.environ.get("BITSITE_ANALYSIS_POOL", "process").strip().lower()
if ANALYSIS_POOL not in ("process", "thread"):
    raise ImproperlyConfigured(
        f"BITSITE_ANALYSIS_POOL must be process or thread, not {ANALYSIS_POOL!r}."
    )
# A direct challenge (people/) unanswered this long reads as expired.
CHALLENGE_TTL = int(os.environ.get("BITSITE_CHALLENGE_TTL", str(24 * 3600)))
ANALYSIS_WORKERS = int(os.environ.get("BITSITE_ANALYSIS_WORKERS", "1"))
ANALYSIS_QUEUE = int(os.environ.get("BITSITE_ANALYSIS_QUEUE", "4"))
# The threads that run the site's views in each server process (the sync_chain hook,
# bitsite/runtime/handler.py: without it, Django's thread per request). More requests
# than this wait in line; the ones that may wait long (cold solves) must never fill it.
REQUEST_THREADS = int(os.environ.get("BITSITE_REQUEST_THREADS", "12"))
if REQUEST_THREADS < ANALYSIS_WORKERS + ANALYSIS_QUEUE + 4:
    raise ImproperlyConfigured(
        f"BITSITE_REQUEST_THREADS ({REQUEST_THREADS}) must exceed the analysis board's "
        f"workers and queue ({ANALYSIS_WORKERS} + {ANALYSIS_QUEUE}) by at least 4: a request "
        "waiting for a cold solve holds its thread."
    )

# Notifications that reach a player away from the site (people/delivery.py): Web Push
# and email. The site's VAPID private key (base64url: the raw 32-byte key, or DER), which
# every process must share; unset, one is made on first need and kept in the database
# (people.VapidKey). The subject is how a push service reaches whoever runs the site.
VAPID_PRIVATE_KEY = os.environ.get("BITSITE_VAPID_PRIVATE_KEY", "").strip()
VAPID_SUBJECT = os.environ.get("BITSITE_VAPID_SUBJECT", "mailto:webpush@localhost").strip()
# A push endpoint must be https on a host name; a stand-in push service on 127.0.0.1
# over http is taken only with debug on (and in the tests).
PUSH_LOOPBACK_ENDPOINTS = DEBUG
# The site's address in notification emails' links; unset: https (http with
# DJANGO_SECURE_SSL off) and the first of DJANGO_ALLOWED_HOSTS.
SITE_URL = os.environ.get("BITSITE_SITE_URL", "").strip().rstrip("/")

# In a friend's match without a clock, a player may claim the game once the opponent has
# had no page of it open for this many seconds.
ABANDON_AFTER = float(os.environ.get("BITSITE_ABANDON_SECONDS", "60"))

# A real-time match whose player to move has made no first move for this many seconds may
# be aborted by either player; the server aborts it itself at twice this (games/clock.py).
ABORT_AFTER = float(os.environ.get("BITSITE_ABORT_SECONDS", "30"))

# The lobby (lobby/): an open challenge closes LOBBY_CHALLENGE_TTL seconds after it was
# made, or once its creator has had no page of it open for LOBBY_CREATOR_AWAY seconds;
# each server process with a lobby page open (or a challenge made) looks for due
# challenges every LOBBY_SWEEP_EVERY seconds.
LOBBY_CHALLENGE_TTL = float(os.environ.get("BITSITE_LOBBY_TTL", "600"))
LOBBY_CREATOR_AWAY = float(os.environ.get("BITSITE_LOBBY_AWAY", "60"))
LOBBY_SWEEP_EVERY = float(os.environ.get("BITSITE_LOBBY_SWEEP", "5"))
# A burst of changes to the lobby's lists reaches each page as one frame this often.
LOBBY_PUSH_EVERY = float(os.environ.get("BITSITE_LOBBY_PUSH", "0.25"))

# Tournaments (tournaments/scheduler.py, tournaments/live.py). Every daphne process runs
# the scheduler's thread; the lease in the database lets one of them tick at a time.
TOURNAMENT_SCHEDULER = env_bool("BITSITE_TOURNAMENT_SCHEDULER", True)
# "hourly": an arena of each game at the top of every hour; "off": none.
TOURNAMENT_SCHEDULE = os.environ.get("BITSITE_TOURNAMENT_SCHEDULE", "hourly").strip().lower()
TOURNAMENT_HOURLY_MINUTES = 45
TOURNAMENT_TICK = float(os.environ.get("BITSITE_TOURNAMENT_TICK", "1"))
TOURNAMENT_GATHER = float(os.environ.get("BITSITE_TOURNAMENT_GATHER", "0.3"))
TOURNAMENT_LEASE = float(os.environ.get("BITSITE_TOURNAMENT_LEASE", "10"))
TOURNAMENT_PUSH_EVERY = float(os.environ.get("BITSITE_TOURNAMENT_PUSH", "0.25"))

# Sockets one browser (one session) may open: on one match, and on one server process.
SOCKETS_PER_MATCH = int(os.environ.get("BITSITE_SOCKETS_PER_MATCH", "8"))
SOCKETS_PER_PROCESS = int(os.environ.get("BITSITE_SOCKETS_PER_PROCESS", "32"))
# Sockets without a session cookie, from one client address, on one server process
# (addresses in RATE_LIMIT_EXEMPT are not counted); games/admission.py.
SOCKETS_PER_ADDRESS = int(os.environ.get("BITSITE_SOCKETS_PER_ADDRESS", "100"))
# Connections one client address may hold open at once, and open in a burst and then a
# second, on one server process: past them a connection is closed as it is accepted,
# before daphne reads it (bitsite/connections.py; RATE_LIMIT_EXEMPT and PROXY_ADDRESSES
# are not counted; 0 turns a limit off).
CONNECTIONS_PER_ADDRESS = int(os.environ.get("BITSITE_CONNECTIONS_PER_ADDRESS", "64"))
# The reverse proxy's addresses: a connection is accepted before its headers say whose it
# is, so the proxy's own connections are not capped per address (it caps its clients':
# deploy/nginx.conf). Loopback by default with DJANGO_BEHIND_PROXY (the proxy on the same
# host), none otherwise. Every request is still limited by its client's own address.
PROXY_ADDRESSES = env_list(
    "BITSITE_PROXY_ADDRESSES",
    "127.0.0.1,::1" if env_bool("DJANGO_BEHIND_PROXY", False) else "",
)
CONNECTIONS_BURST = int(os.environ.get("BITSITE_CONNECTIONS_BURST", "16"))
CONNECTIONS_PER_SECOND = float(os.environ.get("BITSITE_CONNECTIONS_PER_SECOND", "4"))
# Handshakes (a socket read, drawn and joined) one server process does at once, how many
# may wait for a turn, and how many one client may have in progress or waiting.
HANDSHAKES = int(os.environ.get("BITSITE_HANDSHAKES", "8"))
HANDSHAKE_QUEUE = int(os.environ.get("BITSITE_HANDSHAKE_QUEUE", "200"))
HANDSHAKES_PER_CLIENT = int(os.environ.get("BITSITE_HANDSHAKES_PER_CLIENT", "8"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# make run collects here; tests point DJANGO_STATIC_ROOT at an empty folder, so that
# they serve the working tree and never an old collected copy.
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "bitsite.storage.StaticStorage"
        )
    },
}
# Serve from the finders too, so a fresh checkout works without collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# Sessions hold the seat secrets: kept in the database for a year, and read through the
# cache (every move reads its player's session; a read from the cache saves a query). An
# unreachable cache reads as a miss (bitsite/caches.py).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_CACHE_ALIAS = "sessions"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): scripts, styles and sockets from this site only,
# no inline script, no plugin, never in a frame. The page's websocket is same-origin
# ('self' covers ws: and wss: to this host).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "object-src": [NONE],
    }
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# HTTPS settings: on by default with debug off; DJANGO_SECURE_SSL=0 turns them
# off for a plain-HTTP local run (make run) behind no proxy.
SECURE = env_bool("DJANGO_SECURE_SSL", not DEBUG)
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = SECURE and env_bool("DJANGO_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000" if SECURE else "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE
SECURE_HSTS_PRELOAD = SECURE
if env_bool("DJANGO_BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# A request refused with a 4xx (RequestDataTooBig, TooManyFieldsSent, DisallowedHost...) is
# one line, without its traceback (bitsite/logs.py).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"one_line_refusals": {"()": "bitsite.logs.OneLineRefusals"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["one_line_refusals"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
