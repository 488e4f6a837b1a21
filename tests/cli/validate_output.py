#!/usr/bin/env python3
"""Checks napiscope outputs with independent parsers, for tests/cli.

  validate_output.py junit FILE            parse JUnit XML; print its suites and testcases as JSON
  validate_output.py schema SCHEMA DEF FILE  validate JSON FILE against SCHEMA's $defs/DEF
Exit 0 when valid, 1 with the reason on stdout otherwise.
"""
import json
import sys
import xml.etree.ElementTree as ET


def junit(path):
    root = ET.parse(path).getroot()
    if root.tag != "testsuites":
        raise ValueError(f"root is <{root.tag}>, not <testsuites>")
    suites = []
    for suite in root.findall("testsuite"):
        cases = {}
        for case in suite.findall("testcase"):
            outcome = "pass"
            for tag in ("failure", "error", "skipped"):
                element = case.find(tag)
                if element is not None:
                    outcome = {"tag": tag, "message": element.get("message"),
                               "type": element.get("type"), "text": element.text}
            err = case.find("system-err")
            if err is not None:  # a passing case's notes (napiscope: allowed loader warnings)
                outcome = (outcome if isinstance(outcome, dict) else {"tag": "pass"}) | {
                    "system-err": err.text}
            cases[case.get("name")] = outcome
        suites.append({k: suite.get(k) for k in ("name", "tests", "failures", "errors", "skipped")}
                      | {"cases": cases})
    print(json.dumps({"tests": root.get("tests"), "failures": root.get("failures"),
                      "errors": root.get("errors"), "suites": suites}))


def schema(schema_path, definition, path):
    import jsonschema
    with open(schema_path) as f:
        document = json.load(f)
    with open(path) as f:
        instance = json.load(f)
    validator_class = jsonschema.validators.validator_for(document)
    validator_class.check_schema(document)
    validator = validator_class({"$defs": document["$defs"], "$ref": f"#/$defs/{definition}"})
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        where = "/".join(str(p) for p in error.absolute_path)
        print(f"{path}: at /{where}: {error.message}")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    try:
        if sys.argv[1] == "junit":
            junit(sys.argv[2])
        else:
            schema(*sys.argv[2:5])
    except (ET.ParseError, ValueError, OSError, json.JSONDecodeError) as error:
        print(f"{sys.argv[-1]}: {error}")
        sys.exit(1)
