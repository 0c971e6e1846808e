"""Real upstream sources and servers for the bundle tests (tests/bundle): the lab's apt
repository, wheels and installers served by `python -m http.server` on 127.0.0.1, a PEP 503 index
and a Helm chart repository over them, Debian's `docker-registry` on loopback with an image that
skopeo pushes from a locally built OCI layout, and a throw-away gpg key for signed Release files.
"""
