RenderOptions = RenderResult = content_hash = render_kit = None
