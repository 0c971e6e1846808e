"""The EKS cluster, its node groups with their launch and placement groups, access entries and add-ons."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE, tags_of
from accelplane.clouds.aws.verify.live_view.core import (
    POOL_TAG,
    ViewCore,
)
from accelplane.clouds.aws.verify.live_view.wire import (
    created_seconds,
    wire,
)
from accelplane.verify.canonical import canonical, symbol

# How close to the cluster's creation EKS makes the creator's access entry (it is made with the
# cluster, seconds apart); an entry made later was granted by hand.
_CREATOR_ENTRY_WINDOW_S = 600.0

_CREATOR_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


class EksReader(ViewCore):
    """The EKS cluster, its node groups with their launch and placement groups, access entries and add-ons."""

    def _cluster(self) -> None:
        for resource in self.declared.of_type("aws:eks/cluster:Cluster"):
            cluster = self.inv.cluster
            if cluster is UNREADABLE:
                self._unreadable([resource], "eks:DescribeCluster failed")
                continue
            if not cluster:
                continue
            vpc = cluster.get("resourcesVpcConfig") or {}
            logging = (cluster.get("logging") or {}).get("clusterLogging") or []
            encryption = (cluster.get("encryptionConfig") or [None])[0]
            props = {
                "name": cluster["name"],
                "version": cluster.get("version"),
                "roleArn": cluster.get("roleArn"),
                "vpcConfig": {
                    "subnetIds": vpc.get("subnetIds"),
                    "securityGroupIds": vpc.get("securityGroupIds"),
                    "endpointPrivateAccess": vpc.get("endpointPrivateAccess"),
                    "endpointPublicAccess": vpc.get("endpointPublicAccess"),
                    "publicAccessCidrs": vpc.get("publicAccessCidrs"),
                },
                "encryptionConfig": wire(encryption) if encryption else None,
                "enabledClusterLogTypes": sorted(
                    {kind for entry in logging if entry.get("enabled") for kind in entry.get("types", [])}
                ),
                "accessConfig": wire(cluster["accessConfig"]) if cluster.get("accessConfig") else None,
                "tags": cluster.get("tags") or {},
            }
            self._live(resource, resource.type, cluster["name"], props, {"arn": cluster.get("arn")}, raw=cluster)
            self.symbols.add(
                vpc.get("clusterSecurityGroupId"), symbol(resource.name, "clusterSecurityGroup"), live=True
            )
            issuer = ((cluster.get("identity") or {}).get("oidc") or {}).get("issuer", "")
            self.symbols.add(issuer.removeprefix("https://"), symbol(resource.name, "oidcIssuer"), live=True)

    def _placement_groups(self) -> None:
        declared = self.declared.of_type("aws:ec2/placementGroup:PlacementGroup")
        groups = self.inv.placement_groups
        if not declared:
            return
        if groups is UNREADABLE:
            self._unreadable(declared, "ec2:DescribePlacementGroups failed")
            return
        by_pool = {tags_of(g.get("Tags")).get(POOL_TAG): g for g in groups}
        for resource in declared:
            group = by_pool.get(resource.tags().get(POOL_TAG))
            if group is not None:
                self._live(
                    resource,
                    resource.type,
                    group["GroupName"],
                    {"name": group["GroupName"], "strategy": group.get("Strategy"), "tags": tags_of(group.get("Tags"))},
                    {"arn": group.get("GroupArn"), "name": group["GroupName"]},
                )

    def _launch_templates_and_node_groups(self) -> None:
        templates = self.inv.launch_templates
        declared_templates = self.declared.of_type("aws:ec2/launchTemplate:LaunchTemplate")
        node_groups = self.inv.nodegroups
        used_versions = {
            (ng.get("launchTemplate") or {}).get("id"): str((ng.get("launchTemplate") or {}).get("version"))
            for ng in node_groups.values()
            if ng and (ng.get("launchTemplate") or {}).get("id")
        }
        if templates is UNREADABLE:
            self._unreadable(declared_templates, "ec2:DescribeLaunchTemplates failed")
        else:
            by_pool = {tags_of(t.get("Tags")).get(POOL_TAG): t for t in templates.values()}
            for resource in declared_templates:
                template = by_pool.get(resource.tags().get(POOL_TAG))
                if template is None:
                    continue
                template_id = template["LaunchTemplateId"]
                version = used_versions.get(template_id) or str(template.get("DefaultVersionNumber"))
                data = self.collector.launch_template_version(template_id, version)
                if data is UNREADABLE:
                    self._unreadable([resource], f"ec2:DescribeLaunchTemplateVersions failed for version {version}")
                    continue
                props = wire(
                    (data or {}).get("LaunchTemplateData") or {},
                    resource.props,
                    renames={"Groups": "securityGroups"},
                )
                # The template's own tags are not instance tags (moto reports them among the data's).
                props["tagSpecifications"] = [
                    spec
                    for spec in props.get("tagSpecifications") or []
                    if spec.get("resourceType") != "launch-template"
                ]
                props.update(
                    {
                        "name": template.get("LaunchTemplateName"),
                        "tags": tags_of(template.get("Tags")),
                        "defaultVersion": template.get("DefaultVersionNumber"),
                        "latestVersion": template.get("LatestVersionNumber"),
                    }
                )
                self._live(
                    resource,
                    resource.type,
                    template_id,
                    props,
                    {
                        "arn": self._arn("ec2", f"launch-template/{template_id}"),
                        "name": template.get("LaunchTemplateName"),
                    },
                    raw={
                        "template": template,
                        "version": version,
                        "data": data,
                        # The program makes every new version the default (`updateDefaultVersion`).
                        "follows_default": resource.props.get("updateDefaultVersion") in (True, "true"),
                    },
                )
        self._node_groups()

    def _node_groups(self) -> None:
        declared = self.declared.of_type("aws:eks/nodeGroup:NodeGroup")
        names = self.inv.nodegroup_names
        if names is UNREADABLE or self.inv.cluster is UNREADABLE:
            self._unreadable(declared, "eks:ListNodegroups failed")
            return
        by_name = {r.props.get("nodeGroupName"): r for r in declared}
        for name, group in sorted(self.inv.nodegroups.items()):
            resource = by_name.get(name)
            if group is UNREADABLE:
                if resource is not None:
                    self._unreadable([resource], "eks:DescribeNodegroup failed")
                continue
            if not group:
                continue
            template = group.get("launchTemplate") or {}
            props = {
                "clusterName": group.get("clusterName"),
                "nodeGroupName": name,
                "nodeRoleArn": group.get("nodeRole"),
                "subnetIds": group.get("subnets"),
                "instanceTypes": group.get("instanceTypes"),
                "amiType": group.get("amiType"),
                "releaseVersion": group.get("releaseVersion"),
                "version": group.get("version"),
                "capacityType": group.get("capacityType"),
                "diskSize": group.get("diskSize") if not template else None,
                "scalingConfig": group.get("scalingConfig"),
                "updateConfig": group.get("updateConfig"),
                "labels": group.get("labels") or {},
                "taints": group.get("taints") or [],
                "launchTemplate": {
                    "id": template.get("id"),
                    "name": template.get("name"),
                    "version": template.get("version"),
                }
                if template
                else None,
                "remoteAccess": group.get("remoteAccess") if not template else None,
                "tags": group.get("tags") or {},
            }
            live_id = f"{group.get('clusterName')}:{name}"
            outputs = {"arn": group.get("nodegroupArn")}
            if resource is not None:
                self._live(resource, resource.type, live_id, props, outputs, raw=group)
            else:
                self._unexpected(
                    self._live(None, "aws:eks/nodeGroup:NodeGroup", live_id, props, outputs),
                    "a node group in the platform's cluster that the declaration does not have",
                )

    def _access(self) -> None:
        """Access entries and managed add-ons of the cluster against what the declaration and EKS make."""
        clusters = self.declared.of_type("aws:eks/cluster:Cluster")
        cluster = self.inv.cluster
        if not clusters or not isinstance(cluster, dict):
            return
        name = cluster.get("name")
        declared_addons = {r.props.get("addonName") for r in self.declared.of_type("aws:eks/addon:Addon")}
        for addon in sorted(self.inv.addons or []):
            if addon in declared_addons:
                self.view.read["aws:eks/addon:Addon"] += 1
                continue
            self._unexpected(
                self._live(None, "aws:eks/addon:Addon", f"{name}:{addon}", {"clusterName": name, "addonName": addon}),
                f"an EKS add-on of {name} that the declaration does not install",
            )
        entries = self.inv.access_entries
        if not isinstance(entries, dict):
            return
        granted = {
            canonical(r.props.get("principalArn"), self.symbols)
            for r in self.declared.of_type("aws:eks/accessEntry:AccessEntry")
        }
        node_roles = {str(group.get("nodeRole")) for group in self.inv.nodegroups.values() if group}
        access = clusters[0].props.get("accessConfig") or {}
        creator_window = (
            created_seconds(cluster.get("createdAt")) if access.get("bootstrapClusterCreatorAdminPermissions") else None
        )
        associations = self._declared_associations()
        for principal, entry in sorted(entries.items()):
            if entry is UNREADABLE:
                continue  # the read error is reported
            policies = self.inv.access_policies.get(principal)
            if principal in node_roles or canonical(principal, self.symbols) in granted:
                self.view.read["aws:eks/accessEntry:AccessEntry"] += 1  # EKS's own for a node group, or declared
                self._associations(name, principal, policies, associations)
                continue
            created = created_seconds((entry or {}).get("createdAt"))
            if (
                creator_window is not None
                and created is not None
                and (entry or {}).get("type") == "STANDARD"
                and abs(created - creator_window) <= _CREATOR_ENTRY_WINDOW_S
            ):
                # `bootstrapClusterCreatorAdminPermissions`: EKS grants whoever created the cluster, with it,
                # and associates the cluster-admin policy at cluster scope.
                creator_window = None
                self.view.read["aws:eks/accessEntry:AccessEntry"] += 1
                self._associations(name, principal, policies, associations | {(principal, _CREATOR_POLICY)})
                continue
            self._unexpected(
                self._live(
                    None,
                    "aws:eks/accessEntry:AccessEntry",
                    f"{name}:{principal}",
                    {
                        "clusterName": name,
                        "principalArn": principal,
                        "type": (entry or {}).get("type"),
                        "kubernetesGroups": (entry or {}).get("kubernetesGroups"),
                        "accessPolicies": sorted(p.get("policyArn", "") for p in policies or []) or None,
                    },
                ),
                f"an access entry of {name} that the declaration does not grant",
            )

    def _declared_associations(self) -> set[tuple[str, str]]:
        """(principal ARN, policy ARN) of every declared access policy association, as live values."""
        out: set[tuple[str, str]] = set()
        for resource in self.declared.of_type("aws:eks/accessPolicyAssociation:AccessPolicyAssociation"):
            principal = resource.props.get("principalArn")
            principal = self._live_ref(principal) or principal
            out.add((str(principal), str(resource.props.get("policyArn"))))
        return out

    def _associations(self, cluster: Any, principal: str, policies: Any, expected: set[tuple[str, str]]) -> None:
        """Access policies associated with an entry that is EKS's or declared: any other is unexpected."""
        if not isinstance(policies, list):
            return  # unreadable: the read error is reported
        for policy in policies:
            arn = policy.get("policyArn", "")
            scope = policy.get("accessScope") or {}
            if (principal, arn) in expected:
                self.view.read["aws:eks/accessPolicyAssociation:AccessPolicyAssociation"] += 1
                continue
            self._unexpected(
                self._live(
                    None,
                    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
                    f"{cluster}#{principal}#{arn}",
                    {
                        "clusterName": cluster,
                        "principalArn": principal,
                        "policyArn": arn,
                        "accessScope": {"type": scope.get("type"), "namespaces": scope.get("namespaces") or None},
                    },
                ),
                f"an access policy associated with {principal.rsplit('/', 1)[-1]} in {cluster} "
                "that neither EKS nor the declaration associates",
            )
