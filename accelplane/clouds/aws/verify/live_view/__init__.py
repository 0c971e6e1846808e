"""The live platform as the rules and the drift check see it: `Resource`s in the declared shape.

Each live resource is matched to the declared resource it implements and given that resource's
type token, logical name and URN, with props in the wire format (camelCase keys, as `pulumi up`
sends them) built from what AWS returned. So the same least-privilege and hygiene rules that
`accelplane check` runs on the offline graph run unchanged on what is live, and a drift check is a
comparison of two values of the same shape.

Matching (the names of autonamed resources differ between the offline engine and AWS):

| declared type | matched live by |
|---|---|
| VPC, subnet, security group | the `Name` tag the program sets |
| default security group | group name `default` in the matched VPC |
| security group ingress/egress rule | content: group, direction, protocol, ports, peer (CIDR, group or prefix list) |
| EKS cluster, node group, log group, KMS alias | their deterministic names |
| KMS key | the declared alias that targets it |
| launch template, placement group | the `accelplane.io/pool` tag |
| bucket | the `accelplane.io/bucket-role` tag (and the declared name prefix) |
| bucket settings, secret policy, inline policy, attachment, listener | their parent, then name or port |
| IAM role | its declared name, else Pulumi's autoname `<logical name>-<7 hex>` |
| OIDC provider | the cluster's issuer |
| load balancer | the platform tag (one), else the name prefix |
| target group | its `accelplane:service` and `accelplane:backend` tags, else as a load balancer |
| listener rule | its listener, then its conditions (the path pattern), else its priority |
| secret | its declared name or name prefix |
| CloudTrail trail | its declared name |
| Lambda permission | its function's policy statement with the declared principal and action (and source ARN) |

Live resources that carry the platform's identity (tag, parent group, role, load balancer) but
match no declared resource are `unexpected`: a rule added by hand, a node group created outside
the code, an extra inline policy, a listener rule or a target group added by hand.

What AWS creates on the platform's behalf is found by reference, not by tag, and judged against
what AWS itself puts there: the EKS cluster security group (EKS creates it untagged and attaches it
to the nodes) may hold EKS's two rules (all traffic from itself, all traffic out) and the declared
ones, any other rule is unexpected; a node role's access entry (EKS makes one per managed node
group role) and, with `bootstrapClusterCreatorAdminPermissions`, the cluster creator's entry made
with the cluster are EKS's, any other access entry or managed add-on the declaration does not have
is unexpected; a target group bound to the platform's load balancer is the platform's, tagged or not.

`read` counts the live objects read per type (matched, unexpected, and AWS's own that were judged
as such), which the report lists as its coverage.

Forward actions (listener default actions, listener rule actions) keep their target groups and
weights in the declared shape (`forward.targetGroups: [{arn, weight}]`); `routing` judges them.

One module per AWS service (`network`, `eks`, `iam`, `kms`, `s3`, `elbv2`, `secrets`, `logs`,
`cloudtrail`, `lambda_permissions`), each a
reader of the shared `core.ViewCore`; `builder` runs them in order and `wire` turns API responses
into the declared shape.
"""

from accelplane.clouds.aws.verify.live_view.builder import build_live_view
from accelplane.clouds.aws.verify.live_view.core import VERIFIED_TYPES, AwsLiveView
from accelplane.clouds.aws.verify.live_view.wire import camel, wire

__all__ = ["VERIFIED_TYPES", "AwsLiveView", "build_live_view", "camel", "wire"]
