"""Retrieval: query processing, candidate legs, fusion and ranking."""

from memvault.retrieval.text import STOPWORDS, query_terms

__all__ = ["STOPWORDS", "query_terms"]
