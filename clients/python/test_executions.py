"""Tests of the result digest an execution report carries (countersign.executions)."""

from __future__ import annotations

import decimal
import hashlib
import os
import sys
import unittest
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402
from countersign.executions import error_class_name, format_finished_at, result_value  # noqa: E402

# The salt of docs/api.md's example.
SALT = "q3Jm1f0bP6yK2m9cVwX4dA7sLhE8uTzR5nYoGiCkQpU"

# Computed with Node.js: "sha256:" + sha256(salt + "." + canonicalize(value)) (the npm canonicalize
# package, RFC 8785), independently of this package's canonical JSON.
NODE_VECTORS = [
    (
        {"refunded": 10, "order": "A-1", "note": "café €", "ratio": 0.1, "big": 1e21, "ok": True, "none": None,
         "items": [1, "two", {"three": 3}]},
        "sha256:99907a65212687841b7f713f29531dceb07fbd21c83cab6c1aa3891cacd54f8d",
    ),
    (None, "sha256:6f81d2753ba935d00781e0f692d9b0faff137f1c29a2a327602a5d41ab9abe04"),
    ("done", "sha256:40e68310f7af296e104a4257411511f93c4645daef6ac7569cbaea4cc97497c6"),
]
NODE_ERROR_VECTOR = "sha256:be4d8019c7a487544db455d6b2b1248961c1df7a1a524aae64205d73fc986300"  # {"error":"PaymentDeclined"}


class PaymentDeclined(Exception):
    pass


class ResultDigestTests(unittest.TestCase):
    def test_matches_node_on_json_values(self):
        for value, digest in NODE_VECTORS:
            self.assertEqual(cs.result_digest(value, SALT), digest, value)
        # A tuple is an array; key order does not matter.
        self.assertEqual(cs.result_digest(("x", 1), SALT), cs.result_digest(["x", 1], SALT))
        self.assertEqual(cs.result_digest({"b": 1, "a": 2}, SALT), cs.result_digest({"a": 2, "b": 1}, SALT))

    def test_an_error_digests_its_class_name_whatever_the_result(self):
        self.assertEqual(cs.result_digest(None, SALT, error=PaymentDeclined("AC-1 declined")), NODE_ERROR_VECTOR)
        self.assertEqual(cs.result_digest({"partial": 1}, SALT, error=PaymentDeclined()), NODE_ERROR_VECTOR)
        self.assertEqual(cs.result_digest(None, SALT, error="PaymentDeclined"), NODE_ERROR_VECTOR)
        self.assertEqual(error_class_name(KeyError("k")), "KeyError")

    def test_the_salt_matters_and_must_be_an_args_salt(self):
        other = cs.new_args_salt()
        self.assertNotEqual(cs.result_digest("done", other), cs.result_digest("done", SALT))
        self.assertEqual(cs.result_digest("done", other),
                         "sha256:" + hashlib.sha256(f'{other}."done"'.encode()).hexdigest())
        for bad in ("", "short", SALT + "=", None):
            with self.assertRaises(ValueError):
                cs.result_digest("done", bad)  # type: ignore[arg-type]

    def test_values_without_a_json_form_become_their_string_form(self):
        when = datetime(2026, 11, 30, 9, 20, tzinfo=timezone.utc)
        self.assertEqual(result_value(when), str(when))
        self.assertEqual(result_value(decimal.Decimal("1.10")), "1.10")
        self.assertEqual(result_value({1, 2} - {2}), "{1}")
        self.assertEqual(result_value([float("nan"), float("inf"), -float("inf"), 2**53, 2**53 - 1]),
                         ["NaN", "Infinity", "-Infinity", "9007199254740992", 2**53 - 1])
        self.assertEqual(result_value({1: "a", None: "b", False: "c", 1.5: "d"}),
                         {"1": "a", "null": "b", "false": "c", "1.5": "d"})
        self.assertEqual(result_value({"text": "a\ud800b"}), {"text": "a\ufffdb"})
        loop: list = []
        loop.append(loop)
        self.assertEqual(result_value(loop), ["[[...]]"])

        class Broken:
            def __str__(self) -> str:
                raise RuntimeError("no")

        self.assertEqual(result_value(Broken()), "<Broken>")
        # Never raises, so a result can always be reported.
        deep: list = []
        cursor = deep
        for _ in range(5000):
            cursor.append([])
            cursor = cursor[0]
        self.assertRegex(cs.result_digest(deep, SALT), r"\Asha256:[0-9a-f]{64}\Z")
        self.assertEqual(cs.result_digest(when, SALT), cs.result_digest(str(when), SALT))

    def test_finished_at(self):
        moment = datetime(2026, 11, 30, 10, 20, 14, 210987, tzinfo=timezone(timedelta(hours=1)))
        self.assertEqual(format_finished_at(moment), "2026-11-30T09:20:14.210Z")
        self.assertRegex(format_finished_at(), r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")
        with self.assertRaises(ValueError):
            format_finished_at(datetime(2026, 11, 30, 9, 20))


if __name__ == "__main__":
    unittest.main()
