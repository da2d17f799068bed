"""What a raw browser or network error means for a job: one pure classifier.

Playwright raises plain errors whose first line names the cause (``net::ERR_CONNECTION_REFUSED``
at a navigation, "Target page, context or browser has been closed" when Chromium died). A job
must end with a code an agent can act on, not a generic crash, and it must say whether the
prompt had already gone out.
"""

from __future__ import annotations

import re

from oraculum.core.errors import ErrorCode, OracleError

# Chromium's network error names that mean "the provider's server could not be reached".
_UNREACHABLE = re.compile(
    r"net::ERR_(?:CONNECTION_(?:REFUSED|RESET|CLOSED|ABORTED|FAILED|TIMED_OUT)|"
    r"NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|INTERNET_DISCONNECTED|ADDRESS_UNREACHABLE|"
    r"NETWORK_CHANGED|TIMED_OUT|EMPTY_RESPONSE|PROXY_CONNECTION_FAILED|SSL_PROTOCOL_ERROR|"
    r"TUNNEL_CONNECTION_FAILED|SOCKET_NOT_CONNECTED|NETWORK_ACCESS_DENIED)"
)
_BROWSER_GONE = re.compile(
    r"Target (?:page, context or browser )?(?:has been )?closed|Browser has been closed|"
    r"Browser closed|browser has disconnected|Connection closed|crashed",
    re.IGNORECASE,
)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def classify_browser_error(exc: BaseException) -> OracleError:
    """The job-level error for a raw exception raised while driving the browser."""
    if isinstance(exc, OracleError):
        return exc
    text = str(exc)
    detail = first_line(exc)
    if _UNREACHABLE.search(text):
        name = _UNREACHABLE.search(text)
        return OracleError(
            ErrorCode.PROVIDER_UNREACHABLE,
            f"The provider's site could not be reached ({name.group(0) if name else detail}).",
            retryable=True,
            details={"browserError": detail},
        )
    if _BROWSER_GONE.search(text):
        return OracleError(
            ErrorCode.BROWSER_CRASHED,
            f"The browser went away while driving the job ({detail}).",
            retryable=True,
            details={"browserError": detail},
        )
    if type(exc).__name__ == "TimeoutError" and "playwright" in type(exc).__module__:
        return OracleError(
            ErrorCode.BROWSER_TIMEOUT,
            f"A browser step timed out ({detail}).",
            retryable=True,
            details={"browserError": detail},
        )
    return OracleError(
        ErrorCode.BROWSER_ERROR,
        f"The browser reported an error ({type(exc).__name__}: {detail}).",
        details={"browserError": detail},
    )
