"""The microgpt site's build, for MkDocs and Zensical alike.

- `mgsite.extension`: the one Python-Markdown extension with all page logic (listed under
  `markdown_extensions` in mkdocs.yml): embeds by name with their true line numbers, runnable-block
  attributes and labels (runnable.py), the page's blocks (`/// widget | relu`, `//// check | answer=6`:
  shortcodes.py) for widgets, diagrams and self-checks (graphs.py) and the Train widget, formulas
  typeset by Temml (formulas.py). It takes the page it converts from the generator (pages.py).
- `python -m mgsite.prepare`: what a build copies and no page makes (the wheel into docs/dist/, the
  npm files into docs/vendor/, the editor's bundle, the math font), written into gitignored paths of
  docs/; and the install line for that wheel, which docs/index.md embeds (.mgsite/install.console).
- `python -m mgsite.finish SITE`: after a build, the math font cut to the characters the built pages draw.

`mgsite.blocks` is the one reader of pages, for the build and the tests; it uses the standard library only.
Nothing is imported here, so the tests can read pages without the docs toolchain.
"""
