"""Pulumi type tokens of the Google Cloud resources the rules look at (pulumi-gcp 10.x), named once.

Each token is the string the resource class passes to `super().__init__('gcp:…')`;
tests/rules/test_gcp_wire_format.py checks them against the installed package. GKE's own Gateway policies
are pulumi-kubernetes CustomResources (`kubernetes:<apiVersion>:<kind>`)."""

from __future__ import annotations

# IAM: one resource per grant (`member`), per role (`members`) or the whole policy (`policyData`, a JSON
# document of `bindings`), for each resource kind that carries an IAM policy.
GCP_PROJECT_IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"
GCP_PROJECT_IAM_BINDING = "gcp:projects/iAMBinding:IAMBinding"
GCP_PROJECT_IAM_POLICY = "gcp:projects/iAMPolicy:IAMPolicy"
GCP_FOLDER_IAM_MEMBER = "gcp:folder/iAMMember:IAMMember"
GCP_FOLDER_IAM_BINDING = "gcp:folder/iAMBinding:IAMBinding"
GCP_FOLDER_IAM_POLICY = "gcp:folder/iAMPolicy:IAMPolicy"
GCP_ORGANIZATION_IAM_MEMBER = "gcp:organizations/iAMMember:IAMMember"
GCP_ORGANIZATION_IAM_BINDING = "gcp:organizations/iAMBinding:IAMBinding"
GCP_ORGANIZATION_IAM_POLICY = "gcp:organizations/iAMPolicy:IAMPolicy"
GCP_SERVICE_ACCOUNT_IAM_MEMBER = "gcp:serviceaccount/iAMMember:IAMMember"
GCP_SERVICE_ACCOUNT_IAM_BINDING = "gcp:serviceaccount/iAMBinding:IAMBinding"
GCP_SERVICE_ACCOUNT_IAM_POLICY = "gcp:serviceaccount/iAMPolicy:IAMPolicy"
GCP_BUCKET_IAM_MEMBER = "gcp:storage/bucketIAMMember:BucketIAMMember"
GCP_BUCKET_IAM_BINDING = "gcp:storage/bucketIAMBinding:BucketIAMBinding"
GCP_BUCKET_IAM_POLICY = "gcp:storage/bucketIAMPolicy:BucketIAMPolicy"
GCP_MANAGED_FOLDER_IAM_MEMBER = "gcp:storage/managedFolderIamMember:ManagedFolderIamMember"
GCP_MANAGED_FOLDER_IAM_BINDING = "gcp:storage/managedFolderIamBinding:ManagedFolderIamBinding"
GCP_MANAGED_FOLDER_IAM_POLICY = "gcp:storage/managedFolderIamPolicy:ManagedFolderIamPolicy"
GCP_CRYPTO_KEY_IAM_MEMBER = "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember"
GCP_CRYPTO_KEY_IAM_BINDING = "gcp:kms/cryptoKeyIAMBinding:CryptoKeyIAMBinding"
GCP_CRYPTO_KEY_IAM_POLICY = "gcp:kms/cryptoKeyIAMPolicy:CryptoKeyIAMPolicy"
GCP_KEY_RING_IAM_MEMBER = "gcp:kms/keyRingIAMMember:KeyRingIAMMember"
GCP_KEY_RING_IAM_BINDING = "gcp:kms/keyRingIAMBinding:KeyRingIAMBinding"
GCP_KEY_RING_IAM_POLICY = "gcp:kms/keyRingIAMPolicy:KeyRingIAMPolicy"
GCP_SECRET_IAM_MEMBER = "gcp:secretmanager/secretIamMember:SecretIamMember"
GCP_SECRET_IAM_BINDING = "gcp:secretmanager/secretIamBinding:SecretIamBinding"
GCP_SECRET_IAM_POLICY = "gcp:secretmanager/secretIamPolicy:SecretIamPolicy"
GCP_REGIONAL_SECRET_IAM_MEMBER = "gcp:secretmanager/regionalSecretIamMember:RegionalSecretIamMember"
GCP_REGIONAL_SECRET_IAM_BINDING = "gcp:secretmanager/regionalSecretIamBinding:RegionalSecretIamBinding"
GCP_REGIONAL_SECRET_IAM_POLICY = "gcp:secretmanager/regionalSecretIamPolicy:RegionalSecretIamPolicy"
GCP_REPOSITORY_IAM_MEMBER = "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember"
GCP_REPOSITORY_IAM_BINDING = "gcp:artifactregistry/repositoryIamBinding:RepositoryIamBinding"
GCP_REPOSITORY_IAM_POLICY = "gcp:artifactregistry/repositoryIamPolicy:RepositoryIamPolicy"

GCP_IAM_MEMBER_TYPES = frozenset(
    {GCP_PROJECT_IAM_MEMBER, GCP_FOLDER_IAM_MEMBER, GCP_ORGANIZATION_IAM_MEMBER, GCP_SERVICE_ACCOUNT_IAM_MEMBER,
     GCP_BUCKET_IAM_MEMBER, GCP_MANAGED_FOLDER_IAM_MEMBER, GCP_CRYPTO_KEY_IAM_MEMBER, GCP_KEY_RING_IAM_MEMBER,
     GCP_SECRET_IAM_MEMBER, GCP_REGIONAL_SECRET_IAM_MEMBER, GCP_REPOSITORY_IAM_MEMBER}
)
GCP_IAM_BINDING_TYPES = frozenset(
    {GCP_PROJECT_IAM_BINDING, GCP_FOLDER_IAM_BINDING, GCP_ORGANIZATION_IAM_BINDING, GCP_SERVICE_ACCOUNT_IAM_BINDING,
     GCP_BUCKET_IAM_BINDING, GCP_MANAGED_FOLDER_IAM_BINDING, GCP_CRYPTO_KEY_IAM_BINDING, GCP_KEY_RING_IAM_BINDING,
     GCP_SECRET_IAM_BINDING, GCP_REGIONAL_SECRET_IAM_BINDING, GCP_REPOSITORY_IAM_BINDING}
)
GCP_IAM_POLICY_TYPES = frozenset(
    {GCP_PROJECT_IAM_POLICY, GCP_FOLDER_IAM_POLICY, GCP_ORGANIZATION_IAM_POLICY, GCP_SERVICE_ACCOUNT_IAM_POLICY,
     GCP_BUCKET_IAM_POLICY, GCP_MANAGED_FOLDER_IAM_POLICY, GCP_CRYPTO_KEY_IAM_POLICY, GCP_KEY_RING_IAM_POLICY,
     GCP_SECRET_IAM_POLICY, GCP_REGIONAL_SECRET_IAM_POLICY, GCP_REPOSITORY_IAM_POLICY}
)
GCP_IAM_TYPES = GCP_IAM_MEMBER_TYPES | GCP_IAM_BINDING_TYPES | GCP_IAM_POLICY_TYPES
# Grants above a single resource: every resource of the project (folder, organisation) inherits them.
GCP_RESOURCE_HIERARCHY_IAM_TYPES = frozenset(
    {GCP_PROJECT_IAM_MEMBER, GCP_PROJECT_IAM_BINDING, GCP_PROJECT_IAM_POLICY,
     GCP_FOLDER_IAM_MEMBER, GCP_FOLDER_IAM_BINDING, GCP_FOLDER_IAM_POLICY,
     GCP_ORGANIZATION_IAM_MEMBER, GCP_ORGANIZATION_IAM_BINDING, GCP_ORGANIZATION_IAM_POLICY}
)
GCP_STORAGE_IAM_TYPES = frozenset(
    {GCP_BUCKET_IAM_MEMBER, GCP_BUCKET_IAM_BINDING, GCP_BUCKET_IAM_POLICY,
     GCP_MANAGED_FOLDER_IAM_MEMBER, GCP_MANAGED_FOLDER_IAM_BINDING, GCP_MANAGED_FOLDER_IAM_POLICY}
)
GCP_BUCKET_IAM_TYPES = frozenset({GCP_BUCKET_IAM_MEMBER, GCP_BUCKET_IAM_BINDING, GCP_BUCKET_IAM_POLICY})
GCP_KMS_IAM_TYPES = frozenset(
    {GCP_CRYPTO_KEY_IAM_MEMBER, GCP_CRYPTO_KEY_IAM_BINDING, GCP_CRYPTO_KEY_IAM_POLICY,
     GCP_KEY_RING_IAM_MEMBER, GCP_KEY_RING_IAM_BINDING, GCP_KEY_RING_IAM_POLICY}
)
GCP_SECRET_IAM_TYPES = frozenset(
    {GCP_SECRET_IAM_MEMBER, GCP_SECRET_IAM_BINDING, GCP_SECRET_IAM_POLICY,
     GCP_REGIONAL_SECRET_IAM_MEMBER, GCP_REGIONAL_SECRET_IAM_BINDING, GCP_REGIONAL_SECRET_IAM_POLICY}
)
GCP_SERVICE_ACCOUNT = "gcp:serviceaccount/account:Account"
GCP_SERVICE_ACCOUNT_KEY = "gcp:serviceaccount/key:Key"

# Cloud Storage, Cloud KMS, Secret Manager
GCS_BUCKET = "gcp:storage/bucket:Bucket"
GCP_KMS_KEY_RING = "gcp:kms/keyRing:KeyRing"
GCP_KMS_CRYPTO_KEY = "gcp:kms/cryptoKey:CryptoKey"
GCP_SECRET = "gcp:secretmanager/secret:Secret"

# GKE
GKE_CLUSTER = "gcp:container/cluster:Cluster"
GCP_AUDIT_CONFIG = "gcp:projects/iAMAuditConfig:IAMAuditConfig"
GCP_LOG_BUCKET = "gcp:logging/projectBucketConfig:ProjectBucketConfig"
GCP_LOG_SINK = "gcp:logging/projectSink:ProjectSink"
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
# A calendar-mode future reservation a pool requests (capacity bought for fixed dates).
FUTURE_RESERVATION = "gcp:compute/futureReservation:FutureReservation"

# Compute: VPC firewall, load balancing, Cloud Armor
GCP_NETWORK = "gcp:compute/network:Network"
GCP_FIREWALL = "gcp:compute/firewall:Firewall"
GCP_SSL_POLICY = "gcp:compute/sSLPolicy:SSLPolicy"
GCP_SECURITY_POLICY = "gcp:compute/securityPolicy:SecurityPolicy"
GCP_BACKEND_SERVICE = "gcp:compute/backendService:BackendService"
GCP_GLOBAL_ADDRESS = "gcp:compute/globalAddress:GlobalAddress"
GCP_ADDRESS = "gcp:compute/address:Address"
GKE_BACKEND_POLICY = "kubernetes:networking.gke.io/v1:GCPBackendPolicy"
GKE_GATEWAY_POLICY = "kubernetes:networking.gke.io/v1:GCPGatewayPolicy"
GKE_HEALTH_CHECK_POLICY = "kubernetes:networking.gke.io/v1:HealthCheckPolicy"

# GCP resources that take `labels` (the cluster: `resourceLabels`, which GKE also puts on its nodes and disks).
GCP_LABELLED = frozenset(
    {GCS_BUCKET, GCP_KMS_CRYPTO_KEY, GCP_SECRET, GKE_CLUSTER, GCP_SECURITY_POLICY, GCP_GLOBAL_ADDRESS, GCP_ADDRESS}
)

# Cloud DNS: a migration's weighted record sets
GCP_DNS_RECORD_SET = "gcp:dns/recordSet:RecordSet"
