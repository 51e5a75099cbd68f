"""Knowledge document: parse header, change log, sections, anchors and references."""
