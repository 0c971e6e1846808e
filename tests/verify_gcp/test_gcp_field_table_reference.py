"""The field table verify reads Google resources with (`shapes.to_wire`), against resources written out
by hand as the REST references show them (compute.v1, container.v1, cloudkms.v1, secretmanager.v1,
iam.v1, storage.v1, certificatemanager.v1, cloudresourcemanager.v3, logging.v2, pubsub.v1) and the pulumi-gcp
inputs each one stands for, also written by hand. Every mapped field has its own value in some case
here, so a field read from another API field (sourceTags for targetTags, the pool's `locations` for
the cluster's, a count from the wrong autoscaling bound) fails; `test_every_mapped_field_has_a_case`
keeps it so when the table grows."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from accelplane.clouds.gcp.verify import shapes

COMPUTE = "https://www.googleapis.com/compute/v1/projects/acme-ml"
VPC = f"{COMPUTE}/global/networks/acme-vpc"
NODES = f"{COMPUTE}/regions/us-central1/subnetworks/acme-nodes"
KEYS = "projects/acme-ml/locations/us-central1/keyRings/acme"
CERT_MAPS = "projects/acme-ml/locations/global/certificateMaps"
ACCOUNT = "acme-nodes@acme-ml.iam.gserviceaccount.com"

# (type, API resource as the REST reference shows it, the pulumi-gcp inputs it reads as)
CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        shapes.NETWORK,
        {"kind": "compute#network", "name": "acme-vpc", "autoCreateSubnetworks": False, "description": "the VPC",
         "routingConfig": {"routingMode": "REGIONAL"}, "mtu": 8896, "selfLink": VPC, "id": "7771"},
        {"name": "acme-vpc", "autoCreateSubnetworks": False, "description": "the VPC", "routingMode": "REGIONAL",
         "mtu": 8896},
    ),
    (
        shapes.SUBNETWORK,
        {"kind": "compute#subnetwork", "name": "acme-nodes", "ipCidrRange": "10.0.0.0/20", "network": VPC,
         "region": f"{COMPUTE}/regions/us-central1", "privateIpGoogleAccess": True,
         "secondaryIpRanges": [{"rangeName": "pods", "ipCidrRange": "10.4.0.0/14"}],
         "logConfig": {"enable": True, "aggregationInterval": "INTERVAL_5_SEC", "flowSampling": 0.5,
                       "metadata": "INCLUDE_ALL_METADATA"},
         "purpose": "PRIVATE", "stackType": "IPV4_ONLY", "fingerprint": "a1b2c3", "gatewayAddress": "10.0.0.1"},
        {"name": "acme-nodes", "ipCidrRange": "10.0.0.0/20", "network": "projects/acme-ml/global/networks/acme-vpc",
         "region": "us-central1", "privateIpGoogleAccess": True,
         "secondaryIpRanges": [{"rangeName": "pods", "ipCidrRange": "10.4.0.0/14"}],
         "logConfig": {"aggregationInterval": "INTERVAL_5_SEC", "flowSampling": 0.5,
                       "metadata": "INCLUDE_ALL_METADATA"},
         "purpose": "PRIVATE", "stackType": "IPV4_ONLY"},
    ),
    (
        # Flow logs switched off: the settings left behind are not in force, so no logConfig input.
        shapes.SUBNETWORK,
        {"name": "acme-quiet", "logConfig": {"enable": False, "aggregationInterval": "INTERVAL_10_MIN"}},
        {"name": "acme-quiet"},
    ),
    (
        shapes.FIREWALL,
        {"kind": "compute#firewall", "name": "allow-lb", "network": VPC, "description": "load balancers in",
         "direction": "INGRESS", "priority": 900, "allowed": [{"IPProtocol": "tcp", "ports": ["8000", "8443"]}],
         "sourceRanges": ["35.191.0.0/16"], "sourceTags": ["lb"], "targetTags": ["inference"], "disabled": False,
         "logConfig": {"enable": True, "metadata": "EXCLUDE_ALL_METADATA"}},
        {"name": "allow-lb", "network": "projects/acme-ml/global/networks/acme-vpc", "description": "load balancers in",
         "direction": "INGRESS", "priority": 900, "allows": [{"protocol": "tcp", "ports": ["8000", "8443"]}],
         "sourceRanges": ["35.191.0.0/16"], "sourceTags": ["lb"], "targetTags": ["inference"], "disabled": False,
         "logConfig": {"metadata": "EXCLUDE_ALL_METADATA"}},
    ),
    (
        shapes.FIREWALL,
        {"name": "deny-egress", "network": VPC, "direction": "EGRESS", "priority": 65000,
         "denied": [{"IPProtocol": "udp", "ports": ["53"]}], "destinationRanges": ["0.0.0.0/0"],
         "targetServiceAccounts": [ACCOUNT], "disabled": True},
        {"name": "deny-egress", "network": "projects/acme-ml/global/networks/acme-vpc", "direction": "EGRESS",
         "priority": 65000, "denies": [{"protocol": "udp", "ports": ["53"]}], "destinationRanges": ["0.0.0.0/0"],
         "targetServiceAccounts": [ACCOUNT], "disabled": True},
    ),
    (
        shapes.FIREWALL,
        {"name": "allow-trainers", "network": VPC, "direction": "INGRESS", "priority": 1000,
         "allowed": [{"IPProtocol": "all"}], "sourceServiceAccounts": ["trainer@acme-ml.iam.gserviceaccount.com"],
         "targetServiceAccounts": [ACCOUNT]},
        {"name": "allow-trainers", "network": "projects/acme-ml/global/networks/acme-vpc", "direction": "INGRESS",
         "priority": 1000, "allows": [{"protocol": "all"}],
         "sourceServiceAccounts": ["trainer@acme-ml.iam.gserviceaccount.com"], "targetServiceAccounts": [ACCOUNT]},
    ),
    (
        shapes.ROUTER,
        {"kind": "compute#router", "name": "acme-router", "network": VPC, "region": f"{COMPUTE}/regions/us-central1",
         "nats": [{"name": "acme-nat"}]},
        {"name": "acme-router", "network": "projects/acme-ml/global/networks/acme-vpc", "region": "us-central1"},
    ),
    (
        # One entry of a router's `nats`, which is where Cloud NAT lives in the API.
        shapes.ROUTER_NAT,
        {"name": "acme-nat", "natIpAllocateOption": "MANUAL_ONLY",
         "sourceSubnetworkIpRangesToNat": "LIST_OF_SUBNETWORKS",
         "subnetworks": [{"name": NODES, "sourceIpRangesToNat": ["PRIMARY_IP_RANGE"]}],
         "natIps": [f"{COMPUTE}/regions/us-central1/addresses/nat-1"],
         "logConfig": {"enable": True, "filter": "ERRORS_ONLY"}, "minPortsPerVm": 128,
         "enableEndpointIndependentMapping": False},
        {"name": "acme-nat", "natIpAllocateOption": "MANUAL_ONLY",
         "sourceSubnetworkIpRangesToNat": "LIST_OF_SUBNETWORKS",
         "subnetworks": [{"name": "projects/acme-ml/regions/us-central1/subnetworks/acme-nodes",
                          "sourceIpRangesToNats": ["PRIMARY_IP_RANGE"]}],
         "natIps": [f"{COMPUTE}/regions/us-central1/addresses/nat-1"],
         "logConfig": {"enable": True, "filter": "ERRORS_ONLY"}, "minPortsPerVm": 128,
         "enableEndpointIndependentMapping": False},
    ),
    (
        shapes.CLUSTER,
        {
            "name": "acme-gke", "location": "us-central1", "status": "RUNNING",
            "addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": True}},
            "controlPlaneEndpointsConfig": {"dnsEndpointConfig": {"allowExternalTraffic": False}},
            "databaseEncryption": {"keyName": f"{KEYS}/cryptoKeys/gke", "state": "ENCRYPTED"},
            "networkConfig": {"datapathProvider": "ADVANCED_DATAPATH",
                              "gatewayApiConfig": {"channel": "CHANNEL_STANDARD"},
                              "network": "projects/acme-ml/global/networks/acme-vpc",
                              "subnetwork": "projects/acme-ml/regions/us-central1/subnetworks/acme-nodes"},
            "legacyAbac": {"enabled": False},
            "shieldedNodes": {"enabled": True},
            "ipAllocationPolicy": {"useIpAliases": True, "clusterSecondaryRangeName": "pods",
                                   "servicesSecondaryRangeName": "services"},
            "loggingConfig": {"componentConfig": {"enableComponents": ["SYSTEM_COMPONENTS", "WORKLOADS"]}},
            "monitoringConfig": {"componentConfig": {"enableComponents": ["SYSTEM_COMPONENTS", "DCGM"]},
                                 "managedPrometheusConfig": {"enabled": True}},
            "masterAuth": {"clientCertificateConfig": {"issueClientCertificate": False}},
            "masterAuthorizedNetworksConfig": {
                "enabled": True, "cidrBlocks": [{"displayName": "office", "cidrBlock": "203.0.113.0/24"}],
                "gcpPublicCidrsAccessEnabled": False, "privateEndpointEnforcementEnabled": True},
            "currentMasterVersion": "1.33.5-gke.1308000", "initialClusterVersion": "1.33.2-gke.1000",
            "privateClusterConfig": {"enablePrivateNodes": True, "enablePrivateEndpoint": False,
                                     "masterIpv4CidrBlock": "172.16.0.0/28"},
            "networkPolicy": {"enabled": True, "provider": "CALICO"},
            "releaseChannel": {"channel": "REGULAR"},
            "resourceLabels": {"team": "ml-platform"},
            "workloadIdentityConfig": {"workloadPool": "acme-ml.svc.id.goog"},
        },
        {
            "name": "acme-gke", "location": "us-central1",
            "addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": True}},
            "controlPlaneEndpointsConfig": {"dnsEndpointConfig": {"allowExternalTraffic": False}},
            "databaseEncryption": {"keyName": f"{KEYS}/cryptoKeys/gke", "state": "ENCRYPTED"},
            "datapathProvider": "ADVANCED_DATAPATH", "enableLegacyAbac": False, "enableShieldedNodes": True,
            "gatewayApiConfig": {"channel": "CHANNEL_STANDARD"},
            "ipAllocationPolicy": {"clusterSecondaryRangeName": "pods", "servicesSecondaryRangeName": "services"},
            "networkingMode": "VPC_NATIVE",
            "loggingConfig": {"enableComponents": ["SYSTEM_COMPONENTS", "WORKLOADS"]},
            "monitoringConfig": {"enableComponents": ["SYSTEM_COMPONENTS", "DCGM"],
                                 "managedPrometheus": {"enabled": True}},
            "masterAuth": {"clientCertificateConfig": {"issueClientCertificate": False}},
            "masterAuthorizedNetworksConfig": {
                "cidrBlocks": [{"displayName": "office", "cidrBlock": "203.0.113.0/24"}],
                "gcpPublicCidrsAccessEnabled": False, "privateEndpointEnforcementEnabled": True},
            "minMasterVersion": "1.33.5-gke.1308000",
            "network": "projects/acme-ml/global/networks/acme-vpc",
            "subnetwork": "projects/acme-ml/regions/us-central1/subnetworks/acme-nodes",
            "privateClusterConfig": {"enablePrivateNodes": True, "enablePrivateEndpoint": False,
                                     "masterIpv4CidrBlock": "172.16.0.0/28"},
            "networkPolicy": {"enabled": True, "provider": "CALICO"},
            "releaseChannel": {"channel": "REGULAR"},
            "resourceLabels": {"team": "ml-platform"},
            "workloadIdentityConfig": {"workloadPool": "acme-ml.svc.id.goog"},
        },
    ),
    (
        # Routes-based, authorized networks switched off (their CIDRs are not in force).
        shapes.CLUSTER,
        {"name": "acme-legacy", "ipAllocationPolicy": {"useIpAliases": False},
         "masterAuthorizedNetworksConfig": {"enabled": False,
                                            "cidrBlocks": [{"cidrBlock": "0.0.0.0/0"}]}},
        {"name": "acme-legacy", "networkingMode": "ROUTES"},
    ),
    (
        shapes.NODE_POOL,
        {
            "name": "infer-v5e", "version": "1.33.5-gke.1308000", "initialNodeCount": 2, "locations": ["us-central1-a"],
            "management": {"autoRepair": True, "autoUpgrade": False},
            "autoscaling": {"enabled": True, "minNodeCount": 1, "maxNodeCount": 4, "totalMinNodeCount": 3,
                            "totalMaxNodeCount": 12, "locationPolicy": "ANY"},
            "placementPolicy": {"type": "COMPACT", "tpuTopology": "2x4"},
            "upgradeSettings": {"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0},
            "config": {
                "machineType": "ct5lp-hightpu-4t", "diskSizeGb": 200, "diskType": "pd-balanced",
                "labels": {"accelplane.io/pool": "infer-v5e"}, "resourceLabels": {"team": "serving"},
                "taints": [{"key": "google.com/tpu", "value": "present", "effect": "NO_SCHEDULE"}],
                "metadata": {"disable-legacy-endpoints": "true"},
                "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
                "serviceAccount": ACCOUNT, "spot": True,
                "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
                "shieldedInstanceConfig": {"enableSecureBoot": True, "enableIntegrityMonitoring": True},
                "workloadMetadataConfig": {"mode": "GKE_METADATA"},
            },
            "status": "RUNNING",
        },
        {
            "name": "infer-v5e", "version": "1.33.5-gke.1308000", "nodeCount": 2, "nodeLocations": ["us-central1-a"],
            "management": {"autoRepair": True, "autoUpgrade": False},
            "autoscaling": {"minNodeCount": 1, "maxNodeCount": 4, "totalMinNodeCount": 3, "totalMaxNodeCount": 12,
                            "locationPolicy": "ANY"},
            "placementPolicy": {"type": "COMPACT", "tpuTopology": "2x4"},
            "upgradeSettings": {"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0},
            "nodeConfig": {
                "machineType": "ct5lp-hightpu-4t", "diskSizeGb": 200, "diskType": "pd-balanced",
                "labels": {"accelplane.io/pool": "infer-v5e"}, "resourceLabels": {"team": "serving"},
                "taints": [{"key": "google.com/tpu", "value": "present", "effect": "NO_SCHEDULE"}],
                "metadata": {"disable-legacy-endpoints": "true"},
                "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
                "serviceAccount": ACCOUNT, "spot": True,
                "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
                "shieldedInstanceConfig": {"enableSecureBoot": True, "enableIntegrityMonitoring": True},
                "workloadMetadataConfig": {"mode": "GKE_METADATA"},
            },
        },
    ),
    (
        # GPUs: the API's int64 acceleratorCount travels as a string.
        shapes.NODE_POOL,
        {"name": "infer-h100", "config": {"accelerators": [{
            "acceleratorType": "nvidia-h100-80gb", "acceleratorCount": "8",
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"}}]},
         "autoscaling": {"enabled": False, "minNodeCount": 5}},
        {"name": "infer-h100", "nodeConfig": {"guestAccelerators": [{
            "type": "nvidia-h100-80gb", "count": 8, "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"}}]}},
    ),
    (
        shapes.GLOBAL_ADDRESS,
        {"kind": "compute#address", "name": "acme-ip", "address": "34.120.0.10", "addressType": "EXTERNAL",
         "description": "the inference endpoint", "ipVersion": "IPV4", "labels": {"env": "prod"},
         "purpose": "GCE_ENDPOINT", "status": "RESERVED"},
        {"name": "acme-ip", "address": "34.120.0.10", "addressType": "EXTERNAL",
         "description": "the inference endpoint", "ipVersion": "IPV4", "labels": {"env": "prod"},
         "purpose": "GCE_ENDPOINT"},
    ),
    (
        shapes.SSL_POLICY,
        {"kind": "compute#sslPolicy", "name": "acme-tls", "description": "TLS 1.2 and up", "minTlsVersion": "TLS_1_2",
         "profile": "CUSTOM", "customFeatures": ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"],
         "enabledFeatures": ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"], "fingerprint": "f1"},
        {"name": "acme-tls", "description": "TLS 1.2 and up", "minTlsVersion": "TLS_1_2", "profile": "CUSTOM",
         "customFeatures": ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"]},
    ),
    (
        shapes.SECURITY_POLICY,
        {"kind": "compute#securityPolicy", "name": "acme-armor", "description": "allow-list and rate limit",
         "labels": {"env": "prod"}, "type": "CLOUD_ARMOR", "fingerprint": "f2",
         "rules": [
             {"kind": "compute#securityPolicyRule", "action": "throttle", "description": "per client",
              "priority": 500, "preview": False,
              "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["203.0.113.0/24"]}},
              "rateLimitOptions": {"conformAction": "allow", "exceedAction": "deny(429)", "enforceOnKey": "IP",
                                   "rateLimitThreshold": {"count": 300, "intervalSec": 60}}},
             {"action": "deny(403)", "description": "default", "priority": 2147483647,
              "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["*"]}}},
         ]},
        {"name": "acme-armor", "description": "allow-list and rate limit", "labels": {"env": "prod"},
         "type": "CLOUD_ARMOR",
         "rules": [
             {"action": "throttle", "description": "per client", "priority": 500, "preview": False,
              "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["203.0.113.0/24"]}},
              "rateLimitOptions": {"conformAction": "allow", "exceedAction": "deny(429)", "enforceOnKey": "IP",
                                   "rateLimitThreshold": {"count": 300, "intervalSec": 60}}},
             {"action": "deny(403)", "description": "default", "priority": 2147483647,
              "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["*"]}}},
         ]},
    ),
    (
        shapes.KEY_RING,
        {"name": KEYS, "createTime": "2026-01-05T10:00:00Z"},
        {"name": "acme", "location": "us-central1"},
    ),
    (
        shapes.CRYPTO_KEY,
        {"name": f"{KEYS}/cryptoKeys/gke", "labels": {"env": "prod"}, "purpose": "ENCRYPT_DECRYPT",
         "rotationPeriod": "7776000s",
         "versionTemplate": {"algorithm": "GOOGLE_SYMMETRIC_ENCRYPTION", "protectionLevel": "SOFTWARE"},
         "destroyScheduledDuration": "2592000s",
         "primary": {"name": f"{KEYS}/cryptoKeys/gke/cryptoKeyVersions/1", "state": "ENABLED"}},
        {"name": "gke", "keyRing": KEYS, "labels": {"env": "prod"}, "purpose": "ENCRYPT_DECRYPT",
         "rotationPeriod": "7776000s",
         "versionTemplate": {"algorithm": "GOOGLE_SYMMETRIC_ENCRYPTION", "protectionLevel": "SOFTWARE"},
         "destroyScheduledDuration": "2592000s"},
    ),
    (
        shapes.SECRET,
        # secrets.get: `rotation` as the service returns it (nextRotationTime; rotationPeriod is input-only).
        {"name": "projects/acme-ml/secrets/hf-token", "labels": {"env": "prod"}, "annotations": {"owner": "ml"},
         "replication": {"userManaged": {"replicas": [{"location": "us-central1"}]}}, "versionDestroyTtl": "86400s",
         "topics": [{"name": "projects/acme-ml/topics/acme-secrets-rotation"}],
         "rotation": {"nextRotationTime": "2027-04-04T09:00:00Z"},
         "createTime": "2026-01-05T10:00:00Z", "etag": "\"1\""},
        {"secretId": "hf-token", "labels": {"env": "prod"}, "annotations": {"owner": "ml"},
         "replication": {"userManaged": {"replicas": [{"location": "us-central1"}]}}, "versionDestroyTtl": "86400s",
         "topics": [{"name": "projects/acme-ml/topics/acme-secrets-rotation"}],
         "rotation": {"nextRotationTime": "2027-04-04T09:00:00Z"}},
    ),
    (
        shapes.SERVICE_ACCOUNT,
        {"name": f"projects/acme-ml/serviceAccounts/{ACCOUNT}", "email": ACCOUNT, "projectId": "acme-ml",
         "uniqueId": "1044", "description": "GKE nodes", "displayName": "acme nodes", "disabled": False},
        {"accountId": "acme-nodes", "description": "GKE nodes", "displayName": "acme nodes", "disabled": False},
    ),
    (
        # iam.v1 ServiceAccountKey as keys.list returns it (no private part); pulumi-gcp's Key reads the
        # account as `serviceAccountId` and the validity window as `validAfter`/`validBefore`.
        shapes.SERVICE_ACCOUNT_KEY,
        {"name": f"projects/acme-ml/serviceAccounts/{ACCOUNT}/keys/0f4c2a9e1b7d", "keyAlgorithm": "KEY_ALG_RSA_2048",
         "keyOrigin": "GOOGLE_PROVIDED", "keyType": "USER_MANAGED", "validAfterTime": "2026-11-30T08:00:00Z",
         "validBeforeTime": "9999-12-31T23:59:59Z"},
        {"serviceAccountId": f"projects/acme-ml/serviceAccounts/{ACCOUNT}", "keyAlgorithm": "KEY_ALG_RSA_2048",
         "validAfter": "2026-11-30T08:00:00Z", "validBefore": "9999-12-31T23:59:59Z"},
    ),
    (
        shapes.BUCKET,
        {
            "kind": "storage#bucket", "name": "acme-checkpoints", "location": "US-CENTRAL1", "storageClass": "STANDARD",
            "iamConfiguration": {"uniformBucketLevelAccess": {"enabled": True}, "publicAccessPrevention": "enforced"},
            "encryption": {"defaultKmsKeyName": f"{KEYS}/cryptoKeys/data"}, "versioning": {"enabled": True},
            "labels": {"bucket-role": "checkpoints"},
            "lifecycle": {"rule": [
                {"action": {"type": "SetStorageClass", "storageClass": "NEARLINE"},
                 "condition": {"age": 30, "isLive": True, "matchesPrefix": ["ckpt/"], "matchesSuffix": [".pt"],
                               "matchesStorageClass": ["STANDARD"]}},
                {"action": {"type": "Delete"},
                 "condition": {"createdBefore": "2026-01-01", "numNewerVersions": 3, "daysSinceNoncurrentTime": 14,
                               "isLive": False}},
            ]},
            "retentionPolicy": {"retentionPeriod": "604800", "isLocked": False,
                                "effectiveTime": "2026-01-05T10:00:00Z"},
            "metageneration": "4", "projectNumber": "314159265358",
        },
        {
            "name": "acme-checkpoints", "location": "us-central1", "storageClass": "STANDARD",
            "uniformBucketLevelAccess": True, "publicAccessPrevention": "enforced",
            "encryption": {"defaultKmsKeyName": f"{KEYS}/cryptoKeys/data"}, "versioning": {"enabled": True},
            "labels": {"bucket-role": "checkpoints"},
            "lifecycleRules": [
                {"action": {"type": "SetStorageClass", "storageClass": "NEARLINE"},
                 "condition": {"age": 30, "withState": "LIVE", "matchesPrefixes": ["ckpt/"],
                               "matchesSuffixes": [".pt"], "matchesStorageClasses": ["STANDARD"]}},
                {"action": {"type": "Delete"},
                 "condition": {"createdBefore": "2026-01-01", "numNewerVersions": 3, "daysSinceNoncurrentTime": 14,
                               "withState": "ARCHIVED"}},
            ],
            "retentionPolicy": {"retentionPeriod": "604800", "isLocked": False},
        },
    ),
    (
        shapes.CERT_MAP,
        {"name": f"{CERT_MAPS}/acme-map", "description": "the endpoint's certificates", "labels": {"env": "prod"},
         "gclbTargets": []},
        {"name": "acme-map", "description": "the endpoint's certificates", "labels": {"env": "prod"}},
    ),
    (
        shapes.CERT_MAP_ENTRY,
        {"name": f"{CERT_MAPS}/acme-map/certificateMapEntries/primary", "description": "primary",
         "matcher": "PRIMARY", "hostname": "llm.example.com",
         "certificates": ["projects/acme-ml/locations/global/certificates/llm"], "labels": {"env": "prod"},
         "state": "ACTIVE"},
        {"map": "acme-map", "description": "primary", "matcher": "PRIMARY", "hostname": "llm.example.com",
         "certificates": ["projects/acme-ml/locations/global/certificates/llm"], "labels": {"env": "prod"}},
    ),
    # IAM grants: verify reads each policy binding into one resource per declared grant.
    (
        shapes.KEY_BINDING,
        {"cryptoKeyId": f"{KEYS}/cryptoKeys/gke", "role": "roles/cloudkms.cryptoKeyEncrypterDecrypter",
         "members": ["serviceAccount:service-314159265358@container-engine-robot.iam.gserviceaccount.com"]},
        {"cryptoKeyId": f"{KEYS}/cryptoKeys/gke", "role": "roles/cloudkms.cryptoKeyEncrypterDecrypter",
         "members": ["serviceAccount:service-314159265358@container-engine-robot.iam.gserviceaccount.com"]},
    ),
    (
        shapes.SECRET_MEMBER,
        {"secretId": "projects/acme-ml/secrets/hf-token", "role": "roles/secretmanager.secretAccessor",
         "member": "serviceAccount:llm@acme-ml.iam.gserviceaccount.com"},
        {"secretId": "projects/acme-ml/secrets/hf-token", "role": "roles/secretmanager.secretAccessor",
         "member": "serviceAccount:llm@acme-ml.iam.gserviceaccount.com"},
    ),
    (
        shapes.PROJECT_MEMBER,
        {"role": "roles/logging.logWriter", "member": f"serviceAccount:{ACCOUNT}"},
        {"role": "roles/logging.logWriter", "member": f"serviceAccount:{ACCOUNT}"},
    ),
    (
        shapes.BUCKET_MEMBER,
        {"bucket": "acme-checkpoints", "role": "roles/storage.objectUser", "member": "principal://x/trainer",
         "condition": {"title": "ckpt", "expression": "resource.name.startsWith('projects/_/buckets/acme')"}},
        {"bucket": "acme-checkpoints", "role": "roles/storage.objectUser", "member": "principal://x/trainer",
         "condition": {"title": "ckpt", "expression": "resource.name.startsWith('projects/_/buckets/acme')"}},
    ),
    # The Gateway's policies as the cluster's API returns them (networking.gke.io/v1): `spec` as written.
    (
        "kubernetes:networking.gke.io/v1:GCPBackendPolicy",
        {"apiVersion": "networking.gke.io/v1", "kind": "GCPBackendPolicy",
         "metadata": {"name": "llm-server", "namespace": "inference", "resourceVersion": "812"},
         "spec": {"default": {"iap": {"enabled": True, "clientID": "123-abc.apps.googleusercontent.com",
                                      "oauth2ClientSecret": {"name": "accelplane-iap-oauth-client"}},
                              "securityPolicy": "acme-armor"},
                  "targetRef": {"group": "", "kind": "Service", "name": "llm-server"}},
         "status": {"conditions": []}},
        {"spec": {"default": {"iap": {"enabled": True, "clientID": "123-abc.apps.googleusercontent.com",
                                      "oauth2ClientSecret": {"name": "accelplane-iap-oauth-client"}},
                              "securityPolicy": "acme-armor"},
                  "targetRef": {"group": "", "kind": "Service", "name": "llm-server"}}},
    ),
    (
        "kubernetes:networking.gke.io/v1:GCPGatewayPolicy",
        {"kind": "GCPGatewayPolicy", "metadata": {"name": "inference"},
         "spec": {"default": {"sslPolicy": "acme-ssl"}, "targetRef": {"kind": "Gateway", "name": "inference"}}},
        {"spec": {"default": {"sslPolicy": "acme-ssl"}, "targetRef": {"kind": "Gateway", "name": "inference"}}},
    ),
    (
        "kubernetes:networking.gke.io/v1:HealthCheckPolicy",
        {"kind": "HealthCheckPolicy", "metadata": {"name": "llm-server"},
         "spec": {"default": {"checkIntervalSec": 10}, "targetRef": {"kind": "Service", "name": "llm-server"}}},
        {"spec": {"default": {"checkIntervalSec": 10}, "targetRef": {"kind": "Service", "name": "llm-server"}}},
    ),
    (
        # pubsub.v1 Topic as topics.list returns it.
        shapes.TOPIC,
        {"name": "projects/acme-ml/topics/acme-secrets-rotation", "labels": {"owner": "ml"},
         "messageRetentionDuration": "86400s", "kmsKeyName": f"{KEYS}/cryptoKeys/topics",
         "state": "ACTIVE"},
        {"name": "acme-secrets-rotation", "labels": {"owner": "ml"}, "messageRetentionDuration": "86400s",
         "kmsKeyName": f"{KEYS}/cryptoKeys/topics"},
    ),
    (
        shapes.TOPIC_MEMBER,
        {"topic": "projects/acme-ml/topics/acme-secrets-rotation", "role": "roles/pubsub.publisher",
         "member": "serviceAccount:service-1@gcp-sa-secretmanager.iam.gserviceaccount.com"},
        {"topic": "projects/acme-ml/topics/acme-secrets-rotation", "role": "roles/pubsub.publisher",
         "member": "serviceAccount:service-1@gcp-sa-secretmanager.iam.gserviceaccount.com"},
    ),
    (
        # cloudresourcemanager.v3 Policy.auditConfigs[]: one AuditConfig, with a member exempted.
        shapes.AUDIT_CONFIG,
        {"service": "secretmanager.googleapis.com",
         "auditLogConfigs": [{"logType": "DATA_READ", "exemptedMembers": ["user:ops@example.com"]},
                             {"logType": "ADMIN_READ"}]},
        {"service": "secretmanager.googleapis.com",
         "auditLogConfigs": [{"logType": "DATA_READ", "exemptedMembers": ["user:ops@example.com"]},
                             {"logType": "ADMIN_READ"}]},
    ),
    (
        # logging.v2 LogBucket as projects.locations.buckets.list returns it.
        shapes.LOG_BUCKET,
        {"name": "projects/acme-ml/locations/europe-west4/buckets/acme-audit", "description": "audit logs",
         "retentionDays": 400, "locked": True, "lifecycleState": "ACTIVE", "createTime": "2026-01-05T10:00:00Z"},
        {"bucketId": "acme-audit", "location": "europe-west4", "description": "audit logs", "retentionDays": 400,
         "locked": True},
    ),
    (
        # logging.v2 LogSink as projects.sinks.list returns it.
        shapes.LOG_SINK,
        {"name": "acme-audit", "destination": "logging.googleapis.com/projects/acme-ml/locations/europe-west4/"
         "buckets/acme-audit", "filter": 'logName:"cloudaudit.googleapis.com"', "description": "to the locked bucket",
         "disabled": False, "writerIdentity": "serviceAccount:service-1@gcp-sa-logging.iam.gserviceaccount.com",
         "exclusions": [{"name": "no-gcs", "filter": 'protoPayload.serviceName="storage.googleapis.com"',
                         "disabled": True, "description": "too loud"}]},
        {"name": "acme-audit", "destination": "logging.googleapis.com/projects/acme-ml/locations/europe-west4/"
         "buckets/acme-audit", "filter": 'logName:"cloudaudit.googleapis.com"', "description": "to the locked bucket",
         "disabled": False,
         "exclusions": [{"name": "no-gcs", "filter": 'protoPayload.serviceName="storage.googleapis.com"',
                         "disabled": True, "description": "too loud"}]},
    ),
]


@pytest.mark.parametrize(("type_token", "api", "inputs"), CASES, ids=[f"{t.rsplit(':', 1)[-1]}-{a.get('name', i)}"
                                                                       for i, (t, a, _) in enumerate(CASES)])
def test_a_live_resource_reads_as_the_inputs_it_stands_for(type_token: str, api: dict, inputs: dict) -> None:
    assert shapes.to_wire(type_token, api) == inputs


def _table_paths(fields: tuple[shapes.Field, ...], prefix: str = "") -> Iterator[str]:
    for spec in fields:
        yield prefix + spec.wire
        yield from _table_paths(spec.items, f"{prefix}{spec.wire}[].")


def _value_paths(value: Any, prefix: str = "") -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield prefix + key
            yield from _value_paths(inner, f"{prefix}{key}.")
    elif isinstance(value, list):
        for item in value:
            yield from _value_paths(item, prefix[:-1] + "[]." if prefix else "")


@pytest.mark.parametrize("type_token", sorted(shapes.FIELDS))
def test_every_mapped_field_has_a_case(type_token: str) -> None:
    covered = {path for t, _api, inputs in CASES if t == type_token for path in _value_paths(inputs)}
    assert set(_table_paths(shapes.FIELDS[type_token])) - covered == set()


def _reads_as_written() -> bool:
    try:
        return all(shapes.to_wire(t, api) == inputs for t, api, inputs in CASES)
    except (TypeError, ValueError):  # a conversion refusing the other field's value: noticed too
        return False


def _misreadings(fields: tuple[shapes.Field, ...], put: Any) -> Iterator[tuple[str, str]]:
    """Each mapped field pointed at another field of the same API resource, one at a time (through
    `put`, which installs a table and restores it): the (input, wrong API field) pairs the cases
    above do not notice."""
    for index, spec in enumerate(fields):
        for other in [o for o in fields if o.api != spec.api][:3]:
            put((*fields[:index], replace(spec, api=other.api), *fields[index + 1:]))
            try:
                if _reads_as_written():
                    yield spec.wire, other.api
            finally:
                put(fields)
        if spec.items:
            def put_items(items: tuple[shapes.Field, ...], index: int = index, spec: shapes.Field = spec) -> None:
                put((*fields[:index], replace(spec, items=items), *fields[index + 1:]))

            yield from ((f"{spec.wire}[].{wire}", api) for wire, api in _misreadings(spec.items, put_items))


@pytest.mark.parametrize("type_token", sorted(shapes.FIELDS))
def test_a_field_read_from_another_api_field_is_noticed(type_token: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutation check of the cases: the table with one field misread still reads every case as written?"""
    table = dict(shapes.FIELDS)
    monkeypatch.setattr(shapes, "FIELDS", table)

    def put(fields: tuple[shapes.Field, ...]) -> None:
        table[type_token] = fields

    assert list(_misreadings(shapes.FIELDS[type_token], put)) == []
