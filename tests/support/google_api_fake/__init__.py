"""A local stand-in for Google Cloud's REST APIs that have no emulator (Compute, Container, Cloud
KMS, Secret Manager, IAM, Certificate Manager, Monitoring, Resource Manager), generic over the
discovery documents google-api-python-client ships: requests are routed by the document, request
and response bodies are checked against the method's schemas, so the fake cannot drift from the
real API's shape."""

from tests.support.google_api_fake.server import GoogleApiFake

__all__ = ["GoogleApiFake"]
