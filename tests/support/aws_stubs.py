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


class Answering(Stubber):
    """Answers one operation of a client from a function of the call's parameters, each answer
    validated against the service model as Stubber validates a queued one: for calls whose order
    a test should not have to know (one GetServiceQuota per quota code). The function returns the
    response, or `(code, message)` for an error answer."""

    def __init__(self, client: Any, operation: str, answer: Any) -> None:
        super().__init__(client)
        self.operation = operation
        self.answer = answer
        self.calls: list[dict[str, Any]] = []

    def _events(self) -> tuple[str, str]:
        service = self.client.meta.service_model.service_id.hyphenize()
        return f"before-parameter-build.{service}.{self.operation}", f"before-call.{service}.{self.operation}"

    def activate(self) -> None:
        build, call = self._events()
        self.client.meta.events.register(build, self._keep, unique_id=f"accelplane-keep-{id(self)}")
        self.client.meta.events.register(call, self._answer, unique_id=f"accelplane-answer-{id(self)}")

    def deactivate(self) -> None:
        build, call = self._events()
        self.client.meta.events.unregister(build, self._keep, unique_id=f"accelplane-keep-{id(self)}")
        self.client.meta.events.unregister(call, self._answer, unique_id=f"accelplane-answer-{id(self)}")

    @staticmethod
    def _keep(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["accelplane_params"] = dict(params)  # the call's API parameters, before serialisation

    def _answer(self, model: Any, context: dict[str, Any], **_: Any) -> Any:
        from botocore.awsrequest import AWSResponse

        params = context.get("accelplane_params", {})
        self.calls.append(params)
        result = self.answer(params)
        if isinstance(result, tuple):
            code, message = result
            status = 400
            parsed = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}}
            return AWSResponse(None, status, {}, None), parsed
        self._validate_operation_response(model.name, result)
        return AWSResponse(None, 200, {}, None), result
