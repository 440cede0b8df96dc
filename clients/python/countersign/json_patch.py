"""The part of JSON Patch (RFC 6902) that Countersign's revisions use.

A reviewer may answer a request with proposed changes: a list of ``add``,
``remove`` and ``replace`` operations whose paths are JSON Pointers (RFC 6901).
``apply_json_patch(doc, patch)`` applies them to the executor's own copy of the
arguments. It is strict -- an unknown operation, a missing member, an index
past the end, a malformed pointer all raise ``JsonPatchError`` naming the
operation -- and it never changes its input: the containers on each
operation's path are copied, everything else is shared with the input.

Keys are ordinary dictionary keys (``"__proto__"`` included). An array index
is ``0`` or a number without leading zeros; ``-`` (one past the end) is
accepted by ``add`` only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["JsonPatchError", "apply_json_patch", "format_json_pointer", "parse_json_pointer"]

_INDEX = re.compile(r"(?:0|[1-9][0-9]*)")
_BAD_ESCAPE = re.compile(r"~(?:[^01]|$)")
_OPS = ("add", "remove", "replace")


class JsonPatchError(ValueError):
    """An operation that cannot be applied; ``operation`` is its position in the patch.

    Messages name operations and paths, never values."""

    def __init__(self, message: str, operation: int) -> None:
        super().__init__(message)
        self.operation = operation


def parse_json_pointer(pointer: str) -> list[str]:
    """RFC 6901: ``""`` is the whole document; ``"/a~1b/c~0"`` is ``["a/b", "c~"]``."""
    if not isinstance(pointer, str):
        raise ValueError("a JSON Pointer is a string")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError("a JSON Pointer is empty or starts with /")
    segments = pointer[1:].split("/")
    for segment in segments:
        if _BAD_ESCAPE.search(segment):
            raise ValueError("~ in a JSON Pointer must be written ~0 or ~1")
    # ~1 first, then ~0: "~01" is "~1", not "/".
    return [segment.replace("~1", "/").replace("~0", "~") for segment in segments]


def format_json_pointer(segments: Iterable[str | int]) -> str:
    """The JSON Pointer of a path of keys and indices."""
    return "".join("/" + str(s).replace("~", "~0").replace("/", "~1") for s in segments)


def _is_object(value: Any) -> bool:
    return isinstance(value, Mapping)


def _is_array(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))


def _copy(node: Any) -> dict[str, Any] | list[Any]:
    return dict(node) if _is_object(node) else list(node)


def _index(segment: str, length: int, op: str) -> int:
    if op == "add" and segment == "-":
        return length
    if not _INDEX.fullmatch(segment):
        raise ValueError(f'"{segment}" is not an array index')
    index = int(segment)
    if index > length or (op != "add" and index == length):
        raise ValueError(f"index {index} is past the end of the array")
    return index


def _apply_one(doc: Any, op: str, path: str, value: Any) -> Any:
    segments = parse_json_pointer(path)
    if not segments:
        if op == "remove":
            raise ValueError("the whole document cannot be removed")
        return value
    if not (_is_object(doc) or _is_array(doc)):
        raise ValueError("the path goes through a value that is not an object or array")
    root = _copy(doc)
    parent: Any = root
    for segment in segments[:-1]:
        if isinstance(parent, list):
            key: Any = _index(segment, len(parent), "replace")
            child = parent[key]
        else:
            if segment not in parent:
                raise ValueError(f'no member "{segment}"')
            key, child = segment, parent[segment]
        if not (_is_object(child) or _is_array(child)):
            raise ValueError("the path goes through a value that is not an object or array")
        parent[key] = _copy(child)
        parent = parent[key]
    last = segments[-1]
    if isinstance(parent, list):
        index = _index(last, len(parent), op)
        if op == "add":
            parent.insert(index, value)
        elif op == "replace":
            parent[index] = value
        else:
            del parent[index]
    else:
        if op != "add" and last not in parent:
            raise ValueError(f'no member "{last}"')
        if op == "remove":
            del parent[last]
        else:
            parent[last] = value
    return root


def apply_json_patch(doc: Any, patch: Sequence[Mapping[str, Any]]) -> Any:
    """Applies ``patch`` to ``doc`` and returns the result; ``doc`` is not changed.

    Raises ``JsonPatchError`` naming the first operation that cannot be applied."""
    if not _is_array(patch):
        raise JsonPatchError("a JSON Patch is a list of operations", 0)
    current = doc
    for i, operation in enumerate(patch):
        op = operation.get("op") if _is_object(operation) else None
        if op not in _OPS:
            raise JsonPatchError(f"operation {i}: only add, remove and replace are used", i)
        path = operation.get("path")
        if not isinstance(path, str):
            raise JsonPatchError(f"operation {i} ({op}): the path is not a string", i)
        if op != "remove" and "value" not in operation:
            raise JsonPatchError(f"operation {i} ({op} {path}): the value is missing", i)
        try:
            current = _apply_one(current, op, path, operation.get("value"))
        except ValueError as error:
            raise JsonPatchError(f"operation {i} ({op} {path}): {error}", i) from None
    return current
