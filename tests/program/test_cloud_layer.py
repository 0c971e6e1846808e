"""What the program declares for dev and prod: the inputs that make the platform safe and correct.

Each test reads the wire-format inputs recorded by the offline engine (the same ones `pulumi up`
would send) and names the resource in its assertion messages.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path

import pulumi_aws as aws
import pytest

from accelplane.clouds.aws.catalog import instance_facts
from accelplane.config.loader import load_stack
from accelplane.engine.graph import OfflineGraph, RecordedResource

STACKS = ["dev", "prod"]


@pytest.fixture(params=STACKS)
def stack(
    request: pytest.FixtureRequest, dev_graph: OfflineGraph, prod_graph: OfflineGraph
) -> tuple[str, OfflineGraph]:
    return request.param, {"dev": dev_graph, "prod": prod_graph}[request.param]


def _statements(policy: str) -> list[dict]:
    document = json.loads(policy)
    statements = document["Statement"]
    return statements if isinstance(statements, list) else [statements]


def _as_list(value: object) -> list:
    return value if isinstance(value, list) else [value]


def _taggable_types() -> set[str]:
    types: set[str] = set()
    for module in (aws.ec2, aws.eks, aws.s3, aws.iam, aws.kms, aws.lb, aws.secretsmanager, aws.cloudwatch, aws.vpc):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            token = getattr(cls, "pulumi_type", None)
            init = getattr(cls, "_internal_init", None)
            if isinstance(token, str) and init is not None and "tags" in inspect.signature(init).parameters:
                types.add(token)
    return types


def test_every_taggable_resource_carries_the_platform_tags(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    expected = load_stack(name).platform.resource_tags
    taggable = _taggable_types()
    checked = 0
    for resource in graph.resources:
        if resource.type in taggable:
            tags = resource.inputs.get("tags", {})
            missing = {k: v for k, v in expected.items() if tags.get(k) != v}
            assert not missing, f"{resource.name} ({resource.type}) lacks tags {missing}"
            checked += 1
    assert checked > 40


def test_cluster_endpoint_is_private_or_restricted_and_encrypted(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    [cluster] = graph.by_type("aws:eks/cluster:Cluster")
    vpc = cluster.inputs["vpcConfig"]
    assert vpc["endpointPrivateAccess"] is True
    assert vpc["endpointPublicAccess"] is True and vpc["publicAccessCidrs"] == platform.network.api_allowed_cidrs
    assert "0.0.0.0/0" not in vpc["publicAccessCidrs"]
    [encryption] = _as_list(cluster.inputs["encryptionConfig"])
    assert encryption["resources"] == ["secrets"]
    eks_key = graph.named(f"{platform.name}-eks-key")
    assert encryption["provider"]["keyArn"].endswith(eks_key.id), "cluster secrets must use the EKS key"
    assert set(cluster.inputs["enabledClusterLogTypes"]) == {
        "api",
        "audit",
        "authenticator",
        "controllerManager",
        "scheduler",
    }
    [oidc] = graph.by_type("aws:iam/openIdConnectProvider:OpenIdConnectProvider")
    assert oidc.inputs["clientIdLists"] == ["sts.amazonaws.com"]
    assert oidc.inputs["url"].startswith(f"https://oidc.eks.{platform.region}.amazonaws.com/id/")


def test_launch_templates_require_imdsv2_hop_limit_one_and_encrypted_disks(stack: tuple[str, OfflineGraph]) -> None:
    _, graph = stack
    templates = graph.by_type("aws:ec2/launchTemplate:LaunchTemplate")
    assert templates
    for template in templates:
        metadata = template.inputs["metadataOptions"]
        assert metadata["httpTokens"] == "required", template.name
        assert metadata["httpPutResponseHopLimit"] == 1, template.name
        [disk] = template.inputs["blockDeviceMappings"]
        assert disk["ebs"]["encrypted"] == "true" and disk["ebs"]["volumeType"] == "gp3", template.name
        for interface in template.inputs["networkInterfaces"]:
            assert interface["associatePublicIpAddress"] == "false", template.name


def _pool_template(graph: OfflineGraph, platform_name: str, pool: str) -> RecordedResource:
    return graph.named(f"{platform_name}-{pool}-lt")


def test_efa_pool_gets_one_efa_interface_per_card_and_a_placement_group(prod_graph: OfflineGraph) -> None:
    template = _pool_template(prod_graph, "acme-ml", "train-h100")
    interfaces = template.inputs["networkInterfaces"]
    expected = instance_facts("p5.48xlarge").max_efa_interfaces
    assert len(interfaces) == expected == 32
    assert all(i["interfaceType"] == "efa" for i in interfaces)
    assert [i["networkCardIndex"] for i in interfaces] == list(range(32))
    assert [i["deviceIndex"] for i in interfaces][:2] == [0, 1]
    placement = prod_graph.named("acme-ml-train-h100-placement")
    assert placement.inputs["strategy"] == "cluster"
    assert template.inputs["placement"]["groupName"].startswith(f"{placement.name}-"), "pool must use its group"
    reservation = template.inputs["capacityReservationSpecification"]["capacityReservationTarget"]
    assert reservation["capacityReservationId"] == "cr-0a1b2c3d4e5f60718"
    node_group = prod_graph.named("acme-ml-train-h100-ng")
    assert len(node_group.inputs["subnetIds"]) == 1, "a cluster placement group lives in one zone"


def test_non_efa_pools_have_a_single_plain_interface(prod_graph: OfflineGraph) -> None:
    template = _pool_template(prod_graph, "acme-ml", "infer-l40s")
    [interface] = template.inputs["networkInterfaces"]
    assert "interfaceType" not in interface


def test_node_groups_carry_ami_type_capacity_labels_and_taints(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    for pool in platform.node_pools:
        group = graph.named(f"{platform.name}-{pool.name}-ng").inputs
        assert group["instanceTypes"] == [pool.instance_type]
        labels = group["labels"]
        assert labels["accelplane.io/pool"] == pool.name
        if pool.accelerator is None:
            assert group["amiType"] == "AL2023_x86_64_STANDARD" and group.get("taints", []) == []
            continue
        vendor = pool.accelerator.split("-")[0]
        assert group["amiType"] == {"nvidia": "AL2023_x86_64_NVIDIA", "aws": "AL2023_x86_64_NEURON"}[vendor]
        taint_key = {"nvidia": "nvidia.com/gpu", "aws": "aws.amazon.com/neuron"}[vendor]
        assert group["taints"] == [{"key": taint_key, "value": "true", "effect": "NO_SCHEDULE"}], pool.name
        profile = platform.software_profiles[pool.software_profile]
        assert labels["accelplane.io/profile"] == pool.software_profile
        assert labels["accelplane.io/accelerator"] == pool.accelerator
        for key, value in profile.versions().items():
            assert labels[f"versions.accelplane.io/{key.replace('_', '-')}"] == value, (pool.name, key)
        assert group["releaseVersion"] == profile.ami_release_version
        expected_capacity = {"spot": "SPOT"}.get(pool.capacity.type.value, "ON_DEMAND")
        assert group["capacityType"] == expected_capacity, pool.name
        scaling = group["scalingConfig"]
        assert (scaling["minSize"], scaling["desiredSize"], scaling["maxSize"]) == (
            pool.scaling.min,
            pool.scaling.desired,
            pool.scaling.max,
        )


def _rules(graph: OfflineGraph, group_id: str, kind: str) -> list[RecordedResource]:
    token = f"aws:vpc/securityGroup{kind}Rule:SecurityGroup{kind}Rule"
    return [r for r in graph.by_type(token) if r.inputs["securityGroupId"] == group_id]


def test_training_group_admits_only_itself(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    group = graph.named(f"{platform.name}-sg-training")
    [ingress] = _rules(graph, group.id, "Ingress")
    assert ingress.inputs["ipProtocol"] == "-1" and ingress.inputs["referencedSecurityGroupId"] == group.id
    egress_to_self = [r for r in _rules(graph, group.id, "Egress") if r.inputs.get("referencedSecurityGroupId")]
    assert [r.inputs["referencedSecurityGroupId"] for r in egress_to_self] == [group.id]


def test_inference_nodes_admit_the_service_port_from_the_load_balancer_only(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    nodes = graph.named(f"{platform.name}-sg-inference")
    lb = graph.named(f"{platform.name}-sg-lb")
    [ingress] = _rules(graph, nodes.id, "Ingress")
    port = platform.inference_endpoint.target_port
    assert ingress.inputs["referencedSecurityGroupId"] == lb.id
    assert (ingress.inputs["fromPort"], ingress.inputs["toPort"]) == (port, port)


def test_load_balancer_admits_https_and_redirect_from_allowed_cidrs_only(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    lb = graph.named(f"{platform.name}-sg-lb")
    allowed = set(platform.inference_endpoint.allowed_cidrs)
    rules = _rules(graph, lb.id, "Ingress")
    assert {r.inputs["cidrIpv4"] for r in rules} == allowed
    endpoint = platform.inference_endpoint
    assert endpoint.http_redirect, "dev and prod keep the HTTP redirect"
    assert {(r.inputs["fromPort"], r.inputs["toPort"]) for r in rules} == {(endpoint.listener_port,) * 2, (80, 80)}


ENDPOINT_CIDRS = "\n      allowed_cidrs: [203.0.113.0/24]"  # the endpoint's, not network.api_allowed_cidrs
REDIRECT = "\n      http_redirect: true"


def _endpoint_variant(tmp_path: Path, cidrs: str, redirect: str = REDIRECT) -> Path:
    from tests.support.stack_files import stack_text

    text = stack_text("dev")
    assert text.count(ENDPOINT_CIDRS) == 1 and text.count(REDIRECT) == 1
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text.replace(ENDPOINT_CIDRS, cidrs).replace(REDIRECT, redirect))
    return path


def _public_variant(tmp_path: Path, redirect: str = REDIRECT) -> OfflineGraph:
    from accelplane.config.loader import load_stack_file
    from accelplane.program import offline_graph

    return offline_graph(load_stack_file(_endpoint_variant(tmp_path, "\n      allowed_cidrs: [0.0.0.0/0]", redirect)))


def _rule_findings(graph: OfflineGraph) -> list[str]:
    from accelplane.engine.graph import from_offline_graph
    from accelplane.rules.engine import evaluate
    from accelplane.rules.graph import ReferenceGraph

    evaluation = evaluate(ReferenceGraph(from_offline_graph(graph), stack=graph.stack, environment="dev"))
    # Dev's Hugging Face token is renewed by hand at its issuer (AP-SM-003's advice, not the endpoint's).
    return [f"{f.rule.id} {f.name}: {f.message}" for f in evaluation.findings if f.rule.id != "AP-SM-003"]


def _listener_ports(graph: OfflineGraph) -> dict[int, str]:
    return {r.inputs["port"]: r.inputs["protocol"] for r in graph.by_type("aws:lb/listener:Listener")}


def test_a_public_endpoint_with_its_redirect_passes_every_rule_without_a_waiver(tmp_path: Path) -> None:
    graph = _public_variant(tmp_path)
    lb = graph.named("acme-ml-dev-sg-lb")
    world = {r.inputs["fromPort"] for r in _rules(graph, lb.id, "Ingress") if r.inputs.get("cidrIpv4") == "0.0.0.0/0"}
    assert world == {443, 80}
    assert _listener_ports(graph) == {443: "HTTPS", 80: "HTTP"}
    assert _rule_findings(graph) == []


def test_without_the_redirect_port_80_is_neither_listened_on_nor_open(tmp_path: Path) -> None:
    graph = _public_variant(tmp_path, "\n      http_redirect: false\n      listener_port: 8443")
    lb = graph.named("acme-ml-dev-sg-lb")
    assert {(r.inputs["fromPort"], r.inputs["toPort"]) for r in _rules(graph, lb.id, "Ingress")} == {(8443, 8443)}
    assert _listener_ports(graph) == {8443: "HTTPS"}
    assert not [r for r in graph.resources if r.name.endswith("-http-redirect")]
    # The declared HTTPS port, not 443, is what a public endpoint may open.
    assert _rule_findings(graph) == []


def test_the_redirect_on_the_https_port_is_refused(tmp_path: Path) -> None:
    from accelplane.config.loader import load_stack_file
    from accelplane.errors import InputError

    path = _endpoint_variant(tmp_path, ENDPOINT_CIDRS, REDIRECT + "\n      listener_port: 80")
    with pytest.raises(InputError) as caught:
        load_stack_file(path)
    [problem] = caught.value.problems
    assert f"{path}:" in str(problem) and "inference_endpoint" in str(problem), str(problem)
    assert "http_redirect: false" in str(problem), str(problem)


def _all_ingress(graph: OfflineGraph) -> Iterator[RecordedResource]:
    yield from graph.by_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")


def test_no_ssh_or_rdp_and_no_world_ingress_anywhere(stack: tuple[str, OfflineGraph]) -> None:
    _, graph = stack
    for rule in _all_ingress(graph):
        inputs = rule.inputs
        assert inputs.get("cidrIpv4") != "0.0.0.0/0" and inputs.get("cidrIpv6") != "::/0", rule.name
        if inputs["ipProtocol"] != "-1":
            ports = range(inputs["fromPort"], inputs["toPort"] + 1)
            assert 22 not in ports and 3389 not in ports, rule.name
    for group in graph.by_type("aws:ec2/securityGroup:SecurityGroup"):
        assert "ingress" not in group.inputs, f"{group.name}: inline rules would fight the rule resources"


def test_buckets_are_private_kms_encrypted_tls_only_and_versioned(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    data_key = graph.named(f"{platform.name}-data-key")
    for bucket in platform.buckets:
        prefix = f"{platform.name}-{bucket.role.value.replace('_', '-')}"
        block = graph.named(f"{prefix}-public-access").inputs
        assert all(
            block[k] is True
            for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
        ), prefix
        [rule] = graph.named(f"{prefix}-encryption").inputs["rules"]
        default = rule["applyServerSideEncryptionByDefault"]
        assert default["sseAlgorithm"] == "aws:kms" and default["kmsMasterKeyId"].endswith(data_key.id), prefix
        assert rule["bucketKeyEnabled"] is True
        [deny] = _statements(graph.named(f"{prefix}-policy").inputs["policy"])
        assert deny["Effect"] == "Deny" and deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        versioning = graph.named(f"{prefix}-versioning").inputs["versioningConfiguration"]["status"]
        assert versioning == ("Enabled" if bucket.versioning else "Suspended")
        assert graph.named(f"{prefix}-bucket").protect is (platform.environment.value == "prod")


def test_lifecycle_rules_are_declared_as_written(prod_graph: OfflineGraph) -> None:
    rules = prod_graph.named("acme-ml-checkpoints-lifecycle").inputs["rules"]
    [rule] = rules
    assert rule["id"] == "checkpoints-age-out" and rule["status"] == "Enabled"
    assert [(t["days"], t["storageClass"]) for t in rule["transitions"]] == [(30, "STANDARD_IA"), (90, "GLACIER_IR")]
    assert rule["noncurrentVersionExpiration"] == {"noncurrentDays": 14}
    assert rule["abortIncompleteMultipartUpload"] == {"daysAfterInitiation": 2}
    logs = prod_graph.named("acme-ml-logs-lifecycle").inputs["rules"][0]
    assert logs["expiration"] == {"days": 365}


def test_https_listener_uses_the_declared_certificate_and_tls_policy(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    endpoint = platform.inference_endpoint
    https = graph.named(f"{platform.name}-inference-https").inputs
    assert https["protocol"] == "HTTPS" and https["port"] == endpoint.listener_port
    assert https["sslPolicy"] == endpoint.tls_policy and https["certificateArn"] == endpoint.certificate_arn
    redirect = graph.named(f"{platform.name}-inference-http-redirect").inputs
    [action] = redirect["defaultActions"]
    assert action["type"] == "redirect" and action["redirect"]["protocol"] == "HTTPS"
    [service] = platform.kubernetes.inference_services
    for backend in service.serving_backends:
        target_group = graph.named(f"{platform.name}-inference-tg-{service.name}-{backend.name}").inputs
        assert target_group["targetType"] == "ip" and target_group["port"] == endpoint.target_port
        health = target_group["healthCheck"]
        assert health["path"] == endpoint.health_check.path
        assert health["interval"] == endpoint.health_check.interval_seconds
        assert health["unhealthyThreshold"] == endpoint.health_check.unhealthy_threshold
    alb = graph.named(f"{platform.name}-inference-alb").inputs
    assert alb["internal"] is False and alb["dropInvalidHeaderFields"] is True


def test_workload_roles_trust_exactly_one_service_account(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    for workload in platform.workloads:
        [statement] = _statements(graph.named(f"{platform.name}-{workload.name}-role").inputs["assumeRolePolicy"])
        assert statement["Action"] == "sts:AssumeRoleWithWebIdentity"
        assert statement["Principal"]["Federated"].startswith("arn:aws:iam::123456789012:oidc-provider/oidc.eks.")
        conditions = statement["Condition"]["StringEquals"]
        subjects = [v for k, v in conditions.items() if k.endswith(":sub")]
        audiences = [v for k, v in conditions.items() if k.endswith(":aud")]
        assert subjects == [f"system:serviceaccount:{workload.namespace}:{workload.name}"]
        assert audiences == ["sts.amazonaws.com"]


def test_workload_policies_are_scoped_to_declared_prefixes_and_secrets(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    for workload in platform.workloads:
        statements = _statements(graph.named(f"{platform.name}-{workload.name}-access").inputs["policy"])
        for statement in statements:
            actions = _as_list(statement["Action"])
            assert not any(a == "*" or a.endswith(":*") for a in actions), (workload.name, statement)
            assert "*" not in _as_list(statement["Resource"]), (workload.name, statement)
        objects = [s for s in statements if s["Sid"].startswith("Objects")]
        assert len(objects) == len(workload.buckets)
        for grant, statement in zip(workload.buckets, objects, strict=True):
            assert statement["Resource"].endswith(f"/{grant.prefix}*"), (workload.name, statement)
            writes = "s3:PutObject" in statement["Action"]
            assert writes == (grant.access.value in ("write", "read_write"))
        lists = [s for s in statements if s["Sid"].startswith("List")]
        assert [s["Condition"]["StringLike"]["s3:prefix"] for s in lists] == [
            [f"{g.prefix}*"] for g in workload.buckets
        ]
        [secrets] = [s for s in statements if s["Sid"] == "ReadDeclaredSecrets"]
        assert len(secrets["Resource"]) == len(workload.secrets)
        kms = [s for s in statements if s["Sid"].endswith("Through" + "S3") or "SecretsManager" in s["Sid"]]
        assert all("kms:ViaService" in s["Condition"]["StringEquals"] for s in kms)


def test_secrets_use_the_secrets_key_and_name_only_their_readers(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    secrets_key = graph.named(f"{platform.name}-secrets-key")
    for secret in platform.secrets:
        declared = graph.named(f"{platform.name}-secrets-{secret.name}")
        assert declared.inputs["kmsKeyId"].endswith(secrets_key.id)
        policy = _statements(graph.named(f"{platform.name}-secret-access-{secret.name}").inputs["policy"])
        [allow] = [s for s in policy if s["Effect"] == "Allow"]
        readers = sorted(w.name for w in platform.secret_readers(secret.name))
        principals = sorted(allow["Principal"]["AWS"])
        # Role ARNs end in the autonamed role: `role/<platform>-<workload>-role-<suffix>`.
        assert [p.split(":role/")[1].rsplit("-", 1)[0] for p in principals] == [
            f"{platform.name}-{w}-role" for w in readers
        ], secret.name
    assert not graph.by_type("aws:secretsmanager/secretVersion:SecretVersion"), "no value may come from the file"


def test_keys_rotate_and_never_trust_a_wildcard_principal(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    keys = graph.by_type("aws:kms/key:Key")
    # EKS secrets, data, secrets; and the CloudTrail log files' where `audit` is declared (test_audit_trail.py).
    assert len(keys) == (4 if load_stack(name).platform.audit else 3)
    for key in keys:
        assert key.inputs["enableKeyRotation"] is True, key.name
        for statement in _statements(key.inputs["policy"]):
            principal = statement["Principal"]
            assert principal != "*" and (principal.get("AWS", "").endswith(":root")
                                         or principal == {"Service": "cloudtrail.amazonaws.com"}), key.name


def test_node_role_has_only_node_policies(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    node_role = graph.named(f"{platform.name}-node-role")
    attachments = [
        r.inputs["policyArn"].rsplit("/", 1)[-1]
        for r in graph.by_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        if r.parent == node_role.parent
    ]
    assert sorted(attachments) == [
        "AmazonEC2ContainerRegistryPullOnly",
        "AmazonEKSWorkerNodePolicy",
        "AmazonEKS_CNI_Policy",
    ]
    assert not [r for r in graph.by_type("aws:iam/rolePolicy:RolePolicy") if r.parent == node_role.parent]


def test_no_iam_users_or_access_keys(stack: tuple[str, OfflineGraph]) -> None:
    _, graph = stack
    assert not [r for r in graph.resources if r.type.startswith(("aws:iam/user", "aws:iam/accessKey"))]


def test_prod_has_three_zones_and_a_nat_per_zone(prod_graph: OfflineGraph) -> None:
    assert len(prod_graph.by_type("aws:ec2/natGateway:NatGateway")) == 3
    zones = {s.inputs["availabilityZone"] for s in prod_graph.by_type("aws:ec2/subnet:Subnet")}
    assert zones == {"us-west-2a", "us-west-2b", "us-west-2c"}
    assert all(s.inputs["mapPublicIpOnLaunch"] is False for s in prod_graph.by_type("aws:ec2/subnet:Subnet"))


def test_every_resource_has_a_component_parent(stack: tuple[str, OfflineGraph]) -> None:
    _, graph = stack
    components = {r.urn for r in graph.resources if not r.custom}
    for resource in graph.resources:
        if resource.type.startswith("pulumi:providers:"):
            continue  # the explicit AWS and cluster providers are shared by every component
        if resource.custom:
            assert resource.parent in components, f"{resource.name} is not inside a component"
        else:
            assert resource.type.startswith(("accelplane:aws:", "accelplane:k8s:")), resource.type


def test_existing_vpc_is_used_not_created(tmp_path: Path) -> None:
    from accelplane.config.loader import load_stack_file
    from accelplane.program import offline_graph
    from tests.support.stack_files import write_variant

    existing = (
        "existing_vpc:\n"
        "        vpc_id: vpc-0abc1234def567890\n"
        "        cidr: 10.40.0.0/16\n"
        "        private_subnet_ids: [subnet-0aaa1111bbbb2222c, subnet-0ddd3333eeee4444f]\n"
        "        public_subnet_ids: [subnet-0fff5555aaaa6666b]\n"
    )
    new_vpc = (
        "new_vpc:\n        cidr: 10.40.0.0/16\n        availability_zones: [us-east-1a, us-east-1b]\n"
        "        private_subnets: [10.40.0.0/19, 10.40.32.0/19]\n"
        "        public_subnets: [10.40.192.0/24, 10.40.193.0/24]\n        nat: single\n"
    )
    path, _ = write_variant(tmp_path, new_vpc, existing)
    graph = offline_graph(load_stack_file(path))
    created = {r.type for r in graph.resources}
    assert not created & {"aws:ec2/vpc:Vpc", "aws:ec2/subnet:Subnet", "aws:ec2/natGateway:NatGateway"}
    [cluster] = graph.by_type("aws:eks/cluster:Cluster")
    assert cluster.inputs["vpcConfig"]["subnetIds"] == ["subnet-0aaa1111bbbb2222c", "subnet-0ddd3333eeee4444f"]
    assert graph.named("acme-ml-dev-inference-alb").inputs["subnets"] == ["subnet-0fff5555aaaa6666b"]
    for group in graph.by_type("aws:ec2/securityGroup:SecurityGroup"):
        assert group.inputs["vpcId"] == "vpc-0abc1234def567890", group.name
    policy = next(
        r
        for r in graph.resources
        if r.type.endswith(":NetworkPolicy")
        and r.inputs["metadata"]["name"] == "allow-load-balancer-and-metrics"
        and r.inputs["metadata"]["namespace"] == "inference"
    )
    # Without declared public subnets the ALB's traffic can come from anywhere in the VPC.
    assert policy.inputs["spec"]["ingress"][1]["from"] == [{"ipBlock": {"cidr": "10.40.0.0/16"}}]
