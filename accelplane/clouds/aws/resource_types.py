"""Pulumi type tokens of the AWS resources the rules look at (pulumi-aws 7.x), named once."""

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
SECRET_ROTATION = "aws:secretsmanager/secretRotation:SecretRotation"
# A statement of a Lambda function's resource policy (who may invoke it)
LAMBDA_PERMISSION = "aws:lambda/permission:Permission"

# EC2 and VPC
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGRESS_RULE = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
INSTANCE = "aws:ec2/instance:Instance"
EBS_VOLUME = "aws:ebs/volume:Volume"
SUBNET = "aws:ec2/subnet:Subnet"
CAPACITY_BLOCK = "aws:ec2/capacityBlockReservation:CapacityBlockReservation"

# EKS
EKS_CLUSTER = "aws:eks/cluster:Cluster"
EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
CLOUDTRAIL_TRAIL = "aws:cloudtrail/trail:Trail"
S3_OBJECT_LOCK = frozenset({"aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration",
                            "aws:s3/bucketObjectLockConfigurationV2:BucketObjectLockConfigurationV2"})

# Load balancing
LOAD_BALANCER = "aws:lb/loadBalancer:LoadBalancer"
ALB = "aws:alb/loadBalancer:LoadBalancer"
LOAD_BALANCERS = frozenset({LOAD_BALANCER, ALB})
LISTENER = "aws:lb/listener:Listener"
ALB_LISTENER = "aws:alb/listener:Listener"
LISTENERS = frozenset({LISTENER, ALB_LISTENER})
LISTENER_RULES = frozenset({"aws:lb/listenerRule:ListenerRule", "aws:alb/listenerRule:ListenerRule"})
TARGET_GROUP = "aws:lb/targetGroup:TargetGroup"
ALB_TARGET_GROUP = "aws:alb/targetGroup:TargetGroup"
TARGET_GROUPS = frozenset({TARGET_GROUP, ALB_TARGET_GROUP})
TRUST_STORE = "aws:lb/trustStore:TrustStore"  # ALB mutual TLS (pulumi-aws has no aws:alb alias for it)
WAF_WEB_ACL = "aws:wafv2/webAcl:WebAcl"
WAF_WEB_ACL_ASSOCIATION = "aws:wafv2/webAclAssociation:WebAclAssociation"

# AWS resources that take `tags` (those the program creates, plus common stateful ones).
TAGGABLE = frozenset(
    {
        "aws:ec2/vpc:Vpc", SUBNET, "aws:ec2/internetGateway:InternetGateway", "aws:ec2/natGateway:NatGateway",
        "aws:ec2/eip:Eip", "aws:ec2/routeTable:RouteTable", SECURITY_GROUP,
        "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", INGRESS_RULE, EGRESS_RULE, LAUNCH_TEMPLATE,
        "aws:ec2/placementGroup:PlacementGroup", CAPACITY_BLOCK, INSTANCE, EBS_VOLUME, KMS_KEY, IAM_ROLE, IAM_POLICY,
        IAM_USER,
        IAM_OIDC_PROVIDER, EKS_CLUSTER, EKS_NODE_GROUP, S3_BUCKET, S3_BUCKET_V2, LOAD_BALANCER, ALB,
        "aws:lb/targetGroup:TargetGroup", LISTENER, ALB_LISTENER, SECRET, LOG_GROUP,
        "aws:efs/fileSystem:FileSystem", "aws:fsx/lustreFileSystem:LustreFileSystem",
        "aws:ecr/repository:Repository", "aws:rds/instance:Instance", "aws:rds/cluster:Cluster",
        "aws:dynamodb/table:Table", "aws:sqs/queue:Queue", "aws:sns/topic:Topic",
    }
)

# Route 53: a migration's weighted records
ROUTE53_RECORD = "aws:route53/record:Record"
