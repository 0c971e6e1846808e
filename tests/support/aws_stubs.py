"""botocore's Stubber for the few AWS operations moto does not implement, on a client whose other
calls still go to moto.

moto 5.2 has no Service Quotas for `ec2`, no DescribeCapacityReservations (capacity blocks are
reservations too) and no EKS DescribeClusterVersions, and refuses the public `/aws/service/...` SSM
parameters; these answers come from `Stubber`, which validates every queued response against the
service model, so a stubbed answer cannot have a shape AWS would not send. `OperationStubber`
registers Stubber's handlers for the named operations only: `Stubber.activate` would take every
call of the client, and the tests want moto's real EC2 reads (instance types, offerings,
instances) beside the stubbed ones.
"""

from __future__ import annotations

from typing import Any

from botocore.stub import Stubber


class OperationStubber(Stubber):
    def __init__(self, client: Any, *operations: str) -> None:
        super().__init__(client)
        self.operations = operations

    def activate(self) -> None:
        service = self.client.meta.service_model.service_id.hyphenize()
        for operation in self.operations:
            self.client.meta.events.register_first(
                f"before-parameter-build.{service}.{operation}", self._assert_expected_params,
                unique_id=f"accelplane-stub-params-{id(self)}-{operation}")
            self.client.meta.events.register(
                f"before-call.{service}.{operation}", self._get_response_handler,
                unique_id=f"accelplane-stub-call-{id(self)}-{operation}")

    def deactivate(self) -> None:
        service = self.client.meta.service_model.service_id.hyphenize()
        for operation in self.operations:
            self.client.meta.events.unregister(
                f"before-parameter-build.{service}.{operation}", self._assert_expected_params,
                unique_id=f"accelplane-stub-params-{id(self)}-{operation}")
            self.client.meta.events.unregister(
                f"before-call.{service}.{operation}", self._get_response_handler,
                unique_id=f"accelplane-stub-call-{id(self)}-{operation}")
