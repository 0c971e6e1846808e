#!/bin/sh
# Stand-in for AWS's efa_installer.sh: installs the packages bundled in the tarball and records
# what it installed in /opt/amazon/efa_installed_packages, as the real installer does.
set -e
cd "$(dirname "$0")"
dpkg -i DEBS/*.deb
mkdir -p /opt/amazon
printf '# EFA installer version: %s\n# Debug packages installed: no\n# Packages installed:\n' "@VERSION@" \
  > /opt/amazon/efa_installed_packages
ls DEBS >> /opt/amazon/efa_installed_packages
