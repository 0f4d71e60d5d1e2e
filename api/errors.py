"""The API's errors: every refusal is JSON ``{"error": code, "message": words}`` with the
HTTP status that says what kind it is, never an HTML page and never a 500 for input."""

from __future__ import annotations


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, *, retry_after: int | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


def body(code: str, message: str, **more) -> dict:
    return {"error": code, "message": message, **more}
