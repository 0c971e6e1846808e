"""AP-EC2-003: EBS volumes (launch template mappings, instance disks, volumes) are encrypted."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if resource.type == t.EBS_VOLUME:
        if as_bool(resource.get("encrypted")) is not True:
            yield "volume is not encrypted"
        return
    if resource.type == t.LAUNCH_TEMPLATE:
        for mapping in as_list(resource.get("blockDeviceMappings")):
            ebs = get(mapping, "ebs")
            if ebs is not None and as_bool(get(ebs, "encrypted")) is not True:
                yield f"block device {as_str(get(mapping, 'deviceName'), '?')} is not encrypted"
        return
    root = resource.get("rootBlockDevice")
    if root is None or as_bool(get(root, "encrypted")) is not True:
        yield "root volume is not encrypted"
    for disk in as_list(resource.get("ebsBlockDevices")):
        if as_bool(get(disk, "encrypted")) is not True:
            yield f"EBS volume {as_str(get(disk, 'deviceName'), '?')} is not encrypted"


RULE = Rule(
    id="AP-EC2-003",
    name="ec2-encrypted-volumes",
    description="Checks whether EBS volumes of launch templates, instances and standalone volumes are encrypted.",
    family=Family.compute,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set ebs.encrypted to true (optionally with kms_key_id).",
    resource_types=frozenset({t.LAUNCH_TEMPLATE, t.INSTANCE, t.EBS_VOLUME}),
    check=check,
    categories=("encryption",),
)
