#!/usr/bin/env bash
# Fetch the pinned mermaid release from the npm registry into tests/.cache/mermaid (once), check the
# tarball against the registry's sha512 integrity, keep dist/mermaid.min.js (one self-contained file:
# the browser bundle carries its dependencies). Idempotent.
set -euo pipefail
VERSION=12.4.0
INTEGRITY="sha512-j2gvsGUFeS/53WdYLl9H5G2YtMZX9G/PlCvV3E5Pf4j5XSnK19DwazU6wki7OTcKeYKed7+qujRDLhy8NV2zBg=="
root="$(cd "$(dirname "$0")/.." && pwd)/.cache/mermaid"
target="$root/$VERSION/mermaid.min.js"
[ -s "$target" ] && exit 0
command -v npm >/dev/null || { echo "fetch_mermaid: npm is not installed (apt-get install npm)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "mermaid@$VERSION" >/dev/null)
tarball="$work/mermaid-$VERSION.tgz"
actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$actual" != "$INTEGRITY" ]; then
  echo "fetch_mermaid: mermaid-$VERSION.tgz does not match its registry integrity ($actual)" >&2
  exit 2
fi
tar -xzf "$tarball" -C "$work" package/dist/mermaid.min.js
mkdir -p "$root/$VERSION"
mv "$work/package/dist/mermaid.min.js" "$target"
echo "fetch_mermaid: mermaid $VERSION at $target"
