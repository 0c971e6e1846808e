"""AP-GKMS-001: symmetric Cloud KMS keys rotate automatically at least every 90 days.

`rotationPeriod` is a duration in seconds with an `s` suffix (`"7776000s"` = 90 days); without it the
key never rotates. Cloud KMS rotates only symmetric encryption keys (`purpose` ENCRYPT_DECRYPT, the
default) automatically; imported and external (Cloud EKM) key material is rotated by its owner, so
those keys are not judged. Twin of AP-KMS-001.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_str

MAX_ROTATION_SECONDS = 90 * 24 * 3600  # 7776000
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)s$")
_EXTERNAL = ("EXTERNAL", "EXTERNAL_VPC")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if (as_str(resource.get("purpose")) or "ENCRYPT_DECRYPT") != "ENCRYPT_DECRYPT":
        return
    if as_bool(resource.get("importOnly")) or as_str(resource.get("versionTemplate", "protectionLevel")) in _EXTERNAL:
        return
    period = as_str(resource.get("rotationPeriod"))
    if not period:
        yield "no rotationPeriod: the key material never rotates"
        return
    parsed = _DURATION.match(period)
    if parsed is None:
        yield f"rotationPeriod {period!r} is not a duration in seconds (e.g. \"7776000s\")"
    elif float(parsed.group(1)) > MAX_ROTATION_SECONDS:
        days = float(parsed.group(1)) / 86400
        yield f"rotationPeriod {period} ({days:g} days) is longer than 90 days (7776000s)"


RULE = Rule(
    id="AP-GKMS-001",
    name="gcp-kms-key-rotation",
    description="Checks whether a symmetric Cloud KMS crypto key sets a rotationPeriod of 90 days (7776000s) or "
    "less.",
    family=Family.secrets,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set rotation_period=\"7776000s\" (or shorter) on the crypto key.",
    resource_types=frozenset({t.GCP_KMS_CRYPTO_KEY}),
    check=check,
    categories=("encryption",),
    references=("https://cloud.google.com/kms/docs/key-rotation#frequency_of_key_rotation",),
)
