"""AP-IAM-007: node roles carry only the managed policies EKS nodes need, and no inline policies.

A node role (trusted by ec2.amazonaws.com) is readable by every pod that reaches the instance
metadata: whatever it carries, every workload on the node effectively has. Kubelet registration,
VPC CNI and image pulls need exactly the policies below (EKS user guide, "Amazon EKS node IAM
role"); data and secrets belong on per-workload roles.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import trusted_services
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_list, as_str

NODE_POLICIES = frozenset(
    {
        "AmazonEKSWorkerNodePolicy",
        "AmazonEKSWorkerNodeMinimalPolicy",
        "AmazonEKS_CNI_Policy",
        "AmazonEC2ContainerRegistryReadOnly",
        "AmazonEC2ContainerRegistryPullOnly",
        "AmazonSSMManagedInstanceCore",
    }
)


def _policy_name(arn: str) -> str:
    return arn.rsplit("/", 1)[-1]


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if "ec2.amazonaws.com" not in trusted_services(resource):
        return
    arns = [as_str(a) for a in as_list(resource.get("managedPolicyArns"))]
    for attachment in graph.referring(resource, "role", t.IAM_ROLE_POLICY_ATTACHMENT):
        arns.append(as_str(attachment.get("policyArn")))
    for attachment in graph.referring(resource, "roles", t.IAM_POLICY_ATTACHMENT):
        arns.append(as_str(attachment.get("policyArn")))
    for arn in sorted(set(arns)):
        if ":iam::aws:policy/" not in arn or _policy_name(arn) not in NODE_POLICIES:
            yield f"node role carries {arn or 'a policy'}: nodes need only {', '.join(sorted(NODE_POLICIES))}"
    if as_list(resource.get("inlinePolicies")):
        yield "node role has inline policies: give workloads their own roles instead"
    for inline in graph.referring(resource, "role", t.IAM_ROLE_POLICY):
        yield f"node role has the inline policy {inline.name}: give workloads their own roles instead"


RULE = Rule(
    id="AP-IAM-007",
    name="iam-node-role-minimal",
    description="Checks whether a node role carries only the managed policies EKS nodes need and no inline policy.",
    family=Family.iam,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Attach only AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy and an ECR pull policy; move data "
    "and secret access to per-workload roles.",
    resource_types=frozenset({t.IAM_ROLE}),
    check=check,
    scope=Scope.stack,
    categories=("least-privilege",),
    references=("https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html",),
)
