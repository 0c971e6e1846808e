"""`accelplane verify` as a CI gate people can trust: exit 0 clean, 1 on findings or a failed read,
2 on bad input or an endpoint that is not the AWS API, with a message naming the option or the
endpoint and never a traceback; messages one bounded line whatever an API answered; the report
naming the account, region and endpoint it checked; counts that agree in every format.

The proxy or captive portal is a real HTTP server on 127.0.0.1 answering HTML pages; the other
transport failures botocore can raise are injected at `before-send`, where botocore's own HTTP
layer would raise them.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import (
    ConnectTimeoutError,
    EndpointConnectionError,
    ParamValidationError,
    ProxyConnectionError,
    ReadTimeoutError,
    SSLError,
    TokenRetrievalError,
)
from botocore.parsers import ResponseParserError

from accelplane.cli import main
from accelplane.clouds.aws.clients import AwsClients
from accelplane.clouds.aws.connection import AwsConnection
from accelplane.clouds.aws.verify.drift_specs import DRIFT
from accelplane.clouds.aws.verify.reader import AwsReader
from accelplane.config.loader import StackConfig
from accelplane.engine.graph import OfflineGraph
from accelplane.errors import InputError
from accelplane.program import offline_graph
from accelplane.verify.canonical import Symbols
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.drift import stack_missing
from accelplane.verify.live import LiveView
from accelplane.verify.results import CheckId, Status
from accelplane.verify.text import one_line
from accelplane.verify.verification import VerifyOptions, verify
from accelplane.verify.verify_output import render_verify
from tests.verify.moto_platform import ACCOUNT, MotoPlatform

BAD_GATEWAY = (
    b"<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n"
    b"<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx | proxy</center>\n</body>\n</html>\n"
)
CAPTIVE_PORTAL = (
    b"<!doctype html><html lang=en><head><meta charset=utf-8><title>Hotel Wi-Fi: please log in</title>"
    b"<script>location.href='/login'</script></head><body><form>Room number</form></body></html>"
)
GENERIC_5XX = b"<html><body><b>Http/1.1 Service Unavailable</b></body></html>"
CALLER_IDENTITY = (
    '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>'
    f"<Arn>arn:aws:iam::{ACCOUNT}:user/ci</Arn><UserId>AIDAEXAMPLE</UserId><Account>{ACCOUNT}</Account>"
    "</GetCallerIdentityResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata>"
    "</GetCallerIdentityResponse>"
).encode()
PAGES = {"502 page": (502, BAD_GATEWAY), "200 captive portal": (200, CAPTIVE_PORTAL), "503 bare": (503, GENERIC_5XX)}


@dataclass
class HtmlProxy:
    """What answers on `url`: `page` for every request, or a real caller identity for STS."""

    url: str
    status: int = 502
    page: bytes = BAD_GATEWAY
    answer_sts: bool = False
    requests: int = 0


@pytest.fixture
def html_proxy() -> Iterator[HtmlProxy]:
    state = HtmlProxy(url="")

    class Handler(http.server.BaseHTTPRequestHandler):
        disable_nagle_algorithm = True  # no ~40 ms delayed-ACK wait per answer on loopback

        def _answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            state.requests += 1
            if state.answer_sts and b"Action=GetCallerIdentity" in body:
                status, kind, page = 200, "text/xml", CALLER_IDENTITY
            else:
                status, kind, page = state.status, "text/html; charset=utf-8", state.page
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        do_GET = do_POST = do_PUT = do_HEAD = _answer  # noqa: N815 (http.server's names)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["verify", "--stack", "dev", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def markdown_rows_intact(markdown: str) -> None:
    """Every table row has exactly the header's cells: nothing in a message split or ended it."""
    for line in markdown.splitlines():
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line)
            assert len(cells) == 7, f"broken table row: {line}"


# -- 1. malformed options are usage errors, before any AWS call ---------------------------------


@pytest.fixture
def no_aws_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("an AWS client was created")

    monkeypatch.setattr(boto3.Session, "client", refuse)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("not a url", "contains spaces"),
        ("http//x", "no http:// or https://"),
        ("ftp://x", "scheme 'ftp' is not http or https"),
        ("http://", "no host"),
        ("http://127.0.0.1:99999", "Port out of range"),
        ("http://127.0.0.1:0", "port 0 is not in 1-65535"),
        ("https://localhost:abc", "Port could not be cast"),
        ("http://[::1", "Invalid IPv6 URL"),
        ("https://user:secret@proxy.example.com", "user:password@"),
    ],
)
def test_malformed_endpoint_url_exits_2_naming_the_option(
    url: str, why: str, no_aws_calls: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "--endpoint-url", url)

    assert code == 2
    assert "--endpoint-url: expected an http:// or https:// URL with a host" in err
    assert why in err
    assert "secret" not in err


def test_malformed_endpoint_url_is_refused_by_the_library_too(
    dev_stack: StackConfig, dev_graph: OfflineGraph, no_aws_calls: None
) -> None:
    with pytest.raises(InputError) as raised:
        options = VerifyOptions(connection=AwsConnection(endpoint_url="http//x"))
        verify(dev_stack, options, graph=dev_graph, reader=AwsReader())

    assert "--endpoint-url: expected an http:// or https:// URL" in str(raised.value)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--probe-url", "http://api.example.com/healthz", "--probe-url: expected an https:// URL"),
        ("--probe-url", "https://api.example.com:70000/healthz", "Port out of range"),
        ("--ca-bundle", "NOT A PEM", "--ca-bundle: expected a PEM file of CA certificates"),
    ],
)
def test_malformed_probe_options_exit_2_naming_the_option(
    option: str, value: str, message: str, tmp_path: Path, no_aws_calls: None, capsys: pytest.CaptureFixture[str]
) -> None:
    if option == "--ca-bundle":
        bundle = tmp_path / "ca.pem"
        bundle.write_text(value)
        value = str(bundle)

    code, _, err = run_cli(capsys, option, value)

    assert code == 2
    assert message in err


# -- 2. an endpoint that answers HTML, and every other way a call can fail ----------------------


@pytest.mark.parametrize("page", PAGES)
def test_html_page_at_the_caller_identity_step_is_bad_input_naming_the_endpoint(
    page: str, html_proxy: HtmlProxy, capsys: pytest.CaptureFixture[str]
) -> None:
    html_proxy.status, html_proxy.page = PAGES[page]

    code, out, err = run_cli(capsys, "--endpoint-url", html_proxy.url, "--probes", "0")

    assert code == 2, err
    [line] = err.strip().splitlines()
    assert line.startswith(f"error: accelplane verify: --endpoint-url: {html_proxy.url} answered sts.GetCallerIdentity")
    assert "with an HTML page" in line and "not an AWS API response" in line
    assert "<" not in line and out == ""
    assert html_proxy.requests == 1  # a portal does not go away with retries


@pytest.mark.parametrize("page", ["502 page", "200 captive portal"])
def test_html_pages_during_the_inventory_are_read_errors(
    page: str, html_proxy: HtmlProxy, capsys: pytest.CaptureFixture[str]
) -> None:
    html_proxy.status, html_proxy.page = PAGES[page]
    html_proxy.answer_sts = True

    code, out, err = run_cli(capsys, "--endpoint-url", html_proxy.url, "--probes", "0", "--format", "markdown")

    assert code == 1, err
    assert "<html" not in out.lower() and "<!doctype" not in out.lower() and "<title" not in out
    markdown_rows_intact(out)
    title = "502 Bad Gateway" if page == "502 page" else "Hotel Wi-Fi: please log in"
    read_errors = [line for line in out.splitlines() if "`verify.read-error`" in line]
    assert any("eks.DescribeCluster" in line and f"HTML page ({title})" in line for line in read_errors), out
    assert f"Account `{ACCOUNT}`, region `us-east-1`, endpoint `{html_proxy.url}`" in out
    assert "drift.stack-missing" not in out  # nothing could be read: that is not "nothing is deployed"


def _raising(exception: Exception, *, spare_sts: bool) -> Callable[..., Any]:
    def before_send(request: Any, **_: Any) -> Any:
        if spare_sts and "sts." in request.url:
            return None
        raise exception

    return before_send


# What botocore's HTTP layer and parsers raise (their own constructors, as botocore builds them).
TRANSPORT_ERRORS = {
    "connect timeout": ConnectTimeoutError(endpoint_url="https://eks.us-east-1.amazonaws.com"),
    "read timeout": ReadTimeoutError(endpoint_url="https://eks.us-east-1.amazonaws.com", error="timed out"),
    "TLS": SSLError(endpoint_url="https://eks.us-east-1.amazonaws.com", error="CERTIFICATE_VERIFY_FAILED\nchain"),
    "no route": EndpointConnectionError(endpoint_url="https://eks.us-east-1.amazonaws.com"),
    "proxy": ProxyConnectionError(proxy_url="http://proxy.corp:3128", error="refused"),
    "unparseable": ResponseParserError("Unable to parse response, invalid XML received:\nb'<html><body>x</body>'"),
    "invalid parameter": ParamValidationError(report="Invalid length for parameter name\n value: ''"),
}


@pytest.mark.parametrize("kind", TRANSPORT_ERRORS)
def test_transport_failures_at_the_caller_identity_step_are_bad_input(kind: str, dev_stack: StackConfig) -> None:
    session = boto3.Session(region_name="us-east-1")
    session.events.register("before-send", _raising(TRANSPORT_ERRORS[kind], spare_sts=False))
    clients = AwsClients("us-east-1", session=session, max_attempts=1)

    with pytest.raises(InputError) as raised:
        verify(dev_stack, VerifyOptions(probes=0), graph=offline_graph(dev_stack), reader=AwsReader(clients))

    [problem] = raised.value.problems
    assert problem.field in ("AWS endpoint", "credentials")
    assert "\n" not in problem.message and "<" not in problem.message


def test_expired_sso_token_is_a_credentials_problem(dev_stack: StackConfig) -> None:
    session = boto3.Session(region_name="us-east-1")
    expired = TokenRetrievalError(provider="sso", error_msg="the SSO session has expired")
    session.events.register("before-send", _raising(expired, spare_sts=False))
    clients = AwsClients("us-east-1", session=session, max_attempts=1)

    with pytest.raises(InputError, match="credentials: cannot get AWS credentials"):
        verify(dev_stack, VerifyOptions(probes=0), graph=offline_graph(dev_stack), reader=AwsReader(clients))


@pytest.mark.parametrize("kind", TRANSPORT_ERRORS)
def test_transport_failures_during_the_inventory_are_read_errors(
    kind: str, moto: None, dev_stack: StackConfig, dev_graph: Any
) -> None:
    session = boto3.Session(region_name="us-east-1")
    session.events.register("before-send", _raising(TRANSPORT_ERRORS[kind], spare_sts=True))
    clients = AwsClients("us-east-1", session=session, max_attempts=1)

    report = verify(dev_stack, VerifyOptions(probes=0), graph=dev_graph, reader=AwsReader(clients))

    read_errors = [r for r in report.results if r.check == CheckId.read_error and r.status is Status.failed]
    assert read_errors and report.failed
    assert any(type(TRANSPORT_ERRORS[kind]).__name__ in r.message for r in read_errors)
    assert all("\n" not in r.message and "<html" not in r.message for r in report.results)
    markdown_rows_intact(render_verify(report, "markdown"))


def test_a_profile_that_does_not_exist_is_bad_input(no_aws_calls: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "--profile", "no-such-profile")

    assert code == 2
    assert "--profile: no AWS profile 'no-such-profile'" in err


def test_api_messages_become_one_bounded_line() -> None:
    message = one_line(b"AccessDenied: " + BAD_GATEWAY + b"\r\n| col | \x1b[31m" + b"x" * 5000)

    assert message.startswith("AccessDenied: [HTML page: 502 Bad Gateway]")
    assert "\n" not in message and "\r" not in message and "\x1b" not in message
    assert len(message) <= 600
    assert one_line("declared <account>, live 1234") == "declared <account>, live 1234"  # our symbols stay


def test_markdown_escapes_what_would_break_a_table(
    live_dev: MotoPlatform, run_verify: Any, boto_session: boto3.Session
) -> None:
    # A description is free text an operator can set outside the code: pipes, a newline, markup.
    live_dev.client("kms").update_key_description(
        KeyId=live_dev.key_id("eks"), Description="rotated | by hand\n<b>see ticket</b> | ops"
    )

    report = run_verify(checkpoint_drill="off")
    markdown = render_verify(report, "markdown")

    [changed] = [r for r in report.results if r.check == CheckId.drift_changed]
    assert changed.path == "description" and "\n" not in changed.message
    markdown_rows_intact(markdown)
    assert "<b>" not in markdown and "&lt;b&gt;see ticket&lt;/b&gt;" in markdown


# -- 3-5. what was checked, an undeployed stack, counts ---------------------------------------


def test_an_undeployed_stack_is_one_finding(moto: None, run_verify: Any, dev_stack: StackConfig) -> None:
    report = run_verify()

    [result] = report.results
    assert result.check == CheckId.stack_missing and result.status is Status.failed
    assert result.message == (
        f"stack dev not found in account {ACCOUNT} region us-east-1: nothing of it is deployed there "
        "(is this the right account/region? has `pulumi up` run?)"
    )
    assert report.failed and report.counts() == {"total": 1, "pass": 0, "fail": 1, "warn": 0, "skip": 0}


def test_only_global_iam_resources_live_is_still_not_deployed_here(dev_declared: DeclaredPlatform) -> None:
    # The stack deployed in another region: its roles (IAM is global) are all this region shows.
    roles = [r for r in dev_declared.resources if r.type == "aws:iam/role:Role"]
    view = LiveView(symbols=Symbols(), matched={role.urn: role for role in roles})

    result = stack_missing(dev_declared, view, DRIFT, read_errors=0, account=ACCOUNT, region="us-west-2")

    assert result is not None and result.status is Status.failed
    assert result.message.startswith(f"stack dev not found in account {ACCOUNT} region us-west-2: nothing of it")
    assert result.message.endswith(
        f"; {len(roles)} of its IAM resources exist (IAM is global): is it deployed in another region?"
    )
    assert stack_missing(dev_declared, view, DRIFT, read_errors=1, account=ACCOUNT, region="us-west-2") is None
    some_vpc = next(r for r in dev_declared.resources if r.type == "aws:ec2/vpc:Vpc")
    view.matched[some_vpc.urn] = some_vpc
    assert stack_missing(dev_declared, view, DRIFT, read_errors=0, account=ACCOUNT, region="us-west-2") is None


_COUNTS = re.compile(
    r"^(\d+) checks? \(\d+ declared resources? read\): \**(\d+) failed\**, (\d+) warnings?, (\d+) skipped, "
    r"(\d+) passed\.?$",
    re.MULTILINE,
)
_VERDICT = re.compile(
    r"^(?:FAILED|PASSED): (\d+) failed, (\d+) warnings?, (\d+) skipped, (\d+) passed \((\d+) checks?\)$"
)


def header_counts(text: str) -> list[int]:
    """[total, failed, warnings, skipped, passed] from the counts line under a report's title."""
    match = _COUNTS.search(text)
    assert match, text[:500]
    return [int(n) for n in match.groups()]


def verdict_counts(line: str) -> list[int]:
    match = _VERDICT.match(line)
    assert match, line
    fail, warn, skip, ok, total = map(int, match.groups())
    return [total, fail, warn, skip, ok]


def test_counts_agree_in_every_format(live_dev: MotoPlatform, run_verify: Any) -> None:
    live_dev.client("kms").disable_key_rotation(KeyId=live_dev.key_id("eks"))  # drift and AP-KMS-001: failures
    report = run_verify(checkpoint_drill="off")  # a skip besides the unverifiable properties
    counts = report.counts()
    expected = [counts["total"], counts["fail"], counts["warn"], counts["skip"], counts["pass"]]
    assert counts["fail"] >= 2 and counts["skip"] >= 2 and counts["pass"] > 10
    assert counts["total"] == counts["fail"] + counts["warn"] + counts["skip"] + counts["pass"]

    table = render_verify(report, "table")
    assert header_counts(table) == verdict_counts(table.strip().splitlines()[-1]) == expected
    assert verdict_counts(report.summary_line()) == expected  # what the CLI prints with --output
    rows = [line.split()[0] for line in table.splitlines() if re.match(r"^(FAIL|WARN|SKIP) ", line)]
    assert [rows.count(s) for s in ("FAIL", "WARN", "SKIP")] == [counts["fail"], counts["warn"], counts["skip"]]

    markdown = render_verify(report, "markdown")
    assert header_counts(markdown) == expected
    failed_section = markdown.split("#### Failed", 1)[1].split("<details>", 1)[0]
    assert sum(1 for line in failed_section.splitlines() if line.startswith("| ") and "Severity" not in line) == (
        counts["fail"]
    )
    assert f"<summary>Skipped ({counts['skip']})</summary>" in markdown

    junit = ET.fromstring(render_verify(report, "junit"))
    assert [int(junit.get(k, "-1")) for k in ("tests", "failures", "skipped", "errors")] == [
        counts["total"], counts["fail"], counts["skip"], 0
    ]
    suites = junit.findall("testsuite")
    assert sum(int(s.get("tests", "0")) for s in suites) == len(junit.findall(".//testcase")) == counts["total"]
    assert len(junit.findall(".//failure")) == sum(int(s.get("failures", "0")) for s in suites) == counts["fail"]
    assert len(junit.findall(".//skipped")) == sum(int(s.get("skipped", "0")) for s in suites) == counts["skip"]

    data = json.loads(render_verify(report, "json"))
    assert data["summary"]["checks"] == counts and len(data["checks"]) == counts["total"]
    assert data["summary"]["blocking"] == counts["fail"] and data["summary"]["passed"] is False

    sarif = json.loads(render_verify(report, "sarif"))
    [run] = sarif["runs"]
    assert run["properties"]["checks"] == counts
    assert sum(1 for r in run["results"] if r["level"] == "error") == counts["fail"]


def test_every_format_names_the_account_region_and_endpoint(
    live_dev: MotoPlatform, run_verify: Any, boto_session: boto3.Session
) -> None:
    report = run_verify(checkpoint_drill="off")

    where = f"account {ACCOUNT}, region us-east-1, endpoint AWS default endpoints"
    assert render_verify(report, "table").splitlines()[0] == f"accelplane verify: stack dev — {where}"
    assert f"Account `{ACCOUNT}`, region `us-east-1`, endpoint AWS default endpoints." in render_verify(
        report, "markdown"
    )
    data = json.loads(render_verify(report, "json"))
    assert (data["account"], data["region"], data["endpoint"]) == (ACCOUNT, "us-east-1", "AWS default endpoints")
    assert data["summary"]["account"] == ACCOUNT
    junit = ET.fromstring(render_verify(report, "junit"))
    for suite in junit.findall("testsuite"):
        properties = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
        assert properties == {
            "stack": "dev", "account": ACCOUNT, "region": "us-east-1", "endpoint": "AWS default endpoints"
        }


def test_the_report_names_the_endpoint_url_without_credentials() -> None:
    assert AwsClients("us-east-1", endpoint_url="https://ci:token@proxy.example.com:8443/aws").endpoint == (
        "https://proxy.example.com:8443/aws"
    )
    assert AwsClients("us-east-1").endpoint == "AWS default endpoints"
