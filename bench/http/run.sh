#!/usr/bin/env bash
# HTTPKit against nginx, with wrk, on loopback, in one run.
#
# Measures requests per second and latency for
#   1. a trivial route of HTTPKit (GET /hello, 14 bytes), its handler on the concurrency pool,
#   2. the same route started on the event loop (startsOnEventLoop: no thread hand-off),
#   3. a 30 KB static file served by HTTPKit's FileServer,
#   4. the same file served by nginx (Debian's nginx-light),
# and prints the HTTPKit/nginx ratio for the file.
#
# Usage: bench/http/run.sh [--duration 10s] [--connections 50] [--threads 2]
# Installs wrk and nginx-light with apt-get when they are missing, as root; as another user it prints
# the command to run and stops.
set -euo pipefail

duration=10s
connections=50
threads=2
while [[ $# -gt 0 ]]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
httpkit_port=18481
nginx_port=18482

if ! command -v wrk >/dev/null || ! [[ -x /usr/sbin/nginx ]]; then
    if [[ $(id -u) -ne 0 ]]; then
        echo "the benchmark needs wrk and nginx; install them (as root), then run this again:" >&2
        echo "    sudo apt-get install wrk nginx-light" >&2
        exit 1
    fi
    echo "installing wrk and nginx-light…" >&2
    apt-get update -qq
    # No service start: this script runs its own nginx, on its own port.
    DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq wrk nginx-light >/dev/null
fi

echo "building httpkit-bench-server (release)…" >&2
swift build -c release --scratch-path .build-httpkit --product httpkit-bench-server 2>&1 | tail -1 >&2
server_binary="$(swift build -c release --scratch-path .build-httpkit --show-bin-path)/httpkit-bench-server"

work="$(mktemp -d /tmp/httpkit-bench-XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

# The same 30 KB file for both servers (printable, so that neither compresses nor sniffs).
mkdir -p "$work/static" "$work/nginx/logs" "$work/nginx/tmp"
chmod 755 "$work" "$work/static"
python3 -c "import sys; sys.stdout.write(''.join(chr(48 + (i * 7) % 75) for i in range(30 * 1024)))" > "$work/static/file30k.txt"
chmod 644 "$work/static/file30k.txt"

cat > "$work/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
daemon off;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 1000;
    keepalive_timeout 15s;
    client_body_temp_path $work/nginx/tmp/body;
    proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi;
    uwsgi_temp_path $work/nginx/tmp/uwsgi;
    scgi_temp_path $work/nginx/tmp/scgi;
    types { text/plain txt; }
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/static;
        etag on;
    }
}
CONF

"$server_binary" --host 127.0.0.1 --port "$httpkit_port" --static "$work/static" >"$work/httpkit.log" 2>&1 &
pids+=($!)
/usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/logs/error.log" &
pids+=($!)

wait_for() {
    for _ in $(seq 1 100); do
        if curl -fsS -o /dev/null "$1"; then return 0; fi
        sleep 0.1
    done
    echo "no answer from $1" >&2
    exit 1
}
wait_for "http://127.0.0.1:$httpkit_port/hello"
wait_for "http://127.0.0.1:$httpkit_port/static/file30k.txt"
wait_for "http://127.0.0.1:$nginx_port/file30k.txt"
cmp <(curl -fsS "http://127.0.0.1:$httpkit_port/static/file30k.txt") "$work/static/file30k.txt"
cmp <(curl -fsS "http://127.0.0.1:$nginx_port/file30k.txt") "$work/static/file30k.txt"

# run NAME URL: one warm-up, then the measured wrk run; prints "name req/s avg p50 p99 errors".
run() {
    local name="$1" url="$2" output
    wrk -t"$threads" -c"$connections" -d2s "$url" >/dev/null
    output="$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "$url")"
    local file
    file="$(tr ' /' '-_' <<<"$name")"
    echo "$output" > "$work/wrk-$file.txt"
    local rps avg p50 p99 errors
    rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$output")"
    avg="$(awk '/^    Latency/ {print $2}' <<<"$output")"
    p50="$(awk '$1 == "50%" {print $2}' <<<"$output")"
    p99="$(awk '$1 == "99%" {print $2}' <<<"$output")"
    errors="$(awk '/Non-2xx|Socket errors/ {print}' <<<"$output" | tr '\n' ' ')"
    printf '%-24s %12s %10s %10s %10s  %s\n' "$name" "$rps" "$avg" "$p50" "$p99" "${errors:-none}"
    echo "$rps" > "$work/rps-$file"
}

echo
echo "wrk: $threads threads, $connections connections, $duration per run, keep-alive, loopback; $(nproc) cores"
printf '%-24s %12s %10s %10s %10s  %s\n' "target" "req/s" "lat avg" "lat p50" "lat p99" "errors"
run "httpkit /hello" "http://127.0.0.1:$httpkit_port/hello"
run "httpkit /hello-inline" "http://127.0.0.1:$httpkit_port/hello-inline"
run "httpkit 30KB file" "http://127.0.0.1:$httpkit_port/static/file30k.txt"
run "nginx 30KB file" "http://127.0.0.1:$nginx_port/file30k.txt"
echo
awk -v h="$(cat "$work/rps-httpkit-30KB-file")" -v n="$(cat "$work/rps-nginx-30KB-file")" \
    'BEGIN { printf "30 KB file, HTTPKit / nginx: %.2f\n", h / n }'
