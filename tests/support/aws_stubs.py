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

# Errors every AWS query/JSON API may answer besides those its model lists for an operation (the
# "Common Errors" section of each service's API reference).
COMMON_ERRORS = frozenset({
    "AccessDeniedException", "IncompleteSignature", "InternalFailure", "InvalidAction", "InvalidClientTokenId",
    "NotAuthorized", "OptInRequired", "RequestExpired", "ServiceUnavailable", "ThrottlingException",
    "ValidationError", "UnrecognizedClientException",
})
# EC2's model lists no error shapes: its codes are documented apart ("Error codes for the Amazon EC2
# API", docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html). The ones tests answer with:
EC2_ERRORS = frozenset({
    "AuthFailure", "Blocked", "DryRunOperation", "IdempotentParameterMismatch", "InternalError",
    "InvalidCapacityReservationId.Malformed", "InvalidCapacityReservationId.NotFound", "InvalidParameterValue",
    "MissingParameter", "RequestLimitExceeded", "ServiceUnavailable", "Unavailable", "UnauthorizedOperation",
    "InsufficientInstanceCapacity",
})


def error_status(model: Any, code: str) -> int:
    """The HTTP status AWS answers `code` with for this operation; AssertionError for an error code the
    operation cannot answer (not in its model, the common errors, or EC2's documented codes)."""
    service = model.service_model
    if service.protocol == "ec2":
        assert code in EC2_ERRORS | COMMON_ERRORS, f"EC2 documents no error code {code!r} (aws_stubs.EC2_ERRORS)"
        return 503 if code in ("ServiceUnavailable", "Unavailable") else 400
    shapes = {shape.name: shape for shape in model.error_shapes}
    shapes.update({name: service.shape_for(name) for name in service.shape_names
                   if name in COMMON_ERRORS and name not in shapes})
    modeled = shapes.get(code)
    if modeled is None:
        assert code in COMMON_ERRORS, (
            f"{service.service_name}.{model.name} answers no error {code!r}: its model lists "
            f"{sorted(shape.name for shape in model.error_shapes)}")
        return 400
    # A server fault (`"fault": true`, e.g. ServiceException) is a 5xx; the model may name the status.
    default = 500 if modeled.metadata.get("fault") else 400
    return int(modeled.metadata.get("error", {}).get("httpStatusCode", default))


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
            status = error_status(model, code)
            parsed = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}}
            return AWSResponse(None, status, {}, None), parsed
        self._validate_operation_response(model.name, result)
        return AWSResponse(None, 200, {}, None), result
