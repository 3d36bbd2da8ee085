"""MkDocs hook: the root files that pages include keep working links in the site.

README.md, BENCHMARKS.md, CHANGELOG.md and checkpoints/README.md are written to be read from the repository's
root, and the site's pages include them whole with ``pymdownx.snippets``, from the folder of mkdocs.yml wherever
``mkdocs`` is run from. Their links to ``docs/...`` and to one
another are rewritten to the site's pages, after the snippets are expanded and before MkDocs checks every link
(``mkdocs build --strict``). The docstrings' Sphinx roles (``:mod:`.engine```) show as code (``.engine``).
"""

import re
from pathlib import Path

from markdown import Extension
from markdown.preprocessors import Preprocessor

PAGES = {"README.md": "index.md", "BENCHMARKS.md": "benchmarks.md", "CHANGELOG.md": "changelog.md",
         "checkpoints/README.md": "networks.md"}  # a root file, and the page that includes it
LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)\s#]+)(#[^)\s]*)?\)")
ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|obj|exc):`~?([^`]+)`")
SNIPPETS_PRIORITY = 32  # pymdownx.snippets' preprocessor: this one runs right after it


class RootLinks(Preprocessor):
    @staticmethod
    def rewrite(match: re.Match) -> str:
        path, anchor = match.group(1), match.group(2) or ""
        if path in PAGES:
            return f"]({PAGES[path]}{anchor})"
        if path.startswith("docs/"):
            return f"]({path.removeprefix('docs/')}{anchor})"
        return match.group(0)

    def run(self, lines: list[str]) -> list[str]:
        return [ROLE.sub(r"`\1`", LINK.sub(self.rewrite, line)) for line in lines]


class RootLinksExtension(Extension):
    def extendMarkdown(self, md):
        md.preprocessors.register(RootLinks(md), "root_links", SNIPPETS_PRIORITY - 1)


def on_config(config):
    config.mdx_configs["pymdownx.snippets"]["base_path"] = [str(Path(config.config_file_path).parent)]
    config.markdown_extensions.append(RootLinksExtension())
    return config
