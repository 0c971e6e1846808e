"""The EKS-optimised accelerated AMI: what each release ships (`facts`, from `eks_ami.yaml`), how the
release notes are read (`release_notes`), and the `matrix` commands that propose a release or refresh
the facts (`commands`, offered through `matrix_cli`, this cloud's `accelplane.matrix_cli` entry point)."""
