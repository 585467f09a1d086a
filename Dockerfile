# syntax=docker/dockerfile:1
# The engine image: a build stage bundles the TypeScript into dist/, the runtime stage holds only
# production dependencies, the build and the project's routes, values, transforms and schemas.
#   docker build -t bank-integration-engine .
#   docker run --rm -p 8080:8080 -e ENGINE_ENV=sandbox bank-integration-engine
# Secrets are files, one per environmental key, in a directory mounted at /run/secrets/engine
# (a Kubernetes Secret volume; see deploy/). The tests run this file's RUN and CMD lines
# (test/deploy/dockerfile.test.ts): keep them plain shell and exec-form JSON.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# no install scripts: nothing the build needs runs one (esbuild, which bundles the console's page,
# runs from its platform package without its install script)
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY engine ./engine
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
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY routes ./routes
COPY values ./values
COPY transforms ./transforms
COPY schemas ./schemas
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
