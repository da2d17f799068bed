"""The content check's pure decision: high-confidence key and token shapes, nothing looser."""

from __future__ import annotations

import pytest

from oraculum.archive.content import CONTENT_REASON, content_exclusion_reason

BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 2
TOKEN36 = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.mark.parametrize(
    ("text", "what"),
    [
        (f"-----BEGIN PRIVATE KEY-----\n{BODY}\n-----END PRIVATE KEY-----\n", "private key"),
        (f"-----BEGIN OPENSSH PRIVATE KEY-----\n{BODY}\n", "private key"),
        (
            f"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n"
            f"\n{BODY}\n",
            "private key",
        ),
        (f"intro\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{BODY}\n", "private key"),
        ('{"type": "service_account", "private_key": "-----BEGIN', "service-account key"),
        (f"token: ghp_{TOKEN36}\n", "GitHub token"),
        (f"GH=gho_{TOKEN36}", "GitHub token"),
        ("github_pat_" + "a" * 82, "GitHub token"),
        ("glpat-abcdefghij0123456789", "GitLab token"),
        ("xoxp-123456789012-abcdefghijkl", "Slack token"),
        ("sk-ant-api03-" + "Z" * 40, "Anthropic API key"),
        ("sk-proj-" + "Z" * 48, "OpenAI API key"),
        ("sk_live_" + "a1" * 12, "Stripe secret key"),
        (f"npm_{TOKEN36}", "npm token"),
        ("pypi-AgEIcHlwaS5vcmc" + "x" * 60, "PyPI token"),
        (
            "id=AKIAIOSFODNN7EXAMPLE\nsecret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "AWS access key",
        ),
        ("PrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n", "WireGuard private key"),
    ],
)
def test_credential_shapes_are_found(text: str, what: str) -> None:
    assert content_exclusion_reason(text.encode()) == CONTENT_REASON + what
    # The writer hands over a view of its buffer, not a copy.
    assert content_exclusion_reason(memoryview(bytearray(text.encode()))) == CONTENT_REASON + what


@pytest.mark.parametrize(
    "text",
    [
        "",
        "print('hello')\n",
        'HEADER = "-----BEGIN PRIVATE KEY-----"\n',  # quoted in code: no body
        "-----BEGIN PUBLIC KEY-----\n" + BODY + "\n",
        "-----BEGIN CERTIFICATE-----\n" + BODY + "\n",
        '{"type": "service_account", "client_email": "x"}',  # no private key in it
        "tokens start with ghp_ or github_pat_",
        f"my_ghp_{TOKEN36}",  # inside a longer identifier
        f"ghp_{TOKEN36}xyz",  # longer than a token
        "AKIAIOSFODNN7EXAMPLE alone",
        "PrivateKey = (generated at boot)\n",
        "xoxb-",
    ],
)
def test_mentions_and_neighbours_are_not_credentials(text: str) -> None:
    assert content_exclusion_reason(text.encode()) is None
