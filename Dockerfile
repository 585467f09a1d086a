# syntax=docker/dockerfile:1
# The engine image: a build stage bundles the TypeScript into dist/, the runtime stage holds only
# production dependencies, the build and the project's routes, values, transforms and schemas.
#   docker build -t bank-integration-engine .
#   docker run --rm -p 8080:8080 -e ENGINE_ENV=sandbox bank-integration-engine
# Secrets are files, one per environmental key, in a directory mounted at /run/secrets/engine
# (a Kubernetes Secret volume; see deploy/). The tests run this file's RUN and CMD lines
# (test/deploy/dockerfile.test.ts): keep them plain shell and exec-form JSON.
# The image runs the Node.js LTS line the test pins (24); local development needs 20.19 or later.
# Pin a digest for reproducible builds: --build-arg NODE_IMAGE=node:24-bookworm-slim@sha256:...
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# the workspace packages' manifests (package.json "workspaces"): npm ci links each into
# node_modules, where the build resolves it by name; without its manifest npm ci skips it silently
COPY packages/fast-jsonata/package.json ./packages/fast-jsonata/
# no install scripts: nothing the build needs runs one (esbuild, which bundles the console's page,
# runs from its platform package without its install script)
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY engine ./engine
COPY packages ./packages
COPY sandbox ./sandbox
COPY console-ui ./console-ui
COPY build ./build
# the build starts the sandbox once to write V8's code cache of the bundle (bin/load-build.js):
# it needs the project, and this stage's Node.js is the runtime stage's, so the cache fits
COPY bin ./bin
COPY routes ./routes
COPY values ./values
COPY transforms ./transforms
COPY schemas ./schemas
# the build also writes the SBOM of the production dependencies, dist/sbom.cdx.json (CycloneDX)
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# OCI labels: what a registry, a scanner and an auditor read off the image
#   docker build --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" --build-arg SOURCE=<repository URL> .
ARG NODE_IMAGE
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=unknown
# the project declares no license yet (package.json has none): an SPDX expression once it does
ARG LICENSES=NOASSERTION
LABEL org.opencontainers.image.title="bank-integration-engine" \
      org.opencontainers.image.description="Declarative YAML route engine and connectors for bank integrations" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="${LICENSES}" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
ENV NODE_ENV=production
# the revision engine_build_info reports (observability/build-info.ts)
ENV ENGINE_REVISION="${REVISION}"
WORKDIR /app
COPY package.json package-lock.json ./
# the same install as the build stage's (the bundle in dist/ already holds fast-jsonata's code)
COPY packages/fast-jsonata/package.json ./packages/fast-jsonata/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY routes ./routes
COPY values ./values
COPY transforms ./transforms
COPY schemas ./schemas
# the start-up caches (.engine/cache: YAML values, JSONata syntax trees, schema validators;
# docs/operations.md) warmed here, as root, readable by the user below: the file system is read-only
# when the image runs, and a start would otherwise parse and compile every route each time. The
# lint reads every route, values and schema file whatever the environment; a route that does not
# lint fails the image's build.
RUN node bin/engine.js lint routes/ --env sandbox >/dev/null && chmod -R a+rX .engine
# the environment (values/environments/<name>.yaml) and the port; production refuses to start
# until its keys are set, where sandbox would silently answer from simulators
ENV ENGINE_ENV=production PORT=8080
USER node
EXPOSE 8080
# slim images have no curl; node's fetch asks the engine itself
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# exec: node is PID 1 and receives SIGTERM itself (graceful shutdown), the shell only expands the variables
CMD ["/bin/sh", "-c", "exec node bin/engine.js run routes/ --env \"$ENGINE_ENV\" --secrets /run/secrets/engine --host 0.0.0.0 --port \"$PORT\""]
