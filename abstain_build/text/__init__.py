"""Text models and text mechanics every layer above may use: sentence splitting and the
MiniLM sentence embeddings (run in numpy from the packaged weights)."""
