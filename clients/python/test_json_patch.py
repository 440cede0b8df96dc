"""Tests of the JSON Patch subset (countersign.json_patch): RFC 6902's own
examples for add / remove / replace, RFC 6901 pointers, strict refusals that
name the operation, "__proto__" as an ordinary key, and an input that is never
changed. The same cases as the TypeScript client's json-patch tests."""

from __future__ import annotations

import copy
import json
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from countersign import JsonPatchError, apply_json_patch, format_json_pointer, parse_json_pointer  # noqa: E402


class JsonPointerTest(unittest.TestCase):
    def test_rfc_examples_and_escapes(self) -> None:
        self.assertEqual(parse_json_pointer(""), [])
        self.assertEqual(parse_json_pointer("/foo/0"), ["foo", "0"])
        self.assertEqual(parse_json_pointer("/a~1b"), ["a/b"])
        self.assertEqual(parse_json_pointer("/m~0n"), ["m~n"])
        self.assertEqual(parse_json_pointer("/"), [""])
        self.assertEqual(parse_json_pointer("/~01"), ["~1"])
        self.assertEqual(format_json_pointer(["a/b", "m~n", 3]), "/a~1b/m~0n/3")
        for bad in ("foo", "/a~2", "/a~"):
            with self.subTest(pointer=bad), self.assertRaises(ValueError):
                parse_json_pointer(bad)

    def test_round_trips_keys(self) -> None:
        rng = random.Random(6901)
        alphabet = "ab~/01-é😀"
        for _ in range(500):
            keys = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(4))) for _ in range(rng.randrange(4))]
            self.assertEqual(parse_json_pointer(format_json_pointer(keys)), keys)


class ApplyJsonPatchTest(unittest.TestCase):
    def test_rfc_6902_examples(self) -> None:
        cases = [
            ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"foo": "bar", "baz": "qux"}),
            ({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}], {"foo": ["bar", "qux", "baz"]}),
            ({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": "end"}], {"foo": ["bar", "end"]}),
            ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
            ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
            ({"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}], {"baz": "boo", "foo": "bar"}),
            ({"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
             {"foo": "bar", "child": {"grandchild": {}}}),
            ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
            # Operations apply in order, each to the result of the one before.
            ({"a": []}, [{"op": "add", "path": "/a/-", "value": {"b": 1}}, {"op": "replace", "path": "/a/0/b", "value": 2}],
             {"a": [{"b": 2}]}),
            # add on an existing member replaces it; a null value is a value.
            ({"a": 1}, [{"op": "add", "path": "/a", "value": None}], {"a": None}),
        ]
        for doc, patch, expected in cases:
            with self.subTest(patch=patch):
                self.assertEqual(apply_json_patch(doc, patch), expected)

    def test_refuses_what_cannot_be_applied_naming_the_operation(self) -> None:
        cases = [
            ({"a": 1}, [{"op": "replace", "path": "/b", "value": 1}], 0),
            ({"a": 1}, [{"op": "remove", "path": "/b"}], 0),
            ({"a": [1]}, [{"op": "replace", "path": "/a/1", "value": 1}], 0),
            ({"a": [1]}, [{"op": "add", "path": "/a/2", "value": 1}], 0),
            ({"a": [1]}, [{"op": "add", "path": "/a/01", "value": 1}], 0),
            ({"a": [1]}, [{"op": "add", "path": "/a/-1", "value": 1}], 0),
            ({"a": [1]}, [{"op": "remove", "path": "/a/-"}], 0),
            ({"a": 1}, [{"op": "add", "path": "/a/b", "value": 1}], 0),
            ({"a": "text"}, [{"op": "replace", "path": "/a/0", "value": 1}], 0),
            ({"a": 1}, [{"op": "remove", "path": ""}], 0),
            ({"a": 1}, [{"op": "add", "path": "a", "value": 1}], 0),
            ({"a": 1}, [{"op": "add", "path": "/b"}], 0),
            ({"a": 1}, [{"op": "replace", "path": "/a", "value": 2}, {"op": "move", "path": "/a", "from": "/b"}], 1),
            ({"a": 1}, [{"op": "add", "path": "/x", "value": 1}, {"op": "remove", "path": "/y"}], 1),
            ({"a": 1}, [{"op": "test", "path": "/a", "value": 1}], 0),
            ({"a": 1}, ["not an operation"], 0),
        ]
        for doc, patch, index in cases:
            with self.subTest(patch=patch):
                with self.assertRaises(JsonPatchError) as caught:
                    apply_json_patch(doc, patch)
                self.assertEqual(caught.exception.operation, index)

    def test_errors_never_quote_values(self) -> None:
        secret = "sk_live_do_not_print_0123456789"
        with self.assertRaises(JsonPatchError) as caught:
            apply_json_patch({"api_key": secret}, [{"op": "replace", "path": "/api_key/x", "value": secret}])
        self.assertNotIn(secret, str(caught.exception))

    def test_proto_is_an_ordinary_key(self) -> None:
        doc = json.loads('{"__proto__": {"x": 1}, "a": 1}')
        out = apply_json_patch(doc, [{"op": "replace", "path": "/__proto__/x", "value": 2}])
        self.assertEqual(json.dumps(out, separators=(",", ":")), '{"__proto__":{"x":2},"a":1}')
        added = apply_json_patch({}, [{"op": "add", "path": "/__proto__", "value": {"polluted": True}}])
        self.assertEqual(added, {"__proto__": {"polluted": True}})
        self.assertEqual(apply_json_patch(doc, [{"op": "remove", "path": "/__proto__"}]), {"a": 1})
        self.assertEqual(doc, {"__proto__": {"x": 1}, "a": 1})

    def test_never_changes_its_input(self) -> None:
        rng = random.Random(6902)

        def value(depth: int) -> object:
            kind = rng.randrange(6 if depth < 3 else 4)
            if kind == 0:
                return rng.randrange(-5, 5)
            if kind == 1:
                return rng.choice(["", "x", "é", None, True])
            if kind == 2:
                return 1.5
            if kind == 3:
                return "y"
            if kind == 4:
                return [value(depth + 1) for _ in range(rng.randrange(3))]
            return {rng.choice("abc~/"): value(depth + 1) for _ in range(rng.randrange(3))}

        for _ in range(300):
            doc = {rng.choice("abc~/"): value(0) for _ in range(1 + rng.randrange(3))}
            before = copy.deepcopy(doc)
            key = next(iter(doc))
            path = format_json_pointer([key])
            new = value(1)
            apply_json_patch(doc, [{"op": "replace", "path": path, "value": new}])
            apply_json_patch(doc, [{"op": "remove", "path": path}])
            apply_json_patch(doc, [{"op": "add", "path": "/new", "value": new}])
            inner = doc[key]
            if isinstance(inner, list):
                apply_json_patch(doc, [{"op": "add", "path": path + "/-", "value": 1}])
                if inner:
                    apply_json_patch(doc, [{"op": "remove", "path": path + "/0"}])
            if isinstance(inner, dict) and inner:
                sub = format_json_pointer([key, next(iter(inner))])
                apply_json_patch(doc, [{"op": "replace", "path": sub, "value": 0}])
            self.assertEqual(doc, before)


if __name__ == "__main__":
    unittest.main()
