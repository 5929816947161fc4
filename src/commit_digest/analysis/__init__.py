"""Analyzers turn a Commit into an Analysis: offline rules here, the LLM in llm_*."""
