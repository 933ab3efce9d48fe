"""The OpenAPI schema tells the truth: schemathesis fuzzes every route over real HTTP (operator
token included, so the writes run too) and checks that no answer is a 5xx and that every answer's
status, content type and body are the ones the schema documents."""
from __future__ import annotations

from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (content_type_conformance, not_a_server_error, response_schema_conformance,
                                 status_code_conformance)

from apiserver import AUTH, api, client, import_gcg, new_game  # noqa: F401  (fixtures)

# Examples per route and mode (valid, then invalid input): bounded so that the whole run stays
# well under a minute on 2 cores; derandomized, so that a failure seen in CI is seen again locally.
EXAMPLES = 10
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def games(client, shared_data) -> list[int]:
    """Games the fuzzer's ids can name: a fresh one and a whole imported game."""
    return [new_game(client), import_gcg(client, shared_data / "gcg" / "liwords" / "doug_vs_emely.gcg")]


def fuzz_operation(api, games, operation, mode: GenerationMode, tally: Counter) -> None:
    @FUZZ
    @given(case=operation.as_strategy(generation_mode=mode), known=st.sampled_from([None, 0, 1]))
    def run(case, known):
        # Most generated ids name no game; two in three cases name one that exists instead.
        params = case.path_parameters
        if known is not None and isinstance(params, dict) and isinstance(params.get("game_id"), int):
            params["game_id"] = games[known]
        response = case.call_and_validate(base_url=api.url, headers=AUTH, checks=CHECKS)
        tally[response.status_code] += 1
    run()


def test_schema_every_answer_is_documented(api, games):
    spec = schemathesis.openapi.from_url(f"{api.url}/openapi.json")
    tally: Counter = Counter()
    failures = []
    # Not the endless streams (SSE, MJPEG): routes/test_live.py and routes/test_media.py read those.
    operations = [op for op in (result.ok() for result in spec.get_all_operations())
                  if not op.path.endswith((".mjpg", "/events"))]
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                fuzz_operation(api, games, operation, mode, tally)
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # a route without inputs has no invalid ones
            except (Exception, BaseExceptionGroup) as exc:  # a failed check: report every route at the end
                failures.append(f"{operation.method.upper()} {operation.path} ({mode.value}): {exc}")
    print(f"\nschemathesis: {len(operations)} routes fuzzed, {sum(tally.values())} cases, "
          f"status codes {dict(sorted(tally.items()))}")
    assert not failures, "\n\n".join(failures)
    assert not [code for code in tally if code >= 500]
    assert sum(tally.values()) >= len(operations) * 2


def test_schema_documents_each_routes_errors_with_one_model(client):
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert "HTTPValidationError" not in schemas  # FastAPI's list-shaped 422 is not what we answer
    assert schemas["Error"]["required"] == ["detail"]
    assert schemas["Error"]["properties"]["detail"]["type"] == "string"
    assert schemas["GameSummary"]["properties"]["damaged"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            where, codes = f"{method.upper()} {path}", set(op["responses"])
            for code in codes - {"200", "201", "204"}:
                assert code[0] == "4" and op["responses"][code]["content"] == error, (where, code)
            params = {p["name"] for p in op.get("parameters", [])}
            if params or "requestBody" in op:
                assert "422" in codes, where
            if "game_id" in params:
                assert "404" in codes, where
            if "requestBody" in op:
                assert "413" in codes, where
            if op.get("security"):
                assert {"401", "429"} <= codes, where
