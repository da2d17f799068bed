"""Arguments checked against what the server publishes: a tool's input schema, a prompt's
required arguments. A problem is one `invalid_argument` error naming each argument and what is
wrong with it, so an agent can fix the call (the SDK's own refusal is pydantic's text)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.jobs.ids import validate_job_ref

MAX_PROBLEMS = 5


def validators(schemas: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """One JSON Schema validator per tool input schema."""
    from jsonschema import Draft202012Validator  # loads at the first tool call, not at start

    return {name: Draft202012Validator(schema) for name, schema in schemas.items()}


def tool_problem(schemas: Mapping[str, Any], name: object, arguments: object) -> OracleError | None:
    """Why ``arguments`` cannot be passed to tool ``name`` (``schemas``: its validators); None
    when they can."""
    if not isinstance(name, str) or name not in schemas:
        return OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"Unknown tool: {name}.",
            rejected_value=name if isinstance(name, str) else None,
            allowed_values=sorted(schemas),
            suggested_next_step="Call one of the listed tools.",
        )
    given = {} if arguments is None else arguments
    problems = _schema_problems(schemas[name], given)
    if not problems:
        return None
    first = problems[0]
    return OracleError(
        ErrorCode.INVALID_ARGUMENT,
        f"Invalid arguments for {name}: "
        + "; ".join(
            f"{p['argument']}: {p['problem']}" if p["argument"] else p["problem"] for p in problems
        )
        + ".",
        rejected_value=first.get("value"),
        allowed_values=first.get("allowed"),
        suggested_next_step=f"Fix the arguments (the tool's input schema describes each one) and "
        f"call {name} again.",
        details={"tool": name, "problems": [_public(p, first) for p in problems]},
    )


def prompt_problem(
    prompts: dict[str, list[tuple[str, bool]]], name: object, arguments: object
) -> OracleError | None:
    """Why prompt ``name`` cannot be got with ``arguments``; None when it can."""
    if not isinstance(name, str) or name not in prompts:
        return OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"Unknown prompt: {name}.",
            rejected_value=name if isinstance(name, str) else None,
            allowed_values=sorted(prompts),
        )
    given = arguments if isinstance(arguments, dict) else {}
    missing = [arg for arg, required in prompts[name] if required and not given.get(arg)]
    if not missing:
        return _job_id_problem(given.get("jobId")) if "jobId" in given else None
    usage = " ".join(f"<{arg}>" for arg, _ in prompts[name])
    return OracleError(
        ErrorCode.INVALID_ARGUMENT,
        f"The {name} prompt needs {', '.join(missing)} (usage: {name} {usage}).",
        allowed_values=[arg for arg, _ in prompts[name]],
        suggested_next_step=f"Get the {name} prompt again with every required argument; in "
        "hosts that split words, quote each argument.",
        details={"prompt": name, "missing": missing},
    )


def _job_id_problem(value: object) -> OracleError | None:
    # A prompt's jobId is written into the text the agent follows: held to the rule every tool
    # holds it to, so it can only ever be a job id.
    try:
        validate_job_ref(value)
    except OracleError as exc:
        return exc
    return None


def _schema_problems(validator: Any, arguments: object) -> list[dict[str, Any]]:
    from jsonschema.exceptions import best_match

    problems = []
    for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path)):
        error = best_match([error]) if error.context else error
        path = [str(part) for part in error.absolute_path]
        problem: dict[str, Any] = {"argument": ".".join(path), "problem": error.message}
        if error.validator == "required":
            missing = [r for r in error.validator_value if r not in (error.instance or {})]
            problem = {"argument": ".".join(path + missing[:1]), "problem": "required"}
        elif path:
            problem["value"] = error.instance
        if error.validator == "enum":
            # The values are listed once, as the error's allowedValues (and in its text).
            problem["problem"] = f"{json.dumps(error.instance)} is not an allowed value"
            problem["allowed"] = list(error.validator_value)
        problems.append(problem)
        if len(problems) == MAX_PROBLEMS:
            break
    return problems


def _public(problem: dict[str, Any], first: dict[str, Any]) -> dict[str, Any]:
    """A problem as `details` lists it; the first one's allowed values are the error's own."""
    keys = ("argument", "problem") if problem is first else ("argument", "problem", "allowed")
    return {key: problem[key] for key in keys if key in problem}
