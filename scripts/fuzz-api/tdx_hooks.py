"""schemathesis hooks of the API fuzz run (test/fuzz/api-fuzz.ts loads them with
SCHEMATHESIS_HOOKS=tdx_hooks and this folder on PYTHONPATH).

Two rules of the API that an OpenAPI document cannot state as a schema, and that the document
states in words instead:

- GET /platform/edi_transactions: `direction` and `incoming` (kept for older code) must agree
  when both are given. Each parameter has its own schema, so a generator draws disagreeing
  pairs as valid data; they are not (400 naming `incoming`), and `filter_case` leaves them out
  (in every phase, the coverage phase included).
- `cursor` is opaque and signed: only a nextCursor the service returned is taken, so any string
  offered as one is refused with 400 `invalid_parameter` whatever its shape. The document says
  so; `filter_failure` drops exactly that refusal of a schema-valid request (the response must
  be the cursor's own error), and counts each in the file named by FUZZ_API_CURSOR_LOG.

And one workaround of the tools: deep inside a draw (the MCP message schema nests objects of
any JSON), hypothesis parses a source file to describe a strategy's lambda, and Python 3.11's
parser can raise SystemError ("AST constructor recursion depth mismatch") there, which
schemathesis reports as a flaky error of the operation. The description is only text for
messages, so a failure to build it gives a placeholder instead.
"""

import json
import os

import hypothesis.internal.lambda_sources as _lambda_sources
import schemathesis

_describe_lambda = _lambda_sources._lambda_description


def _lambda_description_or_placeholder(f, *args, **kwargs):
    try:
        return _describe_lambda(f, *args, **kwargs)
    except (SystemError, RecursionError):
        return "lambda: <unknown>"


_lambda_sources._lambda_description = _lambda_description_or_placeholder

INVALID_CURSOR = 'Query parameter "cursor" is not valid for this request'


@schemathesis.hook
def filter_case(context, case):
    query = case.query
    if case.operation.path != "/platform/edi_transactions" or not isinstance(query, dict):
        return True
    direction, incoming = query.get("direction"), query.get("incoming")
    if direction in ("inbound", "outbound") and incoming in ("true", "false"):
        return (direction == "inbound") == (incoming == "true")
    return True


def _refused_cursor(response):
    if response.status_code != 400:
        return False
    try:
        body = response.json()
    except Exception:  # noqa: BLE001 - not JSON: not the cursor's refusal
        return False
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and error.get("code") == "invalid_parameter" and str(error.get("message", "")).startswith(INVALID_CURSOR)


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if type(failure).__name__ != "RejectedPositiveData":
        return True
    query = case.query if isinstance(case.query, dict) else {}
    if "cursor" not in query or not _refused_cursor(response):
        return True
    log = os.environ.get("FUZZ_API_CURSOR_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"operation": case.operation.label, "cursor": str(query["cursor"])[:200]}) + "\n")
    return False
