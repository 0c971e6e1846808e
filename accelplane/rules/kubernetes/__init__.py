"""Kubernetes rules, on pulumi-kubernetes objects (wire format: camelCase, `spec.template.spec`)."""
