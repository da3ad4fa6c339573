#!/bin/bash
# A server's CPU a request: `make run`'s uvicorn on a fresh SQLite database in a checkout, loaded by
# `wrk -t1 -c4 -d6s` on one path after 50 warm-up requests; the uvicorn process's utime + stime
# (from /proc) over the run, divided by the requests (issue 47: what the one-hop handler and the kept
# connection saved). Usage: bench/cpu_per_request.sh CHECKOUT PORT PATH   e.g. . 8742 /health/
# Environment passes through (DB_CONN_MAX_AGE=0: a connection a request).
set -euo pipefail
checkout=$1 port=$2 path=$3
work=$(mktemp -d)
cd "$checkout"
export SQLITE_PATH=$work/db.sqlite3
.venv/bin/python manage.py migrate -v0
.venv/bin/uvicorn bunco_club.site.asgi:application --port "$port" --no-access-log >"$work/log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
until curl -s -o /dev/null "http://127.0.0.1:$port/alive/"; do sleep 0.3; done
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port$path"; done
cpu() { awk '{print $14 + $15}' "/proc/$server/stat"; }
before=$(cpu)
wrk -t1 -c4 -d6s "http://127.0.0.1:$port$path" >"$work/wrk"
after=$(cpu)
requests=$(awk '/requests in/ {print $1}' "$work/wrk")
rate=$(awk '/Requests\/sec/ {print $2}' "$work/wrk")
ticks=$(getconf CLK_TCK)
python3 -c "print('$checkout $path: $requests requests, $rate req/s, ' + format(($after - $before) * 1000 / $ticks / $requests, '.2f') + ' ms of CPU a request')"
