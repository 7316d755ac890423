"""The check harness of the client programs: `@check` registers a function; `run_checks()`
runs each, prints PASS/FAIL (with the traceback) and the closing line 'N passed, M failed',
and returns the exit status (1 if any failed)."""

import traceback

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def run_checks():
    passed = failed = 0
    for fn in CHECKS:
        try:
            fn()
        except Exception:  # noqa: BLE001 - report every failure and go on
            failed += 1
            print(f"FAIL {fn.__name__}")
            traceback.print_exc()
        else:
            passed += 1
            print(f"PASS {fn.__name__}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
