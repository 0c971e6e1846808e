"""The accelerator vendor a matrix accelerator name belongs to, and the Kubernetes resource names the
neutral layer requests. Accelerator names are `<vendor>-<model>` (the matrix vocabulary). What a cloud
does per vendor (EKS's AMI family and device-plugin resource, GKE's own device plugins and taints)
lives in that cloud's folder (`clouds/aws/node_vendors.py`, `clouds/gcp/node_vendors.py`).
"""

from __future__ import annotations


def vendor_of(accelerator: str) -> str:
    return accelerator.split("-", 1)[0]
