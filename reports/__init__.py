"""Report model, renderers and control mappings."""
