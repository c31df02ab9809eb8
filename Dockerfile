# One image for the API, the worker and the CLI; the compose file and the Kubernetes manifests pick
# the command. Built in stages so that the runtime holds the compiled code and the production
# dependencies only, each installed exactly as package-lock.json says (`npm ci`).
# The Node version is package.json's `node` dev dependency, the one the tests run on.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# Every dependency, for the build; its layer is reused until package-lock.json changes.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps apps
COPY libs libs
RUN npm run build

# The production dependencies alone, installed afresh rather than pruned from the build's.
FROM ${NODE_IMAGE} AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
# V8's heap needs no NODE_OPTIONS here: each process applies its kind's heap rule itself
# (libs/shared/src/config/node-heap.ts). `-e NODE_OPTIONS=--max-old-space-size=…` overrides it.
WORKDIR /app
# Owned by root and not writable by the process: the code cannot be changed by what runs it.
COPY --from=production-deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY data data
# The image's `node` user by its id, so that a runtime checking "non-root" (Kubernetes'
# runAsNonRoot) can tell without reading /etc/passwd.
USER 1000:1000
EXPOSE 3000 3001 9464
CMD ["node", "dist/apps/api/src/main.js"]
