"""The Kubernetes layer (pulumi-kubernetes): one component per file, composed in `layer.py`.

The same layer on EKS and GKE; what differs between the clusters (provider credentials, each pool's
resource, selectors and taints, load balancer sources, workload identity, checkpoint scheme, what
exposes inference) comes from a `cluster_facts.ClusterFacts` per cloud (`eks_facts.py`,
`gke_facts.py`).

Decision: our own objects (namespaces, quotas, policies, services, queues, the Gateway and its
policies) are plain typed resources, so every manifest is visible to the offline engine, validated
strictly (`manifests.py`: built-in kinds with `kubernetes_validate`, custom resources against their
CRDs' schemas) and checked by the rules. Third-party controllers (device plugins, DCGM exporter, AWS
Load Balancer Controller, Kueue, JobSet, Prometheus operator) are `helm.v3.Release`s with the chart
version pinned from a software profile: their inputs (chart, version, values) stay visible for
checks, and upstream keeps owning their manifests. GKE runs its own GPU and TPU device plugins and
Gateway controller.
"""
