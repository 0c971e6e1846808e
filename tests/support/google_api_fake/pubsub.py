"""Pub/Sub's `topics.create`, which is a PUT to the new topic's own name (`v1/{+name}`, body a Topic)
rather than a POST to its collection: the topic is made at that name, and a second create of the same
name is refused with 409 ALREADY_EXISTS as Pub/Sub does. Names follow the reference's rule: 3-255
characters, a letter first, not starting with `goog`."""

from __future__ import annotations

import copy
import re

from tests.support.google_api_fake.state import ApiError, Call, State
from tools import google_discovery as discovery

_TOPIC_ID = re.compile(r"[A-Za-z][A-Za-z0-9\-_.~+%]{2,254}")


def create_topic(state: State, call: Call) -> dict:
    api = discovery.load("pubsub", "v1")
    name = call.path.removeprefix("v1/")
    topic_id = name.rsplit("/topics/", 1)[-1]
    if not _TOPIC_ID.fullmatch(topic_id) or topic_id.startswith("goog"):
        raise ApiError(400, f"Invalid [topics] name: ({name})")
    key = state.key(api, call.path)
    if key in state.resources:
        raise ApiError(409, f"Resource already exists in the project (resource={topic_id}).")
    topic = {**copy.deepcopy(call.body or {}), "name": name}
    state.resources[key] = topic
    return copy.deepcopy(topic)


def install(fake) -> None:
    fake.handle("pubsub.projects.topics.create", create_topic)
