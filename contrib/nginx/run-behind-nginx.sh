#!/usr/bin/env bash
# Runs pts-native-server behind nginx with TLS (a self-signed certificate made on first use),
# both in the foreground until SIGINT/SIGTERM:
#   contrib/nginx/run-behind-nginx.sh DATA_DIR [HTTPS_PORT=8443] [SERVER_BINARY=build/pts-native-server]
# The certificate is DATA_DIR/tls/cert.pem (give it to clients: curl --cacert ...). The server
# listens on a free loopback port, trusts nginx's X-Real-IP and leaves the per-address
# connection cap to nginx. First line printed: "pts-native-server behind nginx: https://127.0.0.1:PORT".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
data="${1:?usage: run-behind-nginx.sh DATA_DIR [HTTPS_PORT] [SERVER_BINARY]}"
port="${2:-8443}"
server_bin="${3:-$here/../../build/pts-native-server}"
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$nginx_bin" ] || { echo "run-behind-nginx: nginx is not installed (apt-get install nginx-light)" >&2; exit 3; }
[ -x "$server_bin" ] || { echo "run-behind-nginx: no server binary at $server_bin" >&2; exit 2; }
mkdir -p "$data/tls" "$data/nginx"
data="$(cd "$data" && pwd)"
if [ ! -s "$data/tls/cert.pem" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$data/tls/key.pem" -out "$data/tls/cert.pem" 2>/dev/null
fi
backend="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
prefix="$data/nginx"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@BACKEND_PORT@|$backend|g" -e "s|@LISTEN@|127.0.0.1:$port|g" \
    -e "s|@CERT@|$data/tls/cert.pem|g" -e "s|@KEY@|$data/tls/key.pem|g" \
    "$here/pts-native-server.conf.in" >"$prefix/nginx.conf"

pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop EXIT INT TERM
"$server_bin" --data "$data/results" --listen "127.0.0.1:$backend" --public-url "https://127.0.0.1:$port" \
  --trust-proxy 127.0.0.1 --max-connections-per-address 0 >"$data/server.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do grep -q listening "$data/server.log" && break; sleep 0.1; done
grep -q listening "$data/server.log" || { echo "run-behind-nginx: the server did not start: $(tail -2 "$data/server.log")" >&2; exit 1; }
"$nginx_bin" -p "$prefix" -c "$prefix/nginx.conf" -g "daemon off;" >"$data/nginx.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do
  curl -s --cacert "$data/tls/cert.pem" "https://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "${pids[1]}" 2>/dev/null || { echo "run-behind-nginx: nginx did not start: $(tail -3 "$data/nginx.log" "$prefix/error.log" 2>/dev/null)" >&2; exit 1; }
  sleep 0.1
done
echo "pts-native-server behind nginx: https://127.0.0.1:$port (certificate: $data/tls/cert.pem)"
wait -n "${pids[@]}"
