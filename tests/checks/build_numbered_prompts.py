"""Numbered-by-position fixtures built with the RAG libraries' own prompt code:
``PYTHONPATH=<dir with langchain-core and llama-index-core> python -m
tests.checks.build_numbered_prompts`` writes tests/checks/data/numbered_prompts.json.

- LlamaIndex (llama-index-core): ``CitationQueryEngine._create_citation_nodes`` numbers the
  retrieved nodes ``Source 1:``, ``Source 2:``... in retrieval order and
  ``CITATION_QA_TEMPLATE`` asks the model to "cite the appropriate source(s) using their
  corresponding numbers", its own example answer citing ``[2]`` and ``[1]``.
- LangChain (langchain-core): a ``ChatPromptTemplate`` over ``Document``s the app numbers
  itself, ``[1]``, ``[2]``... (LangChain's citation guide leaves the numbering to the app;
  this is the common 1-based form). LangChain's own guide numbers from 0, which
  ``citations.numbering`` does not read as positions: such a prompt must number from 1.

The documents are short passages written for these fixtures; each keeps its own ID (a UUID,
a knowledge-base key, a path), as apps' documents do. The answers are what a model following
each prompt writes: markers after the sentence (LlamaIndex's example style) and, for
LangChain, a bulleted answer with the marker first. The fixture keeps the rendered prompt so
the test can check that the Nth passage of the prompt is the trace's Nth source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "data" / "numbered_prompts.json"

DOCUMENTS = [
    (
        "3f1c9a2e-7b4d-4c1e-9a57-0d2b6c8e1f00",
        "Warranty",
        "The warranty lasts two years from delivery.",
    ),
    ("kb-returns-4", "Returns", "Returns are free within 30 days of delivery."),
    ("docs/shipping.md", "Shipping", "Standard shipping takes three business days."),
]
QUESTION = "How long is the warranty, and can I return the device?"


def _llamaindex() -> dict[str, Any]:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.llms import MockLLM
    from llama_index.core.query_engine.citation_query_engine import (
        CITATION_QA_TEMPLATE,
        CitationQueryEngine,
    )
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

    class _Fixed(BaseRetriever):
        """The retrieved nodes, in retrieval order."""

        def __init__(self, found: list[NodeWithScore]) -> None:
            super().__init__()
            self._found = found

        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            return self._found

    nodes = [
        NodeWithScore(node=TextNode(id_=doc_id, text=text), score=1.0 - n / 10)
        for n, (doc_id, _, text) in enumerate(DOCUMENTS)
    ]
    engine = CitationQueryEngine(_Fixed(nodes), llm=MockLLM())
    cited = engine._create_citation_nodes(nodes)
    context = "\n".join(node.node.get_content() for node in cited)
    prompt = CITATION_QA_TEMPLATE.format(context_str=context, query_str=QUESTION)
    answer = (
        "The warranty lasts two years from delivery [1]. You can return the device for free "
        "within 30 days of delivery [2]."
    )
    return {"library": "llama-index-core", "prompt": prompt, "answer": answer}


def _langchain() -> dict[str, Any]:
    from langchain_core.documents import Document
    from langchain_core.prompts import ChatPromptTemplate

    documents = [
        Document(page_content=text, metadata={"id": doc_id, "title": title})
        for doc_id, title, text in DOCUMENTS
    ]
    context = "\n\n".join(
        f"[{n}] {doc.metadata['title']}\n{doc.page_content}" for n, doc in enumerate(documents, 1)
    )
    template = ChatPromptTemplate.from_messages(
        [
            (
                "system",
                "Answer the user's question using only the numbered sources below. Start "
                "each statement with the number of the source it comes from, in brackets, "
                "as a bulleted list.\n\n{context}",
            ),
            ("human", "{question}"),
        ]
    )
    messages = template.format_messages(context=context, question=QUESTION)
    prompt = "\n\n".join(f"{m.type}: {m.content}" for m in messages)
    answer = (
        "- [1] The warranty lasts two years from delivery.\n"
        "- [2] You can return the device for free within 30 days of delivery."
    )
    return {"library": "langchain-core", "prompt": prompt, "answer": answer}


def build() -> dict[str, Any]:
    from importlib.metadata import version

    fixtures = {"llamaindex": _llamaindex(), "langchain": _langchain()}
    for name, fixture in fixtures.items():
        library = fixture["library"]
        fixture["library"] = f"{library} {version(library)}"
        fixture["question"] = QUESTION
        fixture["sources"] = [
            {"id": doc_id, "title": title, "text": text} for doc_id, title, text in DOCUMENTS
        ]
        fixtures[name] = fixture
    return fixtures


if __name__ == "__main__":
    OUT.write_text(json.dumps(build(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
