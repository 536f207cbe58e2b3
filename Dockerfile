# NodeHarbor's image: `docker build -t nodeharbor .` (README, "Running NodeHarbor in containers").
#
# NODE_IMAGE: any image with node (20 or later), npm and a POSIX sh; the tests build from one
# assembled offline. NPM_CACHE: a folder of the build context holding an npm cache (its
# _cacache) with every package of package-lock.json; npm ci then reads nothing from the network.
# Without it, npm ci downloads from the registry.
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
ARG NPM_CACHE=
WORKDIR /app
COPY . .
# One step from install to the runtime tree: the build needs the dev dependencies, the runtime
# only the production ones (npm prune), its output (dist), the SQL (db) and package.json, whose
# folder is the package root the server finds its files from (src/server/paths.ts).
RUN npm ci --no-audit --no-fund ${NPM_CACHE:+--offline --cache "/app/$NPM_CACHE"} \
 && npm run build \
 && npm prune --omit=dev --no-audit --no-fund ${NPM_CACHE:+--offline --cache "/app/$NPM_CACHE"} \
 && mkdir -p /out/app /out/data \
 && cp -R package.json node_modules dist db nodes /out/app/ \
 && chown 1000:1000 /out/data

FROM ${NODE_IMAGE}
# The settings come first and the application last: each setting is a layer of no files, but the
# classic builder makes it in a container of the image so far, which a storage driver without
# layers (vfs, as in the tests) copies whole: before the application, that is node alone. The
# tests' build took about 240 s with the settings after the copy, 145 s with them before.
WORKDIR /app
# Every interface, so that the published port reaches the server: with it the server requires
# PUBLIC_URL, and PAYMENTS_PROVIDER unless PayPal is configured (docs/decisions/028).
ENV NODE_ENV=production \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8080
USER 1000:1000
EXPOSE 8080
# No curl in a slim image: node asks. /healthz answers 200 only when the database answers.
HEALTHCHECK --interval=15s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1, so SIGTERM reaches the server and it shuts down cleanly (main.ts).
# The worker: `node dist/server/worker.js`; the CLI: `node dist/server/cli.js`.
CMD ["node", "dist/server/main.js"]
VOLUME /data
# Ownership is kept from the build stage: the code is root's and read-only to the server, /data
# is the server's (uid 1000, the node user of the official images), and a new volume takes it on.
COPY --from=build /out/ /
