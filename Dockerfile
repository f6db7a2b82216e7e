# syntax=docker/dockerfile:1
# wafctl as a container image: the CLI for pipelines, and the emulator as a CI service container.
#
#   docker build -t wafctl .
#   docker run --rm wafctl --version
#   docker run --rm -p 8080:8080 -e WAF_EMULATOR_ADMIN_TOKEN=... wafctl emulator --host 0.0.0.0 --port 8080
#
# docs/emulator.md ("As a container") says more; test/ship/dockerfile.test.ts checks this file's shape.
# The base is pinned by tag, not by digest: a tag keeps the Debian and Node security fixes coming
# with every rebuild, and a digest would be a hand-kept number here (pin it with a bot that bumps
# it, such as Renovate or Dependabot, if reproducible images matter more than that).
ARG NODE_IMAGE=node:24-slim

# Build: the whole toolchain (devDependencies), the lockfile's exact versions.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No lifecycle scripts: the dependencies' own install scripts are not needed to build.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# The package exactly as npm would publish it ("files" and "bin" of package.json), unpacked.
RUN npm run build \
    && npm pack --ignore-scripts --pack-destination /tmp \
    && mkdir /opt/wafctl \
    && tar -xzf /tmp/wafctl-*.tgz -C /opt/wafctl --strip-components=1

# Runtime: Node and the packed wafctl, no npm install: the build inlines every dependency.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production NO_UPDATE_NOTIFIER=1
# Owned by root, read-only to the user that runs it.
COPY --from=build --chown=root:root /opt/wafctl /opt/wafctl
# `wafctl` on PATH, wherever package.json's "bin" points; fails the build if it cannot start.
RUN ln -s "/opt/wafctl/$(node -p 'require("/opt/wafctl/package.json").bin.wafctl')" /usr/local/bin/wafctl \
    && wafctl --version
# The image's non-root user (uid 1000), in a directory of its own for configuration and state.
WORKDIR /work
RUN chown node:node /work
USER node
# The emulator's port, as `wafctl emulator --host 0.0.0.0 --port 8080` serves it.
EXPOSE 8080
# Healthy once the emulator answers its unauthenticated stats endpoint (the slim image has no curl).
# Only an emulator on port 8080 becomes healthy; a one-shot command exits long before the first check.
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=5 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:8080/__emulator/stats').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["wafctl"]

# `--target emulator`: the same image serving the emulator by default, for CI service containers
# (GitHub Actions `services:` cannot pass arguments). The token comes from WAF_EMULATOR_ADMIN_TOKEN.
FROM runtime AS emulator
CMD ["emulator", "--host", "0.0.0.0", "--port", "8080"]

# The default target: the CLI.
FROM runtime AS wafctl
CMD ["--help"]
