"""OTLP records of real LlamaIndex and LangChain RAG runs under the OpenInference
instrumentors: in-memory retrieval, mock embeddings and a fixed-answer model (no network),
spans exported by the opentelemetry-sdk and encoded as the Collector writes them. Each
builder imports its framework on call, so the tests can skip without it."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.support.payloads._base import RETURNS_TEXT, WARRANTY_TEXT

FRAMEWORK_ANSWER = "The warranty lasts 24 months [warranty-2]."
FRAMEWORK_QUESTION = "How long is the warranty?"


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The instrumentors call APIs their frameworks deprecate; under the tests' warnings as
    errors that would drop their spans, so deprecations are ignored while a run records."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def _provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "framework-rag"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def llama_index_spans() -> list[Any]:
    """A LlamaIndex query engine over two nodes (IDs warranty-2, returns-1), its answer
    from a fixed-answer LLM, then a follow-up completion (a question to suggest), both in
    the app's request span."""
    from llama_index.core import Settings, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
    from llama_index.core.llms.callbacks import llm_completion_callback
    from llama_index.core.schema import TextNode
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    class FixedLLM(CustomLLM):
        answer: str = FRAMEWORK_ANSWER

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name="fixed-llm")

        @llm_completion_callback()
        def complete(
            self, prompt: str, formatted: bool = False, **kwargs: Any
        ) -> CompletionResponse:
            return CompletionResponse(text=self.answer)

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
            yield CompletionResponse(text=self.answer, delta=self.answer)

    provider, exporter = _provider()
    instrumentor = LlamaIndexInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    with _quiet():
        try:
            Settings.embed_model = MockEmbedding(embed_dim=8)
            nodes = [
                TextNode(text=WARRANTY_TEXT, id_="warranty-2"),
                TextNode(text=RETURNS_TEXT, id_="returns-1"),
            ]
            index = VectorStoreIndex(nodes)
            exporter.clear()  # the index is built at start-up, in a trace of its own
            engine = index.as_query_engine(llm=FixedLLM(), similarity_top_k=2)
            with provider.get_tracer("shop-app").start_as_current_span("POST /ask"):
                engine.query(FRAMEWORK_QUESTION)
                FixedLLM(answer="Is the warranty transferable?").complete(
                    "Suggest a follow-up question."
                )
        finally:
            instrumentor.uninstrument()
    provider.shutdown()
    return list(exporter.get_finished_spans())


def langchain_spans() -> list[Any]:
    """A LangChain chain: a retriever of two documents, a prompt that numbers them, a fake
    chat model with a fixed answer and a string parser."""
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnablePassthrough
    from openinference.instrumentation.langchain import LangChainInstrumentor

    class ShopRetriever(BaseRetriever):
        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> list[Document]:
            return [
                Document(
                    id="warranty-2",
                    page_content=WARRANTY_TEXT,
                    metadata={"id": "warranty-2", "title": "Warranty"},
                ),
                Document(
                    id="returns-1",
                    page_content=RETURNS_TEXT,
                    metadata={"id": "returns-1", "title": "Returns"},
                ),
            ]

    def passages(documents: list[Document]) -> str:
        return "\n".join(f"[{d.id}] {d.page_content}" for d in documents)

    provider, exporter = _provider()
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    with _quiet():
        try:
            prompt = ChatPromptTemplate.from_messages(
                [
                    ("system", "Answer from these passages, citing [id]:\n{context}"),
                    ("human", "{question}"),
                ]
            )
            chain = (
                {"context": ShopRetriever() | passages, "question": RunnablePassthrough()}
                | prompt
                | FakeListChatModel(responses=[FRAMEWORK_ANSWER])
                | StrOutputParser()
            )
            with provider.get_tracer("shop-app").start_as_current_span("POST /ask"):
                chain.invoke(FRAMEWORK_QUESTION)
        finally:
            instrumentor.uninstrument()
    provider.shutdown()
    return list(exporter.get_finished_spans())
