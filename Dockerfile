# syntax=docker/dockerfile:1
# Store Orders: the API (PORT 3000), the quickstart host (3001), the
# self-service portal (3002) and the metrics listener (9464) in one image.
#
#   docker build -t store-orders .
#   docker run -p 3000:3000 -p 3002:3002 -v store-orders-data:/data store-orders
#
# Releases pin the base by digest (docs: DEPLOYMENT.md, "Container image").

# --- build: every dependency, compile, then keep production dependencies only
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so that a change to the sources reuses this layer.
# No install script is needed on Node 24, so none runs and no compiler is
# installed: SQLite is better-sqlite3 13 (the `better-sqlite3-napi` alias,
# src/storage/sqlite/sqlite-driver.ts), which ships Node-API prebuilds;
# better-sqlite3 12 serves Node 20 only and is removed below. esbuild and
# argon2 come as platform packages. `prepare` (the build) runs below, once
# the sources are in.
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/@store-orders node_modules/better-sqlite3

# --- runtime: the compiled program, production dependencies, no compiler
FROM node:24-bookworm-slim
# tini is PID 1: it forwards SIGTERM to Node (graceful shutdown) and reaps children.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown node:node /data
LABEL org.opencontainers.image.title="Store Orders" \
      org.opencontainers.image.description="HTTP JSON API for a pet store's orders, with a self-service portal" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="1.0.0" \
      org.opencontainers.image.base.name="docker.io/library/node:24-bookworm-slim" \
      org.opencontainers.image.documentation="DEPLOYMENT.md"
WORKDIR /app
# Owned by root: the service cannot change its own code.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/bin bin
COPY --from=build /app/dist dist
COPY --from=build /app/migrations migrations
COPY --from=build /app/portal portal
# In a container every host listens on all interfaces; the SQLite default
# lives on the volume. PORTAL_PUBLIC_URL must be where browsers reach the
# portal (its Origin check and cookies): set it to your public address.
# METRICS_HOST: reachable by a scraper on the container network; publish
# 9464 only to a private network.
ENV HOST=0.0.0.0 \
    DATABASE_URL=sqlite:///data/store.db \
    PORTAL_PUBLIC_URL=http://localhost:3002 \
    METRICS_HOST=0.0.0.0 \
    PATH=/app/bin:$PATH
VOLUME /data
# The official image's `node` user, by number: Kubernetes' runAsNonRoot can
# only verify a numeric user.
USER 1000:1000
EXPOSE 3000 3001 3002 9464
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/store-orders"]
CMD ["serve"]
