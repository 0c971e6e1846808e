"""The accelplane CrossGuard pack: `pulumi preview --policy-pack policies`. Policies come from the
rule registry through the adapter in `crossguard.py`."""

from crossguard import PACK_NAME, policies
from pulumi_policy import PolicyPack

PolicyPack(name=PACK_NAME, policies=policies(), description="accelplane guard rails: least privilege, hygiene, "
           "version matrix")
