"""Regenerate a cloud's `accelplane/clouds/<cloud>/force_new.json`: which inputs replace a resource, read from
the provider's source.

pulumi-aws and pulumi-gcp are bridged from the Terraform providers, whose resource schemas mark each
argument that cannot change in place (`ForceNew: true` in the plugin SDK, `RequiresReplace()` in the
plugin framework). The Python SDKs drop that mark, so `accelplane diff` reads it from this table.
Run against a checkout of the provider at the version the Pulumi provider builds on:

    python tools/force_new_from_provider.py --repo /path/to/terraform-provider-google \
        --provider gcp --commit <sha> --out accelplane/clouds/gcp/force_new.json

The SDK's rule for nested blocks is kept: `ForceNew` on a block (a list of `schema.Resource`) replaces
only when the block is added or removed; on a list of plain values, when any element changes.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Pulumi type token -> the Terraform resource's schema files (relative to the provider repository).
GCP_FILES = {
    "gcp:container/nodePool:NodePool": ["google/services/container/resource_container_node_pool.go",
                                        "google/services/container/node_config.go"],
    "gcp:container/cluster:Cluster": ["google/services/container/resource_container_cluster.go",
                                      "google/services/container/node_config.go"],
    "gcp:compute/network:Network": ["google/services/compute/resource_compute_network.go"],
    "gcp:compute/subnetwork:Subnetwork": ["google/services/compute/resource_compute_subnetwork.go"],
    "gcp:compute/router:Router": ["google/services/compute/resource_compute_router.go"],
    "gcp:compute/routerNat:RouterNat": ["google/services/compute/resource_compute_router_nat.go"],
    "gcp:compute/firewall:Firewall": ["google/services/compute/resource_compute_firewall.go"],
    "gcp:compute/globalAddress:GlobalAddress": ["google/services/compute/resource_compute_global_address.go"],
    "gcp:compute/address:Address": ["google/services/compute/resource_compute_address.go"],
    "gcp:compute/sSLPolicy:SSLPolicy": ["google/services/compute/resource_compute_ssl_policy.go"],
    "gcp:compute/securityPolicy:SecurityPolicy": ["google/services/compute/resource_compute_security_policy.go"],
    "gcp:compute/backendService:BackendService": ["google/services/compute/resource_compute_backend_service.go"],
    "gcp:certificatemanager/certificateMap:CertificateMap": [
        "google/services/certificatemanager/resource_certificate_manager_certificate_map.go"],
    "gcp:certificatemanager/certificateMapEntry:CertificateMapEntry": [
        "google/services/certificatemanager/resource_certificate_manager_certificate_map_entry.go"],
    "gcp:kms/keyRing:KeyRing": ["google/services/kms/resource_kms_key_ring.go"],
    "gcp:kms/cryptoKey:CryptoKey": ["google/services/kms/resource_kms_crypto_key.go"],
    "gcp:secretmanager/secret:Secret": ["google/services/secretmanager/resource_secret_manager_secret.go"],
    "gcp:serviceaccount/account:Account": ["google/services/resourcemanager/resource_google_service_account.go"],
    "gcp:storage/bucket:Bucket": ["google/services/storage/resource_storage_bucket.go"],
    # IAM members and bindings share one base schema; the parent's identifier is ForceNew too (below).
    "gcp:projects/iAMMember:IAMMember": ["google/tpgiamresource/resource_iam_member.go"],
    "gcp:storage/bucketIAMMember:BucketIAMMember": ["google/tpgiamresource/resource_iam_member.go"],
    "gcp:secretmanager/secretIamMember:SecretIamMember": ["google/tpgiamresource/resource_iam_member.go"],
    "gcp:kms/cryptoKeyIAMBinding:CryptoKeyIAMBinding": ["google/tpgiamresource/resource_iam_binding.go"],
}
# Types whose schema is not in the provider's repository (google_project_service_identity is a beta
# resource: the GA repository holds an empty stub), read by hand from the generator's template.
HAND_READ = {
    "gcp:projects/serviceIdentity:ServiceIdentity": {
        "paths": [{"path": "project"}, {"path": "service"}],
        "source": ["https://github.com/GoogleCloudPlatform/magic-modules/blob/223e7b66d7b8cae45dff9a0b539349503d26a3ae/"
                   "mmv1/third_party/terraform/services/resourcemanager/resource_project_service_identity.go.tmpl"],
    },
}
# The IAM parent schemas live beside each service's IAM updater: each names its parent ForceNew.
IAM_PARENTS = {
    "gcp:projects/iAMMember:IAMMember": ["project"],
    "gcp:storage/bucketIAMMember:BucketIAMMember": ["bucket"],
    "gcp:secretmanager/secretIamMember:SecretIamMember": ["project", "secretId"],
    "gcp:kms/cryptoKeyIAMBinding:CryptoKeyIAMBinding": ["cryptoKeyId"],
}

AWS_FILES = {
    "aws:ec2/vpc:Vpc": ["internal/service/ec2/vpc_.go"],
    # The three wafv2 entries of the table were read at older commits of these files (their URLs say which).
    "aws:wafv2/webAcl:WebAcl": ["internal/service/wafv2/web_acl.go"],
    "aws:wafv2/webAclAssociation:WebAclAssociation": ["internal/service/wafv2/web_acl_association.go"],
    "aws:wafv2/webAclLoggingConfiguration:WebAclLoggingConfiguration": [
        "internal/service/wafv2/web_acl_logging_configuration.go"],
    "aws:ec2/subnet:Subnet": ["internal/service/ec2/vpc_subnet.go"],
    "aws:ec2/internetGateway:InternetGateway": ["internal/service/ec2/vpc_internet_gateway.go"],
    "aws:ec2/eip:Eip": ["internal/service/ec2/ec2_eip.go"],
    "aws:ec2/natGateway:NatGateway": ["internal/service/ec2/vpc_nat_gateway.go"],
    "aws:ec2/routeTable:RouteTable": ["internal/service/ec2/vpc_route_table.go"],
    "aws:ec2/route:Route": ["internal/service/ec2/vpc_route.go"],
    "aws:ec2/routeTableAssociation:RouteTableAssociation": ["internal/service/ec2/vpc_route_table_association.go"],
    "aws:ec2/securityGroup:SecurityGroup": ["internal/service/ec2/vpc_security_group.go"],
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": ["internal/service/ec2/vpc_default_security_group.go"],
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": [
        "internal/service/ec2/vpc_security_group_ingress_rule.go"],
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": [
        "internal/service/ec2/vpc_security_group_ingress_rule.go"],
    "aws:ec2/launchTemplate:LaunchTemplate": ["internal/service/ec2/ec2_launch_template.go"],
    "aws:ec2/placementGroup:PlacementGroup": ["internal/service/ec2/ec2_placement_group.go"],
    "aws:eks/cluster:Cluster": ["internal/service/eks/cluster.go"],
    "aws:eks/nodeGroup:NodeGroup": ["internal/service/eks/node_group.go"],
    "aws:iam/role:Role": ["internal/service/iam/role.go"],
    "aws:iam/rolePolicy:RolePolicy": ["internal/service/iam/role_policy.go"],
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ["internal/service/iam/role_policy_attachment.go"],
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": ["internal/service/iam/openid_connect_provider.go"],
    "aws:kms/key:Key": ["internal/service/kms/key.go"],
    "aws:kms/alias:Alias": ["internal/service/kms/alias.go"],
    "aws:s3/bucket:Bucket": ["internal/service/s3/bucket.go"],
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": [
        "internal/service/s3/bucket_lifecycle_configuration.go"],
    "aws:s3/bucketOwnershipControls:BucketOwnershipControls": ["internal/service/s3/bucket_ownership_controls.go"],
    "aws:s3/bucketPolicy:BucketPolicy": ["internal/service/s3/bucket_policy.go"],
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": ["internal/service/s3/bucket_public_access_block.go"],
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": [
        "internal/service/s3/bucket_server_side_encryption_configuration.go"],
    "aws:s3/bucketVersioning:BucketVersioning": ["internal/service/s3/bucket_versioning.go"],
    "aws:secretsmanager/secret:Secret": ["internal/service/secretsmanager/secret.go"],
    "aws:secretsmanager/secretPolicy:SecretPolicy": ["internal/service/secretsmanager/secret_policy.go"],
    "aws:cloudwatch/logGroup:LogGroup": ["internal/service/logs/group.go"],
    "aws:lb/loadBalancer:LoadBalancer": ["internal/service/elbv2/load_balancer.go"],
    "aws:lb/targetGroup:TargetGroup": ["internal/service/elbv2/target_group.go"],
    "aws:lb/listener:Listener": ["internal/service/elbv2/listener.go"],
}


@dataclass
class Entry:
    name: str
    force_new: bool = False
    block: bool = False  # its elements are nested schemas (a block): ForceNew then means added/removed
    children: list[Entry] = field(default_factory=list)


def _skip(text: str, i: int) -> int:
    """Past a string, raw string or comment starting at i; i itself when none starts there."""
    if text.startswith("//", i):
        return text.find("\n", i) + 1 or len(text)
    if text.startswith("/*", i):
        return text.find("*/", i + 2) + 2
    if text[i] == "`":
        return text.find("`", i + 1) + 1
    if text[i] == '"':
        j = i + 1
        while text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        return j + 1
    return i


def _close(text: str, i: int) -> int:
    """Index just past the brace matching the `{` at i."""
    depth = 0
    while i < len(text):
        j = _skip(text, i)
        if j != i:
            i = j
            continue
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced braces")


def _top_level(body: str) -> str:
    """The body with nested braces' contents blanked: what is said at this level only."""
    out, i = [], 0
    while i < len(body):
        j = _skip(body, i)
        if j != i:
            kept = body[i:j]  # strings stay (keys are strings); comments go
            out.append(" " * (j - i) if kept.startswith("/") else kept)
            i = j
        elif body[i] == "{":
            end = _close(body, i)
            out.append("{" + " " * (end - i - 2) + "}")
            i = end
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


_KEY = re.compile(r'(?:"(\w+)"|names\.(Attr\w+))\s*:\s*(?:&?schema\.\w+)?\s*([{(]|\w+\(\)|\w+)')


class Source:
    def __init__(self, texts: list[str], constants: dict[str, str]) -> None:
        self.text = "\n".join(texts)
        self.constants = constants
        self.functions = {m[1]: m.end() for m in re.finditer(r"\nfunc (\w+)\(\) \*schema\.\w+ \{", self.text)}
        self.variables = {m[1]: m.end() - 1 for m in
                          re.finditer(r"\nvar (\w+) = map\[string\]\*schema\.Schema\{", self.text)}

    def entries(self, body: str) -> Iterator[Entry]:
        """The schema entries of a `map[string]*schema.Schema{...}` body (or a framework attributes map)."""
        level = _top_level(body)
        for match in _KEY.finditer(level):
            name = match[1] or self.constants.get(match[2] or "", "")
            if not name:
                continue
            opener = match[3]
            if opener == "{":
                start = match.start(3)
                yield self._entry(name, body[start:_close(body, start)])
            elif opener.endswith("()") and opener[:-2] in self.functions:
                start = self.functions[opener[:-2]] - 1  # the function's opening brace
                inner = self.text[start:_close(self.text, start)]
                # `return &schema.Schema{...}` inside the function body (else: not a schema we can read)
                literal = inner.find("&schema.Schema{")
                if literal >= 0:
                    literal += len("&schema.Schema")
                    yield self._entry(name, inner[literal:_close(inner, literal)])

    def _entry(self, name: str, body: str) -> Entry:
        body = body.strip()
        body = body[1:-1] if body.startswith("{") else body  # the literal's inside
        level = _top_level(body)
        entry = Entry(name, force_new=bool(re.search(r"ForceNew:\s*true", level))
                      or ("RequiresReplace()" in body and _requires_replace_here(body)))
        elem = re.search(r"Elem:\s*&schema\.Resource\{", level)
        if elem is None:
            return entry
        start = elem.end() - 1
        resource = body[start + 1:_close(body, start) - 1]
        schema = re.search(r"Schema:\s*map\[string\]\*schema\.Schema\{", _top_level(resource))
        if schema is not None:
            open_at = schema.end() - 1
            entry.block = True
            entry.children = list(self.entries(resource[open_at + 1:_close(resource, open_at) - 1]))
        return entry


def _requires_replace_here(body: str) -> bool:
    """A plugin-framework attribute whose own plan modifiers require replacement (not a nested one's)."""
    level = _top_level(body)
    modifiers = re.search(r"PlanModifiers:\s*\[\]planmodifier\.\w+\{", level)
    if modifiers is None:
        return False
    start = modifiers.end() - 1
    return "RequiresReplace" in body[start:_close(body, start)]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _paths(entries: list[Entry], prefix: str = "") -> Iterator[dict[str, object]]:
    for entry in entries:
        path = f"{prefix}.{_camel(entry.name)}" if prefix else _camel(entry.name)
        if entry.force_new:
            yield {"path": path, "when": "added or removed"} if entry.block else {"path": path}
        yield from _paths(entry.children, path)


def _literal(text: str, opener: re.Match[str]) -> str:
    """The body (between the braces) of the literal whose `{` ends `opener`."""
    start = opener.end() - 1
    return text[start + 1:_close(text, start) - 1]


def _resource_schema(source: Source, path: str) -> list[Entry]:
    """The resource's top-level arguments: the plugin SDK's `&schema.Resource{Schema: ...}` (a map,
    `SchemaFunc`, or `MergeSchemas` of variables and maps), the framework's `Attributes`, or an IAM
    base schema."""
    text = source.text
    found: list[Entry] = []
    function = re.search(r"func [Rr]esource\w*\(\) \*schema\.Resource \{", text)
    if function is not None:
        resource_at = re.compile(r"&schema\.Resource\{").search(text, function.end())
        assert resource_at is not None
        resource = _literal(text, resource_at)
        level = _top_level(resource)
        merged = re.search(r"Schema:\s*tpgresource\.MergeSchemas\(", level)
        plain = re.search(r"Schema:\s*map\[string\]\*schema\.Schema\{", level)
        func = re.search(r"SchemaFunc:\s*func\(\) map\[string\]\*schema\.Schema \{", level)
        if plain is not None:
            found.extend(source.entries(_literal(resource, plain)))
        elif func is not None:
            body = _literal(resource, func)
            literal = re.search(r"return map\[string\]\*schema\.Schema\{", body)
            assert literal is not None
            found.extend(source.entries(_literal(body, literal)))
        elif merged is not None:
            arguments = resource[merged.end():]
            for variable in re.findall(r"^\s*(\w+),", arguments, flags=re.M)[:4]:
                if variable in source.variables:
                    at = source.variables[variable]
                    found.extend(source.entries(text[at + 1:_close(text, at) - 1]))
            for literal in re.finditer(r"map\[string\]\*schema\.Schema\{", arguments[:_close(arguments, 0)]
                                       if arguments.lstrip().startswith("{") else arguments[:20000]):
                found.extend(source.entries(_literal(arguments, literal)))
                break
    else:
        attributes = re.search(r"Attributes:\s*map\[string\]schema\.Attribute\{", text)
        if attributes is not None:
            found.extend(source.entries(_literal(text, attributes)))
        for variable, at in source.variables.items():
            if variable.startswith("Iam"):
                found.extend(source.entries(text[at + 1:_close(text, at) - 1]))
    if not found:
        raise SystemExit(f"no schema found in {path}")
    return found


def _show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def _constants(repo: Path, commit: str) -> dict[str, str]:
    try:
        text = _show(repo, commit, "names/attr_consts_gen.go")
    except subprocess.CalledProcessError:
        return {}
    return dict(re.findall(r'(Attr\w+)\s*=\s*"(\w+)"', text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--provider", choices=("aws", "gcp"), required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--upstream", required=True, help="owner/name of the upstream repository, for the source")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    files = GCP_FILES if args.provider == "gcp" else AWS_FILES
    constants = _constants(args.repo, args.commit)
    table = json.loads(args.out.read_text()) if args.out.exists() else {"types": {}}
    for type_token, paths in sorted(files.items()):
        source = Source([_show(args.repo, args.commit, p) for p in paths], constants)
        entries = _resource_schema(source, paths[0])
        found = {json.dumps(p, sort_keys=True): p for p in _paths(entries)}
        for parent in IAM_PARENTS.get(type_token, []):
            found[parent] = {"path": parent}
        table["types"][type_token] = {
            "paths": sorted(found.values(), key=lambda p: str(p["path"])),
            "source": [f"https://github.com/{args.upstream}/blob/{args.commit}/{p}" for p in paths],
        }
    if args.provider == "gcp":
        table["types"].update(HAND_READ)
    args.out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
