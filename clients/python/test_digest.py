"""Tests of the argument digest (countersign.digest): RFC 8785 canonical JSON,
args_digest and args_salt.

Run with: python3 -m unittest discover -s clients/python -p "test_*.py"

The digest vectors are those of lib/digest/args-digest.test.ts; the expected
digests were printed by the TypeScript implementation (lib/digest/args-digest.ts).
"""

from __future__ import annotations

import base64
import hashlib
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402


def from_bits(hex_bits: str) -> float:
    return struct.unpack(">d", bytes.fromhex(hex_bits))[0]


# (name, value, RFC 8785 text, digest printed by the TypeScript implementation)
SHARED_VECTORS = [
    (
        "key ordering",
        {"b": 2, "a": 1, "c": {"z": True, "y": None, "x": "s"}},
        '{"a":1,"b":2,"c":{"x":"s","y":null,"z":true}}',
        "sha256:b0a86d3cd96ac9d22431e4c3ab3f55bc5cbd691921b44446469d7259610ac84e",
    ),
    (
        "UTF-16 key ordering (RFC 8785 section 3.2.3)",
        {
            "\u20ac": "Euro Sign",
            "\r": "Carriage Return",
            "\ufb33": "Hebrew Letter Dalet With Dagesh",
            "1": "One",
            "\U0001f600": "Emoji: Grinning Face",
            "\u0080": "Control",
            "\u00f6": "Latin Small Letter O With Diaeresis",
        },
        '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",'
        '"\u20ac":"Euro Sign","\U0001f600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
        "sha256:5e321556d22018a9656991a9e94f77ec175fa193e52a2429d312f8419ec8b08c",
    ),
    (
        "string escapes",
        {"s": "quote\" backslash\\ slash/ nl\n tab\t bs\b ff\f cr\r nul\u0000 us\u001f del\u007f ls\u2028 é\U0001f600"},
        '{"s":"quote\\" backslash\\\\ slash/ nl\\n tab\\t bs\\b ff\\f cr\\r nul\\u0000 us\\u001f del\u007f ls\u2028 é\U0001f600"}',
        "sha256:9af4e622e19e7651109aba0f3a3d15c4ff09121a7630ce2c5f4eb851007a8c7e",
    ),
    (
        "numbers",
        {"big": 1e21, "negZero": -0.0, "tenth": 0.1, "small": 1e-7, "int": 10, "neg": -42, "max": 9007199254740991, "e20": 1e20},
        '{"big":1e+21,"e20":100000000000000000000,"int":10,"max":9007199254740991,"neg":-42,"negZero":0,"small":1e-7,"tenth":0.1}',
        "sha256:d1bc2f5614aa3b0851f249f52fc7c3c441350fe48aeda1ccbd309bd1eac421ea",
    ),
    (
        "nested",
        {
            "account": "AC-1",
            "amount": 10,
            "lines": [{"sku": "x", "qty": 2}, [], {}, [None, False, True, "", 0]],
            "meta": {"deep": {"deeper": {"deepest": ["ok"]}}},
        },
        '{"account":"AC-1","amount":10,"lines":[{"qty":2,"sku":"x"},[],{},[null,false,true,"",0]],'
        '"meta":{"deep":{"deeper":{"deepest":["ok"]}}}}',
        "sha256:66a17c453cf495c7e305b277956d9e811926b4e6759aad590da04b2f305f31e4",
    ),
    ("empty object", {}, "{}", "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"),
    (
        "contract example",
        {"account": "AC-1", "amount": 10},
        '{"account":"AC-1","amount":10}',
        "sha256:2fd173065f5e011e640da7fdb8188ffc8756856beb4e9126d627f44e3dd12bf9",
    ),
]

# RFC 8785 Appendix B number samples (IEEE-754 bits -> canonical text).
RFC_NUMBER_SAMPLES = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]

# Random doubles with the text Node.js (Number#toString) gave for them.
NODE_NUMBER_SAMPLES = [
    ("c338f139d8bc13ba", "-7020630192690106"),
    ("6ebcb6f1bdf61e47", "2.6571736737957384e+225"),
    ("8501ed46830d1a02", "-1.50694799385675e-284"),
    ("d90c4695569a8117", "-9.126870595737458e+120"),
    ("425356b15ec6c000", "332235373339"),
    ("4148e7516e6044ff", "3264162.8623129125"),
    ("6e50000000000000", "2.313432234973772e+223"),
    ("40bda858ab78a0ef", "7592.346366442957"),
    ("c3300d4aacb20782", "-4518214003459970"),
    ("584ecdf8ad6d9fcd", "2.4275241704826897e+117"),
    ("3ed4f5c5d16d7b21", "0.00000499726527078309"),
    ("277ee6bd7b807ec1", "1.9146917753948957e-118"),
    ("767863ef78987b46", "4.8001485156274066e+262"),
    ("b8c6f68ebbbbde19", "-3.4551055967335294e-35"),
    ("3e9421f5f40d8376", "3e-7"),
    ("3f89b75cee37ff03", "0.012556768436297277"),
    ("8bf484862c6590b1", "-4.477666198048497e-251"),
    ("608f0088e021822c", "1.330144156052933e+157"),
    ("3ec0d54fa5a0ba9d", "0.0000020066793640285673"),
    ("0280c7ea9a624aa4", "1.2829512003993785e-296"),
    ("72d3868670a7eec4", "1.3332095154645857e+245"),
    ("8eb5b4b8478bdd44", "-8.333395042324001e-238"),
]


class DigestTests(unittest.TestCase):
    def test_shared_vectors_canonical_text(self):
        for name, value, jcs, _ in SHARED_VECTORS:
            with self.subTest(name):
                self.assertEqual(cs.canonical_json(value), jcs)

    def test_shared_vectors_digest_matches_typescript(self):
        for name, value, _, digest in SHARED_VECTORS:
            with self.subTest(name):
                self.assertEqual(cs.args_digest(value), digest)

    def test_rfc8785_number_samples(self):
        for bits, text in RFC_NUMBER_SAMPLES:
            with self.subTest(bits):
                self.assertEqual(cs.canonical_json(from_bits(bits)), text)

    def test_numbers_match_node(self):
        for bits, text in NODE_NUMBER_SAMPLES:
            with self.subTest(bits):
                self.assertEqual(cs.canonical_json(from_bits(bits)), text)

    def test_number_forms(self):
        # Integers up to 2**53 - 1 (I-JSON, docs/security.md: the server refuses 2**53).
        self.assertEqual(cs.canonical_json([1e21, 1e20, -0.0, 0.1, 1e-7, 1e-6, 10.0, 2**53 - 1, -(2**53 - 1), 1.5]),
                         "[1e+21,100000000000000000000,0,0.1,1e-7,0.000001,10,9007199254740991,-9007199254740991,1.5]")

    def test_key_order_independent(self):
        self.assertEqual(cs.args_digest({"a": 1, "b": {"c": 2, "d": 3}}), cs.args_digest({"b": {"d": 3, "c": 2}, "a": 1}))

    def test_booleans_are_not_numbers_and_tuples_are_arrays(self):
        self.assertEqual(cs.canonical_json({"t": True, "f": False, "n": None, "a": (1, "x")}),
                         '{"a":[1,"x"],"f":false,"n":null,"t":true}')

    def test_rejects_unrepresentable_values(self):
        cyclic: dict = {}
        cyclic["self"] = cyclic
        cases = [
            ({"s": "\ud800"}, "lone-surrogate"),
            ({"s": "a\udc00b"}, "lone-surrogate"),
            ({"\ud800": 1}, "lone-surrogate"),
            ({"n": float("nan")}, "non-finite-number"),
            ({"n": float("inf")}, "non-finite-number"),
            ({"n": 2**53}, "integer-out-of-range"),
            ({"n": -(2**53)}, "integer-out-of-range"),
            ({"n": 2**53 + 1}, "integer-out-of-range"),
            ({1: "x"}, "not-representable"),
            ({"b": b"bytes"}, "not-representable"),
            ({"s": {1, 2}}, "not-representable"),
            (cyclic, "circular"),
        ]
        for value, reason in cases:
            with self.subTest(reason=reason, value=repr(value)[:40]):
                with self.assertRaises(cs.CanonicalJsonError) as ctx:
                    cs.args_digest(value)
                self.assertEqual(ctx.exception.reason, reason)

    def test_arguments_must_be_an_object(self):
        for value in ([], [1], "x", 1, None):
            with self.assertRaises(cs.CanonicalJsonError):
                cs.args_digest(value)  # type: ignore[arg-type]

    def test_digest_form(self):
        digest = cs.args_digest({"a": 1})
        self.assertRegex(digest, r"\Asha256:[0-9a-f]{64}\Z")


SALT = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"  # bytes 0..31, as in lib/digest/args-digest.test.ts


class SaltedDigestTests(unittest.TestCase):
    def test_shared_salted_vector(self):
        # The same vector lib/digest/args-digest.test.ts checks.
        self.assertEqual(cs.args_digest({"account": "AC-1", "amount": 10}, SALT),
                         "sha256:b0b3c4ecfeab4782474fa5d87626b3f1aefce1c45c4e464c3c6982423aa49061")

    def test_formula(self):
        for name, value, text, _digest in SHARED_VECTORS:
            with self.subTest(name):
                expected = "sha256:" + hashlib.sha256(f"{SALT}.{text}".encode("utf-8")).hexdigest()
                self.assertEqual(cs.args_digest(value, SALT), expected)
                self.assertNotEqual(cs.args_digest(value, SALT), cs.args_digest(value))

    def test_salt_shape(self):
        def of(n):
            return base64.urlsafe_b64encode(os.urandom(n)).decode().rstrip("=")
        for n in (16, 17, 18, 32, 63, 64):
            self.assertTrue(cs.is_args_salt(of(n)), n)
        for n in (0, 1, 15, 65, 100):
            self.assertFalse(cs.is_args_salt(of(n)), n)
        self.assertFalse(cs.is_args_salt(base64.urlsafe_b64encode(os.urandom(16)).decode()))  # padded
        self.assertFalse(cs.is_args_salt(of(32)[:-1] + "+"))
        self.assertTrue(cs.is_args_salt("A" * 22))
        self.assertFalse(cs.is_args_salt("A" * 21 + "B"))  # non-zero unused bits: not canonical
        for bad in (None, 42, "", " " * 22):
            self.assertFalse(cs.is_args_salt(bad))
        with self.assertRaises(ValueError):
            cs.args_digest({"a": 1}, "short")

    def test_new_salts_are_fresh(self):
        salts = {cs.new_args_salt() for _ in range(50)}
        self.assertEqual(len(salts), 50)
        for salt in salts:
            self.assertTrue(cs.is_args_salt(salt))
            self.assertEqual(len(base64.urlsafe_b64decode(salt + "=")), 32)


if __name__ == "__main__":
    unittest.main()
