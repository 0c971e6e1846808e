#!/usr/bin/env bash
# Debian packages the bundle tests (tests/bundle) need; idempotent, for CI and developers.
#   apt-utils        apt-ftparchive: the mirror's apt index and Release (`bundle fetch`)
#   gnupg            gpg: signs the mirror's Release; gpgv checks it in the tests
#   skopeo           copies images into the mirror's OCI layout and pushes the test image
#   docker-registry  Debian's distribution registry, started on 127.0.0.1 by the tests
#   dpkg-dev         dpkg-deb for the stand-in packages (also in the lab's list)
set -euo pipefail
packages=(apt-utils gnupg skopeo docker-registry dpkg-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The package enables a system-wide registry on :5000 where systemd runs (a CI runner): the tests
# start their own on a free loopback port, so stop that one.
if command -v systemctl >/dev/null 2>&1 && systemctl list-unit-files docker-registry.service >/dev/null 2>&1; then
  systemctl disable --now docker-registry.service >/dev/null 2>&1 || true
fi
