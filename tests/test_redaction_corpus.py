"""Secrets never reach an artifact: a corpus of secret shapes through every artifact and stream.

The corpus (docs/RELIABILITY.md, "Redaction guarantees") is planted in every place a capture can
carry it: request headers, the URL (user-info and query), the transport error string, JSON body
fields, text inside bodies. ``agent-tck audit --read`` then writes audit.json, results.jsonl,
junit.xml, summary.md, report.html and badges, prints to stdout (text and ``--format json``) and
stderr; no secret may appear in any of them, and each kind stays recognisable as redacted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.cli import main
from agent_tck.harness.reports.redact import redact, redact_text

#: one value per shape; each is unique so a leak names its shape
CORPUS = {
    "anthropic": "sk-ant-api03-CORPUSanthropicKEY0123456789",
    "openai": "sk-proj-CORPUSopenaiKEY0123456789abcdef",
    "bearer": "CORPUSbearerTOKEN.0123456789",
    "x-api-key": "CORPUSxapikeyVALUE42",
    "cookie": "session=CORPUScookieVALUE42",
    "userinfo": "CORPUSuser:CORPUSpassword42",
    "query-key": "CORPUSqueryKEY42",
    "query-token": "CORPUSqueryTOKEN42",
    "query-password": "CORPUSqueryPASSWORD42",
    "query-sig": "CORPUSquerySIG42",
    "amz-credential": "AKIAIOSFODNN7CORPUS1",
    "amz-signature": "CORPUSamzSIGNATURE42",
    "aws-key-id": "AKIAZZZZCORPUS000042",
    "json-api-key": "CORPUSjsonAPIKEY42",
    "json-password": "CORPUSjsonPASSWORD42",
    "json-secret": "CORPUSjsonCLIENTSECRET42",
    "github": "ghp_CORPUS0123456789abcdefghijklmnopqrstu",
    # issue 26 item 7
    "github-pat": "github_pat_11CORPUS0123456789abcd_efghijklmnopqrstuvwxyz0123456789ABCDEFGHI",
    "slack-bot": "xoxb-1234567890-CORPUSslackBOT42",
    "slack-user": "xoxp-1234567890-CORPUSslackUSER42",
    "fragment-token": "CORPUSfragmentTOKEN42",
    "fragment-key": "CORPUSfragmentKEY42",
    "free-token": "CORPUSfreeTOKEN42",
    "spaced-api-key": "CORPUSspacedKEY42",
}


def leaks(text: str) -> list[str]:
    return [shape for shape, secret in CORPUS.items()
            if secret in text or secret.split(":")[-1] in text or secret.split("=")[-1] in text]


def planted_capture(tmp_path: Path) -> Path:
    c = CORPUS
    url = (f"https://{c['userinfo']}@api.anthropic.com/v1/messages?key={c['query-key']}"
           f"&token={c['query-token']}&password={c['query-password']}&sig={c['query-sig']}"
           f"&X-Amz-Credential={c['amz-credential']}/20260101&X-Amz-Signature="
           f"{c['amz-signature']}#access_token={c['fragment-token']}")
    body = {"model": "m", "api_key": c["json-api-key"], "password": c["json-password"],
            "metadata": {"client_secret": c["json-secret"]},
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": f"keys {c['anthropic']} {c['openai']} {c['aws-key-id']} "
                                         f"{c['github']} {c['github-pat']} {c['slack-bot']} "
                                         f"{c['slack-user']} https://h/cb#key="
                                         f"{c['fragment-key']}"},
                {"type": "thinking", "thinking": "t"}]}]}
    headers = [["authorization", f"Bearer {c['bearer']}"], ["x-api-key", c["x-api-key"]],
               ["cookie", c["cookie"]]]
    records = [
        # answered: findings (BO-001) quote pointers, URL and description
        {"method": "POST", "url": url, "request": {"headers": headers, "body": body},
         "response": {"status": 200, "headers": {"set-cookie": c["cookie"],
                                                 "content-type": "application/json"},
                      "body": {"type": "message", "content": [
                          {"type": "text", "text": f"echo {c['anthropic']}"}]}}},
        # a transport error string holding the URL with user-info and query
        {"method": "POST", "url": url, "request": {"headers": headers, "body": body},
         "response": None, "error": f"connect to {url} failed (Bearer {c['bearer']}); "
                                    f"token={c['free-token']} sent x-api-key "
                                    f"{c['spaced-api-key']}"},
        # a request the audit cannot read: the note names the URL
        {"method": "POST", "url": url, "request": {"headers": headers,
                                                   "body_text": '{"model": ' + "[" * 300
                                                   + "]" * 300 + "}"}},
        # a damaged line quoting a key: a capture-level note
        "{" + f'"method": "POST", "url": "{url}", "oops": Bearer {c["bearer"]}',
    ]
    path = tmp_path / "planted.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records)
                    + "\n")
    return path


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_secret_of_the_corpus_reaches_any_artifact_or_stream(
        fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "out"
    code = main(["audit", "--read", str(planted_capture(tmp_path)), "--report-dir",
                 str(out_dir), "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 1  # BO-001 findings and an errored request: the audit did run
    artifacts = {p.relative_to(out_dir).as_posix(): p.read_text(encoding="utf-8")
                 for p in out_dir.rglob("*") if p.is_file()}
    assert {"audit.json", "results.jsonl", "junit.xml", "summary.md", "report.html"} <= set(
        artifacts)
    artifacts["stdout"], artifacts["stderr"] = out, err
    found = {name: leaks(text) for name, text in artifacts.items() if leaks(text)}
    assert found == {}
    # ... and what was there stays visible as redacted, with the URL still readable
    assert "api.anthropic.com/v1/messages" in artifacts["audit.json"]
    assert "[REDACTED:" in artifacts["audit.json"] and "[REDACTED:" in artifacts["results.jsonl"]


@pytest.mark.parametrize(("text", "secret"), [
    ("x-api-key: abcdefgh12345", "abcdefgh12345"),
    ('{"Authorization": "Basic dXNlcjpwYXNz"}', "dXNlcjpwYXNz"),
    ("Cookie: a=b; session=zzz", "session=zzz"),
    ("GET https://h/p?api_key=zzz123&x=1", "zzz123"),
    ("GET https://h/p?access_token=zzz123", "zzz123"),
    ("https://h/o?X-Amz-Security-Token=tok123&X-Goog-Signature=sig456", "tok123"),
    ("https://h/o?X-Amz-Security-Token=tok123&X-Goog-Signature=sig456", "sig456"),
    ("form: user=a&password=hunter2", "hunter2"),
    ('log: {"password": "hunter2", "user": "a"}', "hunter2"),
    ("db_password: hunter2, host: db", "hunter2"),
    ('quoted {\\"client_secret\\": \\"cs-123\\"}', "cs-123"),
    ("ssh://git:pa55word@example.org/repo", "pa55word"),
    ("temporary ASIAZZZZ1234567890AB in a log", "ASIAZZZZ1234567890AB"),
    ("google AIzaSyA1234567890abcdefghijklmnopqrstu", "AIzaSyA1234567890abcdefghijklmnopqrstu"),
    # issue 26 item 7, one a shape (docs/RELIABILITY.md lists exactly these)
    ("https://app.example/cb#access_token=ya29.frag123&token_type=bearer", "ya29.frag123"),
    ("https://app.example/cb#key=fragKEY123", "fragKEY123"),
    ("https://h/p?x=1#state=s&id_token=eyJfrag.x", "eyJfrag.x"),
    ("fine github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
     "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"),
    ("oauth gho_0123456789abcdefghijklmnopqrstuvwxyz", "gho_0123456789abcdefghijklmnopqrstuvwxyz"),
    ("bot xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "xoxb-123456789012-1234567890123"),
    ("user xoxp-1234567890-0987654321-abcdefabcdef", "xoxp-1234567890-0987654321"),
    ("connect failed: token=tok123abc rejected", "tok123abc"),
    ("retry with access_token=acc123abc and refresh_token=ref123abc", "acc123abc"),
    ("retry with access_token=acc123abc and refresh_token=ref123abc", "ref123abc"),
    ("sent api_key=ak123abc in the form", "ak123abc"),
    ("request sent x-api-key abc123defghi to the host", "abc123defghi"),
    ("upstream said: Authorization Bearer abc123defgh is expired", "abc123defgh"),
    ("header api-key key-0123456789 refused", "key-0123456789"),
    ("proxy-authorization: Basic cHJveHk6cGFzcw==", "cHJveHk6cGFzcw=="),
    ("set-cookie: sid=abc123; Path=/", "sid=abc123"),
    ("passwd: hunter2 at login", "hunter2"),
    ("webhook secret: whsec123, retry", "whsec123"),
    ("x-amz-security-token: IQoJb3JpZ2luX2VjE, region", "IQoJb3JpZ2luX2VjE"),
    ('{"id_token": "eyJhbGciOi.x.y"}', "eyJhbGciOi.x.y"),
    # a key right after a JSON string escape (a reply's text in a transcript)
    ('{"message": "line one\\nsk-ant-api03-abcdefghijklmnop"}', "abcdefghijklmnop"),
    ('{"message": "x\\u001bBearer abcdefghijklmnop"}', "abcdefghijklmnop"),
    ('{"message": "x\\nAKIAIOSFODNN7EXAMPLE"}', "AKIAIOSFODNN7EXAMPLE"),
    ('{"message": "x\\npassword=hunter2x"}', "hunter2x"),
    ('{"message": "x\\ncookie: a=b"}', "a=b"),
])
def test_each_shape_is_redacted_in_text(text: str, secret: str) -> None:
    assert secret not in redact_text(text)
    assert secret not in redact_text(text, salt=b"s")
    assert redact_text(redact_text(text, salt=b"s"), salt=b"s") == redact_text(text, salt=b"s")


@pytest.mark.parametrize("field", ["api_key", "OPENAI_API_KEY", "password", "db_password",
                                   "client_secret", "access_token", "refresh_token", "token",
                                   "aws_secret_access_key", "private_key", "x-api-key"])
def test_secret_fields_inside_json_bodies_are_redacted(field: str) -> None:
    doc: Any = {"outer": [{field: "VALUE-123456", "keep": "visible"}]}
    assert redact(doc) == {"outer": [{field: "[REDACTED]", "keep": "visible"}]}


@pytest.mark.parametrize("text", [
    "max_tokens=5 and input_tokens: 7", "risk-free task-list", "mailto a@b.example",
    "git@github.com:owner/repo", "AKIA is a prefix", "https://example.org/p?model=m&stream=true",
    "the key=value pair idea",
    # rule ids, seq numbers, JSON pointers, console words must survive (issue 26 item 7)
    "BO-001 IHU-D003 seq 12 at /messages/0/content/1 and #/expected_failures/3/case",
    "the x-api-key header is missing", "x-api-key required here", "Authorization is not set",
    "tokenizer=bpe next_token=abc page#section=intro max_tokens=5", "hash #key point",
    "xoxb- alone", "github_pat_short", "line one\\nsecond line",
    "not JSON: unexpected token: '}' at column 3",
])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize("field", ["max_tokens", "input_tokens", "output_tokens", "tokens",
                                   "secretary", "keyword"])
def test_ordinary_fields_are_left_alone(field: str) -> None:
    assert redact({field: "v"}) == {field: "v"}


def test_no_secret_of_the_corpus_reaches_a_run_s_report_files(tmp_path: Path) -> None:
    """The runner's artifacts (results.jsonl and every view rendered from it) go through the
    same redaction: the corpus planted in a case's message, transcript, input and output."""
    from reports_sample_runs import case, footer, header

    from agent_tck.harness.reports import write_all

    c = CORPUS
    url = (f"https://{c['userinfo']}@h/p?key={c['query-key']}&token={c['query-token']}"
           f"&password={c['query-password']}&sig={c['query-sig']}&X-Amz-Credential="
           f"{c['amz-credential']}&X-Amz-Signature={c['amz-signature']}")
    text = "\n".join([  # one shape a line: each rule must catch its own
        f"keys {c['anthropic']} {c['openai']} {c['aws-key-id']} {c['github']}",
        f"more {c['github-pat']} {c['slack-bot']} {c['slack-user']}",
        f"https://h/cb#access_token={c['fragment-token']} https://h/cb#key={c['fragment-key']}",
        f"transport: token={c['free-token']} sent x-api-key {c['spaced-api-key']}",
        f"Bearer {c['bearer']}", f"x-api-key: {c['x-api-key']}", f"Cookie: {c['cookie']}",
        f'body {{"api_key": "{c["json-api-key"]}", "password": "{c["json-password"]}", '
        f'"client_secret": "{c["json-secret"]}"}}'])
    cases = [case(1, "planted", ["BO-001"], "errored",
                  message=f"adapter crashed: connect to {url} ({text})",
                  transcript=[f"stderr: {text}", f"> POST {url}",
                              f"authorization: Bearer {CORPUS['bearer']}"],
                  input={"api_key": CORPUS["json-api-key"], "url": url,
                         "nested": {"password": CORPUS["json-password"]}},
                  actual={"output": {"client_secret": CORPUS["json-secret"], "note": text}})]
    write_all(tmp_path, [header(), *cases, footer(cases)])
    found = {p.name: leaks(p.read_text(encoding="utf-8")) for p in tmp_path.rglob("*")
             if p.is_file()}
    assert {name for name, shapes in found.items()} >= {"results.jsonl", "junit.xml",
                                                        "summary.md", "report.html"}
    assert {name: shapes for name, shapes in found.items() if shapes} == {}


# --- every name and prefix docs/RELIABILITY.md lists, one case each -----------------------

@pytest.mark.parametrize("token", [
    *(f"{prefix}ZZZZ1234567890AB" for prefix in ("AKIA", "ASIA", "ABIA", "ACCA", "AROA", "AIDA")),
    *(f"gh{kind}_0123456789abcdefghijklmnopqrstuvwxyz" for kind in "pousr"),
    "github_pat_11ABCDEFGHIJ0123456789_abcdefghij",
    *(f"xox{kind}-1234567890-abcdefghij" for kind in "abeoprs"),
    "AIzaSyA1234567890abcdefghijklmnopqrstu", "sk-ant-api03-abcdefghijk", "sk-proj-abcdefghijk",
])
def test_each_listed_key_shape(token: str) -> None:
    for text in (f"found {token} here", f'{{"m": "x\\n{token}"}}', f"x\\u001b{token}"):
        assert token not in redact_text(text), text
    assert redact_text(f"a{token}") == f"a{token}" or not token[0].isalnum()  # inside a word


@pytest.mark.parametrize("name", ["password", "passwd", "pwd", "secret", "client_secret", "token",
                                  "access_token", "refresh_token", "id_token", "auth_token",
                                  "api_key", "apikey", "aws_secret_access_key",
                                  "X-Amz-Credential", "X-Amz-Signature", "X-Amz-Security-Token",
                                  "X-Goog-Credential", "X-Goog-Signature"])
def test_each_listed_parameter_anywhere(name: str) -> None:
    assert "VALUE123" not in redact_text(f"failed: {name}=VALUE123 at host")
    assert "VALUE123" not in redact_text(f"https://h/p?a=1&{name}=VALUE123#f")


@pytest.mark.parametrize("name", ["key", "sig", "signature", "code", "auth"])
def test_each_listed_parameter_after_a_url_delimiter(name: str) -> None:
    for sep in "?&;#":
        assert "VALUE123" not in redact_text(f"https://h/p{sep}{name}=VALUE123")
    assert redact_text(f"the {name}=VALUE123 idea") == f"the {name}=VALUE123 idea"


@pytest.mark.parametrize("field", ["authorization", "proxy-authorization", "x-api-key", "api-key",
                                   "cookie", "set-cookie", "token", "id_token", "passwd", "pwd",
                                   "OPENAI_API_KEY", "apiKey", "db_password", "webhook_secret",
                                   "access_token", "refresh_token", "session_token",
                                   "security_token", "auth_token", "secret_access_key",
                                   "private_key"])
def test_each_listed_field_as_a_key_and_a_pair(field: str) -> None:
    assert redact({field: "VALUE123"}) == {field: "[REDACTED]"}
    assert redact([[field, "VALUE123"]]) == [[field, "[REDACTED]"]]


@pytest.mark.parametrize(("text", "secret"), [
    *((f"{name}: VALUE123 rest", "VALUE123") for name in (
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
        "OPENAI_API_KEY", "api_key")),
    *((f"{name}=VALUE123 rest", "VALUE123") for name in ("authorization", "cookie", "api-key")),
    *((f"{name}: VALUE123, rest", "VALUE123") for name in (
        "password", "passwd", "secret", "client_secret", "secret_access_key", "access_token",
        "refresh_token", "session_token", "security_token", "auth_token", "id_token",
        "private_key")),
    *((f"sent {name} VALUE123x now", "VALUE123x") for name in (
        "authorization", "proxy-authorization", "x-api-key", "api-key")),
    *((f"sent authorization {scheme} VALUE123x", "VALUE123x") for scheme in (
        "Basic", "Bearer", "Token", "Digest")),
])
def test_each_listed_field_in_text(text: str, secret: str) -> None:
    assert secret not in redact_text(text)
