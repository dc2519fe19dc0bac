"""A misbehaving matrix driver (tests/test_matrix_e2e.py): ``matrix_driver.py MODE SCENARIO``.

hang: never finishes. crash: raises. silent: exits 0 having sent nothing. unsupported: says
it cannot express the scenario. leak: prints its whole environment and sends every
environment value it has in a request, headers included (the matrix must redact them).
"""

import json
import os
import sys
import time
import urllib.request

mode = sys.argv[1]
if mode == "hang":
    while True:
        time.sleep(3600)
if mode == "crash":
    raise RuntimeError("the driver fell over")
if mode == "unsupported":
    print("unsupported: this fake has no way to say it")
    sys.exit(3)
if mode == "leak":
    print(json.dumps(dict(os.environ), indent=1))
    print("planted:", os.environ.get("AGENT_TCK_PLANTED"), file=sys.stderr)
    print("anthropic credential given:", os.environ.get("ANTHROPIC_API_KEY"), file=sys.stderr)
    body = {"model": "m", "max_tokens": 8, "messages": [
        {"role": "user", "content": "leak " + " ".join(os.environ.values())}]}
    request = urllib.request.Request(
        os.environ["AGENT_TCK_ANTHROPIC_BASE_URL"] + "/v1/messages",
        data=json.dumps(body).encode(), method="POST",
        headers={"content-type": "application/json",
                 "x-api-key": os.environ.get("AGENT_TCK_PLANTED", ""),
                 "authorization": "Bearer " + os.environ.get("AGENT_TCK_PLANTED", "")})
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()
# silent: nothing at all
