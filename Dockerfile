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
# V8's young generation at 16 MiB per semi-space, as every npm script has it (.npmrc): Node 24 would
# size it from the machine's memory (up to 64 MiB), about 110 MB more RSS per process for no CPU gained.
ENV NODE_OPTIONS=--max-semi-space-size=16
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY data data
USER node
EXPOSE 3000 3001
CMD ["node", "dist/apps/api/src/main.js"]
