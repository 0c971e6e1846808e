#!/usr/bin/env bash
# Debian packages the lab tests (tests/ansible, tests/rollout, tests/bundle) need; idempotent, for CI
# and developers.
#   debootstrap      builds the cached Debian root of the lab nodes (first run only)
#   zstd             packs and unpacks the cached root
#   dpkg-dev         dpkg-deb (stand-in packages) is in dpkg; dpkg-dev adds the tools a developer
#                    uses to inspect them (dpkg-scanpackages)
#   openssh-client   ssh and ssh-keygen for the node reached over SSH
#   iproute2         network namespaces and veth pairs
#   mount            overlayfs and bind mounts (util-linux)
#   prometheus       the real Prometheus the rollout tests (tests/rollout) start on a free loopback
#                    port with their own config; the package's own service is not needed by them
#   apt-utils        apt-ftparchive: the mirror's apt index and Release (`bundle fetch`)
#   gnupg            gpg: signs the mirror's Release; gpgv checks it in the tests
#   skopeo           copies images into the mirror's OCI layout and pushes the test image
#   docker-registry  Debian's distribution registry, started on a free loopback port by tests/bundle
#   jq               what the pull-request workflow lists its stacks with (tests/ci_files runs that step)
#   chromium         headless, renders the diff comment's Mermaid picture with the real mermaid
#                    (tests/cost); npm fetches that mermaid below
#   (pip)            checkov, the peer scanner of the pod-hardening tests, pinned in its own virtual
#                    environment (tests/support/checkov/install.sh)
#   npm              `npm pack` of the pinned mermaid release (only where no npm is on PATH: a Node.js
#                    from elsewhere, e.g. NodeSource, brings its own and conflicts with Debian's)
set -euo pipefail
packages=(debootstrap zstd dpkg-dev openssh-client iproute2 mount ca-certificates prometheus
  apt-utils gnupg skopeo docker-registry jq chromium openssl)
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The prometheus and docker-registry packages enable system-wide services (:9090, :5000) where
# systemd runs (a CI runner): the tests start their own on free loopback ports, so stop those
# (again on every run: harmless when already stopped).
for service in prometheus docker-registry; do
  if command -v systemctl >/dev/null 2>&1 && systemctl list-unit-files "$service.service" >/dev/null 2>&1; then
    systemctl disable --now "$service.service" >/dev/null 2>&1 || true
  fi
done

# The real mermaid the cost tests render with: the pinned release's tarball from the npm registry,
# checked against its registry integrity before it is unpacked (tests/support/mermaid_render.py).
bash "$(dirname "$0")/../fetch_mermaid.sh"
bash "$(dirname "$0")/../checkov/install.sh"
