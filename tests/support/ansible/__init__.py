"""Throw-away bare-metal nodes for the Ansible tests (docs/design.md "How each part is tested").

- `rootfs`: a debootstrap'd Debian root, built once and cached as a tarball.
- `catalog`: the lab's apt repository of stand-in packages (built with dpkg-deb at test time, in
  several versions), its wheels and its EFA installer tarball.
- `nodes`: a fresh overlayfs copy of the root per node, reached with the chroot connection.
- `netns`: one node served over real SSH inside network namespaces.
- `lab`: stack files for the nodes (from stacks/Pulumi.lab.yaml) and playbook runs.

Where hardware is absent (no GPU, no kernel modules, no systemd as PID 1) the stand-ins in
`standins/` print the real tools' output formats; each says which tool it stands in for.
"""
