# Sphinx configuration of ufjit's documentation site; tools/docs.sh builds it
# into build/docs/html (Markdown pages through MyST, the API reference from
# the public headers through Doxygen's XML and Breathe).
import os

project = "ufjit"
author = "the ufjit authors"
copyright = "the ufjit authors"

extensions = ["myst_parser", "breathe"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["Doxyfile"]

# Links to a heading of another page (`cpp.md#ufunc-methods`) need anchors.
myst_heading_anchors = 3
# Pages written for GitHub jump heading levels in places; that is not an error here.
suppress_warnings = ["myst.header"]

breathe_projects = {"ufjit": os.environ.get("UFJIT_DOXYGEN_XML", "../build/docs/doxygen/xml")}
breathe_default_project = "ufjit"
breathe_default_members = ("members",)

html_theme = "alabaster"
html_title = "ufjit"
html_theme_options = {"nosidebar": False}
