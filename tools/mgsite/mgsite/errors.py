"""The one error the build raises for a page: one line, `page:line: what is wrong`.

Under MkDocs it is a PluginError, which MkDocs reports as one line and a failed build (no traceback);
under any other generator, a plain exception with the same message.
"""

from __future__ import annotations

try:
    from mkdocs.exceptions import PluginError as _Base
except ImportError:  # Zensical, or Python-Markdown alone
    _Base = Exception  # type: ignore[misc,assignment]


class PageError(_Base):
    """A page the build cannot make as written."""
