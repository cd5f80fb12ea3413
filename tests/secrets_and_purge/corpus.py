"""The false-positive corpus: ten real-looking secrets of different types and thirty ordinary engineering
memories. Each secret is built from pieces here, so no scanner finds one as a literal in the repository;
none of them is a live credential."""

from __future__ import annotations


def _join(*pieces: str) -> str:
    return "".join(pieces)


SECRETS: dict[str, str] = {
    "aws-key": _join("Deploy failed: the runner used AWS key AK", "IA", "QYLPMN5HHHFPZAM2", " from the old profile"),
    "github-token": _join("CI clones with gh", "p_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", " (rotate it)"),
    "slack-token": _join("Alerts post with xo", "xb-", "263594206564-2343594206574-", "FGqddMF8t08v8N7Oq4i57vs1"),
    "stripe-key": _join("billing tests hit sk", "_live_", "51H8aQ2KZ9xq0ZJtRkL3mN4pQ"),
    "private-key": _join(
        "deploy key:\n-----BEGIN RSA ",
        "PRIVATE KEY-----\n",
        "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n",
        "-----END RSA ",
        "PRIVATE KEY-----\nstored in the vault now",
    ),
    "jwt": _join(
        "the failing request sent Authorization: Bearer ey",
        "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ),
    "url-password": _join("staging DSN is postgresql://app:", "Wq9rT", "2vLx8", "@db.staging.internal:5432/app"),
    "password": _join('settings.py had DB_PASSWORD = "', "Tr0ub4dor", "&3xyz", '" committed by mistake'),
    "sendgrid-api-key": _join(
        "mail relay key S", "G.", "ngeVfQFYQlKU0ufo8x5d1A", ".", "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"
    ),
    "high-entropy": _join('config.json: {"signing_salt": "', "kR8f2Lq9ZxV3mW7pT1nB5cH4jD6gY0sA", '"}'),
}
"""Type the detector should report → a memory that holds one such secret."""

ORDINARY: list[str] = [
    "Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b; the regression came from the cache refactor.",
    'Pin the base image by digest: "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".',
    "Request 123e4567-e89b-12d3-a456-426614174000 timed out after the pool was exhausted.",
    'package-lock: "integrity": "sha512-Vx0V8wHvDkH0u7nA9q2tR+W5yP3zLmNcQaBsFgJhKiLoPuYtReWqAsDfGhJkLzXcVbNm=="',
    "Use ${HOME}/.config/mneme/config.toml, never a path under /root.",
    '```python\nFIXTURE = "ZGV0ZXJtaW5pc3RpYyB0ZXN0IGZpeHR1cmUgZm9yIHRoZSBwYXJzZXI="\n```\nDecode it in the parser test.',
    "The password field must be validated on the server as well as in the form.",
    "token = None after logout; the middleware must not reuse the old session.",
    "Read the API key from os.environ['STRIPE_API_KEY'], never from settings.py.",
    "Set PGPASSWORD=$PGPASSWORD in the job env, the runner injects it.",
    "peewee keeps one connection per thread: open one in each worker with connection_context().",
    "git rebase -i HEAD~3 then force-push with --force-with-lease, not --force.",
    "The wheel must carry styles/: hatch force-include, checked by test_packaging.",
    "Run alembic upgrade head before the app starts; the entrypoint does it.",
    "SQLite WAL mode with busy_timeout=5000 stops the 'database is locked' errors under two writers.",
    'Poetry lock hash: content-hash = "d41d8cd98f00b204e9800998ecf8427e"',
    "Docker layer a3ed95caeb02ffe68cdd9fd84406680ae93d633cb16422d00e8a7c22955b46d4 is the shared base.",
    "Connection string format: postgresql://user:${DB_PASSWORD}@localhost:5432/app",
    "Build id 20261201.7 failed on the arm64 runner; x86_64 passed.",
    "Base64 of 'hello world' is aGVsbG8gd29ybGQ= — the fixture compares against it.",
    "The JWT middleware rejects tokens whose exp is in the past; test with a fixed clock.",
    "Redis key pattern: session:{user_id}:{uuid4}; expire after 3600 seconds.",
    "ssh-keygen -t ed25519 -C ci@example.com, then add the public key to the deploy keys.",
    "The AWS region is eu-west-1; the bucket name is mneme-artifacts-prod.",
    "Set the secret in GitHub Actions as secrets.PYPI_TOKEN and reference it in the publish job.",
    "Checksums: md5 9e107d9d372bb6826bd81d3542a419d6, sha1 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12.",
    "Migration 0042_add_index_on_created_at runs in 3 minutes on the production copy.",
    "Version bump 1.4.2 → 1.5.0: the changelog lists the breaking flag rename.",
    "Vendored semver regex: ^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)$",
    "The CSP header needs 'nonce-r4nd0m' replaced per request by the template engine.",
]
"""Ordinary engineering memories: none of them must be reported."""
