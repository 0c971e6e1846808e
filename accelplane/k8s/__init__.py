"""The Kubernetes layer (pulumi-kubernetes): one component per file, composed in `layer.py`.

Decision: our own objects (namespaces, quotas, policies, services, queues) are plain typed
resources, so every manifest is visible to the offline engine, validated with
`kubernetes_validate` and checked by the Kubernetes rules. Third-party controllers (device
plugins, DCGM exporter, AWS Load Balancer Controller, Kueue, JobSet, Prometheus operator) are
`helm.v3.Release`s with the chart version pinned from a software profile: their inputs (chart,
version, values) stay visible for checks, and upstream keeps owning their manifests.
"""
