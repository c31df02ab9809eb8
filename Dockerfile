# One image for the API, the worker and the CLI; the compose file picks the command.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --no-save
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps apps
COPY libs libs
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# V8's heap needs no NODE_OPTIONS here: each process applies its kind's heap rule itself
# (libs/shared/src/config/node-heap.ts). `-e NODE_OPTIONS=--max-old-space-size=…` overrides it.
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY data data
USER node
EXPOSE 3000 3001
CMD ["node", "dist/apps/api/src/main.js"]
