"""AWS's own limits are checked when the declaration is validated, not halfway through `pulumi up`:
the region exists (botocore's endpoint data), the stack file's `aws:region` agrees with the
declaration, and tags keep to AWS's count, length, character and reserved-prefix rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.clouds.aws import catalog as aws_catalog
from accelplane.clouds.aws.declaration_checks import COMPONENT_TAGS
from accelplane.config.loader import load_stack, load_stack_file
from accelplane.errors import InputError
from accelplane.program import offline_graph
from tests.support.stack_files import write_variant


def _messages(path: Path) -> list[str]:
    with pytest.raises(InputError) as caught:
        load_stack_file(path)
    return [str(p) for p in caught.value.problems]


def test_a_stack_file_region_differing_from_the_declaration_is_refused(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "  aws:region: us-east-1\n", "  aws:region: eu-west-1\n")
    assert _messages(path) == [
        f"{path}:{line}: config.aws:region: 'eu-west-1' differs from the declaration's 'us-east-1': "
        "remove `aws:region` or make the two agree"]


def test_an_unknown_region_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "    region: us-east-1\n", "    region: us-east-7\n")
    text = path.read_text().replace("aws:region: us-east-1", "aws:region: us-east-7").replace("us-east-1", "us-east-7")
    path.write_text(text)
    messages = [m for m in _messages(path) if "accelplane:platform.region:" in m]
    assert len(messages) == 1 and messages[0].startswith(f"{path}:{line}:")
    assert "unknown AWS region 'us-east-7': EKS has no endpoint there" in messages[0] and "us-east-1" in messages[0]


def test_known_regions_cover_every_partition() -> None:
    regions = aws_catalog.eks_regions()
    assert "us-east-1" in regions["aws"] and "us-gov-west-1" in regions["aws-us-gov"]
    assert "cn-north-1" in regions["aws-cn"]


def _with_extra_tags(tmp_path: Path, tags: dict[str, str]) -> Path:
    extra = "".join(f'        "{key}": "{value}"\n' for key, value in tags.items())
    path, _ = write_variant(tmp_path, "      cost_centre: ", "      extra:\n" + extra + "      cost_centre: ")
    return path


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        ({"aws:created-by": "me"}, "tag key 'aws:created-by': the aws: prefix is reserved"),
        ({"AWS:Team": "me"}, "tag key 'AWS:Team': the aws: prefix is reserved"),
        ({"k" * 129: "v"}, "tag key is 129 characters long; AWS allows 128"),
        ({"team": "v" * 257}, "tag value of 'team' is 257 characters long; AWS allows 256"),
        ({"team": "a;b"}, "tag 'team': AWS allows letters, digits, spaces and _ . : / = + - @ only"),
        ({"équipe": "données ml"}, None),  # letters of any language and spaces are allowed
    ],
)
def test_tag_rules(tmp_path: Path, tags: dict[str, str], expected: str | None) -> None:
    path = _with_extra_tags(tmp_path, tags)
    if expected is None:
        load_stack_file(path)
        return
    messages = _messages(path)
    assert len(messages) == 1 and "accelplane:platform.tags.extra" in messages[0] and expected in messages[0]


def test_the_tag_count_leaves_room_for_the_platform_s_own_tags(tmp_path: Path) -> None:
    limits = aws_catalog.tag_limits()
    room = limits["max_tags"] - COMPONENT_TAGS - 4  # platform, environment, owner, cost-centre
    load_stack_file(_with_extra_tags(tmp_path, {f"t{i}": "v" for i in range(room)}))
    messages = _messages(_with_extra_tags(tmp_path, {f"t{i}": "v" for i in range(room + 1)}))
    assert len(messages) == 1 and f"{room + 1} tags, but AWS allows 50 per resource" in messages[0]


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_components_add_at_most_component_tags_to_the_platform_s(stack: str) -> None:
    """What `COMPONENT_TAGS` promises the tag-count check, measured on every resource the program creates."""
    platform = load_stack(stack).platform
    graph = offline_graph(load_stack(stack))
    added = [len(set(r.inputs["tags"]) - set(platform.resource_tags)) for r in graph.resources
             if isinstance(r.inputs.get("tags"), dict) and r.type.startswith("aws:")]
    assert added and max(added) <= COMPONENT_TAGS
    assert max(added) == COMPONENT_TAGS  # the constant is no larger than it needs to be
