#!/usr/bin/env bash
# Start N daphne processes on PORT, PORT+1, ... sharing PostgreSQL and Redis.
# Used by `make scale N=3` (which sets the environment); Ctrl-C stops them all.
set -euo pipefail
N=${N:-2}
PORT=${PORT:-8000}
HOST=${HOST:-127.0.0.1}
BIN=${BIN:-.venv/bin}

case "${DATABASE_URL:-}" in
  postgres*) ;;
  *) echo "scale: set DATABASE_URL=postgres://... (SQLite is for one process)" >&2; exit 2 ;;
esac
if [ -z "${REDIS_URL:-}" ]; then
  echo "scale: set REDIS_URL=redis://... (the in-process channel layer cannot cross processes)" >&2
  exit 2
fi

"$BIN/python" manage.py migrate --noinput
"$BIN/python" manage.py collectstatic --noinput -v 0

pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  sleep 3
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}
trap stop EXIT INT TERM

# Behind a proxy, daphne takes the client's address and scheme from X-Forwarded-For and
# X-Forwarded-Proto (the rate limits and sign-in throttling count addresses).
PROXY_ARGS=()
case "${DJANGO_BEHIND_PROXY:-}" in 1|true|yes|on) PROXY_ARGS=(--proxy-headers) ;; esac

for i in $(seq 0 $((N - 1))); do
  port=$((PORT + i))
  "$BIN/daphne" "${PROXY_ARGS[@]}" -e "bitsite:port=$port:interface=$HOST" bitsite.asgi:application &
  pids+=("$!")
  echo "bitsite process $((i + 1)) of $N: http://$HOST:$port/ (pid $!)"
done
echo "Open a match on one port and join it from another browser on a different port."
wait
