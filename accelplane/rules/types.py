"""Pulumi type tokens the rules look at (pulumi-aws 7.x, pulumi-kubernetes 4.x), named once."""

from __future__ import annotations

# IAM
IAM_ROLE = "aws:iam/role:Role"
IAM_ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
IAM_POLICY = "aws:iam/policy:Policy"
IAM_ROLE_POLICY_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
IAM_POLICY_ATTACHMENT = "aws:iam/policyAttachment:PolicyAttachment"
IAM_ROLE_POLICY_ATTACHMENTS_EXCLUSIVE = "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive"
IAM_USER = "aws:iam/user:User"
IAM_USER_POLICY = "aws:iam/userPolicy:UserPolicy"
IAM_USER_POLICY_ATTACHMENT = "aws:iam/userPolicyAttachment:UserPolicyAttachment"
IAM_USER_LOGIN_PROFILE = "aws:iam/userLoginProfile:UserLoginProfile"
IAM_GROUP_POLICY = "aws:iam/groupPolicy:GroupPolicy"
IAM_GROUP_POLICY_ATTACHMENT = "aws:iam/groupPolicyAttachment:GroupPolicyAttachment"
IAM_ACCESS_KEY = "aws:iam/accessKey:AccessKey"
IAM_OIDC_PROVIDER = "aws:iam/openIdConnectProvider:OpenIdConnectProvider"

IDENTITY_POLICY_TYPES = frozenset(
    {IAM_ROLE, IAM_ROLE_POLICY, IAM_POLICY, IAM_USER_POLICY, IAM_GROUP_POLICY}
)
MANAGED_POLICY_ATTACHMENT_TYPES = frozenset(
    {IAM_ROLE_POLICY_ATTACHMENT, IAM_POLICY_ATTACHMENT, IAM_USER_POLICY_ATTACHMENT, IAM_GROUP_POLICY_ATTACHMENT}
)

# S3
S3_BUCKET = "aws:s3/bucket:Bucket"
S3_BUCKET_V2 = "aws:s3/bucketV2:BucketV2"
S3_BUCKETS = frozenset({S3_BUCKET, S3_BUCKET_V2})
S3_PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
S3_ACCOUNT_PUBLIC_ACCESS_BLOCK = "aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock"
S3_SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
S3_SSE_V2 = "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2"
S3_POLICY = "aws:s3/bucketPolicy:BucketPolicy"
S3_VERSIONING = "aws:s3/bucketVersioning:BucketVersioning"
S3_VERSIONING_V2 = "aws:s3/bucketVersioningV2:BucketVersioningV2"
S3_LIFECYCLE = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
S3_LIFECYCLE_V2 = "aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2"
S3_ACL = "aws:s3/bucketAcl:BucketAcl"
S3_ACL_V2 = "aws:s3/bucketAclV2:BucketAclV2"
S3_OWNERSHIP = "aws:s3/bucketOwnershipControls:BucketOwnershipControls"

# KMS and Secrets Manager
KMS_KEY = "aws:kms/key:Key"
KMS_KEY_POLICY = "aws:kms/keyPolicy:KeyPolicy"
SECRET = "aws:secretsmanager/secret:Secret"
SECRET_POLICY = "aws:secretsmanager/secretPolicy:SecretPolicy"

# EC2 and VPC
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGRESS_RULE = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
INSTANCE = "aws:ec2/instance:Instance"
EBS_VOLUME = "aws:ebs/volume:Volume"
SUBNET = "aws:ec2/subnet:Subnet"

# EKS
EKS_CLUSTER = "aws:eks/cluster:Cluster"
EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"

# Load balancing
LOAD_BALANCER = "aws:lb/loadBalancer:LoadBalancer"
ALB = "aws:alb/loadBalancer:LoadBalancer"
LOAD_BALANCERS = frozenset({LOAD_BALANCER, ALB})
LISTENER = "aws:lb/listener:Listener"
ALB_LISTENER = "aws:alb/listener:Listener"
LISTENERS = frozenset({LISTENER, ALB_LISTENER})
TARGET_GROUP = "aws:lb/targetGroup:TargetGroup"
ALB_TARGET_GROUP = "aws:alb/targetGroup:TargetGroup"
TARGET_GROUPS = frozenset({TARGET_GROUP, ALB_TARGET_GROUP})
WAF_WEB_ACL = "aws:wafv2/webAcl:WebAcl"
WAF_WEB_ACL_ASSOCIATION = "aws:wafv2/webAclAssociation:WebAclAssociation"

# Kubernetes (pulumi-kubernetes): where the pod spec sits in each workload kind.
K8S_POD = "kubernetes:core/v1:Pod"
K8S_DEPLOYMENT = "kubernetes:apps/v1:Deployment"
K8S_STATEFUL_SET = "kubernetes:apps/v1:StatefulSet"
K8S_DAEMON_SET = "kubernetes:apps/v1:DaemonSet"
K8S_REPLICA_SET = "kubernetes:apps/v1:ReplicaSet"
K8S_JOB = "kubernetes:batch/v1:Job"
K8S_CRON_JOB = "kubernetes:batch/v1:CronJob"
K8S_POD_SPEC_PATHS: dict[str, tuple[str, ...]] = {
    K8S_POD: ("spec",),
    K8S_DEPLOYMENT: ("spec", "template", "spec"),
    K8S_STATEFUL_SET: ("spec", "template", "spec"),
    K8S_DAEMON_SET: ("spec", "template", "spec"),
    K8S_REPLICA_SET: ("spec", "template", "spec"),
    K8S_JOB: ("spec", "template", "spec"),
    K8S_CRON_JOB: ("spec", "jobTemplate", "spec", "template", "spec"),
}
K8S_WORKLOAD_TYPES = frozenset(K8S_POD_SPEC_PATHS)
K8S_CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
K8S_LIMIT_RANGE = "kubernetes:core/v1:LimitRange"
K8S_RESOURCE_QUOTA = "kubernetes:core/v1:ResourceQuota"
K8S_HPA = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
K8S_HPA_V1 = "kubernetes:autoscaling/v1:HorizontalPodAutoscaler"
# JobSet and Kueue objects (pulumi-kubernetes CustomResources: `kubernetes:<apiVersion>:<kind>`), in the
# API versions their current releases serve.
K8S_JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
KUEUE_VERSIONS = ("kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2")
KUEUE_CLUSTER_QUEUES = tuple(f"kubernetes:{v}:ClusterQueue" for v in KUEUE_VERSIONS)
KUEUE_LOCAL_QUEUES = tuple(f"kubernetes:{v}:LocalQueue" for v in KUEUE_VERSIONS)
KUEUE_RESOURCE_FLAVORS = tuple(f"kubernetes:{v}:ResourceFlavor" for v in KUEUE_VERSIONS)
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"

# AWS resources that take `tags` (those the program creates, plus common stateful ones).
TAGGABLE = frozenset(
    {
        "aws:ec2/vpc:Vpc", SUBNET, "aws:ec2/internetGateway:InternetGateway", "aws:ec2/natGateway:NatGateway",
        "aws:ec2/eip:Eip", "aws:ec2/routeTable:RouteTable", SECURITY_GROUP,
        "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", INGRESS_RULE, EGRESS_RULE, LAUNCH_TEMPLATE,
        "aws:ec2/placementGroup:PlacementGroup", INSTANCE, EBS_VOLUME, KMS_KEY, IAM_ROLE, IAM_POLICY, IAM_USER,
        IAM_OIDC_PROVIDER, EKS_CLUSTER, EKS_NODE_GROUP, S3_BUCKET, S3_BUCKET_V2, LOAD_BALANCER, ALB,
        "aws:lb/targetGroup:TargetGroup", LISTENER, ALB_LISTENER, SECRET, LOG_GROUP,
        "aws:efs/fileSystem:FileSystem", "aws:fsx/lustreFileSystem:LustreFileSystem",
        "aws:ecr/repository:Repository", "aws:rds/instance:Instance", "aws:rds/cluster:Cluster",
        "aws:dynamodb/table:Table", "aws:sqs/queue:Queue", "aws:sns/topic:Topic",
    }
)

# Declared, not deployed by Pulumi: bare-metal host groups (Ansible), judged from the declaration.
BARE_METAL_GROUP = "accelplane:bare-metal:HostGroup"

# accelplane's own component resource for an inference service: its props are the service's backends
# (pool, weight, replica floor, the versions the image relies on) and rollout policy
# (`accelplane/k8s/service_props.py`), the same in the offline graph, a state or plan and CrossGuard.
INFERENCE_SERVICE = "accelplane:k8s:InferenceService"

# ----------------------------------------------------------------------------------------------------
# Google Cloud (pulumi-gcp 10.x). Each token is the string the resource class passes to
# `super().__init__('gcp:…')`; tests/rules/test_gcp_wire_format.py checks them against the installed package.

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
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"

# Compute: VPC firewall, load balancing, Cloud Armor
GCP_NETWORK = "gcp:compute/network:Network"
GCP_FIREWALL = "gcp:compute/firewall:Firewall"
GCP_SSL_POLICY = "gcp:compute/sSLPolicy:SSLPolicy"
GCP_SECURITY_POLICY = "gcp:compute/securityPolicy:SecurityPolicy"
GCP_BACKEND_SERVICE = "gcp:compute/backendService:BackendService"
GCP_GLOBAL_ADDRESS = "gcp:compute/globalAddress:GlobalAddress"
GCP_ADDRESS = "gcp:compute/address:Address"

# GKE Gateway API objects (pulumi-kubernetes CustomResources: the token is `kubernetes:<apiVersion>:<kind>`).
K8S_GATEWAY = "kubernetes:gateway.networking.k8s.io/v1:Gateway"
K8S_HTTP_ROUTE = "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute"
GKE_BACKEND_POLICY = "kubernetes:networking.gke.io/v1:GCPBackendPolicy"
GKE_GATEWAY_POLICY = "kubernetes:networking.gke.io/v1:GCPGatewayPolicy"
GKE_HEALTH_CHECK_POLICY = "kubernetes:networking.gke.io/v1:HealthCheckPolicy"

# GCP resources that take `labels` (the cluster: `resourceLabels`, which GKE also puts on its nodes and disks).
GCP_LABELLED = frozenset(
    {GCS_BUCKET, GCP_KMS_CRYPTO_KEY, GCP_SECRET, GKE_CLUSTER, GCP_SECURITY_POLICY, GCP_GLOBAL_ADDRESS, GCP_ADDRESS}
)
