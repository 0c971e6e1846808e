"""Regenerate accelplane/clouds/aws/catalog.json from botocore's service models and moto's AWS captures.

moto carries verbatim `DescribeInstanceTypes` output for every EC2 instance type and the
`DescribeSSLPolicies` list of Elastic Load Balancing; botocore carries the enums the AWS APIs accept.
We keep only the fields the config layer needs (EFA support, network cards, accelerators,
placement strategies, TLS protocols, enums), so the product neither imports a test library nor
parses a 10 MB service model at run time. Run after bumping moto:

    .venv/bin/python tools/refresh_aws_catalog.py
"""

from __future__ import annotations

import gzip
import json
from importlib import metadata, resources
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "accelplane" / "clouds" / "aws" / "catalog.json"


def _instance_types() -> dict[str, dict]:
    raw = resources.files("moto.ec2.resources").joinpath("instance_types.json.gz").read_bytes()
    described = json.loads(gzip.decompress(raw))
    out: dict[str, dict] = {}
    for name, info in sorted(described.items()):
        network = info.get("NetworkInfo", {})
        accelerators = [
            {"vendor": gpu.get("Manufacturer", ""), "name": gpu["Name"], "count": gpu["Count"]}
            for gpu in info.get("GpuInfo", {}).get("Gpus", [])
        ] + [
            {"vendor": "AWS", "name": dev["Name"], "count": dev["Count"]}
            for dev in info.get("NeuronInfo", {}).get("NeuronDevices", [])
        ]
        out[name] = {
            "efa": bool(network.get("EfaSupported", False)),
            "max_efa_interfaces": network.get("EfaInfo", {}).get("MaximumEfaInterfaces", 0),
            "network_cards": network.get("MaximumNetworkCards", 1),
            "accelerators": accelerators,
            "placement_strategies": info.get("PlacementGroupInfo", {}).get("SupportedStrategies", []),
            "architectures": info.get("ProcessorInfo", {}).get("SupportedArchitectures", []),
        }
    return out


def _ssl_policies() -> dict[str, list[str]]:
    from moto.elbv2.ssl_policies import SSL_POLICIES

    return {name: sorted(policy["ssl_protocols"]) for name, policy in sorted(SSL_POLICIES.items())}


_BOTOCORE_ENUMS = {
    "ec2_instance_types": ("ec2", "InstanceType"),
    "eks_ami_types": ("eks", "AMITypes"),
    "eks_capacity_types": ("eks", "CapacityTypes"),
    "eks_taint_effects": ("eks", "TaintEffect"),
    "s3_transition_storage_classes": ("s3", "TransitionStorageClass"),
}


def _botocore_enums() -> dict[str, list[str]]:
    import botocore.session

    session = botocore.session.get_session()
    return {
        key: sorted(session.get_service_model(service).shape_for(shape).enum)
        for key, (service, shape) in _BOTOCORE_ENUMS.items()
    }


def _eks_regions() -> dict[str, list[str]]:
    """Regions where EKS has an endpoint, per partition, from botocore's endpoint data."""
    import botocore.session

    session = botocore.session.get_session()
    return {partition: sorted(session.get_available_regions("eks", partition))
            for partition in sorted(session.get_available_partitions())}


def _tag_limits() -> dict[str, int]:
    """The tag limits EKS's API model states for a node group (50 tags, keys 128, values 256): the
    same figures IAM, EC2, S3 buckets, KMS and Secrets Manager document for their resources."""
    import botocore.session

    tags = botocore.session.get_session().get_service_model("eks").operation_model("CreateNodegroup") \
        .input_shape.members["tags"]
    return {"max_tags": tags.metadata["max"], "max_key_length": tags.key.metadata["max"],
            "max_value_length": tags.value.metadata["max"]}


def build_catalog() -> dict:
    return {
        "source": {
            "instance_types": "AWS EC2 DescribeInstanceTypes output as captured in moto "
            f"{metadata.version('moto')} (moto/ec2/resources/instance_types.json.gz)",
            "tls_policies": "AWS ELBv2 DescribeSSLPolicies "
            "(https://docs.aws.amazon.com/elasticloadbalancing/latest/application/describe-ssl-policies.html) "
            f"as captured in moto {metadata.version('moto')} (moto/elbv2/ssl_policies.py)",
            "enums": f"botocore {metadata.version('botocore')} service models (the AWS CLI's own validation data)",
            "regions": f"botocore {metadata.version('botocore')} endpoint data (botocore/data/endpoints.json): "
            "regions with an EKS endpoint",
            "tag_limits": f"botocore {metadata.version('botocore')} EKS service model (CreateNodegroup tags); "
            "https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html",
        },
        "enums": _botocore_enums(),
        "regions": _eks_regions(),
        "tag_limits": _tag_limits(),
        "instance_types": _instance_types(),
        "tls_policies": _ssl_policies(),
    }


def main() -> None:
    catalog = build_catalog()
    OUT.write_text(json.dumps(catalog, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({len(catalog['instance_types'])} instance types)")


if __name__ == "__main__":
    main()
