#!/usr/bin/env bash
# Debian packages the Ansible tests (tests/ansible) need; idempotent, for CI and developers.
#   debootstrap      builds the cached Debian root of the lab nodes (first run only)
#   zstd             packs and unpacks the cached root
#   dpkg-dev         dpkg-deb (stand-in packages) is in dpkg; dpkg-dev adds the tools a developer
#                    uses to inspect them (dpkg-scanpackages)
#   openssh-client   ssh and ssh-keygen for the node reached over SSH
#   iproute2         network namespaces and veth pairs
#   mount            overlayfs and bind mounts (util-linux)
#   prometheus       the real Prometheus the rollout tests (tests/rollout) start on a free loopback
#                    port with their own config; the package's own service is not needed by them
set -euo pipefail
packages=(debootstrap zstd dpkg-dev openssh-client iproute2 mount ca-certificates prometheus)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The package enables a system-wide Prometheus on :9090 where systemd runs (a CI runner): the tests
# start their own, so stop that one (again on every run: harmless when already stopped).
if command -v systemctl >/dev/null 2>&1 && systemctl list-unit-files prometheus.service >/dev/null 2>&1; then
  systemctl disable --now prometheus.service >/dev/null 2>&1 || true
fi
# The bundle tests' servers and tools (gpg, apt-ftparchive, skopeo, docker-registry): one call here,
# so `make test` and CI, which both run this script, get them.
bash "$(dirname "$0")/../mirror/install_prereqs.sh"
